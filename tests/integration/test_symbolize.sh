# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_symbolize.sh - symbolization where services live: JIT code named
# from the runtime's perf map, also from inside a mount and pid
# namespace of its own; binaries only a container can see, deleted
# binaries, and two containers with different binaries at one path.

# A hot JavaScript function, for node --perf-basic-prof -e. V8 buffers
# what it writes to its perf map, so after a warm-up the script compiles
# a few thousand small functions: their lines push the hot code's out of
# the buffer, as a real service's steady stream of compiles would.
NODE_HOT_JS='function trapdHotLoop(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
function trapdSpin(ms) { const end = Date.now() + ms; let s = 0; while (Date.now() < end) s += trapdHotLoop(100000); return s; }
trapdSpin(800);
for (let i = 0; i < 3000; i++) (new Function("x", "return x + " + i))(i);
trapdSpin(8000);'

need_node() {
	command -v node >/dev/null || { skip "needs node"; return 77; }
}

# With --perf-basic-prof, node (V8 11) also writes a V8 log,
# isolate-ADDR-PID-v8.log, in its working directory: name it, one file
# in the test's own directory (node runs in it; a relative name still
# reaches it under the namespace test's fresh /tmp).
NODE_V8_LOG='--no-logfile-per-isolate --logfile=v8.log'

# hot_js_share FILE - percentage of the capture's samples whose leaf is
# trapdHotLoop, or trapdSpin with trapdHotLoop inlined into it, as the
# perf map names them.
hot_js_share() {
	"$TRAPD" report "$1" --folded "$1.folded" >/dev/null 2>&1 || { echo 0; return; }
	awk '{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		if (f[k] ~ /^JS:.*trapd(HotLoop|Spin)/) h += n }
		END { printf "%d", t ? 100 * h / t : 0 }' "$1.folded"
}

# expect_hot_js PID WHERE - a 2 s capture of PID has at least 70 % of its
# samples in the hot JavaScript, named from the perf map at WHERE.
expect_hot_js() {
	local share
	"$TRAPD" capture -p "$1" -d 2 -F 199 -o out.pb.zst >out.log 2>&1 ||
		{ fail "trapd capture failed: $(cat out.log)"; return 1; }
	share=$(hot_js_share out.pb.zst)
	echo "    samples in trapdHotLoop, named from $2: $share %"
	[ "$share" -ge 70 ] ||
		{ fail "only $share % of samples named trapdHotLoop: $(head -20 out.pb.zst.folded)"; return 1; }
}

test_symbolize_node_jit_from_its_perf_map() {
	need_root_bpf || return
	need_node || return
	local rc=0 pid
	# shellcheck disable=SC2086 # two options
	start_bg pid node --perf-basic-prof $NODE_V8_LOG -e "$NODE_HOT_JS"
	sleep 2
	expect_hot_js "$pid" "/tmp/perf-$pid.map" || rc=1
	rm -f "/tmp/perf-$pid.map"
	return $rc
}

# The map exists only in the namespace's own /tmp, named with the pid the
# process has there (1), not the host's.
test_symbolize_jit_inside_mount_and_pid_namespace() {
	need_root_bpf || return
	need_node || return
	local pid i rc
	unshare --mount --pid --fork --mount-proc sh -c \
		'mount -t tmpfs tmpfs /tmp && exec node --perf-basic-prof $1 -e "$0"' "$NODE_HOT_JS" \
		"$NODE_V8_LOG" >ns.log 2>&1 &
	BG_PIDS+=("$!")
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pid=$(pgrep -n -f 'node --perf-basic-prof .*-e function trapdHotLoop')
		[ -n "$pid" ] && [ -r "/proc/$pid/root/tmp/perf-1.map" ] && break
		sleep 0.3
	done
	[ -n "$pid" ] || { fail "node did not start in its namespace: $(cat ns.log)"; return 1; }
	grep -q 'NSpid:.*[[:space:]]1$' "/proc/$pid/status" ||
		{ fail "node is not pid 1 of its namespace: $(grep NSpid "/proc/$pid/status")"; return 1; }
	[ ! -e "/tmp/perf-$pid.map" ] && [ ! -e /tmp/perf-1.map ] ||
		{ fail "the perf map is visible on the host: the test proves nothing"; return 1; }
	sleep 1.5
	expect_hot_js "$pid" "the namespace's /tmp/perf-1.map"
	rc=$?
	# Init of its pid namespace: only SIGKILL reaches it from here.
	kill -KILL "$pid"
	return $rc
}

# The spin workloads (tests/workloads/symtest/spin.c): the same code built
# twice, its hot function named spin_alpha_hot in one, spin_beta_hot in the
# other, at the same address in both.
SPIN_ALPHA=$WORKLOADS/symtest/spin-alpha
SPIN_BETA=$WORKLOADS/symtest/spin-beta

need_spin() {
	[ -x "$SPIN_ALPHA" ] && [ -x "$SPIN_BETA" ] ||
		{ fail "no $SPIN_ALPHA or $SPIN_BETA: make integration builds them"; return 1; }
}

# capture_folded ARGS... - trapd capture ARGS for 2 s into out.pb.zst, then
# its folded stacks into out.folded.
capture_folded() {
	"$TRAPD" capture "$@" -d 2 -F 199 -o out.pb.zst >out.log 2>&1 ||
		{ fail "trapd capture $* failed: $(cat out.log)"; return 1; }
	"$TRAPD" report out.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "trapd report failed"; return 1; }
}

# expect_spin_named COMM HOT OTHER - of out.folded's samples of process
# COMM, at least 90 % have HOT as their leaf and none has OTHER anywhere:
# its own binary named them, not the other one.
expect_spin_named() {
	local counts total hot other share
	counts=$(awk -v c="$1" -v h="$2" -v o="$3" '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		if (f[1] != c) next
		t += n
		if (f[k] == h) hit += n
		for (i = 2; i <= k; i++) if (f[i] == o) { bad += n; break }
	} END { printf "%d %d %d", t, hit, bad }' out.folded)
	read -r total hot other <<<"$counts"
	share=$((total ? 100 * hot / total : 0))
	echo "    $1: $share % of $total samples in $2, $other in $3"
	[ "$total" -gt 0 ] || { fail "no samples of $1: $(head -5 out.folded)"; return 1; }
	[ "$other" -eq 0 ] || { fail "$1 named from the other binary: $(grep "$3" out.folded | head -5)"; return 1; }
	[ "$share" -ge 90 ] || { fail "only $share % of $1's samples in $2: $(grep "^$1;" out.folded | head -10)"; return 1; }
}

# wait_comm PID COMM - wait up to 3 s for PID to run as COMM (its exec and
# prctl done).
wait_comm() {
	local i
	for i in $(seq 30); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	fail "process $1 never ran as $2"
}

# child_of PID - the first child of PID (unshare's), once it has one
# (up to 3 s).
child_of() {
	local i
	for i in $(seq 30); do
		pgrep -P "$1" && return 0
		sleep 0.1
	done
	return 1
}

# The binary is on a tmpfs mounted inside the process's own mount
# namespace; at the same path the host has the other build, so a
# symbolizer that opened the host path names spin_beta_hot.
test_symbolize_binary_only_inside_mount_and_pid_namespace() {
	need_root_bpf || return
	need_spin || return
	local upid pid rc
	mkdir ns && cp "$SPIN_BETA" ns/spin || { fail "cannot set up ns/spin"; return 1; }
	unshare --mount --pid --fork --mount-proc sh -c \
		'mount -t tmpfs tmpfs "$1" && cp "$2" "$1/spin" && exec "$1/spin" 20 ns-spin' \
		sh "$PWD/ns" "$SPIN_ALPHA" >ns.log 2>&1 &
	upid=$!
	BG_PIDS+=("$upid")
	pid=$(child_of "$upid") || { fail "no process in the namespace: $(cat ns.log)"; return 1; }
	# Init of its pid namespace: only SIGKILL reaches it from here, and
	# unshare (killed by kill_bg) waits for it.
	ns_spin_expect "$pid"
	rc=$?
	kill -KILL "$pid"
	return $rc
}

# ns_spin_expect PID - PID runs spin-alpha as pid 1 of its namespace while
# the host's ns/spin is spin-beta; a capture of it names spin_alpha_hot.
ns_spin_expect() {
	wait_comm "$1" ns-spin || return 1
	grep -q 'NSpid:.*[[:space:]]1$' "/proc/$1/status" ||
		{ fail "spin is not pid 1 of its namespace: $(grep NSpid "/proc/$1/status")"; return 1; }
	cmp -s "/proc/$1/exe" "$SPIN_ALPHA" && cmp -s ns/spin "$SPIN_BETA" ||
		{ fail "the host sees the namespace's binary: the test proves nothing"; return 1; }
	capture_folded -p "$1" || return 1
	expect_spin_named ns-spin spin_alpha_hot spin_beta_hot
}

# Deleted while it runs: only /proc/PID/map_files still reaches the file.
test_symbolize_binary_deleted_after_start() {
	need_root_bpf || return
	need_spin || return
	local pid
	cp "$SPIN_ALPHA" spin-deleted || { fail "cannot copy $SPIN_ALPHA"; return 1; }
	start_bg pid "$PWD/spin-deleted" 20
	wait_comm "$pid" spin-deleted || return 1
	rm spin-deleted
	grep -q 'spin-deleted (deleted)$' "/proc/$pid/maps" ||
		{ fail "the mapping is not marked deleted: $(grep spin "/proc/$pid/maps")"; return 1; }
	capture_folded -p "$pid" || return 1
	expect_spin_named spin-deleted spin_alpha_hot spin_beta_hot
}

# Two mount namespaces, each with its own tmpfs at same/ (empty on the
# host) holding a different build as same/spin: one capture of a cgroup
# holding both names each from its own file, not from whichever was read
# first. v2_root and cleanup_cgroup are test_cgroup.sh's.
test_symbolize_same_path_in_two_mount_namespaces() {
	need_root_bpf || return
	need_spin || return
	local root name rc
	root=$(v2_root)
	[ -n "$root" ] || { skip "no cgroup v2 hierarchy"; return; }
	name=trapd-it-same-$$
	mkdir -p "$root/$name" || { skip "cannot create $root/$name"; return 77; }
	same_path_expect "$root/$name" "$name"
	rc=$?
	cleanup_cgroup "$root/$name"
	return $rc
}

# same_path_expect DIR NAME - start both spins, move them into cgroup DIR
# (NAME below the v2 root), capture it and check both.
same_path_expect() {
	local a b
	local run='mount -t tmpfs tmpfs "$1" && cp "$2" "$1/spin" && exec "$1/spin" 20 "$3"'
	mkdir same || { fail "cannot create same/"; return 1; }
	start_bg a unshare --mount sh -c "$run" sh "$PWD/same" "$SPIN_ALPHA" same-alpha
	start_bg b unshare --mount sh -c "$run" sh "$PWD/same" "$SPIN_BETA" same-beta
	echo "$a" >"$1/cgroup.procs" && echo "$b" >"$1/cgroup.procs" ||
		{ fail "cannot move $a and $b into $1"; return 1; }
	wait_comm "$a" same-alpha && wait_comm "$b" same-beta || return 1
	[ ! -e same/spin ] && cmp -s "/proc/$a/exe" "$SPIN_ALPHA" && cmp -s "/proc/$b/exe" "$SPIN_BETA" ||
		{ fail "the binaries are not where the test put them"; return 1; }
	capture_folded -g "$2" || return 1
	expect_spin_named same-alpha spin_alpha_hot spin_beta_hot || return 1
	expect_spin_named same-beta spin_beta_hot spin_alpha_hot
}

# A leaf gcc built without its own frame (spin_alpha_hot pushes no %rbp,
# checked below): the frame-pointer walk alone gives
# __libc_start_call_main;spin_alpha_hot. The caller found on the stack and
# proven by its call instruction puts main back in between.
test_symbolize_frameless_leaf_shows_its_caller() {
	need_root_bpf || return
	need_spin || return
	local first share
	first=$(objdump -d --no-show-raw-insn "$SPIN_ALPHA" |
		awk '/<spin_alpha_hot>:$/ { getline; sub(/^[^:]*:[ \t]*/, ""); print; exit }')
	case $first in
	push*%rbp*) fail "spin_alpha_hot sets up a frame ($first): the test proves nothing"; return 1 ;;
	esac
	"$TRAPD" capture -d 2 -F 199 -o out.pb.zst -- "$SPIN_ALPHA" 2 >out.log 2>&1 ||
		{ fail "trapd capture failed: $(cat out.log)"; return 1; }
	"$TRAPD" report out.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "trapd report failed"; return 1; }
	share=$(awk '{ n = $NF; t += n; if ($0 ~ /;main;spin_alpha_hot [0-9]+$/) hit += n }
		END { print t ? int(100 * hit / t) : 0 }' out.folded)
	echo "    $share % of samples are main;spin_alpha_hot (first instruction: $first)"
	[ "$share" -ge 90 ] || { fail "only $share %: $(sort -k2 -nr out.folded | head -5)"; return 1; }
	python3 - out.json <<'PY' || { fail "leaf_callers in the sidecar: $(grep -A6 leaf_callers out.json)"; return 1; }
import json, sys
leaf = json.load(open(sys.argv[1]))["leaf_callers"]
print("    leaf_callers:", leaf)
assert leaf["recovered"] >= 0.9 * sum(leaf.values()), leaf
PY
}

# sidecar_mapping JSON PATH_SUFFIX KEY - KEY of the symbols.mappings entry
# whose path ends in PATH_SUFFIX.
sidecar_mapping() {
	python3 - "$@" <<'PY'
import json, sys
doc, suffix, key = sys.argv[1:]
for m in json.load(open(doc))["symbols"]["mappings"]:
    if m["path"].endswith(suffix):
        print(m.get(key, ""))
        break
PY
}

# A stripped binary (spin-gamma: no symbols but its build ID) whose debug
# file is in the .build-id tree of its own container only: a tmpfs over
# /usr/lib/debug in its mount namespace. trapd, on the host, finds it
# through the process's root.
test_symbolize_stripped_binary_with_build_id_debug_file() {
	need_root_bpf || return
	local gamma=$WORKLOADS/symtest/spin-gamma bid pid upid
	[ -x "$gamma" ] || { fail "no $gamma: make integration builds it"; return 1; }
	bid=$(readelf -n "$gamma" | awk '/Build ID/ { print $3 }')
	[ -n "$bid" ] || { fail "$gamma has no build ID"; return 1; }
	[ ! -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] ||
		{ fail "the host has the debug file: the test proves nothing"; return 1; }
	unshare --mount --fork sh -c 'mount -t tmpfs tmpfs /usr/lib/debug &&
		mkdir -p "/usr/lib/debug/.build-id/$1" && cp "$2" "/usr/lib/debug/.build-id/$1/$3.debug" &&
		exec "$4" 20 gamma-spin' sh "${bid:0:2}" "$gamma.debug" "${bid:2}" "$gamma" >ns.log 2>&1 &
	upid=$!
	BG_PIDS+=("$upid")
	pid=$(child_of "$upid") || { fail "no process in the namespace: $(cat ns.log)"; return 1; }
	wait_comm "$pid" gamma-spin || return 1
	capture_folded -p "$pid" || return 1
	kill -KILL "$pid"
	expect_spin_named gamma-spin spin_gamma_hot spin_alpha_hot || return 1
	[ "$(sidecar_mapping out.json /spin-gamma source)" = "debug file" ] &&
		[ "$(sidecar_mapping out.json /spin-gamma debug_file)" = \
			"root:/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] ||
		{ fail "sidecar: $(grep -B2 -A6 spin-gamma out.json)"; return 1; }
}

# A stripped binary without a build ID (spin-delta), its debug file named
# by .gnu_debuglink and found, checked by CRC, in trapd's own
# /usr/lib/debug/DIR (trapd runs in a mount namespace of its own where that
# exists; the process's root has no debug file).
test_symbolize_stripped_binary_with_debuglink() {
	need_root_bpf || return
	local pid dir=$PWD
	cp "$WORKLOADS/symtest/spin-delta" . || { fail "cannot copy spin-delta"; return 1; }
	start_bg pid "$dir/spin-delta" 20
	wait_comm "$pid" spin-delta || return 1
	unshare --mount sh -c 'mount -t tmpfs tmpfs /usr/lib/debug &&
		mkdir -p "/usr/lib/debug$1" && cp "$2" "/usr/lib/debug$1/" &&
		exec "$3" capture -p "$4" -d 2 -F 199 -o out.pb.zst' sh "$dir" \
		"$WORKLOADS/symtest/spin-delta.debug" "$TRAPD" "$pid" >out.log 2>&1 ||
		{ fail "trapd capture failed: $(cat out.log)"; return 1; }
	"$TRAPD" report out.pb.zst --folded out.folded >/dev/null 2>&1 || { fail "report failed"; return 1; }
	expect_spin_named spin-delta spin_delta_hot spin_alpha_hot || return 1
	[ "$(sidecar_mapping out.json /spin-delta debug_file)" = \
		"host:/usr/lib/debug$dir/spin-delta.debug" ] ||
		{ fail "sidecar: $(grep -B2 -A6 spin-delta out.json)"; return 1; }
}

# The daemon keeps symbol tables between captures: a second capture of
# the same process reads no ELF file again; with symbol_cache = 0 it does.
test_symbolize_daemon_keeps_symbols_between_captures() {
	need_root_bpf || return
	local pid first second
	cp "$SPIN_ALPHA" ./cached-spin
	start_bg pid "$PWD/cached-spin" 30
	wait_comm "$pid" cached-spin || return 1
	cache_run "$pid" 16MiB || return 1
	read -r first second <<<"$CACHE_LOADED"
	echo "    symbol_cache = 16MiB: files loaded $first, then $second; cached then: $CACHE_CACHED"
	[ "$first" -ge 2 ] && [ "$second" -eq 0 ] && [ "${CACHE_CACHED#* }" -ge 2 ] ||
		{ fail "the second capture loaded files again"; return 1; }
	grep -q '"loads": [1-9]' status.json && grep -q '"hits": [1-9]' status.json ||
		{ fail "trapd status: $(grep -A8 symbol_cache status.json)"; return 1; }
	cache_run "$pid" 0 || return 1
	read -r first second <<<"$CACHE_LOADED"
	echo "    symbol_cache = 0: files loaded $first, then $second"
	[ "$second" -ge 2 ] || { fail "nothing was loaded again without a cache"; return 1; }
}

# cache_run PID SIZE - a daemon with symbol_cache = SIZE, two manual
# captures of PID; CACHE_LOADED and CACHE_CACHED get each capture's
# files_loaded and files_cached; status.json is trapd status --json.
cache_run() {
	local f
	rm -rf spool
	{
		write_global 'manual_duration = 500ms' "manual_sample = pid:$1" "symbol_cache = $2"
		printf '[rule quiet]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 1s\n'
	} >rules.ini
	start_daemon || return 1
	"$TRAPD" arm -S ctl.sock >/dev/null && wait_for 10 has_captures 1 &&
		"$TRAPD" arm -S ctl.sock >/dev/null && wait_for 10 has_captures 2 ||
		{ fail "two manual captures: $(cat daemon.log)"; stop_daemon; return 1; }
	"$TRAPD" status --json -S ctl.sock >status.json
	stop_daemon
	CACHE_LOADED= CACHE_CACHED=
	for f in $(ls -tr spool/*.json); do
		CACHE_LOADED+="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["symbols"]["files_loaded"])' "$f") "
		CACHE_CACHED+="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["symbols"]["files_cached"])' "$f") "
	done
	CACHE_CACHED=${CACHE_CACHED% }
}

# A libc leaf reached through the PLT (libleaf: measure -> strlen@plt ->
# glibc's IFUNC-chosen strlen, frameless): the call on the stack goes to
# the PLT stub, whose GOT slot holds the leaf's start, which proves
# measure is the caller.
test_symbolize_library_leaf_through_plt_shows_its_caller() {
	need_root_bpf || return
	local share
	"$TRAPD" capture -d 2 -F 199 -o out.pb.zst -- "$WORKLOADS/libleaf" 2 >out.log 2>&1 ||
		{ fail "trapd capture failed: $(cat out.log)"; return 1; }
	"$TRAPD" report out.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "trapd report failed"; return 1; }
	share=$(awk '{ n = $NF; t += n; if ($0 ~ /;main;measure;__?strlen[a-z0-9_]* [0-9]+$/) hit += n }
		END { print t ? int(100 * hit / t) : 0 }' out.folded)
	echo "    $share % of samples are main;measure;strlen*: $(sort -k2 -nr out.folded | head -1)"
	[ "$share" -ge 85 ] || { fail "only $share %: $(sort -k2 -nr out.folded | head -5)"; return 1; }
}

# Finding: pid reuse named a victim's samples with the attacker's code.
# Processes were known by their pid alone: a short-lived victim's pid,
# taken by another process within the window (32,000 forks, here made
# quick with ns_last_pid), had the victim's samples named from the new
# process's maps, which an attacker can lay over the addresses where the
# victim's code was. Each life of a pid has its own maps, and /proc is
# read only while the life it is read for lasts. As nobody, in both
# unwinding modes.
test_symbolize_pid_reuse_keeps_each_lifes_names() {
	need_root_bpf || return
	local rc=0 mode
	cat >taker.py <<'PY'
# take the dead victim's pid, become nobody, map libc's code over the
# addresses the victim's code had, spin in a function of our own
import ctypes, mmap, os, sys, time
victim, start, end, cover = int(sys.argv[1]), int(sys.argv[2], 16), int(sys.argv[3], 16), sys.argv[4]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
def taker_spins_here():
    t = time.time() + 3
    while time.time() < t:
        pass
for _ in range(200):
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(victim - 1))
    pid = os.fork()
    if pid == 0:
        if os.getpid() == victim:
            os.setgid(65534)
            os.setuid(65534)
            fd = os.open(cover, os.O_RDONLY)
            n = min(end - start, os.fstat(fd).st_size & ~4095)
            libc.mmap(start, n, mmap.PROT_READ | mmap.PROT_EXEC, mmap.MAP_PRIVATE | 0x100000, fd, 0)
            taker_spins_here()
        os._exit(0)
    os.waitpid(pid, 0)
    if pid == victim:
        sys.exit(0)
sys.exit("never got pid %d" % victim)
PY
	cat >reuse.sh <<SH
#!/bin/bash
"$WORKLOADS/burner" 1.5 >/dev/null &
victim=\$!
sleep 0.5
range=\$(awk '/r-xp/ && /burner/ { print \$1; exit }' /proc/\$victim/maps)
libc=\$(awk '/r-xp/ && /libc[.-]/ { print \$6; exit }' /proc/\$victim/maps)
wait \$victim
exec /usr/bin/python3 taker.py \$victim \${range%-*} \${range#*-} "\$libc"
SH
	chmod +x reuse.sh
	for mode in dwarf fp; do
		(sleep 0.3; ./reuse.sh >reuse-$mode.log 2>&1) &
		capture_into $mode -a -d 5s --unwind "$mode" || { wait; rc=1; continue; }
		wait
		grep -q "never got" reuse-$mode.log && { fail "$mode: $(cat reuse-$mode.log)"; rc=1; continue; }
		set -- $(awk '{ n = $NF; split($0, f, ";")
			if (f[1] == "burner") { b += n; if (index($0, ";burn_60;")) v += n }
			if (f[1] == "python3" && index($0, ";taker_spins_here")) t += n }
			END { print b + 0, v + 0, t + 0 }' $mode.folded)
		echo "   $mode: the victim's $1 samples, $2 in burn_60; the taker's in taker_spins_here: $3" >&2
		# burn_60 is 60 % of burner's work; the taker ran its function for 3 s
		[ "$1" -ge 50 ] && [ $(($2 * 100)) -ge $(($1 * 40)) ] ||
			{ fail "$mode: burner's samples not named burn_60: $(grep '^burner' $mode.folded | sort -k2 -nr | head -3)"; rc=1; }
		[ "$3" -ge 100 ] ||
			{ fail "$mode: the taker's samples not named: $(grep '^python3' $mode.folded | sort -k2 -nr | head -3)"; rc=1; }
	done
	return $rc
}

# Not tried before: starvation of the symbolization budget. A capture's
# budget (symbolize_max_read, 512 MiB) was spent in the order processes
# were met: nobody, with twelve copies of a program holding 2,000,000
# symbols (60 MB of tables each) busy before the victim starts, had the
# budget spent on them, and the victim's frames kept their addresses.
# One user's processes take at most half of it now.
test_symbolize_budget_is_shared_by_users() {
	need_root_bpf || return
	local rc=0 i lookalike=$WORKLOADS/symtest/pylookalike
	[ -x "$lookalike" ] || { fail "no $lookalike (make integration builds it)"; return 1; }
	chmod 755 "$PWD" "$(dirname "$PWD")"
	mkdir -m 755 bin || return 1
	for i in $(seq 1 12); do
		cp "$lookalike" "bin/copy$i" || return 1
	done
	cat >hog.sh <<'SH'
for i in $(seq 1 12); do "./bin/copy$i" 2 12 400 >/dev/null & done
wait
SH
	start_bg hog setpriv --reuid=nobody --regid=nogroup --clear-groups sh hog.sh
	sleep 1
	(sleep 3; exec "$WORKLOADS/burner" 3 >/dev/null) &
	capture_into starve -a -d 7s -F 49 || { wait; return 1; }
	wait
	set -- $(awk '{ n = $NF; split($0, f, ";")
		if (f[1] == "burner") { b += n; if (index($0, ";burn_60;")) v += n } }
		END { print b + 0, v + 0 }' starve.folded)
	echo "   the victim's $1 samples, $2 in burn_60; budget: $(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["symbols"].get("budget"))' starve.json)" >&2
	[ "$1" -ge 30 ] && [ $(($2 * 100)) -ge $(($1 * 40)) ] ||
		{ fail "burner's samples not named: $(grep '^burner' starve.folded | sort -k2 -nr | head -3)"; rc=1; }
	return $rc
}

# Not tried before: mount-namespace tricks through /proc/PID/root. A
# binary's debug file is looked for inside the root of the process that
# maps it first, and the symbols found serve every process that maps the
# file. nobody, in a user and mount namespace of their own, put a forged
# debug file (the binary's build ID, other names) at the binary's
# build-ID path and ran the binary first: a victim running the same
# binary outside had its frames named by nobody. A debug file is
# believed only when root or the binary's owner owns it now.
test_symbolize_forged_debug_file_in_a_users_root() {
	need_root_bpf || return
	setpriv --reuid=nobody --regid=nogroup --clear-groups unshare -Urm true 2>/dev/null ||
		{ skip "no unprivileged user namespaces here"; return; }
	local rc=0 bid dir
	chmod 755 "$PWD" "$(dirname "$PWD")"
	cat >spinner.c <<'C'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void NAME(void) { for (int i = 0; i < 1000000; i++) sink = sink * 31 + i; }
int main(int argc, char **argv)
{
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end)
		NAME();
	return 0;
}
C
	cc -O1 -g -DNAME=victim_spins -Wl,--build-id=0x5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed \
		spinner.c -o spinner.full &&
		cc -O1 -g -DNAME=forged_name__xx -Wl,--build-id=0x5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed \
			spinner.c -o forged.debug &&
		strip -o spinner spinner.full || { fail "cc"; return 1; }
	chmod 755 spinner && chmod 644 forged.debug
	bid=5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed
	mkdir -p /usr/lib/debug
	cat >attack.sh <<SH
mount -t tmpfs none /usr/lib/debug &&
mkdir -p /usr/lib/debug/.build-id/${bid:0:2} &&
cp $PWD/forged.debug /usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug &&
exec $PWD/spinner 8
SH
	start_bg attacker setpriv --reuid=nobody --regid=nogroup --clear-groups unshare -Urm sh attack.sh
	sleep 1
	(sleep 2; exec ./spinner 3) &
	capture_into forged -a -d 5s -F 99 || { wait; return 1; }
	wait %1 2>/dev/null
	set -- $(awk '{ n = $NF; if ($0 ~ /^spinner;/) { s += n; if (index($0, "forged_name__xx")) f += n } }
		END { print s + 0, f + 0 }' forged.folded)
	echo "   spinner samples: $1, named by the forged debug file: $2" >&2
	[ "$1" -ge 100 ] || { fail "too few spinner samples: $(grep '^spinner' forged.folded | head -3)"; rc=1; }
	[ "$2" = 0 ] || { fail "the forged debug file named $2 samples: $(grep forged_name forged.folded | head -3)"; rc=1; }
	return $rc
}
