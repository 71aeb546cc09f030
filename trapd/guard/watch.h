/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* watch.h - the daemon's watched rules: for each rule of the loaded file,
 * its signal source, its evaluation state and, for PSI rules the kernel
 * can watch, a PSI trigger fd.
 *
 * A reload builds a new watch from the new file and lets it adopt the
 * state of every rule that did not change, so a rule in the middle of a
 * `for` or a cooldown keeps counting across SIGHUP.
 */
#ifndef TRAPD_WATCH_H
#define TRAPD_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/evaluator.h"
#include "rules/proc_match.h" /* the guard resolves a capture's process with its rule's pins */
#include "rules/rules.h"
#include "rules/signal.h"
#include "trapd/latency/latency_set.h"
#include "trapd/latency/latency_source.h"

/* PSI trigger fds a watch holds at most (fewer when a quarter of the soft
 * RLIMIT_NOFILE is less); the PSI rules beyond are polled. */
#define WATCH_TRIGGERS_MAX 64

struct watched_rule {
	const struct rule *rule; /* in watch->rules */
	struct rule_eval eval;
	struct signal_source *src;  /* NULL for a latency rule */
	struct latency_source *lat; /* a latency rule's, else NULL */
	int trigger_fd;		    /* PSI trigger, or -1: polled only */
	enum rule_state logged;	    /* the state last logged, to log changes only */
	char err[256];		    /* why the last read failed, "" if it did not */
};

struct proc_comms;
struct proc_events;

/* Rules that follow processes by name scan /proc only when the kernel's
 * process events say something changed (rules/proc_events.h), and, when
 * one pins its name to a cgroup, at least this often: no event tells a
 * process moved to another cgroup. */
#define WATCH_RESCAN_NS (10 * 1000000000ll)

struct watch {
	struct rules *rules; /* owned */
	struct watched_rule *w;
	size_t n;
	struct eval_fires global_fires;
	struct signal_env env;
	struct latency_set *latency; /* the daemon's probes, not owned */
	struct signal_source **srcs; /* every rule's src in a row, for the tick's scan */
	size_t nsrcs;
	struct proc_comms *comms;   /* the scan's comm files, kept open between ticks */
	struct proc_events *events; /* NULL: scan at every tick */
	bool events_tried;	    /* opening them was tried (once a watch) */
	int64_t scanned_ns;	    /* the last full scan, 0 for none */
	uint64_t scans, scans_skipped;
};

/* A rule fired (EVAL_FIRE) or would have (EVAL_DRY_RUN). */
typedef void (*watch_fire_fn)(struct watched_rule *wr, enum eval_verdict v, int64_t now, void *ctx);

/* watch__new - watch every rule of @rules (taking ownership of it) with
 * signals read as @env says and latency rules measured by probes of
 * @latency (which must outlive the watch). Returns NULL with errno set on
 * allocation failure (@rules is then freed). */
struct watch *watch__new(struct rules *rules, const struct signal_env *env,
			 struct latency_set *latency);
void watch__free(struct watch *w);

/* watch__adopt - move from @old into @w the state (evaluation, source,
 * trigger) of every rule that is unchanged (same name, rule__equal), and
 * the global fire counts. Returns how many rules kept their state. */
size_t watch__adopt(struct watch *w, struct watch *old);

/* watch__open_triggers - give PSI rules over a custom window a kernel
 * trigger where the kernel takes it, at most WATCH_TRIGGERS_MAX (or a
 * quarter of the soft RLIMIT_NOFILE) in all; the others are polled
 * (logged, the over-budget ones in one line). */
void watch__open_triggers(struct watch *w);

/* watch__observe - read @wr's signal at @now, evaluate it, log what
 * changed, and call @fn if it fires. */
void watch__observe(struct watch *w, struct watched_rule *wr, int64_t now, watch_fire_fn fn,
		    void *ctx);

/* watch__observe_all - the poll tick: read the latency probes, scan /proc
 * once for every rule that follows a process by name, then
 * watch__observe every rule. */
void watch__observe_all(struct watch *w, int64_t now, watch_fire_fn fn, void *ctx);

/* watch__find - the rule named @name, or NULL. */
struct watched_rule *watch__find(struct watch *w, const char *name);

/* watch__by_trigger - the rule whose trigger fd is @fd, or NULL. */
struct watched_rule *watch__by_trigger(struct watch *w, int fd);

#endif
