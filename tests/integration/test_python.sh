# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_python.sh - Python functions in captures: the sampler walks the
# frames of Debian's own python3.11 (no frame pointers, no debug file
# needed) at each sample and the profile shows them, with their callers,
# spliced above the interpreter's native frames; in threads, generators,
# C extensions, another pid and mount namespace, and in the daemon's
# consecutive captures. An interpreter trapd does not know, and one that
# corrupted its own frames, give native frames and counted reasons, never
# a wrong name.

PY311=/usr/bin/python3.11
PYWORK=$PWD/tests/workloads/python
# pychain.py's recursion: 31 frames (mawk has no {n} in its regexes)
PY_DEEP="main;$(printf 'recurse;%.0s' $(seq 31))deep_leaf"

need_python311() {
	[ -x "$PY311" ] || { skip "needs Debian's $PY311"; return 77; }
}

# py_share FOLDED ERE_OF ERE_IN - percentage (integer) of the samples
# matching ERE_IN that also match ERE_OF.
py_share() {
	awk -v of="$2" -v in_="$3" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (s ~ in_) { t += n; if (s ~ of) h += n } }
		END { printf "%d", t ? 100 * h / t : 0 }' "$1"
}

# py_count FOLDED ERE - samples whose stack matches ERE.
py_count() {
	awk -v re="$2" '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); if (s ~ re) h += n }
		END { printf "%d", h }' "$1"
}

# py_field JSON KEY - a value of the sidecar's "python" object.
py_field() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["python"][sys.argv[2]])' "$1" "$2"
}

# The known call chains of pychain.py, in both unwinding modes: of the
# samples under main, >= 90 % name the right function under the right
# Python callers (the rest is main's own loop), the 31-deep recursion is
# 31 frames, and the Python frames sit above the native eval loop frame.
test_python_names_functions_with_their_callers() {
	need_root_bpf || return
	need_python311 || return
	local mode share deep lines
	for mode in dwarf fp; do
		capture_into "chain-$mode" --unwind "$mode" -F 499 -- "$PY311" "$PYWORK/pychain.py" 3 || return 1
		share=$(py_share "chain-$mode.folded" \
			";main;(held_outer;held_middle;held_leaf|${PY_DEEP#main;})(;|\$)" ';main(;|$)')
		deep=$(py_share "chain-$mode.folded" ";$PY_DEEP(;|\$)" ';deep_leaf(;|$)')
		lines=$(py_field "chain-$mode.json" frames_with_line)
		echo "    $mode: $share % of main's samples in the right chain, $deep % of deep_leaf's 31 deep; $lines frames with a line"
		[ "$share" -ge 90 ] || { fail "$mode: $share %: $(sort -t' ' -k2 -nr "chain-$mode.folded" | head -3)"; return 1; }
		[ "$deep" -ge 90 ] || { fail "$mode: deep recursion $deep %"; return 1; }
		[ "$(py_count "chain-$mode.folded" '_PyEval_EvalFrameDefault;<module>;main;held_outer')" -gt 0 ] ||
			{ fail "$mode: Python frames not above the eval loop: $(head -2 "chain-$mode.folded")"; return 1; }
		[ "$lines" -gt 0 ] || { fail "$mode: no line numbers"; return 1; }
	done
	# pprof: file and line of the leaf (held_leaf's loop body, pychain.py:12)
	"$TRAPD" report chain-dwarf.pb.zst --pprof chain.pb.gz >/dev/null 2>&1 || { fail "pprof export"; return 1; }
	if command -v go >/dev/null; then
		go tool pprof -lines -top chain.pb.gz 2>/dev/null | grep -q 'held_leaf .*pychain.py:1[12]' ||
			{ fail "pprof: no held_leaf pychain.py:11/12: $(go tool pprof -lines -top chain.pb.gz 2>&1 | head -12)"; return 1; }
	fi
	# turned off: the interpreter's native frames only
	capture_into off --no-python -F 199 -- "$PY311" "$PYWORK/pychain.py" 1 || return 1
	[ "$(py_count off.folded 'held_leaf')" -eq 0 ] && [ "$(py_field off.json samples_walked)" -eq 0 ] ||
		{ fail "--no-python still walked: $(py_field off.json samples_walked)"; return 1; }
}

# Threads, a generator, coroutines on an asyncio loop and C code called
# from Python (json, re); the Python names reach the SVG and trapd diff.
test_python_threads_generators_and_c_extensions() {
	need_root_bpf || return
	need_python311 || return
	local a b wrong gen sre coro
	capture_into mixed -F 499 -- "$PY311" "$PYWORK/pymixed.py" 3 || return 1
	# each thread's samples show its own function, never the other's
	a=$(py_share mixed.folded ';alpha_loop(;|$)' '^py-alpha;')
	b=$(py_share mixed.folded ';beta_loop(;|$)' '^py-beta;')
	wrong=$(( $(py_count mixed.folded '^py-alpha;.*beta_loop') + $(py_count mixed.folded '^py-beta;.*alpha_loop') ))
	# the generator: its frame under the generator expression under its caller
	gen=$(py_share mixed.folded ';consume_generator;.*;consume_generator.<locals>.<genexpr>;.*;gen_values(;|$)' ';gen_values(;|$)')
	# re's C matcher under re.findall under regex_work
	sre=$(py_count mixed.folded ';regex_work;findall;[^;]*(sre|python3\.11\+0x)')
	# the running coroutine under the one awaiting it, under the task's step
	coro=$(py_share mixed.folded ';coro_middle;(.*;)?coro_leaf(;|$)' '^py-async;.*;coro_leaf(;|$)')
	echo "    py-alpha $a % in alpha_loop, py-beta $b % in beta_loop, $wrong on the wrong thread; gen_values under its callers $gen %; coro_leaf under coro_middle $coro %; $sre samples in re's C code under regex_work;findall"
	[ "$a" -ge 90 ] && [ "$b" -ge 90 ] || { fail "threads: $a %, $b %"; return 1; }
	[ "$wrong" -eq 0 ] || { fail "$wrong samples named another thread's function"; return 1; }
	[ "$gen" -ge 90 ] || { fail "generator: $gen %: $(grep gen_values mixed.folded | head -2)"; return 1; }
	[ "$coro" -ge 90 ] || { fail "coroutines: $coro %: $(grep coro_leaf mixed.folded | head -2)"; return 1; }
	[ "$sre" -gt 0 ] || { fail "no native re frame under findall: $(grep regex_work mixed.folded | head -2)"; return 1; }
	[ "$(py_count mixed.folded ';json_work;dumps;JSONEncoder.encode;JSONEncoder.iterencode;')" -gt 0 ] ||
		{ fail "no json.dumps chain: $(grep json_work mixed.folded | head -2)"; return 1; }
	# every view: the flame graph, and trapd diff against a capture without the walker
	"$TRAPD" report mixed.pb.zst --svg mixed.svg >/dev/null 2>&1 && grep -q 'alpha_loop' mixed.svg ||
		{ fail "no Python function in the SVG"; return 1; }
	capture_into native --no-python -F 499 -- "$PY311" "$PYWORK/pymixed.py" 2 || return 1
	"$TRAPD" diff native.pb.zst mixed.pb.zst --top 0 >diff.txt 2>&1
	grep -q 'alpha_loop' diff.txt || { fail "trapd diff names no Python function: $(head -20 diff.txt)"; return 1; }
}

# A Python process in its own pid and mount namespaces, running its own
# copy of the interpreter from a file only its mount namespace has (a
# container): its thread ids are the namespace's.
test_python_in_its_own_namespaces() {
	need_root_bpf || return
	need_python311 || return
	local share
	mkdir -p nsroot
	capture_into ns -F 499 -- unshare --pid --mount --fork sh -c \
		"mount -t tmpfs none $PWD/nsroot && cp $PY311 $PWD/nsroot/py311 &&
		 cp $PYWORK/pychain.py $PWD/nsroot/ && exec $PWD/nsroot/py311 $PWD/nsroot/pychain.py 2" || return 1
	[ ! -e nsroot/py311 ] || { fail "the namespace's file is visible outside"; return 1; }
	share=$(py_share ns.folded ";main;(held_outer;held_middle;held_leaf|${PY_DEEP#main;})(;|\$)" ';main(;|$)')
	echo "    $share % of main's samples in the right chain ($(py_field ns.json samples_walked) walked)"
	[ "$share" -ge 90 ] || { fail "$share %: $(sort -t' ' -k2 -nr ns.folded | head -3)"; return 1; }
}

# The daemon's sampler is kept across captures: a process's interpreter
# is registered again for each window, so every capture names Python.
test_python_in_consecutive_daemon_captures() {
	need_root_bpf || return
	need_python311 || return
	local pid f n
	start_bg pid "$PY311" "$PYWORK/pychain.py" 60
	sleep 0.5
	rm -rf spool
	{
		write_global 'manual_duration = 1s' 'manual_frequency = 199' "manual_sample = pid:$pid"
		printf '[rule quiet]\nsignal = psi.cpu.some\nabove = 99%%\nduration = 1s\n'
	} >rules.ini
	start_daemon || return 1
	"$TRAPD" arm -S ctl.sock >/dev/null && wait_for 15 has_captures 1 &&
		"$TRAPD" arm -S ctl.sock >/dev/null && wait_for 15 has_captures 2 ||
		{ fail "two manual captures: $(cat daemon.log)"; stop_daemon; return 1; }
	stop_daemon
	for f in $(ls -tr spool/*.pb.zst); do
		"$TRAPD" report "$f" --folded d.folded >/dev/null 2>&1 || { fail "report $f"; return 1; }
		n=$(py_share d.folded ';held_middle;held_leaf(;|$)' ';held_leaf(;|$)')
		echo "    $(basename "$f"): $(py_count d.folded 'held_leaf') samples in held_leaf, $n % under held_middle"
		[ "$(py_count d.folded 'held_leaf')" -gt 0 ] && [ "$n" -ge 90 ] ||
			{ fail "$f: no Python frames: $(head -2 d.folded)"; return 1; }
	done
}

# A Python process that execs the interpreter again (same pid, the new
# image mapped elsewhere): the frames of both images are named.
test_python_after_an_exec() {
	need_root_bpf || return
	need_python311 || return
	local before after
	capture_into exec -F 499 -- "$PY311" "$PYWORK/pyexec.py" 1.5 || return 1
	before=$(py_count exec.folded ';main;before_exec_leaf(;|$)')
	after=$(py_count exec.folded ';main;held_outer;held_middle;held_leaf(;|$)')
	echo "    before the exec $before samples in before_exec_leaf, after it $after in held_leaf"
	[ "$before" -gt 100 ] && [ "$after" -gt 100 ] ||
		{ fail "before $before, after $after: $(sort -t' ' -k2 -nr exec.folded | head -3)"; return 1; }
}

# An interpreter of a version trapd does not know (a copy of python3.11
# whose Py_Version symbol is renamed): native frames, and the sidecar and
# the log say why.
test_python_unknown_interpreter_gives_native_frames() {
	need_root_bpf || return
	need_python311 || return
	python3 - "$PY311" python3.11-unknown <<'PY' || { fail "cannot make the copy"; return 1; }
import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"Py_Version\0") == 1
open(sys.argv[2], "wb").write(b.replace(b"Py_Version\0", b"Py_Versiom\0"))
PY
	chmod +x python3.11-unknown
	capture_into unknown -F 199 -- ./python3.11-unknown "$PYWORK/pychain.py" 1 || return 1
	echo "    not walkable: $(py_field unknown.json interpreters_not_walkable); $(grep -c . unknown.folded) stacks"
	[ "$(py_field unknown.json interpreters_not_walkable)" -eq 1 ] || { fail "not counted"; return 1; }
	[ "$(py_count unknown.folded 'held_leaf|<unknown Python code>')" -eq 0 ] || { fail "Python names from an unknown interpreter"; return 1; }
	[ "$(py_count unknown.folded '_PyEval_EvalFrameDefault')" -gt 0 ] || { fail "no native frames"; return 1; }
	grep -q 'no Py_Version' unknown.log || { fail "the log does not say why: $(cat unknown.log)"; return 1; }
}

# A process that corrupts its own interpreter state (pycorrupt.py): a frame
# whose link to its caller points at unmapped memory ends that walk
# (counted "unreadable"), a code object whose name is no string is not
# named (counted "refused", shown as <unknown Python code>); the healthy
# thread is named as ever, and trapd neither crashes nor hangs.
test_python_corrupt_frames_are_counted_never_misnamed() {
	need_root_bpf || return
	need_python311 || return
	local healthy
	capture_into corrupt -F 499 -- "$PY311" "$PYWORK/pycorrupt.py" 2 || return 1
	healthy=$(py_share corrupt.folded ';main;healthy_caller;healthy_leaf(;|$)' ';healthy_leaf(;|$)')
	echo "    unreadable $(py_field corrupt.json unreadable), refused frames $(py_field corrupt.json frames_refused), healthy chain $healthy %"
	[ "$(py_field corrupt.json unreadable)" -gt 0 ] || { fail "the broken link was not counted"; return 1; }
	[ "$(py_field corrupt.json frames_refused)" -gt 0 ] || { fail "the bad name was not counted"; return 1; }
	[ "$(py_count corrupt.folded 'misnamed_loop')" -eq 0 ] || { fail "a name from a corrupt code object"; return 1; }
	[ "$(py_count corrupt.folded ';broken_link_loop(;|$)')" -gt 0 ] || { fail "the frame before the broken link is lost"; return 1; }
	[ "$healthy" -ge 90 ] || { fail "healthy thread: $healthy %"; return 1; }
}

# CPython 3.12 (its own frame layout, entry frames marked by their owner)
# and 3.13 (the layout read from its _Py_DebugOffsets), as libpython3.X.so,
# where this machine has them (pyenv builds); Debian 12 packages 3.11 only.
test_python_other_versions() {
	need_root_bpf || return
	local py v share found=0
	for py in "$HOME"/.pyenv/versions/3.1[23].*/bin/python3.1[23]; do
		[ -x "$py" ] || continue
		found=$((found + 1))
		v=$(basename "$py")
		capture_into "$v" -F 499 -- "$py" "$PYWORK/pychain.py" 2 || return 1
		share=$(py_share "$v.folded" ";main;(held_outer;held_middle;held_leaf|${PY_DEEP#main;})(;|\$)" ';main(;|$)')
		echo "    $py: $share % of main's samples in the right chain"
		[ "$share" -ge 90 ] || { fail "$v: $share %: $(sort -t' ' -k2 -nr "$v.folded" | head -2)"; return 1; }
	done
	[ "$found" -gt 0 ] || echo "    no CPython 3.12 or 3.13 on this machine: Debian's 3.11 is tested above"
}
