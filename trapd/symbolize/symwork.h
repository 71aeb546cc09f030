/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* symwork.h - a capture's symbolization worker: a thread that owns the
 * capture's symbolizer and does everything that reads the targets' files.
 *
 * Snapshots of /proc/PID/maps load the ELF files, debug files and perf
 * maps of the processes a capture sees, and building the profile reads
 * perf maps again: work a target chooses the size of. An event loop that
 * did it itself would stop watching rules, serving its control socket and
 * closing windows on time while a target kept it busy. So the loop only
 * queues: a pid to snapshot (the queue is bounded; what does not fit is
 * counted), and at the end one job, which runs after every snapshot
 * queued before it, under the capture's budget (symbudget.h), and then
 * makes symwork__fd readable.
 *
 *	w = symwork__start(sym, &budget);	// takes @sym
 *	symwork__snapshot(w, pid);		// as processes appear
 *	symwork__finish(w, job, ctx);		// once, when the window closed
 *	... symwork__fd(w) readable, or symwork__wait(w) ...
 *	symwork__free(w);
 */
#ifndef TRAPD_SYMWORK_H
#define TRAPD_SYMWORK_H

#include <stdbool.h>
#include <stdint.h>

#include "trapd/symbolize/symbolizer.h"
#include "trapd/symbolize/symbudget.h"

struct symwork;

/* The final job: runs on the worker with the symbolizer and the budget
 * (its clock started when symwork__finish was called). */
typedef void (*symwork_job_fn)(struct symbolizer *sym, struct symbudget *budget, void *ctx);

/* symwork__start - a worker owning @sym (freed by symwork__free, also on
 * failure here) within a copy of @budget (NULL: the defaults). NULL and
 * errno on failure. */
struct symwork *symwork__start(struct symbolizer *sym, const struct symbudget *budget);

/* symwork__snapshot - queue a snapshot of @pid. Returns 0, -ENOSPC when
 * the queue is full (counted in symwork__snapshots_dropped) or -EALREADY
 * after symwork__finish. Never blocks on the worker's work. */
int symwork__snapshot(struct symwork *w, int pid);

/* symwork__finish - run @job(@ctx) once the snapshots queued so far are
 * done; the wall-time budget counts from now. Returns 0 or -EALREADY. */
int symwork__finish(struct symwork *w, symwork_job_fn job, void *ctx);

/* symwork__fd - an eventfd readable once the job has run. Owned by @w. */
int symwork__fd(const struct symwork *w);

/* symwork__done - whether the job has run (reads the eventfd). */
bool symwork__done(struct symwork *w);

/* symwork__wait - block until the job has run (one-shot callers). */
void symwork__wait(struct symwork *w);

/* symwork__snapshots_dropped - snapshots the full queue refused. */
uint64_t symwork__snapshots_dropped(struct symwork *w);

/* symwork__free - stop the worker and free it with its symbolizer. A
 * worker whose job has not run is told to stop after the snapshot it is
 * doing (the job is then not run). NULL is a no-op. */
void symwork__free(struct symwork *w);

#endif
