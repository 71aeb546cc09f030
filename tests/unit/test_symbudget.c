// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_symbudget.c - a capture's symbolization budget and its shares. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "trapd/symbolize/symbudget.h"

static void test_take_charge_and_refuse(void **state)
{
	struct symbudget b;

	(void)state;
	symbudget__init(&b);
	b.max[SYMBUDGET_BYTES] = 100;
	assert_true(symbudget__take(&b, SYMBUDGET_BYTES, 60));
	assert_int_equal(symbudget__left(&b, SYMBUDGET_BYTES), 40);
	assert_false(symbudget__take(&b, SYMBUDGET_BYTES, 41));
	assert_int_equal(b.refused[SYMBUDGET_BYTES], 1);
	symbudget__charge(&b, SYMBUDGET_BYTES, 50); /* spent anyway */
	assert_int_equal(symbudget__left(&b, SYMBUDGET_BYTES), 0);
	assert_true(symbudget__hit(&b));
	assert_true(symbudget__take(NULL, SYMBUDGET_BYTES, 1));
	assert_int_equal(symbudget__left(NULL, SYMBUDGET_BYTES), UINT64_MAX);
}

/* One user's share cannot take what another's needs: each is held to
 * its fraction and to what the whole has left, and every charge and
 * refusal shows in the whole, which the capture reports. */
static void test_shares_leave_the_rest_to_others(void **state)
{
	struct symbudget whole, a, b;

	(void)state;
	symbudget__init(&whole);
	whole.max[SYMBUDGET_BYTES] = 1000;
	symbudget__share(&a, &whole, SYMBUDGET_USER_SHARE);
	symbudget__share(&b, &whole, SYMBUDGET_USER_SHARE);
	assert_int_equal(a.max[SYMBUDGET_BYTES], 500);
	assert_int_equal(a.max[SYMBUDGET_TIME], 0); /* the whole's clock */
	/* a maps everything it can first */
	assert_true(symbudget__take(&a, SYMBUDGET_BYTES, 500));
	assert_false(symbudget__take(&a, SYMBUDGET_BYTES, 1));
	symbudget__charge(&a, SYMBUDGET_BYTES, 100); /* over, spent anyway */
	assert_int_equal(symbudget__left(&a, SYMBUDGET_BYTES), 0);
	assert_int_equal(whole.used[SYMBUDGET_BYTES], 600);
	assert_int_equal(whole.refused[SYMBUDGET_BYTES], 1);
	/* b still has the rest of the whole */
	assert_int_equal(symbudget__left(&b, SYMBUDGET_BYTES), 400);
	assert_true(symbudget__take(&b, SYMBUDGET_BYTES, 400));
	assert_false(symbudget__take(&b, SYMBUDGET_BYTES, 1));
	assert_int_equal(symbudget__left(&whole, SYMBUDGET_BYTES), 0);
	assert_int_equal(whole.refused[SYMBUDGET_BYTES], 2);
	/* a whole without a limit: the shares have none either */
	whole.max[SYMBUDGET_SYMBOLS] = 0;
	symbudget__share(&a, &whole, SYMBUDGET_USER_SHARE);
	assert_int_equal(symbudget__left(&a, SYMBUDGET_SYMBOLS), UINT64_MAX);
}

/* A share's wall time is the whole's. */
static void test_share_expires_with_the_whole(void **state)
{
	struct symbudget whole, a;

	(void)state;
	symbudget__init(&whole);
	symbudget__share(&a, &whole, SYMBUDGET_USER_SHARE);
	assert_false(symbudget__expired(&a)); /* the clock not started */
	whole.max[SYMBUDGET_TIME] = 1;
	symbudget__start(&whole);
	whole.started_ns -= 1000;
	assert_true(symbudget__expired(&a));
	assert_int_equal(whole.refused[SYMBUDGET_TIME], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_charge_and_refuse),
		cmocka_unit_test(test_shares_leave_the_rest_to_others),
		cmocka_unit_test(test_share_expires_with_the_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
