// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile_phase.c - a capture's history spliced in as the "before"
 * phase: labels and periods, the round trip through pprof, each phase
 * read back with its own period, time and duration, "all" by time, and
 * merging by time across phases. */
#include "profile_fixture.h"

#include <errno.h>

#include "trapd/profile/pprof.h"
#include "trapd/profile/profile_merge.h"
#include "trapd/profile/profile_phase.h"

#define WINDOW_PERIOD 1001001	/* 999 Hz */
#define HISTORY_PERIOD 52631578 /* 19 Hz */

static struct profile *window(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	fx_stack(p, "app", 100, 900, "main", "spin", NULL);
	fx_stack(p, "app", 100, 100, "main", "idle_loop", NULL);
	p->period_ns = WINDOW_PERIOD;
	p->time_ns = 1700000010000000000ll;
	p->duration_ns = 1000000000ll;
	return p;
}

static struct profile *history(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	fx_stack(p, "app", 100, 10, "main", "idle_loop", NULL);
	fx_stack(p, "gone", 200, 9, "main", "short_lived", NULL);
	p->period_ns = HISTORY_PERIOD;
	p->time_ns = 1700000000000000000ll;
	p->duration_ns = 10000000000ll;
	assert_int_equal(profile__add_comment(p, "history: 10 s at 19 Hz"), 0);
	return p;
}

static struct profile *spliced(void)
{
	struct profile *p = window(), *h = history();

	assert_int_equal(profile_phase__splice(p, h), 0);
	assert_int_equal(h->period_ns, HISTORY_PERIOD); /* given back as it was */
	profile__free(h);
	return p;
}

static int64_t count_of(const struct profile *p, const char *func)
{
	char buf[64];
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];
		const uint32_t *locs = profile__sample_locs(p, s);

		if (s->nlocs && !strcmp(profile__location_name(p, locs[0], buf, sizeof(buf)), func))
			sum += s->count;
	}
	return sum;
}

static void test_splice_labels_both_phases(void **state)
{
	struct profile *p = spliced();
	size_t i;

	(void)state;
	assert_int_equal(p->nsamples, 4);
	assert_int_equal(p->period_ns, WINDOW_PERIOD);
	assert_int_equal(p->duration_ns, 1000000000ll); /* the window's, not a sum */
	assert_int_equal(p->time_ns, 1700000010000000000ll);
	for (i = 0; i < 2; i++) {
		assert_string_equal(profile__str(p, p->samples[i].phase), "during");
		assert_int_equal(p->samples[i].period_ns, 0);
	}
	for (i = 2; i < 4; i++) {
		assert_string_equal(profile__str(p, p->samples[i].phase), "before");
		assert_int_equal(p->samples[i].period_ns, HISTORY_PERIOD);
	}
	assert_true(profile_phase__has(p));
	assert_int_equal(profile_phase__samples(p, "before"), 19);
	assert_int_equal(profile_phase__samples(p, "during"), 1000);
	profile__free(p);
}

/* round_trip - through pprof and back. */
static struct profile *round_trip(const struct profile *p)
{
	struct profile *q = NULL;
	char err[256];
	size_t len;
	void *buf;

	assert_int_equal(pprof_encode(p, &buf, &len), 0);
	assert_int_equal(pprof_decode(buf, len, &q, err, sizeof(err)), 0);
	free(buf);
	return q;
}

static void test_phases_survive_pprof(void **state)
{
	struct profile *p = spliced(), *q = round_trip(p);

	(void)state;
	assert_int_equal(q->nsamples, 4);
	assert_string_equal(profile__str(q, q->samples[3].phase), "before");
	assert_int_equal(q->samples[3].period_ns, HISTORY_PERIOD);
	assert_int_equal(q->samples[0].period_ns, 0);
	profile__free(p);
	profile__free(q);
}

static void test_select_before_takes_the_history_scalars(void **state)
{
	struct profile *q, *p = spliced();

	(void)state;
	q = round_trip(p);
	assert_int_equal(profile_phase__select(q, "before"), 0);
	assert_int_equal(q->nsamples, 2);
	assert_int_equal(q->period_ns, HISTORY_PERIOD);
	assert_int_equal(q->time_ns, 1700000000000000000ll);
	assert_int_equal(q->duration_ns, 10000000000ll);
	assert_int_equal(q->samples[0].period_ns, 0);
	assert_int_equal(count_of(q, "short_lived"), 9);
	assert_int_equal(count_of(q, "spin"), 0);
	profile__free(p);
	profile__free(q);
}

static void test_select_during_is_the_window(void **state)
{
	struct profile *p = spliced();

	(void)state;
	assert_int_equal(profile_phase__select(p, "during"), 0);
	assert_int_equal(p->nsamples, 2);
	assert_int_equal(p->period_ns, WINDOW_PERIOD);
	assert_int_equal(p->duration_ns, 1000000000ll);
	assert_int_equal(count_of(p, "spin"), 900);
	assert_int_equal(count_of(p, "short_lived"), 0);
	profile__free(p);
}

/* "all": the history's 19 samples of 52.6 ms are 999 window periods. */
static void test_select_all_counts_by_time(void **state)
{
	struct profile *p = spliced();
	int64_t before_ns = 19ll * HISTORY_PERIOD, got;

	(void)state;
	assert_int_equal(profile_phase__select(p, "all"), 0);
	assert_int_equal(p->nsamples, 4);
	got = count_of(p, "short_lived") + count_of(p, "idle_loop") - 100;
	assert_true(got * WINDOW_PERIOD <= before_ns);
	assert_true((got + 1) * WINDOW_PERIOD > before_ns);
	assert_int_equal(p->samples[2].period_ns, 0);
	profile__free(p);
}

static void test_without_phases_everything_is_during(void **state)
{
	struct profile *p = window();

	(void)state;
	assert_false(profile_phase__has(p));
	assert_int_equal(profile_phase__select(p, "before"), 0);
	assert_int_equal(p->nsamples, 0);
	profile__free(p);
	p = window();
	assert_int_equal(profile_phase__select(p, "during"), 0);
	assert_int_equal(p->nsamples, 2);
	assert_int_equal(profile_phase__select(p, "later"), -EINVAL);
	profile__free(p);
}

/* cpu_ns - @p's on-CPU time: each count of its own period or @p's. */
static int64_t cpu_ns(const struct profile *p)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		sum += p->samples[i].count *
		       (p->samples[i].period_ns ? p->samples[i].period_ns : p->period_ns);
	return sum;
}

#define OTHER_HISTORY_PERIOD 20408163 /* 49 Hz */
#define OTHER_WINDOW_PERIOD 10101010  /* 99 Hz */

/* other_capture - a second host's capture: its recorder at 49 Hz, its
 * window at 99 Hz, 30 s of history. */
static struct profile *other_capture(void)
{
	struct profile *p = window(), *h = history();

	p->period_ns = OTHER_WINDOW_PERIOD;
	p->time_ns += 5000000000ll;
	h->period_ns = OTHER_HISTORY_PERIOD;
	h->time_ns = 1699999990000000000ll;
	h->duration_ns = 30000000000ll;
	assert_int_equal(profile_phase__splice(p, h), 0);
	profile__free(h);
	return p;
}

/* merged - both captures summed by time, as `trapd merge` does. */
static struct profile *merged(void)
{
	struct profile *a = spliced(), *b = other_capture(), *dst = profile__new();

	assert_non_null(dst);
	dst->period_ns = WINDOW_PERIOD; /* the shortest of the members' */
	assert_int_equal(profile_merge__add_by_time(dst, a), 0);
	assert_int_equal(profile_merge__add_by_time(dst, b), 0);
	profile__free(a);
	profile__free(b);
	return dst;
}

/* Merging by time keeps each phase of its own rate: the history's
 * samples their periods, the windows' of the group's; the time of the
 * whole and of each phase is the members' within a period each. */
static void test_merge_by_time_keeps_each_phase(void **state)
{
	int64_t hist = 19ll * HISTORY_PERIOD + 19ll * OTHER_HISTORY_PERIOD;
	int64_t win = 1000ll * WINDOW_PERIOD + 1000ll * OTHER_WINDOW_PERIOD;
	struct profile *p = merged();
	size_t i;

	(void)state;
	for (i = 0; i < p->nsamples; i++)
		if (!strcmp(profile__str(p, p->samples[i].phase), "before"))
			assert_true(p->samples[i].period_ns == HISTORY_PERIOD ||
				    p->samples[i].period_ns == OTHER_HISTORY_PERIOD);
		else
			assert_int_equal(p->samples[i].period_ns, 0);
	assert_true(llabs(cpu_ns(p) - hist - win) < 2 * WINDOW_PERIOD);
	profile__free(p);

	/* before: of the shortest history period, over both histories */
	p = merged();
	assert_int_equal(profile_phase__select(p, "before"), 0);
	assert_int_equal(p->period_ns, OTHER_HISTORY_PERIOD);
	for (i = 0; i < p->nsamples; i++)
		assert_int_equal(p->samples[i].period_ns, 0);
	assert_true(llabs(cpu_ns(p) - hist) < 2 * OTHER_HISTORY_PERIOD);
	assert_int_equal(p->time_ns, 1699999990000000000ll);
	assert_int_equal(p->duration_ns, 40000000000ll);
	profile__free(p);

	/* during: the windows, of the group's period */
	p = merged();
	assert_int_equal(profile_phase__select(p, "during"), 0);
	assert_int_equal(p->period_ns, WINDOW_PERIOD);
	assert_true(llabs(cpu_ns(p) - win) < 2 * WINDOW_PERIOD);
	profile__free(p);

	/* all: everything of the group's period, through pprof and back */
	p = merged();
	{
		struct profile *q = round_trip(p);

		assert_int_equal(profile_phase__select(q, "all"), 0);
		assert_int_equal(q->period_ns, WINDOW_PERIOD);
		assert_true(llabs(cpu_ns(q) - hist - win) < 3 * WINDOW_PERIOD);
		profile__free(q);
	}
	profile__free(p);
}

/* The phase comment is for programs; a table shows it in words. */
static void test_phase_comment_in_words(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(
		profile_phase__comment_words("phase before: time_ns=1795905431420369427 "
					     "duration_ns=10000000000 "
					     "period_ns=52631578",
					     buf, sizeof(buf)),
		"phase before: from 2026-11-28T22:37:11Z, 10.00s at 19 Hz");
	assert_string_equal(profile_phase__comment_words("phase before: time_ns=0 duration_ns=5 "
							 "period_ns=0",
							 buf, sizeof(buf)),
			    "phase before: from ?, 0.00s");
	assert_null(profile_phase__comment_words("losses: none", buf, sizeof(buf)));
	assert_null(profile_phase__comment_words("phase before: garbage", buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splice_labels_both_phases),
		cmocka_unit_test(test_phases_survive_pprof),
		cmocka_unit_test(test_select_before_takes_the_history_scalars),
		cmocka_unit_test(test_select_during_is_the_window),
		cmocka_unit_test(test_select_all_counts_by_time),
		cmocka_unit_test(test_without_phases_everything_is_during),
		cmocka_unit_test(test_merge_by_time_keeps_each_phase),
		cmocka_unit_test(test_phase_comment_in_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
