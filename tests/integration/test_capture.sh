# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_capture.sh - `trapd capture` on real workloads, checked through
# `trapd report` and go tool pprof.

# A burner whose three functions burn 60/30/10 % of the work: the
# measured self shares must agree within a few points.
test_capture_pid_shares() {
	need_root_bpf || return
	local pid s60 s30 s10
	start_bg pid "$WORKLOADS/burner" 8
	sleep 0.3
	"$TRAPD" capture -p "$pid" -d 3s -F 999 -o cap.pb.zst || { fail "capture failed"; return 1; }
	[ -s cap.pb.zst ] && [ -s cap.json ] || { fail "capture files missing"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >report.txt || { fail "report failed"; return 1; }
	s60=$(self_share cap.folded burn_60)
	s30=$(self_share cap.folded burn_30)
	s10=$(self_share cap.folded burn_10)
	echo "    self shares: burn_60 $s60%, burn_30 $s30%, burn_10 $s10%"
	within "$s60" 60 5 && within "$s30" 30 5 && within "$s10" 10 4 ||
		{ fail "shares off: $s60/$s30/$s10, expected 60/30/10"; return 1; }
	grep -q burn_60 report.txt || { fail "top table does not name burn_60"; return 1; }
	grep -q '"format": "trapd-capture/1"' cap.json || { fail "sidecar lacks its format"; return 1; }
	grep -q "\"pid\": $pid" cap.json || { fail "sidecar lacks the target pid"; return 1; }
}

# A loop that keeps step with the sampling clock (each iteration exactly
# one period, its first tenth in step_first) is where a fixed period
# aliases worst: every sample fell at the same point of the iteration,
# 99.9 % in step_rest. The sampler draws its rate anew every few periods
# (sampler__dither), so the samples cross the iteration and find the
# tenth. Shares are of ~1,000 samples: 10 % carries a sampling error of
# about 1 point, so 4 points is four of them.
test_capture_does_not_alias_with_a_loop_in_step() {
	need_root_bpf || return
	local first rest
	"$TRAPD" capture -F 499 -d 3s -o cap.pb.zst -- "$WORKLOADS/lockstep" 499 3.5 10 \
		>/dev/null 2>capture.err || { fail "capture failed: $(cat capture.err)"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null || { fail "report failed"; return 1; }
	first=$(total_share cap.folded step_first)
	rest=$(total_share cap.folded step_rest)
	echo "    step_first $first %, step_rest $rest % (10 and 90 expected)"
	within "$first" 10 4 && within "$rest" 90 5 ||
		{ fail "the samples alias with the loop: step_first $first %, step_rest $rest %"; return 1; }
}

# trapd's self shares agree with perf record's on the same workload.
test_capture_agrees_with_perf() {
	need_root_bpf || return
	command -v perf >/dev/null || { skip "perf not installed"; return; }
	local pid t p
	start_bg pid "$WORKLOADS/burner" 12
	sleep 0.3
	"$TRAPD" capture -p "$pid" -d 3s -F 999 -o cap.pb.zst 2>/dev/null || { fail "capture failed"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null || { fail "report failed"; return 1; }
	# cpu-clock, as trapd uses: perf's default (cycles) needs a hardware PMU.
	perf record -e cpu-clock -q -F 999 -g -p "$pid" -o perf.data -- sleep 3 >/dev/null 2>&1 ||
		{ fail "perf record failed"; return 1; }
	perf report -i perf.data --stdio --no-children --sort symbol 2>/dev/null >perf.txt
	for fn in burn_60 burn_30 burn_10; do
		t=$(self_share cap.folded $fn)
		p=$(awk -v fn=$fn '$2 == "[.]" && $3 == fn { sub(/%/, "", $1); print $1; exit }' perf.txt)
		echo "    $fn: trapd $t%, perf ${p:-?}%"
		[ -n "$p" ] || { fail "perf report has no $fn"; return 1; }
		within "$t" "$p" 4 || { fail "$fn: trapd $t% vs perf $p%"; return 1; }
	done
}

# go tool pprof, the reference reader, parses the capture and names the
# functions.
test_capture_reads_in_go_pprof() {
	need_root_bpf || return
	command -v go >/dev/null || { skip "go not installed"; return; }
	local pid
	start_bg pid "$WORKLOADS/burner" 6
	sleep 0.3
	"$TRAPD" capture -p "$pid" -d 1s -F 999 -o cap.pb.zst 2>/dev/null || { fail "capture failed"; return 1; }
	zstd -q -d cap.pb.zst -o cap.pb || { fail "zstd cannot decompress the capture"; return 1; }
	HOME=$PWD go tool pprof -top cap.pb >top.txt 2>err.txt || { fail "go tool pprof: $(cat err.txt)"; return 1; }
	grep -q burn_60 top.txt || { fail "go tool pprof -top does not show burn_60"; return 1; }
	HOME=$PWD go tool pprof -raw cap.pb >raw.txt 2>&1 || { fail "go tool pprof -raw failed"; return 1; }
	grep -q "comm:\[burner\]" raw.txt || grep -q 'comm:\[' raw.txt || { fail "no comm label in pprof -raw"; return 1; }
	"$TRAPD" report cap.pb.zst --pprof cap.pb.gz >/dev/null || { fail "report --pprof failed"; return 1; }
	HOME=$PWD go tool pprof -top cap.pb.gz 2>/dev/null | grep -q burn_30 || { fail "gzip pprof unreadable"; return 1; }
}

# A process that exits in the middle of the window is still symbolized and
# the window ends with it.
test_capture_process_exiting_mid_window() {
	need_root_bpf || return
	local pid
	start_bg pid "$WORKLOADS/burner" 1.5
	sleep 0.2
	"$TRAPD" capture -p "$pid" -d 10s -F 999 -o cap.pb.zst 2>err.txt || { fail "capture failed: $(cat err.txt)"; return 1; }
	grep -q '"end_reason": "target exited"' cap.json || { fail "window did not end with the target"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null || { fail "report failed"; return 1; }
	grep -q 'burn_60[; ]' cap.folded || { fail "exited process not symbolized"; return 1; }
}

# A started command is sampled with its children, and its status returned.
test_capture_command_and_children() {
	need_root_bpf || return
	local b=$WORKLOADS/burner
	"$TRAPD" capture -F 999 -o cap.pb.zst -- sh -c "$b 1 >/dev/null & $b 1 >/dev/null; wait" 2>/dev/null ||
		{ fail "capture of a command failed"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null || { fail "report failed"; return 1; }
	grep -q '^burner;.*burn_60[; ]' cap.folded || { fail "children not sampled"; return 1; }
	[ "$(grep -c '"pid"' cap.json)" -ge 1 ] || { fail "sidecar lacks the command pid"; return 1; }
	expect_status 3 "$TRAPD" capture -o st.pb.zst -- sh -c 'exit 3' || return 1
	expect_status 127 "$TRAPD" capture -o nf.pb.zst -- /nonexistent/command || return 1
}

# Kernel frames are named from /proc/kallsyms.
test_capture_kernel_frames() {
	need_root_bpf || return
	"$TRAPD" capture -F 999 -o cap.pb.zst -- dd if=/dev/zero of=/dev/null bs=64k count=200000 2>/dev/null ||
		{ fail "capture failed"; return 1; }
	"$TRAPD" report cap.pb.zst --folded cap.folded >/dev/null || { fail "report failed"; return 1; }
	grep -qE '(ksys_read|vfs_read|read_zero|iov_iter_zero|__x64_sys_read)_\[k\]' cap.folded ||
		{ fail "no named kernel frame of read(2)"; head -5 cap.folded; return 1; }
}

# A signal to trapd reaches the command it started and ends the window;
# trapd exits with the command's status.
test_capture_signal_reaches_command() {
	need_root_bpf || return
	local pid rc i
	"$TRAPD" capture -o cap.pb.zst -- sleep 30 2>/dev/null &
	pid=$!
	BG_PIDS+=("$pid")
	# The child is named sleep once it has exec'd, after the sampler is armed.
	for i in $(seq 50); do pgrep -P "$pid" -x sleep >/dev/null && break; sleep 0.1; done
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 143 ] || { fail "trapd exited $rc, expected 143 (the command's SIGTERM)"; return 1; }
	grep -q '"end_reason": "interrupted"' cap.json || { fail "window did not end as interrupted"; return 1; }
}

# A window shorter than the command only bounds the sampling: trapd waits
# for the command and exits with its status.
test_capture_window_shorter_than_command() {
	need_root_bpf || return
	expect_status 4 "$TRAPD" capture -d 300ms -o cap.pb.zst -- sh -c 'sleep 1; exit 4' || return 1
	echo "$LAST_STDERR" | grep -q "waiting for 'sh'" || { fail "no word of waiting: $LAST_STDERR"; return 1; }
	grep -q '"end_reason": "duration"' cap.json || { fail "window did not end at its duration"; return 1; }
	grep -q '"exit_status": -1' cap.json || { fail "sidecar should say the command outlived the window"; return 1; }
}

# The sampler's object has no CO-RE relocation (bpf/sampler.bpf.c): a
# capture never has libbpf parse the kernel's BTF, which costs trapd
# ~8 MiB of memory and milliseconds of every start. One type taken from
# vmlinux.h by mistake (the Python walker's bpf_pidns_info once) is enough.
test_capture_loads_no_kernel_btf() {
	need_root_bpf || return
	"$TRAPD" -v -v capture -d 200ms -o out.pb.zst -- true >out.log 2>&1 ||
		{ fail "capture: $(tail -3 out.log)"; return 1; }
	grep -q 'libbpf' out.log || { fail "no libbpf debug output to check"; return 1; }
	! grep -i 'kernel BTF' out.log || { fail "libbpf loaded the kernel's BTF"; return 1; }
}

# The budget of a one-shot capture: 100 kHz on the whole system would
# stall a VM's CPUs (each interrupt costs tens of microseconds there);
# it is lowered to fit --max-overhead (10 % by default), said on stderr
# and in the sidecar, and the 1 s window takes about 1 s. A frequency
# above the kernel's perf_event_max_sample_rate is refused.
test_capture_frequency_is_capped_by_the_budget() {
	need_root_bpf || return
	local t0 t1 max
	t0=$(date +%s%N)
	"$TRAPD" capture -a -d 1s -F 100000 -o hot.pb.zst 2>hot.err ||
		{ fail "capture -F 100000: $(cat hot.err)"; return 1; }
	t1=$(date +%s%N)
	grep -q 'sampling at [0-9]* Hz, not 100000: 100000 Hz would take about' hot.err ||
		{ fail "no reason on stderr: $(cat hot.err)"; return 1; }
	python3 - hot.json <<'PY' || return 1
import json, sys
m = json.load(open(sys.argv[1]))
o = m["overhead"]
problems = []
if o["asked_hz"] != 100000 or not 1 <= o["frequency_hz"] < 100000 or m["frequency_hz"] != o["frequency_hz"]:
    problems.append("frequencies %s -> %s (sampled %s)" % (o["asked_hz"], o["frequency_hz"], m["frequency_hz"]))
if "max_capture_overhead 10%" not in (o["capped"] or ""):
    problems.append("capped: %r" % o["capped"])
if not o["interrupt_measured"] or not 0 < o["steady_pct"] < 10 or o["ended_early"]:
    problems.append("measured %s%% (interrupt %s ns, measured %s)" % (o["measured_pct"], o["interrupt_ns"], o["interrupt_measured"]))
for p in problems:
    print("   FAIL: sidecar: " + p)
sys.exit(1 if problems else 0)
PY
	[ $(((t1 - t0) / 1000000)) -lt 2500 ] || { fail "a 1 s window took $(((t1 - t0) / 1000000)) ms"; return 1; }
	"$TRAPD" capture -a -d 1s -F 999 -o cool.pb.zst 2>cool.err || { fail "capture -F 999"; return 1; }
	! grep -q 'sampling at' cool.err || { fail "999 Hz was capped: $(cat cool.err)"; return 1; }
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	"$TRAPD" capture -a -d 1s -F $((max + 1)) -o no.pb.zst 2>no.err
	[ $? -eq 2 ] && grep -q 'perf_event_max_sample_rate' no.err ||
		{ fail "a frequency over the kernel's limit: $(cat no.err)"; return 1; }
	"$TRAPD" capture -a -d 1s --max-overhead 0 -o no.pb.zst 2>no.err
	[ $? -eq 2 ] && grep -q 'bad --max-overhead' no.err || { fail "--max-overhead 0: $(cat no.err)"; return 1; }
}
