/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_merge.h - several profiles made into one: how `trapd ci --runs N`
 * keeps the captures of its N runs as one profile in which every sample
 * says which run it came from (the run label, profile.h), so that a later
 * comparison can measure the run-to-run spread of each function.
 */
#ifndef TRAPD_PROFILE_MERGE_H
#define TRAPD_PROFILE_MERGE_H

#include <stdint.h>

#include "trapd/profile/profile.h"

/* profile_merge__add - append every sample of @src to @dst.
 *
 * Strings, mappings, functions and locations of @src go through @dst's
 * deduplicating adders, so a function both profiles have becomes one id;
 * every table of @src is taken whole, used or not, in order, so merging
 * into an empty profile reproduces @src (the same ids, the same pprof
 * encoding). Samples keep their stack, count and labels (pid, tid, comm,
 * cgroup); their run becomes @run when @run > 0, and stays @src's when
 * @run is 0. Samples are appended, never summed with @dst's: a stack seen
 * in two runs stays two samples, one per run.
 *
 * The rest of the profile:
 *   period_ns    @dst takes @src's when it has none (0). Counts of
 *                different periods cannot be summed into one time, so
 *                when both have one and they differ, -EINVAL; a @src
 *                without a period is taken to have @dst's.
 *   time_ns      the earlier start of the two; 0 (unknown) never wins.
 *   duration_ns  the sum: the total sampled time of all runs, not the
 *                wall time from the first start to the last end (runs
 *                can be apart), so that samples per second of duration
 *                stays the average CPU use of a run.
 *   comments     each comment of @src that @dst does not already have is
 *                appended: the ones every run shares (trapd version,
 *                host) appear once, each run's own (lost samples, rule)
 *                are all kept, in run order.
 *
 * @src is not modified and must not be @dst. Returns 0, -EINVAL (@run < 0,
 * @src is @dst, the periods differ, or @src refers to an id or string it
 * does not have), -E2BIG (a PROFILE_MAX_* cap of @dst would be passed) or
 * -ENOMEM. The periods and the caps on samples are checked before @dst
 * changes; any later failure leaves @dst a valid profile holding part of
 * @src (some of its strings, tables, samples and comments, but not its
 * period, time or duration), which the caller should discard.
 */
int profile_merge__add(struct profile *dst, const struct profile *src, int64_t run);

/* profile_merge__add_by_time - profile_merge__add(@dst, @src, 0) for
 * profiles sampled at different frequencies (`trapd merge` of captures
 * from many hosts and rules): a count of @src is time, count x @src's
 * period, and becomes a count of @dst's period, count x src period / dst
 * period, with the remainder carried from one sample to the next so that
 * the total time is kept to within one period of @dst. Off-CPU
 * nanoseconds are time already and stay. A sample with a period of its
 * own (profile.h: the history of a capture, sampled at the flight
 * recorder's rate) keeps it and its count, so that each phase of the
 * merged profile is still of its own rate (profile_phase.h reads them
 * back; its time is exact). @dst keeps its period (give it
 * the shortest of all before the first add: no count then shrinks to 0);
 * a @dst without one takes @src's, and a @src without one is taken to
 * have @dst's. Returns as profile_merge__add. */
int profile_merge__add_by_time(struct profile *dst, const struct profile *src);

#endif
