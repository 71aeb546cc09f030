# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# lib.sh - real upload servers for trapd's tests, on 127.0.0.1 (sourced).
#
# Each server lives in a folder DIR of its own (config, data, logs, pid
# files) and is stopped by the pids recorded there, never by name. Every
# server process leads a process group of its own; a stop sends SIGTERM to
# that group (SIGKILL after 10 s), so nothing it forked is left behind.
#
#   nginx_start DIR PORT          plain HTTP: PUT/GET /store/..., POST
#                                 /post/..., /status/CODE/... (401 403 404
#                                 429 500 503); exports NGINX_URL
#   nginx_post_body DIR URI       the file holding the last POST body to URI
#   swift_start DIR PORT          OpenStack Swift all-in-one with the S3 API
#                                 (SigV4, us-east-1, path-style); exports
#                                 SWIFT_S3_URL
#   swift_make_bucket NAME        create a bucket (3+ characters, DNS-style)
#   swift_s3_curl CURL_ARGS...    curl signed as the test user
#   swift_get BUCKET/KEY FILE, swift_head BUCKET/KEY
#   azurite_start DIR PORT        Azurite blob service; exports AZURITE_URL
#                                 (http://127.0.0.1:PORT/devstoreaccount1)
#   azurite_make_container NAME   create a container
#   azurite_sas CONTAINER [PERMS [SECONDS]]   print a container SAS
#   azurite_account_sas PERMS RESOURCE_TYPES [SECONDS]   an account SAS
#   fault_start DIR PORT [MODE...]   fault_server.py (modes: its header);
#                                 exports FAULT_URL
#   fault_requests DIR            print its log, one JSON line an upload
#   nginx_stop, swift_stop, azurite_stop, fault_stop DIR
#   servers_stop_all              stop every server this shell started:
#                                 call it from the test's cleanup (trap)
#   servers_url DIR               print the base URL of DIR's server
#   servers_free_port [N [EXCLUDE...]]   print N free ports
#   servers_install               install what is missing (root)
#
# A start on a DIR whose server already runs on that PORT does nothing
# (SERVERS_START_MS=0); a stop of a stopped DIR does nothing. All are quiet
# on success, and on failure say why on stderr and return nonzero. A start
# sets SERVERS_START_MS to how long it took and writes the port, the URL
# and that time to DIR/port, DIR/url and DIR/start_ms.
#
# Credentials: S3 SWIFT_S3_ACCESS_KEY=test:tester (a colon in it: curl's
# --user cannot carry it, libcurl's CURLOPT_USERNAME can),
# SWIFT_S3_SECRET_KEY=testing, SWIFT_S3_REGION=us-east-1. Azure account
# AZURITE_ACCOUNT=devstoreaccount1 with the well-known key AZURITE_KEY.
#
# Needs servers_install, or scripts/install-deps test, first.

SERVERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SERVERS_NPM=$SERVERS_DIR/.npm
SERVERS_TIMEOUT=${SERVERS_TIMEOUT:-60}
[ -n "${SERVERS_STARTED+x}" ] || SERVERS_STARTED=()
if [ -x /usr/bin/python3 ]; then
	SERVERS_PYTHON=/usr/bin/python3
else
	SERVERS_PYTHON=python3
fi

# The S3 user of the test Swift (tempauth user test:tester, key testing).
SWIFT_S3_ACCESS_KEY=test:tester
SWIFT_S3_SECRET_KEY=testing
SWIFT_S3_REGION=us-east-1
export SWIFT_S3_ACCESS_KEY SWIFT_S3_SECRET_KEY SWIFT_S3_REGION
# Azurite's built-in account: the well-known development storage key.
AZURITE_ACCOUNT=devstoreaccount1
AZURITE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
AZURITE_SAS_VERSION=2022-11-02
export AZURITE_ACCOUNT AZURITE_KEY

_srv_err() {
	echo "servers: $*" >&2
	return 1
}

_srv_now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# _srv_args FUNC WANT GOT - check a function got WANT arguments (at least).
_srv_args() {
	[ "$3" -ge "$2" ] || _srv_err "$1: expected $2 arguments, got $3"
}

_srv_check_port() {
	[[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ] ||
		_srv_err "bad port '$1'"
}

# servers_free_port [N [EXCLUDE...]] - print N (default 1) distinct ports
# that are free on 127.0.0.1 now, none of them in EXCLUDE. They are picked
# below the kernel's ephemeral range so that outgoing connections do not
# take them before the server binds.
servers_free_port() {
	"$SERVERS_PYTHON" - "${1:-1}" "${@:2}" <<'EOF'
import random, socket, sys
n, exclude = int(sys.argv[1]), set(int(p) for p in sys.argv[2:])
held, ports = [], []
for port in random.sample(range(20000, 32000), 2000):
    if port in exclude:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        continue
    held.append(s)
    ports.append(port)
    if len(ports) == n:
        break
if len(ports) < n:
    sys.exit("servers_free_port: no free port found")
print(" ".join(map(str, ports)))
EOF
}

# _srv_group_live PGID - true while a process (not a zombie) of process
# group PGID exists.
_srv_group_live() {
	local pg=$1 f st
	local -a fl
	for f in /proc/[0-9]*/stat; do
		read -r st 2>/dev/null <"$f" || continue
		read -r -a fl <<<"${st##*) }"
		[ "${fl[2]}" = "$pg" ] && [ "${fl[0]}" != Z ] && return 0
	done
	return 1
}

# _srv_alive PIDFILE - true if the process recorded in PIDFILE runs.
_srv_alive() {
	local pid st
	[ -s "$1" ] || return 1
	read -r pid <"$1" || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	read -r st 2>/dev/null <"/proc/$pid/stat" || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# _srv_spawn PIDFILE LOG CMD... - start CMD in the background as the leader
# of a new session and process group (so that it and every child it forks
# are stopped together), its pid in PIDFILE, stdout and stderr in LOG.
_srv_spawn() {
	local pidfile=$1 log=$2
	shift 2
	rm -f "$pidfile"
	# The inner shell writes its own pid, the one the command keeps after
	# exec, whether or not setsid had to fork.
	setsid bash -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"' \
		"$pidfile" "$@" </dev/null >>"$log" 2>&1 &
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$pidfile" ] && return 0
		sleep 0.01
	done
	_srv_err "could not start $1 (see $log)"
}

# _srv_kill PIDFILE - stop the process group led by the pid in PIDFILE:
# SIGTERM, then SIGKILL after 10 s. Removes PIDFILE.
_srv_kill() {
	local pidfile=$1 pid i st
	local -a fl
	[ -s "$pidfile" ] || { rm -f "$pidfile"; return 0; }
	read -r pid <"$pidfile"
	[[ $pid =~ ^[0-9]+$ ]] || { rm -f "$pidfile"; return 0; }
	# A live pid that no longer leads its own session is a stranger that
	# got a recycled pid: leave it alone.
	if read -r st 2>/dev/null <"/proc/$pid/stat"; then
		read -r -a fl <<<"${st##*) }"
		[ "${fl[3]}" = "$pid" ] || { rm -f "$pidfile"; return 0; }
	fi
	kill -TERM -- "-$pid" 2>/dev/null || true
	for ((i = 0; i < 200; i++)); do
		_srv_group_live "$pid" || { rm -f "$pidfile"; return 0; }
		sleep 0.05
	done
	kill -KILL -- "-$pid" 2>/dev/null || true
	for ((i = 0; i < 40; i++)); do
		_srv_group_live "$pid" || { rm -f "$pidfile"; return 0; }
		sleep 0.05
	done
	_srv_err "process group $pid ($pidfile) survived SIGKILL"
}

# _srv_wait NAME PIDFILE LOG CHECK... - poll CHECK (a command) until it
# succeeds; fail early, with the log's tail, if the server dies.
_srv_wait() {
	local name=$1 pidfile=$2 log=$3 deadline
	shift 3
	deadline=$(($(_srv_now_ms) + SERVERS_TIMEOUT * 1000))
	while ! "$@"; do
		if ! _srv_alive "$pidfile"; then
			_srv_err "$name exited while starting; last lines of $log:"
			tail -n 20 "$log" >&2
			return 1
		fi
		if [ "$(_srv_now_ms)" -gt "$deadline" ]; then
			_srv_err "$name not ready after ${SERVERS_TIMEOUT}s; last lines of $log:"
			tail -n 20 "$log" >&2
			return 1
		fi
		sleep 0.05
	done
}

# _srv_http_up URL [CODE_REGEX] - true when URL answers with a matching
# status (default: any HTTP answer).
_srv_http_up() {
	local code
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" 2>/dev/null)
	[[ $code =~ ${2:-^[1-5][0-9][0-9]$} ]]
}

_srv_tcp_up() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# _srv_port_free NAME PORT - fail loudly if something listens on PORT
# already (its answers would pass for the new server's).
_srv_port_free() {
	_srv_tcp_up "$2" || return 0
	_srv_err "$1: port $2 on 127.0.0.1 is in use"
}

# _srv_render TEMPLATE OUT KEY=VALUE... - copy TEMPLATE to OUT with each
# @KEY@ replaced by VALUE.
_srv_render() {
	local in=$1 out=$2 kv expr=()
	shift 2
	for kv in "$@"; do
		expr+=(-e "s|@${kv%%=*}@|${kv#*=}|g")
	done
	sed "${expr[@]}" "$in" >"$out.tmp" && mv "$out.tmp" "$out"
}

# _srv_running DIR PIDFILE PORT NAME - true (and quiet) when NAME already
# runs from DIR on PORT; fails loudly when it runs on another port.
_srv_running() {
	local dir=$1 pidfile=$2 port=$3 name=$4 old
	_srv_alive "$pidfile" || return 1
	read -r old 2>/dev/null <"$dir/port" || old=
	if [ "$old" = "$port" ]; then
		SERVERS_START_MS=0
		_srv_track "$dir"
		return 0
	fi
	_srv_err "$name in $dir already runs on port ${old:-?}, not $port; stop it first"
	return 2
}

# _srv_track DIR - remember DIR for servers_stop_all.
_srv_track() {
	local d
	for d in "${SERVERS_STARTED[@]}"; do
		[ "$d" = "$1" ] && return 0
	done
	SERVERS_STARTED+=("$1")
}

# _srv_started DIR PORT URL T0 - record a successful start.
_srv_started() {
	echo "$2" >"$1/port"
	echo "$3" >"$1/url"
	SERVERS_START_MS=$(($(_srv_now_ms) - $4))
	echo "$SERVERS_START_MS" >"$1/start_ms"
	_srv_track "$1"
}

# servers_url DIR - print the base URL of the server started in DIR.
servers_url() {
	cat "$1/url" 2>/dev/null || _srv_err "no server was started in $1"
}

# servers_stop_all - stop every server this shell started.
servers_stop_all() {
	local d rc=0
	for d in "${SERVERS_STARTED[@]}"; do
		case $(cat "$d/kind" 2>/dev/null) in
		nginx) nginx_stop "$d" || rc=1 ;;
		swift) swift_stop "$d" || rc=1 ;;
		azurite) azurite_stop "$d" || rc=1 ;;
		fault) fault_stop "$d" || rc=1 ;;
		esac
	done
	SERVERS_STARTED=()
	return $rc
}

# ---------------------------------------------------------------- install

# servers_install - install what the servers need, only what is missing:
# Debian packages (with their services kept from starting) and Azurite.
servers_install() {
	local pkgs=(nginx-light memcached swift swift-proxy swift-account
		swift-container swift-object python3 curl openssl)
	local missing=() p guard=''
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	command -v node >/dev/null || missing+=(nodejs npm)
	if [ ${#missing[@]} -gt 0 ]; then
		[ "$(id -u)" -eq 0 ] ||
			{ _srv_err "servers_install: missing ${missing[*]}; run as root"; return 1; }
		# No service of these packages may start on its default port.
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
			chmod +x /usr/sbin/policy-rc.d
			guard=1
		fi
		echo "servers_install: installing ${missing[*]}" >&2
		p=0
		DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends "${missing[@]}" >/dev/null || p=1
		if [ -n "$guard" ]; then rm -f /usr/sbin/policy-rc.d; fi
		[ $p -eq 0 ] || { _srv_err "servers_install: apt-get failed"; return 1; }
		# ... nor later, at boot, on a systemd host.
		if [ -d /run/systemd/system ]; then
			# shellcheck disable=SC2046 # unit names have no spaces
			systemctl disable --now nginx memcached $(systemctl list-unit-files \
				--no-legend 'swift-*' | awk '{print $1}') >/dev/null 2>&1 || true
		fi
	fi
	"$SERVERS_DIR/install-azurite"
}

# ------------------------------------------------------------------ nginx

# nginx_start DIR PORT - nginx on 127.0.0.1:PORT, everything under DIR:
#   PUT  /store/PATH   stores DIR/store/PATH (201, or 204 when replaced);
#                      GET/HEAD read it back, DELETE removes it
#   POST /post/PATH    201; the body is kept in a file of its own under
#                      DIR/post/ (nginx_post_body DIR /post/PATH finds it)
#   ANY  /status/CODE/ answers CODE: 401 403 404 429 500 503
# DIR/access.log has one JSON line a request (method, uri, query, status,
# request_length, content_length, content_type, authorization present,
# body_file). Exports NGINX_URL.
nginx_start() {
	_srv_args nginx_start 2 $# || return 1
	local dir=$1 port=$2 t0 user_line='' rc scheme=http listen
	_srv_check_port "$port" || return 1
	t0=$(_srv_now_ms)
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	rc=0
	_srv_running "$dir" "$dir/server.pid" "$port" nginx || rc=$?
	[ -f "$dir/tls.crt" ] && [ -f "$dir/tls.key" ] && scheme=https
	if [ $rc -eq 0 ]; then
		export NGINX_URL="$scheme://127.0.0.1:$port"
		return 0
	fi
	[ $rc -eq 2 ] && return 1
	command -v nginx >/dev/null || { _srv_err "nginx is missing (servers_install)"; return 1; }
	_srv_port_free nginx "$port" || return 1
	mkdir -p "$dir"/{store,post,tmp} || return 1
	echo nginx >"$dir/kind"
	[ "$(id -u)" -eq 0 ] && user_line="user root root;"
	listen="127.0.0.1:$port"
	[ $scheme = https ] && listen="$listen ssl; ssl_certificate $dir/tls.crt; ssl_certificate_key $dir/tls.key"
	_srv_render "$SERVERS_DIR/nginx.conf.in" "$dir/nginx.conf" \
		"DIR=$dir" "PORT=$port" "SCHEME=$scheme" "LISTEN=$listen" "USER_LINE=$user_line" || return 1
	nginx -t -q -p "$dir" -c "$dir/nginx.conf" 2>"$dir/nginx-t.log" ||
		{ _srv_err "nginx config test failed:"; cat "$dir/nginx-t.log" >&2; return 1; }
	# nginx writes DIR/nginx.pid itself; ours is the group leader's.
	_srv_spawn "$dir/server.pid" "$dir/nginx.log" \
		nginx -p "$dir" -c "$dir/nginx.conf" || return 1
	_srv_wait nginx "$dir/server.pid" "$dir/error.log" \
		_srv_tcp_up "$port" || { nginx_stop "$dir"; return 1; }
	export NGINX_URL="$scheme://127.0.0.1:$port"
	_srv_started "$dir" "$port" "$NGINX_URL" "$t0"
}

nginx_stop() {
	_srv_args nginx_stop 1 $# || return 1
	[ -d "$1" ] || return 0
	_srv_kill "$1/server.pid"
}

# nginx_post_body DIR URI - print the file that holds the body of the last
# POST to URI (e.g. /post/name), from DIR/access.log.
nginx_post_body() {
	_srv_args nginx_post_body 2 $# || return 1
	local f
	f=$("$SERVERS_PYTHON" -c '
import json, sys
last = ""
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == "POST" and r["uri"] == sys.argv[2] and r["body_file"]:
        last = r["body_file"]
print(last)' "$1/access.log" "$2") || return 1
	[ -n "$f" ] && [ -f "$f" ] || { _srv_err "no POST body for $2 in $1/access.log"; return 1; }
	echo "$f"
}

# ------------------------------------------------------------------ swift

# swift_start DIR PORT - an all-in-one Swift with the S3 API on
# 127.0.0.1:PORT: a proxy (s3api + tempauth), account, container and object
# servers and a memcached, each on a free port of its own, one device
# (DIR/srv/d1), one replica, rings and configs in DIR/etc, logs in DIR/log.
# S3: path-style URLs, SigV4 with region us-east-1 and service s3; the
# user is SWIFT_S3_ACCESS_KEY / SWIFT_S3_SECRET_KEY. Exports SWIFT_S3_URL.
# What Swift 2.30's s3api asks of a SigV4 request (selfcheck shows each):
# - x-amz-content-sha256 is required (400 InvalidRequest without it); a
#   hex SHA-256 is checked against the body as it arrives (400 BadDigest,
#   nothing stored); UNSIGNED-PAYLOAD is accepted; aws-chunked streaming
#   (STREAMING-AWS4-HMAC-SHA256-PAYLOAD) is not implemented.
# - the credential scope must name region us-east-1 (400
#   AuthorizationHeaderMalformed otherwise) and be within 15 min of now.
# - Host is signed as sent (127.0.0.1:PORT); no virtual-host buckets.
# - a request with no S3 signature falls through to Swift: 400, not 403.
swift_start() {
	_srv_args swift_start 2 $# || return 1
	local dir=$1 port=$2 t0 rc user ports kind p
	_srv_check_port "$port" || return 1
	t0=$(_srv_now_ms)
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	rc=0
	_srv_running "$dir" "$dir/run/proxy.pid" "$port" swift || rc=$?
	if [ $rc -eq 0 ]; then
		export SWIFT_S3_URL="http://127.0.0.1:$port"
		return 0
	fi
	[ $rc -eq 2 ] && return 1
	command -v swift-proxy-server >/dev/null && command -v memcached >/dev/null ||
		{ _srv_err "swift or memcached is missing (servers_install)"; return 1; }
	swift_stop "$dir" || return 1 # what a failed start may have left
	_srv_port_free swift "$port" || return 1
	mkdir -p "$dir"/{etc,srv/d1,run,log} || return 1
	echo swift >"$dir/kind"
	user=$(id -un)
	read -r -a ports < <(servers_free_port 4 "$port")
	[ ${#ports[@]} -eq 4 ] || { _srv_err "swift_start: no free ports"; return 1; }
	local aport=${ports[0]} cport=${ports[1]} oport=${ports[2]} mport=${ports[3]}
	cp "$SERVERS_DIR/swift.conf.in" "$dir/etc/swift.conf" || return 1
	_srv_render "$SERVERS_DIR/swift-proxy.conf.in" "$dir/etc/proxy-server.conf" \
		"DIR=$dir" "PORT=$port" "MC_PORT=$mport" "USER=$user" || return 1
	for kind in account:$aport container:$cport object:$oport; do
		_srv_render "$SERVERS_DIR/swift-storage.conf.in" \
			"$dir/etc/${kind%%:*}-server.conf" \
			"DIR=$dir" "PORT=${kind#*:}" "KIND=${kind%%:*}" "USER=$user" || return 1
	done
	rm -f "$dir"/etc/*.ring.gz "$dir"/etc/*.builder

	local mc=(memcached -l 127.0.0.1 -p "$mport" -U 0 -m 32 -c 512)
	[ "$(id -u)" -eq 0 ] && mc+=(-u root)
	_srv_spawn "$dir/run/memcached.pid" "$dir/log/memcached.log" "${mc[@]}" || return 1
	# The storage servers read no ring while starting, so the rings are
	# built while they start; the proxy needs them.
	for kind in account container object; do
		_srv_spawn "$dir/run/$kind.pid" "$dir/log/$kind.log" \
			"swift-$kind-server" "$dir/etc/$kind-server.conf" -v ||
			{ swift_stop "$dir"; return 1; }
	done
	_swift_rings "$dir" "$aport" "$cport" "$oport" || { swift_stop "$dir"; return 1; }
	_srv_spawn "$dir/run/proxy.pid" "$dir/log/proxy.log" \
		swift-proxy-server "$dir/etc/proxy-server.conf" -v || { swift_stop "$dir"; return 1; }
	_srv_wait memcached "$dir/run/memcached.pid" "$dir/log/memcached.log" \
		_srv_tcp_up "$mport" || { swift_stop "$dir"; return 1; }
	for kind in account:$aport container:$cport object:$oport proxy:$port; do
		p=${kind#*:}
		kind=${kind%%:*}
		_srv_wait "swift-$kind-server" "$dir/run/$kind.pid" "$dir/log/$kind.log" \
			_srv_http_up "http://127.0.0.1:$p/healthcheck" '^200$' ||
			{ swift_stop "$dir"; return 1; }
	done
	export SWIFT_S3_URL="http://127.0.0.1:$port"
	_srv_started "$dir" "$port" "$SWIFT_S3_URL" "$t0"
}

# _swift_rings DIR APORT CPORT OPORT - build the three rings, one device
# each, in DIR/etc (rebuilt on every start: the ports change). This is what
# swift-ring-builder's create, add and rebalance do, through the same
# RingBuilder class, in one process: nine swift-ring-builder runs take
# seconds of CPU.
_swift_rings() {
	/usr/bin/python3 - "$@" >"$1/log/rings.log" 2>&1 <<'EOF' ||
import os, sys
from swift.common.ring import RingBuilder
etc = os.path.join(sys.argv[1], "etc")
for name, port in zip(("account", "container", "object"), sys.argv[2:5]):
    b = RingBuilder(6, 1, 0)  # part power 6, 1 replica, min_part_hours 0
    b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1",
               "port": int(port), "replication_ip": "127.0.0.1",
               "replication_port": int(port), "device": "d1", "weight": 100,
               "meta": ""})
    b.rebalance()
    b.save(os.path.join(etc, name + ".builder"))
    b.get_ring().save(os.path.join(etc, name + ".ring.gz"))
EOF
		{ _srv_err "building the swift rings failed:"; cat "$1/log/rings.log" >&2; return 1; }
}

swift_stop() {
	_srv_args swift_stop 1 $# || return 1
	local rc=0 kind
	[ -d "$1/run" ] || return 0
	for kind in proxy object container account memcached; do
		_srv_kill "$1/run/$kind.pid" || rc=1
	done
	return $rc
}

# swift_s3_curl CURL_ARGS... - curl -sS signing with SigV4 (region
# SWIFT_S3_REGION, service s3) as SWIFT_S3_ACCESS_KEY / SWIFT_S3_SECRET_KEY
# (override them for one call to sign as someone else). The caller adds the
# URL, the x-amz-content-sha256 header (s3api requires it) and the rest.
# The key id holds a colon, which curl's --user would split at, so the
# credentials go in a netrc file instead.
swift_s3_curl() {
	local netrc rc
	netrc=$(mktemp) || return 1
	printf 'default login %s password %s\n' \
		"$SWIFT_S3_ACCESS_KEY" "$SWIFT_S3_SECRET_KEY" >"$netrc"
	curl -sS --aws-sigv4 "aws:amz:$SWIFT_S3_REGION:s3" --netrc-file "$netrc" "$@"
	rc=$?
	rm -f "$netrc"
	return $rc
}

_srv_empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

# swift_make_bucket NAME - create bucket NAME (done if it exists already).
swift_make_bucket() {
	_srv_args swift_make_bucket 1 $# || return 1
	[ -n "${SWIFT_S3_URL:-}" ] || { _srv_err "swift_make_bucket: swift_start first"; return 1; }
	local out code
	out=$(mktemp) || return 1
	code=$(swift_s3_curl -o "$out" -w '%{http_code}' -X PUT -H 'Content-Length: 0' \
		-H "x-amz-content-sha256: $_srv_empty_sha256" "$SWIFT_S3_URL/$1")
	if [ "$code" = 200 ] || { [ "$code" = 409 ] && grep -q BucketAlreadyOwnedByYou "$out"; }; then
		rm -f "$out"
		return 0
	fi
	_srv_err "swift_make_bucket $1: HTTP $code: $(cat "$out")"
	rm -f "$out"
	return 1
}

# swift_get BUCKET/KEY FILE - download an object into FILE (fails unless 200).
swift_get() {
	_srv_args swift_get 2 $# || return 1
	[ -n "${SWIFT_S3_URL:-}" ] || { _srv_err "swift_get: swift_start first"; return 1; }
	local code
	code=$(swift_s3_curl -o "$2" -w '%{http_code}' \
		-H "x-amz-content-sha256: $_srv_empty_sha256" "$SWIFT_S3_URL/$1")
	[ "$code" = 200 ] || { _srv_err "swift_get $1: HTTP $code"; return 1; }
}

# swift_head BUCKET/KEY - print an object's response headers (fails unless
# 200).
swift_head() {
	_srv_args swift_head 1 $# || return 1
	[ -n "${SWIFT_S3_URL:-}" ] || { _srv_err "swift_head: swift_start first"; return 1; }
	local out code
	out=$(swift_s3_curl -I -w '%{http_code}' \
		-H "x-amz-content-sha256: $_srv_empty_sha256" "$SWIFT_S3_URL/$1") || return 1
	code=${out##*$'\n'}
	[ "$code" = 200 ] || { _srv_err "swift_head $1: HTTP $code"; return 1; }
	printf '%s\n' "${out%$'\n'*}" | tr -d '\r'
}

# ---------------------------------------------------------------- azurite

# azurite_start DIR PORT - Azurite's blob service on 127.0.0.1:PORT, data
# in DIR/data, log in DIR/azurite.log. Strict: no --loose (unknown headers
# and parameters are refused), API versions checked, path-style URLs only,
# no telemetry. Exports AZURITE_URL (http://127.0.0.1:PORT/devstoreaccount1).
azurite_start() {
	_srv_args azurite_start 2 $# || return 1
	local dir=$1 port=$2 t0 rc main=$SERVERS_NPM/node_modules/azurite/dist/src/blob/main.js
	_srv_check_port "$port" || return 1
	t0=$(_srv_now_ms)
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	rc=0
	_srv_running "$dir" "$dir/azurite.pid" "$port" azurite || rc=$?
	if [ $rc -eq 0 ]; then
		export AZURITE_URL="http://127.0.0.1:$port/$AZURITE_ACCOUNT"
		return 0
	fi
	[ $rc -eq 2 ] && return 1
	[ -r "$main" ] || { _srv_err "azurite is missing (tests/servers/install-azurite)"; return 1; }
	_srv_port_free azurite "$port" || return 1
	mkdir -p "$dir/data" || return 1
	echo azurite >"$dir/kind"
	_srv_spawn "$dir/azurite.pid" "$dir/azurite.log" \
		node "$main" --blobHost 127.0.0.1 --blobPort "$port" \
		--location "$dir/data" --disableTelemetry --disableProductStyleUrl ||
		return 1
	# Unauthenticated: 403 once the service answers.
	_srv_wait azurite "$dir/azurite.pid" "$dir/azurite.log" \
		_srv_http_up "http://127.0.0.1:$port/$AZURITE_ACCOUNT?comp=list" '^403$' ||
		{ azurite_stop "$dir"; return 1; }
	export AZURITE_URL="http://127.0.0.1:$port/$AZURITE_ACCOUNT"
	_srv_started "$dir" "$port" "$AZURITE_URL" "$t0"
}

azurite_stop() {
	_srv_args azurite_stop 1 $# || return 1
	[ -d "$1" ] || return 0
	_srv_kill "$1/azurite.pid"
}

# _azurite_sign STRING - base64 HMAC-SHA256 of STRING with the account key.
_azurite_sign() {
	local hexkey
	hexkey=$(printf '%s' "$AZURITE_KEY" | base64 -d | od -An -v -tx1 | tr -d ' \n')
	printf '%s' "$1" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary |
		base64 -w0
}

# _azurite_q VALUE - percent-encode a SAS value (base64 and ISO dates).
_azurite_q() {
	local v=${1//%/%25}
	v=${v//+/%2B}
	v=${v//\//%2F}
	v=${v//=/%3D}
	v=${v//:/%3A}
	printf '%s' "$v"
}

# _azurite_expiry SECONDS - UTC time SECONDS from now, as a SAS wants it.
_azurite_expiry() {
	date -u -d "@$(($(date +%s) + $1))" +%Y-%m-%dT%H:%M:%SZ
}

# azurite_sas CONTAINER [PERMISSIONS [SECONDS]] - print a service SAS
# query string (no leading '?') for CONTAINER and every blob in it:
# permissions rcwl (read, create, write, list) unless told, valid for 3600
# seconds from now (a negative SECONDS makes an expired one). Signed here
# with openssl from the account key, independently of trapd.
azurite_sas() {
	_srv_args azurite_sas 1 $# || return 1
	local container=$1 sp=${2:-rcwl} se sts sig
	se=$(_azurite_expiry "${3:-3600}") || return 1
	# String-to-sign of a service SAS, version 2020-12-06 and later, its
	# 16 fields joined by newlines: sp st se resource si sip spr sv sr
	# snapshot ses rscc rscd rsce rscl rsct.
	printf -v sts '%s\n' "$sp" "" "$se" "/blob/$AZURITE_ACCOUNT/$container" \
		"" "" "" "$AZURITE_SAS_VERSION" c "" "" "" "" "" "" ""
	sig=$(_azurite_sign "${sts%$'\n'}") || return 1
	printf 'sv=%s&sr=c&sp=%s&se=%s&sig=%s\n' "$AZURITE_SAS_VERSION" "$sp" \
		"$(_azurite_q "$se")" "$(_azurite_q "$sig")"
}

# azurite_account_sas PERMISSIONS RESOURCE_TYPES [SECONDS] - print an
# account SAS for the blob service (e.g. "c" "c" to create containers).
azurite_account_sas() {
	_srv_args azurite_account_sas 2 $# || return 1
	local sp=$1 srt=$2 se sts sig
	se=$(_azurite_expiry "${3:-3600}") || return 1
	# account sp ss srt st se sip spr sv ses, each ended by a newline
	printf -v sts '%s\n' "$AZURITE_ACCOUNT" "$sp" b "$srt" "" "$se" "" "" \
		"$AZURITE_SAS_VERSION" ""
	sig=$(_azurite_sign "$sts") || return 1
	printf 'sv=%s&ss=b&srt=%s&sp=%s&se=%s&sig=%s\n' "$AZURITE_SAS_VERSION" "$srt" \
		"$sp" "$(_azurite_q "$se")" "$(_azurite_q "$sig")"
}

# azurite_make_container NAME - create container NAME (done if it exists).
azurite_make_container() {
	_srv_args azurite_make_container 1 $# || return 1
	[ -n "${AZURITE_URL:-}" ] || { _srv_err "azurite_make_container: azurite_start first"; return 1; }
	local out code
	out=$(mktemp) || return 1
	code=$(curl -sS -o "$out" -w '%{http_code}' -X PUT -H 'Content-Length: 0' \
		"$AZURITE_URL/$1?restype=container&$(azurite_account_sas c c)")
	if [ "$code" = 201 ] || { [ "$code" = 409 ] && grep -q ContainerAlreadyExists "$out"; }; then
		rm -f "$out"
		return 0
	fi
	_srv_err "azurite_make_container $1: HTTP $code: $(cat "$out")"
	rm -f "$out"
	return 1
}

# ------------------------------------------------------------------ fault

# fault_start DIR PORT [MODE...] - fault_server.py on 127.0.0.1:PORT with
# the given MODE steps (default ok; see fault_server.py). Bodies under
# DIR/store, one JSON line a PUT/POST in DIR/requests.log. Exports
# FAULT_URL. Starting a running DIR with other MODEs is an error.
fault_start() {
	_srv_args fault_start 2 $# || return 1
	local dir=$1 port=$2 t0 rc modes
	shift 2
	local steps=("${@:-ok}")
	_srv_check_port "$port" || return 1
	t0=$(_srv_now_ms)
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || return 1
	modes=${*:-ok}
	rc=0
	_srv_running "$dir" "$dir/fault.pid" "$port" fault || rc=$?
	if [ $rc -eq 0 ]; then
		[ "$(cat "$dir/modes")" = "$modes" ] ||
			{ _srv_err "fault server in $dir runs with '$(cat "$dir/modes")', not '$modes'"; return 1; }
		export FAULT_URL="http://127.0.0.1:$port"
		return 0
	fi
	[ $rc -eq 2 ] && return 1
	mkdir -p "$dir/store" || return 1
	echo fault >"$dir/kind"
	_srv_port_free fault "$port" || return 1
	echo "$modes" >"$dir/modes"
	_srv_spawn "$dir/fault.pid" "$dir/fault.log" \
		"$SERVERS_PYTHON" "$SERVERS_DIR/fault_server.py" --dir "$dir" --port "$port" \
		"${steps[@]}" || return 1
	_srv_wait fault "$dir/fault.pid" "$dir/fault.log" \
		_srv_http_up "http://127.0.0.1:$port/" '^404$' || { fault_stop "$dir"; return 1; }
	export FAULT_URL="http://127.0.0.1:$port"
	_srv_started "$dir" "$port" "$FAULT_URL" "$t0"
}

fault_stop() {
	_srv_args fault_stop 1 $# || return 1
	[ -d "$1" ] || return 0
	_srv_kill "$1/fault.pid"
}

# fault_requests DIR - print DIR/requests.log (one JSON object a PUT/POST).
fault_requests() {
	_srv_args fault_requests 1 $# || return 1
	[ -f "$1/requests.log" ] || return 0
	cat "$1/requests.log"
}
