# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_cgroup.sh - capturing a cgroup sees only its processes, on the v2
# (unified) hierarchy and on a v1 hierarchy.

v2_root() {
	awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo
}

# cgroup_capture_only_members DIR NAME - move one burner into DIR, keep one
# outside, capture -g NAME and check only the member was sampled.
cgroup_capture_only_members() {
	local dir=$1 name=$2 in out
	cp "$WORKLOADS/burner" ./inside_burner
	cp "$WORKLOADS/burner" ./outside_burner
	mkdir -p "$dir" || { skip "cannot create $dir"; return 77; }
	start_bg in ./inside_burner 8
	start_bg out ./outside_burner 8
	echo "$in" >"$dir/cgroup.procs" || { fail "cannot move $in into $dir"; return 1; }
	sleep 0.2
	"$TRAPD" capture -g "$name" -d 2s -F 499 -o cap.pb.zst 2>err.txt ||
		{ fail "capture -g $name: $(cat err.txt)"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null || { fail "report failed"; return 1; }
	grep -q '^inside_burner;.*burn_60[; ]' cap.folded || { fail "member not sampled"; return 1; }
	if grep -q '^outside_burner' cap.folded; then
		fail "a process outside the cgroup was sampled"
		return 1
	fi
}

cleanup_cgroup() {
	kill_bg
	rmdir "$1" 2>/dev/null
}

test_capture_cgroup_v2() {
	need_root_bpf || return
	local root name dir rc
	root=$(v2_root)
	[ -n "$root" ] || { skip "no cgroup v2 hierarchy"; return; }
	name=trapd-it-$$
	dir=$root/$name
	cgroup_capture_only_members "$dir" "$name"
	rc=$?
	grep -q "\"cgroup\": \"/$name\"" cap.json 2>/dev/null || { [ $rc -ne 0 ] || { fail "sidecar lacks the cgroup"; rc=1; }; }
	cleanup_cgroup "$dir"
	return $rc
}

test_capture_cgroup_v1() {
	need_root_bpf || return
	local dir rc
	[ -d /sys/fs/cgroup/cpu ] && grep -q ' /sys/fs/cgroup/cpu ' /proc/self/mountinfo ||
		{ skip "no cgroup v1 cpu hierarchy"; return; }
	dir=/sys/fs/cgroup/cpu/trapd-it-$$
	cgroup_capture_only_members "$dir" "$dir"
	rc=$?
	cleanup_cgroup "$dir"
	return $rc
}
