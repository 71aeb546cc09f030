# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_ci_rules.sh - `trapd ci -c RULES`: rules watch the run's cgroup
# while the command runs, a rule that fires captures into DIR, and the job
# fails (status 4) when any did. Workload: tests/workloads/burner (three
# functions burn_60, burn_30, burn_10 in one loop, per thread).

# write_busy_rules FILE - a CPU rule on the run: above half a CPU for
# 400 ms, a 1 s capture at 499 Hz, polled every 200 ms.
write_busy_rules() {
	cat >"$1" <<'EOF'
[global]
poll_interval = 200ms

[rule busy]
signal = cpu
above = 50%
for = 400ms
duration = 1s
frequency = 499Hz
EOF
}

# burn_share FOLDED - percentage of samples under burner's burn_ functions.
burn_share() {
	awk '/burn_/ { n += $NF } { t += $NF } END { printf "%d", t ? 100 * n / t : 0 }' "$1"
}

test_ci_rules_fire_captures_the_run() {
	need_root_bpf || return
	local rc=0 st caps share
	write_busy_rules busy.ini
	# idle first, then 2 s of one busy thread
	"$TRAPD" ci -c busy.ini -o out -- sh -c 'sleep 0.6; exec "$0" 2 1' "$WORKLOADS/burner" \
		>out.log 2>err.log
	st=$?
	[ "$st" -eq 4 ] || { fail "a run that fired a rule exited $st, expected 4: $(cat out.log err.log)"; rc=1; }
	caps=$(ls out/*-busy-*.pb.zst 2>/dev/null | wc -l)
	[ "$caps" -eq 1 ] || { fail "expected one capture of rule busy in out/, found: $(ls out)"; return 1; }
	"$TRAPD" report out/*-busy-*.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "trapd report cannot read the capture"; return 1; }
	share=$(burn_share out.folded)
	echo "    samples under burn_*: $share %"
	[ "$share" -ge 80 ] || { fail "only $share % of the capture is the run's burner"; rc=1; }
	grep -q '"rule": *"busy"' out/*-busy-*.json ||
		{ fail "the sidecar does not name rule busy: $(cat out/*-busy-*.json)"; rc=1; }
	grep -q 'trapd-ci-' out/*-busy-*.json ||
		{ fail "the sidecar does not name the run's cgroup: $(cat out/*-busy-*.json)"; rc=1; }
	grep -q '^### trapd: 1 of 1 rule fired during the run (1 time)$' out/summary.md ||
		{ fail "summary.md headline: $(head -1 out/summary.md)"; rc=1; }
	grep -q "^| [0-9.]*m\?s | busy | cpu | [0-9.]*% | above 50% | \`$(basename out/*-busy-*.pb.zst)\` |$" out/summary.md ||
		{ fail "summary.md has no row for the fire with its capture: $(cat out/summary.md)"; rc=1; }
	grep -q '^trapd ci: 1 of 1 rule fired during the run' out.log ||
		{ fail "the report was not printed: $(cat out.log)"; rc=1; }
	grep -q 'rules fired 1 time during the run' err.log ||
		{ fail "no error line for the failed job: $(cat err.log)"; rc=1; }
	no_ci_cgroups || rc=1
	return $rc
}

test_ci_rules_quiet_run_passes_and_shows_the_extreme() {
	need_root_bpf || return
	local rc=0 st
	write_busy_rules busy.ini
	"$TRAPD" ci -c busy.ini -o out -- sleep 1.5 >out.log 2>&1
	st=$?
	[ "$st" -eq 0 ] || { fail "a quiet run exited $st, expected 0: $(cat out.log)"; rc=1; }
	ls out/*.pb.zst >/dev/null 2>&1 && { fail "a quiet run left captures: $(ls out)"; rc=1; }
	grep -q '^### trapd: no rule fired during the run$' out/summary.md ||
		{ fail "summary.md headline: $(head -1 out/summary.md)"; rc=1; }
	# sleep uses next to no CPU: its extreme reading is a few percent at most
	grep -q '^| busy | cpu | above 50% | [0-9]\(\.[0-9]*\)\?% | 0 |$' out/summary.md ||
		{ fail "summary.md does not show the rule's extreme reading: $(cat out/summary.md)"; rc=1; }
	no_ci_cgroups || rc=1
	return $rc
}

# A busy host is not a busy run: the rules read the run's cgroup.
test_ci_rules_watch_only_the_run() {
	need_root_bpf || return
	local rc=0 st pid
	write_busy_rules busy.ini
	start_bg pid "$WORKLOADS/burner" 10 2
	sleep 0.3
	"$TRAPD" ci -c busy.ini -o out -- sleep 2 >out.log 2>&1
	st=$?
	[ "$st" -eq 0 ] || { fail "two busy CPUs outside the run made it exit $st: $(cat out.log)"; rc=1; }
	no_ci_cgroups || rc=1
	return $rc
}

# Four busy threads on two CPUs queue for them: a run-queue latency rule
# on the run fires and the capture samples the run.
test_ci_rules_latency_rule_fires_on_the_run() {
	need_root_bpf || return
	local rc=0 st share
	cat >lat.ini <<'EOF'
[global]
poll_interval = 250ms

[rule queueing]
signal = runqlat.p99
above = 1ms
window = 1s
min_count = 20
duration = 1s
frequency = 199Hz
EOF
	"$TRAPD" ci -c lat.ini -o out -- "$WORKLOADS/burner" 3 4 >out.log 2>&1
	st=$?
	[ "$st" -eq 4 ] || { fail "4 threads on $(nproc) CPUs did not fire runqlat.p99 (exit $st): $(cat out.log)"; rc=1; }
	grep -q '| queueing | runqlat.p99 |' out/summary.md ||
		{ fail "summary.md has no fire of queueing: $(cat out/summary.md)"; rc=1; }
	"$TRAPD" report out/*-queueing-*.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "no readable capture of queueing: $(ls out)"; return 1; }
	share=$(burn_share out.folded)
	[ "$share" -ge 80 ] || { fail "only $share % of the capture is the run's burner"; rc=1; }
	no_ci_cgroups || rc=1
	return $rc
}

test_ci_rules_pass_the_command_exit_status() {
	need_root_bpf || return
	local rc=0 st
	write_busy_rules busy.ini
	"$TRAPD" ci -c busy.ini -o out -- sh -c 'exit 7' >out.log 2>&1
	st=$?
	[ "$st" -eq 7 ] || { fail "a command exiting 7 made trapd ci -c exit $st"; rc=1; }
	# fired and failed: the command's failure is the job's
	"$TRAPD" ci -c busy.ini -o both -- sh -c '"$0" 1.5 1; exit 9' "$WORKLOADS/burner" >both.log 2>&1
	st=$?
	[ "$st" -eq 9 ] || { fail "a command that fired a rule and exited 9 made trapd ci -c exit $st"; rc=1; }
	ls both/*-busy-*.pb.zst >/dev/null 2>&1 || { fail "the failed run lost its capture: $(ls both)"; rc=1; }
	"$TRAPD" ci -c busy.ini -o missing -- ./no-such-command >missing.log 2>&1
	st=$?
	[ "$st" -eq 127 ] || { fail "a missing command made trapd ci -c exit $st, expected 127"; rc=1; }
	no_ci_cgroups || rc=1
	return $rc
}

test_ci_rules_stopped_run_keeps_its_capture() {
	need_root_bpf || return
	local rc=0 ci st
	write_busy_rules busy.ini
	sed -i 's/^duration = 1s/duration = 30s/' busy.ini
	"$TRAPD" ci -c busy.ini -o out -- "$WORKLOADS/burner" 60 1 >out.log 2>&1 &
	ci=$!
	sleep 2.5
	kill -TERM "$ci"
	wait "$ci"
	st=$?
	[ "$st" -eq 143 ] || { fail "trapd ci -c stopped by SIGTERM exited $st, expected 143"; rc=1; }
	ls out/*-busy-*.pb.zst >/dev/null 2>&1 ||
		{ fail "the capture cut short was not written: $(ls out) $(cat out.log)"; rc=1; }
	grep -q 'stopped by SIGTERM' out/summary.md ||
		{ fail "summary.md does not say the run was stopped: $(head -3 out/summary.md)"; rc=1; }
	pgrep -f "burner 60 1" >/dev/null && { fail "the run's burner outlived trapd ci"; pkill -f "burner 60 1"; rc=1; }
	no_ci_cgroups || rc=1
	return $rc
}

test_ci_rules_refuse_bad_input() {
	local rc=0
	printf '[rule a]\nsignal = cpu\nabove = 80 %%\n' >bad.ini
	expect_status 2 "$TRAPD" ci -c bad.ini -o out -- true || rc=1
	grep -q "bad.ini:3: \[rule a\] above: bad value '80 %'" <<<"$LAST_STDERR" ||
		{ fail "no file:line message: $LAST_STDERR"; rc=1; }
	expect_status 2 "$TRAPD" ci -c missing.ini -- true || rc=1
	grep -q "missing.ini" <<<"$LAST_STDERR" || { fail "no file named: $LAST_STDERR"; rc=1; }
	write_busy_rules busy.ini
	expect_status 2 "$TRAPD" ci -c busy.ini --baseline base.pb.zst -- true || rc=1
	grep -q -- "--baseline compares whole runs" <<<"$LAST_STDERR" || { fail "why not: $LAST_STDERR"; rc=1; }
	expect_status 2 "$TRAPD" ci -c busy.ini --runs 3 -- true || rc=1
	printf '[rule a]\nsignal = cpu\nabove = 80%%\nsample = run\n' >daemon.ini
	expect_status 2 "$TRAPD" check -c daemon.ini || rc=1
	expect_status 0 "$TRAPD" check --ci -c daemon.ini || rc=1
	return $rc
}
