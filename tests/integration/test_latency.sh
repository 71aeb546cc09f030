# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_latency.sh - latency histogram rules on the real kernel: workloads
# of known latency measured through the daemon (uprobe'd function, system
# calls, run queue, block I/O on a loop device), scope filtering, a
# latency rule's capture carrying its window, probes detached on reload.
# Uses wait_for, write_global, start_daemon, stop_daemon, captures,
# has_captures, new_cgroup and drop_cgroup from test_daemon.sh.

# rule_field RULE KEY - from `trapd status --json`: the rule's KEY
# ("value", or a latency figure like "latency.p50_ns"); "" when null.
rule_field() {
	"$TRAPD" status --json -S ctl.sock | python3 -c '
import json, sys
rule, key = sys.argv[1], sys.argv[2]
for r in json.load(sys.stdin)["rules"]:
    if r["name"] == rule:
        v = r
        for k in key.split("."):
            v = v.get(k) if isinstance(v, dict) else None
        print("" if v is None else v)
' "$1" "$2"
}

# rule_has RULE KEY - the field is set.
rule_has() {
	[ -n "$(rule_field "$1" "$2")" ]
}

# rule_at_least RULE KEY N - the field is set and at least N.
rule_at_least() {
	local v
	v=$(rule_field "$1" "$2")
	[ -n "$v" ] && awk -v v="$v" -v n="$3" 'BEGIN { exit !(v >= n) }'
}

# near NAME VALUE TARGET PCT - VALUE within PCT % of TARGET, or fail.
near() {
	awk -v v="$2" -v t="$3" -v p="$4" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= t * p / 100) }' ||
		{ fail "$1 is ${2:-nothing} ns, expected $3 ns within $4 %"; return 1; }
}

# poll_rule PID - the rule poll_p50_is_30ms checks: the p50 of PID's poll
# calls (latwork poll 30 makes them time out after 30 ms).
poll_rule() {
	printf '[rule poll-30]\nsignal = syscall.p50\nsyscalls = poll\npid = %s\n' "$1"
	printf 'window = 2s\nmin_count = 20\nabove = 1h\n\n'
}

poll_p50_is_30ms() {
	wait_for 15 rule_at_least poll-30 latency.events 40 ||
		{ fail "no poll latency measured: $(cat daemon.log)"; return 1; }
	near "syscall.p50 of poll (30 ms timeout)" "$(rule_field poll-30 value)" 30000000 10
}

# slow_call_rule SCOPE - the rule slow_call_p50_is_5ms checks: the p50 of
# latwork's slow_call (latwork func 5 sleeps 5 ms in it), SCOPE a line
# like "pid = 42".
slow_call_rule() {
	printf '[rule slow-call]\nsignal = func.p50\nfunction = %s/latwork:slow_call\n%s\n' \
		"$WORKLOADS" "$1"
	printf 'window = 2s\nmin_count = 50\nabove = 1h\n\n'
}

slow_call_p50_is_5ms() {
	wait_for 15 rule_at_least slow-call latency.events 200 ||
		{ fail "no function latency measured: $(cat daemon.log)"; return 1; }
	near "func.p50 of slow_call (sleeps 5 ms)" "$(rule_field slow-call value)" 5000000 10
}

test_latency_func_p50_of_a_5ms_function() {
	need_root_bpf || return
	local rc=0 pid
	start_bg pid "$WORKLOADS/latwork" func 5 0
	{
		write_global
		slow_call_rule "pid = $pid"
	} >rules.ini
	start_daemon || return 1
	slow_call_p50_is_5ms || rc=1
	stop_daemon
	return $rc
}

test_latency_syscall_p50_of_poll_and_nanosleep() {
	need_root_bpf || return
	local rc=0 poller sleeper
	start_bg poller "$WORKLOADS/latwork" poll 30 0
	start_bg sleeper "$WORKLOADS/latwork" sleep 20 0
	{
		write_global
		poll_rule "$poller"
		cat <<EOF
[rule sleep-20]
signal = syscall.p50
syscalls = nanosleep, clock_nanosleep
pid = $sleeper
window = 2s
min_count = 20
above = 1h

[rule poller-sleeps]
signal = syscall.count
syscalls = nanosleep, clock_nanosleep
pid = $poller
window = 2s
above = 1000000
EOF
	} >rules.ini
	start_daemon || return 1
	poll_p50_is_30ms || rc=1
	wait_for 15 rule_at_least sleep-20 latency.events 60 ||
		{ fail "no nanosleep latency measured: $(cat daemon.log)"; rc=1; }
	near "syscall.p50 of nanosleep (20 ms)" "$(rule_field sleep-20 value)" 20000000 10 || rc=1
	wait_for 5 rule_has poller-sleeps value || { fail "no count for the poller"; rc=1; }
	[ "$(rule_field poller-sleeps value)" = 0.0 ] || [ "$(rule_field poller-sleeps value)" = 0 ] ||
		{ fail "the poller's nanosleeps counted $(rule_field poller-sleeps value): another process's calls leaked in"; rc=1; }
	stop_daemon
	return $rc
}

# burners_in CGROUP_DIR N SECONDS - start N burners in the cgroup; their
# pids are added to BURNERS.
burners_in() {
	local i b
	for i in $(seq "$2"); do
		start_bg b ./crowd_burner "$3"
		echo "$b" >"$1/cgroup.procs"
		BURNERS+=("$b")
	done
}

stop_burners() {
	local b
	for b in "${BURNERS[@]}"; do
		kill "$b" 2>/dev/null
		wait "$b" 2>/dev/null
	done
	BURNERS=()
}

test_latency_runqlat_rises_with_crowding_and_rule_fires() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 quiet=$CG_DIR quiet_name=$CG_NAME crowded crowded_name p99_one p99_six cap
	local deep_path=b/c/d/e/f/g/h/i/j
	BURNERS=()
	new_cgroup || { rmdir "$quiet"; return 1; }
	crowded=$CG_DIR crowded_name=$CG_NAME
	cp "$WORKLOADS/burner" ./crowd_burner
	{
		write_global
		cat <<EOF
[rule crowded]
signal = runqlat.p99
cgroup = $crowded_name
window = 2s
min_count = 50
above = 5ms
duration = 1s
frequency = 99Hz

[rule quiet]
signal = runqlat.count
cgroup = $quiet_name
window = 2s
above = 1000000

[rule deep]
signal = runqlat.count
cgroup = $crowded_name/a
window = 2s
above = 1000000000

[rule mid]
signal = runqlat.count
cgroup = $crowded_name/a/b/c
window = 2s
above = 1000000000
EOF
	} >rules.ini
	# The crowd runs below the watched cgroups: 3 burners one level below
	# [rule crowded]'s, 3 ten levels below. [rule mid] sees them 7 levels
	# down, within the BPF side's walk up the tree (CGROUP_WALK_MAX, 8);
	# [rule deep] 9 levels down, past it.
	mkdir -p "$crowded/s" "$crowded/a/$deep_path" || return 1
	start_daemon || { rm_cgroups "$quiet" "$crowded"; return 1; }
	burners_in "$crowded" 1 10
	bpftool prog show 2>/dev/null | grep -qE 'tracing +name runq_switch_que' ||
		{ fail "run-queue latency is not measured from sched_info (runq_switch_queued)"; rc=1; }
	sleep 3
	p99_one=$(rule_field crowded latency.p99_ns)
	[ "$(rule_field deep latency.events)" = 0 ] ||
		{ fail "the deep cgroup counted the burner above it: $(rule_field deep latency.events) events"; rc=1; }
	stop_burners
	burners_in "$crowded/s" 3 15
	burners_in "$crowded/a/$deep_path" 3 15
	wait_for 15 has_captures 1 || { fail "runqlat.p99 rule did not fire: $(cat daemon.log)"; rc=1; }
	p99_six=$(rule_field crowded latency.p99_ns)
	echo "    runqlat p99: ${p99_one:-no value} ns with 1 burner, ${p99_six:-no value} ns with 6 on $(nproc) CPUs"
	awk -v a="${p99_one:-0}" -v b="${p99_six:-0}" 'BEGIN { exit !(b > a && b > 5000000) }' ||
		{ fail "p99 did not rise past 5 ms: ${p99_one:-none} -> ${p99_six:-none}"; rc=1; }
	[ "$(rule_field quiet latency.events)" = 0 ] ||
		{ fail "the quiet cgroup counted $(rule_field quiet latency.events) events"; rc=1; }
	[ "$(rule_field deep latency.events)" -gt 0 ] 2>/dev/null ||
		{ fail "burners nine levels below [rule deep]'s cgroup were not counted"; rc=1; }
	[ "$(rule_field mid latency.events)" -gt 0 ] 2>/dev/null ||
		{ fail "burners seven levels below [rule mid]'s cgroup were not counted"; rc=1; }
	wait_for 10 ls spool/*.json >/dev/null
	cap=$(ls spool/*.json 2>/dev/null | head -1)
	python3 - "$cap" <<'PY' || { fail "capture metadata lacks the latency window: $cap"; rc=1; }
import json, sys
m = json.load(open(sys.argv[1]))
t = [t for t in m["triggers"] if t["rule"] == "crowded"][0]
lat = t["latency"]
assert t["unit"] == "ns" and t["signal"] == "runqlat.p99", t
assert lat["events"] >= 50 and lat["p99_ns"] > 5000000, lat
assert sum(b[2] for b in lat["buckets"]) == lat["events"], lat
PY
	"$TRAPD" report "${cap%.json}.pb.zst" >report.txt ||
		{ fail "trapd report failed on the capture"; rc=1; }
	grep -q "^Latency when rule crowded fired (runqlat.p99):" report.txt &&
		grep -qE '^  p50 .* max .*events in' report.txt ||
		{ fail "the report does not show the window that fired: $(cat report.txt)"; rc=1; }
	stop_burners
	stop_daemon
	rm_cgroups "$quiet" "$crowded"
	return $rc
}

# rm_cgroups DIR... - remove cgroups and every cgroup below them, deepest
# first.
rm_cgroups() {
	find "$@" -depth -type d -exec rmdir {} + 2>/dev/null
}

# loop_device FILE - attach a 64 MiB file as a loop device; its name
# (loop3) in LOOP_DEV.
loop_device() {
	truncate -s 64M "$1" || return 1
	LOOP_DEV=$(losetup -f --show "$1") || { skip "no loop devices (losetup)"; return 77; }
	LOOP_DEV=${LOOP_DEV#/dev/}
	LOOPS+=("$LOOP_DEV")
}

drop_loops() {
	local l
	for l in "${LOOPS[@]}"; do
		losetup -d "/dev/$l" 2>/dev/null
	done
	LOOPS=()
}

test_latency_biolat_counts_direct_io_on_its_disk_only() {
	need_root_bpf || return
	local rc=0 watched other
	LOOPS=()
	loop_device disk-a.img || { drop_loops; return 77; }
	watched=$LOOP_DEV
	loop_device disk-b.img || { drop_loops; return 77; }
	other=$LOOP_DEV
	{
		write_global
		cat <<EOF
[rule disk-io]
signal = biolat.p50
device = $watched
window = 10s
min_count = 1
above = 1h
EOF
	} >rules.ini
	start_daemon || { drop_loops; return 1; }
	wait_for 5 grep -q "latency probe loaded: biolat" daemon.log
	sleep 0.5
	dd if=/dev/zero of="/dev/$other" bs=4k count=300 oflag=direct status=none
	dd if=/dev/zero of="/dev/$watched" bs=4k count=500 oflag=direct status=none
	wait_for 5 rule_at_least disk-io latency.events 500 ||
		{ fail "biolat counted $(rule_field disk-io latency.events) of 500 writes: $(cat daemon.log)"; rc=1; }
	sleep 0.5
	[ "$(rule_field disk-io latency.events)" = 500 ] ||
		{ fail "biolat counted $(rule_field disk-io latency.events), expected exactly the 500 writes to $watched (300 went to $other)"; rc=1; }
	rule_at_least disk-io value 1000 || { fail "biolat p50 $(rule_field disk-io value) ns"; rc=1; }
	stop_daemon
	drop_loops
	return $rc
}

# latency_progs - how many of the latency programs are loaded in the kernel
# (one per probe).
latency_progs() {
	bpftool prog show 2>/dev/null | grep -cE ' name (runq_switch|runq_switch_queued|sys_enter|bio_issue) '
}

# latency_progs_are N - exactly N (the kernel frees a program a moment
# after its last user is gone, so callers wait for it).
latency_progs_are() {
	[ "$(latency_progs)" -eq "$1" ]
}

test_latency_probes_load_for_rules_and_detach_on_reload() {
	need_root_bpf || return
	local rc=0 before
	wait_for 5 latency_progs_are 0 # programs of earlier tests' daemons
	before=$(latency_progs)
	{
		write_global
		cat <<EOF
[rule runq]
signal = runqlat.max
above = 1h

[rule calls]
signal = syscall.rate
syscalls = read
above = 1000000/s
EOF
	} >rules.ini
	start_daemon || return 1
	wait_for 5 grep -q "latency probe loaded: syscall" daemon.log
	[ "$(latency_progs)" -eq $((before + 2)) ] ||
		{ fail "expected 2 more latency programs, have $(latency_progs) (before: $before)"; rc=1; }
	{
		write_global
		cat <<EOF
[rule calls]
signal = syscall.rate
syscalls = read
above = 1000000/s
EOF
	} >rules.ini
	kill -HUP "$DAEMON"
	wait_for 5 grep -q "latency probe detached: runqlat" daemon.log ||
		{ fail "runqlat not detached on reload: $(cat daemon.log)"; rc=1; }
	wait_for 5 latency_progs_are $((before + 1)) ||
		{ fail "expected 1 latency program after the reload, have $(($(latency_progs) - before))"; rc=1; }
	[ "$(grep -c "latency probe loaded: syscall" daemon.log)" -eq 1 ] ||
		{ fail "the kept rule's probe was loaded again"; rc=1; }
	stop_daemon
	wait_for 5 latency_progs_are "$before" || { fail "programs left loaded after stop"; rc=1; }
	return $rc
}

test_latency_bad_function_is_reported_and_daemon_runs_on() {
	need_root_bpf || return
	local rc=0
	{
		write_global
		cat <<EOF
[rule missing]
signal = func.p99
function = $WORKLOADS/latwork:no_such_function
above = 10ms

[rule gone]
signal = func.p99
function = $PWD/not-there:main
above = 10ms
EOF
	} >rules.ini
	start_daemon || return 1
	wait_for 5 grep -q "no function 'no_such_function'" daemon.log ||
		{ fail "no message about the missing function: $(cat daemon.log)"; rc=1; }
	wait_for 5 grep -q "not-there: No such file" daemon.log ||
		{ fail "no message about the missing binary: $(cat daemon.log)"; rc=1; }
	"$TRAPD" status -S ctl.sock | grep -q "no function 'no_such_function'" ||
		{ fail "status does not say why"; rc=1; }
	stop_daemon
	return $rc
}

# What a kernel without sched_info gets: wakeups stamp the task in
# task-local storage, sched_switch records.
test_latency_runqlat_wakeup_hooks() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 quiet=$CG_DIR quiet_name=$CG_NAME crowded crowded_name p50
	BURNERS=()
	new_cgroup || { rmdir "$quiet"; return 1; }
	crowded=$CG_DIR crowded_name=$CG_NAME
	mkdir "$crowded/sub" || return 1
	cp "$WORKLOADS/burner" ./crowd_burner
	{
		write_global
		cat <<EOF2
[rule crowded]
signal = runqlat.p50
cgroup = $crowded_name
window = 2s
above = 1h

[rule quiet]
signal = runqlat.count
cgroup = $quiet_name
window = 2s
above = 1000000
EOF2
	} >rules.ini
	TRAPD_LATENCY_HOOKS=btf-wakeup start_daemon || { rm_cgroups "$quiet" "$crowded"; return 1; }
	burners_in "$crowded/sub" 4 8
	sleep 4
	p50=$(rule_field crowded latency.p50_ns)
	echo "    runqlat p50 with 4 burners on $(nproc) CPUs, wakeup hooks: ${p50:-no value} ns"
	[ "${p50:-0}" -gt 1000000 ] 2>/dev/null ||
		{ fail "p50 of 4 burners on $(nproc) CPUs is ${p50:-nothing}, expected over 1 ms"; rc=1; }
	bpftool prog show 2>/dev/null | grep -qE 'tracing +name runq_wakeup ' ||
		{ fail "TRAPD_LATENCY_HOOKS=btf-wakeup did not load runq_wakeup"; rc=1; }
	[ "$(rule_field quiet latency.events)" = 0 ] ||
		{ fail "the quiet cgroup counted $(rule_field quiet latency.events) events"; rc=1; }
	stop_burners
	stop_daemon
	rm_cgroups "$quiet" "$crowded"
	return $rc
}

test_latency_classic_tracepoint_fallback() {
	need_root_bpf || return
	local rc=0 poller caller
	start_bg poller "$WORKLOADS/latwork" poll 30 0
	start_bg caller "$WORKLOADS/latwork" func 5 0
	{
		write_global
		poll_rule "$poller"
		slow_call_rule "process = latwork"
		cat <<EOF2
[rule runq-cgroup]
signal = runqlat.p99
cgroup = /
above = 1h
EOF2
	} >rules.ini
	# What a kernel without BTF gets: classic tracepoints and hash maps.
	TRAPD_LATENCY_HOOKS=tracepoint start_daemon || return 1
	poll_p50_is_30ms || rc=1
	slow_call_p50_is_5ms || rc=1
	bpftool prog show 2>/dev/null | grep -qE 'tracepoint +name tp_sys_enter' ||
		{ fail "the syscall probe is not a classic tracepoint program"; rc=1; }
	grep -q "run-queue latency of a pid or cgroup needs the kernel's BTF" daemon.log ||
		{ fail "no message for the scope the fallback cannot filter: $(cat daemon.log)"; rc=1; }
	stop_daemon
	return $rc
}
