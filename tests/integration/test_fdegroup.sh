# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_fdegroup.sh - code no symbol covers is grouped by function, the
# range of its FDE in .eh_frame, and named after the function's start
# ("FILE+0xOFF", OFF a file offset, as unnamed frames are): Debian's
# liblzma has only .dynsym, and without grouping each sampled instruction
# of its static functions was a row of its own.

# fdegroup_offsets FILE - read VADDRs (hex) on stdin, print the file
# offset of each in FILE's PT_LOAD segments (hex, no 0x).
fdegroup_offsets() {
	python3 -c '
import subprocess, sys
segs = []
for l in subprocess.run(["readelf", "-lW", sys.argv[1]], capture_output=True,
                        text=True, check=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD":
        segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
for l in sys.stdin:
    v = int(l, 16)
    for off, va, fs in segs:
        if va <= v < va + fs:
            print("%x" % (v - va + off))
            break
' "$1"
}

# fdegroup_fde_starts FILE - the file offsets where FILE's FDEs start.
fdegroup_fde_starts() {
	readelf --debug-dump=frames "$1" | sed -n 's/.* FDE .* pc=\([0-9a-f]*\)\.\..*/\1/p' |
		fdegroup_offsets "$1"
}

# fdegroup_sidecar FILE-SUFFIX KEY - KEY of out.json's mapping of the file.
fdegroup_sidecar() {
	python3 - out.json "$@" <<'PY'
import json, sys
doc, suffix, key = sys.argv[1:]
for m in json.load(open(doc))["symbols"]["mappings"]:
    if m["path"].endswith(suffix):
        print(m.get(key, ""))
        break
PY
}

# xz compressing random data spends its time in liblzma's static match
# finder and encoder functions: a handful of rows, not thousands.
test_fdegroup_xz_liblzma_rows_are_functions() {
	need_root_bpf || return
	local lzma=/usr/lib/x86_64-linux-gnu/liblzma.so.5 sh xz rows distinct top bad
	command -v xz >/dev/null && [ -e "$lzma" ] || { skip "needs Debian's xz-utils"; return; }
	start_bg sh sh -c 'head -c 200M /dev/urandom | exec xz -T1 -6 >/dev/null'
	xz=$(for _ in $(seq 30); do pgrep -P "$sh" -x xz && break; sleep 0.1; done)
	[ -n "$xz" ] || { fail "xz did not start"; return 1; }
	BG_PIDS+=("$xz") # sh does not take it down when killed
	"$TRAPD" capture -p "$xz" -d 4 -F 199 -o out.pb.zst >out.log 2>&1 ||
		{ fail "trapd capture failed: $(cat out.log)"; return 1; }
	"$TRAPD" report out.pb.zst --top 0 >report.txt 2>&1 || { fail "report failed"; return 1; }
	# self samples of each liblzma row, most first
	rows=$(awk '$NF ~ /^liblzma\.so/ && $2 > 0 { print $2, $NF }' report.txt | sort -rn)
	distinct=$(awk '$NF ~ /^liblzma\.so/' report.txt | wc -l)
	top=$(awk 'NR == 1 { top = $1 } { t += $1 } END { printf "%d", t ? 100 * top / t : 0 }' \
		<<<"$rows")
	echo "    liblzma: $distinct functions, the hottest with $top % of its self samples"
	[ "$distinct" -gt 0 ] || { fail "no liblzma frames: $(head -20 report.txt)"; return 1; }
	[ "$distinct" -lt 60 ] || { fail "$distinct liblzma rows: $(head -30 report.txt)"; return 1; }
	[ "$top" -ge 25 ] || { fail "the hottest liblzma row has $top %: $rows"; return 1; }
	# every row is named after an FDE's start
	fdegroup_fde_starts "$(readlink -f "$lzma")" >starts
	bad=$(awk '$NF ~ /^liblzma\.so/ { sub(/.*\+0x/, "", $NF); print $NF }' report.txt |
		grep -vxFf starts)
	[ -z "$bad" ] || { fail "rows that start no FDE: $bad"; return 1; }
	[ "$(fdegroup_sidecar liblzma.so.5.4.1 source)" = "dynsym only, FDE ranges" ] &&
		[ "$(fdegroup_sidecar liblzma.so.5.4.1 fde_grouped)" -gt 0 ] ||
		{ fail "sidecar: $(grep -A7 liblzma out.json)"; return 1; }
}

# spin-gamma is stripped (no symbol of its own, no debug file here): its
# hot function is named after its FDE's start, which is where the
# unstripped build (spin-gamma.full) has the symbol.
test_fdegroup_stripped_binary_function_starts() {
	need_root_bpf || return
	local gamma=$WORKLOADS/symtest/spin-gamma pid bid value want share
	[ -x "$gamma" ] || { fail "no $gamma: make integration builds it"; return 1; }
	bid=$(readelf -n "$gamma" | awk '/Build ID/ { print $3 }')
	[ ! -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] ||
		{ fail "the host has the debug file: the test proves nothing"; return 1; }
	cp "$gamma" ./spin-gamma || { fail "cannot copy spin-gamma"; return 1; }
	start_bg pid "$PWD/spin-gamma" 20
	for _ in $(seq 30); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = spin-gamma ] && break
		sleep 0.1
	done
	"$TRAPD" capture -p "$pid" -d 2 -F 199 -o out.pb.zst >out.log 2>&1 ||
		{ fail "trapd capture failed: $(cat out.log)"; return 1; }
	"$TRAPD" report out.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "report failed"; return 1; }
	value=$(readelf -sW "$gamma.full" | awk '$NF == "spin_gamma_hot" { print $2; exit }')
	want=spin-gamma+0x$(echo "$value" | fdegroup_offsets "$gamma.full")
	share=$(self_share out.folded "$want")
	echo "    $share % of the samples in $want (spin_gamma_hot)"
	awk -v s="$share" 'BEGIN { exit !(s >= 90) }' ||
		{ fail "leaves: $(head -5 out.folded)"; return 1; }
	[ "$(fdegroup_sidecar /spin-gamma source)" = "no symbols, FDE ranges" ] ||
		{ fail "sidecar: $(grep -A7 spin-gamma out.json)"; return 1; }
}
