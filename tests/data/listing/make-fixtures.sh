#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# make-fixtures.sh [DIR]: regenerate the listing answers of
# tests/data/listing (or write them to DIR): real ListObjectsV2 answers of
# OpenStack Swift's S3 API and List Blobs answers of Azurite, from the
# servers of tests/servers/lib.sh, for the same seven objects in each
# (keys with a space, a '&' and an 'é'; x-amz-meta-* / x-ms-meta-*
# metadata). Pages of two are walked by their tokens and markers.
#
# Keys, sizes and S3's ETags (MD5s) come out the same on every run; the
# dates and Azure's ETags do not, so tests/unit/test_upload_listing.c
# must follow a regenerated set. tests/fuzz/corpus/listing holds copies.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here}" && cd "${1:-$here}" && pwd)
. "$here/../../servers/lib.sh"
tmp=$(mktemp -d)
trap 'servers_stop_all; rm -rf "$tmp"' EXIT
read -r sport aport < <(servers_free_port 2)
swift_start "$tmp/swift" "$sport"
azurite_start "$tmp/azurite" "$aport"
swift_make_bucket listing
azurite_make_container listing
sas=$(azurite_sas listing racwdl)

sha() { printf '%s' "$1" | sha256sum | cut -c1-64; }
h1=$(sha one) h2=$(sha two) h3=$(sha three)
keys=( # as they go in a URL
	"p/web-1/2026/11/25/$h1.pb.zst"
	"p/web-1/2026/11/25/$h1.json"
	"p/web-1/2026/11/26/$h2.pb.zst"
	"p/db%202/2026/11/25/$h3.json"
	"p/r%26d-caf%C3%A9/2026/11/25/$h3.pb.zst"
	"p/top.txt"
	"other/x.json"
)
i=0
for k in "${keys[@]}"; do
	i=$((i + 1))
	body=$tmp/body$i
	: >"$body"
	if [ $i -ne 6 ]; then # p/top.txt stays empty
		for ((j = 0; j < i * i * 10; j++)); do
			printf 'body number %d of the listing fixtures\n' $i >>"$body"
		done
	fi
	code=$(swift_s3_curl -o /dev/null -w '%{http_code}' -X PUT --data-binary "@$body" \
		-H "x-amz-content-sha256: $(sha256sum <"$body" | cut -c1-64)" \
		-H 'Content-Type: application/zstd' -H 'x-amz-meta-trapd-host: web-1' \
		-H 'x-amz-meta-trapd-rules: cpu_hot' "$SWIFT_S3_URL/listing/$k")
	[ "$code" = 200 ] || { echo "S3 PUT $k: HTTP $code" >&2; exit 1; }
	code=$(curl -sS -o /dev/null -w '%{http_code}' -X PUT --data-binary "@$body" \
		-H 'x-ms-blob-type: BlockBlob' -H 'x-ms-version: 2022-11-02' \
		-H 'Content-Type: application/zstd' -H 'x-ms-meta-trapd_host: web-1' \
		-H 'x-ms-meta-trapd_rules: cpu_hot' -H 'x-ms-meta-label_team: r&d <ops>' \
		-H 'x-ms-meta-BuildId: 7' "$AZURITE_URL/listing/$k?$sas")
	[ "$code" = 201 ] || { echo "Azure PUT $k: HTTP $code" >&2; exit 1; }
done

# next ELEMENT FILE - the text of <ELEMENT> in FILE, entities decoded and
# percent-encoded for a query ("" when it is absent or empty).
next() {
	sed -n "s:.*<$1>\\([^<]*\\)</$1>.*:\\1:p" "$2" | /usr/bin/python3 -c \
		'import sys, html, urllib.parse
print(urllib.parse.quote(html.unescape(sys.stdin.read().strip()), safe=""))'
}
s3() { # NAME QUERY
	code=$(swift_s3_curl -o "$out/$1" -w '%{http_code}' \
		-H "x-amz-content-sha256: $(sha '')" "$SWIFT_S3_URL/listing?$2")
	[ "$code" = 200 ] || { echo "S3 $1: HTTP $code" >&2; exit 1; }
}
az() { # NAME QUERY
	code=$(curl -sS -o "$out/$1" -w '%{http_code}' -H 'x-ms-version: 2022-11-02' \
		"$AZURITE_URL/listing?restype=container&comp=list&$2&$sas")
	[ "$code" = 200 ] || { echo "Azure $1: HTTP $code" >&2; exit 1; }
}
q='list-type=2&max-keys=2&prefix=p%2F'
s3 s3-page1.xml "$q"
s3 s3-page2.xml "continuation-token=$(next NextContinuationToken "$out/s3-page1.xml")&$q"
s3 s3-last.xml "continuation-token=$(next NextContinuationToken "$out/s3-page2.xml")&$q"
s3 s3-delimited.xml 'delimiter=%2F&list-type=2&prefix=p%2F'
s3 s3-delimited-page1.xml "delimiter=%2F&$q"
s3 s3-empty.xml 'list-type=2&prefix=nothing%2F'
q='include=metadata&maxresults=2&prefix=p%2F'
az azblob-page1.xml "$q"
az azblob-page2.xml "$q&marker=$(next NextMarker "$out/azblob-page1.xml")"
az azblob-last.xml "$q&marker=$(next NextMarker "$out/azblob-page2.xml")"
az azblob-delimited.xml 'delimiter=%2F&include=metadata&prefix=p%2F'
az azblob-delimited-page1.xml "delimiter=%2F&$q"
az azblob-delimited-page2.xml \
	"delimiter=%2F&$q&marker=$(next NextMarker "$out/azblob-delimited-page1.xml")"
az azblob-empty.xml 'prefix=nothing%2F'
echo "wrote 13 answers to $out"
