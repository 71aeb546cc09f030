#!/usr/bin/env bash
# make-elf-seeds.sh - rebuild the ELF seed corpus (tests/fuzz/corpus/elf)
# from tiny.c: a static executable, a PIE, a shared library, a stripped
# copy of it (.dynsym only) and one with a .gnu_debuglink, a 32-bit executable and an executable with
# its section headers cut off (build ID only reachable via PT_NOTE). All
# freestanding, so each is a few KiB. The outputs are committed; rerun
# only to change them. Usage: tests/fuzz/elf-seeds/make-elf-seeds.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../corpus/elf
src=$here/tiny.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-gcc}
flags="-Os -g0 -fno-asynchronous-unwind-tables -fno-stack-protector -ffreestanding
	-nostdlib -Wl,--build-id=sha1 -Wl,-z,norelro -Wl,-z,noseparate-code"
mkdir -p "$out"
$cc $flags -static -fno-pie -no-pie "$src" -o "$out/tiny-exec"
$cc $flags -fPIE -pie -Wl,-e,_start "$src" -o "$out/tiny-pie"
$cc $flags -fPIC -shared "$src" -o "$out/tiny.so"
strip --strip-all "$out/tiny.so" -o "$out/tiny-stripped.so"
# A stripped copy that names its debug file (.gnu_debuglink: name, CRC).
cp "$out/tiny.so" "$tmp/tiny.debug"
(cd "$tmp" && objcopy --add-gnu-debuglink=tiny.debug "$out/tiny-stripped.so" "$out/tiny-debuglink.so")
$cc -m32 $flags -static -fno-pie -no-pie "$src" -o "$out/tiny-exec32"
# Cut the section header table off a copy, as sstrip does.
python3 - "$out/tiny-exec" "$out/tiny-noshdr" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
struct.pack_into("<Q", d, 0x28, 0)
struct.pack_into("<HHH", d, 0x3a, 0, 0, 0)
open(sys.argv[2], "wb").write(bytes(d[:shoff]))
PY
ls -l "$out"
