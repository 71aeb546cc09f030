# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_inlines.sh - inlined functions as frames of their own: a workload
# built -O2 -g whose hot code is an always_inline function inside a
# noinline caller; the views show 'inl_caller;inl_hot_inline (inlined)',
# go tool pprof shows both functions, and perf --inline is compared. The
# table counts the inlined code as inl_caller's, as perf counts self time
# (and as trapd diff, ci and top do), and says so.

# inlines_share FOLDED ERE - percentage (integer) of samples whose stack
# matches the extended regular expression ERE.
inlines_share() {
	awk -v re="$2" '{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s)
		if (s ~ re) h += n } END { printf "%d", t ? 100 * h / t : 0 }' "$1"
}

test_inlines_views_show_the_inlined_function() {
	need_root_bpf || return
	local inl=$WORKLOADS/nofp/inl share
	"$TRAPD" capture -o inl.pb.zst -d 2 -F 199 -- "$inl" 2.5 >inl.log 2>&1 ||
		{ fail "capture: $(tail -3 inl.log)"; return 1; }
	"$TRAPD" report inl.pb.zst --folded inl.folded --pprof inl.pb.gz >inl.top 2>&1 ||
		{ fail "report: $(tail -3 inl.top)"; return 1; }
	share=$(inlines_share inl.folded ';main;inl_caller;inl_hot_inline \(inlined\)$')
	echo "    folded: $share % of samples end in inl_caller;inl_hot_inline (inlined)"
	[ "$share" -ge 90 ] || { fail "$share %: $(sort -t' ' -k2 -nr inl.folded | head -3)"; return 1; }
	awk '$5 == "inl_caller" { sub(/%/, "", $1); ok = ($1 + 0 >= 90) } END { exit !ok }' inl.top &&
		! grep -q 'inl_hot_inline' inl.top &&
		grep -q '^# inlined code counts as the function it is inlined into' inl.top ||
		{ fail "table: $(head -8 inl.top)"; return 1; }
	if ! command -v go >/dev/null; then
		[ "${CI:-}" = true ] && { fail "go is not installed"; return 1; }
		echo "    (go not installed: pprof not checked)"
		return 0
	fi
	go tool pprof -traces inl.pb.gz >inl.traces 2>&1 || { fail "pprof: $(tail -3 inl.traces)"; return 1; }
	grep -q 'inl_hot_inline (inline)' inl.traces && grep -q 'inl_caller' inl.traces ||
		{ fail "pprof -traces: $(head -20 inl.traces)"; return 1; }
	echo "    pprof -traces: $(grep -m1 -A1 'inl_hot_inline' inl.traces | tr -s ' \n' ' ')"
}

# perf on the same workload, for comparison only: what its --inline
# report shows is printed, not judged.
test_inlines_compared_with_perf() {
	need_root_bpf || return
	command -v perf >/dev/null || { echo "    perf not installed"; return 77; }
	perf record -q -o inl.perf --call-graph dwarf -F 199 -- "$WORKLOADS/nofp/inl" 2 \
		>perf.log 2>&1 || { fail "perf record: $(tail -3 perf.log)"; return 1; }
	perf report -i inl.perf --inline --no-children --stdio -q -G 2>/dev/null |
		grep -m6 -E 'inl_|inlined' | sed 's/^/    perf: /'
	perf script -i inl.perf -F ip,sym --inline 2>/dev/null | grep -m1 -B1 -A2 'inl_hot_inline' |
		sed 's/^/    perf script: /'
}
