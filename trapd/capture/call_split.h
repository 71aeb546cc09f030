/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* call_split.h - which of a window's calls were slow, so each sample can
 * say whether it was taken inside a slow call, a fast one, or outside.
 *
 * The sampler numbers the calls of one function (or of system calls)
 * while the window is armed (bpf/sampler.h, struct sampler_call); its
 * samples and waits carry the number of the call they fell in. At the
 * close the durations of those calls (sampler__read_calls) and the
 * histogram of every call of the window come here, the line between slow
 * and fast is drawn (a fixed duration, or a percentile of the window's
 * own calls), and each number gets its class:
 *
 *	outside  the thread was in no call (number 0)
 *	slow     the call lasted the threshold or more (also a call still
 *	         open at the close that had lasted that long already)
 *	fast     it returned sooner
 *	unknown  its duration is not known: still open at the close but
 *	         not yet slow, or lost (the window's maps were full)
 */
#ifndef TRAPD_CALL_SPLIT_H
#define TRAPD_CALL_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "trapd/latency/latency_hist.h"

enum call_class {
	CALL_OUTSIDE = 0,
	CALL_FAST,
	CALL_SLOW,
	CALL_UNKNOWN,
	CALL_CLASS_NR,
};

/* Where slow starts: @ns when non-zero, else the @percentile (0 < p <
 * 100) of the window's calls. */
struct call_threshold {
	uint64_t ns;
	double percentile;
};

struct call_split_stats {
	uint64_t calls;	       /* calls that returned in the window (all, sampled or not) */
	uint64_t sampled;      /* calls a sample or wait fell in, duration known */
	uint64_t open;	       /* ... of which still open at the close */
	uint64_t slow;	       /* sampled calls classed slow */
	uint64_t fast;	       /* ... fast */
	uint64_t threshold_ns; /* the line drawn; UINT64_MAX: no call to draw it from */
	uint64_t p50_ns, p99_ns, max_ns; /* of all the window's calls */
};

struct call_split;

/* call_split__new - empty; NULL and errno on failure. */
struct call_split *call_split__new(void);
void call_split__free(struct call_split *c);

/* call_split__add - sampled call @id lasted @ns (@open: was still open at
 * the close, and had lasted @ns). An id added twice keeps the first.
 * Returns 0, -EINVAL for id 0, or -ENOMEM. */
int call_split__add(struct call_split *c, uint64_t id, uint64_t ns, bool open);

/* call_split__set_all - the histogram of every call of the window. */
void call_split__set_all(struct call_split *c, const struct lat_hist *all);

/* call_split__decide - draw the line with @t and class every call added;
 * after it, call_split__class answers. Returns the threshold in ns
 * (UINT64_MAX for a percentile of a window without calls: none slow). */
uint64_t call_split__decide(struct call_split *c, const struct call_threshold *t);

/* call_split__class - the class of call @id, after call_split__decide. */
enum call_class call_split__class(const struct call_split *c, uint64_t id);

/* call_split__stats - counts, after call_split__decide. */
const struct call_split_stats *call_split__stats(const struct call_split *c);

/* call_class__name - "outside", "fast", "slow", "unknown": the values of
 * the `call` label in profiles. */
const char *call_class__name(enum call_class k);

#endif
