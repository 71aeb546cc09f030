// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sampler_stats.c - which sampler counters mean the profile lost
 * samples or stacks, and which only describe depth or announcements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "trapd/capture/sampler.h"

static void test_only_losses_are_counted_as_lost(void **state)
{
	struct sampler_stats st = { 0 };
	int i;

	for (i = 0; i < SAMPLER_STAT_NR; i++)
		st.v[i] = 1ull << i;
	assert_int_equal(sampler__samples_lost(&st),
			 (1ull << SAMPLER_STAT_OVER_CAP) | (1ull << SAMPLER_STAT_USER_STACK_FAULT) |
				 (1ull << SAMPLER_STAT_KERNEL_STACK_FAULT) |
				 (1ull << SAMPLER_STAT_STACKS_FULL) |
				 (1ull << SAMPLER_STAT_STACK_COLLISION) |
				 (1ull << SAMPLER_STAT_COUNTS_FULL) |
				 (1ull << SAMPLER_STAT_STACKS_ALLOC_FAILED) |
				 (1ull << SAMPLER_STAT_COUNTS_ALLOC_FAILED));
}

static void test_every_counter_has_a_name(void **state)
{
	int i;

	for (i = 0; i < SAMPLER_STAT_NR; i++)
		assert_non_null(sampler__stat_name(i));
	assert_string_equal(sampler__stat_name(SAMPLER_STAT_FILTER_FULL), "filter_full");
	/* "full" only when the map was: a failed allocation is told apart. */
	assert_string_equal(sampler__stat_name(SAMPLER_STAT_STACKS_FULL), "stacks_full");
	assert_string_equal(sampler__stat_name(SAMPLER_STAT_STACKS_ALLOC_FAILED),
			    "stacks_alloc_failed");
	assert_string_equal(sampler__stat_name(SAMPLER_STAT_NR), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_losses_are_counted_as_lost),
		cmocka_unit_test(test_every_counter_has_a_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
