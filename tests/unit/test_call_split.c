// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_call_split.c - which of a window's calls were slow: classes from
 * a fixed line and from a percentile of the window's calls, open and
 * lost calls, duplicates, and the counts the sidecar reports. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <linux/types.h>

#include "bpf/latency.h"
#include "trapd/capture/call_split.h"

#define MS 1000000ull

/* hist_of - the histogram of @n calls of @ns each, then @m of @ns2. */
static void hist_of(struct lat_hist *h, uint64_t n, uint64_t ns, uint64_t m, uint64_t ns2)
{
	lat_hist__reset(h);
	h->counts[lat_bucket_of(ns)] += n;
	h->counts[lat_bucket_of(ns2)] += m;
	h->events = n + m;
	h->sum_ns = n * ns + m * ns2;
	h->max_ns = ns2 > ns ? ns2 : ns;
}

static void test_fixed_line(void **state)
{
	struct call_split *c = call_split__new();
	struct call_threshold t = { .ns = 10 * MS };
	const struct call_split_stats *st;
	struct lat_hist h;

	assert_non_null(c);
	hist_of(&h, 95, 1 * MS, 5, 20 * MS);
	call_split__set_all(c, &h);
	assert_int_equal(call_split__add(c, 3, 20 * MS, false), 0);
	assert_int_equal(call_split__add(c, 1, 1 * MS, false), 0);
	assert_int_equal(call_split__add(c, 2, 10 * MS, false), 0); /* on the line: slow */
	assert_int_equal(call_split__add(c, 7, 12 * MS, true), 0);  /* open, slow already */
	assert_int_equal(call_split__add(c, 8, 2 * MS, true), 0);   /* open, not yet */
	assert_int_equal(call_split__add(c, 0, 1, false), -EINVAL);
	assert_int_equal(call_split__decide(c, &t), 10 * MS);
	assert_int_equal(call_split__class(c, 0), CALL_OUTSIDE);
	assert_int_equal(call_split__class(c, 1), CALL_FAST);
	assert_int_equal(call_split__class(c, 2), CALL_SLOW);
	assert_int_equal(call_split__class(c, 3), CALL_SLOW);
	assert_int_equal(call_split__class(c, 7), CALL_SLOW);
	assert_int_equal(call_split__class(c, 8), CALL_UNKNOWN);
	/* a number whose duration was lost (call_times full) */
	assert_int_equal(call_split__class(c, 5), CALL_UNKNOWN);
	assert_int_equal(call_split__class(c, 9), CALL_UNKNOWN);
	st = call_split__stats(c);
	assert_int_equal(st->calls, 100);
	assert_int_equal(st->sampled, 5);
	assert_int_equal(st->open, 2);
	assert_int_equal(st->slow, 3);
	assert_int_equal(st->fast, 1);
	assert_int_equal(st->threshold_ns, 10 * MS);
	assert_int_equal(st->max_ns, 20 * MS);
	assert_true(st->p50_ns >= 1 * MS && st->p50_ns < 1 * MS + MS / 16);
	call_split__free(c);
}

/* p95 of 95 calls of 1 ms and 5 of 20 ms: within the 1 ms bucket, so
 * the five 20 ms calls are the slow ones; p99 lands among them. */
static void test_percentile_line(void **state)
{
	struct call_split *c = call_split__new();
	struct call_threshold p95 = { .percentile = 95 }, p99 = { .percentile = 99 };
	struct lat_hist h;
	uint64_t thr;

	assert_non_null(c);
	hist_of(&h, 95, 1 * MS, 5, 20 * MS);
	call_split__set_all(c, &h);
	assert_int_equal(call_split__add(c, 1, 1 * MS, false), 0);
	assert_int_equal(call_split__add(c, 2, 20 * MS, false), 0);
	thr = call_split__decide(c, &p95);
	assert_true(thr >= 1 * MS && thr < 1 * MS + MS / 16);
	assert_int_equal(call_split__class(c, 1), CALL_FAST);
	assert_int_equal(call_split__class(c, 2), CALL_SLOW);
	thr = call_split__decide(c, &p99);
	assert_true(thr > 16 * MS && thr <= 20 * MS);
	assert_int_equal(call_split__class(c, 2), CALL_SLOW);
	assert_int_equal(call_split__stats(c)->slow, 1);
	call_split__free(c);
}

/* No call returned in the window: a percentile has nothing to stand on,
 * so nothing is slow; a call still open is unknown, a fixed line still
 * judges it. */
static void test_empty_window(void **state)
{
	struct call_split *c = call_split__new();
	struct call_threshold p99 = { .percentile = 99 }, fixed = { .ns = 5 * MS };
	struct lat_hist h;

	assert_non_null(c);
	lat_hist__reset(&h);
	call_split__set_all(c, &h);
	assert_int_equal(call_split__add(c, 4, 3000 * MS, true), 0);
	assert_int_equal(call_split__decide(c, &p99), UINT64_MAX);
	assert_int_equal(call_split__class(c, 4), CALL_UNKNOWN);
	assert_int_equal(call_split__stats(c)->calls, 0);
	assert_int_equal(call_split__decide(c, &fixed), 5 * MS);
	assert_int_equal(call_split__class(c, 4), CALL_SLOW);
	call_split__free(c);
}

/* An id met twice (a call that returned and was also seen open, from two
 * reads) keeps the first; many ids stay searchable. */
static void test_duplicates_and_many(void **state)
{
	struct call_split *c = call_split__new();
	struct call_threshold t = { .ns = 100 };
	uint64_t id;

	assert_non_null(c);
	for (id = 20000; id >= 1; id--)
		assert_int_equal(call_split__add(c, id, id % 3 ? 10 : 1000, false), 0);
	assert_int_equal(call_split__add(c, 9, 5000, true), 0); /* 9 % 3 == 0: slow anyway */
	assert_int_equal(call_split__add(c, 10, 5000, true), 0);
	call_split__decide(c, &t);
	assert_int_equal(call_split__stats(c)->sampled, 20000);
	assert_int_equal(call_split__class(c, 10), CALL_FAST);
	assert_int_equal(call_split__class(c, 9), CALL_SLOW);
	assert_int_equal(call_split__class(c, 19998), CALL_SLOW);
	assert_int_equal(call_split__class(c, 20000), CALL_FAST);
	assert_int_equal(call_split__class(c, 20001), CALL_UNKNOWN);
	assert_int_equal(call_split__stats(c)->slow, 6666);
	call_split__free(c);
}

static void test_names(void **state)
{
	assert_string_equal(call_class__name(CALL_OUTSIDE), "outside");
	assert_string_equal(call_class__name(CALL_FAST), "fast");
	assert_string_equal(call_class__name(CALL_SLOW), "slow");
	assert_string_equal(call_class__name(CALL_UNKNOWN), "unknown");
	assert_string_equal(call_class__name((enum call_class)42), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_line),   cmocka_unit_test(test_percentile_line),
		cmocka_unit_test(test_empty_window), cmocka_unit_test(test_duplicates_and_many),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
