# test_symbolize.sh - symbolization where services live: JIT code named
# from the runtime's perf map, also from inside a mount and pid
# namespace of its own.

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
	start_bg pid node --perf-basic-prof -e "$NODE_HOT_JS"
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
	local pid i
	unshare --mount --pid --fork --mount-proc sh -c \
		'mount -t tmpfs tmpfs /tmp && exec node --perf-basic-prof -e "$0"' "$NODE_HOT_JS" \
		>ns.log 2>&1 &
	BG_PIDS+=("$!")
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pid=$(pgrep -n -f 'node --perf-basic-prof -e function trapdHotLoop')
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
}
