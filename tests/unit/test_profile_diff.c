// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile_diff.c - the statistics of `trapd diff`: the distributions
 * against reference values (mpmath, 30 digits), the verdicts on
 * synthetic two-sided trees built the way `trapd diff` builds them, and
 * simulated false alarm rate and power of the per-function test. */
#include "profile_fixture.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "trapd/profile/profile_diff.h"
#include "trapd/profile/stacktree.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define PERIOD_NS 10000000ll /* 10 ms */

struct fn_count {
	const char *name;
	int64_t count; /* self samples; 0: absent from the profile */
};

/* profile_of - one process "app" whose functions are each a one-frame
 * stack with the given self count. */
static struct profile *profile_of(const struct fn_count *fns, size_t n)
{
	struct profile *p = profile__new();
	size_t i;

	if (!p)
		fail_msg("profile__new");
	for (i = 0; i < n; i++)
		if (fns[i].count > 0)
			fx_stack(p, "app", 1, fns[i].count, fns[i].name, NULL);
	p->period_ns = PERIOD_NS;
	return p;
}

/* tree_of - NEW on the main side, BASE on the base side. */
static struct stacktree *tree_of(const struct fn_count *base, size_t nbase,
				 const struct fn_count *new_fns, size_t nnew)
{
	struct stacktree *t = stacktree__new(0);
	struct profile *b = profile_of(base, nbase), *n = profile_of(new_fns, nnew);

	assert_non_null(t);
	assert_int_equal(stacktree__add_profile(t, n, STACKTREE_MAIN), 0);
	assert_int_equal(stacktree__add_profile(t, b, STACKTREE_BASE), 0);
	profile__free(b);
	profile__free(n);
	return t;
}

static const struct profile_diff_function *find(const struct profile_diff *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nfuncs; i++)
		if (!strcmp(d->funcs[i].name, name))
			return &d->funcs[i];
	fail_msg("function %s not in the diff", name);
	return NULL;
}

/* assert_close - |got - want| <= tol, with the numbers in the message. */
#define assert_close(got, want, tol)                                                               \
	do {                                                                                       \
		double got_ = (got), want_ = (want);                                               \
		if (!(fabs(got_ - want_) <= (tol)))                                                \
			fail_msg("%s = %.17g, want %.17g +- %g", #got, got_, want_,                \
				 (double)(tol));                                                   \
	} while (0)

/* --- distributions ------------------------------------------------------- */

static void test_norm_sf_matches_reference(void **state)
{
	assert_close(profile_diff__norm_sf(1.959963984540054), 0.025, 1e-12);
	assert_close(profile_diff__norm_sf(3.090232306167814), 0.001, 1e-13);
	assert_close(profile_diff__norm_sf(0.0), 0.5, 0.0);
	assert_close(profile_diff__norm_sf(-1.959963984540054), 0.975, 1e-12);
	/* Deep in the tail the relative error still holds (erfc, not 1 - erf). */
	assert_close(profile_diff__norm_sf(8.0) / 6.22096057427178412e-16, 1.0, 1e-9);
	assert_close(profile_diff__norm_sf(INFINITY), 0.0, 0.0);
	assert_close(profile_diff__norm_sf(-INFINITY), 1.0, 0.0);
}

static void test_t_sf_matches_reference(void **state)
{
	static const struct {
		double t, df, want;
	} cases[] = {
		{ 2.228138851986274, 10, 0.0250000000000000317 },
		{ 12.70620473617471, 1, 0.0249999999999999895 },
		{ 1, 1, 0.25 },			/* 1/2 - atan(1)/pi */
		{ 1, 2, 0.211324865405187118 }, /* 1/2 - 1/(2 sqrt 3) */
		{ -2.228138851986274, 10, 0.974999999999999968 },
		{ 30, 3, 4.06764021358197973e-5 },
		{ 2.5, 2.5, 0.0522849815390776936 }, /* fractional df: Welch's */
		{ 1.5, 7.3, 0.0877815464015430622 },
		{ 4, 3.7, 0.00939445500939057205 },
		{ 0.5, 0.5, 0.378659036464718316 },
		{ 1.959963984540054, 1e4, 0.0250138652872361417 },
		{ 1.959963984540054, 2e3, 0.025069337044647016 }, /* Welch's largest */
	};
	size_t i;

	for (i = 0; i < N_OF(cases); i++) {
		double got = profile_diff__t_sf(cases[i].t, cases[i].df);

		if (!(fabs(got - cases[i].want) <= 1e-9 * cases[i].want))
			fail_msg("t_sf(%g, %g) = %.17g, want %.17g", cases[i].t, cases[i].df, got,
				 cases[i].want);
	}
}

/* Past any df Welch's t can have (2 * PROFILE_DIFF_MAX_RUNS - 2), t tends
 * to the normal. lgamma(df / 2) is then so large that the beta function's
 * prefactor loses digits (relative error ~ 1e-16 * df), so the tolerance
 * grows with df. */
static void test_t_sf_huge_df_is_normal(void **state)
{
	static const double ts[] = { 0.1, 1.0, 1.959963984540054, 4.0 };
	size_t i;

	assert_close(profile_diff__t_sf(1.959963984540054, 1e7), 0.0250000138647563106, 1e-10);
	assert_close(profile_diff__t_sf(1.959963984540054, 1e9), 0.0250000001386475715, 1e-7);
	for (i = 0; i < N_OF(ts); i++) {
		assert_close(profile_diff__t_sf(ts[i], 1e8), profile_diff__norm_sf(ts[i]), 1e-7);
		assert_close(profile_diff__t_sf(ts[i], 1e12), profile_diff__norm_sf(ts[i]), 1e-3);
	}
}

static void test_t_sf_edges(void **state)
{
	static const double dfs[] = { 0.3, 1, 2, 7.5, 30, 1e6 };
	size_t i;

	for (i = 0; i < N_OF(dfs); i++) {
		assert_close(profile_diff__t_sf(0.0, dfs[i]), 0.5, 1e-15);
		assert_close(profile_diff__t_sf(-1.3, dfs[i]) + profile_diff__t_sf(1.3, dfs[i]),
			     1.0, 1e-14);
		assert_close(profile_diff__t_sf(INFINITY, dfs[i]), 0.0, 0.0);
		assert_close(profile_diff__t_sf(-INFINITY, dfs[i]), 1.0, 0.0);
	}
	assert_true(isnan(profile_diff__t_sf(1.0, 0.0)));
	assert_true(isnan(profile_diff__t_sf(1.0, -3.0)));
	assert_true(isnan(profile_diff__t_sf(1.0, NAN)));
	assert_true(isnan(profile_diff__t_sf(NAN, 5.0)));
}

/* --- verdicts ------------------------------------------------------------ */

static void test_identical_profiles_are_same(void **state)
{
	static const struct fn_count fns[] = {
		{ "parse", 4000 },
		{ "render", 3000 },
		{ "io", 2000 },
		{ "idle", 1000 },
	};
	struct stacktree *t = tree_of(fns, N_OF(fns), fns, N_OF(fns));
	struct profile_diff_side side = { .cpu_ns = 1e11, .period_ns = PERIOD_NS };
	struct profile_diff d;
	size_t i;

	assert_int_equal(profile_diff__compare(t, &side, &side, NULL, &d), 0);
	assert_false(d.regressed);
	assert_int_equal(d.nregressed, 0);
	assert_int_equal(d.base_samples, 10000);
	assert_int_equal(d.new_samples, 10000);
	assert_true(d.cpu_measured);
	assert_close(d.cpu_change, 0.0, 0.0);
	/* the run's CPU time is judged only when asked */
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_UNTESTED);
	assert_true(isnan(d.cpu_p_value));
	assert_int_equal(d.base_runs, 1);
	assert_int_equal(d.new_runs, 1);
	assert_int_equal(d.nfuncs, 4);
	assert_int_equal(d.ntested, 4);
	assert_close(d.p_threshold, 0.0025, 1e-18);
	for (i = 0; i < d.nfuncs; i++) {
		assert_close(d.funcs[i].change, 0.0, 0.0);
		assert_close(d.funcs[i].p_value, 0.5, 0.0);
		assert_int_equal(d.funcs[i].verdict, PROFILE_DIFF_SAME);
	}
	/* Equal added time (0): ordered by name. */
	assert_string_equal(d.funcs[0].name, "idle");
	assert_string_equal(d.funcs[3].name, "render");
	profile_diff__free(&d);
	assert_null(d.funcs);
	assert_int_equal(d.nfuncs, 0);
	stacktree__free(t);
}

/* 10000 samples, "hot" 40 % of them; hot becomes 30 % slower, so the run
 * takes 0.6 + 0.4 * 1.3 = 1.12 times as long: 11200 samples. */
static const struct fn_count slower_base[] = {
	{ "hot", 4000 },
	{ "a", 3000 },
	{ "b", 2000 },
	{ "c", 1000 },
};
static const struct fn_count slower_new[] = {
	{ "hot", 5200 },
	{ "a", 3000 },
	{ "b", 2000 },
	{ "c", 1000 },
};

static void test_function_30_percent_slower_regressed(void **state)
{
	struct stacktree *t = tree_of(slower_base, N_OF(slower_base), slower_new, N_OF(slower_new));
	struct profile_diff_side base = { .cpu_ns = 1e11, .period_ns = PERIOD_NS };
	struct profile_diff_side new_side = { .cpu_ns = 1.12e11, .period_ns = PERIOD_NS };
	struct profile_diff_options judged = PROFILE_DIFF_OPTIONS_INIT;
	const struct profile_diff_function *f;
	struct profile_diff d;
	const char *same[] = { "a", "b", "c" };
	size_t i;

	judged.judge_cpu_time = true;
	assert_int_equal(profile_diff__compare(t, &base, &new_side, &judged, &d), 0);
	assert_true(d.cpu_measured);
	assert_close(d.base_cpu_ns, 1e11, 0.0);
	assert_close(d.new_cpu_ns, 1.12e11, 0.0);
	assert_close(d.cpu_change, 0.12, 1e-12);
	/* Asked to judge it, one run a side: +12 % is over the 10 % threshold. */
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_REGRESSED);
	assert_true(isnan(d.cpu_p_value));

	f = &d.funcs[0];
	assert_string_equal(f->name, "hot");
	assert_int_equal(f->kind, STACKTREE_KIND_USER);
	assert_int_equal(f->base_self, 4000);
	assert_int_equal(f->new_self, 5200);
	assert_int_equal(f->base_total, 4000);
	assert_int_equal(f->new_total, 5200);
	assert_close(f->base_self_share, 0.4, 1e-15);
	assert_close(f->new_self_share, 5200.0 / 11200.0, 1e-15);
	assert_close(f->base_cpu_ns, 4e10, 1e-3);
	/* at base's machine speed: the machine's factor is 1 but for the
	 * half samples */
	assert_close(f->new_cpu_ns / 5.2e10, 1.0, 1e-4);
	/* its time against the machine's factor (the others': 1.12 / 1.12),
	 * with half a sample each */
	assert_close(f->change, 0.2999625046869141, 1e-12);
	/* the error is hot's, the machine factor's (the median of all
	 * four's) and their covariance's */
	assert_true(f->p_value < 1e-12);
	assert_int_equal(f->verdict, PROFILE_DIFF_REGRESSED);
	/* The others' shares shrank (hot took more), but their time did not
	 * change. */
	for (i = 0; i < N_OF(same); i++) {
		f = find(&d, same[i]);
		assert_close(f->change, 0.0, 1e-12);
		assert_close(f->p_value, 0.5, 1e-9);
		assert_int_equal(f->verdict, PROFILE_DIFF_SAME);
	}
	assert_int_equal(d.ntested, 4);
	assert_close(d.p_threshold, 0.01 / 4, 1e-18);
	assert_int_equal(d.nregressed, 1);
	assert_true(d.regressed);
	profile_diff__free(&d);

	/* Past a 15 % threshold the run's +12 % is allowed, hot's +30 % not. */
	{
		struct profile_diff_options o = judged;

		o.max_regress_pct = 15;
		assert_int_equal(profile_diff__compare(t, &base, &new_side, &o, &d), 0);
		assert_int_equal(d.cpu_verdict, PROFILE_DIFF_SAME);
		assert_int_equal(find(&d, "hot")->verdict, PROFILE_DIFF_REGRESSED);
		assert_int_equal(d.nregressed, 1);
		assert_true(d.regressed);
		profile_diff__free(&d);

		/* ...and past 35 % neither. */
		o.max_regress_pct = 35;
		assert_int_equal(profile_diff__compare(t, &base, &new_side, &o, &d), 0);
		assert_int_equal(d.cpu_verdict, PROFILE_DIFF_SAME);
		assert_int_equal(find(&d, "hot")->verdict, PROFILE_DIFF_SAME);
		assert_false(d.regressed);
		profile_diff__free(&d);
	}

	/* Not asked: the run's +12 % is shown, untested; hot decides. */
	assert_int_equal(profile_diff__compare(t, &base, &new_side, NULL, &d), 0);
	assert_close(d.cpu_change, 0.12, 1e-12);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_UNTESTED);
	assert_int_equal(d.nregressed, 1);
	assert_true(d.regressed);
	profile_diff__free(&d);
	stacktree__free(t);
}

/* The same +30 % on 10 -> 13 samples is well within sampling error. */
/* A time view's counts are nanoseconds: tested in sampling periods
 * (the side's quantum), the same counts in ns give the p of samples;
 * tested as if each nanosecond were a sample, anything is significant. */
static void test_time_view_tests_in_periods(void **state)
{
	static const struct fn_count base_ns[] = { { "hot", 10 * PERIOD_NS },
						   { "rest", 10 * PERIOD_NS } };
	static const struct fn_count new_ns[] = { { "hot", 13 * PERIOD_NS },
						  { "rest", 10 * PERIOD_NS } };
	struct stacktree *t = tree_of(base_ns, N_OF(base_ns), new_ns, N_OF(new_ns));
	struct profile_diff_side side = { .period_ns = 1, .quantum = PERIOD_NS };
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;
	struct profile_diff d;

	o.time_name = "off-CPU time";
	assert_int_equal(profile_diff__compare(t, &side, &side, &o, &d), 0);
	/* as 10 -> 13 samples (test_small_counts_not_significant) */
	assert_close(find(&d, "hot")->p_value, 0.340577404498626354, 1e-6);
	assert_int_equal(find(&d, "hot")->verdict, PROFILE_DIFF_SAME);
	profile_diff__free(&d);
	side.quantum = 0; /* every nanosecond a sample */
	assert_int_equal(profile_diff__compare(t, &side, &side, &o, &d), 0);
	assert_true(find(&d, "hot")->p_value < 1e-12);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_small_counts_not_significant(void **state)
{
	static const struct fn_count base_fns[] = { { "hot", 10 }, { "rest", 10 } };
	static const struct fn_count new_fns[] = { { "hot", 13 }, { "rest", 10 } };
	struct stacktree *t = tree_of(base_fns, N_OF(base_fns), new_fns, N_OF(new_fns));
	struct profile_diff_side side = { .period_ns = PERIOD_NS };
	const struct profile_diff_function *f;
	struct profile_diff d;

	assert_int_equal(profile_diff__compare(t, &side, &side, NULL, &d), 0);
	f = find(&d, "hot");
	/* Two functions: neither is the machine's yardstick, the CPU time
	 * (estimated, 23 / 20) is taken as it is: 13.5 / 23.5 / (10.5 / 20.5)
	 * times 23 / 20 */
	assert_close(f->change, 0.2898176291793313, 1e-12);
	/* One run a side and no yardstick: the share is tested,
	 * z = log(13.5/23.5 / (10.5/20.5)) / sqrt(.4878/10.5 + .4255/13.5) */
	assert_close(f->p_value, 0.340577404498626354, 1e-12);
	assert_int_equal(f->verdict, PROFILE_DIFF_SAME);
	assert_int_equal(d.nregressed, 0);
	/* The run itself: +15 % of estimated CPU time, shown, not judged. */
	assert_close(d.cpu_change, 0.15, 1e-12);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_UNTESTED);
	assert_false(d.regressed);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_under_min_share_untested(void **state)
{
	/* tiny: 0.5 % -> 0.69 % (+40 %), under 1 % on both sides; riser:
	 * 0.5 % -> 1.48 %, over 1 % on the new side, so tested. */
	static const struct fn_count base_fns[] = {
		{ "big", 5000 },
		{ "mid", 4900 },
		{ "tiny", 50 },
		{ "riser", 50 },
	};
	static const struct fn_count new_fns[] = {
		{ "big", 5000 },
		{ "mid", 4900 },
		{ "tiny", 70 },
		{ "riser", 150 },
	};
	struct stacktree *t = tree_of(base_fns, N_OF(base_fns), new_fns, N_OF(new_fns));
	struct profile_diff_side side = { .period_ns = PERIOD_NS };
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;
	const struct profile_diff_function *f;
	struct profile_diff d;

	assert_int_equal(profile_diff__compare(t, &side, &side, NULL, &d), 0);
	f = find(&d, "tiny");
	assert_int_equal(f->verdict, PROFILE_DIFF_UNTESTED);
	assert_close(f->p_value, 1.0, 0.0);
	/* against big and mid, which did not change: 70.5 / 50.5 */
	assert_close(f->change, 0.39603960396039595, 1e-12);
	f = find(&d, "riser");
	assert_int_equal(f->verdict, PROFILE_DIFF_REGRESSED);
	assert_close(f->change, 1.980198019801981, 1e-12);
	assert_int_equal(d.nfuncs, 4);
	assert_int_equal(d.ntested, 3);
	assert_close(d.p_threshold, 0.01 / 3, 1e-18);
	assert_int_equal(d.nregressed, 1);
	profile_diff__free(&d);

	/* min_share 0 tests everything: tiny's +40 % on 50 -> 70 samples is
	 * then tested, and not significant at 0.01 / 4. */
	o.min_share_pct = 0;
	assert_int_equal(profile_diff__compare(t, &side, &side, &o, &d), 0);
	assert_int_equal(d.ntested, 4);
	assert_close(d.p_threshold, 0.0025, 1e-18);
	f = find(&d, "tiny");
	assert_int_equal(f->verdict, PROFILE_DIFF_SAME);
	assert_close(f->p_value, 0.035906878887032811, 1e-12);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_shrunk_new_and_vanished(void **state)
{
	static const struct fn_count base_fns[] = {
		{ "steady", 40000 }, { "shrinker", 30000 }, { "gone", 20000 },
		{ "trim", 10000 },   { "trim2", 10000 },
	};
	static const struct fn_count new_fns[] = {
		{ "steady", 40000 }, { "shrinker", 21000 }, { "fresh", 10000 },
		{ "trim", 9200 },    { "trim2", 9050 },
	};
	static const char *const order[] = {
		"fresh", "steady", "trim", "trim2", "shrinker", "gone"
	};
	struct stacktree *t = tree_of(base_fns, N_OF(base_fns), new_fns, N_OF(new_fns));
	struct profile_diff_side side = { .period_ns = PERIOD_NS };
	const struct profile_diff_function *f;
	struct profile_diff d;
	size_t i;

	assert_int_equal(profile_diff__compare(t, &side, &side, NULL, &d), 0);
	assert_int_equal(d.nfuncs, N_OF(order));
	for (i = 0; i < N_OF(order); i++)
		assert_string_equal(d.funcs[i].name, order[i]);
	/* -30 % of its samples, against trim (the median of the rest, which
	 * shrank 8 %): -24 % */
	f = find(&d, "shrinker");
	assert_close(f->change, -0.23912830806297058, 1e-12);
	assert_int_equal(f->verdict, PROFILE_DIFF_IMPROVED);
	f = find(&d, "fresh");
	assert_true(isinf(f->change) && f->change > 0);
	assert_int_equal(f->base_self, 0);
	assert_close(f->base_self_share, 0.0, 0.0);
	assert_int_equal(f->verdict, PROFILE_DIFF_REGRESSED);
	f = find(&d, "gone");
	assert_close(f->change, -1.0, 0.0);
	assert_int_equal(f->new_self, 0);
	assert_int_equal(f->verdict, PROFILE_DIFF_IMPROVED);
	/* Against trim, the median: trim2 -1.6 %, and steady +8.7 %,
	 * significant but within the threshold. */
	f = find(&d, "trim");
	assert_close(f->change, 0.0, 1e-12);
	assert_int_equal(f->verdict, PROFILE_DIFF_SAME);
	f = find(&d, "trim2");
	assert_close(f->change, -0.016303461768382155, 1e-12);
	assert_int_equal(f->verdict, PROFILE_DIFF_SAME);
	f = find(&d, "steady");
	assert_close(f->change, 0.08695179609803816, 1e-12);
	assert_true(f->p_value < d.p_threshold);
	assert_int_equal(f->verdict, PROFILE_DIFF_SAME);
	/* The run: 89250 samples against 110000, estimated, not judged. */
	assert_close(d.cpu_change, 89250.0 / 110000.0 - 1.0, 1e-12);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_UNTESTED);
	assert_int_equal(d.nregressed, 1);
	assert_true(d.regressed);
	profile_diff__free(&d);
	stacktree__free(t);
}

/* --- runs ---------------------------------------------------------------- */

static const struct fn_count runs_fns[] = { { "f", 6000 }, { "g", 4000 } };

static double sum_of(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void test_runs_small_spread_welch_significant(void **state)
{
	static const double b[] = { 1.00e9, 1.01e9, 0.99e9, 1.005e9, 0.995e9 };
	static const double n[] = { 1.15e9, 1.1615e9, 1.1385e9, 1.15575e9, 1.14425e9 };
	struct stacktree *t = tree_of(runs_fns, N_OF(runs_fns), runs_fns, N_OF(runs_fns));
	struct profile_diff_side base = {
		.cpu_ns = sum_of(b, 5), .period_ns = PERIOD_NS, .run_cpu_ns = b, .nruns = 5
	};
	struct profile_diff_side new_side = {
		.cpu_ns = sum_of(n, 5), .period_ns = PERIOD_NS, .run_cpu_ns = n, .nruns = 5
	};
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;
	struct profile_diff d;

	o.judge_cpu_time = true;
	assert_int_equal(profile_diff__compare(t, &base, &new_side, &o, &d), 0);
	assert_int_equal(d.base_runs, 5);
	assert_int_equal(d.new_runs, 5);
	assert_close(d.cpu_change, 0.15, 1e-12);
	/* t = 27.95 on 8 degrees of freedom. */
	assert_close(d.cpu_p_value / 1.44884265346928213e-9, 1.0, 1e-6);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_REGRESSED);
	/* Same shares, 15 % more CPU time. Two functions, f the larger: no
	 * yardstick but the CPU time, whose runs' spread is small: each
	 * function is +15 %, f's significantly past +10 %. */
	assert_close(find(&d, "f")->change, 0.15, 1e-12);
	assert_true(find(&d, "f")->p_value < 1e-3);
	assert_int_equal(find(&d, "f")->verdict, PROFILE_DIFF_REGRESSED);
	assert_true(d.regressed);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_runs_large_spread_not_significant(void **state)
{
	static const double b[] = { 0.5e9, 1.5e9, 1.0e9, 0.7e9, 1.3e9 };
	static const double n[] = { 0.575e9, 1.725e9, 1.15e9, 0.805e9, 1.495e9 };
	struct stacktree *t = tree_of(runs_fns, N_OF(runs_fns), runs_fns, N_OF(runs_fns));
	struct profile_diff_side base = {
		.cpu_ns = sum_of(b, 5), .period_ns = PERIOD_NS, .run_cpu_ns = b, .nruns = 5
	};
	struct profile_diff_side new_side = {
		.cpu_ns = sum_of(n, 5), .period_ns = PERIOD_NS, .run_cpu_ns = n, .nruns = 5
	};
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;
	struct profile_diff d;

	o.judge_cpu_time = true;
	assert_int_equal(profile_diff__compare(t, &base, &new_side, &o, &d), 0);
	assert_close(d.cpu_change, 0.15, 1e-12);
	assert_close(d.cpu_p_value, 0.318457333049593362, 1e-9);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_SAME);
	/* ... and with a large spread, the functions' +15 % is not. */
	assert_close(find(&d, "f")->change, 0.15, 1e-12);
	assert_int_equal(find(&d, "f")->verdict, PROFILE_DIFF_SAME);
	assert_int_equal(d.nregressed, 0);
	assert_false(d.regressed);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_one_run_a_side_threshold_alone(void **state)
{
	static const double b[] = { 1e9 }, n[] = { 1.15e9 };
	static const double five[] = { 1.15e9, 1.1615e9, 1.1385e9, 1.15575e9, 1.14425e9 };
	struct stacktree *t = tree_of(runs_fns, N_OF(runs_fns), runs_fns, N_OF(runs_fns));
	struct profile_diff_side base = {
		.cpu_ns = 1e9, .period_ns = PERIOD_NS, .run_cpu_ns = b, .nruns = 1
	};
	struct profile_diff_side new_side = {
		.cpu_ns = 1.15e9, .period_ns = PERIOD_NS, .run_cpu_ns = n, .nruns = 1
	};
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;
	struct profile_diff d;

	/* Not asked: shown, untested. With two functions there is no
	 * yardstick but the CPU time: each function is +15 %. */
	assert_int_equal(profile_diff__compare(t, &base, &new_side, NULL, &d), 0);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_UNTESTED);
	assert_close(find(&d, "g")->change, 0.15, 1e-12);
	profile_diff__free(&d);

	o.judge_cpu_time = true;
	assert_int_equal(profile_diff__compare(t, &base, &new_side, &o, &d), 0);
	assert_true(isnan(d.cpu_p_value));
	assert_int_equal(d.base_runs, 1);
	assert_int_equal(d.new_runs, 1);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_REGRESSED);
	profile_diff__free(&d);

	/* Runs on one side only: still not testable. */
	new_side.run_cpu_ns = five;
	new_side.nruns = 5;
	new_side.cpu_ns = sum_of(five, 5);
	assert_int_equal(profile_diff__compare(t, &base, &new_side, &o, &d), 0);
	assert_true(isnan(d.cpu_p_value));
	assert_int_equal(d.new_runs, 5);
	assert_close(d.cpu_change, sum_of(five, 5) / 1e9 - 1.0, 1e-12);
	assert_int_equal(d.cpu_verdict, PROFILE_DIFF_REGRESSED);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_cpu_estimated_from_samples(void **state)
{
	struct stacktree *t = tree_of(slower_base, N_OF(slower_base), slower_new, N_OF(slower_new));
	struct profile_diff_side base = { .period_ns = PERIOD_NS };
	struct profile_diff_side new_side = { .period_ns = PERIOD_NS };
	struct profile_diff d;

	assert_int_equal(profile_diff__compare(t, &base, &new_side, NULL, &d), 0);
	assert_false(d.cpu_measured);
	assert_close(d.base_cpu_ns, 10000.0 * PERIOD_NS, 0.0);
	assert_close(d.new_cpu_ns, 11200.0 * PERIOD_NS, 0.0);
	assert_close(d.cpu_change, 0.12, 1e-12);
	assert_close(find(&d, "hot")->change, 0.2999625046869141, 1e-12);
	profile_diff__free(&d);

	/* Measured on one side only: not "measured". */
	new_side.cpu_ns = 1.12e11;
	assert_int_equal(profile_diff__compare(t, &base, &new_side, NULL, &d), 0);
	assert_false(d.cpu_measured);
	assert_close(d.new_cpu_ns, 1.12e11, 0.0);
	profile_diff__free(&d);

	/* Period unknown: one sample counts 1 ns. */
	new_side.cpu_ns = -1;
	new_side.period_ns = 0;
	base.period_ns = 0;
	assert_int_equal(profile_diff__compare(t, &base, &new_side, NULL, &d), 0);
	assert_false(d.cpu_measured);
	assert_close(d.base_cpu_ns, 10000.0, 0.0);
	assert_close(d.new_cpu_ns, 11200.0, 0.0);
	profile_diff__free(&d);
	stacktree__free(t);
}

static void test_invalid_options_and_empty_side(void **state)
{
	static const struct profile_diff_options bad[] = {
		{ .max_regress_pct = 0, .min_share_pct = 1, .alpha = 0.01 },
		{ .max_regress_pct = -5, .min_share_pct = 1, .alpha = 0.01 },
		{ .max_regress_pct = 2e6, .min_share_pct = 1, .alpha = 0.01 },
		{ .max_regress_pct = NAN, .min_share_pct = 1, .alpha = 0.01 },
		{ .max_regress_pct = 10, .min_share_pct = -1, .alpha = 0.01 },
		{ .max_regress_pct = 10, .min_share_pct = 101, .alpha = 0.01 },
		{ .max_regress_pct = 10, .min_share_pct = NAN, .alpha = 0.01 },
		{ .max_regress_pct = 10, .min_share_pct = 1, .alpha = 0 },
		{ .max_regress_pct = 10, .min_share_pct = 1, .alpha = 0.51 },
		{ .max_regress_pct = 10, .min_share_pct = 1, .alpha = -0.1 },
		{ .max_regress_pct = 10, .min_share_pct = 1, .alpha = NAN },
	};
	static const double runs[PROFILE_DIFF_MAX_RUNS + 1] = { 1e9 };
	struct stacktree *t = tree_of(runs_fns, N_OF(runs_fns), runs_fns, N_OF(runs_fns)), *half;
	struct profile_diff_side side = { .period_ns = PERIOD_NS }, many = side;
	struct profile_diff d;
	size_t i;

	for (i = 0; i < N_OF(bad); i++) {
		if (profile_diff__compare(t, &side, &side, &bad[i], &d) != -EINVAL)
			fail_msg("options %zu {%g, %g, %g} accepted", i, bad[i].max_regress_pct,
				 bad[i].min_share_pct, bad[i].alpha);
		assert_null(d.funcs);
		profile_diff__free(&d);
	}
	many.run_cpu_ns = runs;
	many.nruns = PROFILE_DIFF_MAX_RUNS + 1;
	assert_int_equal(profile_diff__compare(t, &many, &side, NULL, &d), -EINVAL);
	assert_int_equal(profile_diff__compare(t, &side, &many, NULL, &d), -EINVAL);
	stacktree__free(t);

	/* A side without samples. */
	half = tree_of(runs_fns, N_OF(runs_fns), NULL, 0);
	assert_int_equal(profile_diff__compare(half, &side, &side, NULL, &d), -EINVAL);
	stacktree__free(half);
	half = tree_of(NULL, 0, runs_fns, N_OF(runs_fns));
	assert_int_equal(profile_diff__compare(half, &side, &side, NULL, &d), -EINVAL);
	stacktree__free(half);
	profile_diff__free(NULL);
}

/* --- simulation ---------------------------------------------------------- */

#define SIM_PAIRS 500
#define SIM_SAMPLES 8000
#define SIM_FUNCS 8

static const char *const sim_names[SIM_FUNCS] = { "f30",  "f20", "f15", "f10a",
						  "f10b", "f8",	 "f5",	"f2" };
static const double sim_shares[SIM_FUNCS] = { 0.30, 0.20, 0.15, 0.10, 0.10, 0.08, 0.05, 0.02 };

/* splitmix64: a fixed seed makes every run of the test draw the same. */
static uint64_t sim_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* sim_draw - @n samples from the distribution @w (weights, any sum). */
static void sim_draw(uint64_t *seed, const double *w, int64_t n, struct fn_count *out)
{
	double cum[SIM_FUNCS], sum = 0;
	int64_t i;
	int k;

	for (k = 0; k < SIM_FUNCS; k++) {
		sum += w[k];
		cum[k] = sum;
		out[k].name = sim_names[k];
		out[k].count = 0;
	}
	for (i = 0; i < n; i++) {
		double u = (double)(sim_next(seed) >> 11) * 0x1p-53 * sum;

		for (k = 0; k < SIM_FUNCS - 1 && u >= cum[k]; k++)
			;
		out[k].count++;
	}
}

/* sim_normal - a standard normal draw (Box-Muller). */
static double sim_normal(uint64_t *seed)
{
	double u1 = ((double)(sim_next(seed) >> 11) + 1.0) * 0x1p-53;
	double u2 = (double)(sim_next(seed) >> 11) * 0x1p-53;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* sim_pair - compare one simulated pair: BASE from sim_shares, NEW with
 * function @slow (-1: none) 30 % slower, its sample count grown with the
 * run's time, and all of it @speed times as long (a slower or faster
 * machine: 1.0 for none). Returns whether @slow regressed, and counts in
 * *others whether any other function did. */
static bool sim_pair_on(uint64_t *seed, int slow, double speed, int *others)
{
	struct fn_count base[SIM_FUNCS], new_fns[SIM_FUNCS];
	struct profile_diff_side side = { .period_ns = PERIOD_NS };
	double w[SIM_FUNCS];
	struct stacktree *t;
	struct profile_diff d;
	bool hit = false, other = false;
	int64_t n_new = SIM_SAMPLES;
	size_t i;
	int k;

	memcpy(w, sim_shares, sizeof(w));
	if (slow >= 0) {
		w[slow] *= 1.3;
		n_new = llround(SIM_SAMPLES * (1.0 + 0.3 * sim_shares[slow]));
	}
	n_new = llround((double)n_new * speed);
	sim_draw(seed, sim_shares, SIM_SAMPLES, base);
	sim_draw(seed, w, n_new, new_fns);
	t = tree_of(base, SIM_FUNCS, new_fns, SIM_FUNCS);
	assert_int_equal(profile_diff__compare(t, &side, &side, NULL, &d), 0);
	for (i = 0; i < d.nfuncs; i++) {
		if (d.funcs[i].verdict != PROFILE_DIFF_REGRESSED)
			continue;
		for (k = 0; k < SIM_FUNCS && strcmp(d.funcs[i].name, sim_names[k]); k++)
			;
		if (k == slow)
			hit = true;
		else
			other = true;
	}
	*others += other;
	profile_diff__free(&d);
	stacktree__free(t);
	return hit;
}

static bool sim_pair(uint64_t *seed, int slow, int *others)
{
	return sim_pair_on(seed, slow, 1.0, others);
}

static void test_false_alarm_rate_under_alpha(void **state)
{
	uint64_t seed = 20240601;
	int alarms = 0, pair;

	for (pair = 0; pair < SIM_PAIRS; pair++)
		sim_pair(&seed, -1, &alarms);
	print_message("false alarms: %d of %d pairs (%.1f %%), alpha 0.01 family-wise\n", alarms,
		      SIM_PAIRS, 100.0 * alarms / SIM_PAIRS);
	/* Expected <= 1 %; 2 % leaves room for the draw (P(X > 10) < 2 % at 1 %). */
	assert_true(alarms <= SIM_PAIRS / 50);
}

static void test_power_for_30_percent_slower(void **state)
{
	uint64_t seed = 77;
	int k, pair;

	for (k = 0; k < SIM_FUNCS; k++) {
		int hits = 0, others = 0;

		for (pair = 0; pair < SIM_PAIRS; pair++)
			hits += sim_pair(&seed, k, &others);
		print_message("%s (%2.0f %% of samples) 30 %% slower: detected in %d of %d pairs "
			      "(%.1f %%); another function flagged in %d\n",
			      sim_names[k], sim_shares[k] * 100, hits, SIM_PAIRS,
			      100.0 * hits / SIM_PAIRS, others);
		/* From 15 % of the samples up, +30 % is found (8,000 samples a
		 * side); below that the threshold and the sampling error hide
		 * it more and more often. */
		if (sim_shares[k] >= 0.15 && hits < SIM_PAIRS * 95 / 100)
			fail_msg("%s: power %d of %d, want >= 95 %%", sim_names[k], hits,
				 SIM_PAIRS);
		/* The others did not change: at most the false alarm rate. */
		if (others > SIM_PAIRS / 50)
			fail_msg("%s slowed: %d pairs flagged another function", sim_names[k],
				 others);
	}
}

/* One run a side on a noisy machine: the new run is off by a factor
 * whose log has a 6 % spread (a CI runner sharing its host), and nothing
 * else changed. No function may be flagged for the machine's change any
 * more often than alpha; and a 30 % slower function is still found. */
static void test_machine_noise_one_run_a_side(void **state)
{
	uint64_t seed = 4242;
	int alarms = 0, hits = 0, others = 0, pair;

	for (pair = 0; pair < SIM_PAIRS; pair++)
		sim_pair_on(&seed, -1, exp(0.06 * sim_normal(&seed)), &alarms);
	for (pair = 0; pair < SIM_PAIRS; pair++)
		hits += sim_pair_on(&seed, 0, exp(0.06 * sim_normal(&seed)), &others);
	print_message("machine noise 6 %%: false alarms in %d of %d pairs; f30 30 %% slower "
		      "found in %d, another function flagged in %d\n",
		      alarms, SIM_PAIRS, hits, others);
	assert_true(alarms <= SIM_PAIRS / 50);
	assert_true(hits >= SIM_PAIRS * 95 / 100);
	assert_true(others <= SIM_PAIRS / 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_norm_sf_matches_reference),
		cmocka_unit_test(test_t_sf_matches_reference),
		cmocka_unit_test(test_t_sf_huge_df_is_normal),
		cmocka_unit_test(test_t_sf_edges),
		cmocka_unit_test(test_identical_profiles_are_same),
		cmocka_unit_test(test_function_30_percent_slower_regressed),
		cmocka_unit_test(test_small_counts_not_significant),
		cmocka_unit_test(test_time_view_tests_in_periods),
		cmocka_unit_test(test_under_min_share_untested),
		cmocka_unit_test(test_shrunk_new_and_vanished),
		cmocka_unit_test(test_runs_small_spread_welch_significant),
		cmocka_unit_test(test_runs_large_spread_not_significant),
		cmocka_unit_test(test_one_run_a_side_threshold_alone),
		cmocka_unit_test(test_cpu_estimated_from_samples),
		cmocka_unit_test(test_invalid_options_and_empty_side),
		cmocka_unit_test(test_false_alarm_rate_under_alpha),
		cmocka_unit_test(test_power_for_30_percent_slower),
		cmocka_unit_test(test_machine_noise_one_run_a_side),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
