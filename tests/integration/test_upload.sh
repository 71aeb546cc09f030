# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_upload.sh - shipping captures to real servers started here on
# 127.0.0.1 (tests/servers/lib.sh): nginx (PUT, POST), OpenStack Swift's S3
# API (SigV4, payload hash checked), Azurite (Azure Blob, SAS), and a
# fault-injecting server; every object read back with curl and compared
# byte for byte. Then the faults: a backend down then up, 500s, timeouts,
# 403, a slow server while the daemon keeps working, SIGKILL in the middle
# of an upload, a full spool, a full disk.

. "$(dirname "${BASH_SOURCE[0]}")/../servers/lib.sh"

# up_servers - servers of this test are stopped when it ends.
up_servers() {
	trap 'servers_stop_all' EXIT
}

# need_servers - skip when the server packages are not installed.
need_servers() {
	command -v nginx >/dev/null && command -v swift-proxy-server >/dev/null &&
		[ -d "$SERVERS_NPM/node_modules/azurite" ] ||
		{ skip "upload servers not installed (scripts/install-deps test)"; return 77; }
}

# spool_capture NAME - a real capture (all CPUs, 200 ms) in ./spool as
# 20261122T0000NNZ-NAME-....pb.zst and its sidecar.
SPOOL_SEQ=0
spool_capture() {
	SPOOL_SEQ=$((SPOOL_SEQ + 1))
	mkdir -p spool originals
	local name
	name=$(date -u +%Y%m%dT%H%M%SZ)-$1-$(printf '%08d' "$SPOOL_SEQ")
	"$TRAPD" -q capture -a -d 200ms -F 199 -o "spool/$name.pb.zst" >/dev/null 2>capture.err ||
		{ fail "capture failed: $(cat capture.err)"; return 1; }
	cp "spool/$name.pb.zst" "spool/$name.json" originals/
}

# object_key ORIGINAL - HOST/YYYY/MM/DD/SHA256 of a spool capture (no suffix).
object_key() {
	local base sha day
	base=$(basename "$1" .pb.zst)
	sha=$(sha256sum "$1" | cut -d' ' -f1)
	day=${base:0:8}
	printf '%s/%s/%s/%s/%s\n' "$(hostname)" "${day:0:4}" "${day:4:2}" "${day:6:2}" "$sha"
}

# rules_with_upload [KEY = VALUE...] - ./rules.ini: write_global, then an
# [upload] section of these lines.
rules_with_upload() {
	{
		write_global
		printf '[upload]\n'
		printf '%s\n' "$@"
	} >rules.ini
}

# secret_file NAME VALUE - a 0600 file holding VALUE; prints its path.
secret_file() {
	(umask 077 && printf '%s\n' "$2" >"$PWD/$1")
	echo "$PWD/$1"
}

spool_empty() {
	[ -z "$(ls spool/*.pb.zst 2>/dev/null)" ]
}

# compare_object ORIGINAL FETCHED WHAT - byte-for-byte equality.
compare_object() {
	cmp -s "$1" "$2" || { fail "$3: $2 differs from $1"; return 1; }
}

status_json_field() {
	"$TRAPD" status --json -S ctl.sock | python3 -c "
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split('.'):
    v = v[k]
print(v)" "$1"
}

# --- each backend ----------------------------------------------------------

test_upload_file_backend_moves_spool_into_directory() {
	need_root_bpf || return
	spool_capture web && spool_capture db || return
	rules_with_upload "url = file://$PWD/archive"
	"$TRAPD" upload --direct -c rules.ini >out 2>err || { fail "upload: $(cat err)"; return 1; }
	spool_empty || { fail "spool not emptied: $(ls spool)"; return 1; }
	local o key
	for o in originals/*.pb.zst; do
		key=$(object_key "$o")
		compare_object "$o" "archive/$key.pb.zst" profile || return
		compare_object "${o%.pb.zst}.json" "archive/$key.json" sidecar || return
	done
	grep -q '^2 sent, 0 pending, 0 failed$' out || { fail "summary: $(cat out)"; return 1; }
}

test_upload_nginx_put_and_post() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port o key got
	port=$(servers_free_port) && nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	spool_capture web || return
	rules_with_upload "url = $NGINX_URL/store/trapd" "auth_header_file = $(secret_file token 'Bearer s3cr3t-token')" \
		"allow_insecure_credentials = yes"
	"$TRAPD" upload --direct -c rules.ini >out 2>err || { fail "PUT upload: $(cat err)"; return 1; }
	o=$(ls originals/*.pb.zst)
	key=$(object_key "$o")
	curl -sSf -o got.pb.zst "$NGINX_URL/store/trapd/$key.pb.zst" || { fail "GET profile"; return 1; }
	curl -sSf -o got.json "$NGINX_URL/store/trapd/$key.json" || { fail "GET sidecar"; return 1; }
	compare_object "$o" got.pb.zst "PUT profile" || return
	compare_object "${o%.pb.zst}.json" got.json "PUT sidecar" || return
	grep -q '"authorization": *true' nginx/access.log || grep -q '"authorization":"1"' nginx/access.log ||
		grep -qi 'authorization' nginx/access.log || { fail "no Authorization header seen"; return 1; }
	grep -q 's3cr3t-token' err out nginx/*.log 2>/dev/null && { fail "the token leaked into a log"; return 1; }

	# POST: both objects to the collector URL itself
	spool_capture db || return
	rules_with_upload "url = $NGINX_URL/post/collector" "method = post"
	"$TRAPD" upload --direct -c rules.ini >out 2>err || { fail "POST upload: $(cat err)"; return 1; }
	o=$(ls -t originals/*.pb.zst | head -1)
	got=$(nginx_post_body "$PWD/nginx" /post/collector) || { fail "no POST body"; return 1; }
	compare_object "${o%.pb.zst}.json" "$got" "POST sidecar (the last object sent)" || return
	[ "$(grep -c '"POST"' nginx/access.log)" -eq 2 ] || { fail "expected 2 POSTs: $(cat nginx/access.log)"; return 1; }
}

test_upload_s3_swift_sigv4_round_trip() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port o key id head
	port=$(servers_free_port) && swift_start "$PWD/swift" "$port" || { fail "swift did not start"; return 1; }
	swift_make_bucket traps || { fail "no bucket"; return 1; }
	spool_capture web || return
	rules_with_upload "url = s3://traps/prod" "endpoint = $SWIFT_S3_URL" \
		"access_key_id_file = $(secret_file id "$SWIFT_S3_ACCESS_KEY")" \
		"secret_access_key_file = $(secret_file secret "$SWIFT_S3_SECRET_KEY")" \
		"allow_insecure_credentials = yes"
	"$TRAPD" upload --direct -c rules.ini >out 2>err || { fail "upload: $(cat err)"; return 1; }
	o=$(ls originals/*.pb.zst)
	key=$(object_key "$o")
	swift_get "traps/prod/$key.pb.zst" got.pb.zst || { fail "GET profile"; return 1; }
	swift_get "traps/prod/$key.json" got.json || { fail "GET sidecar"; return 1; }
	compare_object "$o" got.pb.zst "S3 profile" || return
	compare_object "${o%.pb.zst}.json" got.json "S3 sidecar" || return
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capture_id"])' "${o%.pb.zst}.json")
	head=$(swift_head "traps/prod/$key.pb.zst") || { fail "HEAD"; return 1; }
	echo "$head" | grep -qi "^x-amz-meta-trapd-capture-id: $id" ||
		{ fail "capture id not in the object's metadata: $head"; return 1; }
	echo "$head" | grep -qi "^x-amz-meta-trapd-sha256: ${key##*/}" ||
		{ fail "sha256 not in metadata: $head"; return 1; }
	echo "$head" | grep -qi '^x-amz-meta-trapd-target: system' ||
		{ fail "target not in metadata: $head"; return 1; }
}

test_upload_s3_wrong_secret_is_permanent_and_retried_by_hand() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port
	port=$(servers_free_port) && swift_start "$PWD/swift" "$port" || { fail "swift did not start"; return 1; }
	swift_make_bucket traps || { fail "no bucket"; return 1; }
	spool_capture web || return
	rules_with_upload "url = s3://traps" "endpoint = $SWIFT_S3_URL" \
		"access_key_id_env = TEST_KEY_ID" "secret_access_key_env = TEST_SECRET" \
		"allow_insecure_credentials = yes"
	TEST_KEY_ID=$SWIFT_S3_ACCESS_KEY TEST_SECRET=not-the-secret-42 \
		"$TRAPD" upload --direct -c rules.ini >out 2>err
	[ $? -eq 1 ] || { fail "expected exit 1 with a wrong secret: $(cat out err)"; return 1; }
	grep -q 'HTTP 403.*SignatureDoesNotMatch' err || { fail "no 403 reported: $(cat err)"; return 1; }
	grep -q 'not-the-secret-42' err out spool/*.failed && { fail "the secret leaked"; return 1; }
	ls spool/*.failed >/dev/null 2>&1 || { fail "capture not marked failed"; return 1; }
	# the secret fixed: a plain run leaves the failed one alone, --failed sends it
	TEST_KEY_ID=$SWIFT_S3_ACCESS_KEY TEST_SECRET=$SWIFT_S3_SECRET_KEY \
		"$TRAPD" upload --direct -c rules.ini >out 2>err
	spool_empty && { fail "a failed capture was retried without --failed"; return 1; }
	TEST_KEY_ID=$SWIFT_S3_ACCESS_KEY TEST_SECRET=$SWIFT_S3_SECRET_KEY \
		"$TRAPD" upload --direct --failed -c rules.ini >out 2>err ||
		{ fail "--failed: $(cat err)"; return 1; }
	spool_empty || { fail "spool not emptied after --failed"; return 1; }
}

test_upload_azurite_sas_round_trip() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port o key id head sas
	port=$(servers_free_port) && azurite_start "$PWD/azurite" "$port" || { fail "azurite did not start"; return 1; }
	azurite_make_container traps || { fail "no container"; return 1; }
	spool_capture web || return
	secret_file sas "$(azurite_sas traps cw)" >/dev/null
	rules_with_upload "url = azblob://$AZURITE_ACCOUNT/traps/prod" "endpoint = $AZURITE_URL" \
		"sas_token_file = $PWD/sas" "allow_insecure_credentials = yes"
	"$TRAPD" upload --direct -c rules.ini >out 2>err || { fail "upload: $(cat err)"; return 1; }
	o=$(ls originals/*.pb.zst)
	key=$(object_key "$o")
	sas=$(azurite_sas traps r)
	curl -sSf -o got.pb.zst "$AZURITE_URL/traps/prod/$key.pb.zst?$sas" || { fail "GET profile"; return 1; }
	curl -sSf -o got.json "$AZURITE_URL/traps/prod/$key.json?$sas" || { fail "GET sidecar"; return 1; }
	compare_object "$o" got.pb.zst "blob profile" || return
	compare_object "${o%.pb.zst}.json" got.json "blob sidecar" || return
	id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capture_id"])' "${o%.pb.zst}.json")
	head=$(curl -sSfI "$AZURITE_URL/traps/prod/$key.pb.zst?$sas" | tr -d '\r')
	echo "$head" | grep -qi "^x-ms-meta-trapd_capture_id: $id" ||
		{ fail "capture id not in the blob's metadata: $head"; return 1; }
	echo "$head" | grep -qi '^content-type: application/zstd' || { fail "content type: $head"; return 1; }

	# through the daemon: its labels travel too, as C identifiers
	{
		write_global "manual_duration = 200ms"
		echo "team.name = perf core"
		printf '[upload]\nurl = azblob://%s/traps/prod\nendpoint = %s\nsas_token_file = %s\n' \
			"$AZURITE_ACCOUNT" "$AZURITE_URL" "$PWD/sas"
		printf 'allow_insecure_credentials = yes\n'
	} >rules.ini
	start_daemon || return
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm"; return 1; }
	wait_for 10 grep -q '^trapd: uploaded .* to ' daemon.log || { fail "not uploaded: $(cat daemon.log)"; return 1; }
	key=$(sed -n "s|^trapd: uploaded .* to azblob://$AZURITE_ACCOUNT/traps/prod/\(.*\) (.*|\1|p" daemon.log | tail -1)
	head=$(curl -sSfI "$AZURITE_URL/traps/prod/$key?$sas" | tr -d '\r')
	echo "$head" | grep -qi '^x-ms-meta-label_team_name: perf core' ||
		{ fail "label not in metadata: $head"; return 1; }
	echo "$head" | grep -qi '^x-ms-meta-trapd_trigger: manual' || { fail "trigger: $head"; return 1; }
	stop_daemon
}

test_upload_azurite_expired_sas_is_not_retried() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port
	port=$(servers_free_port) && azurite_start "$PWD/azurite" "$port" || { fail "azurite did not start"; return 1; }
	azurite_make_container traps || { fail "no container"; return 1; }
	spool_capture web || return
	secret_file sas "$(azurite_sas traps cw -60)" >/dev/null
	rules_with_upload "url = azblob://$AZURITE_ACCOUNT/traps" "endpoint = $AZURITE_URL" \
		"sas_token_file = $PWD/sas" "allow_insecure_credentials = yes"
	"$TRAPD" upload --direct -c rules.ini >out 2>err
	[ $? -eq 1 ] || { fail "expected exit 1: $(cat out err)"; return 1; }
	grep -q 'HTTP 403' err || { fail "no 403: $(cat err)"; return 1; }
	grep -q 'sig=' err && { fail "the SAS token leaked: $(cat err)"; return 1; }
	ls spool/*.failed >/dev/null 2>&1 || { fail "not marked failed"; return 1; }
}

test_upload_secret_readable_by_others_is_refused() {
	spool_capture web 2>/dev/null || mkdir -p spool
	printf 'x\n' >secret && chmod 644 secret
	rules_with_upload "url = s3://traps" "endpoint = http://127.0.0.1:9" \
		"access_key_id_env = HOME" "secret_access_key_file = $PWD/secret" \
		"allow_insecure_credentials = yes"
	expect_status 2 "$TRAPD" upload --direct -c rules.ini || return
	echo "$LAST_STDERR" | grep -q "others can read or change it (mode 0644); chmod 600" ||
		{ fail "message: $LAST_STDERR"; return 1; }
	expect_status 2 "$TRAPD" daemon -c rules.ini --log stderr || return
}

# --- faults, with the daemon ----------------------------------------------------

# daemon_with_upload [KEY = VALUE...] - rules.ini with a quick manual
# capture and an [upload] of these lines; the daemon started on it.
daemon_with_upload() {
	{
		write_global "manual_duration = 300ms" "manual_frequency = 199Hz"
		printf '[upload]\nretry_min = 200ms\nretry_max = 1s\n'
		printf '%s\n' "$@"
	} >rules.ini
	start_daemon
}

# arm_capture - one manual capture, waited for until it is in the spool
# (or already sent).
arm_capture() {
	local before
	before=$(grep -c 'capture .* written' daemon.log)
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm failed"; return 1; }
	wait_for 10 written_more "$before" || { fail "no capture written: $(cat daemon.log)"; return 1; }
}

written_more() {
	[ "$(grep -c 'capture .* written' daemon.log)" -gt "$1" ]
}

# stored_profiles DIR - how many profiles a file store (nginx, fault) holds.
stored_profiles() {
	find "$1" -name '*.pb.zst' -type f | wc -l
}

transient_at_least() {
	[ "$(status_json_field upload.transient_failures)" -ge "$1" ]
}

# The daemon's log and status name a capture's spool file, which leaves
# once uploaded: they then name its URL, and `trapd report` of the spool
# path says where it went.
test_upload_sent_capture_is_named_where_it_went() {
	need_root_bpf || return
	daemon_with_upload "url = file://$PWD/archive"
	arm_capture || return
	wait_for 10 grep -q '^trapd: uploaded ' daemon.log || { fail "not uploaded: $(cat daemon.log)"; return 1; }
	local path url name gone
	path=$(sed -n 's/^trapd: capture .* written: \(.*\) ([0-9]* samples.*/\1/p' daemon.log | tail -1)
	url=$(sed -n 's/^trapd: uploaded .* to \(.*\) ([0-9]* bytes)$/\1/p' daemon.log | tail -1)
	name=$(basename "$path")
	[ -n "$path" ] && [ ! -e "$path" ] || { fail "spool path '$path' still there or not logged"; return 1; }
	case $url in
	"file://$PWD/archive/$(hostname)/"*.pb.zst) ;;
	*) fail "the log names no URL: $(grep uploaded daemon.log)"; return 1 ;;
	esac
	"$TRAPD" status -S ctl.sock >status.out || { fail "status"; return 1; }
	grep -qF "; last $url at " status.out || { fail "status names no URL: $(cat status.out)"; return 1; }
	[ "$(status_json_field upload.last_sent.url)" = "$url" ] || { fail "status --json: no last_sent.url"; return 1; }
	"$TRAPD" report "$path" >report.out 2>report.err
	[ $? = 2 ] && grep -qF "$path: no longer in the spool: it was uploaded to $url" report.err ||
		{ fail "report of the gone spool path: $(cat report.err)"; return 1; }
	"$TRAPD" report "$url" >report.out 2>report.err && grep -q '^Total: ' report.out ||
		{ fail "report of its URL: $(cat report.err)"; return 1; }
	# a spool name the spool does not remember: why such a path goes
	gone=$(dirname "$path")/9${name#?}
	"$TRAPD" report "$gone" >report.out 2>report.err
	[ $? = 2 ] && grep -qF "no longer in the spool $(dirname "$path"): a capture leaves it once" report.err ||
		{ fail "report of an unknown spool path: $(cat report.err)"; return 1; }
	stop_daemon
}

test_upload_backend_down_then_up_arrives_once() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port
	port=$(servers_free_port) || return
	daemon_with_upload "url = http://127.0.0.1:$port/store/"
	arm_capture || return
	wait_for 10 transient_at_least 2 || { fail "no retries seen: $(cat daemon.log)"; return 1; }
	grep -q 'retrying in .*Couldn.t connect\|retrying in .*onnection refused' daemon.log ||
		{ fail "refusal not logged: $(cat daemon.log)"; return 1; }
	nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	wait_for 15 spool_empty || { fail "capture not sent once the server came up: $(cat daemon.log)"; return 1; }
	[ "$(stored_profiles nginx/store)" -eq 1 ] || { fail "expected 1 stored profile"; return 1; }
	[ "$(find nginx/store -name '*.json' | wc -l)" -eq 1 ] || { fail "expected 1 sidecar"; return 1; }
	stop_daemon
}

# maps_libcurl PID - whether PID has libcurl mapped.
maps_libcurl() {
	grep -q '/libcurl\.so\.4' "/proc/$1/maps"
}

# libcurl (and the 28 libraries it needs) is loaded by the uploader of an
# HTTP backend only: a capture, a daemon that keeps its captures and one
# uploading to files never load it, and a missing libcurl cannot stop them.
test_upload_libcurl_loaded_only_for_http() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port
	readelf -d "$TRAPD" | grep -q 'NEEDED.*libcurl' && { fail "trapd is linked with libcurl"; return 1; }
	# libcurl unloadable (an empty file over it, in a mount namespace of
	# its own): a capture works, an HTTP uploader says why it cannot start
	local lib st
	lib=$(readlink -f "$(ldconfig -p | awk '/libcurl\.so\.4 .*x86-64/ { print $NF; exit }')")
	[ -f "$lib" ] || { fail "libcurl.so.4 not found"; return 1; }
	rules_with_upload "url = http://127.0.0.1:9/store/"
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && "$@"' sh "$lib" \
		"$TRAPD" -q capture -a -d 100ms -o "$PWD/nocurl.pb.zst" 2>err ||
		{ fail "capture without libcurl: $(cat err)"; return 1; }
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && "$@"' sh "$lib" \
		"$TRAPD" daemon -c rules.ini --log stderr 2>err
	st=$?
	[ "$st" -eq 1 ] && grep -q 'rules.ini:[0-9]*: \[upload\]: loading libcurl: .*libcurl.so.4' err ||
		{ fail "daemon without libcurl: status $st, $(cat err)"; return 1; }
	daemon_with_upload "url = file://$PWD/archive"
	arm_capture || return
	wait_for 10 spool_empty || { fail "file upload did not happen: $(cat daemon.log)"; return 1; }
	maps_libcurl "$DAEMON" && { fail "a daemon uploading to files loaded libcurl"; return 1; }
	stop_daemon
	port=$(servers_free_port) && nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	daemon_with_upload "url = $NGINX_URL/store/"
	maps_libcurl "$DAEMON" || { fail "the HTTP uploader did not load libcurl"; return 1; }
	arm_capture || return
	wait_for 15 spool_empty || { fail "capture not sent: $(cat daemon.log)"; return 1; }
	[ "$(stored_profiles nginx/store)" -eq 1 ] || { fail "expected 1 stored profile"; return 1; }
	stop_daemon
}

test_upload_500s_and_timeouts_are_retried_with_backoff() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port
	port=$(servers_free_port) && fault_start "$PWD/fault" "$port" status:500:3 hang:1 ||
		{ fail "fault server did not start"; return 1; }
	daemon_with_upload "url = $FAULT_URL/store/" "timeout = 1s"
	arm_capture || return
	wait_for 20 spool_empty || { fail "not sent after 500s and a timeout: $(cat daemon.log)"; return 1; }
	[ "$(grep -c 'HTTP 500' daemon.log)" -eq 3 ] || { fail "expected 3 logged 500s: $(cat daemon.log)"; return 1; }
	grep -q 'retrying in .*imeout\|retrying in .*timed out' daemon.log ||
		{ fail "timeout not logged: $(cat daemon.log)"; return 1; }
	[ "$(stored_profiles fault/store)" -eq 1 ] || { fail "expected 1 stored profile"; return 1; }
	# the waits grew: each retry's logged delay at least the one before it halved
	python3 - fault/requests.log <<'PY' || { fail "requests did not back off: $(cat fault/requests.log)"; return 1; }
import datetime, json, sys
t = [datetime.datetime.fromisoformat(json.loads(l)["time"]).timestamp()
     for l in open(sys.argv[1])]
gaps = [b - a for a, b in zip(t, t[1:])][:4]
assert len(gaps) >= 3 and gaps[0] >= 0.09, gaps
assert gaps[2] > gaps[0], gaps
PY
	stop_daemon
}

puts_more_than() {
	[ "$(grep -c '"PUT"' nginx/access.log)" -gt "$1" ]
}

marked_failed() {
	ls spool/*.failed >/dev/null 2>&1
}

test_upload_403_is_reported_not_retried_forever() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port n
	port=$(servers_free_port) && nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	daemon_with_upload "url = $NGINX_URL/status/403/"
	arm_capture || return
	wait_for 10 marked_failed || { fail "not marked failed: $(cat daemon.log)"; return 1; }
	grep -q 'refused, not retrying.*HTTP 403' daemon.log || { fail "403 not reported: $(cat daemon.log)"; return 1; }
	n=$(grep -c '"PUT"' nginx/access.log)
	sleep 3
	[ "$(grep -c '"PUT"' nginx/access.log)" -eq "$n" ] || { fail "a 403 was retried"; return 1; }
	[ "$(status_json_field upload.failed)" -eq 1 ] || { fail "status does not show it failed"; return 1; }
	"$TRAPD" status -S ctl.sock | grep -q '^upload: .*1 failed' || { fail "text status: $("$TRAPD" status -S ctl.sock)"; return 1; }
	"$TRAPD" upload --failed -S ctl.sock >/dev/null || { fail "trapd upload --failed"; return 1; }
	wait_for 5 puts_more_than "$n" || { fail "--failed did not retry"; return 1; }
	stop_daemon
}

status_fast() {
	local t0 t1
	t0=$(date +%s%N)
	"$TRAPD" status -S ctl.sock >/dev/null || return 1
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 500 ]
}

in_flight() {
	[ "$(status_json_field upload.in_flight)" != None ]
}

test_upload_slow_server_does_not_hold_up_the_daemon() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port
	port=$(servers_free_port) && fault_start "$PWD/fault" "$port" slow:20 ||
		{ fail "fault server did not start"; return 1; }
	daemon_with_upload "url = $FAULT_URL/store/"
	arm_capture || return
	wait_for 5 in_flight || { fail "upload never in flight"; return 1; }
	status_fast || { fail "status slow or failing while uploading"; return 1; }
	arm_capture || { fail "a second capture could not be taken during the upload"; return 1; }
	in_flight || { fail "the upload finished too soon to show anything"; return 1; }
	stop_daemon
}

test_upload_sigkill_mid_upload_arrives_exactly_once() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port nport orig
	port=$(servers_free_port) && fault_start "$PWD/fault" "$port" slow:30 ||
		{ fail "fault server did not start"; return 1; }
	daemon_with_upload "url = $FAULT_URL/store/"
	arm_capture || return
	orig=$(ls spool/*.pb.zst)
	cp "$orig" original.pb.zst
	wait_for 5 in_flight || { fail "upload never in flight"; return 1; }
	kill -KILL "$DAEMON"
	wait "$DAEMON" 2>/dev/null
	[ -f "$orig" ] || { fail "the capture left the spool without being confirmed"; return 1; }
	nport=$(servers_free_port) && nginx_start "$PWD/nginx" "$nport" || { fail "nginx did not start"; return 1; }
	sed -i "s|^url = .*|url = $NGINX_URL/store/|" rules.ini
	start_daemon || return
	wait_for 15 spool_empty || { fail "not sent after the restart: $(cat daemon.log)"; return 1; }
	[ "$(stored_profiles nginx/store)" -eq 1 ] || { fail "expected exactly 1 profile"; return 1; }
	compare_object original.pb.zst "$(find nginx/store -name '*.pb.zst')" "after SIGKILL" || return
	stop_daemon
}

test_upload_spool_full_drops_oldest_keeps_newest() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port kept
	port=$(servers_free_port) || return
	{
		write_global "manual_duration = 200ms" "spool_max_files = 2"
		printf '[upload]\nurl = http://127.0.0.1:%s/store/\nretry_min = 5s\nretry_max = 5s\n' "$port"
	} >rules.ini
	start_daemon || return
	arm_capture && arm_capture && arm_capture && arm_capture || return
	[ "$(captures)" -eq 2 ] || { fail "spool holds $(captures), expected 2"; return 1; }
	[ "$(grep -c 'spool full: dropped the oldest' daemon.log)" -eq 2 ] || { fail "drops not logged"; return 1; }
	[ "$(status_json_field spool.dropped)" -eq 2 ] || { fail "drops not counted"; return 1; }
	kept=$(ls spool/*.pb.zst | sed 's|.*/||' | sort)
	nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	"$TRAPD" upload -S ctl.sock >/dev/null
	wait_for 15 spool_empty || { fail "not sent: $(cat daemon.log)"; return 1; }
	[ "$(stored_profiles nginx/store)" -eq 2 ] || { fail "expected the 2 newest to arrive"; return 1; }
	echo "$kept" | tail -1 | grep -q . || return 1
	stop_daemon
}

test_capture_disk_full_is_reported_and_leaves_nothing() {
	need_root_bpf || return
	mkdir -p spool
	mount -t tmpfs -o size=64k,mode=0750 trapd-it-full "$PWD/spool" || { skip "cannot mount a tmpfs"; return 77; }
	dd if=/dev/zero of=spool/filler bs=4k count=15 2>/dev/null
	{
		write_global "manual_duration = 500ms" "manual_frequency = 999Hz"
	} >rules.ini
	start_daemon || { umount "$PWD/spool"; return 1; }
	"$TRAPD" arm -S ctl.sock >/dev/null
	wait_for 10 grep -q 'capture .*lost:.*disk full' daemon.log ||
		{ fail "no disk-full error: $(cat daemon.log)"; umount "$PWD/spool"; return 1; }
	local leftovers
	leftovers=$(ls spool | grep -v '^filler$')
	"$TRAPD" status -S ctl.sock >/dev/null || { fail "daemon died"; umount "$PWD/spool"; return 1; }
	stop_daemon
	umount "$PWD/spool"
	[ -z "$leftovers" ] || { fail "left in the spool: $leftovers"; return 1; }
}

test_upload_https_verifies_the_server_and_takes_a_ca_file() {
	need_root_bpf || return
	need_servers || return
	up_servers
	local port o key
	mkdir -p nginx
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=trapd-test \
		-addext subjectAltName=IP:127.0.0.1 -keyout nginx/tls.key -out nginx/tls.crt \
		2>/dev/null || { fail "openssl could not make a certificate"; return 1; }
	port=$(servers_free_port) && nginx_start "$PWD/nginx" "$port" || { fail "nginx did not start"; return 1; }
	case $NGINX_URL in https://*) ;; *) fail "nginx is not on https: $NGINX_URL"; return 1 ;; esac
	spool_capture web || return
	# an unknown issuer: refused for good, not retried
	rules_with_upload "url = $NGINX_URL/store/"
	"$TRAPD" upload --direct -c rules.ini >out 2>err
	[ $? -eq 1 ] || { fail "an unverified server was accepted: $(cat out err)"; return 1; }
	grep -qi 'certificate' err || { fail "no certificate error: $(cat err)"; return 1; }
	marked_failed || { fail "not marked failed"; return 1; }
	# its CA given: sent
	rules_with_upload "url = $NGINX_URL/store/" "ca_file = $PWD/nginx/tls.crt"
	"$TRAPD" upload --direct --failed -c rules.ini >out 2>err || { fail "with ca_file: $(cat err)"; return 1; }
	o=$(ls originals/*.pb.zst)
	key=$(object_key "$o")
	curl -sSf --cacert nginx/tls.crt -o got.pb.zst "$NGINX_URL/store/$key.pb.zst" || { fail "GET"; return 1; }
	compare_object "$o" got.pb.zst "HTTPS profile" || return
}
