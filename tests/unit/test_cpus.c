// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cpus.c - the kernel's list of online CPUs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <unistd.h>

#include "trapd/util/cpus.h"

static void test_parse(void **state)
{
	int cpus[8];

	(void)state;
	assert_int_equal(cpus_parse("0-3,5\n", cpus, 8), 5);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 5);
	assert_int_equal(cpus_parse("7", cpus, 8), 1);
	assert_int_equal(cpus[0], 7);
	assert_int_equal(cpus_parse("0-1023\n", NULL, 1 << 20), 1024);
	assert_int_equal(cpus_parse("0-8", cpus, 8), -E2BIG);
	assert_int_equal(cpus_parse("3-1", cpus, 8), -EINVAL);
	assert_int_equal(cpus_parse("-1", cpus, 8), -EINVAL);
	assert_int_equal(cpus_parse("0,x", cpus, 8), -EINVAL);
	assert_int_equal(cpus_parse("0;1", cpus, 8), -EINVAL);
	assert_int_equal(cpus_parse("99999999999", cpus, 8), -EINVAL);
	assert_int_equal(cpus_parse("", cpus, 8), 0);
}

/* the live list counts what sysconf counts */
static void test_online(void **state)
{
	int cpus[4096];

	(void)state;
	assert_int_equal(cpus_online(cpus, 4096), sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(cpus_online_count(), sysconf(_SC_NPROCESSORS_ONLN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_online),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
