# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_unwind_rules.sh - how the daemon's and trapd ci's captures walk
# user stacks: a rule's unwind and stack_copy (and [global] manual_unwind,
# manual_stack_copy) reach the capture, as its sidecar's "unwind" says;
# the daemon's sampler is loaded again when a reload asks for copies;
# trapd ci --unwind and --stack-copy; bad values are refused by
# trapd check with their line. Uses test_daemon.sh's helpers.

# urules_field JSON KEY - a value of the sidecar's "unwind" object, or
# "-" when it has no such key.
urules_field() {
	python3 - "$1" "$2" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["unwind"].get(sys.argv[2], "-"))
PY
}

# urules_nth N - the sidecar of the daemon's Nth capture (in spool order).
urules_nth() {
	ls spool/*.json 2>/dev/null | sort | sed -n "${1}p"
}

# urules_expect JSON MODE COPY - the capture walked MODE stacks, copying
# COPY bytes per sample ("-" for fp); "-" for JSON fails.
urules_expect() {
	local json=$1 mode copy
	[ -n "$json" ] && [ -r "$json" ] || { fail "no sidecar"; return 1; }
	mode=$(urules_field "$json" mode)
	copy=$(urules_field "$json" stack_copy_bytes)
	[ "$mode" = "$2" ] || { fail "$json: unwind mode $mode, expected $2: $(grep -A3 '"unwind"' "$json")"; return 1; }
	[ "$copy" = "$3" ] || { fail "$json: stack_copy_bytes $copy, expected $3"; return 1; }
}

# urules_arm N ARGS... - trapd arm ARGS, then wait for the Nth capture.
urules_arm() {
	local n=$1 out
	shift
	out=$("$TRAPD" arm "$@" -S ctl.sock 2>&1) || { fail "arm $*: $out"; return 1; }
	wait_for 15 has_captures "$n" || { fail "no capture $n after arm $*: $(tail -5 daemon.log)"; return 1; }
	wait_for 5 test -n "$(urules_nth "$n")" || { fail "no sidecar $n"; return 1; }
}

# A cpu rule with unwind = dwarf fires on a burner in its cgroup: the
# capture copies 8 KiB of stack per sample and unwinds them.
test_unwind_rules_dwarf_rule_fires_in_dwarf_mode() {
	need_root_bpf || return
	new_cgroup || return
	local rc=0 burner json copies
	{
		write_global 'manual_unwind = fp'
		cat <<EOF
[rule burner-dwarf]
signal = cpu
cgroup = $CG_NAME
above = 5%
for = 500ms
duration = 1s
frequency = 199Hz
unwind = dwarf
stack_copy = 8KiB
EOF
	} >rules.ini
	start_daemon || { drop_cgroup; return 1; }
	cp "$WORKLOADS/burner" ./ur_burner
	start_bg burner ./ur_burner 30
	echo "$burner" >"$CG_DIR/cgroup.procs"
	wait_for 30 has_captures 1 || { fail "no capture: $(cat daemon.log)"; rc=1; }
	json=$(urules_nth 1)
	urules_expect "$json" dwarf 8192 || rc=1
	grep -q '"rule": "burner-dwarf"' "$json" || { fail "no trigger in $json"; rc=1; }
	copies=$(urules_field "$json" copies)
	[ "${copies:-0}" -gt 0 ] 2>/dev/null || { fail "no stack copies: $copies"; rc=1; }
	stop_daemon
	drop_cgroup
	return $rc
}

# The rules are dry runs, armed by hand: a busy host's PSI cannot fire
# them. unwind = fp gives a frame-pointer capture, an auto rule a DWARF one with
# its own copy size, and SIGUSR1 takes [global] manual_unwind and
# manual_stack_copy: the one sampler serves all three.
test_unwind_rules_fp_auto_and_manual_modes() {
	need_root_bpf || return
	local rc=0 burner
	{
		write_global 'manual_duration = 500ms' 'manual_unwind = dwarf' \
			'manual_stack_copy = 4KiB'
		printf '[rule framey]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 500ms\ndry_run = true\n'
		printf 'unwind = fp\nstack_copy = 32KiB\n'
		printf '[rule autoy]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 500ms\ndry_run = true\n'
		printf 'stack_copy = 12KiB\n'
	} >rules.ini
	start_daemon || return 1
	cp "$WORKLOADS/burner" ./ur_burner
	start_bg burner ./ur_burner 30
	urules_arm 1 framey && { urules_expect "$(urules_nth 1)" fp - || rc=1; } || rc=1
	# auto chooses DWARF here: 99 Hz x CPUs x 12 KiB is far below its limit
	urules_arm 2 autoy && { urules_expect "$(urules_nth 2)" dwarf 12288 || rc=1; } || rc=1
	kill -USR1 "$DAEMON"
	wait_for 15 has_captures 3 || { fail "no capture after SIGUSR1: $(tail -5 daemon.log)"; rc=1; }
	wait_for 5 test -n "$(urules_nth 3)"
	urules_expect "$(urules_nth 3)" dwarf 4096 || rc=1
	stop_daemon
	return $rc
}

# Every rule fp: the sampler is loaded without copies. A reload that adds
# a dwarf rule loads it again with them, and that rule's capture unwinds.
test_unwind_rules_reload_loads_copies() {
	need_root_bpf || return
	local rc=0 burner
	{
		write_global 'manual_duration = 500ms' 'manual_unwind = fp'
		printf '[rule framey]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 500ms\ndry_run = true\n'
		printf 'unwind = fp\n'
	} >rules.ini
	start_daemon || return 1
	cp "$WORKLOADS/burner" ./ur_burner
	start_bg burner ./ur_burner 30
	urules_arm 1 && { urules_expect "$(urules_nth 1)" fp - || rc=1; } || rc=1
	{
		write_global 'manual_duration = 500ms' 'manual_unwind = fp'
		printf '[rule framey]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 500ms\ndry_run = true\n'
		printf 'unwind = fp\n'
		printf '[rule dwarfy]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 500ms\ndry_run = true\n'
		printf 'unwind = dwarf\nstack_copy = 2KiB\n'
	} >rules.ini
	kill -HUP "$DAEMON"
	wait_for 10 grep -q 'reloaded .* 2 rules' daemon.log ||
		{ fail "reload: $(tail -5 daemon.log)"; rc=1; }
	urules_arm 2 dwarfy && { urules_expect "$(urules_nth 2)" dwarf 2048 || rc=1; } || rc=1
	stop_daemon
	return $rc
}

# trapd check names the file and line of a bad unwind or stack_copy and
# exits 2; a good file prints both keys back.
test_unwind_rules_check_names_bad_values() {
	printf '[global]\nmanual_unwind = fp\n[rule x]\nsignal = psi.cpu.some\nabove = 5%%\nunwind = sideways\n' \
		>bad.ini
	expect_status 2 "$TRAPD" check -c bad.ini || return 1
	echo "$LAST_STDERR" | grep -q "bad.ini:6: \[rule x\] unwind: bad value 'sideways': expected auto, dwarf or fp" ||
		{ fail "message: $LAST_STDERR"; return 1; }
	printf '[rule x]\nsignal = psi.cpu.some\nabove = 5%%\nstack_copy = 64KiB\n' >big.ini
	expect_status 2 "$TRAPD" check -c big.ini || return 1
	echo "$LAST_STDERR" | grep -q "big.ini:4: \[rule x\] stack_copy: bad value '64KiB': expected a size from 1KiB to 32KiB" ||
		{ fail "message: $LAST_STDERR"; return 1; }
	printf '[global]\nmanual_stack_copy = 2KiB\n[rule x]\nsignal = psi.cpu.some\nabove = 5%%\nunwind = dwarf\n' \
		>good.ini
	"$TRAPD" check -c good.ini >good.out || { fail "good file refused"; return 1; }
	grep -qx 'unwind = dwarf' good.out && grep -qx 'stack_copy = 16KiB' good.out &&
		grep -qx 'manual_unwind = auto' good.out && grep -qx 'manual_stack_copy = 2KiB' good.out ||
		{ fail "check printed: $(cat good.out)"; return 1; }
}

# trapd ci --unwind and --stack-copy reach the run's capture; bad values
# and their use with -c RULES are usage errors.
test_unwind_rules_ci_options() {
	need_root_bpf || return
	local rc=0
	"$TRAPD" ci --unwind dwarf --stack-copy 8KiB -o dw -- "$WORKLOADS/burner" 1 >dw.log 2>&1 ||
		{ fail "ci dwarf: $(tail -3 dw.log)"; rc=1; }
	urules_expect dw/profile.json dwarf 8192 || rc=1
	"$TRAPD" ci --unwind fp -o fp -- "$WORKLOADS/burner" 1 >fp.log 2>&1 ||
		{ fail "ci fp: $(tail -3 fp.log)"; rc=1; }
	urules_expect fp/profile.json fp - || rc=1
	expect_status 2 "$TRAPD" ci --unwind sideways -- true || rc=1
	echo "$LAST_STDERR" | grep -q "bad --unwind 'sideways'" || { fail "$LAST_STDERR"; rc=1; }
	expect_status 2 "$TRAPD" ci --stack-copy 512 -- true || rc=1
	printf '[rule x]\nsignal = cpu\nabove = 5%%\n' >ci.ini
	expect_status 2 "$TRAPD" ci -c ci.ini --unwind fp -- true || rc=1
	echo "$LAST_STDERR" | grep -q "each rule's unwind and stack_copy" || { fail "$LAST_STDERR"; rc=1; }
	return $rc
}
