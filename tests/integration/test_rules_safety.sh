# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_rules_safety.sh - what a rules file and the other users of the host
# can make the daemon do: a process renamed after a rule's comm by an
# unprivileged user neither fires a pinned rule nor is sampled for it;
# a file of too many rules is refused; a full file keeps the daemon small;
# PSI trigger fds stay within budget under a low open-file limit.

# rulesafe_bins - a world-readable directory with the real service's
# binary (root's) and the impostor's own copy (nobody's); in RS_DIR.
rulesafe_bins() {
	RS_DIR=$(mktemp -d /tmp/trapd-rulesafe.XXXXXX)
	chmod 755 "$RS_DIR"
	mkdir "$RS_DIR/bin" "$RS_DIR/nobody"
	install -m 755 "$WORKLOADS/renamer" "$RS_DIR/bin/renamer"
	install -m 755 -o nobody "$WORKLOADS/renamer" "$RS_DIR/nobody/renamer"
}

rulesafe_cleanup() {
	kill_bg
	rm -rf "$RS_DIR"
}

# rulesafe_as USER CMD... - CMD as USER, no other group, no privilege
# (exec: run by start_bg, its pid is the one start_bg gives).
rulesafe_as() {
	local user=$1
	shift
	exec setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups --inh-caps=-all "$@"
}

# comm_is PID NAME - whether PID has renamed itself NAME yet.
comm_is() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

rulesafe_fired() {
	grep -q "rule $1 fired" daemon.log
}

test_rules_safety_renamed_process_fires_no_pinned_rule() {
	need_root_bpf || return
	local rc=0 fake real
	rulesafe_bins
	{
		write_global
		for r in bare by-user by-exe; do
			printf '[rule %s]\nsignal = process.rss\nprocess = trapdpg\nabove = 48MiB\n' "$r"
			printf 'dry_run = true\ncooldown = 0\n'
			[ "$r" = by-user ] && printf 'process_user = daemon\n'
			[ "$r" = by-exe ] && printf 'process_exe = %s/bin/renamer\n' "$RS_DIR"
			printf '\n'
		done
	} >rules.ini
	start_daemon || { rulesafe_cleanup; return 1; }
	grep -q "rule bare: finds its process by name alone" daemon.log ||
		{ fail "no warning for the rule pinned by name alone"; rc=1; }
	# the impostor: nobody runs their own binary, renamed after the rule
	start_bg fake rulesafe_as nobody "$RS_DIR/nobody/renamer" trapdpg 64
	wait_for 10 rulesafe_fired bare || { fail "the name-only rule did not fire"; rc=1; }
	sleep 1.5 # six more polls
	! rulesafe_fired by-user || { fail "by-user fired for nobody's process"; rc=1; }
	! rulesafe_fired by-exe || { fail "by-exe fired for another binary"; rc=1; }
	# the real service: its user, its binary
	start_bg real rulesafe_as daemon "$RS_DIR/bin/renamer" trapdpg 64
	wait_for 10 rulesafe_fired by-user || { fail "by-user missed the real process"; rc=1; }
	wait_for 10 rulesafe_fired by-exe || { fail "by-exe missed the real process"; rc=1; }
	stop_daemon
	rulesafe_cleanup
	return $rc
}

# A capture of sample = process:NAME goes to the process that holds the
# rule's pins, though the impostor came first in /proc.
test_rules_safety_capture_samples_the_pinned_process() {
	need_root_bpf || return
	local rc=0 fake real cap
	rulesafe_bins
	start_bg fake rulesafe_as nobody "$RS_DIR/nobody/renamer" trapdpg 8
	sleep 0.2
	start_bg real rulesafe_as daemon "$RS_DIR/bin/renamer" trapdpg 8
	# the rule fires at the daemon's first tick: the real process must
	# have its name by then
	wait_for 5 comm_is "$real" trapdpg && wait_for 5 comm_is "$fake" trapdpg ||
		{ fail "the renamers did not rename themselves"; rulesafe_cleanup; return 1; }
	{
		write_global
		printf '[rule any]\nsignal = process.threads\npid = %d\nabove = 0\n' "$$"
		printf 'sample = process:trapdpg\nprocess_user = daemon\nduration = 1s\n'
	} >rules.ini
	start_daemon || { rulesafe_cleanup; return 1; }
	wait_for 15 has_captures 1 || { fail "no capture: $(cat daemon.log)"; rc=1; }
	cap=$(ls spool/*.pb.zst 2>/dev/null | head -1)
	if [ -n "$cap" ]; then
		grep -q "\"pid\": $real" "${cap%.pb.zst}.json" ||
			{ fail "sampled not the real process $real (impostor $fake)"; rc=1; }
	fi
	stop_daemon
	rulesafe_cleanup
	return $rc
}

# rulesafe_rules N - a file of N process rules, each its own name.
rulesafe_rules() {
	write_global
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "[rule r%d]\nsignal = process.rss\nprocess = p%d\nabove = 1GiB\n\n", i, i % 4096 }'
}

test_rules_safety_too_many_rules_refused() {
	local rc=0 out
	rulesafe_rules 10000 >rules.ini
	expect_status 2 "$TRAPD" check -c rules.ini || rc=1
	echo "$LAST_STDERR" | grep -q "^rules.ini:[0-9]*: too many rules (limit 256)" ||
		{ fail "no clear message: $LAST_STDERR"; rc=1; }
	expect_status 2 "$TRAPD" daemon -c rules.ini --log stderr || rc=1
	echo "$LAST_STDERR" | grep -q "too many rules (limit 256)" ||
		{ fail "the daemon did not say why: $LAST_STDERR"; rc=1; }
	rulesafe_rules 256 >rules.ini
	expect_status 0 "$TRAPD" check -c rules.ini || rc=1
	return $rc
}

# A file at the limit loads; 256 process rules cost the daemon little
# memory and one /proc scan per poll (its CPU stays low).
test_rules_safety_full_file_keeps_daemon_small() {
	need_root_bpf || return
	local rc=0 rss t0 t1
	rulesafe_rules 256 >rules.ini
	start_daemon || return 1
	sleep 2
	t0=$(awk '{ print $14 + $15 }' /proc/"$DAEMON"/stat)
	sleep 5 # 20 polls
	t1=$(awk '{ print $14 + $15 }' /proc/"$DAEMON"/stat)
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$DAEMON"/status)
	echo "    256 process rules: VmRSS ${rss} kB, $((t1 - t0)) CPU ticks in 5 s"
	[ "$rss" -lt 32768 ] || { fail "VmRSS ${rss} kB with 256 rules"; rc=1; }
	[ $((t1 - t0)) -lt 50 ] || { fail "$((t1 - t0)) ticks of CPU in 5 s"; rc=1; }
	stop_daemon
	return $rc
}

# 256 PSI rules over a window of their own, under an open-file limit of
# 128: the daemon starts, holds at most a quarter of it in triggers, and
# polls the rest.
test_rules_safety_psi_triggers_bounded() {
	need_root_bpf || return
	[ -r /proc/pressure/cpu ] || { skip "no PSI"; return 77; }
	local rc=0 fds
	{
		write_global
		awk 'BEGIN { for (i = 0; i < 256; i++)
			printf "[rule p%d]\nsignal = psi.cpu.some\nwindow = 2s\nabove = %d%%\n\n", i, 50 + i % 40 }'
	} >rules.ini
	(ulimit -Sn 128 && exec "$TRAPD" daemon -c rules.ini --log stderr 2>>daemon.log) &
	DAEMON=$!
	BG_PIDS+=("$DAEMON")
	wait_for 10 "$TRAPD" status -S ctl.sock >/dev/null ||
		{ fail "daemon did not start: $(tail -5 daemon.log)"; return 1; }
	fds=$(ls /proc/"$DAEMON"/fd | wc -l)
	echo "    256 PSI rules, RLIMIT_NOFILE 128: $fds fds open"
	[ "$fds" -lt 100 ] || { fail "$fds fds open"; rc=1; }
	grep -q "224 PSI rules polled instead of watched by a kernel trigger: at most 32" daemon.log ||
		{ fail "no word of polled rules: $(grep -i psi daemon.log | tail -3)"; rc=1; }
	stop_daemon
	return $rc
}
