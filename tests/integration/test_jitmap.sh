# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_jitmap.sh - JIT perf maps read when complete: V8 buffers its
# /tmp/perf-PID.map and flushes the last of it when the process exits, so
# a short command's hot JavaScript is named only if trapd reads the map
# again after the exit, from the /tmp the process had: never a link
# planted there meanwhile, never the host's /tmp in place of a private one.

# A named hot function looping for ~1.5 s; the script prints its pid, so
# the test can find (and remove) its perf map.
JITMAP_JS='function jitmapHot(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
console.log("jitmap pid " + process.pid);
const end = Date.now() + 1500; let s = 0; while (Date.now() < end) s += jitmapHot(100000);
if (s < 0) console.log(s);'

# node --perf-basic-prof also writes a V8 log: keep it out of the way.
JITMAP_NODE='node --perf-basic-prof --no-logfile-per-isolate --logfile=/dev/null'

jitmap_need_node() {
	command -v node >/dev/null || { skip "needs node (scripts/install-deps installs it)"; return 77; }
}

# jitmap_counts FOLDED - "HOT UNNAMED TOTAL": samples whose leaf is
# jitmapHot, whose leaf is JIT code left unnamed (anon+0x..., or a bare
# address), and all samples.
jitmap_counts() {
	awk '{ n = $NF; t += n; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		if (f[k] ~ /jitmapHot/) h += n
		else if (f[k] ~ /^(anon\+0x[0-9a-f]+|0x[0-9a-f]+)$/) u += n }
		END { printf "%d %d %d", h, u, t }' "$1"
}

# jitmap_capture LOG CMD... - trapd -v capture -F 499 -- CMD into
# out.pb.zst, its folded stacks into out.folded.
jitmap_capture() {
	local log=$1
	shift
	rm -f out.pb.zst out.json out.folded
	"$TRAPD" -v capture -F 499 -o out.pb.zst -- "$@" >"$log" 2>&1 ||
		{ fail "trapd capture failed: $(tail -5 "$log")"; return 1; }
	"$TRAPD" report out.pb.zst --folded out.folded >/dev/null 2>&1 ||
		{ fail "trapd report failed"; return 1; }
}

# jitmap_expect_named WHAT - out.folded names jitmapHot: at least 30
# samples (sampling counts CPU time, which a busy machine gives node
# little of), and unnamed JIT code under a tenth of that.
jitmap_expect_named() {
	local hot unnamed total
	read -r hot unnamed total <<<"$(jitmap_counts out.folded)"
	echo "    $1: $hot of $total samples in jitmapHot, $unnamed in unnamed JIT code"
	if [ "$hot" -lt 30 ] || [ $((unnamed * 10)) -ge "$hot" ]; then
		fail "$1: the hot function is not named; top leaves: $(jitmap_top_leaves out.folded)"
		return 1
	fi
}

# jitmap_top_leaves FOLDED - the three leaves with the most samples.
jitmap_top_leaves() {
	awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); c[f[k]] += n }
		END { for (l in c) print c[l], l }' "$1" | sort -rn | head -3 | tr '\n' ' '
}

# jitmap_pid LOG - the pid the script printed.
jitmap_pid() {
	sed -n 's/^jitmap pid \([0-9]*\)$/\1/p' "$1" | head -1
}

# Ten short commands: each one's hot function named from the map V8
# flushed at its exit.
test_jitmap_short_command_named_every_time() {
	need_root_bpf || return
	jitmap_need_node || return
	local i pid rc=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		# shellcheck disable=SC2086 # node and its options
		jitmap_capture run$i.log $JITMAP_NODE -e "$JITMAP_JS" || { rc=1; break; }
		pid=$(jitmap_pid run$i.log)
		[ -n "$pid" ] && rm -f "/tmp/perf-$pid.map"
		jitmap_expect_named "run $i" || rc=1
	done
	return $rc
}

# The target's user replaces its map with a link to a root-owned map
# between its exit and trapd's last read: the link is refused, not
# followed, and nothing is named from what it points to.
test_jitmap_link_planted_after_exit_is_refused() {
	need_root_bpf || return
	jitmap_need_node || return
	local pid rc=0
	printf '0 7fffffffffff jitmapStolen\n' >stolen.map
	chmod 0644 stolen.map
	# shellcheck disable=SC2016 # expanded by the inner shell
	jitmap_capture out.log setpriv --reuid=nobody --regid=nogroup --clear-groups \
		sh -c '$1 -e "$0" & p=$!; wait $p; ln -sf "$2" /tmp/perf-$p.map' \
		"$JITMAP_JS" "$JITMAP_NODE" "$PWD/stolen.map" || return 1
	pid=$(jitmap_pid out.log)
	[ -n "$pid" ] || { fail "node did not run: $(tail -5 out.log)"; return 1; }
	[ -L "/tmp/perf-$pid.map" ] || { fail "no link was planted at /tmp/perf-$pid.map"; return 1; }
	rm -f "/tmp/perf-$pid.map"
	if grep -q jitmapStolen out.folded; then
		fail "a frame was named from the link's target"
		rc=1
	fi
	grep -q "pid $pid: perf map: /tmp/perf-$pid.map: a symbolic link (not followed)" out.log ||
		{ fail "the map was not read again after the exit, or not refused: $(grep -i 'perf map' out.log)"; rc=1; }
	return $rc
}

# A process in a mount namespace of its own with a private /tmp: after
# it exits (and its namespace with it) its map is read from that /tmp,
# not from the host's, where a decoy map waits under the same name.
test_jitmap_private_tmp_read_after_exit() {
	need_root_bpf || return
	jitmap_need_node || return
	local i pid rc=0
	cat >ns.sh <<'EOF'
printf '0 7fffffffffff jitmapHostDecoy\n' >/tmp/perf-$$.map
exec unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs /tmp && exec $1 -e "$0"' "$@"
EOF
	for i in 1 2 3; do
		jitmap_capture ns$i.log sh ns.sh "$JITMAP_JS" "$JITMAP_NODE" || { rc=1; break; }
		pid=$(jitmap_pid ns$i.log)
		[ -n "$pid" ] || { fail "node did not run: $(tail -5 ns$i.log)"; rc=1; break; }
		grep -q jitmapHostDecoy "/tmp/perf-$pid.map" ||
			{ fail "node's map is on the host: the test proves nothing"; rc=1; }
		rm -f "/tmp/perf-$pid.map"
		# node's frames: the same pid's first lives (sh and unshare,
		# before the private /tmp) ran on the host's /tmp, where the
		# decoy is their own map
		if grep -Ev '^(sh|unshare);' out.folded | grep -q jitmapHostDecoy; then
			fail "run $i: node's frames named from the host's /tmp: $(grep jitmapHostDecoy out.folded | head -3)"
			rc=1
		elif grep -q jitmapHostDecoy out.folded; then
			echo "    run $i: the pid's lives before the namespace, named from their own /tmp: $(grep jitmapHostDecoy out.folded | cut -c1-120 | head -2)"
		fi
		jitmap_expect_named "namespace run $i" || rc=1
	done
	return $rc
}
