/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* trap.h - the daemon's capture: at most one window at a time. The first
 * rule that fires starts it; a rule that fires while it runs joins it (the
 * window is extended to cover the new rule's, up to [global] max_window,
 * and sampling is widened to every task if the new rule samples another
 * scope). Every rule that fired is recorded in the capture's metadata
 * with its value and recent history. The finished capture is written to
 * the spool directory in the background: its window is copied out of the
 * sampler and it becomes pending (symbolized and written by its session's
 * worker) while the next capture may already run. At most
 * TRAP_MAX_PENDING wait so; a fire beyond that is refused.
 */
#ifndef TRAPD_TRAP_H
#define TRAPD_TRAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/evaluator.h"
#include "rules/rules.h"
#include "trapd/capture/capture.h"
#include "trapd/capture/session.h"
#include "trapd/latency/latency_hist.h"
#include "trapd/symbolize/symbudget.h"

#define TRAP_MAX_TRIGGERS 64 /* rules recorded in one capture; later ones still extend it */
#define TRAP_MAX_PENDING 4   /* captures being written at once */

/* Why a capture is wanted. */
struct trap_fire {
	const struct rule *rule;      /* NULL: a manual capture */
	const struct rule_eval *eval; /* the rule's state: value and history */
	const char *manual_reason;    /* manual: "SIGUSR1", "trapd arm" */
	struct rule_scope sample;     /* what to sample */
	pid_t process_pid;	      /* a process-name scope, resolved */
	uint64_t duration_ns;
	uint64_t freq_hz;
	enum rule_unwind unwind;   /* how user stacks are walked (a rule's, or manual_unwind) */
	uint64_t stack_copy_bytes; /* ...and copied, in DWARF mode */
	bool no_python;		   /* do not walk Python interpreters' frames */
	enum rule_record record;   /* on-CPU samples, off-CPU time or both */
	const struct lat_hist *latency; /* a latency rule's window when it fired, or NULL */
	uint64_t latency_span_ns;
	/* func and syscall rules: the calls the capture splits its samples
	 * by (kind SAMPLER_CALLS_NONE: none), in words, and where slow starts */
	struct sampler_calls calls;
	const char *calls_what;
	struct call_threshold slow;
};

/* Storage behind one struct capture_trigger of the capture's metadata. */
struct trap_trigger {
	char rule[RULE_NAME_MAX];
	char signal[48];
	char scope[320];
	double *history_t;
	double *history_v;
	struct lat_hist *latency; /* copied from the trap_fire */
};

/* A capture whose window closed, being symbolized and written. */
struct trap_pending {
	struct session *session;
	struct capture_info info; /* points into this struct */
	char id[33];
	char path[PATH_MAX];
	struct capture_trigger triggers[TRAP_MAX_TRIGGERS];
	struct trap_trigger storage[TRAP_MAX_TRIGGERS];
	size_t ntriggers;
	char **labels; /* copied: a reload may free the rules meanwhile */
	size_t nlabels;
	int64_t deadline; /* monotonic ns: when the window was due to close */
	struct trap_pending *next;
};

struct unwinder;
struct history;
struct overhead;

struct trap {
	struct sampler *sampler;   /* loaded once, armed for each capture; owned by the caller */
	struct symcache *symcache; /* symbols kept between captures; owned by the caller */
	struct unwinder *unwinder; /* CFI kept between captures (NULL: none); the caller's */
	uint64_t keep_cfi_bytes;   /* ...while it holds at most this much; set by the caller */
	struct symbudget budget;   /* what symbolizing each capture may cost; set by the caller */
	struct history *history;   /* the flight recorder (NULL: off); the caller's */
	struct overhead *overhead; /* what sampling costs here; the caller's */
	double max_capture_pct;	   /* a window's budget, % of the host; set by the caller */
	struct session *session;   /* NULL when no capture runs */
	struct trap_pending *pending; /* being written, oldest first */
	size_t npending;
	char id[33];
	char sample_desc[320]; /* what the session samples, as rule_scope__format */
	int64_t started;       /* monotonic ns */
	int64_t started_real;  /* realtime ns */
	struct capture_trigger triggers[TRAP_MAX_TRIGGERS];
	struct trap_trigger storage[TRAP_MAX_TRIGGERS];
	size_t ntriggers;
	bool manual;
	char manual_reason[64];
	/* what happened so far, for `trapd status` */
	uint64_t written;
	uint64_t failed;
	uint64_t dropped;     /* old captures dropped to keep the spool in bounds */
	uint64_t capped;      /* captures sampled below their frequency, for the budget */
	uint64_t ended_early; /* ...and ended early by it */
	char last_path[PATH_MAX];
	int64_t last_real; /* realtime ns of the last capture written */
};

/* trap__fire - start a capture for @f, or join the running one. @g gives
 * max_window. Returns 0; -EINVAL when the target is bad (no such cgroup
 * or pid: @err says so); another negative errno when sampling could not
 * start. */
int trap__fire(struct trap *t, const struct trap_fire *f, const struct rules_global *g, int64_t now,
	       char *err, size_t errlen);

/* trap__running - whether a capture is running. */
static inline bool trap__running(const struct trap *t)
{
	return t->session != NULL;
}

/* trap__finish - close the running capture's window and have it written
 * into @r's spool directory with @r's labels, in the background. Returns
 * the pending capture (its session's fd tells when it is written: then
 * trap__collect it), or NULL with @err filled when it is lost already
 * (counted as failed). Either way no capture runs afterwards. */
struct trap_pending *trap__finish(struct trap *t, const struct rules *r, char *err, size_t errlen);

/* trap__pending_by_fd - the pending capture whose session fd is @fd. */
struct trap_pending *trap__pending_by_fd(struct trap *t, int fd);

/* trap__collect - @p is written (session__finished) or must be waited for
 * (@wait): count it, log it, keep the spool of @r in bounds, and fill
 * @path (written) or @err (lost) before @p is freed. Returns 0 or the
 * negative errno of a lost capture. */
int trap__collect(struct trap *t, struct trap_pending *p, const struct rules *r, bool wait,
		  char *path, size_t pathlen, char *err, size_t errlen);

/* trap__reset - release everything (a running capture is lost: call
 * trap__finish first; pending ones are waited for and freed, not
 * collected: call trap__collect first). */
void trap__reset(struct trap *t);

/* trap__sample_target - @scope (and @pid for a process name) as what a
 * session samples. Fills @target and *@cgroup_name. */
void trap__sample_target(const struct rule_scope *scope, pid_t pid, struct capture_target *target,
			 const char **cgroup_name);

#endif
