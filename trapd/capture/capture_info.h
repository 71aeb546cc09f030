/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* capture_info.h - what a capture is, as plain data: its target, the
 * rules that fired into it, its window and what it recorded and lost.
 * The metadata writer and readers need only this; capture.h holds what
 * builds and writes a capture.
 */
#ifndef TRAPD_CAPTURE_INFO_H
#define TRAPD_CAPTURE_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/cgroup_path.h"
#include "trapd/capture/call_split.h"
#include "trapd/capture/leafcaller.h"
#include "trapd/capture/sampler.h"
#include "trapd/capture/pyframes.h"
#include "trapd/capture/unwind_summary.h"
#include "trapd/latency/latency_hist.h"
#include "trapd/symbolize/symbolizer.h"
#include "trapd/symbolize/symbudget.h"

enum capture_target_kind {
	CAPTURE_TARGET_SYSTEM,
	CAPTURE_TARGET_PID,
	CAPTURE_TARGET_CGROUP,
	CAPTURE_TARGET_COMMAND,
};

struct capture_target {
	enum capture_target_kind kind;
	pid_t pid;		  /* PID and COMMAND */
	struct cgroup_ref cgroup; /* CGROUP */
	char *const *argv;	  /* COMMAND */
	int exit_status;	  /* COMMAND: its exit status, or 128+signal */
};

/* One rule that fired into a capture (daemon captures): the first started
 * it, later ones joined it. Values are in display units (a CPU share in %,
 * not a fraction). The caller owns every pointer; they must stay valid
 * until the capture is written. */
struct capture_trigger {
	const char *rule;   /* the rule's name */
	const char *signal; /* "cpu", "psi.cpu.some", ... */
	const char *scope;  /* "cgroup system.slice/x", "system", ... */
	const char *unit;   /* of threshold, value and history: "%", "bytes", "count", "/s", "ns" */
	bool above;	    /* direction: fired above the threshold (false: below) */
	bool joined;	    /* joined a running capture (false: started it) */
	double threshold;
	double value;		 /* the signal's value when the rule fired */
	int64_t at_ns;		 /* when it fired, ns since the epoch */
	const double *history_t; /* seconds relative to at_ns (<= 0), oldest first */
	const double *history_v; /* the signal's value at each history_t */
	size_t nhistory;
	const struct lat_hist *latency; /* a latency rule's window when it fired; NULL if none */
	uint64_t latency_span_ns;	/* ...and the time it covered */
};

struct run_record;
struct overhead_window;

/* The threads already waiting when an off-CPU window opened (waiting.h). */
struct waiting_stats {
	uint64_t threads; /* threads looked at */
	uint64_t waiting; /* ...blocked when the window opened */
	uint64_t added;	  /* ...told to the sampler */
	uint64_t skipped; /* processes or threads past the bounds */
	uint64_t unnamed; /* kernel frames kallsyms did not name */
	uint64_t gone;	  /* threads that exited while being read */
};

/* The calls a window split its samples by (call_split.h). */
struct capture_calls {
	const char *what; /* "func /usr/bin/x:handle", "syscall read,write"; NULL: not split */
	struct call_threshold threshold;   /* where slow starts, as asked */
	struct call_split_stats stats;	   /* the window's calls; threshold_ns as drawn */
	uint64_t samples[CALL_CLASS_NR];   /* on-CPU samples by class of their call */
	uint64_t offcpu_ns[CALL_CLASS_NR]; /* off-CPU time by class */
};

/* The flight recorder's seconds before the trigger (history.h), spliced
 * in as the "before" phase (profile_phase.h). */
struct capture_history {
	bool present;	     /* the daemon recorded history (even if no second was kept) */
	uint64_t freq_hz;    /* the recorder's frequency */
	int64_t start_ns;    /* its first second, ns since the epoch */
	int64_t duration_ns; /* from then to the decision */
	uint64_t samples;    /* on-CPU samples in it */
	const char *missing; /* why it is not in the profile; NULL when it is */
	char lowered[320];   /* the recorder's last budget decision, in words; "" if none */
};

struct capture_info {
	char id[33];				/* 128 random bits, hex */
	const char *trigger;			/* "manual" (`trapd capture`), "rule" (daemon) */
	const struct capture_trigger *triggers; /* rules that fired into it; none if manual */
	size_t ntriggers;
	const char *const *labels; /* from the configuration: key, value, key, value... */
	size_t nlabels;		   /* pairs in @labels */
	const char *scope_widened; /* why sampling was widened to all tasks; NULL if not */
	struct capture_target target;
	uint64_t freq_hz;
	uint64_t period_ns;
	uint32_t record;	/* what the window recorded: SAMPLER_RECORD_* bits */
	int64_t start_ns;	/* window start, ns since the epoch */
	int64_t duration_ns;	/* window length as measured */
	const char *end_reason; /* "duration", "target exited", "interrupted", ... */
	int64_t arm_ns;		/* from the decision to capture to the sampler armed */
	int64_t late_ns;	/* from the window's deadline to its close; 0 if on time */
	int64_t build_ns;	/* reading the window back and symbolizing it */
	int ncpus;
	struct sampler_stats stats;
	struct symbolizer_stats symbols;
	/* per mapped object: frames named and why not (the symbolizer's) */
	const struct symbolizer_file_stats *sym_files;
	size_t nsym_files;
	const struct symbudget *budget;	       /* what symbolizing cost and refused; NULL if none */
	uint64_t snapshots_dropped;	       /* processes announced past the worker's queue */
	uint64_t samples_stored;	       /* sum of the on-CPU counts read back */
	uint64_t offcpu_ns[SAMPLER_OFFCPU_NR]; /* off-CPU time read back, by state */
	struct waiting_stats waiting;	       /* threads already waiting at the start */
	struct capture_calls calls;	       /* samples split by call; calls.what NULL if not */
	uint64_t stacks_distinct;	       /* distinct stacks (user and kernel) read back */
	uint64_t leaf[LEAF_NR];		       /* samples by what became of their leaf's caller */
	uint64_t roots[STACK_ROOT_NR];	       /* samples by whether their walk reached a root */
	struct unwind_summary unwind;	       /* how user stacks were walked */
	struct pyframes_stats python;	       /* what became of the Python frames */
	uint64_t user_stacks_cut;	       /* samples whose user stack was cut at a word that
					 * is no user address (symbolizer__user_frames) */
	uint64_t profile_bytes;		       /* size of the written .pb.zst */
	const struct run_record *ci; /* `trapd ci`: its runs (the sidecar's "ci"); NULL if none */
	struct capture_history history;		/* the seconds before the trigger */
	const struct overhead_window *overhead; /* its budget (overhead.h); NULL: none */
};

#endif
