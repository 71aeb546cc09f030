# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_calls.sh - samples inside slow calls: a func rule and a syscall
# rule fire on a handler slow in 5 % of its calls because it takes a
# different path (slowcall), and their captures tell the samples inside
# slow calls from those inside fast ones; what a target can make the
# window track is bounded. Uses write_global, start_daemon, stop_daemon
# and has_captures from test_daemon.sh, frames_of from test_offcpu.sh.

# only_capture - the one capture in the spool.
only_capture() {
	ls spool/*.pb.zst 2>/dev/null | head -1
}

# rule_capture WHAT - the daemon on ./rules.ini until its rule (WHAT, for
# the message) fired and its capture is written; the capture in CAP.
rule_capture() {
	start_daemon || return 1
	wait_for 15 has_captures 1 || { fail "$1 did not fire: $(cat daemon.log)"; stop_daemon; return 1; }
	stop_daemon
	CAP=$(only_capture)
}

# calls_rule NAME SIGNAL DURATION LINES... - a latency rule whose capture
# lasts DURATION.
calls_rule() {
	printf '[rule %s]\nsignal = %s\nduration = %s\n' "$1" "$2" "$3"
	shift 3
	printf '%s\n' "$@"
	printf 'window = 2s\nmin_count = 20\nfrequency = 499Hz\n\n'
}

test_calls_func_rule_names_the_slow_path() {
	need_root_bpf || return
	local rc=0 pid cap slow fast first
	start_bg pid "$WORKLOADS/slowcall" 15
	{
		write_global
		calls_rule slow-handler func.p99 3s "function = $WORKLOADS/slowcall:handle_request" \
			"pid = $pid" "above = 10ms"
	} >rules.ini
	rule_capture "func.p99 rule" || return 1
	cap=$CAP
	python3 - "${cap%.pb.zst}.json" <<'PY' || { fail "sidecar calls: $(grep -A25 '"calls"' "${cap%.pb.zst}.json")"; rc=1; }
import json, sys
c = json.load(open(sys.argv[1]))["calls"]
assert c["what"].startswith("func ") and c["what"].endswith("slowcall:handle_request"), c
# the rule's own threshold draws the line: 1 ms calls are fast, 20 ms slow
assert c["slow_from_ns"] == 10000000 and c["threshold_ns"] == 10000000, c
assert c["calls"] > 500 and 15e6 < c["p99_ns"] < 30e6, c
assert c["slow"] >= 40 and c["fast"] >= 300, c
s = c["samples"]
# slow calls take 20 of every 39 ms: about half the samples each way
assert 0.35 < s["slow"] / (s["slow"] + s["fast"]) < 0.65, s
assert c["durations_lost"] == 0 and c["untracked"] == 0, c
PY
	"$TRAPD" report "$cap" --where call=slow --folded slow.folded >/dev/null 2>&1 &&
		"$TRAPD" report "$cap" --where call=fast --folded fast.folded >/dev/null 2>&1 ||
		{ fail "report --where on $cap"; return 1; }
	slow=$(total_share slow.folded slow_path)
	fast=$(total_share fast.folded slow_path)
	echo "    slow_path: ${slow} % of the samples inside slow calls, ${fast} % inside fast ones"
	awk -v s="$slow" 'BEGIN { exit !(s >= 85) }' ||
		{ fail "slow_path is ${slow} % of the slow calls' samples, expected most: $(head -3 slow.folded)"; rc=1; }
	grep -q 'slow_path' fast.folded &&
		{ fail "the fast calls' samples contain slow_path: $(grep slow_path fast.folded | head -2)"; rc=1; }
	grep -q 'fast_path' fast.folded || { fail "no fast_path in the fast calls' samples"; rc=1; }
	# The uretprobe's trampoline hides handle_request's return address:
	# the stacks still reach main through it.
	awk -v s="$(total_share slow.folded main)" 'BEGIN { exit !(s >= 95) }' ||
		{ fail "slow calls' stacks do not reach main: $(head -3 slow.folded)"; rc=1; }
	# The slow calls against the fast ones: slow_path first.
	"$TRAPD" diff "$cap" --base-where call=fast --where call=slow --svg split.svg >diff.txt 2>&1
	[ $? -eq 3 ] || { fail "trapd diff of the split did not flag a function: $(cat diff.txt)"; rc=1; }
	first=$(grep -A2 '^Grew most' diff.txt | tail -1 | awk '{ print $NF }')
	[ "$first" = slow_path ] || { fail "the split's top grower is '$first', not slow_path: $(cat diff.txt)"; rc=1; }
	grep -q 'slow_path' split.svg && xmllint --noout split.svg 2>/dev/null ||
		{ fail "split.svg lacks slow_path or is not XML"; rc=1; }
	# go tool pprof reads the label.
	"$TRAPD" report "$cap" --pprof cap.pb.gz >/dev/null 2>&1 || { fail "report --pprof"; rc=1; }
	go tool pprof -top -tagfocus=call=slow cap.pb.gz 2>/dev/null | grep -q ' slow_path$' ||
		{ fail "go tool pprof -tagfocus=call=slow shows no slow_path: $(go tool pprof -tags cap.pb.gz 2>&1 | head -8)"; rc=1; }
	# (outside: only when a sample fell outside every call, which a busy
	# worker may never do in the window)
	"$TRAPD" report "$cap" --where call=slo >typo.txt 2>&1
	[ $? -eq 2 ] && grep -Eq "its call labels: fast, (outside, )?slow$" typo.txt ||
		{ fail "a mistyped --where is not explained: $(cat typo.txt)"; rc=1; }
	return $rc
}

# The slow calls are slow off the CPU: a syscall rule on nanosleep, whose
# capture (cpu+offcpu for a latency rule) labels the waits.
test_calls_syscall_rule_labels_waits() {
	need_root_bpf || return
	local rc=0 pid cap slow fast
	start_bg pid "$WORKLOADS/slowcall" -s 15 1 20
	{
		write_global
		calls_rule slow-sleeps syscall.p99 3s "syscalls = nanosleep,clock_nanosleep" \
			"pid = $pid" "above = 10ms" "slow_calls = p95"
	} >rules.ini
	rule_capture "syscall.p99 rule" || return 1
	cap=$CAP
	python3 - "${cap%.pb.zst}.json" <<'PY' || { fail "sidecar calls: $(grep -A25 '"calls"' "${cap%.pb.zst}.json")"; rc=1; }
import json, sys
c = json.load(open(sys.argv[1]))["calls"]
assert c["what"] == "syscall nanosleep,clock_nanosleep", c
# a request sleeps 0.5 ms twice, or 0.5 and 20 ms (one in 20): p95 of
# the sleeps falls between the two
assert c["slow_from_percentile"] == 95 and 0.5e6 <= c["threshold_ns"] < 20e6, c
assert c["slow"] >= 20, c
w = c["off_cpu_ns"]
# slow sleeps are 20 of every 39 ms asleep
assert 0.35 < w["slow"] / (w["slow"] + w["fast"]) < 0.65, w
PY
	"$TRAPD" report "$cap" --view offcpu --where call=slow --folded slow.folded >/dev/null 2>&1 &&
		"$TRAPD" report "$cap" --view offcpu --where call=fast --folded fast.folded >/dev/null 2>&1 ||
		{ fail "report --view offcpu --where on $cap"; return 1; }
	slow=$(total_share slow.folded slow_path)
	fast=$(total_share fast.folded slow_path)
	echo "    slow_path: ${slow} % of the time waited inside slow sleeps, ${fast} % inside fast ones"
	# p95 of the window's sleeps is a little over 0.5 ms: on a busy host
	# some of fast_path's 0.5 ms sleeps overshoot it (89 % here with the
	# fuzzers running, 94 % without), but no 20 ms sleep is ever fast
	awk -v s="$slow" -v f="$fast" 'BEGIN { exit !(s >= 75 && f == 0) }' ||
		{ fail "slow_path waits: ${slow} % slow, ${fast} % fast: $(head -3 slow.folded)"; rc=1; }
	# The same split as a diff of the time waited.
	"$TRAPD" diff "$cap" --view offcpu --base-where call=fast --where call=slow >diff.txt 2>&1
	grep -A2 '^Grew most (total off-CPU time)' diff.txt | tail -1 | grep -q ' slow_path$' ||
		{ fail "the off-CPU diff of the split does not put slow_path first: $(cat diff.txt)"; rc=1; }
	return $rc
}

# A target that makes calls as fast as it can (perf bench's pipe
# ping-pong: tens of thousands of reads a second, each blocking) cannot
# make the window keep more than its bounds: the durations past
# call_times' size are counted as lost, their samples said unknown, and
# the capture is written.
test_calls_are_bounded() {
	need_root_bpf || return
	command -v perf >/dev/null || { skip "no perf"; return; }
	local rc=0 pid cap
	start_bg pid perf bench sched pipe -T -l 5000000
	# Off the CPU at every switch of a ping-pong: far over the default
	# max_capture_overhead, which would end the window before its tables
	# fill; the bounds are what is tested here.
	{
		write_global 'max_capture_overhead = 100%'
		calls_rule pingpong syscall.count 4s "syscalls = read" "pid = $pid" \
			"above = 1000" "capture = offcpu"
	} >rules.ini
	rule_capture "the count rule" || return 1
	kill "$pid" 2>/dev/null
	cap=$CAP
	python3 - "${cap%.pb.zst}.json" <<'PY' || { fail "sidecar calls: $(grep -A25 '"calls"' "${cap%.pb.zst}.json")"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
c = d["calls"]
print("    %d calls, %d sampled, %d durations lost" % (c["calls"], c["sampled"], c["durations_lost"]))
assert c["calls"] > 65536 and c["sampled"] <= 65536 + 16384, c
assert c["durations_lost"] > 0 and c["off_cpu_ns"]["unknown"] > 0, c
PY
	"$TRAPD" report "$cap" --view offcpu --where call=unknown >/dev/null 2>&1 ||
		{ fail "no unknown-call samples to report"; rc=1; }
	return $rc
}

# The same split by hand: trapd capture --calls --slow, and bad specs.
test_calls_manual_capture_splits_and_refuses_bad_specs() {
	need_root_bpf || return
	local rc=0 st
	"$TRAPD" capture -F 499 --calls "func:$WORKLOADS/slowcall:handle_request" --slow 10ms \
		-o cap.pb.zst -- "$WORKLOADS/slowcall" 3 >cap.log 2>&1 ||
		{ fail "trapd capture --calls: $(cat cap.log)"; return 1; }
	python3 - cap.json <<'PY' || { fail "sidecar calls: $(grep -A25 '"calls"' cap.json)"; rc=1; }
import json, sys
c = json.load(open(sys.argv[1]))["calls"]
assert c["slow_from_ns"] == 10000000 and c["slow"] >= 40 and c["fast"] >= 300, c
s = c["samples"]
assert 0.35 < s["slow"] / (s["slow"] + s["fast"]) < 0.65, s
PY
	"$TRAPD" report cap.pb.zst --where call=fast --folded fast.folded >/dev/null 2>&1 &&
		! grep -q slow_path fast.folded && grep -q fast_path fast.folded ||
		{ fail "the fast calls of a manual capture: $(head -3 fast.folded)"; rc=1; }
	for spec in "func:$WORKLOADS/slowcall:no_such_function" "func:relative:main" \
		"syscall:no_such_call" "syscalls" "func:$PWD/not-there:main"; do
		"$TRAPD" capture --calls "$spec" -d 1s -a -o bad.pb.zst >bad.log 2>&1
		st=$?
		[ "$st" -eq 2 ] && grep -q -- "--calls" bad.log ||
			{ fail "--calls '$spec' exited $st: $(cat bad.log)"; rc=1; }
		[ -e bad.pb.zst ] && { fail "--calls '$spec' wrote a capture"; rc=1; }
	done
	"$TRAPD" capture --slow p100 --calls syscall -d 1s -a >bad.log 2>&1
	[ $? -eq 2 ] && grep -q "bad --slow 'p100'" bad.log || { fail "--slow p100: $(cat bad.log)"; rc=1; }
	"$TRAPD" capture --slow 5ms -d 1s -a >bad.log 2>&1
	[ $? -eq 2 ] && grep -q "needs --calls" bad.log || { fail "--slow alone: $(cat bad.log)"; rc=1; }
	return $rc
}

# window_lasted JSON - the window's duration in ms and its end reason,
# the hooks' and the samples' share of the host; for an off-CPU window
# also its switches, those over the bound, and the bound (takes a second
# a CPU).
window_lasted() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=d["window"]; o=d.get("off_cpu", {})
print(w["duration_ns"] // 1000000, w["end_reason"].replace(" ", "_"), d["overhead"].get("hooks_pct", "none"), d["overhead"]["steady_pct"],
      o.get("switches", 0), o.get("throttled", 0), o.get("takes_per_cpu_hz", 0))' "$1"
}

# Finding: a local user cut short the captures of rules that record
# waits or calls. The window's budget summed the run time of every hook,
# and the system-call and scheduler hooks run for every task before they
# filter: nobody in a getppid loop ended a 5 s `--calls syscall` capture
# of another process after 1.26 s; two pipe ping-pong pairs made a 5 s
# `-a --off-cpu` capture end early yet last 10.5 s. The window is judged
# by what trapd chose (its samples); the hooks' cost is reported apart;
# the switch hook takes stacks within its own per-CPU bound, and the
# window ends when its end is decided, however long the hooks take to go.
test_calls_window_lasts_while_nobody_floods() {
	need_root_bpf || return
	local rc=0 victim t0 took
	chmod 755 "$PWD" "$(dirname "$PWD")"
	start_bg victim "$WORKLOADS/burner" 60
	start_bg flood setpriv --reuid=nobody --regid=nogroup --clear-groups \
		/usr/bin/python3 -c 'import os
while True: os.getppid()'
	sleep 1
	"$TRAPD" capture -p "$victim" -d 5s --calls syscall -o calls.pb.zst >calls.log 2>&1 ||
		{ fail "capture --calls syscall: $(tail -3 calls.log)"; return 1; }
	set -- $(window_lasted calls.json)
	echo "   --calls syscall beside a getppid flood: ${1} ms, $2, hooks $3 %, samples $4 %" >&2
	[ "$1" -ge 4500 ] && [ "$1" -le 6000 ] && [ "$2" = duration ] ||
		{ fail "the --calls window lasted $1 ms ($2) of 5 s"; rc=1; }
	kill_bg
	cat >pingpong.py <<'PY'
import os
a, b = os.pipe()
c, d = os.pipe()
if os.fork() == 0:
    while os.read(a, 1):
        os.write(d, b"x")
else:
    while True:
        os.write(b, b"x")
        os.read(c, 1)
PY
	start_bg p1 setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 pingpong.py
	start_bg p2 setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 pingpong.py
	sleep 1
	t0=$(date +%s%N)
	"$TRAPD" capture -a --off-cpu -d 5s -o off.pb.zst >off.log 2>&1 ||
		{ fail "capture -a --off-cpu: $(tail -3 off.log)"; kill_bg; return 1; }
	took=$((($(date +%s%N) - t0) / 1000000))
	kill_bg
	pkill -u nobody -f pingpong.py
	set -- $(window_lasted off.json)
	echo "   -a --off-cpu beside two ping-pong pairs: ${1} ms ($2), the command $took ms, hooks $3 %, samples $4 %;" \
		"$5 switches, $6 over the bound of $7 takes/s a CPU" >&2
	[ "$1" -ge 4500 ] && [ "$1" -le 6000 ] && [ "$2" = duration ] ||
		{ fail "the --off-cpu window lasted $1 ms ($2) of 5 s"; rc=1; }
	# the stacks taken stay within the bound: each CPU's slots of 100 ms
	# (one more than the window's), every CPU of the host
	local ncpu takes
	ncpu=$(nproc)
	takes=$(($5 - $6))
	[ "$7" -gt 0 ] && [ "$6" -gt 0 ] && [ "$takes" -le $(($7 * ncpu * ($1 + 200) / 1000)) ] ||
		{ fail "the switch hook took $takes stacks in $1 ms (bound $7/s a CPU, $6 throttled)"; rc=1; }
	grep -q "over the bound of $7 stack takes" off.log ||
		{ fail "the capture did not say its off-CPU stacks were bounded: $(tail -3 off.log)"; rc=1; }
	return $rc
}
