# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_files_safety.sh - the files trapd writes and reads as root, attacked
# as a local user would: a loose spool directory, a FIFO and links planted
# among spool entries, a sidecar name planted as a link to a root file in
# /tmp, a perf map planted as a link to a root-only file, as another
# user's file and as a FIFO; and a clock stepped back between captures.

# filesafe_victim - a root-owned file in /etc with known content; its path.
filesafe_victim() {
	local v=/etc/trapd-it-victim-$$
	printf 'root data, keep\n' >"$v"
	chmod 0644 "$v"
	echo "$v"
}

filesafe_victim_intact() {
	[ "$(cat "$1")" = "root data, keep" ] || { fail "$1 was written: $(head -c 200 "$1")"; return 1; }
}

# filesafe_rules DIR [KEY = VALUE...] - ./rules.ini with its spool in DIR
# and, when ./archive exists, a file:// upload into it.
filesafe_rules() {
	local dir=$1
	shift
	{
		printf '[global]\npoll_interval = 250ms\nspool_dir = %s\ncontrol_socket = %s/ctl.sock\n' \
			"$dir" "$PWD"
		printf '%s\n' "$@"
		[ -d archive ] && printf '\n[upload]\nurl = file://%s/archive\n' "$PWD"
	} >rules.ini
}

# filesafe_capture NAME - a real 200 ms capture in ./spool under NAME.
filesafe_capture() {
	"$TRAPD" -q capture -a -d 200ms -F 99 -o "spool/$1.pb.zst" >/dev/null 2>capture.err ||
		{ fail "capture failed: $(cat capture.err)"; return 1; }
}

# A loose (0777) spool with a link planted at a sidecar name and a FIFO
# named to sort first: the daemon refuses to start, saying what to fix,
# and touches neither.
test_files_safety_loose_spool_refused() {
	need_root_bpf || return
	local rc=0 victim
	victim=$(filesafe_victim)
	mkdir spool && chmod 0777 spool
	setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
		"ln -s $victim spool/0000000001-20261122T000000Z-manual-aaaaaaaa.json &&
		 mkfifo spool/0000000000-19700101T000000Z-x-ffffffff.pb.zst" ||
		{ fail "could not plant as nobody"; rm -f "$victim"; return 1; }
	filesafe_rules "$PWD/spool"
	timeout 20 "$TRAPD" daemon -c rules.ini --log stderr 2>daemon.log
	[ $? -eq 2 ] || { fail "daemon did not exit 2: $(cat daemon.log)"; rc=1; }
	grep -q "spool_dir $PWD/spool: writable by others (mode 0777); make it 0750 root-owned" \
		daemon.log || { fail "no clear message: $(cat daemon.log)"; rc=1; }
	# trapd upload --direct reads the same spool: refused alike
	timeout 20 "$TRAPD" upload --direct -c rules.ini 2>upload.err
	[ $? -eq 2 ] && grep -q "writable by others (mode 0777)" upload.err ||
		{ fail "upload --direct on a loose spool: $(cat upload.err)"; rc=1; }
	[ -p spool/0000000000-19700101T000000Z-x-ffffffff.pb.zst ] || { fail "FIFO touched"; rc=1; }
	filesafe_victim_intact "$victim" || rc=1
	# owned by another user: refused too
	chmod 0750 spool && chown nobody spool
	timeout 20 "$TRAPD" daemon -c rules.ini --log stderr 2>daemon.log
	[ $? -eq 2 ] && grep -q "owned by uid $(id -u nobody)" daemon.log ||
		{ fail "a nobody-owned spool was not refused: $(cat daemon.log)"; rc=1; }
	rm -f "$victim"
	return $rc
}

# A correct spool in which entries that are not regular files turned up (a
# FIFO sorting first, links to a root-only file): an upload neither blocks
# on nor follows them, never writes a sidecar for them, and sends the rest.
test_files_safety_planted_spool_entries_skipped() {
	need_root_bpf || return
	local rc=0 secret start elapsed
	mkdir -p spool archive && chmod 0750 spool
	filesafe_capture 20261122T000001Z-real-00000001 || return 1
	secret=$PWD/secret && (umask 077 && printf '0 7fffffffffff SECRET\n' >"$secret")
	mkfifo spool/0000000000-19700101T000000Z-fifo-ffffffff.pb.zst \
		spool/19700101T000000Z-fifo2-eeee.json spool/19700101T000000Z-fifo2-eeee.pb.zst
	ln -s "$secret" spool/19700101T000000Z-link-dddd.pb.zst
	ln -s "$secret" spool/19700101T000000Z-link-dddd.json
	filesafe_rules "$PWD/spool"
	start=$(date +%s)
	timeout 60 "$TRAPD" upload --direct -c rules.ini >out 2>err
	elapsed=$(($(date +%s) - start))
	[ "$elapsed" -lt 30 ] || { fail "upload took ${elapsed}s: blocked on a FIFO?"; rc=1; }
	grep -q '^1 sent' out || { fail "the real capture was not sent: $(cat out err)"; rc=1; }
	[ "$(find archive -name '*.pb.zst' | wc -l)" -eq 1 ] || { fail "archive: $(find archive)"; rc=1; }
	grep -rq SECRET archive && { fail "a link was followed into the archive"; rc=1; }
	[ -p spool/0000000000-19700101T000000Z-fifo-ffffffff.pb.zst ] || { fail "FIFO replaced"; rc=1; }
	[ -e spool/0000000000-19700101T000000Z-fifo-ffffffff.json ] &&
		{ fail "recovery wrote a sidecar for a FIFO"; rc=1; }
	grep -q 'not a regular file: skipped' err || { fail "no warning: $(cat err)"; rc=1; }
	[ "$(cat "$secret")" = "0 7fffffffffff SECRET" ] || { fail "secret changed"; rc=1; }
	echo "    upload with planted FIFOs and links: ${elapsed}s"
	return $rc
}

# `trapd capture -o /tmp/x.pb.zst` with /tmp/x.json planted by nobody as a
# link to a root file: refused before sampling, the root file unchanged.
# In a directory nobody owns (not sticky), the link is replaced, never
# followed.
test_files_safety_capture_output_planted_sidecar() {
	need_root_bpf || return
	local rc=0 victim x=/tmp/trapd-it-x-$$ nd
	victim=$(filesafe_victim)
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$victim" "$x.json" ||
		{ fail "could not plant as nobody"; rm -f "$victim"; return 1; }
	timeout 30 "$TRAPD" capture -a -d 200ms -o "$x.pb.zst" >out 2>err
	[ $? -eq 2 ] || { fail "capture did not refuse: $(cat err)"; rc=1; }
	grep -q "$x.json: a symbolic link of uid $(id -u nobody) in the sticky directory /tmp; not replaced" err ||
		{ fail "no clear message: $(cat err)"; rc=1; }
	[ -e "$x.pb.zst" ] && { fail "a profile was written anyway"; rc=1; }
	filesafe_victim_intact "$victim" || rc=1
	rm -f "$x.json" "$x.pb.zst"
	nd=$(mktemp -d /tmp/trapd-it-nobody.XXXXXX) && chmod 0755 "$nd" && chown nobody:nogroup "$nd"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$victim" "$nd/x.json" ||
		{ fail "could not plant in $nd"; rc=1; }
	timeout 30 "$TRAPD" -q capture -a -d 200ms -o "$nd/x.pb.zst" >out 2>err ||
		{ fail "capture into a user's directory failed: $(cat err)"; rc=1; }
	[ -f "$nd/x.json" ] && [ ! -L "$nd/x.json" ] || { fail "the link was not replaced"; rc=1; }
	filesafe_victim_intact "$victim" || rc=1
	rm -rf "$victim" "$nd"
	return $rc
}

# A hot loop in JIT code (no perf map of its own) as nobody, and perf
# maps planted for it.
FILESAFE_JS='function hot(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
const end = Date.now() + 30000; while (Date.now() < end) hot(100000);'

# filesafe_names PID - the leaf names of a 1 s capture of PID, one a line.
filesafe_names() {
	"$TRAPD" -v capture -p "$1" -d 1s -F 199 -o "cap-$2.pb.zst" >"cap-$2.log" 2>&1 ||
		{ echo "capture failed: $(cat "cap-$2.log")" >&2; return 1; }
	"$TRAPD" report "cap-$2.pb.zst" --folded "cap-$2.folded" >/dev/null 2>&1
	awk '{ s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); print f[k] }' "cap-$2.folded" |
		sort -u
}

test_files_safety_perf_map_planted() {
	need_root_bpf || return
	command -v node >/dev/null || { skip "needs node"; return 77; }
	local rc=0 pid map secret start elapsed
	secret=/root/trapd-it-secret-$$
	(umask 077 && printf '0 7fffffffffff SECRETNAME\n' >"$secret")
	start_bg pid setpriv --reuid=nobody --regid=nogroup --clear-groups node -e "$FILESAFE_JS"
	sleep 1.5
	map=/tmp/perf-$pid.map
	# 1. a link to a root-only file
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$secret" "$map"
	filesafe_names "$pid" link >names || rc=1
	grep -q SECRETNAME names && { fail "a root-only file became function names"; rc=1; }
	grep -q "perf-$pid.map: a symbolic link (not followed)" cap-link.log ||
		{ fail "no message for the link: $(grep perf cap-link.log)"; rc=1; }
	rm -f "$map"
	# 2. a map of another user (daemon), not the process's (nobody)
	runuser -u daemon -- sh -c "printf '0 7fffffffffff OTHERNAME\n' >$map"
	filesafe_names "$pid" other >names || rc=1
	grep -q OTHERNAME names && { fail "another user's map was used"; rc=1; }
	grep -q "owned by uid $(id -u daemon), not by the process's user" cap-other.log ||
		{ fail "no message for the owner: $(grep perf cap-other.log)"; rc=1; }
	rm -f "$map"
	# 3. a FIFO: a true message and no stall
	setpriv --reuid=nobody --regid=nogroup --clear-groups mkfifo "$map"
	start=$(date +%s)
	filesafe_names "$pid" fifo >/dev/null || rc=1
	elapsed=$(($(date +%s) - start))
	[ "$elapsed" -lt 10 ] || { fail "a 1 s capture took ${elapsed}s"; rc=1; }
	grep -q "perf-$pid.map: a FIFO, not a regular file" cap-fifo.log ||
		{ fail "no true message for the FIFO: $(grep perf cap-fifo.log)"; rc=1; }
	rm -f "$map"
	# 4. a hard link to a root-only file, where fs.protected_hardlinks=0
	# lets anyone make one (the file in a directory nobody can search)
	local hard=/var/tmp/trapd-it-secret-$$ protect
	(umask 077 && printf '0 7fffffffffff HARDNAME\n' >"$hard")
	protect=$(sysctl -n fs.protected_hardlinks)
	sysctl -qw fs.protected_hardlinks=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln "$hard" "$map" ||
		{ fail "could not link $hard"; rc=1; }
	sysctl -qw fs.protected_hardlinks="$protect"
	filesafe_names "$pid" hard >names || rc=1
	grep -q HARDNAME names && { fail "a root-only file linked in became function names"; rc=1; }
	grep -q "perf-$pid.map: root's, with 2 links, for a process of uid $(id -u nobody) (a hard link)" cap-hard.log ||
		{ fail "no message for the hard link: $(grep perf cap-hard.log)"; rc=1; }
	rm -f "$map" "$hard"
	# 5. control: the process's own map is read
	setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
		"printf '0 7fffffffffff OWNNAME\n' >$map"
	filesafe_names "$pid" own >names || rc=1
	grep -q OWNNAME names || { fail "the process's own map was not used: $(head names)"; rc=1; }
	rm -f "$map" "$secret"
	return $rc
}

# The clock stepped back between captures (simulated: the capture before
# the step is named 2099): the daemon numbers its next capture after it,
# dropping takes the lowest sequence, and uploading goes by sequence with
# names of an earlier version first.
test_files_safety_clock_step_keeps_order() {
	need_root_bpf || return
	local rc=0 order
	mkdir -p spool && chmod 0750 spool
	filesafe_capture 0000000001-20991231T235959Z-before-aaaaaaaa || return 1
	filesafe_rules "$PWD/spool" 'spool_max_files = 1' 'manual_duration = 300ms'
	"$TRAPD" daemon -c rules.ini --log stderr 2>>daemon.log &
	BG_PIDS+=("$!")
	wait_for 10 "$TRAPD" status -S ctl.sock >/dev/null || { fail "no daemon: $(cat daemon.log)"; return 1; }
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm"; return 1; }
	wait_for 10 sh -c 'ls spool/0000000002-*.json' >/dev/null ||
		{ fail "no capture 2: $(ls spool) $(cat daemon.log)"; return 1; }
	sleep 0.5
	[ -e spool/0000000001-20991231T235959Z-before-aaaaaaaa.pb.zst ] &&
		{ fail "the lowest sequence was not the one dropped: $(ls spool)"; rc=1; }
	[ "$(ls spool/*.pb.zst | wc -l)" -eq 1 ] || { fail "spool: $(ls spool)"; rc=1; }
	kill -TERM "${BG_PIDS[-1]}"
	wait "${BG_PIDS[-1]}"
	# upload order: an old name, then 2099 (seq 1), then today (seq 2)
	filesafe_capture 0000000001-20991231T235959Z-before-aaaaaaaa || return 1
	filesafe_capture 20261122T000000Z-old-cccc || return 1
	mkdir archive
	filesafe_rules "$PWD/spool"
	"$TRAPD" upload --direct -c rules.ini >out 2>err || { fail "upload: $(cat err)"; return 1; }
	order=$(grep -o 'uploaded [^ ]*' err | cut -d' ' -f2 | cut -c1-15 | tr '\n' ' ')
	echo "    upload order: $order"
	[ "$order" = "20261122T000000 0000000001-2099 0000000002-$(date -u +%Y) " ] ||
		{ fail "upload order: $order ($(cat err))"; rc=1; }
	return $rc
}
