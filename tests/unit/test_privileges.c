// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_privileges.c - who may sample. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "trapd/util/privileges.h"

static void test_root_or_capabilities(void **state)
{
	char why[200] = "";

	(void)state;
	assert_true(privileges__check_caps(0, 0, why, sizeof(why)));		 /* root */
	assert_true(privileges__check_caps(1ull << 21, 1000, why, sizeof(why))); /* SYS_ADMIN */
	assert_true(privileges__check_caps(3ull << 38, 1000, why, sizeof(why))); /* BPF+PERFMON */
	assert_false(privileges__check_caps(1ull << 39, 1000, why, sizeof(why)));
	assert_non_null(strstr(why, "uid 1000, has CAP_BPF only"));
	assert_false(privileges__check_caps(0, 65534, why, sizeof(why)));
	assert_string_equal(why, "sampling needs root, or CAP_BPF and CAP_PERFMON (this process, "
				 "uid 65534, has neither): run it with sudo");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_or_capabilities),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
