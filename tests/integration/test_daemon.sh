# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_daemon.sh - the guard daemon on the real kernel: rules over real
# cgroups, PSI and processes fire and capture; reloads, manual arms,
# cooldowns, limits, the control socket's permissions, a clean stop.

# wait_for SECONDS CMD... - run CMD every 0.2 s until it succeeds.
wait_for() {
	local tries=$(($1 * 5))
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.2
		tries=$((tries - 1))
	done
	return 1
}

# write_global [KEY = VALUE...] - a rules file's [global] section that
# keeps everything in the test's directory.
write_global() {
	printf '[global]\npoll_interval = 250ms\nspool_dir = %s/spool\ncontrol_socket = %s/ctl.sock\n' \
		"$PWD" "$PWD"
	printf '%s\n' "$@"
	printf '\n[labels]\nrole = integration-test\n\n'
}

# start_daemon - run the daemon on ./rules.ini, log in ./daemon.log; wait
# until it answers on its control socket.
start_daemon() {
	"$TRAPD" daemon -c rules.ini --log stderr 2>>daemon.log &
	DAEMON=$!
	BG_PIDS+=("$DAEMON")
	wait_for 10 "$TRAPD" status -S ctl.sock >/dev/null ||
		{ fail "daemon did not start: $(cat daemon.log)"; return 1; }
}

stop_daemon() {
	kill -TERM "$DAEMON" 2>/dev/null
	wait "$DAEMON"
}

captures() {
	ls spool/*.pb.zst 2>/dev/null | wc -l
}

has_captures() {
	[ "$(captures)" -ge "$1" ]
}

# new_cgroup - a fresh v2 cgroup under the unified tree; its name in
# CG_NAME and directory in CG_DIR.
new_cgroup() {
	local root
	root=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$root" ] || { skip "no cgroup v2 hierarchy"; return 77; }
	CG_NAME=trapd-daemon-it-$$-$RANDOM
	CG_DIR=$root/$CG_NAME
	mkdir "$CG_DIR" || { fail "cannot create $CG_DIR"; return 1; }
}

# drop_cgroup - stop the background processes and remove CG_DIR, with
# whatever still lives in it (a child of a burner, a daemon's capture):
# cgroup.kill, then rmdir until the last task has left (1 s at most).
drop_cgroup() {
	local i
	kill_bg
	[ -n "${CG_DIR:-}" ] && [ -d "$CG_DIR" ] || return 0
	[ -e "$CG_DIR/cgroup.kill" ] && echo 1 >"$CG_DIR/cgroup.kill" 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$CG_DIR" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "   note: $CG_DIR could not be removed" >&2
	return 0
}

test_daemon_cpu_rule_captures_burner_in_cgroup() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 cap burner
	{
		write_global
		cat <<EOF
[rule burner-cpu]
signal = cpu
cgroup = $CG_NAME
above = 50%
for = 1s
duration = 2s
frequency = 499Hz
EOF
	} >rules.ini
	start_daemon || { drop_cgroup; return 1; }
	sleep 1 # armed, nothing in the cgroup yet: no capture
	[ "$(captures)" -eq 0 ] || { fail "captured before anything ran"; rc=1; }
	cp "$WORKLOADS/burner" ./cg_burner
	start_bg burner ./cg_burner 30
	echo "$burner" >"$CG_DIR/cgroup.procs"
	wait_for 15 has_captures 1 || { fail "no capture: $(cat daemon.log)"; rc=1; }
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	if [ -n "$cap" ]; then
		"$TRAPD" report "$cap" --folded cap.folded >/dev/null || { fail "report"; rc=1; }
		grep -q '^cg_burner;.*burn_60[; ]' cap.folded || { fail "burner not in the capture"; rc=1; }
		grep -q '"rule": "burner-cpu"' "${cap%.pb.zst}.json" || { fail "no trigger"; rc=1; }
		grep -q '"role": "integration-test"' "${cap%.pb.zst}.json" || { fail "no labels"; rc=1; }
		grep -q '"history"' "${cap%.pb.zst}.json" || { fail "no history"; rc=1; }
	fi
	stop_daemon
	drop_cgroup
	return $rc
}

test_daemon_below_rule_fires_when_cgroup_stops_using_cpu() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 burner cap
	{
		write_global
		cat <<EOF
[rule starved]
signal = cpu
cgroup = $CG_NAME
below = 5%
clear = 20%
for = 1s
duration = 1s
EOF
	} >rules.ini
	cp "$WORKLOADS/burner" ./starved_burner
	start_bg burner ./starved_burner 30
	echo "$burner" >"$CG_DIR/cgroup.procs"
	start_daemon || { drop_cgroup; return 1; }
	sleep 2
	[ "$(captures)" -eq 0 ] || { fail "fired while the cgroup was busy"; rc=1; }
	kill -STOP "$burner" # the service stops getting CPU
	wait_for 15 has_captures 1 || { fail "below rule did not fire: $(cat daemon.log)"; rc=1; }
	cap=$(ls spool/*.json 2>/dev/null | head -1)
	[ -n "$cap" ] && { grep -q '"direction": "below"' "$cap" || { fail "trigger direction"; rc=1; }; }
	kill -CONT "$burner"
	stop_daemon
	drop_cgroup
	return $rc
}

test_daemon_psi_rules_fire_under_cpu_contention() {
	need_root_bpf || return
	[ -r /proc/pressure/cpu ] || { skip "no PSI"; return; }
	local rc=0 i b json
	{
		write_global
		cat <<'EOF'
[rule cpu-stall-trigger]
signal = psi.cpu.some
window = 2s
above = 20%
duration = 3s
sample = system

[rule cpu-stall-avg10]
signal = psi.cpu.some
window = avg10
above = 20%
duration = 2s
EOF
	} >rules.ini
	start_daemon || return 1
	grep -q 'cpu-stall-trigger: watched by a kernel PSI trigger' daemon.log ||
		{ fail "no kernel PSI trigger: $(cat daemon.log)"; rc=1; }
	cp "$WORKLOADS/burner" ./psi_burner
	for i in 1 2 3 4 5 6; do start_bg b ./psi_burner 30; done
	wait_for 25 grep -q 'rule cpu-stall-avg10 fired' daemon.log ||
		{ fail "avg10 rule did not fire: $(cat daemon.log)"; rc=1; }
	# on a busy host avg10 may be high before the burners start: wait for
	# the trigger rule too rather than assume it fired first
	wait_for 15 grep -q 'rule cpu-stall-trigger fired' daemon.log ||
		{ fail "trigger rule did not fire"; rc=1; }
	kill_bg
	wait_for 10 has_captures 1 || { fail "no capture"; rc=1; }
	# the two rules overlap: one capture (or more), never two samplers at once
	json=$(cat spool/*.json 2>/dev/null)
	echo "$json" | grep -q '"rule": "cpu-stall-trigger"' || { fail "trigger rule not recorded"; rc=1; }
	if ! grep -q 'joined capture' daemon.log && [ "$(captures)" -lt 2 ]; then
		fail "the second rule neither joined nor captured"
		rc=1
	fi
	stop_daemon
	return $rc
}

test_daemon_sighup_bad_file_keeps_old_rules() {
	need_root_bpf || return
	local rc=0
	{
		write_global
		printf '[rule first]\nsignal = psi.cpu.some\nabove = 99%%\n'
	} >rules.ini
	start_daemon || return 1
	printf '[rule broken\nsignal = nope\n' >>rules.ini
	kill -HUP "$DAEMON"
	wait_for 5 grep -q 'reload rejected' daemon.log || { fail "bad reload not rejected"; rc=1; }
	"$TRAPD" status -S ctl.sock >status.txt || { fail "daemon died on a bad reload"; rc=1; }
	grep -q '^first ' status.txt || { fail "old rule gone: $(cat status.txt)"; rc=1; }
	{
		write_global
		printf '[rule first]\nsignal = psi.cpu.some\nabove = 99%%\n'
		printf '[rule second]\nsignal = psi.io.some\nabove = 99%%\n'
	} >rules.ini
	kill -HUP "$DAEMON"
	wait_for 5 grep -q 'reloaded .* 2 rules, 1 kept their state' daemon.log ||
		{ fail "good reload: $(cat daemon.log)"; rc=1; }
	"$TRAPD" status -S ctl.sock >status.txt
	grep -q '^second ' status.txt || { fail "new rule missing: $(cat status.txt)"; rc=1; }
	stop_daemon
	return $rc
}

test_daemon_arm_and_sigusr1_capture() {
	need_root_bpf || return
	local rc=0 out burner
	{
		write_global 'manual_duration = 1s' 'manual_frequency = 199Hz'
		printf '[rule quiet]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 1s\n'
	} >rules.ini
	start_daemon || return 1
	cp "$WORKLOADS/burner" ./armed_burner
	start_bg burner ./armed_burner 30
	out=$("$TRAPD" arm -S ctl.sock 2>&1) || { fail "arm: $out"; rc=1; }
	echo "$out" | grep -q 'started' || { fail "arm said: $out"; rc=1; }
	wait_for 10 has_captures 1 || { fail "no capture after arm"; rc=1; }
	kill -USR1 "$DAEMON"
	wait_for 10 has_captures 2 || { fail "no capture after SIGUSR1: $(cat daemon.log)"; rc=1; }
	"$TRAPD" arm quiet -d 500ms -S ctl.sock >/dev/null || { fail "arm RULE"; rc=1; }
	wait_for 10 has_captures 3 || { fail "no capture after arm RULE"; rc=1; }
	expect_status 2 "$TRAPD" arm nosuch -S ctl.sock || rc=1
	echo "$LAST_STDERR" | grep -q "no rule named 'nosuch'" || { fail "$LAST_STDERR"; rc=1; }
	grep -q '"trigger": "manual"' spool/*.json || { fail "manual trigger not recorded"; rc=1; }
	"$TRAPD" report "$(ls spool/*.pb.zst | head -1)" --folded cap.folded >/dev/null
	grep -q '^armed_burner;' cap.folded || { fail "system capture lacks the burner"; rc=1; }
	stop_daemon
	return $rc
}

test_daemon_cooldown_and_limits_hold() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 burner i a b
	{
		write_global 'dry_run = true'
		cat <<EOF
[rule cooled]
signal = cpu
cgroup = $CG_NAME
above = 50%
cooldown = 1h

[rule limited]
signal = cpu
cgroup = $CG_NAME
above = 50%
cooldown = 0
max_per_hour = 2
EOF
	} >rules.ini
	cp "$WORKLOADS/burner" ./toggled_burner
	start_bg burner ./toggled_burner 60
	kill -STOP "$burner"
	echo "$burner" >"$CG_DIR/cgroup.procs"
	start_daemon || { drop_cgroup; return 1; }
	for i in 1 2 3 4 5; do # five bursts of CPU, each a breach
		kill -CONT "$burner"
		sleep 1.2
		kill -STOP "$burner"
		sleep 1.2
	done
	a=$(grep -c 'rule cooled fired (dry run' daemon.log)
	b=$(grep -c 'rule limited fired (dry run' daemon.log)
	[ "$a" -eq 1 ] || { fail "cooldown: fired $a times, expected 1"; rc=1; }
	[ "$b" -eq 2 ] || { fail "limit: fired $b times, expected 2"; rc=1; }
	[ "$(captures)" -eq 0 ] || { fail "dry run captured"; rc=1; }
	"$TRAPD" status -S ctl.sock --json >status.json
	grep -q '"suppressed": [1-9]' status.json || { fail "no suppressed count: $(cat status.json)"; rc=1; }
	kill -CONT "$burner"
	stop_daemon
	drop_cgroup
	return $rc
}

test_daemon_control_socket_refuses_non_root() {
	need_root_bpf || return
	command -v setpriv >/dev/null || { skip "no setpriv"; return; }
	local rc=0
	write_global >rules.ini
	start_daemon || return 1
	chmod 755 "$PWD" "$(dirname "$PWD")"
	expect_status 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRAPD" status -S ctl.sock || rc=1
	echo "$LAST_STDERR" | grep -q 'permission denied' || { fail "$LAST_STDERR"; rc=1; }
	expect_status 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRAPD" arm -S ctl.sock || rc=1
	[ "$(captures)" -eq 0 ] || { fail "a refused arm captured"; rc=1; }
	stop_daemon
	return $rc
}

# Started from a script (no terminal, no journal, and here no syslog
# daemon either), a daemon that cannot start says why on stderr: its
# messages went to syslog, which dropped them, and it exited 2 in silence.
test_daemon_start_errors_reach_stderr_without_a_terminal() {
	need_root_bpf || return
	command -v setpriv >/dev/null || { skip "no setpriv"; return; }
	local rc=0 st
	printf '[rule typo]\nsignal = cpu\nabove = 50%%\nfor = 1s\nduraton = 5s\n' >typo.ini
	(unset JOURNAL_STREAM; "$TRAPD" daemon -c typo.ini </dev/null >out.txt 2>err.txt)
	st=$?
	[ "$st" -eq 2 ] || { fail "a rules file with a typo: exit $st, expected 2"; rc=1; }
	grep -q 'typo.ini:5: .*duraton' err.txt ||
		{ fail "the typo is not on stderr: '$(cat err.txt)'"; rc=1; }
	(unset JOURNAL_STREAM; "$TRAPD" daemon -c typo.ini --log syslog </dev/null >out.txt 2>err.txt)
	grep -q 'typo.ini:5: .*duraton' err.txt ||
		{ fail "--log syslog: the typo is not on stderr too: '$(cat err.txt)'"; rc=1; }
	write_global >rules.ini
	chmod 755 "$PWD" "$(dirname "$PWD")" && chmod 644 rules.ini
	(unset JOURNAL_STREAM; setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRAPD" daemon -c rules.ini </dev/null >out.txt 2>err.txt)
	st=$?
	[ "$st" -ne 0 ] && grep -q 'error:' err.txt ||
		{ fail "as nobody: exit $st with '$(cat err.txt)' on stderr"; rc=1; }
	return $rc
}

test_daemon_sigterm_writes_running_capture() {
	need_root_bpf || return
	local rc=0 st
	write_global >rules.ini
	start_daemon || return 1
	"$TRAPD" arm -d 1m -S ctl.sock >/dev/null || { fail "arm"; rc=1; }
	sleep 1
	kill -TERM "$DAEMON"
	wait "$DAEMON"
	st=$?
	[ "$st" -eq 0 ] || { fail "daemon exited $st"; rc=1; }
	[ "$(captures)" -eq 1 ] || { fail "the cut-short capture was lost"; rc=1; }
	grep -q '"end_reason": "daemon stopping"' spool/*.json || { fail "end reason"; rc=1; }
	[ ! -e ctl.sock ] || { fail "socket left behind"; rc=1; }
	return $rc
}

test_daemon_bad_rules_file_exits_2() {
	printf '[rule x]\nsignal = cpu\nabove = lots\n' >bad.ini
	expect_status 2 "$TRAPD" daemon -c bad.ini --log stderr || return 1
	echo "$LAST_STDERR" | grep -q '^.*bad.ini:3: \[rule x\] above' ||
		fail "message: $LAST_STDERR"
}

test_daemon_process_fd_leak_rule_samples_that_process() {
	need_root_bpf || return
	local rc=0 leaker cap
	{
		write_global
		cat <<'EOF2'
[rule fd-leak]
signal = process.fds
process = fdleaker
above = 40
duration = 1s
frequency = 199Hz
EOF2
	} >rules.ini
	start_daemon || return 1
	# a process named fdleaker that opens an fd every 20 ms and burns CPU;
	# it never forks (no $(seq)): a forked child is named fdleaker too, and
	# holds one more fd (its pipe), so the rule would rightly pick it
	cp "$(command -v bash)" ./fdleaker
	start_bg leaker ./fdleaker -c 'for ((i = 3; i <= 80; i++)); do eval "exec $i</dev/null"; \
		for ((j = 0; j < 300; j++)); do :; done; done; while :; do :; done'
	wait_for 15 has_captures 1 || { fail "fd rule did not fire: $(cat daemon.log)"; rc=1; }
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	if [ -n "$cap" ]; then
		grep -q '"kind": "pid"' "${cap%.pb.zst}.json" || { fail "not a pid capture"; rc=1; }
		grep -q "\"pid\": $leaker" "${cap%.pb.zst}.json" || { fail "sampled another pid"; rc=1; }
		"$TRAPD" report "$cap" --folded cap.folded >/dev/null
		[ -s cap.folded ] && ! grep -qv '^fdleaker;' cap.folded ||
			{ fail "samples of other processes: $(cut -d';' -f1 cap.folded | sort -u)"; rc=1; }
	fi
	stop_daemon
	return $rc
}

# A rule that follows a process by name lists /proc only at ticks after
# which the kernel's process events say a process was born, exec'd,
# renamed or ended: on a quiet host most ticks skip it (trapd status
# counts both), and a new process of the name is still seen at once.
test_daemon_name_rule_lists_proc_only_when_processes_change() {
	need_root_bpf || return
	local rc=0 q
	{
		write_global
		cat <<'EOF2'
[rule quiet-threads]
signal = process.threads
process = trapdquiet
above = 3
duration = 1s
EOF2
	} >rules.ini
	start_daemon || return 1
	sleep 4 # 16 ticks, and no process of this shell's meanwhile
	"$TRAPD" status --json -S ctl.sock >status.json 2>status.err ||
		{ fail "status: $(cat status.err)"; stop_daemon; return 1; }
	/usr/bin/python3 - status.json <<'PY' || rc=1
import json, sys
s = json.load(open(sys.argv[1]))["process_scans"]
print("    process scans: %d listed, %d skipped" % (s["listed"], s["skipped"]))
if not s["by_events"] or s["skipped"] < 4 or s["listed"] < 1:
    sys.exit("    FAIL: a quiet host's ticks did not skip the scan: %s" % s)
PY
	cp "$WORKLOADS/burner" ./trapdquiet
	start_bg q ./trapdquiet 30 6
	wait_for 15 has_captures 1 || { fail "the new process was not seen: $(tail -5 daemon.log)"; rc=1; }
	stop_daemon
	return $rc
}

written_at_least() {
	[ "$(grep -c 'written: ' daemon.log)" -ge "$1" ]
}

test_daemon_spool_keeps_its_file_cap() {
	need_root_bpf || return
	local rc=0 i
	write_global 'spool_max_files = 2' 'manual_duration = 300ms' >rules.ini
	start_daemon || return 1
	for i in 1 2 3 4; do
		"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm $i"; rc=1; }
		wait_for 10 written_at_least "$i" ||
			{ fail "capture $i not written"; rc=1; }
		sleep 1.1 # capture names are to the second
	done
	[ "$(captures)" -eq 2 ] || { fail "$(captures) captures in the spool, cap 2"; rc=1; }
	[ "$(ls spool/*.json | wc -l)" -eq 2 ] || { fail "sidecars left behind"; rc=1; }
	[ "$(grep -c 'spool full: dropped' daemon.log)" -eq 2 ] || { fail "drops not logged"; rc=1; }
	"$TRAPD" status -S ctl.sock | grep -q ', 2 dropped' || { fail "status lacks the drops"; rc=1; }
	stop_daemon
	return $rc
}

# The flight recorder: a burner in a cgroup starts at t0, with a process
# that exits a second later; a rule on the cgroup fires at about t0+3 s.
# The capture's phase=before holds the burner from before the decision
# and names the process that had exited by then.
test_daemon_history_holds_the_seconds_before_the_trigger() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 cap json burner t0 at start
	{
		write_global 'history_frequency = 49Hz' 'history_window = 20s'
		cat <<EOF
[rule spike]
signal = cpu
cgroup = $CG_NAME
above = 50%
for = 3s
duration = 1s
frequency = 199Hz
EOF
	} >rules.ini
	start_daemon || { drop_cgroup; return 1; }
	"$TRAPD" status -S ctl.sock --json | grep -q '"history"' ||
		{ fail "status says nothing of the recorder: $("$TRAPD" status -S ctl.sock --json)"; rc=1; }
	cp "$WORKLOADS/burner" ./early_burner
	cp "$WORKLOADS/burner" ./cg_burner
	t0=$(date +%s%N)
	sh -c 'echo $$ >"$1/cgroup.procs" && exec ./early_burner 1' sh "$CG_DIR" >/dev/null &
	BG_PIDS+=("$!")
	start_bg burner sh -c 'echo $$ >"$1/cgroup.procs" && exec ./cg_burner 30' sh "$CG_DIR"
	wait_for 20 has_captures 1 || { fail "no capture: $(cat daemon.log)"; rc=1; }
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	[ -n "$cap" ] || { stop_daemon; drop_cgroup; return 1; }
	json=${cap%.pb.zst}.json
	at=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["triggers"][0]["at_ns"])' "$json")
	start=$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["history"]; print(h["start_ns"], h["samples"], h["frequency_hz"])' "$json")
	set -- $start
	[ "$3" = 49 ] && [ "$2" -gt 0 ] || { fail "the sidecar's history: $start"; rc=1; }
	# The rule needs 3 s over the line: the decision is ~3 s after t0,
	# and the history reaches back before t0.
	[ $((at - t0)) -ge 2500000000 ] || { fail "fired $(((at - t0) / 1000000)) ms after t0"; rc=1; }
	[ "$1" -lt "$t0" ] || { fail "the history starts after t0"; rc=1; }
	"$TRAPD" report "$cap" --phase before --folded before.folded >/dev/null ||
		{ fail "report --phase before"; rc=1; }
	"$TRAPD" report "$cap" --folded during.folded >/dev/null || { fail "report"; rc=1; }
	grep -q '^cg_burner;.*burn_60' before.folded ||
		{ fail "the burner is not in the history: $(head -5 before.folded)"; rc=1; }
	grep -q '^early_burner;.*burn_60' before.folded ||
		{ fail "the process that exited is not named: $(grep early before.folded | head -3)"; rc=1; }
	# About 2.5 s of one CPU at 49 Hz, at least: ~120 samples of cg_burner.
	awk '/^cg_burner;/ { n += $NF } END { exit !(n >= 100) }' before.folded ||
		{ fail "few burner samples before the decision: $(awk '/^cg_burner;/ { n += $NF } END { print n }' before.folded)"; rc=1; }
	! grep -q '^early_burner;' during.folded || { fail "the window has the exited process"; rc=1; }
	grep -q '^cg_burner;.*burn_60' during.folded || { fail "the window lacks the burner"; rc=1; }
	"$TRAPD" report "$cap" | grep -q 'seconds before its trigger: --phase before' ||
		{ fail "the report does not say the capture holds history"; rc=1; }
	# go tool pprof reads the phases and weighs the history by its own period.
	"$TRAPD" report "$cap" --pprof all.pb.gz >/dev/null 2>&1 || { fail "report --pprof"; rc=1; }
	go tool pprof -top -tagfocus=phase=before -sample_index=cpu all.pb.gz 2>/dev/null |
		grep -q ' burn_60$' || { fail "go tool pprof: no burn_60 before: $(go tool pprof -tags all.pb.gz 2>&1 | head -12)"; rc=1; }
	"$TRAPD" diff "$cap" --base-phase before --phase during --svg phases.svg >phases.txt 2>&1
	case $? in 0 | 3) ;; *) fail "diff of the phases: $(cat phases.txt)"; rc=1 ;; esac
	grep -q 'burn_60' phases.svg && xmllint --noout phases.svg 2>/dev/null ||
		{ fail "phases.svg lacks burn_60 or is not XML"; rc=1; }
	stop_daemon
	drop_cgroup
	return $rc
}

# A process the recorder has seen execs Debian's xz, whose code is in a
# library its loader maps after the exec: the history names that code
# by its library (liblzma, stripped: by its FDE), not by raw addresses.
test_daemon_history_names_what_a_process_execs() {
	need_root_bpf || return
	local rc=0 cap shell
	command -v xz >/dev/null || { fail "no xz (xz-utils)"; return 1; }
	{
		write_global 'history_frequency = 99Hz' 'history_window = 10s' \
			'manual_duration = 500ms'
		printf '[rule quiet]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 1s\n'
	} >rules.ini
	start_daemon || return 1
	# the shell spins a few tenths of a second first, so the recorder samples it before the exec
	start_bg shell sh -c 'i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done;
		exec xz -T1 -6 -c /dev/urandom' sh
	sleep 4
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm"; rc=1; }
	wait_for 10 has_captures 1 || { fail "no capture after arm: $(cat daemon.log)"; rc=1; }
	kill_bg
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	[ -n "$cap" ] && "$TRAPD" report "$cap" --phase before --folded before.folded >/dev/null ||
		{ fail "report --phase before"; stop_daemon; return 1; }
	grep -q '^sh;' before.folded || { fail "the shell before its exec was not sampled"; rc=1; }
	grep -q '^xz;.*liblzma' before.folded ||
		{ fail "xz's library is not named: $(grep '^xz;' before.folded | head -3)"; rc=1; }
	stop_daemon
	return $rc
}

# The recorder walks user stacks in the kernel with tables made from the
# programs' .eh_frame: Debian's xz and python3.11 keep no frame pointers,
# and their samples before the trigger still reach the thread's entry
# (__libc_start_call_main), as a window's do, with python3.11's Python
# functions named; trapd top names them too; status says what the walk
# loaded and how walks ended. The capture (unwind = auto) walks in the
# kernel too, with the recorder's tables: built once, for both.
test_daemon_history_walks_stacks_without_frame_pointers() {
	need_root_bpf || return
	local rc=0 cap st
	command -v xz >/dev/null || { fail "no xz (xz-utils)"; return 1; }
	[ -x /usr/bin/python3.11 ] || { fail "no /usr/bin/python3.11"; return 1; }
	write_global 'history_frequency = 49Hz' 'history_window = 10s' 'manual_duration = 500ms' >rules.ini
	start_daemon || return 1
	head -c 50000000 /dev/urandom >xzdata
	start_bg xz xz -T1 -6 -c xzdata
	start_bg py /usr/bin/python3.11 -c '
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
while True: fib(25)'
	sleep 6
	"$TRAPD" top -S ctl.sock --once -n 5 >top.txt 2>&1 || { fail "top: $(cat top.txt)"; rc=1; }
	grep -q ' fib$' top.txt || { fail "top does not name fib: $(cat top.txt)"; rc=1; }
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm"; rc=1; }
	wait_for 10 has_captures 1 || { fail "no capture after arm: $(cat daemon.log)"; rc=1; }
	st=$("$TRAPD" status -S ctl.sock --json)
	kill_bg
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	[ -n "$cap" ] && "$TRAPD" report "$cap" --phase before --folded before.folded >/dev/null ||
		{ fail "report --phase before"; stop_daemon; return 1; }
	for comm in xz python3.11; do
		awk -v c="$comm" 'index($0, c ";") == 1 { n += $NF; if (/;__libc_start_call_main;/) r += $NF }
			END { printf "%s: %d of %d samples reach __libc_start_call_main\n", c, r, n; exit !(n >= 50 && r >= 0.95 * n) }' \
			before.folded >>walk.txt || { fail "$(tail -1 walk.txt); $(grep "^$comm;" before.folded | grep -v __libc_start_call_main | head -3)"; rc=1; }
	done
	awk 'index($0, "python3.11;") == 1 { n += $NF; if (/;fib;|;fib [0-9]+$/) f += $NF }
		END { printf "python3.11: %d of %d samples name fib\n", f, n; exit !(n >= 50 && f >= 0.9 * n) }' \
		before.folded >>walk.txt || { fail "$(tail -1 walk.txt)"; rc=1; }
	echo "$st" | python3 -c '
import json, sys
w = json.load(sys.stdin)["history"]["kernel_walk"]
t = w["tables"]
assert t["files"] >= 3 and 0 < t["rows"] <= t["rows_max"], t
assert w["ended"]["entry"] > 0.5 * sum(w["ended"].values()), w' ||
		{ fail "status's kernel walk: $(echo "$st" | grep -o '"kernel_walk".*')"; rc=1; }
	python3 - "${cap%.pb.zst}.json" <<'PY' || { fail "the capture's walk: $(grep -A12 '"unwind"' "${cap%.pb.zst}.json")"; rc=1; }
import json, sys
u = json.load(open(sys.argv[1]))["unwind"]
k = u["kernel_walk"]
print("    the window: mode %s, %d walks, %d reached an entry, %d copied; tables built meanwhile: %d"
      % (u["mode"], k["walks"], k["ended"]["entry"], k["copied"], k["tables"]["files"]))
assert u["mode"] == "kernel" and k["ended"]["entry"] >= 0.9 * (k["walks"] - k["copied"]), u
PY
	stop_daemon
	return $rc
}

# trapd top in a terminal (tmux): a burner's hot function appears within
# 2 s of its start, and the screen is redrawn; --once for scripts; a
# daemon without the recorder says how to turn it on.
test_daemon_top_shows_a_burner_in_a_terminal() {
	need_root_bpf || return
	command -v tmux >/dev/null || { skip "no tmux"; return; }
	local rc=0 burner session=trapd-top-$$ i seen=
	write_global 'history_frequency = 49Hz' 'history_window = 10s' >rules.ini
	start_daemon || return 1
	cp "$WORKLOADS/burner" ./top_burner
	tmux new-session -d -s "$session" -x 120 -y 40 "$TRAPD top -S $PWD/ctl.sock --by function"
	start_bg burner ./top_burner 30
	for i in $(seq 20); do # 2 s
		sleep 0.1
		tmux capture-pane -p -t "$session" >screen.txt 2>/dev/null
		grep -q ' burn_60$' screen.txt && { seen=$i; break; }
	done
	[ -n "$seen" ] || { fail "burn_60 not on the screen within 2 s: $(cat screen.txt)"; rc=1; }
	grep -q '^trapd top - ' screen.txt || { fail "no header: $(cat screen.txt)"; rc=1; }
	sleep 1.5
	tmux capture-pane -p -t "$session" >screen2.txt
	[ "$(head -1 screen.txt)" != "$(head -1 screen2.txt)" ] ||
		{ fail "the screen was not redrawn: $(head -1 screen2.txt)"; rc=1; }
	tmux send-keys -t "$session" C-c
	sleep 0.3
	tmux has-session -t "$session" 2>/dev/null && { fail "Ctrl-C did not end trapd top"; rc=1; }
	tmux kill-session -t "$session" 2>/dev/null
	"$TRAPD" top -S ctl.sock --once --by process >once.txt 2>&1 ||
		{ fail "top --once: $(cat once.txt)"; rc=1; }
	grep -q "top_burner\[$burner\] *burn_60" once.txt ||
		{ fail "top --by process lacks the burner: $(cat once.txt)"; rc=1; }
	stop_daemon
	write_global >rules.ini
	start_daemon || return 1
	"$TRAPD" top -S ctl.sock --once >off.txt 2>&1
	[ $? -eq 2 ] && grep -q 'history_frequency' off.txt ||
		{ fail "top without the recorder: $(cat off.txt)"; rc=1; }
	stop_daemon
	kill_bg
	return $rc
}

# A local user names a process with a terminal's escape sequences (an
# OSC that retitles the terminal, a CSI that clears it): trapd top's
# screen carries none of their bytes, and the terminal keeps its title.
test_daemon_top_cleans_names_a_process_chose() {
	need_root_bpf || return
	command -v tmux >/dev/null || { skip "no tmux"; return; }
	local rc=0 evil session=trapd-top-esc-$$ pid i title
	evil="$PWD/$(printf '\033]0;PWN\a\033[2J')"
	write_global 'history_frequency = 49Hz' 'history_window = 10s' >rules.ini
	start_daemon || return 1
	cp "$WORKLOADS/burner" "$evil" && chmod 755 "$PWD" "$evil" || return 1
	start_bg pid setpriv --reuid=nobody --regid=nogroup --clear-groups "$evil" 30
	tmux new-session -d -s "$session" -x 120 -y 40 "$TRAPD top -S $PWD/ctl.sock --by process"
	for i in $(seq 30); do # 3 s
		sleep 0.1
		tmux capture-pane -p -t "$session" >screen.txt 2>/dev/null
		grep -q 'PWN' screen.txt && break
	done
	grep -q "?\\]0;PWN??\\[2J\\[$pid\\]" screen.txt ||
		{ fail "the process is not on the screen, cleaned: $(cat screen.txt)"; rc=1; }
	title=$(tmux display-message -p -t "$session" '#{pane_title}')
	[ "$title" != PWN ] || { fail "the process's name retitled the terminal"; rc=1; }
	tmux kill-session -t "$session" 2>/dev/null
	"$TRAPD" top -S ctl.sock --once --by process >once.txt 2>&1 ||
		{ fail "top --once: $(cat once.txt)"; rc=1; }
	LC_ALL=C grep -q "$(printf '[\033\007]')" once.txt &&
		{ fail "an ESC or BEL byte reached top's output: $(od -c once.txt | head)"; rc=1; }
	grep -q "PWN??\\[2J\\[$pid\\]" once.txt || { fail "top --once lacks the process: $(cat once.txt)"; rc=1; }
	stop_daemon
	kill_bg
	rm -f "$evil"
	return $rc
}

# Not tried before: `trapd top` as a heavy client of the control socket.
# Every top request merged and encoded the recorder's last seconds on the
# daemon's loop: eight clients asking as fast as they can, each for a
# length of its own, had the loop do it for every one. Answers are kept a
# quarter of a second by length now: the loop builds at most one per
# length per quarter second, and status still answers under the flood.
test_daemon_top_heavy_clients_cost_the_loop_little() {
	need_root_bpf || return
	local rc=0 i pids=() stalls=0 t0 ms counts
	write_global 'history_frequency = 49Hz' 'history_window = 10s' >rules.ini
	start_daemon || return 1
	start_bg burn "$WORKLOADS/burner" 30
	sleep 2
	t0=$(date +%s%N)
	for i in $(seq 1 8); do
		(end=$(($(date +%s) + 4)); while [ "$(date +%s)" -lt "$end" ]; do
			"$TRAPD" top -S ctl.sock --once -s $((i % 10 + 1)) >/dev/null 2>&1
		done) &
		pids+=("$!")
	done
	for i in $(seq 1 8); do
		timeout 5 "$TRAPD" status -S ctl.sock >/dev/null 2>&1 || stalls=$((stalls + 1))
		sleep 0.4
	done
	wait "${pids[@]}"
	ms=$((($(date +%s%N) - t0) / 1000000))
	counts=$("$TRAPD" status -S ctl.sock --json | python3 -c 'import json,sys
t=json.load(sys.stdin)["top_answers"]; print(t["asked"], t["built"])')
	set -- $counts
	echo "   8 clients for $ms ms: $1 top requests, $2 answers built; status failed $stalls of 8 times" >&2
	[ "$1" -ge 40 ] || { fail "only $1 top requests were answered"; rc=1; }
	# 8 lengths asked, one answer each a quarter second at most, and one
	# more per length for the windows' edges
	[ "$2" -le $((8 * (ms / 250 + 2))) ] || { fail "$2 answers built for $1 requests in $ms ms"; rc=1; }
	[ "$stalls" = 0 ] || { fail "status did not answer $stalls times under the flood"; rc=1; }
	stop_daemon
	return $rc
}

# The overhead budget: a recorder asked for 999 Hz on a busy host with
# max_overhead 0.5% is lowered until its measured share fits; a manual
# capture asked for 100 kHz is capped to fit max_capture_overhead, and
# the sidecar and trapd status say what was cut and why. The symbol cache
# holds every binary of the host here: when the tests before leave more
# running than the default 16 MiB holds, the recorder's renewal every
# window reloads the evicted tables, a cost no frequency lowers (seen
# once: 1.5 % of the host at 11 Hz), which is not what this test is of.
test_daemon_budget_lowers_the_recorder_and_caps_a_capture() {
	need_root_bpf || return
	local rc=0 b1 b2 cap json share
	write_global 'history_frequency = 999Hz' 'history_window = 10s' 'max_overhead = 0.5%' \
		'max_capture_overhead = 2%' 'manual_frequency = 100000Hz' 'manual_duration = 1s' \
		'symbol_cache = 128MiB' >rules.ini
	start_daemon || return 1
	start_bg b1 "$WORKLOADS/burner" 60
	start_bg b2 "$WORKLOADS/burner" 60
	hist() {
		"$TRAPD" status -S ctl.sock --json |
			python3 -c 'import json,sys; h=json.load(sys.stdin)["history"]; print(h[sys.argv[1]])' "$1"
	}
	lowered() { [ "$(hist lowered)" -ge 1 ]; }
	wait_for 20 lowered || { fail "the recorder was not lowered: $("$TRAPD" status -S ctl.sock)"; rc=1; }
	grep -q 'history: lowered from 999 to [0-9]* Hz: it took' daemon.log ||
		{ fail "the decision is not logged: $(grep history daemon.log)"; rc=1; }
	sleep 7 # a full measure at the new frequency
	share=$(hist share_pct)
	awk -v s="$share" 'BEGIN { exit !(s > 0 && s < 0.5) }' ||
		{ fail "the recorder takes $share% of the host, over 0.5%: $("$TRAPD" status -S ctl.sock)"; rc=1; }
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm"; rc=1; }
	wait_for 10 has_captures 1 || { fail "no capture: $(cat daemon.log)"; rc=1; }
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	json=${cap%.pb.zst}.json
	python3 - "$json" <<'PY' || rc=1
import json, sys
m = json.load(open(sys.argv[1]))
o, h = m["overhead"], m["history"]
problems = []
if o["asked_hz"] != 100000 or not 1 <= o["frequency_hz"] < 100000:
    problems.append("frequencies %s -> %s" % (o["asked_hz"], o["frequency_hz"]))
if not o["capped"] or "max_capture_overhead 2%" not in o["capped"]:
    problems.append("capped: %r" % o["capped"])
if not 0 < o["steady_pct"] < 2 or o["ended_early"]:
    problems.append("measured %s%% (steady %s%%), ended early %s" % (o["measured_pct"], o["steady_pct"], o["ended_early"]))
if m["frequency_hz"] != o["frequency_hz"]:
    problems.append("sampled at %s, budget says %s" % (m["frequency_hz"], o["frequency_hz"]))
if not h["lowered"] or not h["lowered"].startswith("lowered from 999 to"):
    problems.append("history: %r" % h["lowered"])
for p in problems:
    print("   FAIL: sidecar: " + p)
sys.exit(1 if problems else 0)
PY
	"$TRAPD" status -S ctl.sock | grep -q 'captures within 2% of the host: 1 capped, 0 ended early' ||
		{ fail "status: $("$TRAPD" status -S ctl.sock | grep overhead)"; rc=1; }
	stop_daemon
	kill_bg
	return $rc
}

# recorder_hz - the flight recorder's frequency now, from trapd status.
recorder_hz() {
	"$TRAPD" status -S ctl.sock --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["history"]["frequency_hz"])'
}

recorder_at() {
	[ "$(recorder_hz)" = "$1" ]
}

# lowest_hz_while CMD... - run CMD, polling the recorder's frequency each
# half second; prints the lowest seen.
lowest_hz_while() {
	local low=1000000 hz pid
	"$@" >/dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		hz=$(recorder_hz) && [ "$hz" -lt "$low" ] && low=$hz
		sleep 0.5
	done
	wait "$pid"
	echo "$low"
}

# Finding: a local user lowered the flight recorder for good. nobody
# forks 300 processes a second of one program that looks like a CPython
# interpreter (a _PyRuntime, no Py_Version) and holds 2,000,000 symbols:
# each new pid was probed again, every symbol walked, uncharged, and the
# recorder went from 19 Hz to 1 Hz and stayed there. The file is probed
# once now; then nobody starts 40 copies of it (a new file each, each
# probe charged to the recorder's budget), and once that stops, the
# recorder is back at its frequency within a bounded time, and status
# says what it decided and whose processes cost the most.
test_daemon_recorder_outlives_a_python_lookalike() {
	need_root_bpf || return
	local rc=0 low i probes lookalike=$WORKLOADS/symtest/pylookalike
	[ -x "$lookalike" ] || { fail "no $lookalike (make integration builds it)"; return 1; }
	chmod 755 "$PWD" "$(dirname "$PWD")"
	mkdir -m 755 bin && cp "$lookalike" bin/pylookalike || return 1
	write_global 'history_frequency = 19Hz' 'history_window = 10s' >rules.ini
	start_daemon || return 1
	sleep 2
	low=$(lowest_hz_while setpriv --reuid=nobody --regid=nogroup --clear-groups \
		bin/pylookalike 300 10 5)
	probes=$(grep -c 'pylookalike (Python ?): no Py_Version' daemon.log)
	echo "   one file, 300 forks/s for 10 s: lowest $low Hz, probed $probes times" >&2
	[ "$probes" -le 2 ] || { fail "the lookalike was probed $probes times"; rc=1; }
	wait_for 40 recorder_at 19 ||
		{ fail "the recorder is not back at 19 Hz 40 s after the fork storm: $("$TRAPD" status -S ctl.sock | grep -A1 history)"; rc=1; }
	# a new file for each process, one every quarter of a second: each
	# is probed, within the budget, and the recorder is lowered; once
	# they are done, it is raised again
	for i in $(seq 1 40); do
		cp bin/pylookalike "bin/copy$i" || return 1
	done
	cat >storm.sh <<'SH'
for i in $(seq 1 40); do "./bin/copy$i" 20 2 20 >/dev/null & sleep 0.25; done
wait
SH
	low=$(lowest_hz_while setpriv --reuid=nobody --regid=nogroup --clear-groups sh storm.sh)
	echo "   40 copies: lowest $low Hz; $("$TRAPD" status -S ctl.sock | grep -A1 '^history')" >&2
	wait_for 40 recorder_at 19 ||
		{ fail "the recorder is not back at 19 Hz 40 s after the copies: $("$TRAPD" status -S ctl.sock | grep -A1 history)"; rc=1; }
	# (a host fast enough to probe them within the budget lowers nothing)
	if [ "$low" -lt 19 ]; then
		grep -q "history: lowered from 19 to [0-9]* Hz: .*most of it reading processes named 'copy[0-9]*'" daemon.log ||
			{ fail "the lowering does not name the copies: $(grep history: daemon.log)"; rc=1; }
		grep -q 'history: raised from [0-9]* to 19 Hz (19 asked for)' daemon.log ||
			{ fail "the raise is not logged: $(grep history: daemon.log)"; rc=1; }
	fi
	stop_daemon
	return $rc
}

# irq_cost_us - what the daemon's calibration said an interrupt costs.
irq_cost_us() {
	sed -n 's/^trapd: a sampling interrupt costs about \([0-9.]*\) us here (measured)$/\1/p' daemon.log | tail -1
}

# Finding: the budget misjudged a busy host. The cost of one sampling
# interrupt, calibrated at start, was 5.3 us on an idle host and 162.7 us
# with both CPUs busy (a bare interrupt: 4.7 us): the time others ran
# counted as the interrupts'. The same calibration on this host idle and
# with every CPU busy must agree, within a factor that noise allows.
test_daemon_calibration_is_not_inflated_by_load() {
	need_root_bpf || return
	local idle busy i pids=()
	write_global >rules.ini
	start_daemon || return 1
	stop_daemon
	idle=$(irq_cost_us)
	for i in $(seq 1 $((2 * $(nproc)))); do
		start_bg b "$WORKLOADS/burner" 60
		pids+=("$b")
	done
	sleep 1
	: >daemon.log
	start_daemon || return 1
	stop_daemon
	busy=$(irq_cost_us)
	kill "${pids[@]}" 2>/dev/null
	echo "   an interrupt: $idle us idle, $busy us with $((2 * $(nproc))) burners" >&2
	[ -n "$idle" ] && [ -n "$busy" ] || { fail "no calibration logged: $(cat daemon.log)"; return 1; }
	awk -v i="$idle" -v b="$busy" 'BEGIN { exit !(b <= 3 * i + 10) }' ||
		{ fail "calibrated at $busy us on a busy host, $idle us idle"; return 1; }
}

# An attack on the kernel walk's tables: nobody runs code in 150 files of
# their own (copies of one library of 1,500 functions), each asking for a
# table, far more than the tables hold (unwind_tables_memory = 2MiB here).
# The tables of one user's files take at most half: nobody's push out
# their own, root's xz keeps its walks complete in the seconds before the
# trigger, and the pressure is counted and logged.
test_daemon_kernel_walk_tables_resist_a_users_many_files() {
	need_root_bpf || return
	command -v gcc >/dev/null || { fail "no gcc"; return 1; }
	local rc=0 i cap st
	chmod 755 "$PWD" "$(dirname "$PWD")"
	python3 -c '
for i in range(1500):
    print(f"__attribute__((noinline)) unsigned long f{i}(unsigned long x) {{ volatile unsigned long v[4] = {{x, {i}, x ^ {i}, 1}}; for (int j = 0; j < 3; j++) v[j + 1] += v[j] * {i + 1}; return v[3]; }}")
print("unsigned long hot(unsigned long n) { unsigned long a = 0; while (n--) {")
for i in range(0, 1500, 7):
    print(f"a += f{i}(a + n);")
print("} return a; }")' >many.c
	gcc -O2 -fomit-frame-pointer -shared -fPIC -o many.so many.c || { fail "gcc many.so"; return 1; }
	mkdir -m 755 libs || return 1
	for i in $(seq 1 150); do cp many.so "libs/many$i.so"; done
	chown -R nobody libs
	cat >many.py <<'PY'
import ctypes, sys, time
libs = [ctypes.CDLL(f"./libs/many{i}.so") for i in range(1, 151)]
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for lib in libs:
        lib.hot(ctypes.c_ulong(40))
PY
	write_global 'history_frequency = 99Hz' 'history_window = 10s' 'manual_duration = 500ms' \
		'unwind_tables_memory = 2MiB' >rules.ini
	start_daemon || return 1
	head -c 30000000 /dev/urandom >xzdata
	start_bg xz xz -T1 -6 -c xzdata
	start_bg hog setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 many.py 12
	sleep 8
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm"; rc=1; }
	wait_for 10 has_captures 1 || { fail "no capture after arm: $(cat daemon.log)"; rc=1; }
	st=$("$TRAPD" status -S ctl.sock --json)
	kill_bg
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	[ -n "$cap" ] && "$TRAPD" report "$cap" --phase before --folded before.folded >/dev/null ||
		{ fail "report --phase before"; stop_daemon; return 1; }
	awk 'index($0, "xz;") == 1 { n += $NF; if (/;__libc_start_call_main;/) r += $NF }
		END { printf "    xz: %d of %d samples complete beside the attack\n", r, n; exit !(n >= 50 && r >= 0.9 * n) }' \
		before.folded || { fail "xz's walks suffered: $(grep '^xz;' before.folded | grep -v __libc_start_call_main | head -3)"; rc=1; }
	echo "$st" | python3 -c '
import json, sys
t = json.load(sys.stdin)["history"]["kernel_walk"]["tables"]
print("    tables:", t)
assert t["files_evicted"] > 0 and t["rows"] <= t["rows_max"], t' ||
		{ fail "no table was pushed out: $(echo "$st" | grep -o '"tables".*')"; rc=1; }
	grep -q 'file tables pushed out' daemon.log || { fail "the pressure was not logged: $(tail -5 daemon.log)"; rc=1; }
	stop_daemon
	return $rc
}
