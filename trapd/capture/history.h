/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* history.h - the flight recorder: the daemon's always-on, low-rate stack
 * history, so a capture also holds the seconds before its trigger.
 *
 * A sampler of its own runs armed at a low frequency (19 Hz is 38
 * samples a second on two CPUs) over every task. The recorder's thread
 * moves its counts out once a second and symbolizes them right away, into
 * one small profile per second kept in a ring of the last window: a
 * process that has exited by the time a rule fires is named, because it
 * was named within a second of its samples (and a process announced by
 * the sampler is read the moment it appears). Symbol tables come from the
 * daemon's cache (symcache.h), so the files the captures read are loaded
 * once for both. User stacks are walked by frame pointers (no copies).
 *
 * A trigger takes a slice of the ring (history__slice, from the event
 * loop: it only takes references, and has the thread cut the second in
 * progress at the decision); the capture's worker turns it into the
 * capture's "before" phase (history_slice__build, profile_phase.h) when
 * it writes the capture, so a slice costs the loop nothing.
 *
 * Bounds: the ring keeps at most window seconds and max_bytes of
 * profiles (the oldest seconds go first); a second symbolizes at most
 * what the sampler's maps held (sized for the frequency); the thread's
 * own CPU time and the time each drain took are counted
 * (history__stats), and with its BPF run time and its interrupts held to
 * a share of the host: over it for some seconds, the frequency is
 * lowered (the ring's seconds then differ in period, and are merged by
 * time).
 */
#ifndef TRAPD_HISTORY_H
#define TRAPD_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/capture/unwind_tables.h"
#include "trapd/profile/profile.h"

struct history;
struct history_slice;
struct symcache;

struct history_opts {
	uint64_t freq_hz;	   /* samples per second per CPU */
	uint64_t window_ns;	   /* the seconds kept, and what a capture gets */
	uint64_t max_bytes;	   /* the most the ring's profiles may hold */
	struct symcache *symcache; /* the daemon's (thread-safe); NULL: none kept */
	const char *proc_root;	   /* "/proc" unless a test says otherwise */
	/* The budget (overhead.h): the recorder's share of the host,
	 * measured each second (its thread's CPU, its BPF run time, its
	 * interrupts at @irq_ns each), may not stay above @max_pct: after
	 * HISTORY_OVER_BUDGET_SECONDS over it the frequency is lowered to
	 * what fits (at most half); once lowered, after
	 * HISTORY_UNDER_BUDGET_SECONDS under half of it, raised again
	 * towards @freq_hz, to what fits. @max_pct 0: no budget. */
	double max_pct;
	uint64_t irq_ns;
	int ncpus;
	/* The kernel walk's tables (unwind_tables.h, shared: the recorder's
	 * sampler takes a reference); NULL: stacks are walked by frame
	 * pointers. */
	struct unwind_tables *walk_tables;
};

#define HISTORY_OVER_BUDGET_SECONDS 5
#define HISTORY_UNDER_BUDGET_SECONDS 10

struct history_stats {
	uint64_t freq_hz;
	uint64_t seconds;	/* seconds in the ring now */
	uint64_t bytes;		/* ...and about what they hold */
	uint64_t samples;	/* on-CPU samples in the ring */
	uint64_t drains;	/* seconds drained since open */
	uint64_t drain_ns_last; /* thread CPU time of the last drain */
	uint64_t drain_ns_max;
	uint64_t thread_cpu_ns;	    /* the recorder thread's CPU time since open */
	uint64_t evicted_for_bytes; /* seconds dropped early to stay in max_bytes */
	uint64_t lost;		    /* samples the sampler could not store */
	/* The kernel walk (bpf/sampler.h), since open: walks by how they
	 * ended, frames stepped by frame pointer, and its tables; all 0 when
	 * stacks are walked by frame pointers only (@walking false). */
	bool walking;
	uint64_t walk_ends[SAMPLER_WALK_NR];
	uint64_t walk_fp_frames;
	struct unwind_tables_stats tables;
	/* the budget: the last HISTORY_OVER_BUDGET_SECONDS, as a share of
	 * the host (all of it, interrupts included), and its parts */
	double share_pct;
	uint64_t bpf_ns_per_second;
	uint64_t interrupts_per_second;
	uint64_t lowered;   /* times the frequency was lowered to keep the budget */
	uint64_t raised;    /* times it was raised again, the cost back under */
	char decision[320]; /* the last of them, in words, and what cost the most; "" if none */
};

/* history__open - load the recorder's sampler, arm it and start its
 * thread. NULL with errno set and @err filled on failure. */
struct history *history__open(const struct history_opts *o, char *err, size_t errlen);

/* history__close - stop the thread and the sampler; the ring stays until
 * the last slice taken from it is freed. NULL is fine. */
void history__close(struct history *h);

/* history__stats - a copy of the recorder's counters (any thread). */
void history__stats(struct history *h, struct history_stats *out);

/* history__slice - the ring's seconds up to @until_real_ns (the
 * decision, CLOCK_REALTIME ns), for one capture: references only, cheap
 * enough for the event loop; the second in progress is cut at once by
 * the thread and joins the slice when it is built. NULL (errno) on
 * failure. */
struct history_slice *history__slice(struct history *h, int64_t until_real_ns);

/* history_slice__build - the slice as one profile, every second merged,
 * at the recorder's period, starting at its first second and lasting to
 * the decision; NULL in *@out when it holds no second. Returns 0 or a
 * negative errno. Any thread. */
int history_slice__build(struct history_slice *s, struct profile **out);

void history_slice__free(struct history_slice *s);

/* history_slice__stats - the recorder's counters (its decisions) as a
 * slice's capture is written. */
void history_slice__stats(const struct history_slice *s, struct history_stats *out);

/* history__recent - the last @seconds drained seconds as one profile (as
 * history_slice__build makes it), for a live view; NULL in *@out when
 * the ring holds none. The merge is bounded by @seconds of the ring:
 * keep it small on the event loop. Returns 0 or a negative errno. */
int history__recent(struct history *h, uint32_t seconds, struct profile **out);

/* history__profile_bytes - about what @p holds in memory (for bounds). */
size_t history__profile_bytes(const struct profile *p);

#endif
