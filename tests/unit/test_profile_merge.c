// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile_merge.c - several runs made into one profile: sums per
 * stack, deduplicated tables, run and other labels, the period, time,
 * duration and comments, and the failures (period mismatch, caps). */
#include "profile_fixture.h"

#include <errno.h>
#include <stdio.h>

#include "tests/profile_diff.h"
#include "trapd/profile/pprof.h"
#include "trapd/profile/profile_merge.h"

/* fx_other - a second run of the fixture's program: some stacks of
 * fx_standard with other counts, some new ones, other tids and cgroups,
 * another period-compatible window and comments (one shared). */
static struct profile *fx_other(void)
{
	struct profile *p = profile__new();
	int64_t cg;

	if (!p)
		fail_msg("profile__new");
	fx_stack(p, "app", 100, 50, "main", "burn_60", NULL);
	fx_stack(p, "app", 100, 40, "main", "burn_30", NULL);
	fx_stack(p, "app", 100, 6, "main", "fib", "fib", "fib", NULL);
	fx_stack(p, "app", 100, 4, "main", "new_in_run_2", "k:do_syscall_64", NULL);
	fx_stack(p, "worker", 300, 9, "start_thread", "a&b", "operator<<", NULL);
	fx_stack(p, "worker", 300, 2, "start_thread", "libc+0x1234", NULL);
	fx_stack(p, "worker", 300, 1, NULL);
	cg = profile__string(p, "/ci.slice/run-2.scope");
	assert_true(cg > 0);
	p->samples[0].cgroup = (uint32_t)cg;
	p->samples[0].tid = 101;
	p->samples[4].cgroup = (uint32_t)cg;
	p->period_ns = 10101010;
	p->time_ns = 1700000000000000000ll;
	p->duration_ns = 4000000000ll;
	if (profile__add_comment(p, "trapd 0.1.0 capture 7f3a on host db-1") ||
	    profile__add_comment(p, "lost samples: 5 (map full)"))
		fail_msg("add_comment");
	return p;
}

/* --- tallies: counts per (run, comm, stack by display names) --- */

struct tally {
	char (*keys)[512];
	int64_t *counts;
	size_t n;
};

static void stack_key(const struct profile *p, const struct profile_sample *s, char *key,
		      size_t len)
{
	const uint32_t *locs = profile__sample_locs(p, s);
	size_t used;
	char buf[64];
	uint32_t i;

	used = (size_t)snprintf(key, len, "%s|", profile__str(p, s->comm));
	for (i = 0; i < s->nlocs && used < len; i++)
		used += (size_t)snprintf(key + used, len - used, "%s;",
					 profile__location_name(p, locs[i], buf, sizeof(buf)));
	assert_true(used < len);
}

static void tally_add(struct tally *t, const char *key, int64_t count)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (strcmp(t->keys[i], key) == 0) {
			t->counts[i] += count;
			return;
		}
	}
	t->keys = realloc(t->keys, (t->n + 1) * sizeof(*t->keys));
	t->counts = realloc(t->counts, (t->n + 1) * sizeof(*t->counts));
	assert_non_null(t->keys);
	assert_non_null(t->counts);
	snprintf(t->keys[t->n], sizeof(*t->keys), "%s", key);
	t->counts[t->n++] = count;
}

/* tally_profile - add @p's samples of run @run (-1: all) to @t. */
static void tally_profile(struct tally *t, const struct profile *p, int64_t run)
{
	char key[512];
	size_t i;

	for (i = 0; i < p->nsamples; i++) {
		if (run >= 0 && p->samples[i].run != run)
			continue;
		stack_key(p, &p->samples[i], key, sizeof(key));
		tally_add(t, key, p->samples[i].count);
	}
}

static void assert_tallies_equal(const struct tally *a, const struct tally *b)
{
	size_t i, j;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		for (j = 0; j < b->n && strcmp(a->keys[i], b->keys[j]); j++)
			;
		if (j == b->n)
			fail_msg("stack %s missing", a->keys[i]);
		if (a->counts[i] != b->counts[j])
			fail_msg("stack %s: %lld vs %lld", a->keys[i], (long long)a->counts[i],
				 (long long)b->counts[j]);
	}
}

static void tally_free(struct tally *t)
{
	free(t->keys);
	free(t->counts);
}

/* merged - fx_standard as run 1 and fx_other as run 2, in a new profile. */
static struct profile *merged(struct profile **a, struct profile **b)
{
	struct profile *dst = profile__new();
	char why[128];

	*a = fx_standard();
	*b = fx_other();
	assert_non_null(dst);
	assert_int_equal(profile_merge__add(dst, *a, 1), 0);
	assert_int_equal(profile_merge__add(dst, *b, 2), 0);
	if (profile_invalid(dst, why, sizeof(why)))
		fail_msg("merged profile is inconsistent: %s", why);
	return dst;
}

/* --- tests --- */

static void test_merge_sums_samples_per_stack(void **state)
{
	struct tally want = { 0 }, got = { 0 }, run_a = { 0 }, run_b = { 0 }, t = { 0 };
	struct profile *a, *b, *dst = merged(&a, &b);

	tally_profile(&want, a, -1);
	tally_profile(&want, b, -1);
	tally_profile(&got, dst, -1);
	assert_tallies_equal(&want, &got);
	assert_int_equal(profile__total(dst), profile__total(a) + profile__total(b));
	assert_int_equal(dst->nsamples, a->nsamples + b->nsamples);
	/* Each run on its own is exactly its source. */
	tally_profile(&t, a, -1);
	tally_profile(&run_a, dst, 1);
	assert_tallies_equal(&t, &run_a);
	tally_free(&t);
	memset(&t, 0, sizeof(t));
	tally_profile(&t, b, -1);
	tally_profile(&run_b, dst, 2);
	assert_tallies_equal(&t, &run_b);
	tally_free(&want);
	tally_free(&got);
	tally_free(&run_a);
	tally_free(&run_b);
	tally_free(&t);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

static void test_merge_deduplicates_functions(void **state)
{
	struct profile *a, *b, *dst = merged(&a, &b);
	uint32_t i, j;

	/* fx_other adds one function (new_in_run_2) to fx_standard's. */
	assert_int_equal(dst->nfunctions, a->nfunctions + 1);
	assert_int_equal(dst->nmappings, a->nmappings);
	for (i = 0; i < dst->nfunctions; i++)
		for (j = i + 1; j < dst->nfunctions; j++)
			assert_string_not_equal(profile__str(dst, dst->functions[i].name),
						profile__str(dst, dst->functions[j].name));
	/* The same profile twice adds samples, nothing else. */
	assert_int_equal(profile_merge__add(dst, a, 3), 0);
	assert_int_equal(dst->nfunctions, a->nfunctions + 1);
	assert_int_equal(dst->nsamples, 2 * a->nsamples + b->nsamples);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

static void test_merge_sets_runs_and_keeps_labels(void **state)
{
	struct profile *a, *b, *dst = merged(&a, &b);
	const struct profile_sample *x, *y;
	const struct profile *src;
	size_t i;

	for (i = 0; i < dst->nsamples; i++) {
		src = i < a->nsamples ? a : b;
		x = &src->samples[i < a->nsamples ? i : i - a->nsamples];
		y = &dst->samples[i];
		assert_int_equal(y->run, i < a->nsamples ? 1 : 2);
		assert_int_equal(y->count, x->count);
		assert_int_equal(y->pid, x->pid);
		assert_int_equal(y->tid, x->tid);
		assert_int_equal(y->nlocs, x->nlocs);
		assert_string_equal(profile__str(dst, y->comm), profile__str(src, x->comm));
		assert_string_equal(profile__str(dst, y->cgroup), profile__str(src, x->cgroup));
	}
	y = &dst->samples[a->nsamples];
	assert_string_equal(profile__str(dst, y->cgroup), "/ci.slice/run-2.scope");
	assert_int_equal(y->tid, 101);
	assert_int_equal(dst->samples[a->nsamples + 1].cgroup, 0);
	assert_string_equal(profile__str(dst, dst->samples[a->nsamples + 4].comm), "worker");
	assert_int_equal(dst->samples[a->nsamples + 4].pid, 300);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

static void test_merge_run_zero_keeps_source_runs(void **state)
{
	struct profile *a = fx_standard(), *dst = profile__new();
	size_t i;

	assert_non_null(dst);
	for (i = 0; i < a->nsamples; i++)
		a->samples[i].run = (int64_t)(i % 3);
	assert_int_equal(profile_merge__add(dst, a, 0), 0);
	for (i = 0; i < a->nsamples; i++)
		assert_int_equal(dst->samples[i].run, (int64_t)(i % 3));
	assert_int_equal(profile_merge__add(dst, a, 7), 0);
	for (i = 0; i < a->nsamples; i++)
		assert_int_equal(dst->samples[a->nsamples + i].run, 7);
	profile__free(a);
	profile__free(dst);
}

static void test_merge_period_time_duration_comments(void **state)
{
	struct profile *a, *b, *dst = merged(&a, &b);

	assert_int_equal(dst->period_ns, 10101010);
	/* fx_standard has no time: the known one wins, not 0. */
	assert_int_equal(dst->time_ns, 1700000000000000000ll);
	assert_int_equal(dst->duration_ns, 14000000000ll);
	/* The shared comment once; each run's own in run order. */
	assert_int_equal(dst->ncomments, 3);
	assert_string_equal(profile__str(dst, dst->comments[0]),
			    "trapd 0.1.0 capture 7f3a on host db-1");
	assert_string_equal(profile__str(dst, dst->comments[1]),
			    "lost samples: 2 (map full)\nrule: cpu_high");
	assert_string_equal(profile__str(dst, dst->comments[2]), "lost samples: 5 (map full)");
	/* An earlier start wins. */
	b->time_ns -= 5;
	assert_int_equal(profile_merge__add(dst, b, 3), 0);
	assert_int_equal(dst->time_ns, 1700000000000000000ll - 5);
	assert_int_equal(dst->ncomments, 3);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

static void test_merge_refuses_a_different_period(void **state)
{
	struct profile *a = fx_standard(), *b = fx_other(), *dst = profile__new();
	size_t nsamples;
	uint32_t nstrings;

	assert_non_null(dst);
	assert_int_equal(profile_merge__add(dst, a, 1), 0);
	nsamples = dst->nsamples;
	nstrings = dst->nstrings;
	b->period_ns = 1000000;
	assert_int_equal(profile_merge__add(dst, b, 2), -EINVAL);
	/* Refused before anything was added. */
	assert_int_equal(dst->nsamples, nsamples);
	assert_int_equal(dst->nstrings, nstrings);
	assert_int_equal(dst->period_ns, 10101010);
	/* A source without a period is taken to have dst's. */
	b->period_ns = 0;
	assert_int_equal(profile_merge__add(dst, b, 2), 0);
	assert_int_equal(dst->period_ns, 10101010);
	assert_int_equal(profile_merge__add(dst, b, -1), -EINVAL);
	assert_int_equal(profile_merge__add(dst, dst, 1), -EINVAL);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

static int64_t total_count(const struct profile *p)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		n += p->samples[i].count;
	return n;
}

/* By time: a profile of three times the period counts three times as
 * much of the shorter one's, each sample's share kept, the total exact
 * (the remainders carried); one of another period is no longer refused. */
static void test_merge_by_time_converts_counts_to_the_period(void **state)
{
	struct profile *a = fx_standard(), *b = fx_other(), *dst = profile__new();
	int64_t ta = total_count(a), tb = total_count(b);

	assert_non_null(dst);
	a->period_ns = 1000000;
	b->period_ns = 3000000;
	dst->period_ns = 1000000;
	assert_int_equal(profile_merge__add_by_time(dst, a), 0);
	assert_int_equal(profile_merge__add_by_time(dst, b), 0);
	assert_int_equal(dst->period_ns, 1000000);
	assert_int_equal(total_count(dst), ta + 3 * tb);
	assert_int_equal(dst->samples[a->nsamples].count, 3 * b->samples[0].count);
	/* a period that does not divide: the total time is kept within one period */
	profile__free(dst);
	dst = profile__new();
	assert_non_null(dst);
	dst->period_ns = 1001001; /* 999 Hz */
	b->period_ns = 10101010;  /* 99 Hz */
	assert_int_equal(profile_merge__add_by_time(dst, b), 0);
	assert_true(llabs(total_count(dst) * 1001001 - tb * 10101010) < 1001001);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
}

/* assert_same_encoding - @p and @q encode to the same pprof bytes. */
static void assert_same_encoding(const struct profile *p, const struct profile *q)
{
	void *x = NULL, *y = NULL;
	size_t xlen, ylen;

	assert_int_equal(pprof_encode(p, &x, &xlen), 0);
	assert_int_equal(pprof_encode(q, &y, &ylen), 0);
	assert_int_equal(xlen, ylen);
	assert_memory_equal(x, y, xlen);
	free(x);
	free(y);
}

static void test_merge_into_empty_reproduces_source(void **state)
{
	struct profile *a = fx_standard(), *b = fx_other(), *dst, *dec = NULL;
	char why[128], err[256];
	void *buf = NULL;
	size_t len, i;

	a->time_ns = 1700000000000000001ll;
	dst = profile__new();
	assert_non_null(dst);
	assert_int_equal(profile_merge__add(dst, a, 0), 0);
	if (profile_diff(a, dst, why, sizeof(why)))
		fail_msg("merged copy differs: %s", why);
	assert_same_encoding(a, dst);
	profile__free(dst);

	/* With runs, and from a decoded profile (whose string table holds
	 * the well-known strings). */
	for (i = 0; i < b->nsamples; i++)
		b->samples[i].run = (int64_t)i + 1;
	assert_int_equal(pprof_encode(b, &buf, &len), 0);
	assert_int_equal(pprof_decode(buf, len, &dec, err, sizeof(err)), 0);
	dst = profile__new();
	assert_non_null(dst);
	assert_int_equal(profile_merge__add(dst, dec, 0), 0);
	assert_same_encoding(dec, dst);
	for (i = 0; i < b->nsamples; i++)
		assert_int_equal(dst->samples[i].run, (int64_t)i + 1);
	free(buf);
	profile__free(a);
	profile__free(b);
	profile__free(dec);
	profile__free(dst);
}

static void test_merged_profile_round_trips_through_pprof(void **state)
{
	struct profile *a, *b, *dst = merged(&a, &b), *q = NULL;
	char err[256], why[128];
	void *buf = NULL;
	size_t len, i;

	assert_int_equal(pprof_encode(dst, &buf, &len), 0);
	if (pprof_decode(buf, len, &q, err, sizeof(err)))
		fail_msg("decode: %s", err);
	if (profile_diff(dst, q, why, sizeof(why)))
		fail_msg("round trip differs: %s", why);
	for (i = 0; i < dst->nsamples; i++)
		assert_int_equal(q->samples[i].run, dst->samples[i].run);
	free(buf);
	profile__free(a);
	profile__free(b);
	profile__free(dst);
	profile__free(q);
}

/* A real cap, not a fake one: dst is filled to PROFILE_MAX_MAPPINGS (the
 * smallest table cap), and a source bringing one more mapping is refused
 * with -E2BIG, leaving dst valid. */
static void test_merge_past_a_cap_gives_e2big(void **state)
{
	struct profile *dst = profile__new(), *src = fx_other();
	struct profile_mapping m = { .limit = 1 };
	size_t nsamples;
	char why[128];
	uint32_t i;

	assert_non_null(dst);
	for (i = 0; i < PROFILE_MAX_MAPPINGS; i++) {
		m.start = (uint64_t)i << 12;
		assert_int_equal(profile__add_mapping(dst, &m), (int64_t)i + 1);
	}
	nsamples = dst->nsamples;
	assert_int_equal(profile_merge__add(dst, src, 1), -E2BIG);
	assert_int_equal(dst->nmappings, PROFILE_MAX_MAPPINGS);
	assert_int_equal(dst->nsamples, nsamples);
	assert_int_equal(dst->period_ns, 0);
	if (profile_invalid(dst, why, sizeof(why)))
		fail_msg("dst is inconsistent after -E2BIG: %s", why);
	profile__free(src);
	profile__free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_sums_samples_per_stack),
		cmocka_unit_test(test_merge_deduplicates_functions),
		cmocka_unit_test(test_merge_sets_runs_and_keeps_labels),
		cmocka_unit_test(test_merge_run_zero_keeps_source_runs),
		cmocka_unit_test(test_merge_period_time_duration_comments),
		cmocka_unit_test(test_merge_refuses_a_different_period),
		cmocka_unit_test(test_merge_by_time_converts_counts_to_the_period),
		cmocka_unit_test(test_merge_into_empty_reproduces_source),
		cmocka_unit_test(test_merged_profile_round_trips_through_pprof),
		cmocka_unit_test(test_merge_past_a_cap_gives_e2big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
