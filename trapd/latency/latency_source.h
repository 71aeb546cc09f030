/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_source.h - the value of a latency rule's signal: a percentile,
 * the max, the count or the rate of the events of its window.
 *
 * The source resolves its rule (latency_spec.h), acquires the shared
 * probe from the daemon's latency_set, and at each read adds the
 * intervals the probe has ended since into a sliding window of the
 * rule's length (one poll interval unless the rule sets `window`).
 * Percentiles and max need min_count events in the window; count and
 * rate always have a value once an interval has ended.
 *
 * When the scope goes away (the cgroup is removed, the process exits,
 * the binary is replaced) the probe is released and the rule resolved
 * again at later reads, so it follows a restarted service.
 */
#ifndef TRAPD_LATENCY_SOURCE_H
#define TRAPD_LATENCY_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "rules/rules.h"
#include "trapd/latency/latency_hist.h"
#include "trapd/latency/latency_set.h"

struct latency_source;

/* latency_source__new - a source for latency rule @r (copied), taking
 * probes from @set (which must outlive it), cgroups found through
 * @mountinfo (NULL: the live one; the string must outlive the source),
 * read every @poll_ns. Nothing is loaded yet. NULL and errno on failure. */
struct latency_source *latency_source__new(const struct rule *r, struct latency_set *set,
					   const char *mountinfo, uint64_t poll_ns);

/* latency_source__free - releases its probe (NULL is fine). */
void latency_source__free(struct latency_source *s);

/* latency_source__read - the rule's value at @now (CLOCK_MONOTONIC ns),
 * in the rule's unit (ns, a count, or thousandths per second). Call after
 * latency_set__tick. Returns 0, or:
 *   -EAGAIN   nothing to judge: no interval has ended since the probe was
 *             attached, or fewer than min_count events are in the window
 *             (percentiles, max); the rule keeps its state
 *   -ENOENT   the scope, disk, binary or function does not exist (now)
 *   another negative errno: the probe cannot be loaded (@err says why;
 *   the next attempt is after a pause)
 * with @err filled on failure. */
int latency_source__read(struct latency_source *s, int64_t now, int64_t *value, char *err,
			 size_t errlen);

/* latency_source__window - the window's histogram and the time it
 * covers, or NULL when nothing has been measured yet. */
const struct lat_hist *latency_source__window(const struct latency_source *s, uint64_t *span_ns);

/* latency_source__spec - what the source's probe measures, as resolved
 * on this host; NULL while it is not resolved and loaded. */
const struct latency_probe_spec *latency_source__spec(const struct latency_source *s);

#endif
