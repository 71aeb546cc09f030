#!/usr/bin/env bash
# make-python-seeds.sh - rebuild the pyruntime seed corpus
# (tests/fuzz/corpus/pyruntime) from tiny-python.c: a shared library that
# looks like CPython 3.11 and one like 3.13 (debug offsets in _PyRuntime).
# The outputs are committed; rerun only to change them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../corpus/pyruntime
cc=${CC:-gcc}
flags="-Os -g0 -fno-asynchronous-unwind-tables -fno-stack-protector -ffreestanding
	-nostdlib -fPIC -shared -Wl,--build-id=sha1 -Wl,-z,norelro -Wl,-z,noseparate-code"
mkdir -p "$out"
$cc $flags -DPY_MINOR=11 "$here/tiny-python.c" -o "$out/libpython3.11-tiny.so"
$cc $flags -DPY_MINOR=13 "$here/tiny-python.c" -o "$out/libpython3.13-tiny.so"
