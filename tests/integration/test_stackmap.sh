# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_stackmap.sh - the sampler's stack table: no ceiling on distinct
# stacks for a busy window, and user stacks without garbage frames.

# stackmap_loss NAME JSON - loss counter NAME of a capture's sidecar.
stackmap_loss() {
	jq -r ".losses.$1" "$2"
}

# More distinct stacks than the kernel's stack map holds (65,536 entries):
# the event loop moves them out during the window, so none is lost.
# Threads walking random call paths 20 to 40 deep: nearly every sample a
# stack of its own. 10 kHz, not more: in a VM a sampling interrupt can
# take tens of microseconds, and faster sampling catches one walk twice.
# An idle two-CPU box takes 20k samples a second (the cap keeps the
# symbolizing short), one loaded by other work (load 10) some 3k.
test_stackmap_more_stacks_than_the_map_holds() {
	need_root_bpf || return
	local pid stacks samples full afail cfull
	start_bg pid "$WORKLOADS/stackmaze" 40 4
	sleep 0.3
	# 9999 Hz is far over the default --max-overhead on a VM; filling the
	# maps is the point here.
	"$TRAPD" capture -p "$pid" -d 28s -F 9999 --max-samples 100000 --max-overhead 100% \
		-o maze.pb.zst 2>err.txt ||
		{ fail "capture failed: $(cat err.txt)"; return 1; }
	stacks=$(jq -r .samples.distinct_stacks maze.json)
	samples=$(jq -r .samples.stored maze.json)
	full=$(stackmap_loss stacks_full maze.json)
	cfull=$(stackmap_loss counts_map_full maze.json)
	afail=$(stackmap_loss stacks_alloc_failed maze.json)
	echo "    $samples samples, $stacks distinct stacks; stacks_full $full," \
		"counts_map_full $cfull, stacks_alloc_failed $afail"
	[ "$full" = 0 ] && [ "$cfull" = 0 ] || { fail "stacks or counts lost to a full map"; return 1; }
	# The allocator's per-CPU cache can be empty at a CPU's first sample:
	# a few, never a share of the samples.
	[ "$afail" -le 8 ] || { fail "$afail stacks lost to failed allocations"; return 1; }
	[ "$stacks" -gt 65536 ] ||
		{ fail "only $stacks distinct stacks in $samples samples (a loaded machine?)"; return 1; }
	# Each sample's stack is there: a folded line per distinct walk.
	"$TRAPD" report maze.pb.zst --folded maze.folded >/dev/null || { fail "report failed"; return 1; }
	grep -c 'step_' maze.folded | awk -v s="$samples" '{ exit !($1 > s / 2) }' ||
		{ fail "fewer folded stacks than half the samples"; return 1; }
}

# Debian's python3.11 has no frame pointers: the walk reads data as
# frames. The user stack is cut at the first word that is no user address
# and the cut is counted; no such word shows as a kernel frame.
test_stackmap_python_has_no_garbage_kernel_frames() {
	need_root_bpf || return
	[ -x /usr/bin/python3.11 ] || { skip "no /usr/bin/python3.11"; return; }
	local bad cut
	cat >busy.py <<'PY'
import time
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
def main():
    t = time.time()
    while time.time() - t < 3: fib(18)
main()
PY
	"$TRAPD" capture -d 3s -F 199 -o py.pb.zst -- /usr/bin/python3.11 busy.py 2>err.txt ||
		{ fail "capture failed: $(cat err.txt)"; return 1; }
	"$TRAPD" report py.pb.zst --folded py.folded >/dev/null || { fail "report failed"; return 1; }
	# A kernel frame shown by address must be a kernel address.
	bad=$(tr ';' '\n' <py.folded | sed 's/ [0-9]*$//' | grep -E '^0x[0-9a-f]+_\[k\]$' |
		grep -vE '^0xffff[89a-f][0-9a-f]{11}_\[k\]$' | sort -u | head -3)
	[ -z "$bad" ] || { fail "user words shown as kernel frames: $bad"; return 1; }
	cut=$(jq -r .user_stacks_cut py.json)
	echo "    user_stacks_cut: $cut of $(jq -r .samples.stored py.json) samples"
	[ "$cut" != null ] || { fail "the sidecar lacks user_stacks_cut"; return 1; }
	grep -q 'Py' py.folded || { fail "no frame of python's own"; return 1; }
}
