// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_fleet_filter.c - which captures of a store a command wants
 * (trapd/fleet/fleet_filter.h): each command-line option with good and
 * bad values (UTC times and durations before a fixed now, KEY=VALUE
 * labels, empty values, too many values), the pruning of hosts and days
 * from keys alone (inclusive bounds), when matching needs a capture's
 * details, and the match itself: a kind given several times means any
 * of its values (a label key repeated: any of its values), different
 * kinds and different label keys must all hold, the time range is on the
 * capture's start, and a capture nothing describes never matches a
 * filter that needs details.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trapd/fleet/fleet_filter.h"
#include "trapd/fleet/fleet_time.h"

#define NS 1000000000ll
#define HOUR (3600 * NS)
#define DAY (86400 * NS)
/* now: 2026-11-25T12:00:00Z */
#define NOW ((1795564800ll + 12 * 3600) * NS)
/* 2026-11-25T00:00:00Z */
#define DAY_2026_11_25 (1795564800ll * NS)

/* add - fleet_filter__add that must succeed. */
static void add(struct fleet_filter *f, const char *option, const char *value)
{
	char err[256] = "";
	int e = fleet_filter__add(f, option, value, NOW, err, sizeof(err));

	if (e)
		fail_msg("%s '%s': %d (%s)", option, value, e, err);
}

/* add_refused - fleet_filter__add that must fail with a message holding
 * @want. */
static void add_refused(struct fleet_filter *f, const char *option, const char *value,
			const char *want)
{
	char err[256] = "";
	int e = fleet_filter__add(f, option, value, NOW, err, sizeof(err));

	if (e != -EINVAL)
		fail_msg("%s '%s': %d, expected -EINVAL", option, value, e);
	if (!strstr(err, want))
		fail_msg("%s '%s': \"%s\" does not say \"%s\"", option, value, err, want);
}

/* capture - a described capture of @host started at @start_ns. */
static struct fleet_capture capture(const char *host, int64_t start_ns)
{
	struct fleet_capture c;

	memset(&c, 0, sizeof(c));
	snprintf(c.host, sizeof(c.host), "%s", host);
	c.start_ns = start_ns;
	c.day = fleet_time__day(start_ns);
	c.described = true;
	snprintf(c.trigger, sizeof(c.trigger), "rule");
	return c;
}

static void label(struct fleet_capture *c, const char *key, const char *value)
{
	assert_true(c->nlabels < FLEET_LABELS_MAX);
	snprintf(c->labels[c->nlabels].key, sizeof(c->labels[0].key), "%s", key);
	snprintf(c->labels[c->nlabels].value, sizeof(c->labels[0].value), "%s", value);
	c->nlabels++;
}

static void test_add_since_until_iso(void **state)
{
	struct fleet_filter f = { 0 };

	add(&f, "--since", "2026-11-25");
	assert_int_equal(f.since_ns, DAY_2026_11_25);
	add(&f, "--until", "2026-11-25T10:30:00Z");
	assert_int_equal(f.until_ns, DAY_2026_11_25 + 10 * HOUR + 30 * 60 * NS);
	/* given again: the last one holds */
	add(&f, "--since", "2026-11-24 06:00");
	assert_int_equal(f.since_ns, DAY_2026_11_25 - DAY + 6 * HOUR);
}

static void test_add_since_until_durations(void **state)
{
	struct fleet_filter f = { 0 };

	add(&f, "--since", "2h");
	assert_int_equal(f.since_ns, NOW - 2 * HOUR);
	add(&f, "--since", "7d");
	assert_int_equal(f.since_ns, NOW - 7 * DAY);
	add(&f, "--since", "90m");
	assert_int_equal(f.since_ns, NOW - 90 * 60 * NS);
	add(&f, "--until", "30m");
	assert_int_equal(f.until_ns, NOW - 30 * 60 * NS);
}

static void test_add_bad_times(void **state)
{
	struct fleet_filter f = { 0 };

	f.since_ns = 123;
	f.until_ns = 456;
	add_refused(&f, "--since", "yesterday", "--since 'yesterday': expected a UTC time");
	add_refused(&f, "--since", "", "--since");
	add_refused(&f, "--since", "2026-02-30", "2026-02-30");
	add_refused(&f, "--since", "1969-12-31", "1969-12-31");
	add_refused(&f, "--since", "2026-11-25T10:30:00+01:00", "expected a UTC time");
	add_refused(&f, "--since", "-2h", "-2h");
	add_refused(&f, "--since", "0h", "0h");
	add_refused(&f, "--until", "2 h", "--until '2 h'");
	add_refused(&f, "--until", "2x", "duration before now");
	/* longer ago than the epoch */
	add_refused(&f, "--since", "30000d", "30000d");
	/* a refused value changes nothing */
	assert_int_equal(f.since_ns, 123);
	assert_int_equal(f.until_ns, 456);
}

static void test_add_lists(void **state)
{
	struct fleet_filter f = { 0 };

	add(&f, "--host", "web-1");
	add(&f, "--host", "web-2");
	add(&f, "--rule", "web-cpu");
	add(&f, "--trigger", "manual");
	add(&f, "--label", "team=payments");
	add(&f, "--label", "env=prod=really"); /* the value may hold '=' */
	assert_int_equal(f.nhosts, 2);
	assert_string_equal(f.hosts[0], "web-1");
	assert_string_equal(f.hosts[1], "web-2");
	assert_int_equal(f.nrules, 1);
	assert_string_equal(f.rules[0], "web-cpu");
	assert_int_equal(f.ntriggers, 1);
	assert_string_equal(f.triggers[0], "manual");
	assert_int_equal(f.nlabels, 2);
	assert_string_equal(f.labels[0], "team=payments");
	assert_string_equal(f.labels[1], "env=prod=really");
	assert_int_equal(f.since_ns, 0);
	assert_int_equal(f.until_ns, 0);
}

static void test_add_label_needs_key_and_equals(void **state)
{
	struct fleet_filter f = { 0 };

	add_refused(&f, "--label", "team", "--label 'team': expected KEY=VALUE");
	add_refused(&f, "--label", "=payments", "--label '=payments': expected KEY=VALUE");
	add_refused(&f, "--label", "", "expected KEY=VALUE");
	assert_int_equal(f.nlabels, 0);
}

static void test_add_empty_value(void **state)
{
	struct fleet_filter f = { 0 };

	add_refused(&f, "--host", "", "--host: an empty value");
	add_refused(&f, "--rule", "", "--rule: an empty value");
	add_refused(&f, "--trigger", "", "--trigger: an empty value");
	assert_int_equal(f.nhosts + f.nrules + f.ntriggers, 0);
}

static void test_add_too_many(void **state)
{
	static const char *const options[] = { "--host", "--rule", "--trigger", "--label" };
	struct fleet_filter f = { 0 };
	size_t i, k;

	for (k = 0; k < sizeof(options) / sizeof(options[0]); k++) {
		for (i = 0; i < FLEET_FILTER_MAX; i++)
			add(&f, options[k], "a=b");
		add_refused(&f, options[k], "a=b", "at most 32");
	}
	assert_int_equal(f.nhosts, FLEET_FILTER_MAX);
	assert_int_equal(f.nrules, FLEET_FILTER_MAX);
	assert_int_equal(f.ntriggers, FLEET_FILTER_MAX);
	assert_int_equal(f.nlabels, FLEET_FILTER_MAX);
}

static void test_add_unknown_option(void **state)
{
	struct fleet_filter f = { 0 };

	add_refused(&f, "--hosts", "web-1", "--hosts: not a filter");
	add_refused(&f, "host", "web-1", "not a filter");
	add_refused(&f, "", "web-1", "not a filter");
	assert_int_equal(f.nhosts, 0);
}

static void test_host(void **state)
{
	struct fleet_filter f = { 0 };

	/* no --host: every host */
	assert_true(fleet_filter__host(&f, "web-1"));
	assert_true(fleet_filter__host(&f, ""));
	add(&f, "--host", "web-1");
	add(&f, "--host", "db");
	assert_true(fleet_filter__host(&f, "web-1"));
	assert_true(fleet_filter__host(&f, "db"));
	assert_false(fleet_filter__host(&f, "web-2"));
	assert_false(fleet_filter__host(&f, "web")); /* a prefix is another host */
	assert_false(fleet_filter__host(&f, "web-10"));
	assert_false(fleet_filter__host(&f, "DB"));
}

static void test_day(void **state)
{
	struct fleet_filter f = { 0 };

	assert_true(fleet_filter__day(&f, 19700101));
	assert_true(fleet_filter__day(&f, 20261125));
	/* since in the middle of the 25th: that day may still hold some */
	add(&f, "--since", "2026-11-25T10:30:00Z");
	assert_false(fleet_filter__day(&f, 20261124));
	assert_false(fleet_filter__day(&f, 20251231));
	assert_true(fleet_filter__day(&f, 20261125));
	assert_true(fleet_filter__day(&f, 20261126));
	assert_true(fleet_filter__day(&f, 20301231));
	/* until the first instant of the 27th: that day too, not the 28th */
	add(&f, "--until", "2026-11-27");
	assert_true(fleet_filter__day(&f, 20261125));
	assert_true(fleet_filter__day(&f, 20261127));
	assert_false(fleet_filter__day(&f, 20261128));
	assert_false(fleet_filter__day(&f, 20270101));
	assert_false(fleet_filter__day(&f, 20261124));
}

static void test_day_until_only(void **state)
{
	struct fleet_filter f = { 0 };

	add(&f, "--until", "2026-12-31T23:59:59Z");
	assert_true(fleet_filter__day(&f, 19700101));
	assert_true(fleet_filter__day(&f, 20261231));
	assert_false(fleet_filter__day(&f, 20270101));
}

static void test_day_durations(void **state)
{
	struct fleet_filter f = { 0 };

	/* now is 2026-11-25T12:00: two days ago is the 23rd at noon */
	add(&f, "--since", "2d");
	assert_false(fleet_filter__day(&f, 20261122));
	assert_true(fleet_filter__day(&f, 20261123));
	assert_true(fleet_filter__day(&f, 20261125));
}

static void test_needs_details(void **state)
{
	struct fleet_filter f = { 0 };

	assert_false(fleet_filter__needs_details(&f));
	add(&f, "--host", "web-1");
	assert_false(fleet_filter__needs_details(&f));

	/* a start at midnight and no end: the keys' days answer it */
	memset(&f, 0, sizeof(f));
	add(&f, "--since", "2026-11-25");
	assert_false(fleet_filter__needs_details(&f));
	memset(&f, 0, sizeof(f));
	add(&f, "--since", "2026-11-25T10:00Z");
	assert_true(fleet_filter__needs_details(&f));
	memset(&f, 0, sizeof(f));
	add(&f, "--since", "2026-11-25");
	add(&f, "--until", "2026-11-26");
	assert_true(fleet_filter__needs_details(&f));
	memset(&f, 0, sizeof(f));
	add(&f, "--until", "2h");
	assert_true(fleet_filter__needs_details(&f));
	memset(&f, 0, sizeof(f));
	add(&f, "--rule", "web-cpu");
	assert_true(fleet_filter__needs_details(&f));
	memset(&f, 0, sizeof(f));
	add(&f, "--label", "team=payments");
	assert_true(fleet_filter__needs_details(&f));
	memset(&f, 0, sizeof(f));
	add(&f, "--trigger", "manual");
	assert_true(fleet_filter__needs_details(&f));
}

static void test_match_everything_without_filters(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c = capture("web-1", DAY_2026_11_25);

	assert_true(fleet_filter__match(&f, &c));
	/* nothing to look at but the key: an undescribed capture is wanted */
	c.described = false;
	assert_true(fleet_filter__match(&f, &c));
}

static void test_match_hosts_any_of(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture a = capture("web-1", DAY_2026_11_25),
			     b = capture("web-2", DAY_2026_11_25),
			     d = capture("db", DAY_2026_11_25);

	add(&f, "--host", "web-1");
	add(&f, "--host", "web-2");
	assert_true(fleet_filter__match(&f, &a));
	assert_true(fleet_filter__match(&f, &b));
	assert_false(fleet_filter__match(&f, &d));
	/* hosts alone need no details */
	a.described = false;
	d.described = false;
	assert_true(fleet_filter__match(&f, &a));
	assert_false(fleet_filter__match(&f, &d));
}

static void test_match_rules_any_of(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c = capture("web-1", DAY_2026_11_25);

	snprintf(c.rules, sizeof(c.rules), "web-cpu,host-pressure,idle-worker");
	add(&f, "--rule", "host-pressure");
	assert_true(fleet_filter__match(&f, &c));

	memset(&f, 0, sizeof(f));
	add(&f, "--rule", "other");
	assert_false(fleet_filter__match(&f, &c));
	add(&f, "--rule", "idle-worker");
	assert_true(fleet_filter__match(&f, &c));

	/* a rule that is a prefix or a part of one of the capture's: no */
	memset(&f, 0, sizeof(f));
	add(&f, "--rule", "web");
	assert_false(fleet_filter__match(&f, &c));
	memset(&f, 0, sizeof(f));
	add(&f, "--rule", "cpu");
	assert_false(fleet_filter__match(&f, &c));
	memset(&f, 0, sizeof(f));
	add(&f, "--rule", "web-cpu,host-pressure");
	assert_false(fleet_filter__match(&f, &c));

	/* a capture no rule fired */
	memset(&f, 0, sizeof(f));
	add(&f, "--rule", "web-cpu");
	c.rules[0] = '\0';
	assert_false(fleet_filter__match(&f, &c));
}

static void test_match_labels(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c;

	/* the same key twice: either value; another key: it must hold too */
	add(&f, "--label", "team=payments");
	add(&f, "--label", "env=prod");
	add(&f, "--label", "team=search");

	c = capture("web-1", DAY_2026_11_25);
	label(&c, "env", "prod");
	label(&c, "team", "search");
	assert_true(fleet_filter__match(&f, &c));

	c = capture("web-1", DAY_2026_11_25);
	label(&c, "team", "payments");
	label(&c, "env", "prod");
	assert_true(fleet_filter__match(&f, &c));

	c = capture("web-1", DAY_2026_11_25);
	label(&c, "team", "payments");
	label(&c, "env", "staging");
	assert_false(fleet_filter__match(&f, &c));

	c = capture("web-1", DAY_2026_11_25);
	label(&c, "team", "infra");
	label(&c, "env", "prod");
	assert_false(fleet_filter__match(&f, &c));

	/* a key the capture does not have */
	c = capture("web-1", DAY_2026_11_25);
	label(&c, "env", "prod");
	assert_false(fleet_filter__match(&f, &c));

	c = capture("web-1", DAY_2026_11_25);
	assert_false(fleet_filter__match(&f, &c));
}

static void test_match_labels_keys_and_values_exact(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c = capture("web-1", DAY_2026_11_25);

	add(&f, "--label", "team=pay");
	label(&c, "team", "payments");
	label(&c, "teams", "pay");
	label(&c, "tea", "pay");
	assert_false(fleet_filter__match(&f, &c));

	/* "tea" and "team" are different keys: both must hold */
	memset(&f, 0, sizeof(f));
	add(&f, "--label", "team=payments");
	add(&f, "--label", "tea=pay");
	assert_true(fleet_filter__match(&f, &c));
	add(&f, "--label", "te=x");
	assert_false(fleet_filter__match(&f, &c));

	/* values with spaces and '=' */
	memset(&f, 0, sizeof(f));
	c = capture("web-1", DAY_2026_11_25);
	label(&c, "team", "payments core");
	label(&c, "expr", "a=b");
	add(&f, "--label", "team=payments core");
	add(&f, "--label", "expr=a=b");
	assert_true(fleet_filter__match(&f, &c));
}

static void test_match_triggers(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c = capture("web-1", DAY_2026_11_25);

	add(&f, "--trigger", "manual");
	assert_false(fleet_filter__match(&f, &c));
	add(&f, "--trigger", "rule");
	assert_true(fleet_filter__match(&f, &c));
	snprintf(c.trigger, sizeof(c.trigger), "manual");
	assert_true(fleet_filter__match(&f, &c));
	c.trigger[0] = '\0';
	assert_false(fleet_filter__match(&f, &c));
}

static void test_match_time_range_on_start(void **state)
{
	struct fleet_filter f = { 0 };
	int64_t since = DAY_2026_11_25 + 10 * HOUR, until = DAY_2026_11_25 + 11 * HOUR;
	struct fleet_capture c = capture("web-1", since);

	add(&f, "--since", "2026-11-25T10:00:00Z");
	add(&f, "--until", "2026-11-25T11:00:00Z");
	/* both bounds inclusive */
	assert_true(fleet_filter__match(&f, &c));
	c.start_ns = until;
	assert_true(fleet_filter__match(&f, &c));
	c.start_ns = since + 30 * 60 * NS;
	assert_true(fleet_filter__match(&f, &c));
	/* the same day, outside the range */
	c.start_ns = since - 1;
	assert_false(fleet_filter__match(&f, &c));
	c.start_ns = until + 1;
	assert_false(fleet_filter__match(&f, &c));
	/* the day from the key prunes too, whatever the start says */
	c.start_ns = since;
	c.day = 20261124;
	assert_false(fleet_filter__match(&f, &c));
}

static void test_match_since_duration(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c = capture("web-1", NOW - HOUR);

	add(&f, "--since", "2h");
	assert_true(fleet_filter__match(&f, &c));
	c = capture("web-1", NOW - 3 * HOUR);
	assert_false(fleet_filter__match(&f, &c));
}

static void test_match_undescribed_when_details_needed(void **state)
{
	static const char *const filters[][2] = {
		{ "--rule", "web-cpu" },     { "--label", "team=payments" },
		{ "--trigger", "rule" },     { "--since", "2026-11-25T00:30Z" },
		{ "--until", "2026-11-26" },
	};
	struct fleet_capture c = capture("web-1", DAY_2026_11_25 + HOUR);
	struct fleet_filter f;
	size_t i;

	snprintf(c.rules, sizeof(c.rules), "web-cpu");
	label(&c, "team", "payments");
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		memset(&f, 0, sizeof(f));
		add(&f, filters[i][0], filters[i][1]);
		c.described = true;
		if (!fleet_filter__match(&f, &c))
			fail_msg("%s %s: a described capture left out", filters[i][0],
				 filters[i][1]);
		c.described = false;
		if (fleet_filter__match(&f, &c))
			fail_msg("%s %s: an undescribed capture matched", filters[i][0],
				 filters[i][1]);
	}
}

static void test_match_all_kinds_must_hold(void **state)
{
	struct fleet_filter f = { 0 };
	struct fleet_capture c = capture("web-1", DAY_2026_11_25 + HOUR);

	snprintf(c.rules, sizeof(c.rules), "web-cpu,host-pressure");
	label(&c, "team", "payments");
	add(&f, "--host", "web-1");
	add(&f, "--rule", "web-cpu");
	add(&f, "--label", "team=payments");
	add(&f, "--trigger", "rule");
	add(&f, "--since", "2026-11-25");
	assert_true(fleet_filter__match(&f, &c));

	snprintf(c.host, sizeof(c.host), "web-2");
	assert_false(fleet_filter__match(&f, &c));
	snprintf(c.host, sizeof(c.host), "web-1");
	snprintf(c.trigger, sizeof(c.trigger), "manual");
	assert_false(fleet_filter__match(&f, &c));
	snprintf(c.trigger, sizeof(c.trigger), "rule");
	snprintf(c.rules, sizeof(c.rules), "host-pressure");
	assert_false(fleet_filter__match(&f, &c));
	snprintf(c.rules, sizeof(c.rules), "web-cpu");
	snprintf(c.labels[0].value, sizeof(c.labels[0].value), "search");
	assert_false(fleet_filter__match(&f, &c));
	snprintf(c.labels[0].value, sizeof(c.labels[0].value), "payments");
	assert_true(fleet_filter__match(&f, &c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_since_until_iso),
		cmocka_unit_test(test_add_since_until_durations),
		cmocka_unit_test(test_add_bad_times),
		cmocka_unit_test(test_add_lists),
		cmocka_unit_test(test_add_label_needs_key_and_equals),
		cmocka_unit_test(test_add_empty_value),
		cmocka_unit_test(test_add_too_many),
		cmocka_unit_test(test_add_unknown_option),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_day),
		cmocka_unit_test(test_day_until_only),
		cmocka_unit_test(test_day_durations),
		cmocka_unit_test(test_needs_details),
		cmocka_unit_test(test_match_everything_without_filters),
		cmocka_unit_test(test_match_hosts_any_of),
		cmocka_unit_test(test_match_rules_any_of),
		cmocka_unit_test(test_match_labels),
		cmocka_unit_test(test_match_labels_keys_and_values_exact),
		cmocka_unit_test(test_match_triggers),
		cmocka_unit_test(test_match_time_range_on_start),
		cmocka_unit_test(test_match_since_duration),
		cmocka_unit_test(test_match_undescribed_when_details_needed),
		cmocka_unit_test(test_match_all_kinds_must_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
