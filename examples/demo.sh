#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# demo.sh - what `make demo` runs: capture a workload with a known hot path
# and look at it. Leaves in demo-out/ (or $1): the capture (.pb.zst), its
# metadata (.json), folded stacks and an SVG flame graph.
#
# The workload, build/workloads/burner, spends 60 %, 30 % and 10 % of its
# CPU in burn_60, burn_30 and burn_10: the top table should say so.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-demo-out}
trapd=build/trapd
mkdir -p "$out"

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: trapd loads BPF programs: run as root (sudo make demo)" >&2
	exit 1
fi

build/workloads/burner 6 >"$out/burner.pid" &
burner=$!
trap 'kill $burner 2>/dev/null || true' EXIT
sleep 0.2

echo "demo: capturing pid $burner for 3 s at 999 Hz"
"$trapd" capture -p "$burner" -d 3s -F 999 -o "$out/demo.pb.zst"
echo
"$trapd" report "$out/demo.pb.zst" --top 10 --folded "$out/demo.folded" --svg "$out/demo.svg"
echo
echo "demo: files in $out/:"
ls -l "$out"/demo.*
echo "demo: open $out/demo.svg in a browser; 'go tool pprof' reads: $trapd report $out/demo.pb.zst --pprof $out/demo.pb.gz"
