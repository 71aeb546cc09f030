# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_secrets.sh - credentials and text others chose, as an attacker
# would try them: a bearer token searched for in the daemon's heap after
# its uploader stopped, a crash of the daemon that must write no core,
# credentials over plain http:// refused unless allowed on purpose, a
# server whose answers carry terminal escapes and bytes that are not UTF-8,
# and the unit file's hardening (no_new_privs, no core) with BPF still
# working. Helpers are prefixed secrets_ (all test files share one shell).

. "$(dirname "${BASH_SOURCE[0]}")/../servers/lib.sh"

# secrets_heap_copies PID NEEDLE - how many times NEEDLE is in PID's heap
# and anonymous mappings, read through /proc/PID/mem. Root can read it
# though the daemon is not dumpable (CAP_SYS_PTRACE); prints "N REGIONS".
secrets_heap_copies() {
	python3 - "$1" "$2" <<'PY'
import sys
pid, needle = sys.argv[1], sys.argv[2].encode()
copies = regions = 0
with open("/proc/%s/maps" % pid) as maps, open("/proc/%s/mem" % pid, "rb", 0) as mem:
    for line in maps:
        f = line.split(None, 5)
        path = f[5].strip() if len(f) > 5 else ""
        if f[1][0] != "r" or not (path in ("", "[heap]") or path.startswith("[anon")):
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        mem.seek(lo)
        data = mem.read(hi - lo)
        regions += 1
        copies += data.count(needle)
print(copies, regions)
PY
}

# secrets_rules [UPLOAD LINES...] - ./rules.ini: quick manual captures,
# and an [upload] section of these lines when there are any.
secrets_rules() {
	{
		write_global "manual_duration = 300ms" "manual_frequency = 199Hz"
		if [ $# -gt 0 ]; then
			printf '[upload]\nretry_min = 200ms\nretry_max = 1s\n'
			printf '%s\n' "$@"
		fi
	} >rules.ini
}

secrets_uploaded_at_least() {
	[ "$(grep -c '^trapd: uploaded ' daemon.log)" -ge "$1" ]
}

secrets_reloaded() {
	grep -q '^trapd: reloaded ' daemon.log
}

test_secrets_no_token_in_heap_after_uploader_stops() {
	need_root_bpf || return
	local port token during after i
	trap 'servers_stop_all' EXIT
	port=$(servers_free_port) && fault_start "$PWD/fault" "$port" ||
		{ fail "fault server did not start"; return 1; }
	token=trapd-heap-canary-$RANDOM$RANDOM$RANDOM$RANDOM
	(umask 077 && printf 'Bearer %s\n' "$token" >token)
	secrets_rules "url = $FAULT_URL/store/" "auth_header_file = $PWD/token" \
		"allow_insecure_credentials = yes"
	start_daemon || return
	for i in 1 2 3; do
		arm_capture || return
	done
	wait_for 20 secrets_uploaded_at_least 3 || { fail "not uploaded: $(cat daemon.log)"; return 1; }
	grep -q '"authorization": true' fault/requests.log ||
		{ fail "the server saw no Authorization header"; return 1; }
	during=$(secrets_heap_copies "$DAEMON" "$token") || { fail "cannot read the daemon's heap"; return 1; }
	echo "    copies of the token while the uploader runs: ${during% *} (in ${during#* } regions)"
	# a reload that drops [upload] stops the uploader
	secrets_rules
	kill -HUP "$DAEMON"
	wait_for 10 secrets_reloaded || { fail "no reload: $(cat daemon.log)"; return 1; }
	"$TRAPD" status -S ctl.sock | grep -q '^upload: *none configured' ||
		{ fail "the uploader still runs: $("$TRAPD" status -S ctl.sock)"; return 1; }
	after=$(secrets_heap_copies "$DAEMON" "$token") || { fail "cannot read the daemon's heap"; return 1; }
	echo "    copies of the token after the uploader stopped: ${after% *} (in ${after#* } regions)"
	[ "${after#* }" -gt 0 ] || { fail "no memory region was read"; return 1; }
	[ "${after% *}" -eq 0 ] || { fail "${after% *} copies of the token left in the heap"; return 1; }
	stop_daemon
}

# secrets_core_glob PID COMM CWD - where the kernel's core_pattern puts
# the core of process PID (COMM) running in CWD, as a shell pattern.
secrets_core_glob() {
	local pat uses_pid
	pat=$(cat /proc/sys/kernel/core_pattern)
	uses_pid=$(cat /proc/sys/kernel/core_uses_pid)
	[[ $pat == *%p* ]] || [ "$uses_pid" != 1 ] || pat="$pat.%p"
	pat=${pat//%%/%}
	pat=${pat//%p/$1}
	pat=${pat//%e/$2}
	pat=$(sed 's/%[a-zA-Z]/*/g' <<<"$pat")
	[[ $pat == /* ]] || pat="$3/$pat"
	echo "$pat"
}

secrets_core_exists() {
	compgen -G "$1" >/dev/null
}

test_secrets_daemon_is_not_dumpable_and_a_crash_writes_no_core() {
	need_root_bpf || return
	local ctl core
	secrets_rules
	# core files enabled for the daemon, as a careless unit or shell would
	( ulimit -c unlimited && exec "$TRAPD" daemon -c rules.ini --log stderr 2>>daemon.log ) &
	DAEMON=$!
	BG_PIDS+=("$DAEMON")
	wait_for 10 "$TRAPD" status -S ctl.sock >/dev/null || { fail "daemon did not start: $(cat daemon.log)"; return 1; }
	[ "$(status_json_field dumpable)" = False ] ||
		{ fail "the daemon says it is dumpable: $("$TRAPD" status --json -S ctl.sock)"; return 1; }
	grep -q '^Max core file size *unlimited' "/proc/$DAEMON/limits" ||
		{ fail "the core limit did not reach the daemon: $(grep core "/proc/$DAEMON/limits")"; return 1; }
	# root still reads its memory (the heap test needs it): ptrace access
	# by CAP_SYS_PTRACE ignores dumpable
	head -c 1 "/proc/$DAEMON/environ" >/dev/null || { fail "root cannot read /proc/$DAEMON"; return 1; }
	if [[ $(cat /proc/sys/kernel/core_pattern) == '|'* ]]; then
		echo "    cores go to a program here ($(cat /proc/sys/kernel/core_pattern)): dumpable checked, no crash"
		stop_daemon
		return 0
	fi
	# the control: a dumpable process with the same limit leaves a core,
	# so the absence below means something
	mkdir ctl
	( cd ctl && ulimit -c unlimited && exec sleep 30 ) &
	ctl=$!
	sleep 0.2
	core=$(secrets_core_glob "$ctl" sleep "$PWD/ctl")
	kill -SEGV "$ctl"
	wait "$ctl" 2>/dev/null
	wait_for 5 secrets_core_exists "$core" || { skip "no core file for a crash here ($core), the test proves nothing"; return 77; }
	rm -f $core
	core=$(secrets_core_glob "$DAEMON" trapd "$PWD")
	kill -SEGV "$DAEMON"
	wait "$DAEMON" 2>/dev/null
	sleep 1
	secrets_core_exists "$core" && { fail "the daemon's crash wrote $(echo $core)"; rm -f $core; return 1; }
	echo "    a dumpable process left $(basename "$core" | sed "s/$DAEMON/PID/"); the daemon left none"
	return 0
}

test_secrets_credentials_over_http_refused_unless_allowed() {
	local line
	(umask 077 && printf 'Bearer never-sent\n' >token)
	secrets_rules "url = http://127.0.0.1:9/store/" "auth_header_file = $PWD/token"
	line=$(grep -n '^url = http://' rules.ini | cut -d: -f1)
	expect_status 2 "$TRAPD" check -c rules.ini || return
	echo "$LAST_STDERR" | grep -q "^rules.ini:$line: \[upload\] url: http:// would send the credentials (auth_header_file) in clear text" ||
		{ fail "trapd check's message: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" daemon -c rules.ini --log stderr || return
	echo "$LAST_STDERR" | grep -q "allow_insecure_credentials = yes" || { fail "daemon's message: $LAST_STDERR"; return 1; }
	mkdir -p spool
	expect_status 2 "$TRAPD" upload --direct -c rules.ini || return
	# S3 keys to an http:// endpoint, a SAS token likewise: refused the same way
	secrets_rules "url = s3://traps" "endpoint = http://127.0.0.1:9" \
		"access_key_id_env = HOME" "secret_access_key_file = $PWD/token"
	expect_status 2 "$TRAPD" check -c rules.ini || return
	echo "$LAST_STDERR" | grep -q '\[upload\] endpoint: http:// would send the credentials (access_key_id_env)' ||
		{ fail "s3 message: $LAST_STDERR"; return 1; }
	secrets_rules "url = azblob://acct/cont" "endpoint = http://127.0.0.1:9/acct" "sas_token_env = HOME"
	expect_status 2 "$TRAPD" check -c rules.ini || return
	# no credentials: plain http is fine; https with credentials too
	secrets_rules "url = http://127.0.0.1:9/store/"
	expect_status 0 "$TRAPD" check -c rules.ini || return
	secrets_rules "url = https://127.0.0.1:9/store/" "auth_header_file = $PWD/token"
	expect_status 0 "$TRAPD" check -c rules.ini || return
	# allowed on purpose: accepted, and the daemon warns at start
	need_root_bpf || return
	secrets_rules "url = http://127.0.0.1:9/store/" "auth_header_file = $PWD/token" \
		"allow_insecure_credentials = yes"
	expect_status 0 "$TRAPD" check -c rules.ini || return
	start_daemon || return
	grep -q '^trapd: warning: \[upload\] allow_insecure_credentials = yes: credentials go over plain http:// to http://127.0.0.1:9/store/' daemon.log ||
		{ fail "no warning at start: $(cat daemon.log)"; return 1; }
	grep -q 'never-sent' daemon.log && { fail "the token is in the log"; return 1; }
	stop_daemon
}

# secrets_hostile_start PORT STATUS... - hostile_answer.py on PORT, in ./hostile.
secrets_hostile_start() {
	local port=$1 i
	shift
	mkdir -p hostile
	(cd hostile && exec python3 "$SERVERS_DIR/hostile_answer.py" --port "$port" "$@") >hostile.log 2>&1 &
	BG_PIDS+=("$!")
	for ((i = 0; i < 50; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	fail "hostile server did not start: $(cat hostile.log)"
}

# secrets_no_raw_escape WHAT FILE - FILE has no ESC, no C1 CSI, no 0xff,
# and shows the server's text escaped.
secrets_no_raw_escape() {
	if LC_ALL=C grep -qP '\x1b|\xc2\x9b|\xff|\xe2\x80\xae' "$2"; then
		fail "$1 holds raw bytes the server chose: $(LC_ALL=C grep -P '\x1b|\xff' "$2" | od -c | head -5)"
		return 1
	fi
	grep -qF '\x1b]0;owned\x07Denied\x1b[31mRED' "$2" ||
		{ fail "$1 does not show the server's text escaped: $(cat "$2")"; return 1; }
}

secrets_marked_failed() {
	compgen -G 'spool/*.failed' >/dev/null
}

test_secrets_hostile_server_text_reaches_no_terminal_raw() {
	need_root_bpf || return
	local port
	port=$(servers_free_port) || return
	# two 500s (retried: the log and the status), then 403 for good
	# (the .failed marker)
	secrets_hostile_start "$port" 500:2 403 || return
	secrets_rules "url = http://127.0.0.1:$port/store/"
	start_daemon || return
	arm_capture || return
	wait_for 20 secrets_marked_failed || { fail "not marked failed: $(cat daemon.log)"; return 1; }
	[ "$(grep -c 'retrying in' daemon.log)" -ge 2 ] || { fail "the 500s were not logged: $(cat daemon.log)"; return 1; }
	grep -q 'refused, not retrying' daemon.log || { fail "the 403 was not logged: $(cat daemon.log)"; return 1; }
	secrets_no_raw_escape "the daemon's log" daemon.log || return
	cat spool/*.failed >marker
	secrets_no_raw_escape "the .failed marker" marker || return
	"$TRAPD" status -S ctl.sock >status.txt || { fail "trapd status"; return 1; }
	secrets_no_raw_escape "trapd status" status.txt || return
	# JSON: escaped before encoding, so a script that decodes it and
	# prints the string shows no raw escape either
	"$TRAPD" status --json -S ctl.sock | python3 -c '
import json, sys
print(json.load(sys.stdin)["upload"]["last_error"])' >status.json.txt || { fail "trapd status --json"; return 1; }
	secrets_no_raw_escape "trapd status --json, decoded" status.json.txt || return
	stop_daemon
}

test_secrets_daemon_works_under_the_unit_hardening() {
	need_root_bpf || return
	local dir
	# what trapd.service sets: no core, no new privileges (seccomp-free,
	# so BPF and perf events must work as before)
	secrets_rules
	setpriv --no-new-privs prlimit --core=0 -- "$TRAPD" daemon -c rules.ini --log stderr 2>>daemon.log &
	DAEMON=$!
	BG_PIDS+=("$DAEMON")
	wait_for 10 "$TRAPD" status -S ctl.sock >/dev/null || { fail "daemon did not start: $(cat daemon.log)"; return 1; }
	grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$DAEMON/status" || { fail "no_new_privs not set"; return 1; }
	arm_capture || return
	dir=$(ls spool/*.pb.zst | head -1)
	[ -s "$dir" ] || { fail "no capture under no_new_privs"; return 1; }
	"$TRAPD" report "$dir" 2>/dev/null | grep -q . || { fail "the capture is empty"; return 1; }
	stop_daemon
}

test_secrets_no_token_in_heap_after_https_uploads() {
	need_root_bpf || return
	command -v nginx >/dev/null || { skip "nginx not installed (scripts/install-deps test)"; return 77; }
	local port token after
	trap 'servers_stop_all' EXIT
	# over TLS the header also passes through OpenSSL's buffers, which
	# trapd's allocator does not see: they must not keep it either
	mkdir -p nginx
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=trapd-test \
		-addext subjectAltName=IP:127.0.0.1 -keyout nginx/tls.key -out nginx/tls.crt \
		2>/dev/null || { fail "openssl could not make a certificate"; return 1; }
	port=$(servers_free_port) && nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	case $NGINX_URL in https://*) ;; *) fail "nginx is not on https: $NGINX_URL"; return 1 ;; esac
	token=trapd-tls-canary-$RANDOM$RANDOM$RANDOM$RANDOM
	(umask 077 && printf 'Bearer %s\n' "$token" >token)
	secrets_rules "url = $NGINX_URL/store/" "auth_header_file = $PWD/token" \
		"ca_file = $PWD/nginx/tls.crt"
	start_daemon || return
	arm_capture && arm_capture || return
	wait_for 20 secrets_uploaded_at_least 2 || { fail "not uploaded: $(cat daemon.log)"; return 1; }
	secrets_rules
	kill -HUP "$DAEMON"
	wait_for 10 secrets_reloaded || { fail "no reload: $(cat daemon.log)"; return 1; }
	after=$(secrets_heap_copies "$DAEMON" "$token") || { fail "cannot read the daemon's heap"; return 1; }
	echo "    copies of the token after https uploads and the uploader's stop: ${after% *}"
	[ "${after% *}" -eq 0 ] || { fail "${after% *} copies of the token left in the heap"; return 1; }
	stop_daemon
}
