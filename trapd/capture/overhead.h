/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* overhead.h - what trapd's sampling costs the host, measured, and the
 * budget it holds itself to ([global] max_overhead for what runs always,
 * max_capture_overhead for a capture's window).
 *
 * A sample costs the CPU it interrupts two things: the interrupt itself
 * (the timer, perf's overflow handling; on a virtual machine without a
 * PMU, tens of microseconds) and the BPF program that takes the stack.
 * The first is measured once (overhead__calibrate: a loop of fixed work
 * timed with and without a 5 kHz cpu-clock event on its own thread);
 * the second by the kernel's BPF run-time statistics (BPF_ENABLE_STATS:
 * a file descriptor, so they go off with the daemon). Those time every
 * BPF program run on the host, not only trapd's: two clock reads a run,
 * which a system call rule's hooks would pay at every system call of
 * every process. So they are on only while something measures: a capture
 * window, from its arming to its end, and the flight recorder while it
 * runs (overhead__hold_stats). What trapd's own threads use is their CPU
 * time.
 *
 * Shares are of the whole host: 1 % of a 2-CPU host is 20 ms of CPU a
 * second.
 */
#ifndef TRAPD_OVERHEAD_H
#define TRAPD_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/capture/sampler.h"

/* What one sample is assumed to cost in BPF before any was measured: a
 * frame-pointer walk of both stacks took 6.3 us here, with a 16 KiB stack
 * copy 8.7 us (the sidecar's overhead.bpf_ns / interrupts). */
#define OVERHEAD_DEFAULT_BPF_NS 8000
/* ...and an interrupt when it cannot be calibrated (a VM's, to be safe). */
#define OVERHEAD_DEFAULT_IRQ_NS 30000

struct overhead {
	int stats_fd;	    /* BPF run-time statistics on while open; -1: off */
	int stats_holds;    /* capture windows and the recorder measuring */
	bool stats_refused; /* the kernel said no (logged once): not asked again */
	uint64_t irq_ns;    /* one sampling interrupt, measured */
	bool irq_measured;  /* false: OVERHEAD_DEFAULT_IRQ_NS */
	int ncpus;	    /* online CPUs */
};

/* overhead__open - calibrate the cost of an interrupt (~0.15 s of one
 * CPU, once). Never fails: what cannot be measured takes the default,
 * logged. overhead__close switches the statistics off, held or not. */
void overhead__open(struct overhead *o);
void overhead__close(struct overhead *o);

/* overhead__hold_stats - the BPF run-time statistics on until the matching
 * overhead__release_stats (the last release switches them off). Where
 * the kernel refuses them, a sample's BPF is counted at
 * OVERHEAD_DEFAULT_BPF_NS (logged once). */
void overhead__hold_stats(struct overhead *o);
void overhead__release_stats(struct overhead *o);

/* The calibration's sampling period: 5 kHz on its own thread. A shorter
 * one makes the loop crawl where an interrupt costs tens of
 * microseconds (at 20 kHz a VM spends most of the loop in them). */
#define OVERHEAD_CALIBRATE_PERIOD_NS 200000

/* overhead__calibrate - the cost of one cpu-clock sampling interrupt on
 * this machine, in ns, from a fixed loop timed with and without one
 * every @period_ns on this thread (medians of @rounds pairs). Returns 0
 * or a negative errno (no perf events). */
int overhead__calibrate(uint64_t period_ns, int rounds, uint64_t *irq_ns);

/* overhead__share - @ns of CPU over @elapsed_ns of the host's @ncpus, in
 * percent of the host. */
double overhead__share(uint64_t ns, uint64_t elapsed_ns, int ncpus);

/* overhead__sample_ns - what one sample costs: an interrupt and @bpf_ns
 * (0: the default) of BPF. */
uint64_t overhead__sample_ns(const struct overhead *o, uint64_t bpf_ns);

/* overhead__cap_freq - the highest frequency up to @want_hz whose samples
 * on @sampled_cpus CPUs cost at most @max_pct of the host, at
 * @sample_ns each. Returns @want_hz when it fits; at least 1. */
uint64_t overhead__cap_freq(uint64_t want_hz, int sampled_cpus, int ncpus, uint64_t sample_ns,
			    double max_pct);

/* The share of its budget a window's frequency is chosen for: the rest
 * is room for what the estimate does not see (stack copies, Python
 * walks, a scheduler hook on a busy host), measured as it runs. */
#define OVERHEAD_CAP_SHARE 0.7

/* A capture window held to its budget: its frequency chosen before it
 * is armed (overhead_window__choose), its cost measured while it runs:
 * what trapd chose to spend, its sampling program's BPF run time and its
 * interrupts. The hooks a window adds (off-CPU time, calls) run at every
 * event of every task, so another user's load would decide the window's
 * fate: their cost is measured and reported apart, and bounded by what
 * each records (sampler.h), not by ending the window. */
struct overhead_window {
	struct overhead *o; /* NULL: no budget */
	bool holds_stats;   /* from start to end */
	double max_pct;
	uint64_t asked_hz, freq_hz;
	uint64_t sample_ns; /* the estimate the frequency was chosen by */
	/* the most stacks each CPU's off-CPU hook takes a second (0: no
	 * bound): OVERHEAD_OFFCPU_SHARE of the budget at the sample's BPF */
	uint64_t offcpu_takes_hz;
	char capped[240];     /* why it was lowered; "" when it was not */
	uint64_t bpf0, runs0; /* the sampler's statistics when armed */
	int64_t start_mono, next_check;
	/* measured, at the last check: the whole window, and its steady
	 * rate (from OVERHEAD_WARMUP_NS in: the first samples of a window
	 * store new stacks and announce processes, and cost more) */
	uint64_t bpf_ns, interrupts;
	double share_pct;
	/* the hooks' BPF (sampler.h: struct sampler_cost), which every task's
	 * events drive: reported, not judged */
	uint64_t hooks0, hooks_ns;
	double hooks_pct;
	int64_t steady_from;
	uint64_t bpf1, runs1;
	double steady_pct;
	bool over; /* the steady share passed max_pct: the window ended */
};

/* The share of a window's budget that taking the stacks of tasks leaving
 * a CPU may use, on each CPU (a take costs about what a sample's BPF
 * does): 10 % with 8 us takes is 3,750 a second a CPU. Past it, waits are
 * counted under the stacks their task last left with (sampler.h). */
#define OVERHEAD_OFFCPU_SHARE 0.3

/* overhead__offcpu_takes_hz - how many stack takes of @take_ns each a
 * CPU may make a second within OVERHEAD_OFFCPU_SHARE of @max_pct; 0
 * (no bound) without a budget. */
uint64_t overhead__offcpu_takes_hz(double max_pct, uint64_t take_ns);

/* How long a window warms up before its rate is judged. */
#define OVERHEAD_WARMUP_NS 500000000ll

/* overhead_window__choose - the frequency for a window asked at @want_hz
 * on @s (a kept sampler whose past samples say what its BPF costs; NULL:
 * none), within @max_pct of the host (0: no budget) by @o's measures:
 * @want_hz, or lower (w->capped says why). A sample's BPF is the most of
 * what @s measured, @bpf_hint_ns (the recorder's samples: a sample at a
 * low rate finds cold caches, and costs more) and, when neither knows,
 * OVERHEAD_DEFAULT_BPF_NS. */
uint64_t overhead_window__choose(struct overhead_window *w, struct overhead *o, double max_pct,
				 const struct sampler *s, uint64_t bpf_hint_ns, uint64_t want_hz);

/* overhead_window__start - the window is armed on @s at @now: the BPF
 * statistics are held until overhead_window__end (which may be called
 * more than once, and for a window never started). */
void overhead_window__start(struct overhead_window *w, const struct sampler *s, int64_t now);
void overhead_window__end(struct overhead_window *w);

/* overhead_window__check - measure the window so far (at most every
 * 250 ms unless @force); true once its steady share of the host (over
 * at least OVERHEAD_WARMUP_NS after the warm-up) passed max_pct. */
bool overhead_window__check(struct overhead_window *w, const struct sampler *s, int64_t now,
			    bool force);

#endif
