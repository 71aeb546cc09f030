// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_latency_hist.c - the latency bucket bounds against lat_bucket_of,
 * percentiles against exact nearest ranks on seeded random data, deltas
 * and the sliding window against histograms built straight from the
 * events, and the text renderings against golden strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/latency/latency_hist.h"

#define NCPUS 4
#define MAX_VALUES 20000

/* splitmix64: the same sequence on every libc, unlike rand(). */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* rng_unit - uniform in (0, 1]. */
static double rng_unit(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 1) / 9007199254740992.0;
}

static uint64_t rng_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return lo + rng_next(s) % (hi - lo + 1);
}

static uint64_t rng_log_uniform(uint64_t *s, double lo, double hi)
{
	return (uint64_t)exp(log(lo) + (log(hi) - log(lo)) * rng_unit(s));
}

static void hist_add_value(struct lat_hist *h, uint64_t v)
{
	h->counts[lat_bucket_of(v)]++;
	h->events++;
	h->sum_ns += v;
	if (v > h->max_ns)
		h->max_ns = v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_bucket_bounds_match_lat_bucket_of(void **state)
{
	uint64_t seed = 1, v;
	uint32_t b;
	int i;

	assert_int_equal(lat_bucket__lo(0), 0);
	for (b = 0; b < LAT_NBUCKETS; b++) {
		uint64_t lo = lat_bucket__lo(b), hi = lat_bucket__hi(b);

		assert_true(lo < hi);
		assert_int_equal(lat_bucket_of(lo), b);
		assert_int_equal(lat_bucket_of(hi - 1), b);
		if (b + 1 < LAT_NBUCKETS)
			assert_int_equal(lat_bucket__lo(b + 1), hi);
		if (b >= LAT_SUBS && b + 1 < LAT_NBUCKETS)
			assert_true(hi - lo <= lo / LAT_SUBS);
		if (b < LAT_SUBS)
			assert_int_equal(hi - lo, 1);
	}
	assert_int_equal(lat_bucket__hi(LAT_NBUCKETS - 1), UINT64_MAX);
	assert_int_equal(lat_bucket_of(UINT64_MAX), LAT_NBUCKETS - 1);
	assert_int_equal(lat_bucket__lo(LAT_NBUCKETS), UINT64_MAX);
	assert_int_equal(lat_bucket__hi(LAT_NBUCKETS), UINT64_MAX);
	for (i = 0; i < 100000; i++) {
		v = rng_next(&seed) >> (rng_next(&seed) % 64);
		b = lat_bucket_of(v);
		assert_true(lat_bucket__lo(b) <= v);
		assert_true(v < lat_bucket__hi(b) || b == LAT_NBUCKETS - 1);
	}
}

enum dist { DIST_UNIFORM, DIST_LOG_UNIFORM, DIST_EXP, DIST_BIMODAL, DIST_CONST, DIST_NR };

static uint64_t draw(enum dist d, uint64_t *s)
{
	switch (d) {
	case DIST_UNIFORM:
		return rng_range(s, 1000, 10000000);
	case DIST_LOG_UNIFORM:
		return rng_log_uniform(s, 100, 10e9);
	case DIST_EXP:
		return (uint64_t)(-log(rng_unit(s)) * 1e6);
	case DIST_BIMODAL:
		return (rng_next(s) & 1 ? 100000000 : 1000000) + rng_range(s, 0, 50000);
	default:
		return 123456;
	}
}

/* check_quantiles - the estimate from @h lies in the bucket of the exact
 * nearest-rank value of the sorted @v, within exact/16 (+1 ns). */
static void check_quantiles(const struct lat_hist *h, uint64_t *v, size_t n)
{
	static const struct {
		double q;
		uint64_t num, den;
	} qs[] = { { 0.5, 1, 2 },
		   { 0.9, 9, 10 },
		   { 0.99, 99, 100 },
		   { 0.999, 999, 1000 },
		   { 1.0, 1, 1 } };
	size_t i;

	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t rank = (qs[i].num * n + qs[i].den - 1) / qs[i].den;
		uint64_t exact = v[rank - 1], est = lat_hist__percentile(h, qs[i].q);
		uint64_t diff = est > exact ? est - exact : exact - est;

		assert_int_equal(lat_bucket_of(est), lat_bucket_of(exact));
		if (diff > exact / LAT_SUBS + 1)
			fail_msg("q %g of %zu: estimate %llu, exact %llu", qs[i].q, n,
				 (unsigned long long)est, (unsigned long long)exact);
	}
}

static void check_dataset(uint64_t *v, size_t n)
{
	struct lat_hist h;
	size_t i;

	lat_hist__reset(&h);
	for (i = 0; i < n; i++)
		hist_add_value(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	check_quantiles(&h, v, n);
	assert_int_equal(lat_hist__percentile(&h, 1.0), v[n - 1]);
	/* Without a max the buckets alone must still do. */
	h.max_ns = 0;
	check_quantiles(&h, v, n);
}

static void test_percentiles_match_exact_ranks(void **state)
{
	static uint64_t v[MAX_VALUES];
	uint64_t seed;
	size_t i, n;
	int d;

	for (d = 0; d < DIST_NR; d++) {
		for (seed = 1; seed <= 3; seed++) {
			uint64_t s = seed * 1000 + (uint64_t)d;

			n = seed == 1 ? MAX_VALUES : (size_t)rng_range(&s, 10, 3000);
			for (i = 0; i < n; i++)
				v[i] = draw((enum dist)d, &s);
			check_dataset(v, n);
		}
	}
	for (seed = 1; seed <= 300; seed++) {
		uint64_t s = seed;

		n = (size_t)rng_range(&s, 1, 3);
		for (i = 0; i < n; i++)
			v[i] = draw((enum dist)(seed % DIST_NR), &s) >> rng_range(&s, 0, 20);
		check_dataset(v, n);
	}
}

static void test_percentile_edges(void **state)
{
	struct lat_hist h;

	lat_hist__reset(&h);
	assert_int_equal(lat_hist__percentile(&h, 0.5), 0);
	/* Width-1 buckets are exact, and 0.07 * 100 is rank 7, not 8. */
	h.counts[3] = 7;
	h.counts[9] = 93;
	h.events = 100;
	assert_int_equal(lat_hist__percentile(&h, 0.07), 3);
	assert_int_equal(lat_hist__percentile(&h, 0.08), 9);
	assert_int_equal(lat_hist__percentile(&h, 0.0), 3);
	assert_int_equal(lat_hist__percentile(&h, NAN), 3);
	assert_int_equal(lat_hist__percentile(&h, 2.0), 9);
	/* The open-ended last bucket: the max when known, else inside its
	 * nominal range. */
	lat_hist__reset(&h);
	h.counts[LAT_NBUCKETS - 1] = 2;
	h.max_ns = 5ull << 40;
	assert_int_equal(lat_hist__percentile(&h, 1.0), 5ull << 40);
	h.max_ns = 0;
	assert_true(lat_hist__percentile(&h, 1.0) >= lat_bucket__lo(LAT_NBUCKETS - 1));
	assert_true(lat_hist__percentile(&h, 1.0) < 1ull << LAT_MAX_EXP);
}

/* One CPU's probe row, updated like latency.bpf.c does. */
static void row_record(struct lat_row *row, uint64_t epoch, uint64_t v)
{
	row->counts[lat_bucket_of(v)]++;
	row->events++;
	row->sum_ns += v;
	if (row->max_epoch != epoch) {
		row->max_epoch = epoch;
		row->max_ns = v;
	} else if (v > row->max_ns) {
		row->max_ns = v;
	}
}

#define INTERVALS 24
#define WINDOW_SLOTS 5

/* A run of read intervals: the events of each (as a histogram) and what
 * the reads saw after each. */
struct run {
	struct lat_row rows[NCPUS];
	struct lat_hist direct[INTERVALS];
	struct lat_hist snap[INTERVALS + 1];
};

static struct run *make_run(uint64_t seed)
{
	struct run *r = calloc(1, sizeof(*r));
	uint64_t epoch, n, i, v;

	assert_non_null(r);
	lat_hist__sum_rows(&r->snap[0], r->rows, NCPUS, 0);
	for (epoch = 1; epoch <= INTERVALS; epoch++) {
		struct lat_hist *d = &r->direct[epoch - 1];

		lat_hist__reset(d);
		/* Some intervals are empty; some peak early, some late. */
		n = epoch % 7 == 3 ? 0 : rng_range(&seed, 1, 400);
		for (i = 0; i < n; i++) {
			v = rng_log_uniform(&seed, 50, 5e9);
			row_record(&r->rows[rng_next(&seed) % NCPUS], epoch, v);
			hist_add_value(d, v);
		}
		lat_hist__sum_rows(&r->snap[epoch], r->rows, NCPUS, epoch);
	}
	return r;
}

static void test_sum_rows_and_delta_match_events(void **state)
{
	struct run *r = make_run(42);
	struct lat_hist d;
	int i;

	for (i = 0; i < INTERVALS; i++) {
		assert_int_equal(lat_hist__delta(&d, &r->snap[i + 1], &r->snap[i]), 0);
		assert_memory_equal(&d, &r->direct[i], sizeof(d));
	}
	/* In place, as the reader does. */
	d = r->snap[INTERVALS];
	assert_int_equal(lat_hist__delta(&d, &d, &r->snap[INTERVALS - 1]), 0);
	assert_memory_equal(&d, &r->direct[INTERVALS - 1], sizeof(d));
	free(r);
}

static void test_delta_refuses_counters_going_back(void **state)
{
	struct lat_hist before, now, out;

	lat_hist__reset(&before);
	hist_add_value(&before, 1000);
	hist_add_value(&before, 2000);
	now = before;
	hist_add_value(&now, 3000);
	assert_int_equal(lat_hist__delta(&out, &before, &now), -ERANGE);
	assert_memory_equal(&out, &before, sizeof(out));
	/* One bucket back while the totals grew: still a reload. */
	now.counts[lat_bucket_of(1000)]--;
	now.counts[lat_bucket_of(5000)] += 2;
	now.events++;
	assert_int_equal(lat_hist__delta(&out, &now, &before), -ERANGE);
	assert_memory_equal(&out, &now, sizeof(out));
	out = before;
	out.sum_ns--;
	assert_int_equal(lat_hist__delta(&out, &out, &before), -ERANGE);
	assert_int_equal(out.sum_ns, before.sum_ns - 1);
}

/* expect_window - the sum of the direct histograms of intervals
 * [@from, @to), with the max over them. */
static void expect_window(struct lat_hist *want, const struct run *r, int from, int to)
{
	int i;
	uint32_t b;

	lat_hist__reset(want);
	for (i = from; i < to; i++) {
		for (b = 0; b < LAT_NBUCKETS; b++)
			want->counts[b] += r->direct[i].counts[b];
		want->events += r->direct[i].events;
		want->sum_ns += r->direct[i].sum_ns;
		if (r->direct[i].max_ns > want->max_ns)
			want->max_ns = r->direct[i].max_ns;
	}
}

/* span_of - the length pushed with interval @i: all different. */
static uint64_t span_of(int i)
{
	return 1000000000ull + (uint64_t)i * 7919;
}

static uint64_t spans_of(int from, int to)
{
	uint64_t sum = 0;

	for (; from < to; from++)
		sum += span_of(from);
	return sum;
}

static void test_window_expires_oldest_exactly(void **state)
{
	struct lat_window *w = lat_window__new(WINDOW_SLOTS), *one = lat_window__new(1);
	struct run *r = make_run(7);
	struct lat_hist d, want;
	int i;

	assert_non_null(w);
	assert_non_null(one);
	assert_int_equal(lat_window__filled(w), 0);
	for (i = 0; i < INTERVALS; i++) {
		assert_int_equal(lat_hist__delta(&d, &r->snap[i + 1], &r->snap[i]), 0);
		assert_int_equal(lat_window__push(w, &d, span_of(i)), 0);
		assert_int_equal(lat_window__push(one, &d, span_of(i)), 0);
		expect_window(&want, r, i + 1 > WINDOW_SLOTS ? i + 1 - WINDOW_SLOTS : 0, i + 1);
		assert_memory_equal(lat_window__hist(w), &want, sizeof(want));
		assert_int_equal(lat_window__span(w),
				 spans_of(i + 1 > WINDOW_SLOTS ? i + 1 - WINDOW_SLOTS : 0, i + 1));
		assert_int_equal(lat_window__span(one), span_of(i));
		assert_int_equal(lat_window__filled(w),
				 i + 1 < WINDOW_SLOTS ? i + 1 : WINDOW_SLOTS);
		assert_memory_equal(lat_window__hist(one), &d, sizeof(d));
		assert_int_equal(lat_window__filled(one), 1);
	}
	lat_window__free(one);
	lat_window__free(w);
	free(r);
}

static void push_max(struct lat_window *w, uint64_t max)
{
	struct lat_hist d;

	lat_hist__reset(&d);
	hist_add_value(&d, max);
	assert_int_equal(lat_window__push(w, &d, 1000000000), 0);
}

static void test_window_max_and_clear(void **state)
{
	struct lat_window *w = lat_window__new(3);
	struct lat_hist empty;

	assert_non_null(w);
	push_max(w, 100);
	push_max(w, 50);
	push_max(w, 70);
	assert_int_equal(lat_window__hist(w)->max_ns, 100);
	push_max(w, 10); /* 100 falls out */
	assert_int_equal(lat_window__hist(w)->max_ns, 70);
	push_max(w, 5);
	assert_int_equal(lat_window__hist(w)->max_ns, 70);
	push_max(w, 1); /* 70 falls out */
	assert_int_equal(lat_window__hist(w)->max_ns, 10);
	assert_int_equal(lat_window__hist(w)->events, 3);
	assert_int_equal(lat_window__hist(w)->sum_ns, 16);

	lat_window__clear(w);
	lat_hist__reset(&empty);
	assert_int_equal(lat_window__filled(w), 0);
	assert_int_equal(lat_window__span(w), 0);
	assert_memory_equal(lat_window__hist(w), &empty, sizeof(empty));
	push_max(w, 9);
	assert_int_equal(lat_window__filled(w), 1);
	assert_int_equal(lat_window__hist(w)->max_ns, 9);
	assert_int_equal(lat_window__hist(w)->counts[9], 1);
	lat_window__free(w);
	lat_window__free(NULL);
}

static void test_window_slots_are_bounded(void **state)
{
	struct lat_window *w;

	errno = 0;
	assert_null(lat_window__new(0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(lat_window__new(65537));
	assert_int_equal(errno, EINVAL);
	w = lat_window__new(65536);
	assert_non_null(w);
	lat_window__free(w);
}

static void test_sum_rows_takes_max_of_current_epoch(void **state)
{
	static struct lat_row rows[3];
	struct lat_hist h;

	memset(rows, 0, sizeof(rows));
	row_record(&rows[0], 4, 900); /* a stale epoch: its max does not count */
	row_record(&rows[1], 5, 300);
	row_record(&rows[1], 5, 200);
	row_record(&rows[2], 5, 250);
	lat_hist__sum_rows(&h, rows, 3, 5);
	assert_int_equal(h.events, 4);
	assert_int_equal(h.sum_ns, 1650);
	assert_int_equal(h.counts[lat_bucket_of(900)], 1);
	assert_int_equal(h.max_ns, 300);
	lat_hist__sum_rows(&h, rows, 3, 6);
	assert_int_equal(h.max_ns, 0);
	assert_int_equal(h.events, 4);
	lat_hist__sum_rows(&h, rows, 0, 5);
	assert_int_equal(h.events, 0);
}

static void test_max_is_bounded_by_buckets(void **state)
{
	struct lat_hist h;

	lat_hist__reset(&h);
	assert_int_equal(lat_hist__max(&h), 0);
	h.counts[lat_bucket_of(5000)] = 2;
	h.counts[lat_bucket_of(100)] = 1;
	assert_int_equal(lat_hist__max(&h), lat_bucket__lo(lat_bucket_of(5000)));
	h.max_ns = 5000;
	assert_int_equal(lat_hist__max(&h), 5000);
	h.max_ns = 120; /* lost to a race: the buckets know better */
	assert_int_equal(lat_hist__max(&h), lat_bucket__lo(lat_bucket_of(5000)));
	lat_hist__reset(&h);
	h.counts[LAT_NBUCKETS - 1] = 1;
	h.max_ns = UINT64_MAX;
	assert_int_equal(lat_hist__max(&h), UINT64_MAX);
}

static void hist_of(struct lat_hist *h, const uint64_t (*values)[2], size_t n)
{
	size_t i, k;

	lat_hist__reset(h);
	for (i = 0; i < n; i++)
		for (k = 0; k < values[i][1]; k++)
			hist_add_value(h, values[i][0]);
}

static void test_format_empty(void **state)
{
	struct lat_hist h;
	char buf[8];

	lat_hist__reset(&h);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(lat_hist__format(&h, "  ", 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(lat_hist__format(&h, NULL, 10, NULL, 0), 0);
}

static void test_format_golden(void **state)
{
	static const uint64_t micro[][2] = { { 1500, 9 }, { 5000, 30 }, { 10000, 1 } };
	static const uint64_t tiny[][2] = { { 0, 2 }, { 1, 1 }, { 5, 4 } };
	static const uint64_t huge[][2] = { { 3ull << 40, 1 }, { 1ull << 39, 1 } };
	struct lat_hist h;
	char buf[1024];
	size_t need;

	hist_of(&h, micro, 3);
	need = lat_hist__format(&h, "  ", 10, buf, sizeof(buf));
	assert_int_equal(need, strlen(buf));
	/* 1 of 30 rounds to no '#', but a non-empty row shows one. */
	assert_string_equal(buf, "  1.02us .. 2.05us  |###       |   9\n"
				 "  2.05us .. 4.1us   |          |   0\n"
				 "   4.1us .. 8.19us  |##########|  30\n"
				 "  8.19us .. 16.4us  |#         |   1\n");
	hist_of(&h, tiny, 3);
	lat_hist__format(&h, NULL, 4, buf, sizeof(buf));
	assert_string_equal(buf, "0ns .. 1ns  |##  |  2\n"
				 "1ns .. 2ns  |#   |  1\n"
				 "2ns .. 4ns  |    |  0\n"
				 "4ns .. 8ns  |####|  4\n");
	hist_of(&h, huge, 2);
	lat_hist__format(&h, "\t", 0, buf, sizeof(buf));
	assert_string_equal(buf, "\t9.16m .. inf  ||  2\n");
}

static void test_format_truncates_like_snprintf(void **state)
{
	static const uint64_t values[][2] = { { 700, 40 }, { 30000, 9 }, { 2000000, 1 } };
	char full[2048], buf[2048];
	struct lat_hist h;
	size_t need, len;

	hist_of(&h, values, 3);
	need = lat_hist__format(&h, "    ", 20, full, sizeof(full));
	assert_int_equal(need, strlen(full));
	assert_int_equal(lat_hist__format(&h, "    ", 20, NULL, 0), need);
	for (len = 1; len <= need + 2; len++) {
		memset(buf, 'Z', sizeof(buf));
		assert_int_equal(lat_hist__format(&h, "    ", 20, buf, len), need);
		assert_int_equal(strlen(buf), len - 1 < need ? len - 1 : need);
		assert_memory_equal(buf, full, strlen(buf));
		assert_int_equal(buf[len], 'Z');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_bounds_match_lat_bucket_of),
		cmocka_unit_test(test_percentiles_match_exact_ranks),
		cmocka_unit_test(test_percentile_edges),
		cmocka_unit_test(test_sum_rows_and_delta_match_events),
		cmocka_unit_test(test_delta_refuses_counters_going_back),
		cmocka_unit_test(test_window_expires_oldest_exactly),
		cmocka_unit_test(test_window_max_and_clear),
		cmocka_unit_test(test_window_slots_are_bounded),
		cmocka_unit_test(test_sum_rows_takes_max_of_current_epoch),
		cmocka_unit_test(test_max_is_bounded_by_buckets),
		cmocka_unit_test(test_format_empty),
		cmocka_unit_test(test_format_golden),
		cmocka_unit_test(test_format_truncates_like_snprintf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
