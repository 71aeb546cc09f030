#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ci-job.sh - a CI job that fails when a benchmark's CPU profile regresses
# against the main branch's. Plain POSIX shell: call it from any CI
# (GitHub Actions, GitLab CI, Jenkins, buildbot) as root, or with a
# delegated cgroup (systemd-run --user --scope -p Delegate=yes).
#
# Baselines are kept in a directory the CI preserves between jobs (its
# cache, an artifact store or a shared volume): BASELINES, one capture per
# benchmark. A job on the main branch refreshes the baseline; any other
# job compares with it and leaves it alone.
#
#   BASELINES=/var/cache/ci/trapd BRANCH=$CI_COMMIT_BRANCH \
#       examples/ci-job.sh ./build/bench --quick
#
# Exit status: the benchmark's when it fails, 3 when the profile regressed
# (the job fails), 0 otherwise. The Markdown summary is printed at the end
# and copied to $GITHUB_STEP_SUMMARY when GitHub Actions provides one.
set -u

BASELINES=${BASELINES:-.trapd-baselines}
BRANCH=${BRANCH:-$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)}
MAIN=${MAIN_BRANCH:-main}
NAME=${BENCH_NAME:-bench}	# one baseline per benchmark
RUNS=${RUNS:-3}			# runs a side: more samples for the tests
OUT=${OUT:-trapd-ci-out}	# the job's artifacts: capture, summary.md, diff.svg

[ $# -gt 0 ] || { echo "usage: $0 CMD ARGS" >&2; exit 2; }
mkdir -p "$BASELINES" || exit 1
base="$BASELINES/$NAME.pb.zst"

if [ -f "$base" ]; then
	trapd ci --baseline "$base" --runs "$RUNS" -o "$OUT" -- "$@"
else
	echo "ci-job: no baseline for $NAME yet; this run becomes it" >&2
	trapd ci --runs "$RUNS" -o "$OUT" -- "$@"
fi
status=$?

cat "$OUT/summary.md" 2>/dev/null
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$OUT/summary.md" ]; then
	cat "$OUT/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi

# Only a passing run on the main branch becomes the next baseline, with
# its sidecar (measured CPU times and runs) next to it.
if [ "$status" -eq 0 ] && [ "$BRANCH" = "$MAIN" ]; then
	cp "$OUT/profile.pb.zst" "$base.tmp" && cp "$OUT/profile.json" "$BASELINES/$NAME.json.tmp" &&
		mv "$base.tmp" "$base" && mv "$BASELINES/$NAME.json.tmp" "$BASELINES/$NAME.json" &&
		echo "ci-job: $base is the new baseline" >&2
fi
exit "$status"
