// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_did_you_mean.c - the word a user most likely meant. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "rules/did_you_mean.h"

static const char *meant(const char *typed, const char *const *words)
{
	struct did_you_mean d;

	did_you_mean__init(&d, typed);
	for (; *words; words++)
		did_you_mean__offer(&d, *words);
	return did_you_mean__best(&d);
}

static void test_distance(void **state)
{
	char long_word[DID_YOU_MEAN_MAX_LEN + 2];

	(void)state;
	assert_int_equal(did_you_mean__distance("", ""), 0);
	assert_int_equal(did_you_mean__distance("above", "above"), 0);
	assert_int_equal(did_you_mean__distance("abov", "above"), 1);	/* dropped */
	assert_int_equal(did_you_mean__distance("abovee", "above"), 1); /* added */
	assert_int_equal(did_you_mean__distance("abuve", "above"), 1);	/* changed */
	assert_int_equal(did_you_mean__distance("abvoe", "above"), 1);	/* swapped */
	assert_int_equal(did_you_mean__distance("durration", "duration"), 1);
	assert_int_equal(did_you_mean__distance("kitten", "sitting"), 3);
	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	assert_int_equal(did_you_mean__distance(long_word, "a"), DID_YOU_MEAN_MAX_LEN + 1);
}

static void test_best(void **state)
{
	static const char *const keys[] = { "poll_interval", "above",	 "below",
					    "for",	     "cooldown", NULL };
	static const char *const cmds[] = { "capture", "captures", "report", "top", NULL };

	(void)state;
	assert_string_equal(meant("poll_intervall", keys), "poll_interval");
	assert_string_equal(meant("abov", keys), "above");
	assert_string_equal(meant("colldown", keys), "cooldown");
	assert_string_equal(meant("captur", cmds), "capture");
	assert_string_equal(meant("repot", cmds), "report");
	/* exact, far, or as close to two: no suggestion */
	assert_null(meant("above", keys));
	assert_null(meant("threshold", keys));
	assert_string_equal(meant("fo", keys), "for");
	assert_null(meant("bxlow", (const char *const[]){ "below", "bylow", NULL }));
	/* a short word takes one edit at most */
	assert_null(meant("tip", (const char *const[]){ "top", "tap", NULL }));
	assert_null(meant("tpx", (const char *const[]){ "tap", NULL }));
	assert_string_equal(meant("tpo", (const char *const[]){ "top", NULL }), "top");
	assert_null(meant("xyz", cmds));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
