/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_hist.h - user-space math over the log-linear latency buckets of
 * bpf/latency.h: bucket bounds, summing the per-CPU rows, interval deltas,
 * percentiles, a sliding window of intervals and short text renderings.
 *
 * A struct lat_hist is one distribution, either cumulative (the sum of the
 * per-CPU rows as read) or over an interval (the difference of two reads).
 * Nothing here allocates except lat_window, and nothing prints: callers
 * own every buffer and decide where text goes.
 */
#ifndef TRAPD_LATENCY_HIST_H
#define TRAPD_LATENCY_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/latency.h"

/* lat_bucket__lo, lat_bucket__hi - the bounds of bucket @b: it holds the
 * values [lo, hi). The last bucket's hi is UINT64_MAX and, unlike the
 * others, that bucket holds its hi too (lat_bucket_of(UINT64_MAX) is the
 * last bucket). @b >= LAT_NBUCKETS is no bucket: both return UINT64_MAX. */
uint64_t lat_bucket__lo(uint32_t b);
uint64_t lat_bucket__hi(uint32_t b);

struct lat_hist {
	uint64_t counts[LAT_NBUCKETS];
	uint64_t events; /* sum of counts */
	uint64_t sum_ns;
	uint64_t max_ns; /* largest value, 0 when unknown/empty */
};

/* lat_hist__reset - @h becomes the empty histogram. */
void lat_hist__reset(struct lat_hist *h);

/* lat_hist__sum_rows - add up @nrows per-CPU rows into @out, which is
 * overwritten: counts, events and sum_ns are the sums over the rows;
 * out->max_ns is the largest max_ns among rows whose max_epoch == @epoch
 * (0 if none), since a row's max from another epoch is stale. */
void lat_hist__sum_rows(struct lat_hist *out, const struct lat_row *rows, unsigned nrows,
			uint64_t epoch);

/* lat_hist__delta - @now minus @before, bucket by bucket (and events,
 * sum_ns), into @out; out->max_ns is now->max_ns. @out may be @now or
 * @before. Returns 0, or -ERANGE when some counter of @now is below
 * @before's (the probe was reloaded and its counters restarted): @out is
 * then a copy of @now, the best guess at what happened since. */
int lat_hist__delta(struct lat_hist *out, const struct lat_hist *now,
		    const struct lat_hist *before);

/* lat_hist__percentile - the q-quantile (0 < q <= 1) estimated from the
 * buckets: the value of rank ceil(q * n) (nearest rank, 1-based, n the sum
 * of the counts), placed inside its bucket by linear interpolation on the
 * rank, within [lo, hi) of that bucket and at most max_ns when max_ns lies
 * in that bucket (so q = 1 gives max_ns when it is known); exact for
 * buckets of width 1. A q * n within rounding error above an integer
 * counts as that integer (0.07 of 100 events is rank 7); q <= 0 or NaN
 * is taken as the lowest rank, q > 1 as 1. Returns 0 for an empty
 * histogram. */
uint64_t lat_hist__percentile(const struct lat_hist *h, double q);

/* lat_hist__max - max_ns, but never below the lower bound of the highest
 * non-empty bucket (a max lost to a race is bounded by the buckets).
 * 0 for an empty histogram with no max. */
uint64_t lat_hist__max(const struct lat_hist *h);

/* A sliding window over the last @slots read intervals: push one
 * interval's delta per read. The window's histogram is a running sum
 * (adding the new delta, subtracting the one that falls out) and each
 * interval is kept sparse (only its non-empty buckets), so a long window
 * costs little memory; the window's max_ns is the max over the kept
 * intervals. */
struct lat_window;

/* lat_window__new - an empty window of @slots intervals (1 .. 65536).
 * Returns NULL with errno EINVAL (bad @slots) or ENOMEM. Free it with
 * lat_window__free. */
struct lat_window *lat_window__new(unsigned slots);

/* lat_window__free - free @w and its intervals; NULL is fine. */
void lat_window__free(struct lat_window *w);

/* lat_window__push - add the interval @delta (copied), @span_ns long,
 * expiring the oldest one when the window is full. Returns 0, or -ENOMEM
 * with the window unchanged. */
int lat_window__push(struct lat_window *w, const struct lat_hist *delta, uint64_t span_ns);

/* lat_window__hist - the sum of the kept intervals; owned by @w, valid
 * until its next push, clear or free. */
const struct lat_hist *lat_window__hist(const struct lat_window *w);

/* lat_window__span - the time the kept intervals cover: the sum of their
 * lengths. */
uint64_t lat_window__span(const struct lat_window *w);

/* lat_window__filled - how many intervals @w holds, at most its slots. */
unsigned lat_window__filled(const struct lat_window *w);

/* lat_window__clear - drop every interval; @w stays usable. */
void lat_window__clear(struct lat_window *w);

/* lat_hist__format - a small text histogram for `trapd status`: one line
 * per power of two from the lowest non-empty one to the highest (the
 * sub-buckets merged; values 0 and 1..15 have their own rows too, the
 * top row is open-ended), each line
 *   @indent LO " .. " HI "  |" BAR "|  " COUNT "\n"
 * with LO right-aligned and HI left-aligned to the widest of their
 * column, durations spelled like units_format_duration_short, BAR @bar_width wide with
 * '#' scaled to the largest row (a non-empty row shows at least one '#'),
 * COUNT right-aligned. @indent may be NULL. Writes at most @len bytes, NUL
 * terminated when @len > 0, and returns the length the whole text needs,
 * not counting the NUL (like snprintf), or 0 for an empty histogram
 * (writes ""). */
size_t lat_hist__format(const struct lat_hist *h, const char *indent, unsigned bar_width, char *buf,
			size_t len);

#endif
