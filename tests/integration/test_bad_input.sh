# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_bad_input.sh - bad command lines and bad files get a clear message
# and exit status 2 (usage or input) or 1 (runtime), never a crash.

test_capture_bad_usage() {
	expect_status 2 "$TRAPD" capture --bogus || return 1
	expect_status 2 "$TRAPD" capture -a -d ten || return 1
	echo "$LAST_STDERR" | grep -q "bad duration 'ten'" || { fail "unclear: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" capture -a -F 0 || return 1
	expect_status 2 "$TRAPD" capture -a -F 10MHz || return 1
	expect_status 2 "$TRAPD" capture || return 1
	echo "$LAST_STDERR" | grep -q "say what to sample" || { fail "unclear: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" capture -a -p 1 || return 1
	expect_status 2 "$TRAPD" capture -p abc || return 1
	expect_status 2 "$TRAPD" capture -d || return 1
	expect_status 2 "$TRAPD" nosuchcommand || return 1
	expect_status 0 "$TRAPD" capture --help || return 1
}

test_capture_missing_targets() {
	expect_status 2 "$TRAPD" capture -p 4000000 -d 1s || return 1
	echo "$LAST_STDERR" | grep -q "no process with pid 4000000" || { fail "unclear: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" capture -g no/such/cgroup -d 1s || return 1
	echo "$LAST_STDERR" | grep -q "no cgroup 'no/such/cgroup'" || { fail "unclear: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" capture -g /tmp -d 1s || return 1
}

test_report_bad_files() {
	need_root_bpf || return
	local pid
	expect_status 2 "$TRAPD" report does-not-exist.pb.zst || return 1
	echo "garbage that is no profile" >junk.pb.zst
	expect_status 2 "$TRAPD" report junk.pb.zst || return 1
	start_bg pid "$WORKLOADS/burner" 4
	sleep 0.2
	"$TRAPD" capture -p "$pid" -d 1s -o good.pb.zst 2>/dev/null || { fail "capture failed"; return 1; }
	head -c $(($(stat -c %s good.pb.zst) / 2)) good.pb.zst >half.pb.zst
	expect_status 2 "$TRAPD" report half.pb.zst || return 1
	echo "$LAST_STDERR" | grep -q "half.pb.zst" || { fail "message does not name the file: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" report good.pb.zst --top x || return 1
	expect_status 0 "$TRAPD" report good.pb.zst --top 3 || return 1
}
