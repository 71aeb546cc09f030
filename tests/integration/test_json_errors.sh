# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_json_errors.sh - under --json a failing command still writes JSON on
# stdout, one object {"error": {"message": ..., "exit_status": N}} (the
# README, "Commands"), and nothing but later errors on stderr; without
# --json, errors stay plain text on stderr. None of these needs BPF.

# json_error FILE STATUS - FILE is exactly one JSON error object whose
# exit_status is STATUS; its message is printed.
json_error() {
	python3.11 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
err = doc["error"]
assert list(doc) == ["error"], doc
assert isinstance(err["message"], str) and err["message"], err
assert err["exit_status"] == int(sys.argv[2]), err
print(err["message"])' "$1" "$2"
}

# status_json STATUS ARGS... - trapd status --json ARGS exits STATUS with a
# JSON error on stdout; its message in $MSG, its stderr in err.log.
status_json() {
	local want=$1 got
	shift
	"$TRAPD" status --json "$@" >out.json 2>err.log
	got=$?
	[ "$got" -eq "$want" ] || { fail "exited $got, expected $want: $(cat out.json err.log)"; return 1; }
	MSG=$(json_error out.json "$want") || { fail "not a JSON error: $(cat out.json)"; return 1; }
}

test_json_errors_status_no_daemon() {
	status_json 1 -S "$PWD/none.sock" || return 1
	[[ $MSG == *"no trapd daemon is listening on $PWD/none.sock"* ]] || { fail "message: $MSG"; return 1; }
	[ ! -s err.log ] || { fail "stderr is not empty: $(cat err.log)"; return 1; }
}

test_json_errors_status_bad_option() {
	status_json 2 --bogus || return 1
	[[ $MSG == "unknown option '--bogus'"* ]] || { fail "message: $MSG"; return 1; }
	# --json after the bad option: still known before the options are parsed
	"$TRAPD" status --bogus --json >out.json 2>/dev/null
	json_error out.json 2 >/dev/null || fail "not a JSON error: $(cat out.json)"
}

# The first error is the message; the others still reach stderr.
test_json_errors_status_bad_rules_file_first_error() {
	printf '[global]\npoll_interval = soon\n\n[rule x]\nsignal = cpu\nabove = lots\n' >bad.ini
	status_json 2 -c bad.ini || return 1
	[[ $MSG == bad.ini:2:* ]] || { fail "message: $MSG"; return 1; }
	grep -q 'bad.ini:6:' err.log || { fail "the second error is lost: $(cat err.log)"; return 1; }
}

# A socket that hangs up without answering: a failure after connecting.
# It reads the request first: closing with it unread would reset the
# connection, a different message.
test_json_errors_status_daemon_hangs_up() {
	local pid i
	start_bg pid python3.11 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
while True:
    c = s.accept()[0]
    c.recv(4096)
    c.close()' "$PWD/mute.sock"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -S mute.sock ] && break
		sleep 0.2
	done
	status_json 1 -S "$PWD/mute.sock" || return 1
	[[ $MSG == *"closed the connection without an answer"* ]] || fail "message: $MSG"
}

test_json_errors_plain_without_json() {
	"$TRAPD" status -S "$PWD/none.sock" >out.txt 2>err.log
	[ $? -eq 1 ] || { fail "exit status"; return 1; }
	[ ! -s out.txt ] || { fail "stdout: $(cat out.txt)"; return 1; }
	grep -q '^trapd: error: no trapd daemon is listening' err.log || fail "stderr: $(cat err.log)"
}
