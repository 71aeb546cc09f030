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
# in STATE, as go tool pprof reads the capture's state labels.
state_share() {
	go tool pprof -sample_index=off_cpu -tagfocus="comm=$2" -tags "$1" 2>/dev/null |
		awk -v s="$3" '
			/^ state:/ { in_state = 1; next }
			/^ [a-z]+:/ { in_state = 0 }
			in_state && $NF == s && match($0, /\( *[0-9.]+%\)/) {
				v = substr($0, RSTART + 1, RLENGTH - 3); gsub(/ /, "", v); print v; found = 1
			}
			END { if (!found) print 0 }'
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
	# Two spinners on one CPU each wait for it half the time: off the CPU,
	# each has half the time of a thread that waits throughout (w-pipe).
	thread_shares off.folded >off.shares
	for t in w-spin1 w-spin2; do
		share=$(awk -v s="$(share_of off.shares "$t")" -v p="$(share_of off.shares w-pipe)" \
			'BEGIN { if (p > 0) printf "%.2f", s / p; else print 0 }')
		within "$share" 0.5 0.1 ||
			{ fail "$t waited $share times as long as w-pipe, expected 0.5: $(cat off.shares)"; rc=1; }
	done
	# The stacks name where each waited.
	for want in w-pipe:wait_for_pipe w-disk:read_direct w-mutex:__lll_lock_wait \
		w-sleep:clock_nanosleep waiter:main w-spin1:spin; do
		frames_of off.folded "${want%%:*}" | grep -qx "${want#*:}" ||
			{ fail "${want%%:*}'s off-CPU stacks lack ${want#*:}: $(frames_of off.folded "${want%%:*}" | tr '\n' ' ')"; rc=1; }
	done
	frames_of off.folded w-mutex | grep -qx 'futex_wait_\[k\]' ||
		{ fail "w-mutex's off-CPU stacks lack the kernel's futex_wait"; rc=1; }
	# pprof readers see the third sample type, and cpu by default.
	go tool pprof -raw w.pb 2>/dev/null | grep -q 'samples/count cpu/nanoseconds\[dflt\] off_cpu/nanoseconds' ||
		{ fail "go tool pprof does not list off_cpu/nanoseconds with cpu the default: $(go tool pprof -raw w.pb 2>&1 | head -5)"; rc=1; }
	return $rc
}
