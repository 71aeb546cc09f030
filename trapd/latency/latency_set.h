/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_set.h - the latency probes the daemon's rules need, loaded once
 * each and shared.
 *
 * Rules that measure the same thing with the same filter (equal
 * latency_probe_spec) share one probe. A probe is loaded by the first
 * rule that acquires it and detached when the last one releases it, so
 * only what some rule watches runs in the kernel, and a reload that keeps
 * a rule keeps its probe (the new rules acquire before the old ones
 * release).
 *
 * Each tick reads every probe once: the histogram of the interval since
 * the previous tick, numbered so each rule takes every interval exactly
 * once.
 */
#ifndef TRAPD_LATENCY_SET_H
#define TRAPD_LATENCY_SET_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/latency/latency_hist.h"
#include "trapd/latency/latency_probe.h"

struct latency_set;
struct latency_entry;

/* latency_set__new - an empty set. NULL and errno on failure. */
struct latency_set *latency_set__new(void);

/* latency_set__free - every probe is detached (NULL is fine); entries
 * still acquired become invalid. */
void latency_set__free(struct latency_set *s);

/* latency_set__acquire - the probe for @spec, loaded now if no rule has
 * it yet. Returns NULL with errno set and @err filled when it cannot be
 * loaded. */
struct latency_entry *latency_set__acquire(struct latency_set *s,
					   const struct latency_probe_spec *spec, char *err,
					   size_t errlen);

/* latency_set__release - one user fewer; the last one detaches it. */
void latency_set__release(struct latency_set *s, struct latency_entry *e);

/* latency_set__tick - read every probe at @now (CLOCK_MONOTONIC ns). */
void latency_set__tick(struct latency_set *s, int64_t now);

/* latency_set__count - probes loaded. */
size_t latency_set__count(const struct latency_set *s);

/* latency_entry__seq - how many intervals the probe has ended (0 before
 * its first tick). */
uint64_t latency_entry__seq(const struct latency_entry *e);

/* latency_entry__interval - the histogram of the last interval and its
 * length in ns (@span_ns); NULL before the first tick or after a failed
 * read. */
const struct lat_hist *latency_entry__interval(const struct latency_entry *e, uint64_t *span_ns);

/* latency_entry__spec - what the probe measures. */
const struct latency_probe_spec *latency_entry__spec(const struct latency_entry *e);

#endif
