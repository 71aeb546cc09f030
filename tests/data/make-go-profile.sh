#!/usr/bin/env bash
# make-go-profile.sh: regenerate tests/data/go-cpu.pb.gz, a CPU profile
# written by Go's runtime/pprof (go-cpu/main.go burns ~400 ms in
# main.burn). Needs only the Go toolchain (standard library, no network).
# The unit tests decode the committed file; rerun this after changing
# go-cpu/main.go, and check the result with `go tool pprof -top`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/go-cpu" "$here/go-cpu/main.go"
"$tmp/go-cpu" "$tmp/go-cpu.pb.gz"
if ! go tool pprof -top -symbolize=none "$tmp/go-cpu.pb.gz" | grep -q 'main\.burn'; then
	echo "make-go-profile: main.burn missing from the profile; run it again" >&2
	exit 1
fi
mv "$tmp/go-cpu.pb.gz" "$here/go-cpu.pb.gz"
echo "wrote $here/go-cpu.pb.gz ($(wc -c <"$here/go-cpu.pb.gz") bytes)"
