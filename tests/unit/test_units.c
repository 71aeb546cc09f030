// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_units.c - durations, frequencies, percentages, sizes and rates as
 * people write them, and everything else refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "rules/units.h"

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} ok[] = {
		{ "500ms", 500000000ull },
		{ "10s", 10000000000ull },
		{ "2m", 120000000000ull },
		{ "1h", 3600000000000ull },
		{ "250us", 250000ull },
		{ "1.5s", 1500000000ull },
		{ "3", 3000000000ull },
		{ "7ns", 7 },
		{ "1d", 86400000000000ull },
		{ "2min", 120000000000ull },
		{ ".5s", 500000000ull },
		{ "2.", 2000000000ull },
		/* exact where a double would not be: the fuzzer's find */
		{ "141875.2m", 8512512000000000ull },
		{ "1.000000001s", 1000000001ull },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(units_parse_duration(ok[i].in, &v), 0);
		assert_int_equal(v, ok[i].ns);
	}
}

static void test_bad_durations_leave_output_alone(void **state)
{
	static const char *const bad[] = { "",	   "ten",  "10 s", " 10s", "10S", "-1s", "0s", "1e",
					   "0x10", "10ss", "nan",  "inf",  "+5s", "5s ", NULL };
	uint64_t v = 42;
	int i;

	for (i = 0; bad[i]; i++) {
		assert_int_equal(units_parse_duration(bad[i], &v), -EINVAL);
		assert_int_equal(v, 42);
	}
	assert_int_equal(units_parse_duration(NULL, &v), -EINVAL);
	assert_int_equal(units_parse_duration("1e3s", &v), -EINVAL);
	assert_int_equal(units_parse_duration(".s", &v), -EINVAL);
	assert_int_equal(units_parse_duration("99999999999999999999s", &v), -ERANGE);
	assert_int_equal(units_parse_duration("18446744073709551616ns", &v), -ERANGE);
	assert_int_equal(v, 42);
}

static void test_frequencies(void **state)
{
	uint64_t v;

	assert_int_equal(units_parse_frequency("99", 100000, &v), 0);
	assert_int_equal(v, 99);
	assert_int_equal(units_parse_frequency("999Hz", 100000, &v), 0);
	assert_int_equal(v, 999);
	assert_int_equal(units_parse_frequency("999hz", 100000, &v), 0);
	assert_int_equal(units_parse_frequency("1kHz", 100000, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(units_parse_frequency("0", 100000, &v), -EINVAL);
	assert_int_equal(units_parse_frequency("99.5", 100000, &v), -EINVAL);
	assert_int_equal(units_parse_frequency("10MHz", 100000, &v), -EINVAL);
	assert_int_equal(units_parse_frequency("200kHz", 100000, &v), -ERANGE);
}

static void test_percent_and_sizes(void **state)
{
	uint64_t v;

	assert_int_equal(units_parse_percent("80%", &v), 0);
	assert_int_equal(v, 8000);
	assert_int_equal(units_parse_percent("12.5%", &v), 0);
	assert_int_equal(v, 1250);
	assert_int_equal(units_parse_percent("80", &v), 0);
	assert_int_equal(v, 8000);
	assert_int_equal(units_parse_percent("80 %", &v), -EINVAL);
	assert_int_equal(units_parse_size("512MiB", &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(units_parse_size("64KiB", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(units_parse_size("1MB", &v), 0);
	assert_int_equal(v, 1000000);
	assert_int_equal(units_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(units_parse_size("1.5B", &v), -EINVAL);
	assert_int_equal(units_parse_size("12 GiB", &v), -EINVAL);
}

static void test_rates(void **state)
{
	static const struct {
		const char *in;
		uint64_t milli;
	} ok[] = {
		{ "5/s", 5000 },
		{ "0.5/s", 500 },
		{ "5", 5000 },
		{ "2.5", 2500 },
		{ "0.125/s", 125 },
		{ "0/s", 0 },
		{ "0", 0 },
		{ ".001/s", 1 },
		{ "1000000/s", 1000000000ull },
		{ "18446744073709551.615/s", UINT64_MAX },
	};
	static const char *const bad[] = { "",	 "5 /s", "5/S",	     "5/sec",  "-5/s",
					   "5/", "/s",	 "0.0005/s", "1.2345", "5/s ",
					   " 5", "1e3",	 "5/m",	     NULL };
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(units_parse_rate(ok[i].in, &v), 0);
		assert_int_equal(v, ok[i].milli);
	}
	for (i = 0; bad[i]; i++) {
		v = 42;
		assert_int_equal(units_parse_rate(bad[i], &v), -EINVAL);
		assert_int_equal(v, 42);
	}
	assert_int_equal(units_parse_rate(NULL, &v), -EINVAL);
	assert_int_equal(units_parse_rate("18446744073709552/s", &v), -ERANGE);
	assert_int_equal(v, 42);
}

static void test_formatted_durations_read_back(void **state)
{
	static const uint64_t cases[] = { 500000000ull,
					  10000000000ull,
					  120000000000ull,
					  1500000000ull,
					  250000ull,
					  3600000000000ull,
					  7 };
	char buf[32];
	uint64_t v;
	size_t i;

	assert_string_equal(units_format_duration(1500000000ull, buf, sizeof(buf)), "1.5s");
	assert_string_equal(units_format_duration(120000000000ull, buf, sizeof(buf)), "2m");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_format_duration(cases[i], buf, sizeof(buf));
		assert_int_equal(units_parse_duration(buf, &v), 0);
		assert_int_equal(v, cases[i]);
	}
}

static void test_short_durations(void **state)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0ns" },
		{ 980, "980ns" },
		{ 999, "999ns" },
		{ 1000, "1us" },
		{ 12345, "12.3us" },
		{ 4560000, "4.56ms" },
		{ 4565000, "4.57ms" },
		{ 1200000000, "1.2s" },
		{ 250000, "250us" },
		{ 1500000, "1.5ms" },
		{ 999600, "1ms" },
		{ 9996, "10us" },
		{ 59996000000ull, "1m" },
		{ 90000000000ull, "1.5m" },
		{ 3600000000000ull, "1h" },
		{ 1ull << 39, "9.16m" },
		{ UINT64_MAX, "5124096h" },
	};
	char buf[UNITS_DURATION_SHORT_LEN];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(units_format_duration_short(cases[i].ns, buf, sizeof(buf)),
				    cases[i].text);
	assert_string_equal(units_format_duration_short(12345, buf, 3), "12");
	assert_ptr_equal(units_format_duration_short(1, buf, 0), buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_bad_durations_leave_output_alone),
		cmocka_unit_test(test_frequencies),
		cmocka_unit_test(test_percent_and_sizes),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_formatted_durations_read_back),
		cmocka_unit_test(test_short_durations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
