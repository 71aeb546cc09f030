// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile_where.c - keeping the samples whose labels say so: the
 * conditions' syntax, alternatives within a label and all labels, numbers,
 * samples without the label, and the values offered when nothing
 * matched. */
#include "profile_fixture.h"

#include <errno.h>

#include "trapd/profile/profile_where.h"

/* labelled - five samples: slow and fast calls of tid 1 and 2, one
 * outside, one off the CPU (uninterruptible) in a slow call. */
static struct profile *labelled(void)
{
	struct profile *p = profile__new();
	static const struct {
		int64_t tid, count;
		const char *call, *comm;
	} s[] = {
		{ 1, 10, "slow", "api" },   { 1, 20, "fast", "api" },	{ 2, 5, "slow", "worker" },
		{ 2, 7, "fast", "worker" }, { 3, 1, "outside", "api" },
	};
	size_t i;

	assert_non_null(p);
	p->period_ns = 1000000;
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		fx_stack(p, s[i].comm, s[i].tid, s[i].count, "main", "handle", NULL);
		p->samples[i].call = (uint32_t)profile__string(p, s[i].call);
	}
	fx_stack(p, "api", 1, 0, "main", "handle", "k:io_schedule", NULL);
	p->samples[5].offcpu_ns = 3000000;
	p->samples[5].state = (uint32_t)profile__string(p, "uninterruptible");
	p->samples[5].call = (uint32_t)profile__string(p, "slow");
	return p;
}

static int64_t total(const struct profile *p)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		n += p->samples[i].count;
	return n;
}

static void where(struct profile_where *w, const char *text)
{
	char err[256];

	if (profile_where__add(w, text, err, sizeof(err)))
		fail_msg("'%s': %s", text, err);
}

static void test_one_label(void **state)
{
	struct profile *p = labelled();
	struct profile_where w = { .n = 0 };

	where(&w, "call=slow");
	assert_int_equal(profile_where__apply(p, &w), 3);
	assert_int_equal(total(p), 15);
	assert_int_equal(p->samples[2].offcpu_ns, 3000000);
	profile__free(p);
}

static void test_alternatives_and_all_labels(void **state)
{
	struct profile *p = labelled();
	struct profile_where w = { .n = 0 };
	char buf[128];

	/* call slow or outside, and comm api */
	where(&w, "call=slow");
	where(&w, "comm=api");
	where(&w, "call=outside");
	assert_string_equal(profile_where__describe(&w, buf, sizeof(buf)),
			    "call=slow comm=api call=outside");
	assert_int_equal(profile_where__apply(p, &w), 3);
	assert_int_equal(total(p), 11);
	profile__free(p);
}

static void test_numbers_and_missing_labels(void **state)
{
	struct profile *p = labelled();
	struct profile_where w = { .n = 0 }, s = { .n = 0 }, r = { .n = 0 };

	where(&w, "tid=2");
	assert_int_equal(profile_where__apply(p, &w), 2);
	assert_int_equal(total(p), 12);
	profile__free(p);

	/* only the off-CPU sample has a state */
	p = labelled();
	where(&s, "state=uninterruptible");
	assert_int_equal(profile_where__apply(p, &s), 1);
	profile__free(p);

	/* no sample has a run: run=0 does not mean "unrecorded" */
	p = labelled();
	where(&r, "run=0");
	assert_int_equal(profile_where__apply(p, &r), 0);
	profile__free(p);
}

static void test_empty_filter_keeps_all(void **state)
{
	struct profile *p = labelled();
	struct profile_where w = { .n = 0 };
	char buf[16];

	assert_int_equal(profile_where__apply(p, &w), 6);
	assert_string_equal(profile_where__describe(&w, buf, sizeof(buf)), "");
	profile__free(p);
}

static void test_values_for_a_typo(void **state)
{
	struct profile *p = labelled();
	char buf[128];

	assert_string_equal(profile_where__values(p, PROFILE_LABEL_CALL, buf, sizeof(buf)),
			    "fast, outside, slow");
	assert_string_equal(profile_where__values(p, PROFILE_LABEL_TID, buf, sizeof(buf)),
			    "1, 2, 3");
	assert_string_equal(profile_where__values(p, PROFILE_LABEL_RUN, buf, sizeof(buf)), "none");
	assert_string_equal(profile_where__values(p, PROFILE_LABEL_STATE, buf, sizeof(buf)),
			    "uninterruptible");
	/* a short buffer is cut, not overrun */
	assert_string_equal(profile_where__values(p, PROFILE_LABEL_CALL, buf, 8), "fast, o");
	profile__free(p);
}

static void test_bad_conditions(void **state)
{
	struct profile_where w = { .n = 0 };
	char err[256];
	int i;

	assert_int_equal(profile_where__add(&w, "call", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected LABEL=VALUE"));
	assert_int_equal(profile_where__add(&w, "=slow", err, sizeof(err)), -EINVAL);
	assert_int_equal(profile_where__add(&w, "cal=slow", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no label 'cal'"));
	assert_int_equal(profile_where__add(&w, "pid=12x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pid is a number"));
	assert_int_equal(profile_where__add(&w, "tid=99999999999999999999", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(w.n, 0);
	/* an empty value is a value: comm= matches nothing named */
	assert_int_equal(profile_where__add(&w, "comm=", err, sizeof(err)), 0);
	for (i = 1; i < PROFILE_WHERE_MAX; i++)
		assert_int_equal(profile_where__add(&w, "call=slow", err, sizeof(err)), 0);
	assert_int_equal(profile_where__add(&w, "call=fast", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at most 16"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_label),
		cmocka_unit_test(test_alternatives_and_all_labels),
		cmocka_unit_test(test_numbers_and_missing_labels),
		cmocka_unit_test(test_empty_filter_keeps_all),
		cmocka_unit_test(test_values_for_a_typo),
		cmocka_unit_test(test_bad_conditions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
