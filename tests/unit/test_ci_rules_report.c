// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ci_rules_report.c - what trapd ci -c reports: golden text and
 * Markdown for a run with fires, the extreme reading per direction, what
 * became of each fire (captured, lost, not captured, dry run), the cap on
 * listed fires, and Markdown escaping. */
#include "golden.h"

#include <errno.h>
#include <stdio.h>

#include "rules/rules.h"
#include "trapd/ci/ci_rules_report.h"

#define MS 1000000ll

static const char rules_text[] = "[rule busy]\nsignal = cpu\nabove = 50%\n"
				 "[rule idle]\nsignal = cpu\nbelow = 5%\nfor = 1s\n"
				 "[rule queue]\nsignal = runqlat.p99\nabove = 2ms\ndry_run = yes\n"
				 "[rule quiet]\nsignal = psi.io.some\nwindow = 2s\nabove = 30%\n";

static char *argv_cmd[] = { "./bench", "--quick", "a|b`c", NULL };

static struct rules *load(void)
{
	struct rules_errors errs;
	struct rules *r = NULL;

	if (rules__parse_for("ci-rules.ini", rules_text, sizeof(rules_text) - 1, RULES_FOR_CI, &r,
			     &errs))
		fail_msg("rules do not load: %s", errs.n ? errs.msgs[0] : "");
	return r;
}

/* run_with_fires - busy fires twice (one capture written, one lost),
 * idle once without a capture, queue once in dry run; quiet never reads. */
static void run_with_fires(struct ci_rules_report *rep, const struct rules *r)
{
	assert_int_equal(ci_rules_report__init(rep, r), 0);
	rep->argv = argv_cmd;
	rep->wall_ns = 12300 * MS;
	rep->cpu_ns = 8100 * MS;
	ci_rules_report__reading(rep, 0, 2000); /* 20 %: in hundredths of a percent */
	ci_rules_report__fire(rep, 0, 1500 * MS, 9850, false, "aaaaaaaabbbbbbbbccccccccdddddddd",
			      "");
	ci_rules_report__capture(rep, "aaaaaaaabbbbbbbbccccccccdddddddd",
				 "out/20261122T000000Z-busy-aaaaaaaa.pb.zst", NULL);
	ci_rules_report__reading(rep, 0, 9900);
	ci_rules_report__fire(rep, 0, 6 * 1000 * MS, 9700, false,
			      "eeeeeeeeffffffff0000000011111111", "");
	ci_rules_report__capture(rep, "eeeeeeeeffffffff0000000011111111", NULL,
				 "spool directory out: No space left on device");
	ci_rules_report__reading(rep, 1, 300);
	ci_rules_report__reading(rep, 1, 100);
	ci_rules_report__reading(rep, 1, 400);
	ci_rules_report__fire(rep, 1, 9 * 1000 * MS, 100, false, NULL,
			      "no process named 'x' to sample");
	ci_rules_report__fire(rep, 2, 10 * 1000 * MS, 3 * MS, true, NULL, "");
}

static void test_golden(void **state)
{
	struct ci_rules_report rep;
	struct rules *r = load();
	struct golden_buf b;
	char *text;

	(void)state;
	run_with_fires(&rep, r);
	assert_int_equal(ci_rules_report__text(&rep, golden_open(&b)), 0);
	text = golden_text(&b);
	golden_check("ci_rules_report.txt", text);
	free(text);
	assert_int_equal(ci_rules_report__markdown(&rep, golden_open(&b)), 0);
	text = golden_text(&b);
	golden_check("ci_rules_report.md", text);
	free(text);
	ci_rules_report__release(&rep);
	rules__free(r);
}

/* The extreme is the highest reading of an above rule and the lowest of
 * a below one; a fire's value counts as a reading. */
static void test_extreme(void **state)
{
	struct ci_rules_report rep;
	struct rules *r = load();

	(void)state;
	run_with_fires(&rep, r);
	assert_true(rep.rules[0].have_peak);
	assert_int_equal(rep.rules[0].peak, 9900);
	assert_int_equal(rep.rules[1].peak, 100);
	assert_int_equal(rep.rules[2].peak, 3 * MS);
	assert_false(rep.rules[3].have_peak);
	assert_int_equal(rep.rules[0].fires, 2);
	assert_int_equal(rep.fires_total, 4);
	assert_true(rep.fires[3].dry_run);
	ci_rules_report__release(&rep);
	rules__free(r);
}

/* Fires past CI_REPORT_FIRES_MAX are counted, not listed, and said so. */
static void test_fires_capped(void **state)
{
	struct ci_rules_report rep;
	struct rules *r = load();
	struct golden_buf b;
	char *text;
	int i;

	(void)state;
	assert_int_equal(ci_rules_report__init(&rep, r), 0);
	rep.argv = argv_cmd;
	for (i = 0; i < CI_REPORT_FIRES_MAX + 5; i++)
		ci_rules_report__fire(&rep, 0, i * MS, 6000, false, NULL, "x");
	assert_int_equal(rep.nfires, CI_REPORT_FIRES_MAX);
	assert_int_equal(rep.fires_total, CI_REPORT_FIRES_MAX + 5);
	assert_int_equal(ci_rules_report__markdown(&rep, golden_open(&b)), 0);
	text = golden_text(&b);
	assert_non_null(strstr(text, "\n... and 5 more fires.\n"));
	assert_non_null(strstr(text, "### trapd: 1 of 4 rules fired during the run (261 times)\n"));
	free(text);
	ci_rules_report__release(&rep);
	rules__free(r);
}

/* A quiet run: no fires table, the rules table with "no data" for a rule
 * that never read, and the signal that stopped the run. */
static void test_quiet_and_stopped(void **state)
{
	struct ci_rules_report rep;
	struct rules *r = load();
	struct golden_buf b;
	char *text;

	(void)state;
	assert_int_equal(ci_rules_report__init(&rep, r), 0);
	rep.argv = argv_cmd;
	rep.wall_ns = 2 * 1000 * MS;
	rep.signo = 15;
	assert_int_equal(ci_rules_report__text(&rep, golden_open(&b)), 0);
	text = golden_text(&b);
	assert_non_null(strstr(text, "trapd ci: no rule fired during the run\n"));
	assert_non_null(strstr(text, "ran for 2s and was stopped by SIGTERM\n"));
	assert_null(strstr(text, "fires:"));
	assert_non_null(strstr(text, "  quiet  psi.io.some  above 30%  no data  0\n"));
	free(text);
	ci_rules_report__release(&rep);
	rules__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_extreme),
		cmocka_unit_test(test_fires_capped),
		cmocka_unit_test(test_quiet_and_stopped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
