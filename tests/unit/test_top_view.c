// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_top_view.c - one screen of `trapd top`: shares of one CPU, rows by
 * function, process (a pid that exec'd is two rows, each named by its
 * program) and cgroup, each with its hottest function. */
#include "profile_fixture.h"

#include <errno.h>
#include <stdio.h>

#include "trapd/cli/top_view.h"

static char *screen(const struct profile *p, enum top_by by)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(top_view__write(f, p, by, 10, 120), 0);
	fclose(f);
	return buf;
}

static struct profile *two_seconds(void)
{
	struct profile *p = profile__new();

	assert_non_null(p);
	/* 2 s at 50 Hz: 100 samples are one CPU */
	fx_stack(p, "bash", 100, 5, "main", "fork", NULL);
	fx_stack(p, "burner", 100, 95, "main", "burn_60", NULL);
	fx_stack(p, "xz", 200, 50, "main", "lzma_code", NULL);
	p->period_ns = 20000000;
	p->duration_ns = 2000000000;
	return p;
}

static void test_a_process_that_execd_is_two_rows(void **state)
{
	struct profile *p = two_seconds();
	char *s = screen(p, TOP_BY_PROCESS);

	(void)state;
	assert_non_null(strstr(s, "150 samples, 1.50 CPUs busy"));
	assert_non_null(strstr(s, "  95.0%  burner[100]"));
	assert_non_null(strstr(s, "  50.0%  xz[200]"));
	assert_non_null(strstr(s, "   5.0%  bash[100]"));
	assert_true(strstr(s, "burner[100]") < strstr(s, "xz[200]"));
	assert_non_null(strstr(strstr(s, "burner[100]"), "burn_60"));
	free(s);
	profile__free(p);
}

static void test_functions_by_self_then_total(void **state)
{
	struct profile *p = two_seconds();
	char *s = screen(p, TOP_BY_FUNCTION);

	(void)state;
	assert_non_null(strstr(s, "  95.0%   95.0%  burn_60"));
	assert_non_null(strstr(s, "   0.0%  150.0%  main"));
	assert_true(strstr(s, "burn_60") < strstr(s, "lzma_code"));
	free(s);
	profile__free(p);
}

static void test_an_empty_second_says_so(void **state)
{
	struct profile *p = profile__new();
	char *s;
	enum top_by by;

	(void)state;
	p->period_ns = 20000000;
	p->duration_ns = 1000000000;
	s = screen(p, TOP_BY_CGROUP);
	assert_non_null(strstr(s, "no sample in these seconds"));
	free(s);
	profile__free(p);
	assert_int_equal(top_by__parse("cgroup", &by), 0);
	assert_int_equal(by, TOP_BY_CGROUP);
	assert_int_equal(top_by__parse("thread", &by), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_process_that_execd_is_two_rows),
		cmocka_unit_test(test_functions_by_self_then_total),
		cmocka_unit_test(test_an_empty_second_says_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
