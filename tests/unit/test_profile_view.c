// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile_view.c - which time a capture's views weigh: on-CPU
 * samples, off-CPU nanoseconds, or both. */
#include "profile_fixture.h"

#include <errno.h>

#include "trapd/profile/profile_view.h"

#define PERIOD_NS 10000000 /* 100 Hz */

/* off_cpu - an off-CPU sample of @ns in @state on @frames. */
static void off_cpu(struct profile *p, int64_t tid, int64_t ns, const char *state,
		    const char *const *frames, uint32_t n)
{
	fx_stackv(p, "app", tid, 0, frames, n);
	p->samples[p->nsamples - 1].offcpu_ns = ns;
	p->samples[p->nsamples - 1].state = (uint32_t)profile__string(p, state);
}

/* mixed - a thread on the CPU for 3 samples (30 ms) and off it for 70 ms;
 * another off it only, for 100 ms. */
static struct profile *mixed(void)
{
	static const char *const run[] = { "main", "work" };
	static const char *const wait[] = { "main", "wait", "k:schedule" };
	struct profile *p = profile__new();

	assert_non_null(p);
	p->period_ns = PERIOD_NS;
	fx_stackv(p, "app", 1, 3, run, 2);
	off_cpu(p, 1, 70000000, PROFILE_STATE_SLEEPING, wait, 3);
	off_cpu(p, 2, 100000000, PROFILE_STATE_UNINTERRUPTIBLE, wait, 3);
	return p;
}

static void test_names_parse_and_print(void **state)
{
	enum profile_view v;

	assert_int_equal(profile_view__parse("cpu", &v), 0);
	assert_int_equal(v, PROFILE_VIEW_CPU);
	assert_int_equal(profile_view__parse("offcpu", &v), 0);
	assert_int_equal(v, PROFILE_VIEW_OFFCPU);
	assert_int_equal(profile_view__parse("off-cpu", &v), 0);
	assert_int_equal(v, PROFILE_VIEW_OFFCPU);
	assert_int_equal(profile_view__parse("wall", &v), 0);
	assert_int_equal(v, PROFILE_VIEW_WALL);
	assert_int_equal(profile_view__parse("Wall", &v), -EINVAL);
	assert_int_equal(profile_view__parse("", &v), -EINVAL);
	assert_string_equal(profile_view__name(PROFILE_VIEW_OFFCPU), "offcpu");
	assert_string_equal(profile_view__what(PROFILE_VIEW_CPU), "on-CPU samples");
}

static void test_cpu_view_leaves_counts_alone(void **state)
{
	struct profile *p = mixed();

	assert_true(profile_view__has_oncpu(p));
	assert_true(profile_view__has_offcpu(p));
	assert_int_equal(profile_view__default(p), PROFILE_VIEW_CPU);
	assert_int_equal(profile_view__apply(p, PROFILE_VIEW_CPU), 0);
	assert_int_equal(p->samples[0].count, 3);
	assert_int_equal(p->samples[1].count, 0);
	assert_int_equal(profile__total(p), 3);
	assert_int_equal(p->period_ns, PERIOD_NS);
	assert_false(profile_view__is_time(p));
	profile__free(p);
}

static void test_offcpu_view_counts_nanoseconds_waited(void **state)
{
	struct profile *p = mixed();

	assert_int_equal(profile_view__apply(p, PROFILE_VIEW_OFFCPU), 0);
	assert_int_equal(p->samples[0].count, 0);
	assert_int_equal(p->samples[1].count, 70000000);
	assert_int_equal(p->samples[2].count, 100000000);
	assert_int_equal(p->period_ns, 1);
	assert_true(profile_view__is_time(p));
	/* applied once: the counts are no longer samples */
	assert_int_equal(profile_view__apply(p, PROFILE_VIEW_WALL), -EALREADY);
	assert_int_equal(p->samples[1].count, 70000000);
	profile__free(p);
}

static void test_wall_view_is_cpu_time_plus_waits(void **state)
{
	struct profile *p = mixed();

	assert_int_equal(profile_view__apply(p, PROFILE_VIEW_WALL), 0);
	/* thread 1: 3 samples of 10 ms + 70 ms waiting = 100 ms, as thread 2 */
	assert_int_equal(p->samples[0].count + p->samples[1].count, 100000000);
	assert_int_equal(p->samples[2].count, 100000000);
	profile__free(p);
}

static void test_default_is_offcpu_for_a_capture_of_waits_only(void **state)
{
	static const char *const wait[] = { "main", "wait" };
	struct profile *p = profile__new();

	assert_non_null(p);
	off_cpu(p, 1, 5, PROFILE_STATE_RUNNABLE, wait, 2);
	assert_false(profile_view__has_oncpu(p));
	assert_int_equal(profile_view__default(p), PROFILE_VIEW_OFFCPU);
	profile__free(p);
	p = profile__new();
	assert_non_null(p);
	assert_int_equal(profile_view__default(p), PROFILE_VIEW_CPU);
	profile__free(p);
}

/* Hostile files: negative weights weigh nothing, huge ones saturate. */
static void test_hostile_weights_saturate(void **state)
{
	static const char *const f[] = { "main" };
	struct profile *p = profile__new();

	assert_non_null(p);
	p->period_ns = INT64_MAX / 2;
	fx_stackv(p, "app", 1, 4, f, 1);
	p->samples[0].offcpu_ns = INT64_MAX;
	fx_stackv(p, "app", 1, -5, f, 1);
	p->samples[1].offcpu_ns = -7;
	assert_int_equal(profile_view__apply(p, PROFILE_VIEW_WALL), 0);
	assert_int_equal(p->samples[0].count, INT64_MAX);
	assert_int_equal(p->samples[1].count, 0);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_parse_and_print),
		cmocka_unit_test(test_cpu_view_leaves_counts_alone),
		cmocka_unit_test(test_offcpu_view_counts_nanoseconds_waited),
		cmocka_unit_test(test_wall_view_is_cpu_time_plus_waits),
		cmocka_unit_test(test_default_is_offcpu_for_a_capture_of_waits_only),
		cmocka_unit_test(test_hostile_weights_saturate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
