# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_daemon_sequences.sh - the daemon through sequences of captures of
# different kinds, where one capture's leftovers meet the next: a latency
# rule's capture (its trigger carries a histogram) followed by a capture
# of a rule without one reuses the same trigger slot. A stale pointer in
# that slot was freed twice (`free(): double free detected`) within
# seconds of the second fire. Uses wait_for, write_global, start_daemon,
# stop_daemon, new_cgroup and drop_cgroup from test_daemon.sh.

# sequences_count PATTERN - lines of daemon.log matching PATTERN.
sequences_count() {
	grep -c -- "$1" daemon.log
}

# sequences_wait PATTERN N - wait up to 15 s for more than N lines of
# daemon.log to match PATTERN; fails at once if the daemon dies.
sequences_wait() {
	local tries=75
	while [ "$tries" -gt 0 ]; do
		[ "$(sequences_count "$1")" -gt "$2" ] && return 0
		kill -0 "$DAEMON" 2>/dev/null || { fail "the daemon died: $(tail -5 daemon.log)"; return 1; }
		sleep 0.2
		tries=$((tries - 1))
	done
	fail "no new '$1' in 15 s: $(tail -5 daemon.log)"
}

# sequences_fire RULE PID - let the stopped PID run until RULE fires and
# its capture is written, then stop PID again; the daemon must still run
# once the capture's slot is reset.
sequences_fire() {
	local fired written
	fired=$(sequences_count "rule $1 fired")
	written=$(sequences_count 'capture .* written: ')
	kill -CONT "$2"
	sequences_wait "rule $1 fired" "$fired" || { kill -STOP "$2"; return 1; }
	kill -STOP "$2"
	sequences_wait 'capture .* written: ' "$written" || return 1
	sleep 0.3 # the slot is reset once the files are written
	kill -0 "$DAEMON" 2>/dev/null || { fail "the daemon died after $1's capture: $(tail -5 daemon.log)"; return 1; }
}

# sequences_rules SLEEPER - a syscall.count rule on SLEEPER's nanosleeps
# and a cpu rule on the test cgroup, both firing at once when their
# process runs and re-arming as soon as it stops.
sequences_rules() {
	write_global 'max_captures_per_hour = 0' 'max_captures_per_day = 0'
	cat <<EOF
[rule seq-syscalls]
signal = syscall.count
syscalls = nanosleep, clock_nanosleep
pid = $1
above = 20
duration = 300ms
frequency = 199Hz
sample = system
cooldown = 0

[rule seq-cpu]
signal = cpu
cgroup = $CG_NAME
above = 50%
duration = 300ms
frequency = 199Hz
cooldown = 0
EOF
}

test_daemon_latency_capture_then_cpu_capture() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 i sleeper burner st
	cp "$WORKLOADS/burner" ./seq_burner
	start_bg burner ./seq_burner 0
	kill -STOP "$burner"
	echo "$burner" >"$CG_DIR/cgroup.procs"
	start_bg sleeper "$WORKLOADS/latwork" sleep 1 0
	kill -STOP "$sleeper"
	sequences_rules "$sleeper" >rules.ini
	start_daemon || { kill -CONT "$burner" "$sleeper"; drop_cgroup; return 1; }
	for i in 1 2 3; do
		sequences_fire seq-syscalls "$sleeper" || { rc=1; break; }
		sequences_fire seq-cpu "$burner" || { rc=1; break; }
	done
	[ "$(grep -l '"rule": "seq-syscalls"' spool/*.json 2>/dev/null | wc -l)" -ge 2 ] ||
		{ fail "fewer than 2 captures of the latency rule in the spool"; rc=1; }
	[ "$(grep -l '"rule": "seq-cpu"' spool/*.json 2>/dev/null | wc -l)" -ge 2 ] ||
		{ fail "fewer than 2 captures of the cpu rule in the spool"; rc=1; }
	grep -l '"rule": "seq-syscalls"' spool/*.json 2>/dev/null | xargs -r grep -q '"latency"' ||
		{ fail "the latency rule's captures carry no histogram"; rc=1; }
	"$TRAPD" status -S ctl.sock >/dev/null || { fail "the daemon does not answer"; rc=1; }
	kill -TERM "$DAEMON" 2>/dev/null
	wait "$DAEMON"
	st=$?
	[ "$st" -eq 0 ] || { fail "the daemon exited $st: $(tail -5 daemon.log)"; rc=1; }
	kill -CONT "$burner" "$sleeper" # a stopped process would not end on kill_bg's SIGTERM
	drop_cgroup
	return $rc
}
