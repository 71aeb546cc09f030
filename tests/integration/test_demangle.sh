# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_demangle.sh - C++ names shown demangled in every view (report
# table, folded stacks, flame graph, pprof, trapd diff and trapd ci), with
# the mangled symbol kept as the pprof function's system_name. The
# workload, cxxspin, spends its time in a namespace's function, a class
# template's method, an operator and a lambda.

DEMANGLE_STEP='cxxspin::Accumulator<unsigned long>::step(unsigned long)'
DEMANGLE_PLUS='cxxspin::Vec::operator+(cxxspin::Vec const&) const'
DEMANGLE_CHURN='cxxspin::churn(int)'
DEMANGLE_LAMBDA='cxxspin::run(double)::{lambda(unsigned long)#1}::operator()(unsigned long) const'

# demangle_capture OUT - capture a 2 s run of cxxspin into OUT.
demangle_capture() {
	"$TRAPD" capture -d 2 -F 199 -o "$1" -- "$WORKLOADS/cxxspin" 3 >"$1.log" 2>&1 ||
		{ fail "trapd capture failed: $(cat "$1.log")"; return 1; }
}

# demangle_expect_names FILE WHAT - FILE holds each hot function's
# demangled name (fixed strings) and no mangled cxxspin symbol.
demangle_expect_names() {
	local n
	for n in "$DEMANGLE_STEP" "$DEMANGLE_PLUS" "$DEMANGLE_CHURN" "$DEMANGLE_LAMBDA"; do
		grep -qF -- "$n" "$1" || { fail "$2 lacks '$n': $(head -c 2000 "$1")"; return 1; }
	done
	! grep -q '_ZN7cxxspin\|_ZNK7cxxspin\|_ZZN7cxxspin' "$1" ||
		{ fail "$2 shows mangled names: $(grep -m3 '_Z' "$1")"; return 1; }
}

test_demangle_cxx_names_in_report_folded_and_svg() {
	need_root_bpf || return
	local share
	demangle_capture cap.pb.zst || return 1
	"$TRAPD" report cap.pb.zst --top 0 >table.txt 2>&1 || { fail "report: $(cat table.txt)"; return 1; }
	grep -qF "$DEMANGLE_CHURN" table.txt && grep -qF 'cxxspin::Accumulator<unsigned long>::' table.txt ||
		{ fail "the report table lacks the demangled names: $(cat table.txt)"; return 1; }
	! grep -q '_ZN7cxxspin' table.txt || { fail "the report table shows mangled names"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null 2>&1 || { fail "report --folded failed"; return 1; }
	demangle_expect_names cap.folded "the folded stacks" || return 1
	share=$(self_share cap.folded "$DEMANGLE_STEP")
	echo "    $DEMANGLE_STEP: $share % self (about 40 % expected)"
	within "$share" 40 20 || { fail "step() has $share % of the samples"; return 1; }
	"$TRAPD" report cap.pb.zst --svg - 2>/dev/null | sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' >cap.svg
	demangle_expect_names cap.svg "the flame graph" || return 1
}

# The pprof: name demangled, system_name the symbol (go tool pprof -raw
# prints a location's system name in parentheses when it differs).
test_demangle_pprof_keeps_the_mangled_system_name() {
	need_root_bpf || return
	command -v go >/dev/null || { skip "go not installed"; return; }
	demangle_capture cap.pb.zst || return 1
	"$TRAPD" report cap.pb.zst --pprof cap.pb.gz >/dev/null 2>&1 || { fail "report --pprof failed"; return 1; }
	HOME=$PWD go tool pprof -raw cap.pb.gz >raw.txt 2>err.txt || { fail "go tool pprof: $(cat err.txt)"; return 1; }
	grep -qF "$DEMANGLE_CHURN " raw.txt && grep -qF '(_ZN7cxxspin5churnEi)' raw.txt ||
		{ fail "pprof lacks churn's name or symbol: $(grep cxxspin raw.txt | head -5)"; return 1; }
	grep -qF '(_ZN7cxxspin11AccumulatorImE4stepEm)' raw.txt && grep -qF '(_ZNK7cxxspin3VecplERKS0_)' raw.txt ||
		{ fail "pprof lacks the template's or the operator's symbol: $(grep cxxspin raw.txt | head -5)"; return 1; }
	# A C function's name is its symbol: no system name of its own shown.
	grep -Eq ' main .*cxxspin:[0-9]+(:[0-9]+)? s=0$' raw.txt || { fail "main has a system name: $(grep ' main ' raw.txt)"; return 1; }
	HOME=$PWD go tool pprof -top cap.pb.gz 2>/dev/null | grep -qF "$DEMANGLE_PLUS" ||
		{ fail "go tool pprof -top does not show the operator demangled"; return 1; }
}

# trapd ci (a baseline, then a run compared with it) and trapd diff name
# the functions demangled too.
test_demangle_diff_and_ci_show_demangled_names() {
	need_root_bpf || return
	"$TRAPD" ci -F 199 -o base -- "$WORKLOADS/cxxspin" 1 >base.log 2>&1 || { fail "ci: $(cat base.log)"; return 1; }
	"$TRAPD" ci -F 199 --baseline base/profile.pb.zst -o new -- "$WORKLOADS/cxxspin" 1 >new.log 2>&1
	[ $? -le 3 ] || { fail "ci against the baseline: $(cat new.log)"; return 1; }
	grep -qF 'cxxspin::' new.log || { fail "ci's comparison lacks demangled names: $(cat new.log)"; return 1; }
	sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' new/diff.svg >diff.svg.txt
	# The summary lists what grew and shrank: a function whose time moved
	# as the machine's did (the median's) is in neither list.
	grep -qF "$DEMANGLE_STEP" new/summary.md || grep -qF "$DEMANGLE_CHURN" new/summary.md ||
		{ fail "new/summary.md lacks the demangled names: $(cat new/summary.md)"; return 1; }
	grep -qF "$DEMANGLE_STEP" diff.svg.txt && grep -qF "$DEMANGLE_CHURN" diff.svg.txt ||
		{ fail "diff.svg lacks the demangled names"; return 1; }
	for f in new/summary.md diff.svg.txt; do
		! grep -q '_ZN7cxxspin' "$f" || { fail "$f shows mangled names"; return 1; }
	done
	"$TRAPD" diff base/profile.pb.zst new/profile.pb.zst --top 0 --markdown diff.md >diff.txt 2>&1
	[ $? -le 3 ] || { fail "diff: $(cat diff.txt)"; return 1; }
	# (the table cuts long names; a function that moved as the machine
	# did is in neither list, so any of them may be missing)
	grep -qF 'cxxspin::' diff.txt &&
		{ grep -qF "$DEMANGLE_PLUS" diff.md || grep -qF "$DEMANGLE_STEP" diff.md ||
			grep -qF "$DEMANGLE_CHURN" diff.md; } ||
		{ fail "trapd diff lacks the demangled names: $(cat diff.txt)"; return 1; }
	! grep -q '_ZN7cxxspin' diff.txt diff.md || { fail "trapd diff shows mangled names"; return 1; }
}
