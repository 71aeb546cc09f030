# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_loop_bounds.sh - what a hostile target can make one capture cost
# the daemon: many processes linking huge perf maps, and a library whose
# .gnu_debuglink names a 2 GiB sparse file. The window must still close
# on time, `trapd status` must answer within a second throughout, the
# symbolization budget must refuse the excess and say so, and the
# daemon's memory must stay bounded.

LOOPB_PROCS=10

# loopb_make_bigmap FILE - a 64 MiB perf map: 1 M lines of "START SIZE NAME".
loopb_make_bigmap() {
	/usr/bin/python3.11 - "$1" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    line = 0
    out = []
    size = 0
    while size < 64 << 20:
        s = "%x 10 hostile_jit_symbol_number_%08d_padding_padding\n" % (0x7f0000000000 + line * 16, line)
        out.append(s)
        size += len(s)
        line += 1
        if len(out) == 65536:
            f.write("".join(out))
            out = []
    f.write("".join(out))
PY
}

# loopb_make_sparse_lib DIR - DIR/libsparse.so: stripped, no build ID, a
# .gnu_debuglink to DIR/libsparse.debug, which is an ELF header followed
# by a 2 GiB hole (its CRC would read all of it).
loopb_make_sparse_lib() {
	local d=$1
	cat >"$d/sparse.c" <<'C'
volatile unsigned long sparse_sink;
void sparse_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sparse_sink += i;
}
C
	gcc -shared -fPIC -O1 -Wl,--build-id=none -o "$d/libsparse.so" "$d/sparse.c" &&
		objcopy --only-keep-debug "$d/libsparse.so" "$d/libsparse.debug" &&
		strip --strip-all "$d/libsparse.so" &&
		objcopy --add-gnu-debuglink="$d/libsparse.debug" "$d/libsparse.so" &&
		truncate -s 2G "$d/libsparse.debug"
}

# loopb_hostile_procs DIR - LOOPB_PROCS processes as nobody, each with an
# executable anonymous mapping (JIT code to trapd) and the 64 MiB map
# hard-linked as its own /tmp/perf-PID.map, and each calling into
# libsparse.so now and then.
loopb_hostile_procs() {
	local d=$1 i p
	for i in $(seq "$LOOPB_PROCS"); do
		start_bg p setpriv --reuid=nobody --regid=nogroup --clear-groups \
			/usr/bin/python3.11 -c '
import ctypes, mmap, os, sys, time
lib = ctypes.CDLL(sys.argv[1] + "/libsparse.so")
code = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                 prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
os.link(sys.argv[1] + "/big.map", "/tmp/perf-%d.map" % os.getpid())
while True:
    lib.sparse_spin(200000)
    time.sleep(0.04)
' "$d"
		LOOPB_PIDS+=("$p")
	done
}

# loopb_cleanup - stop the hostile processes (not the daemon) and remove
# their perf maps.
loopb_cleanup() {
	local p
	for p in "${LOOPB_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		rm -f "/tmp/perf-$p.map"
	done
}

# loopb_status_ms - how long one `trapd status` takes, in ms (9999: failed).
loopb_status_ms() {
	local t0 t1
	t0=$(date +%s%N)
	timeout 5 "$TRAPD" status -S ctl.sock >/dev/null 2>&1 || { echo 9999; return; }
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

test_loop_bounds_hostile_targets_window_on_time() {
	need_root_bpf || return
	[ -x /usr/bin/python3.11 ] || { skip "needs Debian's python3.11"; return; }
	command -v setpriv >/dev/null || { skip "needs setpriv"; return; }
	local rc=0 d=$PWD/hostile worst=0 ms n=0 cap rss
	LOOPB_PIDS=()
	mkdir -p "$d" && chmod 0755 "$d"
	loopb_make_sparse_lib "$d" || { fail "cannot build libsparse.so"; return 1; }
	loopb_make_bigmap "$d/big.map" || { fail "cannot write the perf map"; return 1; }
	chown nobody:nogroup "$d/big.map"
	{
		write_global 'manual_duration = 2s' 'manual_frequency = 199Hz' 'manual_sample = system' \
			'symbolize_max_perf_maps = 32MiB'
		printf '[rule quiet]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 1s\n'
	} >rules.ini
	start_daemon || return 1
	loopb_hostile_procs "$d"
	sleep 1
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm failed"; rc=1; }
	# status every 0.2 s until the capture is written (60 s at most)
	while [ "$n" -lt 300 ] && ! has_captures 1; do
		ms=$(loopb_status_ms)
		[ "$ms" -gt "$worst" ] && worst=$ms
		n=$((n + 1))
		sleep 0.2
	done
	loopb_cleanup
	has_captures 1 || { fail "no capture within 60 s: $(tail -5 daemon.log)"; rc=1; }
	[ "$worst" -lt 1000 ] || { fail "trapd status took $worst ms"; rc=1; }
	echo "    status answered within $worst ms at worst ($n calls)"
	cap=$(ls spool/*.json | head -1)
	/usr/bin/python3.11 - "$cap" <<'PY' || rc=1
import json, sys
m = json.load(open(sys.argv[1]))
w, b = m["window"], m["symbols"]["budget"]
print("    window %.3f s, late %.1f ms, %s; budget used %s, refused %s" % (
    w["duration_ns"] / 1e9, w["late_ns"] / 1e6, w["end_reason"], b["used"], b["refused"]))
ok = True
if not 1.8e9 <= w["duration_ns"] <= 2.2e9 or w["end_reason"] != "duration":
    print("    FAIL: the window did not close on time", file=sys.stderr); ok = False
if not b["hit"] or b["refused"]["perf_map_bytes"] < 1:
    print("    FAIL: the perf maps were not refused past the budget", file=sys.stderr); ok = False
if b["refused"]["bytes"] < 1:
    print("    FAIL: the sparse debug file was not refused", file=sys.stderr); ok = False
if b["limits"]["perf_map_bytes"] != 32 << 20:
    print("    FAIL: [global] symbolize_max_perf_maps not applied", file=sys.stderr); ok = False
if b["used"]["perf_map_bytes"] > b["limits"]["perf_map_bytes"]:
    print("    FAIL: perf maps read past the budget", file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
PY
	rss=$(awk '/^VmHWM/ { print $2 }' "/proc/$DAEMON/status")
	echo "    daemon peak RSS ${rss} kB"
	[ "${rss:-0}" -lt 500000 ] || { fail "daemon peak RSS ${rss} kB"; rc=1; }
	stop_daemon
	return $rc
}
