// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_fleet_time.c - UTC times of a store's listing (trapd/fleet/
 * fleet_time.h): ISO 8601 as users and metadata write it (a date, a date
 * and a time with or without seconds, a fraction, 'Z', a space for the
 * 'T'), what it refuses (days a month does not have, garbage, years
 * before 1970, times past what an int64_t of ns holds), days as keys
 * name them (YYYYMMDD) across month and year
 * ends and leap days, and the text a listing prints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trapd/fleet/fleet_time.h"

#define NS 1000000000ll
#define DAY_2026_11_25 1795564800ll /* 2026-11-25T00:00:00Z, seconds */

/* expect_time - @s parses to @want ns. */
static void expect_time(const char *s, int64_t want)
{
	int64_t ns = -1;
	int e = fleet_time__parse_iso(s, &ns);

	if (e)
		fail_msg("'%s': %d, expected %lld", s, e, (long long)want);
	if (ns != want)
		fail_msg("'%s': %lld, expected %lld", s, (long long)ns, (long long)want);
}

/* expect_refused - @s is -EINVAL and leaves *ns alone. */
static void expect_refused(const char *s)
{
	int64_t ns = 42;
	int e = fleet_time__parse_iso(s, &ns);

	if (e != -EINVAL)
		fail_msg("'%s': %d (%lld), expected -EINVAL", s, e, (long long)ns);
	assert_int_equal(ns, 42);
}

static void test_parse_date(void **state)
{
	expect_time("2026-11-25", DAY_2026_11_25 * NS);
	expect_time("2026-11-25Z", DAY_2026_11_25 * NS);
	expect_time("1970-01-01", 0);
	expect_time("2028-02-29", 1835395200ll * NS);
	expect_time("2026-12-31", 1798675200ll * NS);
	expect_time("2100-02-28", 4107456000ll * NS);
}

static void test_parse_date_and_time(void **state)
{
	int64_t at = (DAY_2026_11_25 + 10 * 3600 + 30 * 60) * NS;

	/* without seconds */
	expect_time("2026-11-25T10:30", at);
	expect_time("2026-11-25T10:30Z", at);
	/* with seconds */
	expect_time("2026-11-25T10:30:00", at);
	expect_time("2026-11-25T10:30:15Z", at + 15 * NS);
	expect_time("2026-11-25T00:00:00Z", DAY_2026_11_25 * NS);
	expect_time("2026-11-25T23:59:59Z", (DAY_2026_11_25 + 86399) * NS);
	/* a space for the 'T' */
	expect_time("2026-11-25 10:30", at);
	expect_time("2026-11-25 10:30:15Z", at + 15 * NS);
}

static void test_parse_fraction(void **state)
{
	int64_t at = (DAY_2026_11_25 + 10 * 3600 + 30 * 60) * NS;

	expect_time("2026-11-25T10:30:00.123Z", at + 123000000);
	expect_time("2026-11-25T10:30:00.5", at + 500000000);
	expect_time("2026-11-25T10:30:00.000000001Z", at + 1);
	expect_time("2026-11-25T10:30:00.999999999Z", at + 999999999);
	/* digits past the nanosecond are dropped, not rounded */
	expect_time("2026-11-25T10:30:00.1234567891234Z", at + 123456789);
	/* the sidecar's window.start */
	expect_time("2026-11-22T05:59:20.698Z", 1795327160698000000ll);
}

static void test_parse_refuses_days_that_do_not_exist(void **state)
{
	expect_refused("2026-02-29"); /* not a leap year */
	expect_refused("2026-02-30");
	expect_refused("2026-04-31");
	expect_refused("2026-11-31");
	expect_refused("2100-02-29"); /* a century, not a leap year */
	expect_refused("2026-13-01");
	expect_refused("2026-00-10");
	expect_refused("2026-11-00");
	expect_refused("2026-11-32");
	expect_refused("2026-02-30T10:30:00Z");
}

static void test_parse_refuses_bad_times(void **state)
{
	expect_refused("2026-11-25T24:00");
	expect_refused("2026-11-25T10:60");
	expect_refused("2026-11-25T10:30:61");
	expect_refused("2026-11-25T10");      /* an hour without minutes */
	expect_refused("2026-11-25T");	      /* nothing after the 'T' */
	expect_refused("2026-11-25 ");	      /* nothing after the space */
	expect_refused("2026-11-25T1:30");    /* one digit */
	expect_refused("2026-11-25T10:3");    /* one digit */
	expect_refused("2026-11-25T10:30.5"); /* a fraction without seconds */
	expect_refused("2026-11-25T10:30:00+01:00");
	expect_refused("2026-11-25T10:30:00ZZ");
	expect_refused("2026-11-25t10:30");
	expect_refused("2026-11-25x10:30");
}

static void test_parse_refuses_garbage(void **state)
{
	expect_refused("");
	expect_refused("now");
	expect_refused("2h");
	expect_refused("2026");
	expect_refused("2026-11");
	expect_refused("2026-11-");
	expect_refused("2026/11/25");
	expect_refused("20261125");
	expect_refused("26-11-25");
	expect_refused("2026-1-25");
	expect_refused("2026-11-5");
	expect_refused(" 2026-11-25");
	expect_refused("2026-11-25 junk");
	expect_refused("2026-11-25junk");
	expect_refused("-2026-11-25");
	expect_refused("2026-11-25\n");
}

static void test_parse_refuses_years_before_1970(void **state)
{
	expect_refused("1969-12-31");
	expect_refused("1969-12-31T23:59:59Z");
	expect_refused("0000-01-01");
	expect_refused("1900-01-01");
}

static void test_parse_refuses_times_past_int64_ns(void **state)
{
	/* the last ns an int64_t holds */
	expect_time("2262-04-11T23:47:16.854775807Z", INT64_MAX);
	expect_time("2262-04-11", 9223286400ll * NS);
	expect_refused("2262-04-11T23:47:16.854775808Z");
	expect_refused("2262-04-11T23:47:17Z");
	expect_refused("2262-04-12");
	expect_refused("4052-11-22T05:59:20Z");
	expect_refused("9999-12-31T23:59:59Z");
}

static void test_day(void **state)
{
	assert_int_equal(fleet_time__day(0), 19700101);
	assert_int_equal(fleet_time__day(DAY_2026_11_25 * NS), 20261125);
	assert_int_equal(fleet_time__day((DAY_2026_11_25 + 86399) * NS + 999999999), 20261125);
	assert_int_equal(fleet_time__day((DAY_2026_11_25 + 86400) * NS), 20261126);
	assert_int_equal(fleet_time__day(DAY_2026_11_25 * NS - 1), 20261124);
	assert_int_equal(fleet_time__day(1795327160698296842ll), 20261122);
	assert_int_equal(fleet_time__day(1835395200ll * NS), 20280229);
	assert_int_equal(fleet_time__day(INT64_MAX), 22620411);
}

static void test_day_start(void **state)
{
	assert_int_equal(fleet_time__day_start(19700101), 0);
	assert_int_equal(fleet_time__day_start(20261125), DAY_2026_11_25 * NS);
	assert_int_equal(fleet_time__day_start(20280229), 1835395200ll * NS);
	assert_int_equal(fleet_time__day_start(20270101), 1798761600ll * NS);
	/* a day and its start agree both ways */
	assert_int_equal(fleet_time__day(fleet_time__day_start(20261231)), 20261231);
	assert_int_equal(fleet_time__day(fleet_time__day_start(20280229)), 20280229);
}

static void test_next_day(void **state)
{
	static const int pairs[][2] = {
		{ 20261125, 20261126 },
		{ 20261130, 20261201 }, /* 30-day month */
		{ 20261031, 20261101 }, /* 31-day month */
		{ 20261231, 20270101 }, /* year end */
		{ 20260228, 20260301 }, /* not a leap year */
		{ 20280228, 20280229 }, /* leap year */
		{ 20280229, 20280301 },
		{ 21000228, 21000301 }, /* 2100: no leap day */
		{ 20000228, 20000229 }, /* 2000: a leap day */
		{ 19700101, 19700102 },
		{ 22620411, 22620412 }, /* its ns would not fit an int64_t */
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (fleet_time__next_day(pairs[i][0]) != pairs[i][1])
			fail_msg("next day of %d: %d, expected %d", pairs[i][0],
				 fleet_time__next_day(pairs[i][0]), pairs[i][1]);
}

static void test_walk_days_of_a_leap_year(void **state)
{
	int day = 20280101, n = 0;

	while (day < 20290101) {
		assert_int_equal(fleet_time__day(fleet_time__day_start(day)), day);
		assert_int_equal(fleet_time__day_start(fleet_time__next_day(day)) -
					 fleet_time__day_start(day),
				 86400 * NS);
		day = fleet_time__next_day(day);
		n++;
	}
	assert_int_equal(day, 20290101);
	assert_int_equal(n, 366);
}

static void test_format(void **state)
{
	char buf[32];
	int64_t ns;

	assert_string_equal(fleet_time__format(0, buf, sizeof(buf)), "1970-01-01T00:00:00Z");
	assert_string_equal(fleet_time__format(DAY_2026_11_25 * NS, buf, sizeof(buf)),
			    "2026-11-25T00:00:00Z");
	/* the fraction is cut, not rounded */
	assert_string_equal(fleet_time__format(1795327160698296842ll, buf, sizeof(buf)),
			    "2026-11-22T05:59:20Z");
	assert_string_equal(fleet_time__format(1835395200ll * NS + 86399 * NS, buf, sizeof(buf)),
			    "2028-02-29T23:59:59Z");
	assert_string_equal(fleet_time__format(INT64_MAX, buf, sizeof(buf)),
			    "2262-04-11T23:47:16Z");
	/* returns @buf */
	assert_ptr_equal(fleet_time__format(0, buf, sizeof(buf)), buf);
	/* what it prints parses back to the second */
	assert_int_equal(fleet_time__parse_iso(fleet_time__format(1795327160698296842ll, buf,
								  sizeof(buf)),
					       &ns),
			 0);
	assert_int_equal(ns, 1795327160ll * NS);
}

static void test_format_too_small(void **state)
{
	char small[8], exact[21];

	/* no room for the time: "-", never a cut time */
	assert_string_equal(fleet_time__format(DAY_2026_11_25 * NS, small, sizeof(small)), "-");
	/* just room for the time and its NUL */
	assert_string_equal(fleet_time__format(DAY_2026_11_25 * NS, exact, sizeof(exact)),
			    "2026-11-25T00:00:00Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_date),
		cmocka_unit_test(test_parse_date_and_time),
		cmocka_unit_test(test_parse_fraction),
		cmocka_unit_test(test_parse_refuses_days_that_do_not_exist),
		cmocka_unit_test(test_parse_refuses_bad_times),
		cmocka_unit_test(test_parse_refuses_garbage),
		cmocka_unit_test(test_parse_refuses_years_before_1970),
		cmocka_unit_test(test_parse_refuses_times_past_int64_ns),
		cmocka_unit_test(test_day),
		cmocka_unit_test(test_day_start),
		cmocka_unit_test(test_next_day),
		cmocka_unit_test(test_walk_days_of_a_leap_year),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
