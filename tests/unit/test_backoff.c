// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_backoff.c - retry delays (upload/backoff.h): exponential from the
 * minimum to the maximum, "equal jitter" between half the base and the
 * base, no overflow however long the failures go on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdbool.h>

#include "upload/backoff.h"

#define SEC 1000000000ull
#define MIN_NS (1 * SEC)
#define MAX_NS (300 * SEC)

static void test_no_failure_no_wait(void **state)
{
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 0, 0), 0);
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 0, UINT64_MAX), 0);
	assert_int_equal(backoff_delay_ns(UINT64_MAX, UINT64_MAX, 0, 12345), 0);
}

/* random 0 gives the lower bound exactly, base - base/2 the upper. */
static void test_first_failure_bounds(void **state)
{
	uint64_t d;

	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 1, 0), MIN_NS / 2);
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 1, MIN_NS - MIN_NS / 2), MIN_NS);
	/* the modulus wraps: one more is the lower bound again */
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 1, MIN_NS - MIN_NS / 2 + 1), MIN_NS / 2);
	d = backoff_delay_ns(MIN_NS, MAX_NS, 1, UINT64_MAX);
	assert_in_range(d, MIN_NS / 2, MIN_NS);
	/* an odd base: [base/2, base], both ends reachable */
	assert_int_equal(backoff_delay_ns(101, 1000, 1, 0), 50);
	assert_int_equal(backoff_delay_ns(101, 1000, 1, 51), 101);
}

static void test_doubling_to_the_cap(void **state)
{
	uint64_t base = MIN_NS;
	unsigned f;

	for (f = 1; f <= 12; f++) {
		uint64_t lo = backoff_delay_ns(MIN_NS, MAX_NS, f, 0);
		uint64_t hi = backoff_delay_ns(MIN_NS, MAX_NS, f, base - base / 2);

		if (lo != base / 2 || hi != base)
			fail_msg("failures %u: [%llu, %llu], expected [%llu, %llu]", f,
				 (unsigned long long)lo, (unsigned long long)hi,
				 (unsigned long long)(base / 2), (unsigned long long)base);
		assert_in_range(backoff_delay_ns(MIN_NS, MAX_NS, f, UINT64_MAX), base / 2, base);
		base = base * 2 > MAX_NS ? MAX_NS : base * 2;
	}
	/* 256 s after nine failures, the 300 s cap from the tenth on */
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 9, 0), 128 * SEC);
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 10, 0), 150 * SEC);
	assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, 10, 150 * SEC), 300 * SEC);
}

static void test_capped_without_overflow(void **state)
{
	static const unsigned failures[] = { 64, 65, 100, 1000, 100000, UINT_MAX };
	size_t i;

	for (i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, failures[i], 0), MAX_NS / 2);
		assert_int_equal(backoff_delay_ns(MIN_NS, MAX_NS, failures[i], MAX_NS / 2), MAX_NS);
		assert_in_range(backoff_delay_ns(MIN_NS, MAX_NS, failures[i], UINT64_MAX),
				MAX_NS / 2, MAX_NS);
	}
	/* the largest settings: doubling must not wrap to a small number */
	assert_int_equal(backoff_delay_ns(UINT64_MAX / 3, UINT64_MAX, 1000, 0), UINT64_MAX / 2);
	assert_in_range(backoff_delay_ns(UINT64_MAX / 3, UINT64_MAX, 1000, UINT64_MAX),
			UINT64_MAX / 2, UINT64_MAX);
	assert_in_range(backoff_delay_ns(UINT64_MAX, UINT64_MAX, 2, UINT64_MAX - 7), UINT64_MAX / 2,
			UINT64_MAX);
	assert_int_equal(backoff_delay_ns(3 * SEC, 24 * 3600 * SEC, 40, 0), 12 * 3600 * SEC);
}

/* A minimum above the maximum: the minimum wins, never more, never 0. */
static void test_min_above_max(void **state)
{
	unsigned f;

	for (f = 1; f < 70; f++) {
		assert_int_equal(backoff_delay_ns(10 * SEC, 1 * SEC, f, 0), 5 * SEC);
		assert_in_range(backoff_delay_ns(10 * SEC, 1 * SEC, f, UINT64_MAX), 5 * SEC,
				10 * SEC);
	}
}

static void test_jitter_spreads_within_bounds(void **state)
{
	const uint64_t base = 4 * SEC; /* three failures from 1 s */
	uint64_t d, first = 0, sum = 0, lo = UINT64_MAX, hi = 0;
	bool differ = false, below_mid = false, above_mid = false;
	int i, n = 2000;

	for (i = 0; i < n; i++) {
		d = backoff_delay_ns(MIN_NS, MAX_NS, 3, backoff_random());
		assert_in_range(d, base / 2, base);
		if (i == 0)
			first = d;
		differ |= d != first;
		below_mid |= d < base / 2 + base / 4;
		above_mid |= d > base / 2 + base / 4;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		sum += d;
	}
	assert_true(differ);
	assert_true(below_mid && above_mid);
	/* uniform over [2 s, 4 s]: the mean is near 3 s, the range most of it */
	assert_in_range(sum / (uint64_t)n, 2900000000ull, 3100000000ull);
	assert_true(hi - lo > base / 2 * 9 / 10);
}

static void test_random_varies(void **state)
{
	uint64_t a = backoff_random(), b = backoff_random(), c = backoff_random();

	assert_false(a == b && b == c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_failure_no_wait),
		cmocka_unit_test(test_first_failure_bounds),
		cmocka_unit_test(test_doubling_to_the_cap),
		cmocka_unit_test(test_capped_without_overflow),
		cmocka_unit_test(test_min_above_max),
		cmocka_unit_test(test_jitter_spreads_within_bounds),
		cmocka_unit_test(test_random_varies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
