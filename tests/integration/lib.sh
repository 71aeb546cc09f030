# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# lib.sh - helpers for trapd's integration tests (sourced by run).
#
# A test is a shell function named test_<behaviour>; it returns 0 (pass),
# 1 (fail, after saying why with fail) or 77 (skip, after saying why with
# skip). With CI=true a skip counts as a failure: CI must prove every test.

TRAPD=${TRAPD:-$PWD/build/trapd}
WORKLOADS=${WORKLOADS:-$PWD/build/workloads}

fail() {
	echo "    FAIL: $*" >&2
	return 1
}

skip() {
	echo "    SKIP: $*" >&2
	return 77
}

# need_root_bpf - skip unless this process can load BPF programs.
need_root_bpf() {
	[ "$(id -u)" -eq 0 ] || { skip "needs root"; return 77; }
	[ -r /sys/kernel/btf/vmlinux ] || { skip "needs kernel BTF"; return 77; }
	return 0
}

# start_bg VAR CMD... - start CMD in the background, its pid in VAR; it is
# killed when the test ends.
start_bg() {
	local var=$1
	shift
	"$@" >/dev/null 2>&1 &
	printf -v "$var" '%s' "$!"
	BG_PIDS+=("$!")
}

kill_bg() {
	local p
	for p in "${BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	BG_PIDS=()
}

# total_share FOLDED FUNCTION - percent (one decimal) of FOLDED's weight
# with FUNCTION anywhere on the stack; frames may hold spaces
# ("spin (inlined)").
total_share() {
	awk -v fn="$2" '{
		n = $NF; total += n; stack = ";" $0 ";"; sub(/ [0-9]+;$/, ";", stack)
		if (index(stack, ";" fn ";")) hit += n
	} END { if (total == 0) print "0.0"; else printf "%.1f\n", 100 * hit / total }' "$1"
}

# self_share FOLDED FUNCTION - percentage (one decimal) of samples whose
# leaf frame is FUNCTION in a folded-stacks file, as perf counts self time:
# the functions inlined into it ("NAME (inlined)" frames below it) are it.
self_share() {
	awk -v fn="$2" '{
		n = $NF; total += n
		stack = $0; sub(/ [0-9]+$/, "", stack)
		k = split(stack, f, ";")
		while (k > 1 && f[k] ~ / \(inlined\)$/) k--
		if (f[k] == fn) hit += n
	} END { if (total == 0) print "0.0"; else printf "%.1f\n", 100 * hit / total }' "$1"
}

# within VALUE TARGET TOLERANCE - |VALUE - TARGET| <= TOLERANCE (decimals).
within() {
	awk -v v="$1" -v t="$2" -v d="$3" 'BEGIN { exit !((v - t) <= d && (t - v) <= d) }'
}

# expect_status WANT CMD... - run CMD, compare its exit status with WANT;
# its stderr is kept in $LAST_STDERR.
expect_status() {
	local want=$1 got
	shift
	LAST_STDERR=$("$@" 2>&1 >/dev/null)
	got=$?
	[ "$got" -eq "$want" ] || { fail "'$*' exited $got, expected $want: $LAST_STDERR"; return 1; }
	return 0
}

# capture_into OUT ARGS... - trapd capture ARGS into OUT.pb.zst (its
# sidecar OUT.json, its log OUT.log), its folded stacks in OUT.folded.
capture_into() {
	local out=$1
	shift
	"$TRAPD" capture -o "$out.pb.zst" "$@" >"$out.log" 2>&1 ||
		{ fail "capture $*: $(tail -3 "$out.log")"; return 1; }
	"$TRAPD" report "$out.pb.zst" --folded "$out.folded" >/dev/null 2>&1 ||
		{ fail "report of $out"; return 1; }
}
