# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_fleet.sh - the fleet view on real stores: 200 real captures (trapd
# capture of a burner, each its own bytes) made a fleet of 5 hosts, 3 roles
# and 3 days (tests/integration/fleet/make_fleet.py rewrites only their
# sidecars, as each host's daemon would have written them), uploaded by
# trapd's own uploader (`trapd upload --direct`, one UTS namespace per host
# so the keys carry its name) to a directory, to OpenStack Swift's S3 API
# and to Azurite; then `trapd captures ls` with paging forced and every
# filter checked against the expected subset (fleet/expect.py), the cache
# on the second listing, `trapd merge` sums, report and diff from a URL,
# a corrupt and a missing sidecar left out, a store that fails.

. "$(dirname "${BASH_SOURCE[0]}")/../servers/lib.sh"

FLEET_N=${FLEET_N:-200}
FLEET_PY=/usr/bin/python3
FLEET_DIR=$PWD/tests/integration/fleet

# fleet_fixture - the fleet's spools, made once a run in $SCRATCH/fleet.
fleet_fixture() {
	local d=${FLEET_FIXTURE_DIR:-$SCRATCH/fleet} i burner
	[ -s "$d/expected.json" ] && { FLEET=$d; return 0; }
	rm -rf "$d" && mkdir -p "$d/raw" || return 1
	"$WORKLOADS/burner" 600 2 >/dev/null 2>&1 &
	burner=$!
	for ((i = 0; i < FLEET_N; i++)); do
		# two frequencies, so that merging is by time
		"$TRAPD" -q capture -p "$burner" -d 30ms -F $((i % 4 ? 199 : 97)) \
			-o "$d/raw/$(printf '%04d' "$i").pb.zst" 2>"$d/capture.err" ||
			{ kill "$burner"; fail "capture $i: $(cat "$d/capture.err")"; return 1; }
	done
	kill "$burner"
	wait "$burner" 2>/dev/null
	"$FLEET_PY" "$FLEET_DIR/make_fleet.py" "$d/raw" "$d" >/dev/null ||
		{ fail "make_fleet.py failed"; return 1; }
	FLEET=$d
}

# fleet_upload RULES_BODY... - upload the fleet with an [upload] of these
# lines, each host's spool from a UTS namespace named after it.
fleet_upload() {
	local h
	for h in web-1 web-2 db-1 db-2 cache-1; do
		rm -rf "spool-$h" && cp -a "$FLEET/$h/spool" "spool-$h" || return 1
		{
			printf '[global]\nspool_dir = %s/spool-%s\ncontrol_socket = %s/ctl.sock\n' \
				"$PWD" "$h" "$PWD"
			printf '[upload]\n'
			printf '%s\n' "$@"
		} >"rules-$h.ini"
		unshare --uts sh -c 'hostname "$1" && exec "$2" -q upload --direct -c "$3"' sh \
			"$h" "$TRAPD" "rules-$h.ini" >upload.out 2>upload.err ||
			{ fail "upload of $h: $(cat upload.err)"; return 1; }
	done
	cp rules-web-1.ini rules.ini
}

# ls_expect WHAT [FILTER...] - trapd captures ls STORE (in $STORE, with
# $LS_ARGS) --json with FILTER checked against the fleet.
ls_expect() {
	local what=$1 got
	shift
	# shellcheck disable=SC2086 # LS_ARGS are words
	"$TRAPD" captures ls "$STORE" $LS_ARGS --json "$@" >ls.json 2>ls.err ||
		{ fail "$what: ls exited $?: $(cat ls.err)"; return 1; }
	got=$(fleet_filter_args "$@")
	# shellcheck disable=SC2086
	"$FLEET_PY" "$FLEET_DIR/expect.py" "$FLEET/expected.json" ls.json $got >expect.out ||
		{ fail "$what: $(cat expect.out)"; return 1; }
}

# fleet_filter_args FILTER... - the filters with times as ns for expect.py.
fleet_filter_args() {
	while [ $# -gt 1 ]; do
		case $1 in
		--since | --until)
			printf '%s %s ' "$1" "$(date -u -d "$2" +%s)000000000" ;;
		--page-size) ;;
		*) printf '%s %s ' "$1" "$2" ;;
		esac
		shift 2
	done
}

json_field() {
	"$FLEET_PY" -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k] if not k.isdigit() else v[int(k)]
print(v)' "$@"
}

# fleet_checks - every filter, the cache, merge, report from a URL; the
# store in $STORE, listing options in $LS_ARGS.
fleet_checks() {
	ls_expect "all captures" || return
	[ "$(json_field ls.json listing.left_out)" = 0 ] || { fail "left out: $(cat ls.err)"; return 1; }
	ls_expect "one host" --host db-2 || return
	ls_expect "two hosts" --host db-2 --host web-1 || return
	ls_expect "a rule" --rule psi-cpu || return
	ls_expect "a rule on a role" --rule cpu-high --label role=web || return
	ls_expect "two roles" --label role=db --label role=cache || return
	ls_expect "manual" --trigger manual || return
	ls_expect "a day" --since 2026-11-24 --until 2026-11-24T23:59:59Z || return
	ls_expect "hours" --since 2026-11-25T06:00:00Z --until 2026-11-25T18:00:00Z --host web-2 ||
		return
	ls_expect "nothing" --label role=none || return
}

# fleet_merge_checks - merge by role: each group's samples are its
# members' (the 97 Hz ones converted to the 199 Hz period, by time).
fleet_merge_checks() {
	# shellcheck disable=SC2086
	"$TRAPD" merge "$STORE" $LS_ARGS --group-by label:role --rule cpu-high -o merged \
		>merge.out 2>merge.err || { fail "merge: $(cat merge.err)"; return 1; }
	"$FLEET_PY" - "$FLEET/expected.json" merged <<'PY' >merge.check || { fail "merge: $(cat merge.check)"; return 1; }
import json, os, sys
exp = json.load(open(sys.argv[1]))
for role in ("web", "db", "cache"):
    members = [c for c in exp if c["role"] == role and "cpu-high" in c["rules"]]
    side = json.load(open(os.path.join(sys.argv[2], "label-role-%s.json" % role)))
    period = min(c["period_ns"] for c in members)
    want = sum(c["samples"] * c["period_ns"] for c in members) / period
    if len(side["members"]) != len(members):
        sys.exit("%s: %d members, want %d" % (role, len(side["members"]), len(members)))
    if abs(side["samples"] - want) > 1 or side["period_ns"] != period:
        sys.exit("%s: %s samples at %s ns, want %.1f at %d" % (role, side["samples"],
                 side["period_ns"], want, period))
    print(role, side["samples"])
PY
	"$TRAPD" report merged/label-role-web.pb.zst >report.out 2>report.err ||
		{ fail "report of a merge: $(cat report.err)"; return 1; }
	grep -q burn report.out || { fail "merged web profile has no burner: $(head report.out)"; return 1; }
	"$TRAPD" report merged/label-role-db.pb.zst --pprof db.pb.gz >/dev/null 2>report.err &&
		go tool pprof -top db.pb.gz >pprof.out 2>&1 ||
		{ fail "go tool pprof cannot read a merge: $(head pprof.out)"; return 1; }
	grep -q burn pprof.out || { fail "go tool pprof: no burner in the merge: $(head pprof.out)"; return 1; }
}

# fleet_url_checks - report and diff read captures by URL.
fleet_url_checks() {
	local a b
	"$TRAPD" captures ls "$STORE" --host web-1 --json >ls.json 2>ls.err ||
		{ fail "ls for URLs: $(cat ls.err)"; return 1; }
	a=$(json_field ls.json captures.0.url) && b=$(json_field ls.json captures.1.url) || return 1
	"$TRAPD" report "$a" >report.out 2>report.err ||
		{ fail "report $a: $(cat report.err)"; return 1; }
	grep -q '^Total: ' report.out || { fail "report of a URL: $(head report.out)"; return 1; }
	"$TRAPD" diff "$a" "$b" >diff.out 2>diff.err
	[ $? -le 3 ] || { fail "diff of two URLs: $(cat diff.err)"; return 1; }
}

# fleet_bad_sidecars KEY_OF_PROFILE_DEL KEY_OF_CORRUPT - after the store
# lost one sidecar and holds a corrupt one, both are named and left out,
# the rest listed.
fleet_bad_sidecars() {
	# shellcheck disable=SC2086
	"$TRAPD" captures ls "$STORE" $LS_ARGS --json >bad.json 2>bad.err ||
		{ fail "ls with bad sidecars exited $?: $(cat bad.err)"; return 1; }
	[ "$(json_field bad.json listing.left_out)" = 2 ] ||
		{ fail "expected 2 left out: $(cat bad.err)"; return 1; }
	grep -q "$1: no sidecar" bad.err || { fail "missing sidecar not named: $(cat bad.err)"; return 1; }
	grep -q "$2: sidecar unreadable" bad.err || { fail "corrupt sidecar not named: $(cat bad.err)"; return 1; }
	[ "$("$FLEET_PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["captures"]))' bad.json)" = \
		$((FLEET_N - 2)) ] || { fail "the others are not all listed"; return 1; }
}

# fleet_oversized_sidecar KEY - a sidecar of 4.2 MB (120,000 labels:
# valid JSON, larger than any capture's) planted at KEY by whoever can
# write to the store is named and left out, the rest listed and merged
# (it made ls and merge exit 1 for every filter that held its host).
fleet_oversized_sidecar() {
	local left
	left=$(json_field bad.json listing.left_out) || return 1
	"$FLEET_PY" - "store/$1.json" <<'PY' || { fail "cannot plant the sidecar"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
d["labels"] = {"label%06d" % i: "v" * 16 for i in range(120000)}
json.dump(d, open(sys.argv[1], "w"))
PY
	timeout 60 "$TRAPD" captures ls store --json >big.json 2>big.err ||
		{ fail "ls beside a 4.2 MB sidecar exited $?: $(head -c 600 big.err)"; return 1; }
	[ "$(json_field big.json listing.left_out)" = $((left + 1)) ] ||
		{ fail "the oversized sidecar is not left out: $(head -c 600 big.err)"; return 1; }
	grep -q "$1: sidecar of [0-9]* bytes, over the" big.err ||
		{ fail "the oversized sidecar is not named: $(head -c 600 big.err)"; return 1; }
	timeout 60 "$TRAPD" merge store --group-by host -o big-merge >big-merge.out 2>big-merge.err ||
		{ fail "merge beside a 4.2 MB sidecar exited $?: $(head -c 600 big-merge.err)"; return 1; }
	grep -q "$1: sidecar of" big-merge.err ||
		{ fail "merge does not name the oversized sidecar: $(head -c 600 big-merge.err)"; return 1; }
	ls big-merge/*.pb.zst >/dev/null 2>&1 || { fail "merge wrote nothing: $(cat big-merge.out)"; return 1; }
}

# fleet_zstd_bomb KEY - a profile planted beside capture KEY (its
# sidecar, its host) by whoever can write to the store: 4 M unique
# 250-byte strings, 1 GB of pprof under the old 1 GiB and string caps,
# compressed to a few MB. merge read it for 27.5 s and 2.27 GB; it must
# be named and left out within a bounded time and memory, the rest merged.
fleet_zstd_bomb() {
	local dir sha
	dir=store/$(dirname "$1")
	"$FLEET_PY" - <<'PY' | zstd -q -1 -T0 >bomb.pb.zst || { fail "cannot make the bomb"; return 1; }
import sys
out = sys.stdout.buffer
out.write(b"\x32\x00")  # string_table[0] = ""
pad = b"s" * 240
for chunk in range(40):
    out.write(b"".join(b"\x32\xfa\x01" + b"%010d" % i + pad
                       for i in range(chunk * 100000, (chunk + 1) * 100000)))
PY
	sha=$(sha256sum bomb.pb.zst | cut -d' ' -f1)
	cp bomb.pb.zst "$dir/$sha.pb.zst" && cp "store/$1.json" "$dir/$sha.json" || return 1
	"$FLEET_PY" - "$TRAPD" merge store --group-by host -o bomb-merge >bomb.rss 2>bomb-merge.err <<'PY' ||
import resource, subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=open("bomb-merge.out", "w"), timeout=120)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, round(time.monotonic() - t, 1))
sys.exit(r.returncode)
PY
		{ fail "merge beside a zstd bomb exited $?: $(head -c 600 bomb-merge.err)"; return 1; }
	grep -q "$dir/$sha: .*decompresses to more than .*: left out" bomb-merge.err ||
		{ fail "the bomb is not named: $(head -c 600 bomb-merge.err)"; return 1; }
	set -- $(cat bomb.rss)
	[ "$1" -lt 400 ] || { fail "merge beside the bomb took $1 MiB (bound 400)"; return 1; }
	[ "$(grep -c '^host=' bomb-merge.out)" = 5 ] || { fail "not every host merged: $(cat bomb-merge.out)"; return 1; }
	echo "   the bomb: merge took $1 MiB, $2 s" >&2
	rm "$dir/$sha.pb.zst" "$dir/$sha.json"
}

test_fleet_directory_store() {
	need_root_bpf || return
	fleet_fixture || return
	fleet_upload "url = file://$PWD/store" || return
	STORE=$PWD/store LS_ARGS="--page-size 7"
	fleet_checks || return
	fleet_merge_checks || return
	STORE=rules.ini fleet_url_checks || return
	local k1 k2
	STORE=rules.ini ls_expect "for keys" || return
	k1=$(json_field ls.json captures.3.key) && k2=$(json_field ls.json captures.4.key) || return 1
	rm "store/$k1.json" && printf '{"format": "trapd-capture/1", "window": ' >"store/$k2.json"
	fleet_bad_sidecars "$k1" "$k2" || return
	fleet_oversized_sidecar "$(json_field ls.json captures.6.key)" || return
	fleet_zstd_bomb "$(json_field ls.json captures.7.key)" || return
	# a link planted in the store is never followed
	ln -s /etc "store/web-1/2026/11/evil" && ln -s /etc/passwd "store/web-1/2026/11/23/$(printf 'a%.0s' {1..64}).json"
	"$TRAPD" captures ls store --host web-1 --json >link.json 2>link.err ||
		{ fail "ls with links: $(cat link.err)"; return 1; }
	grep -q aaaaaaaa link.json link.err && { fail "a link was followed: $(cat link.err)"; return 1; }
	# a FIFO planted as a sidecar hangs nothing; a host named with an
	# escape sequence reaches the terminal escaped
	local k3 url3
	k3=$(json_field ls.json captures.5.key) && url3=$(json_field ls.json captures.5.url) || return 1
	rm "store/$k3.json" && mkfifo "store/$k3.json" || return 1
	TRAPD_CACHE_DIR=$PWD/cache timeout 20 "$TRAPD" report "$url3" >fifo.out 2>fifo.err ||
		{ fail "report with a FIFO for its sidecar exited $?: $(cat fifo.err)"; return 1; }
	mkdir -p "store/evil$(printf '\033')[31m/2026/11/25" &&
		cp "store/$k3.pb.zst" "store/evil$(printf '\033')[31m/2026/11/25/$(basename "$k3").pb.zst" || return 1
	"$TRAPD" captures ls store --brief >esc.out 2>esc.err || { fail "ls: $(cat esc.err)"; return 1; }
	grep -q "$(printf '\033')" esc.out esc.err && { fail "an escape byte reached the terminal"; return 1; }
	grep -q 'evil\\x1b\[31m' esc.out || { fail "the escaped host is not listed: $(grep evil esc.out)"; return 1; }
	return 0
}

test_fleet_s3_swift_store() {
	need_root_bpf || return
	need_servers || return
	up_servers
	fleet_fixture || return
	local port
	port=$(servers_free_port) && swift_start "$PWD/swift" "$port" || { fail "swift did not start"; return 1; }
	swift_make_bucket fleet || { fail "no bucket"; return 1; }
	fleet_upload "url = s3://fleet/prod" "endpoint = $SWIFT_S3_URL" \
		"access_key_id_file = $(secret_file id "$SWIFT_S3_ACCESS_KEY")" \
		"secret_access_key_file = $(secret_file secret "$SWIFT_S3_SECRET_KEY")" \
		"allow_insecure_credentials = yes" || return
	export TRAPD_CACHE_DIR=$PWD/cache
	STORE=rules.ini LS_ARGS="--page-size 7"
	fleet_checks || return
	# the second listing reads no sidecar: all from the cache
	ls_expect "cached" || return
	[ "$(json_field ls.json listing.sidecars_read)" = 0 ] ||
		{ fail "second listing read sidecars: $(json_field ls.json listing)"; return 1; }
	fleet_merge_checks || return
	# credentials go over plain http:// only when the user says so, as
	# the uploader's do: not even to the loopback interface, where any
	# local user can hold a port
	AWS_ACCESS_KEY_ID=$SWIFT_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SWIFT_S3_SECRET_KEY \
		AWS_ENDPOINT_URL=$SWIFT_S3_URL "$TRAPD" captures ls s3://fleet/prod >/dev/null 2>insecure.err
	[ $? = 2 ] && grep -q "endpoint $SWIFT_S3_URL is plain http://.*clear text.*TRAPD_ALLOW_INSECURE_CREDENTIALS=yes" insecure.err ||
		{ fail "credentials to $SWIFT_S3_URL without consent: $(cat insecure.err)"; return 1; }
	AWS_ACCESS_KEY_ID=$SWIFT_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SWIFT_S3_SECRET_KEY \
		"$TRAPD" captures ls s3://fleet/prod --endpoint http://127.example.com:9 >/dev/null 2>insecure.err
	[ $? = 2 ] && grep -q 'clear text' insecure.err ||
		{ fail "credentials to http://127.example.com: $(cat insecure.err)"; return 1; }
	# a URL with the environment's settings, and consent
	export TRAPD_ALLOW_INSECURE_CREDENTIALS=yes
	AWS_ACCESS_KEY_ID=$SWIFT_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SWIFT_S3_SECRET_KEY \
		AWS_ENDPOINT_URL=$SWIFT_S3_URL STORE=s3://fleet/prod LS_ARGS="--page-size 50" \
		ls_expect "by URL" --host cache-1 || return
	grep -q testing ls.err ls.json && { fail "the secret key is in the output"; return 1; }
	grep -q "credentials go over plain http:// to $SWIFT_S3_URL" ls.err ||
		{ fail "no warning of credentials in clear text: $(cat ls.err)"; return 1; }
	AWS_ACCESS_KEY_ID=$SWIFT_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SWIFT_S3_SECRET_KEY \
		AWS_ENDPOINT_URL=$SWIFT_S3_URL STORE=s3://fleet/prod fleet_url_checks || return
	unset TRAPD_ALLOW_INSECURE_CREDENTIALS
	local k1 k2
	k1=$(json_field ls.json captures.0.key) && k2=$(json_field ls.json captures.1.key) || return 1
	swift_s3_curl -f -X DELETE -H "x-amz-content-sha256: $(sha256sum </dev/null | cut -d' ' -f1)" \
		"$SWIFT_S3_URL/fleet/prod/$k1.json" -o /dev/null || { fail "DELETE $k1.json"; return 1; }
	printf 'not json' >corrupt.json
	swift_s3_curl -f -X PUT -T corrupt.json -H "x-amz-content-sha256: $(sha256sum <corrupt.json | cut -d' ' -f1)" \
		"$SWIFT_S3_URL/fleet/prod/$k2.json" -o /dev/null || { fail "PUT $k2.json"; return 1; }
	STORE=rules.ini LS_ARGS="--page-size 7" fleet_bad_sidecars "$k1" "$k2" || return
	# a store that fails half way: nothing shown, how far it got said
	swift_stop "$PWD/swift"
	"$TRAPD" captures ls rules.ini --page-size 7 >down.out 2>down.err
	[ $? = 1 ] || { fail "a store that is down: exit $?"; return 1; }
	[ -s down.out ] && { fail "a failed listing printed: $(head -3 down.out)"; return 1; }
	grep -q "nothing is shown" down.err || { fail "failure message: $(cat down.err)"; return 1; }
	unset TRAPD_CACHE_DIR
}

test_fleet_azurite_store() {
	need_root_bpf || return
	need_servers || return
	up_servers
	fleet_fixture || return
	local port
	port=$(servers_free_port) && azurite_start "$PWD/azurite" "$port" || { fail "azurite did not start"; return 1; }
	azurite_make_container fleet || { fail "no container"; return 1; }
	fleet_upload "url = azblob://$AZURITE_ACCOUNT/fleet/prod" "endpoint = $AZURITE_URL" \
		"sas_token_file = $(secret_file sas "$(azurite_sas fleet racwdl)")" \
		"allow_insecure_credentials = yes" || return
	export TRAPD_CACHE_DIR=$PWD/cache
	STORE=rules.ini LS_ARGS="--page-size 7"
	fleet_checks || return
	# the listing's metadata describe every capture: no sidecar read
	[ "$(json_field ls.json listing.sidecars_read)" = 0 ] ||
		{ fail "Azure listing read sidecars: $(json_field ls.json listing)"; return 1; }
	fleet_merge_checks || return
	unset TRAPD_CACHE_DIR
}

# The CI trap's baseline kept in the store: main's capture uploaded by
# trapd's uploader, a 30 % slower compute_hash then fails the job against
# its URL, named, as it does against a file.
test_fleet_ci_baseline_from_the_store() {
	need_root_bpf || return
	local st url
	"$TRAPD" ci -F "$CI_FREQ" -o base -- "$WORKLOADS/ciwork" "$CI_ITER_AB" >base.log 2>&1 ||
		{ fail "the baseline run failed: $(cat base.log)"; return 1; }
	mkdir -m 700 spool && cp base/profile.pb.zst spool/20261127T120000Z-ci-00000001.pb.zst &&
		cp base/profile.json spool/20261127T120000Z-ci-00000001.json || return 1
	printf '[global]\nspool_dir = %s/spool\ncontrol_socket = %s/ctl.sock\n[upload]\nurl = file://%s/store\n' \
		"$PWD" "$PWD" "$PWD" >rules.ini
	"$TRAPD" -q upload --direct -c rules.ini >/dev/null 2>up.err || { fail "upload: $(cat up.err)"; return 1; }
	url=$("$TRAPD" captures ls rules.ini --json 2>ls.err | "$FLEET_PY" -c \
		'import json,sys; print(json.load(sys.stdin)["captures"][0]["url"])') ||
		{ fail "no baseline listed: $(cat ls.err)"; return 1; }
	TRAPD_CACHE_DIR=$PWD/cache "$TRAPD" ci -F "$CI_FREQ" --baseline "$url" -o slow -- \
		"$WORKLOADS/ciwork" -s 30 "$CI_ITER_AB" >slow.log 2>&1
	st=$?
	[ "$st" -eq 3 ] || { fail "against $url a 30 % slower compute_hash exited $st: $(tail -5 slow.log)"; return 1; }
	grep -q 'compute_hash' slow/summary.md || { fail "compute_hash not named: $(head slow/summary.md)"; return 1; }
	# a store that hands back other bytes than the key's digest is refused
	rm -rf cache && printf 'x' >>"store/${url#file://$PWD/store/}"
	TRAPD_CACHE_DIR=$PWD/cache "$TRAPD" report "$url" >bad.out 2>bad.err
	st=$?
	[ "$st" -eq 1 ] && grep -q 'does not have the SHA-256 its key names' bad.err ||
		{ fail "a tampered profile was read (exit $st): $(cat bad.err)"; return 1; }
}

# host_capture_with_history HOST HIST_HZ WINDOW_HZ - a daemon whose flight
# recorder runs at HIST_HZ takes one manual capture at WINDOW_HZ of a
# busy host; its spool is uploaded to ./store as HOST's.
host_capture_with_history() {
	rm -rf spool daemon.log
	write_global "history_frequency = $2Hz" 'history_window = 6s' \
		"manual_frequency = $3Hz" 'manual_duration = 1s' >rules.ini
	start_daemon || return
	sleep 4 # seconds for the recorder to remember
	"$TRAPD" arm -S ctl.sock >/dev/null || { fail "arm on $1"; return 1; }
	wait_for 10 grep -q 'capture .* written' daemon.log || { fail "no capture on $1: $(cat daemon.log)"; return 1; }
	stop_daemon
	printf '[global]\nspool_dir = %s/spool\ncontrol_socket = %s/ctl.sock\n[upload]\nurl = file://%s/store\n' \
		"$PWD" "$PWD" "$PWD" >"upload-$1.ini"
	unshare --uts sh -c 'hostname "$1" && exec "$2" -q upload --direct -c "$3"' sh \
		"$1" "$TRAPD" "upload-$1.ini" >upload.out 2>upload.err ||
		{ fail "upload of $1: $(cat upload.err)"; return 1; }
}

# Captures that hold the seconds before their trigger, of different
# recorder and window rates, merged: every phase keeps its own rate, and
# the table, the merged file (read by go tool pprof) and trapd report
# agree with the members to within one period each. `trapd merge` summed
# the history's counts as if of the window's rate: a group's time was a
# third of its members', the groups did not add up to 'all', and
# `report --phase before` of a merge claimed more CPU than 2 CPUs have.
test_fleet_merge_keeps_each_phase_and_rate() {
	need_root_bpf || return
	command -v go >/dev/null || { skip "no go for go tool pprof"; return 77; }
	local burner
	start_bg burner "$WORKLOADS/burner" 60 1
	host_capture_with_history web-1 19 99 || return
	host_capture_with_history web-2 49 199 || return
	kill "$burner"
	"$TRAPD" merge store --group-by host -o byhost >byhost.out 2>merge.err &&
		"$TRAPD" merge store -o all >all.out 2>>merge.err ||
		{ fail "merge: $(cat merge.err)"; return 1; }
	local f phase
	# the independent reader: go tool pprof's total of each file, in ns
	for f in store/*/*/*/*/*.pb.zst byhost/*.pb.zst all/*.pb.zst; do
		"$TRAPD" report "$f" --pprof "$f.pb.gz" >/dev/null 2>report.err ||
			{ fail "report --pprof $f: $(cat report.err)"; return 1; }
		printf '%s %s\n' "$f" "$(go tool pprof -sample_index=cpu -unit=ns -top -nodecount=1 "$f.pb.gz" 2>/dev/null |
			sed -n 's/.* of \([0-9.]*\)ns total.*/\1/p')" >>pprof.totals
		for phase in before during all; do
			"$TRAPD" report "$f" --phase "$phase" --top 1 2>/dev/null |
				sed -n "s|^Total: \([0-9]*\) samples over \([0-9.]*\)s at \([0-9]*\) Hz.*|$f $phase \1 \2 \3|p" >>report.totals
		done
	done
	/usr/bin/python3 - "$(nproc)" <<'PY' >check.out 2>&1 || { fail "$(cat check.out)"; return 1; }
import glob, json, sys
ncpu = int(sys.argv[1])
pprof = {l.split()[0]: float(l.split()[1]) for l in open("pprof.totals") if len(l.split()) == 2}
rep = {}
for l in open("report.totals"):
    f, ph, n, d, hz = l.split()
    rep[(f, ph)] = (int(n), float(d), int(hz))
members = sorted(glob.glob("store/*/*/*/*/*.pb.zst"))
assert len(members) == 2, members
side = {m: json.load(open(m[:-7] + ".json")) for m in members}
for m in members:
    assert side[m]["history"]["samples"] > 0, "%s holds no history" % m
    assert m in pprof, "go tool pprof read no total of %s" % m
periods = [1e9 / rep[(m, "during")][2] for m in members] + [1e9 / rep[(m, "before")][2] for m in members]
slack = 2 * sum(periods)  # a period a member and phase, and rounding
def ptime(f, ph):
    n, d, hz = rep[(f, ph)]
    return n * 1e9 / hz, d
whole = sum(pprof[m] for m in members)
groups = sorted(glob.glob("byhost/*.pb.zst"))
table = {}
for out in ("byhost.out", "all.out"):
    for l in open(out).read().splitlines()[1:]:
        w = l.split()
        table[w[-1]] = (int(w[2]), float(w[3].rstrip("s")) * 1e9)
allf = "all/all.pb.zst"
def near(what, got, want, tol):
    if abs(got - want) > tol:
        sys.exit("%s: %.0f ns, want %.0f within %.0f" % (what, got, want, tol))
near("go tool pprof's total of 'all'", pprof[allf], whole, slack)
near("the groups' sum", sum(pprof[g] for g in groups), pprof[allf], slack)
near("the table's CPU time of 'all'", table[allf][1], pprof[allf], slack + 1e7)
for g in groups:
    near("the table's CPU time of " + g, table[g][1], pprof[g], slack + 1e7)
    near("report --phase all of " + g, ptime(g, "all")[0], pprof[g], slack)
for ph in ("before", "during"):
    want = sum(ptime(m, ph)[0] for m in members)
    near("report --phase %s of 'all'" % ph, ptime(allf, ph)[0], want, slack)
    n, d, hz = rep[(allf, ph)]
    if n / hz > d * ncpu * 1.05:
        sys.exit("report --phase %s of 'all': %d samples at %d Hz over %.2fs: more than %d CPUs" % (ph, n, hz, d, ncpu))
near("the history's time of 'all'", rep[(allf, "before")][1] * 1e9,
     sum(rep[(m, "before")][1] for m in members) * 1e9, 2e7)
print("ok", whole, pprof[allf], table[allf])
PY
}

# Not tried before: a hostile S3 listing server (fleet/hostile_s3.py).
# Pages that never end or go round, a giant key, a key with an escape
# byte, XML cut short, a truncation flag that is neither, a 20 MiB answer,
# 10,000 keys in a page, and an answer that stalls: each listing stops
# within a bounded time and number of requests, exits 1 with a message
# that says what the store did, and prints no byte the store chose raw.
test_fleet_hostile_listing_server() {
	local rc=0 port b t0 took want
	start_bg srv "$FLEET_PY" "$FLEET_DIR/hostile_s3.py" "$PWD/port"
	for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
	port=$(cat port) || { fail "the hostile server did not start"; return 1; }
	printf 'id\n' >id && printf 'secret\n' >secret && chmod 600 id secret
	export AWS_ACCESS_KEY_ID=id AWS_SECRET_ACCESS_KEY=secret TRAPD_ALLOW_INSECURE_CREDENTIALS=yes
	for b in endless circle bigkey ctlkey badxml nottrunc huge many stall; do
		cat >"$b.ini" <<INI
[upload]
url = s3://$b/p
endpoint = http://127.0.0.1:$port
access_key_id_file = $PWD/id
secret_access_key_file = $PWD/secret
allow_insecure_credentials = yes
stall_timeout = 2s
INI
		t0=$(date +%s%N)
		timeout 60 "$TRAPD" captures ls "$b.ini" >"$b.out" 2>"$b.err"
		set -- $? "$(grep -c '' "$b.err")"
		took=$((($(date +%s%N) - t0) / 1000000))
		echo "   $b: exit $1 in $took ms, $(grep "^$b " port.count | cut -d' ' -f2) requests: $(grep error: "$b.err" | cut -c1-160)" >&2
		case $b in
		endless) want="after 100 pages (0 objects): the store gave page after empty page" ;;
		circle) want="the store gave the same next page again" ;;
		bigkey) want="<Key> of <Contents> 1: longer than 1024 bytes" ;;
		ctlkey) want="a bad character reference" ;;
		badxml) want="cut short: <Size> not closed" ;;
		nottrunc) want="<IsTruncated>: neither true nor false" ;;
		huge) want="the answer is larger than 16777216 bytes" ;;
		stall) want="Less than 1024 bytes/sec transferred the last 2 seconds" ;;
		many) want="" ;;
		esac
		if [ -n "$want" ]; then
			[ "$1" = 1 ] && grep -q "error: listing s3://$b/p/ stopped .*$want" "$b.err" ||
				{ fail "$b: exit $1: $(cat "$b.err")"; rc=1; }
		else
			[ "$1" = 0 ] || { fail "$b: exit $1: $(cat "$b.err")"; rc=1; }
		fi
		[ "$took" -lt 30000 ] || { fail "$b: the listing took $took ms"; rc=1; }
		LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$b.out" "$b.err" &&
			{ fail "$b: a control byte reached the terminal"; rc=1; }
	done
	return $rc
}
