# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_offcpu.sh - off-CPU time on the real scheduler: threads that wait
# in known ways (a mutex, a pipe, sleeps, O_DIRECT reads of a loop device,
# a CPU shared by two spinners), read back with trapd's views and with
# go tool pprof. Uses loop_device and drop_loops from test_latency.sh.

# thread_shares FOLDED - "THREAD PERCENT" per thread (the first frame of
# every folded line) of a folded file's total.
thread_shares() {
	awk '{ split($1, f, ";"); t[f[1]] += $NF; all += $NF }
	     END { for (k in t) printf "%s %.1f\n", k, 100 * t[k] / all }' "$1"
}

# share_of SHARES THREAD - THREAD's percent in thread_shares output.
share_of() {
	awk -v t="$2" '$1 == t { print $2 }' "$1"
}

# state_share PPROF THREAD STATE - percent of THREAD's off-CPU time spent
# in STATE, as go tool pprof reads the capture's state labels: the
# state's time over the sum of the states' times. The times, not the
# percentages pprof prints beside them: Go 1.19 gives those of the
# focused samples, Go 1.26 of the whole profile.
state_share() {
	go tool pprof -sample_index=off_cpu -tagfocus="comm=$2" -tags "$1" 2>/dev/null |
		awk -v s="$3" '
			function ns(v,   n, u) {
				n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
				if (u == "ns") return n; if (u == "us" || u == "\302\265s") return n * 1e3
				if (u == "ms") return n * 1e6; if (u == "s") return n * 1e9
				if (u == "mins") return n * 60e9; if (u == "hrs") return n * 3600e9
				return -1
			}
			/^ state:/ { in_state = 1; next }
			/^ [a-z]+:/ { in_state = 0 }
			in_state && $2 ~ /^\(/ { t = ns($1); if (t > 0) { all += t; if ($NF == s) mine += t } }
			END { if (all > 0) printf "%.2f\n", 100 * mine / all; else print 0 }'
}

# frames_of FOLDED THREAD - every frame of THREAD's stacks, one per line.
frames_of() {
	awk -v t="$2" '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); if (f[1] == t) for (i = 2; i <= n; i++) print f[i] }' "$1" | sort -u
}

test_offcpu_threads_waiting_in_known_ways() {
	need_root_bpf || return
	command -v go >/dev/null || { skip "needs go (golang-go) for go tool pprof"; return 77; }
	local rc=0 t share want state
	LOOPS=()
	loop_device disk.img || { drop_loops; return 77; }
	capture_into w --off-cpu -F 99 -- "$WORKLOADS/waiter" 4 "/dev/$LOOP_DEV" || { drop_loops; return 1; }
	drop_loops
	"$TRAPD" report w.pb.zst --view wall --folded wall.folded >/dev/null 2>&1 || { fail "report --view wall"; return 1; }
	"$TRAPD" report w.pb.zst --view offcpu --folded off.folded >/dev/null 2>&1 || { fail "report --view offcpu"; return 1; }
	zstd -qdc w.pb.zst >w.pb || { fail "w.pb.zst does not decompress"; return 1; }

	# Every thread lived the whole run, on or off a CPU: in wall-clock
	# time, each of the seven is a seventh.
	thread_shares wall.folded >wall.shares
	for t in waiter w-mutex w-pipe w-sleep w-disk w-spin1 w-spin2; do
		share=$(share_of wall.shares "$t")
		within "${share:-0}" 14.3 5 ||
			{ fail "$t has ${share:-no} % of the wall-clock time, expected 14.3 (one of 7 threads): $(cat wall.shares)"; rc=1; }
	done
	# Off the CPU, each waited in the state its wait puts it in.
	for t in waiter:sleeping w-mutex:sleeping w-pipe:sleeping w-sleep:sleeping \
		w-disk:uninterruptible w-spin1:runnable w-spin2:runnable; do
		state=$(state_share w.pb "${t%%:*}" "${t#*:}")
		awk -v v="$state" 'BEGIN { exit !(v >= 95) }' ||
			{ fail "${t%%:*} spent $state % of its off-CPU time ${t#*:}, expected >= 95"; rc=1; }
	done
	# Two spinners share the first CPU: each waits for it at least while
	# the other runs, half the time on an idle host (0.5 of w-pipe, which
	# waits throughout) and more on a busy one, where others take the
	# CPU too, but never longer than w-pipe. How much more is the host's
	# load, not trapd's: the exact ratio is bench's (make bench), not a
	# functional test's (CI saw 0.61 and 0.63 on a loaded machine).
	thread_shares off.folded >off.shares
	for t in w-spin1 w-spin2; do
		share=$(awk -v s="$(share_of off.shares "$t")" -v p="$(share_of off.shares w-pipe)" \
			'BEGIN { if (p > 0) printf "%.2f", s / p; else print 0 }')
		awk -v v="$share" 'BEGIN { exit !(v >= 0.4 && v <= 1.05) }' ||
			{ fail "$t waited $share times as long as w-pipe, expected 0.5 (more on a busy host, at most 1): $(cat off.shares)"; rc=1; }
	done
	# The stacks name where each waited, whole: DWARF unwinding of each
	# blocking site reaches past libc's frames, which have no frame
	# pointers, into the function that called it.
	for want in w-pipe:wait_for_pipe w-disk:read_direct w-mutex:wait_for_lock \
		w-mutex:pthread_mutex_lock w-sleep:nap waiter:hold_lock_sleeping w-spin1:spin \
		w-mutex:start_thread; do
		frames_of off.folded "${want%%:*}" | grep -qx "${want#*:}" ||
			{ fail "${want%%:*}'s off-CPU stacks lack ${want#*:}: $(frames_of off.folded "${want%%:*}" | tr '\n' ' ')"; rc=1; }
	done
	frames_of off.folded w-mutex | grep -qx 'futex_wait_\[k\]' ||
		{ fail "w-mutex's off-CPU stacks lack the kernel's futex_wait"; rc=1; }
	# A site is copied once, not at every switch.
	python3 - w.json <<'PY' || { fail "blocking sites: $(grep -A8 '"off_cpu"' w.json)"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
sites, switches = d["off_cpu"]["sites_copied"], d["off_cpu"]["switches"]
sys.exit(not (switches > 1000 and 0 < sites < switches / 10))
PY
	# pprof readers see the third sample type, and cpu by default.
	go tool pprof -raw w.pb 2>/dev/null | grep -q 'samples/count cpu/nanoseconds\[dflt\] off_cpu/nanoseconds' ||
		{ fail "go tool pprof does not list off_cpu/nanoseconds with cpu the default: $(go tool pprof -raw w.pb 2>&1 | head -5)"; rc=1; }
	return $rc
}

# Frame pointers: the kernel walks the stack at the switch, as bcc's
# offcputime does; libc has no frame pointers, so the function that
# called into it is recovered only one level down (the leaf's caller).
test_offcpu_frame_pointer_stacks() {
	need_root_bpf || return
	local rc=0 want
	capture_into w --off-cpu --unwind fp -F 99 -- "$WORKLOADS/waiter" 2 || return 1
	"$TRAPD" report w.pb.zst --view offcpu --folded off.folded >/dev/null 2>&1 || { fail "report --view offcpu"; return 1; }
	for want in w-pipe:wait_for_pipe w-pipe:read w-mutex:__lll_lock_wait w-mutex:thread \
		w-sleep:clock_nanosleep w-spin1:spin; do
		frames_of off.folded "${want%%:*}" | grep -qx "${want#*:}" ||
			{ fail "${want%%:*}'s off-CPU stacks lack ${want#*:}: $(frames_of off.folded "${want%%:*}" | tr '\n' ' ')"; rc=1; }
	done
	grep -q '"sites_copied": 0' w.json || { fail "sites copied in fp mode"; rc=1; }
	return $rc
}

# Python: the interpreter's frames are walked at the switch as at a
# sample, so a thread waiting in time.sleep or on a lock shows the Python
# functions that wait.
test_offcpu_python_waits_show_python_functions() {
	need_root_bpf || return
	[ -x /usr/bin/python3.11 ] || { skip "needs Debian's python3.11"; return 77; }
	local rc=0 want
	cat >waits.py <<'PY'
import threading, time

def nap_in_sleeper():
    for _ in range(150):
        time.sleep(0.01)

def wait_in_waiter(ev):
    ev.wait()

ev = threading.Event()
threads = [threading.Thread(target=nap_in_sleeper), threading.Thread(target=wait_in_waiter, args=(ev,))]
for t in threads:
    t.start()
threads[0].join()
ev.set()
threads[1].join()
PY
	capture_into py --off-cpu -F 99 -- /usr/bin/python3.11 waits.py || return 1
	"$TRAPD" report py.pb.zst --view offcpu --folded off.folded >/dev/null 2>&1 || { fail "report --view offcpu"; return 1; }
	for want in nap_in_sleeper wait_in_waiter Thread.run; do
		grep -q ";$want;" off.folded ||
			{ fail "no off-CPU stack through $want: $(cut -c1-300 off.folded | head -5)"; rc=1; }
	done
	# the sleeper waited about 1.5 s of its run in the kernel's nanosleep
	awk '/nap_in_sleeper/ && /hrtimer_nanosleep/ { t += $NF } END { exit !(t > 1.2e9 && t < 2.5e9) }' off.folded ||
		{ fail "nap_in_sleeper waited $(awk '/nap_in_sleeper/ && /hrtimer_nanosleep/ { t += $NF } END { print t }' off.folded) ns in nanosleep, expected about 1.5 s"; rc=1; }
	return $rc
}

# A service deadlocks: its CPU falls, a below rule fires, and its capture
# (off-CPU by default for a below rule) shows the two threads blocked for
# the whole window on their locks, though they blocked before it opened.
# Uses new_cgroup, drop_cgroup, write_global, start_daemon, stop_daemon,
# wait_for and has_captures from test_daemon.sh.
test_offcpu_below_rule_names_a_deadlock() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 pid cap t
	{
		write_global
		cat <<EOF2
[rule starved]
signal = cpu
cgroup = $CG_NAME
below = 5%
clear = 20%
for = 1s
duration = 2s
EOF2
	} >rules.ini
	start_bg pid "$WORKLOADS/deadlock" 2
	echo "$pid" >"$CG_DIR/cgroup.procs" || { fail "cannot move $pid into $CG_DIR"; drop_cgroup; return 1; }
	start_daemon || { drop_cgroup; return 1; }
	wait_for 20 has_captures 1 || { fail "the below rule did not fire: $(cat daemon.log)"; stop_daemon; drop_cgroup; return 1; }
	stop_daemon
	cap=$(ls spool/*.pb.zst | head -1)
	"$TRAPD" report "$cap" --view offcpu --folded off.folded >/dev/null 2>&1 || { fail "report $cap"; drop_cgroup; return 1; }
	python3 - "${cap%.pb.zst}.json" <<'PY' || { fail "sidecar: $(grep -A12 '"off_cpu"' "${cap%.pb.zst}.json")"; rc=1; }
import json, sys
d = json.load(open(sys.argv[1]))
w = d["off_cpu"]["waiting_at_start"]
sys.exit(not (w["counted"] >= 2 and d["off_cpu"]["ns"]["sleeping"] > 3e9))
PY
	for t in dl-a dl-b; do
		frames_of off.folded "$t" | grep -qx '__lll_lock_wait' ||
			{ fail "$t's off-CPU stack lacks the lock it waits on: $(grep "^$t" off.folded | head -3)"; rc=1; }
		frames_of off.folded "$t" | grep -qx 'futex_wait_\[k\]' ||
			{ fail "$t's off-CPU stack lacks the kernel's futex_wait: $(grep "^$t" off.folded | head -3)"; rc=1; }
		awk -v t="$t" 'index($0, t ";") == 1 { n += $NF } END { exit !(n > 1.8e9) }' off.folded ||
			{ fail "$t waited less than the 2 s window: $(grep "^$t" off.folded | head -3)"; rc=1; }
	done
	drop_cgroup
	return $rc
}
