# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_control_safety.sh - the daemon's control socket against a local
# attacker: a directory others can write or own is refused at start, a
# symlink swapped in for the socket never changes its target, idle and
# dripping clients do not hold up rule evaluation or `trapd status`, and
# running out of file descriptors does not spin the daemon.
#
# Uses wait_for, start_daemon, stop_daemon, write_global, new_cgroup and
# drop_cgroup from test_daemon.sh.

# ctlsafe_rules SOCKET [KEY = VALUE...] - a rules file (./rules.ini) with
# its control socket at SOCKET and no rules.
ctlsafe_rules() {
	local sock=$1
	shift
	printf '[global]\npoll_interval = 250ms\nspool_dir = %s/spool\ncontrol_socket = %s\n' \
		"$PWD" "$sock" >rules.ini
	printf '%s\n' "$@" >>rules.ini
}

# ctlsafe_cpu_ticks PID - user + system CPU time of PID, in clock ticks.
ctlsafe_cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# ctlsafe_open_to_nobody - let nobody reach sockets in $PWD (the scratch
# directories are root's 0700).
ctlsafe_open_to_nobody() {
	chmod 755 "$PWD" "$(dirname "$PWD")"
}

# ctlsafe_write_attacker - ./ctlsafe_attacker.py SOCKET SECONDS IDLE DRIP:
# hold IDLE silent connections and DRIP that send one byte a second, each
# reopened as soon as the daemon closes it; prints how many times it had
# to reopen one.
ctlsafe_write_attacker() {
	cat >ctlsafe_attacker.py <<'EOF'
import socket, sys, time
path, seconds, n_idle, n_drip = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect(path)
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s
def closed(s):
    try:
        return s.recv(4096) == b''
    except BlockingIOError:
        return False
    except OSError:
        return True
socks = [None] * (n_idle + n_drip)
reopened, last_drip, end = 0, 0.0, time.time() + seconds
while time.time() < end:
    for i, s in enumerate(socks):
        if s is not None and closed(s):
            s.close()
            s = None
            reopened += 1
        if s is None:
            s = conn()
        socks[i] = s
    if time.time() - last_drip >= 1:
        last_drip = time.time()
        for s in socks[n_idle:]:
            if s is not None:
                try:
                    s.send(b's')
                except OSError:
                    pass
    time.sleep(0.05)
print(reopened)
EOF
	chmod 0644 ctlsafe_attacker.py
}

test_ctlsafe_loose_socket_directory_is_refused() {
	need_root_bpf || return
	local rc=0 err
	mkdir -m 0777 sockdir
	chmod 0777 sockdir
	ctlsafe_rules "$PWD/sockdir/ctl.sock"
	expect_status 2 "$TRAPD" daemon -c rules.ini --log stderr || rc=1
	err=$LAST_STDERR
	echo "$err" | grep -q "control socket directory $PWD/sockdir is owned by uid 0, mode 0777" ||
		{ fail "no clear message: $err"; rc=1; }
	echo "$err" | grep -q "chmod 0755 $PWD/sockdir" || { fail "no fix named: $err"; rc=1; }
	[ -e sockdir/ctl.sock ] && { fail "a socket was made in the loose directory"; rc=1; }

	chmod 0755 sockdir
	chown nobody sockdir
	expect_status 2 "$TRAPD" daemon -c rules.ini --log stderr || rc=1
	echo "$LAST_STDERR" | grep -q "sockdir is owned by uid 65534" ||
		{ fail "no clear message: $LAST_STDERR"; rc=1; }

	chown root sockdir
	"$TRAPD" daemon -c rules.ini --log stderr 2>>daemon.log &
	DAEMON=$!
	BG_PIDS+=("$DAEMON")
	wait_for 10 "$TRAPD" status -S sockdir/ctl.sock >/dev/null ||
		{ fail "did not start once fixed: $(cat daemon.log)"; rc=1; }
	stop_daemon
	[ -e sockdir/ctl.sock ] && { fail "socket left behind"; rc=1; }
	return $rc
}

# ctlsafe_start_once LOG - start the daemon on ./rules.ini and stop it as
# soon as it is up; its exit status (0: it was up).
ctlsafe_start_once() {
	local pid i
	"$TRAPD" daemon -c rules.ini --log stderr 2>"$1" &
	pid=$!
	for i in $(seq 200); do
		kill -0 "$pid" 2>/dev/null || break
		grep -q 'control socket /' "$1" && break
		sleep 0.01
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
}

# Daemon starts per attack (the unit test test_control_socket races the
# same code 2000 times without BPF in the way).
CTLSAFE_STARTS=${CTLSAFE_STARTS:-50}

# ctlsafe_write_swapper - ./ctlsafe_swapper.py NAME TARGET [any]: swap NAME
# for a symlink to TARGET, atomically, as fast as Python goes; only while
# NAME is a socket (the moment after bind) unless "any".
ctlsafe_write_swapper() {
	cat >ctlsafe_swapper.py <<'EOF'
import os, stat, sys
name, target, anytime = sys.argv[1], sys.argv[2], len(sys.argv) > 3
tmp = name + '.swap'
while True:
    try:
        if not anytime and not stat.S_ISSOCK(os.lstat(name).st_mode):
            continue
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.rename(tmp, name)
    except OSError:
        pass
EOF
	chmod 0644 ctlsafe_swapper.py
}

test_ctlsafe_symlink_swap_never_changes_the_target() {
	need_root_bpf || return
	local rc=0 i racer before after up=0 refused=0
	echo secret >root-only
	chmod 0600 root-only
	before=$(stat -c '%a %u:%g' root-only)
	ctlsafe_write_swapper

	# nobody, in a directory it may write: the daemon refuses to start
	mkdir sockdir
	chmod 0777 sockdir
	ctlsafe_open_to_nobody
	ctlsafe_rules "$PWD/sockdir/ctl.sock" 'control_group = nogroup'
	setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 ctlsafe_swapper.py \
		"$PWD/sockdir/ctl.sock" "$PWD/root-only" any &
	racer=$!
	BG_PIDS+=("$racer")
	for i in $(seq $CTLSAFE_STARTS); do
		ctlsafe_start_once start.log
		[ $? -eq 2 ] && refused=$((refused + 1))
	done
	kill "$racer"
	[ "$refused" -eq $CTLSAFE_STARTS ] ||
		{ fail "started $((CTLSAFE_STARTS - refused)) times in a 0777 directory"; rc=1; }
	grep -q "sockdir is owned by uid 0, mode 0777" start.log || { fail "$(cat start.log)"; rc=1; }

	# the worst case: a swap inside root's directory (a root process, or a
	# bug) the moment the socket appears: no chmod or chown may follow it
	rm -rf sockdir
	mkdir -m 0755 sockdir
	/usr/bin/python3 ctlsafe_swapper.py "$PWD/sockdir/ctl.sock" "$PWD/root-only" &
	racer=$!
	BG_PIDS+=("$racer")
	for i in $(seq $CTLSAFE_STARTS); do
		ctlsafe_start_once start.log
		grep -q 'control socket /' start.log && up=$((up + 1))
		rm -f sockdir/ctl.sock
	done
	kill "$racer"
	after=$(stat -c '%a %u:%g' root-only)
	echo "    target $before -> $after; root swapper: $up of $CTLSAFE_STARTS starts got up"
	[ "$after" = "$before" ] || { fail "the root-only file changed: $before -> $after"; rc=1; }
	[ "$(cat root-only)" = secret ] || { fail "the root-only file's content changed"; rc=1; }
	return $rc
}

# ctlsafe_fires - how many times rule toggler has fired so far.
ctlsafe_fires() {
	grep -c 'rule toggler fired' daemon.log
}

ctlsafe_has_fired() {
	[ "$(ctlsafe_fires)" -ge 1 ]
}

test_ctlsafe_slow_clients_do_not_stall_rules_or_status() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 attacker t0 t1 ms worst=0 slow=0 fails=0 n=0 fires last_fires last_t gap maxgap=0
	local start_fires now reopened
	cp "$WORKLOADS/burner" ./ctlsafe_burner
	{
		write_global 'control_group = nogroup' 'dry_run = true' \
			'max_captures_per_hour = 1000' 'max_captures_per_day = 1000'
		cat <<EOF
[rule toggler]
signal = cpu
cgroup = $CG_NAME
above = 30%
clear = 10%
cooldown = 0
EOF
	} >rules.ini
	# busy a second, idle a second: the rule fires every ~2 s
	start_bg toggler bash -c 'while :; do ./ctlsafe_burner 1; sleep 1; done'
	echo "$toggler" >"$CG_DIR/cgroup.procs"
	ctlsafe_open_to_nobody
	start_daemon || { drop_cgroup; return 1; }
	wait_for 10 ctlsafe_has_fired || { fail "the rule never fired: $(cat daemon.log)"; rc=1; }

	ctlsafe_write_attacker
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		/usr/bin/python3 ctlsafe_attacker.py "$PWD/ctl.sock" 14 20 5 >attacker.out 2>&1 &
	attacker=$!
	BG_PIDS+=("$attacker")
	sleep 1
	start_fires=$(ctlsafe_fires)
	last_fires=$start_fires
	last_t=$(date +%s%N)
	while [ $n -lt 24 ]; do
		t0=$(date +%s%N)
		"$TRAPD" status -S ctl.sock >/dev/null 2>status.err || fails=$((fails + 1))
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		[ $ms -gt $worst ] && worst=$ms
		[ $ms -ge 1000 ] && slow=$((slow + 1))
		fires=$(ctlsafe_fires)
		now=$(date +%s%N)
		if [ "$fires" -gt "$last_fires" ]; then
			last_fires=$fires
			last_t=$now
		fi
		gap=$(((now - last_t) / 1000000))
		[ $gap -gt $maxgap ] && maxgap=$gap
		n=$((n + 1))
		sleep 0.5
	done
	wait "$attacker"
	reopened=$(tail -1 attacker.out)
	fires=$(($(ctlsafe_fires) - start_fires))
	echo "    $n status calls: worst ${worst} ms, $slow >= 1 s, $fails failed; $fires fires," \
		"longest gap ${maxgap} ms; the attacker had to reopen $reopened connections"
	[ "$fails" -eq 0 ] || { fail "trapd status failed $fails times: $(cat status.err)"; rc=1; }
	[ "$slow" -eq 0 ] || { fail "trapd status took ${worst} ms"; rc=1; }
	[ "$fires" -ge 4 ] || { fail "the rule fired $fires times in ~15 s under attack"; rc=1; }
	[ "$maxgap" -le 4500 ] || { fail "no fire for ${maxgap} ms under attack"; rc=1; }
	[ "${reopened:-0}" -gt 25 ] || { fail "connections were not closed at their deadline: $(cat attacker.out)"; rc=1; }
	kill -0 "$DAEMON" || { fail "the daemon died"; rc=1; }
	stop_daemon
	drop_cgroup
	return $rc
}

test_ctlsafe_out_of_fds_backs_off_without_spinning() {
	need_root_bpf || return
	local rc=0 nfd hard attacker c0 c1 l0 l1 cpu lines ticks
	write_global >rules.ini
	start_daemon || return 1
	# the lowest free fd: a limit there leaves the daemon none to accept with
	nfd=$(ls "/proc/$DAEMON/fd" | sort -n | awk '$1 != NR - 1 { print NR - 1; f = 1; exit }
		END { if (!f) print NR }')
	hard=$(prlimit --pid "$DAEMON" --nofile --noheadings --output HARD)
	prlimit --pid "$DAEMON" --nofile="$nfd:$hard" || { fail "prlimit"; return 1; }
	/usr/bin/python3 -c '
import socket, sys, time
socks = []
for i in range(200):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(0.2)
    try:
        s.connect(sys.argv[1]); s.send(b"status\n"); socks.append(s)
    except OSError:
        s.close()
time.sleep(30)' "$PWD/ctl.sock" &
	attacker=$!
	BG_PIDS+=("$attacker")
	sleep 2
	ticks=$(getconf CLK_TCK)
	c0=$(ctlsafe_cpu_ticks "$DAEMON")
	l0=$(wc -l <daemon.log)
	sleep 5
	c1=$(ctlsafe_cpu_ticks "$DAEMON")
	l1=$(wc -l <daemon.log)
	cpu=$(((c1 - c0) * 100 / (5 * ticks)))
	lines=$((l1 - l0))
	echo "    out of fds: ${cpu}% CPU over 5 s, $lines log lines"
	grep -q 'cannot accept connections: Too many open files' daemon.log ||
		{ fail "the daemon never ran out of fds: $(tail -5 daemon.log)"; rc=1; }
	[ "$cpu" -lt 20 ] || { fail "${cpu}% CPU while out of fds"; rc=1; }
	[ "$lines" -lt 100 ] || { fail "$lines log lines in 5 s: $(tail -3 daemon.log)"; rc=1; }
	kill "$attacker"
	wait "$attacker" 2>/dev/null
	prlimit --pid "$DAEMON" --nofile="$hard:$hard"
	wait_for 10 "$TRAPD" status -S ctl.sock >/dev/null ||
		{ fail "no status once fds were free: $(tail -5 daemon.log)"; rc=1; }
	kill -0 "$DAEMON" || { fail "the daemon died"; rc=1; }
	stop_daemon
	return $rc
}
