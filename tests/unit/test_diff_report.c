// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_diff_report.c - the terminal and Markdown views of a profile_diff:
 * golden output for a small fixed diff, the headline for each verdict,
 * Markdown escaping of names, and --top. */
#include "golden.h"
#include "profile_fixture.h"

#include <errno.h>
#include <stdio.h>

#include "trapd/profile/diff_report.h"
#include "trapd/profile/profile_diff.h"
#include "trapd/profile/stacktree.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define PERIOD_NS 10000000ll

struct fn_count {
	const char *name;
	int64_t count;
};

static struct profile *profile_of(const struct fn_count *fns, size_t n)
{
	struct profile *p = profile__new();
	size_t i;

	if (!p)
		fail_msg("profile__new");
	for (i = 0; i < n; i++)
		if (fns[i].count > 0)
			fx_stack(p, "app", 1, fns[i].count, "main", fns[i].name, NULL);
	return p;
}

/* A diff and the tree its names live in. */
struct fixture {
	struct stacktree *t;
	struct profile_diff d;
};

/* compare_with - NEW against BASE, CPU time measured (@base_cpu,
 * @new_cpu) or estimated (0), with options @o. */
static void compare_with(struct fixture *fx, const struct fn_count *base, size_t nbase,
			 const struct fn_count *new_fns, size_t nnew, double base_cpu,
			 double new_cpu, const struct profile_diff_options *o)
{
	struct profile_diff_side bs = { .cpu_ns = base_cpu, .period_ns = PERIOD_NS };
	struct profile_diff_side ns = { .cpu_ns = new_cpu, .period_ns = PERIOD_NS };
	struct profile *b = profile_of(base, nbase), *n = profile_of(new_fns, nnew);

	fx->t = stacktree__new(0);
	assert_non_null(fx->t);
	assert_int_equal(stacktree__add_profile(fx->t, n, STACKTREE_MAIN), 0);
	assert_int_equal(stacktree__add_profile(fx->t, b, STACKTREE_BASE), 0);
	profile__free(b);
	profile__free(n);
	assert_int_equal(profile_diff__compare(fx->t, &bs, &ns, o, &fx->d), 0);
}

/* compare - compare_with the default options but @max_regress_pct. */
static void compare(struct fixture *fx, const struct fn_count *base, size_t nbase,
		    const struct fn_count *new_fns, size_t nnew, double base_cpu, double new_cpu,
		    double max_regress_pct)
{
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;

	o.max_regress_pct = max_regress_pct;
	compare_with(fx, base, nbase, new_fns, nnew, base_cpu, new_cpu, &o);
}

static void release(struct fixture *fx)
{
	profile_diff__free(&fx->d);
	stacktree__free(fx->t);
}

/* The fixed diff: parse +30 % and fresh (new) regressed, a|b -40 %
 * improved; render -5 %, x`y``z +8 % and the long name +14 %, none of
 * them significant; steady unchanged, the machine's factor (the median
 * of the functions' time ratios, by their shares: +3.2 %, the samples'
 * growth beside the run's measured +12 %). */
static const struct fn_count fixed_base[] = {
	{ "parse", 4000 },
	{ "render", 3000 },
	{ "a|b", 1500 },
	{ "x`y``z", 1000 },
	{ "std::vector<int>::_M_realloc_insert<int const&>", 500 },
	{ "steady", 4000 },
};
static const struct fn_count fixed_new[] = {
	{ "parse", 5200 },
	{ "render", 2850 },
	{ "a|b", 900 },
	{ "x`y``z", 1080 },
	{ "std::vector<int>::_M_realloc_insert<int const&>", 570 },
	{ "fresh", 600 },
	{ "steady", 4000 },
};

static void fixed(struct fixture *fx, double max_regress_pct)
{
	compare(fx, fixed_base, N_OF(fixed_base), fixed_new, N_OF(fixed_new), 1e11, 1.12e11,
		max_regress_pct);
}

/* fixed_judged - the fixed diff, the run's CPU time judged too. */
static void fixed_judged(struct fixture *fx, double max_regress_pct)
{
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;

	o.max_regress_pct = max_regress_pct;
	o.judge_cpu_time = true;
	compare_with(fx, fixed_base, N_OF(fixed_base), fixed_new, N_OF(fixed_new), 1e11, 1.12e11,
		     &o);
}

static char *text_of(const struct profile_diff *d, size_t top)
{
	struct golden_buf b;

	assert_int_equal(diff_report__text(golden_open(&b), d, top), 0);
	return golden_text(&b);
}

static char *markdown_of(const struct profile_diff *d, const char *base_name, const char *new_name,
			 size_t top)
{
	struct golden_buf b;

	assert_int_equal(diff_report__markdown(golden_open(&b), d, base_name, new_name, top), 0);
	return golden_text(&b);
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static void test_text_golden(void **state)
{
	struct fixture fx;
	char *out;

	fixed(&fx, PROFILE_DIFF_DEFAULT_MAX_REGRESS);
	out = text_of(&fx.d, DIFF_REPORT_DEFAULT_TOP);
	golden_check("diff_report.txt", out);
	free(out);
	release(&fx);
}

static void test_markdown_golden(void **state)
{
	struct fixture fx;
	char *out;

	fixed(&fx, PROFILE_DIFF_DEFAULT_MAX_REGRESS);
	out = markdown_of(&fx.d, "main@1a2b3c", "pr-42", DIFF_REPORT_DEFAULT_TOP);
	golden_check("diff_report.md", out);
	free(out);
	release(&fx);
}

static void test_headline_cpu_regressed(void **state)
{
	static const char want[] =
		"Regression: CPU time +12.0 % (threshold +10 %); 2 functions regressed.\n";
	struct fixture fx;
	char *out;

	fixed_judged(&fx, PROFILE_DIFF_DEFAULT_MAX_REGRESS);
	out = text_of(&fx.d, 0);
	assert_memory_equal(out, want, sizeof(want) - 1);
	free(out);
	out = markdown_of(&fx.d, NULL, NULL, 0);
	assert_non_null(strstr(out, "### trapd: **Regression**: CPU time +12.0 % (threshold "
				    "+10 %); 2 functions regressed.\n"));
	/* The run's change is bold when it regressed. */
	assert_non_null(strstr(out, "| CPU time | 1.67m | 1.87m | **+12.0 %** |\n"));
	free(out);
	release(&fx);
}

static void test_headline_functions_regressed(void **state)
{
	static const char want[] =
		"Regression: 2 functions grew significantly past +15 % (CPU time +12.0 %).\n";
	struct fixture fx;
	char *out;

	fixed_judged(&fx, 15);
	assert_int_equal(fx.d.cpu_verdict, PROFILE_DIFF_SAME);
	out = text_of(&fx.d, 0);
	assert_memory_equal(out, want, sizeof(want) - 1);
	free(out);
	out = markdown_of(&fx.d, NULL, NULL, 0);
	assert_non_null(strstr(out, "### trapd: **Regression**: 2 functions grew"));
	assert_non_null(strstr(out, "| CPU time | 1.67m | 1.87m | +12.0 % |\n"));
	free(out);
	release(&fx);
}

static void test_headline_one_function_regressed(void **state)
{
	static const struct fn_count base[] = { { "hot", 4000 }, { "rest", 6000 } };
	static const struct fn_count new_fns[] = { { "hot", 5200 }, { "rest", 6000 } };
	static const char want[] =
		"Regression: 1 function grew significantly past +10 % (CPU time +12.0 %).\n";
	struct fixture fx;
	char *out;

	compare(&fx, base, 2, new_fns, 2, 0, 0, 10);
	out = text_of(&fx.d, 0);
	assert_memory_equal(out, want, sizeof(want) - 1);
	/* Estimated CPU time is said so. */
	assert_non_null(strstr(out, "(+12.0 %), estimated from samples, 1 -> 1 run;"));
	assert_non_null(strstr(out, " CPU time estimated from the samples.\n"));
	free(out);
	release(&fx);
}

static void test_headline_no_regression(void **state)
{
	static const char want[] =
		"No regression: CPU time +0.0 %, no function grew significantly past +10 %.\n"
		"CPU time: 1.67m -> 1.67m (+0.0 %), 1 -> 1 run; samples 14000 -> 14000\n"
		"\n"
		"A change is a regression when it is over +10 % and significant: p < 0.0017 "
		"(alpha 0.01 over the 6 functions with at least 1 % of a side's samples). A "
		"function's change is its time's over the typical function's (+0.0 %): what "
		"moved them all alike, the machine's speed, is not its. The CPU time is shown, "
		"not judged (--judge-cpu-time).\n";
	struct fixture fx;
	char *out;

	compare(&fx, fixed_base, N_OF(fixed_base), fixed_base, N_OF(fixed_base), 1e11, 1e11, 10);
	out = text_of(&fx.d, 0);
	/* Nothing grew or shrank: no tables at all. */
	assert_string_equal(out, want);
	free(out);
	out = markdown_of(&fx.d, NULL, NULL, 0);
	assert_non_null(strstr(out, "### trapd: **No regression**: CPU time +0.0 %, no function "
				    "grew significantly past +10 %.\n"));
	assert_int_equal(count_of(out, "####"), 0);
	free(out);
	release(&fx);
}

/* Two parts of one capture (its phases): each side is its own whole, so
 * the reports compare shares and claim no change of time between them. */
static void test_parts_of_one_capture_compare_shares(void **state)
{
	static const char shares_head[] =
		"Regression: 2 functions' shares grew significantly past +10 %.\n"
		"Shares of each side compared; samples 14000 -> 15200\n\n";
	static const char none_head[] =
		"No regression: no function's share grew significantly past +10 %.\n"
		"Shares of each side compared; samples 14000 -> 14000\n\n";
	struct profile_diff_options o = PROFILE_DIFF_OPTIONS_INIT;
	struct fixture fx;
	char *out;

	(void)state;
	o.shares_only = true;
	compare_with(&fx, fixed_base, N_OF(fixed_base), fixed_new, N_OF(fixed_new), 1e11, 1e11, &o);
	out = text_of(&fx.d, 0);
	assert_true(strncmp(out, shares_head, sizeof(shares_head) - 1) == 0);
	assert_null(strstr(out, "CPU time:"));
	assert_non_null(strstr(out, " Both sides are parts of one capture, each its own whole"));
	assert_null(strstr(out, "run-to-run"));
	free(out);
	out = markdown_of(&fx.d, "phase before", "phase during", 0);
	assert_non_null(strstr(out, "### trapd: **Regression**: 2 functions' shares grew "
				    "significantly past +10 %.\n"));
	assert_non_null(strstr(out, "| samples | 14000 | 15200 | |\n"));
	assert_null(strstr(out, "| CPU time"));
	assert_null(strstr(out, "| runs |"));
	free(out);
	release(&fx);
	compare_with(&fx, fixed_base, N_OF(fixed_base), fixed_base, N_OF(fixed_base), 1e11, 1e11,
		     &o);
	out = text_of(&fx.d, 0);
	assert_true(strncmp(out, none_head, sizeof(none_head) - 1) == 0);
	free(out);
	release(&fx);
}

static void test_markdown_escapes_names(void **state)
{
	struct fixture fx;
	char *out;

	fixed(&fx, PROFILE_DIFF_DEFAULT_MAX_REGRESS);
	out = markdown_of(&fx.d, "v1|x\n", "`tick", 0);
	/* '|' escaped inside the code span (GitHub splits cells on it). */
	assert_non_null(strstr(out, "\n| `a\\|b` | -40.0 % | 10.71 % | 5.92 % |"));
	assert_null(strstr(out, "`a|b`"));
	/* The fence is one backtick longer than the longest run inside. */
	assert_non_null(strstr(out, "\n| ```x`y``z``` | "));
	/* Side names: cleaned ('\n' -> '?'), escaped, padded when they start
	 * or end with a backtick. */
	assert_non_null(strstr(out, "\n| | base: `v1\\|x?` | new: `` `tick `` | change |\n"));
	free(out);
	out = markdown_of(&fx.d, NULL, NULL, 0);
	assert_non_null(strstr(out, "\n| | base: `BASE` | new: `NEW` | change |\n"));
	free(out);
	release(&fx);
}

static void test_text_truncates_long_names(void **state)
{
	struct fixture fx;
	char *out;

	fixed(&fx, PROFILE_DIFF_DEFAULT_MAX_REGRESS);
	out = text_of(&fx.d, 0);
	/* 40 columns: 37 of the name and "...". */
	assert_non_null(strstr(out, "  std::vector<int>::_M_realloc_insert<i...\n"));
	assert_null(strstr(out, "_insert<int const&>"));
	free(out);
	release(&fx);
}

/* Five functions grew, three shrank; "steady" holds the machine's factor. */
static const struct fn_count top_base[] = {
	{ "g1", 1000 }, { "g2", 1000 }, { "g3", 1000 }, { "g4", 1000 },	    { "g5", 1000 },
	{ "s1", 1000 }, { "s2", 1000 }, { "s3", 1000 }, { "steady", 7000 },
};
static const struct fn_count top_new[] = {
	{ "g1", 1500 }, { "g2", 1400 }, { "g3", 1300 }, { "g4", 1200 },	    { "g5", 1100 },
	{ "s1", 500 },	{ "s2", 600 },	{ "s3", 700 },	{ "steady", 7000 },
};

static void test_top_limits_rows(void **state)
{
	struct fixture fx;
	char *out;

	/* Measured CPU equal on both sides: a function's change is its share's. */
	compare(&fx, top_base, N_OF(top_base), top_new, N_OF(top_new), 1e11, 1e11, 10);
	out = text_of(&fx.d, 2);
	assert_non_null(strstr(out, "\nGrew most (self CPU time):\n"));
	assert_non_null(strstr(out, "\nShrank most (self CPU time):\n"));
	assert_non_null(strstr(out, "  ... 3 more (--top 0 lists all)\n"));
	assert_non_null(strstr(out, "  ... 1 more (--top 0 lists all)\n"));
	assert_int_equal(count_of(out, "  g"), 2);
	assert_int_equal(count_of(out, "  s"), 2);
	/* Most grown first; most shrunk first. */
	assert_true(strstr(out, "  g1\n") < strstr(out, "  g2\n"));
	assert_non_null(strstr(out, "  s1\n"));
	assert_non_null(strstr(out, "  s2\n"));
	assert_null(strstr(out, "  s3\n"));
	assert_null(strstr(out, "  g3\n"));
	free(out);

	out = text_of(&fx.d, 0);
	assert_null(strstr(out, "more (--top 0"));
	assert_int_equal(count_of(out, "  g"), 5);
	assert_int_equal(count_of(out, "  s"), 3);
	free(out);

	out = markdown_of(&fx.d, NULL, NULL, 2);
	assert_non_null(strstr(out, "\n#### Functions that grew\n\n"));
	assert_non_null(strstr(out, "\n#### Functions that shrank\n\n"));
	assert_non_null(strstr(out, "\n3 more not shown.\n"));
	assert_non_null(strstr(out, "\n1 more not shown.\n"));
	assert_int_equal(count_of(out, "\n| `g"), 2);
	assert_int_equal(count_of(out, "\n| `s"), 2);
	free(out);

	out = markdown_of(&fx.d, NULL, NULL, 0);
	assert_null(strstr(out, "more not shown"));
	assert_int_equal(count_of(out, "\n| `g"), 5);
	assert_int_equal(count_of(out, "\n| `s"), 3);
	free(out);
	release(&fx);
}

static void test_write_error_is_eio(void **state)
{
	struct fixture fx;
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		skip();
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	fixed(&fx, PROFILE_DIFF_DEFAULT_MAX_REGRESS);
	assert_int_equal(diff_report__text(f, &fx.d, 0), -EIO);
	clearerr(f);
	assert_int_equal(diff_report__markdown(f, &fx.d, NULL, NULL, 0), -EIO);
	fclose(f);
	release(&fx);
}

/* A time view names its time everywhere "CPU time" stood, its counts
 * "ns"; a total-time diff says so in its sections. */
static void test_time_view_and_total_words(void **state)
{
	struct fixture fx;
	char *out;

	fixed_judged(&fx, 10);
	fx.d.opts.time_name = "off-CPU time";
	fx.d.opts.by_total = true;
	out = text_of(&fx.d, 3);
	assert_non_null(strstr(out, "Regression: off-CPU time +12.0 %"));
	assert_non_null(strstr(out, "\noff-CPU time: "));
	assert_non_null(strstr(out, "; ns 14000 -> "));
	assert_non_null(strstr(out, "Grew most (total off-CPU time):"));
	assert_non_null(strstr(out, "TOTAL SHARE"));
	assert_non_null(strstr(out, " NS "));
	assert_non_null(strstr(out, "Times are tested in sampling periods"));
	assert_null(strstr(out, "\nCPU time"));
	assert_null(strstr(out, " CPU time"));
	free(out);
	out = markdown_of(&fx.d, NULL, NULL, 3);
	assert_non_null(strstr(out, "| off-CPU time | "));
	assert_non_null(strstr(out, "| function | total off-CPU time |"));
	assert_non_null(strstr(out, "| ns before | ns after |"));
	free(out);
	release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_view_and_total_words),
		cmocka_unit_test(test_text_golden),
		cmocka_unit_test(test_markdown_golden),
		cmocka_unit_test(test_headline_cpu_regressed),
		cmocka_unit_test(test_headline_functions_regressed),
		cmocka_unit_test(test_headline_one_function_regressed),
		cmocka_unit_test(test_headline_no_regression),
		cmocka_unit_test(test_markdown_escapes_names),
		cmocka_unit_test(test_text_truncates_long_names),
		cmocka_unit_test(test_top_limits_rows),
		cmocka_unit_test(test_write_error_is_eio),
		cmocka_unit_test(test_parts_of_one_capture_compare_shares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
