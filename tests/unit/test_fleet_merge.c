// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_fleet_merge.c - the groups `trapd merge` sums captures into
 * (trapd/fleet/fleet_merge.h): --group-by keys parsed, a capture's group
 * names for one key and for several (one group per combination: a capture
 * two rules fired into is in both rules' groups), "(none)" for a missing
 * value, and a group's file name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trapd/fleet/fleet_merge.h"

static struct fleet_capture capture(const char *host, const char *rules, const char *role)
{
	struct fleet_capture c = { 0 };

	snprintf(c.host, sizeof(c.host), "%s", host);
	snprintf(c.rules, sizeof(c.rules), "%s", rules);
	snprintf(c.trigger, sizeof(c.trigger), "%s", *rules ? "rule" : "manual");
	c.day = 20261125;
	if (role) {
		snprintf(c.labels[0].key, sizeof(c.labels[0].key), "role");
		snprintf(c.labels[0].value, sizeof(c.labels[0].value), "%s", role);
		c.nlabels = 1;
	}
	return c;
}

static struct fleet_group_key key(const char *s)
{
	struct fleet_group_key k;
	char err[128];

	if (fleet_group_key__parse(s, &k, err, sizeof(err)))
		fail_msg("%s: %s", s, err);
	return k;
}

static void test_group_keys_parsed(void **state)
{
	struct fleet_group_key k;
	char err[128];

	assert_int_equal(fleet_group_key__parse("host", &k, err, sizeof(err)), 0);
	assert_int_equal(k.kind, FLEET_GROUP_HOST);
	assert_int_equal(fleet_group_key__parse("label:role", &k, err, sizeof(err)), 0);
	assert_int_equal(k.kind, FLEET_GROUP_LABEL);
	assert_string_equal(k.label, "role");
	assert_int_equal(fleet_group_key__parse("label:", &k, err, sizeof(err)), -EINVAL);
	assert_int_equal(fleet_group_key__parse("Host", &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected host, rule, day, trigger or label:KEY"));
}

static void test_no_key_is_one_group(void **state)
{
	struct fleet_capture c = capture("web-1", "cpu", "web");
	char names[4][FLEET_GROUP_NAME_MAX];

	assert_int_equal(fleet_merge__groups(&c, NULL, 0, names, 4), 1);
	assert_string_equal(names[0], "all");
}

static void test_one_key_each_kind(void **state)
{
	struct fleet_capture c = capture("web-1", "cpu", "web");
	char names[4][FLEET_GROUP_NAME_MAX];
	struct fleet_group_key k;

	k = key("host");
	assert_int_equal(fleet_merge__groups(&c, &k, 1, names, 4), 1);
	assert_string_equal(names[0], "host=web-1");
	k = key("day");
	assert_int_equal(fleet_merge__groups(&c, &k, 1, names, 4), 1);
	assert_string_equal(names[0], "day=2026-11-25");
	k = key("trigger");
	assert_int_equal(fleet_merge__groups(&c, &k, 1, names, 4), 1);
	assert_string_equal(names[0], "trigger=rule");
	k = key("label:role");
	assert_int_equal(fleet_merge__groups(&c, &k, 1, names, 4), 1);
	assert_string_equal(names[0], "label:role=web");
}

static void test_missing_value_is_none(void **state)
{
	struct fleet_capture c = capture("web-1", "", NULL);
	char names[4][FLEET_GROUP_NAME_MAX];
	struct fleet_group_key k = key("label:role");

	assert_int_equal(fleet_merge__groups(&c, &k, 1, names, 4), 1);
	assert_string_equal(names[0], "label:role=(none)");
	k = key("rule");
	assert_int_equal(fleet_merge__groups(&c, &k, 1, names, 4), 1);
	assert_string_equal(names[0], "rule=(none)");
}

/* Two rules and two keys: one group per combination, each once. */
static void test_rules_make_a_group_each_combined(void **state)
{
	struct fleet_capture c = capture("db-1", "cpu-high,psi-cpu", "db");
	char names[8][FLEET_GROUP_NAME_MAX];
	struct fleet_group_key k[2] = { key("rule"), key("host") };

	assert_int_equal(fleet_merge__groups(&c, k, 2, names, 8), 2);
	assert_string_equal(names[0], "rule=cpu-high,host=db-1");
	assert_string_equal(names[1], "rule=psi-cpu,host=db-1");
	k[0] = key("host");
	k[1] = key("rule");
	assert_int_equal(fleet_merge__groups(&c, k, 2, names, 8), 2);
	assert_string_equal(names[0], "host=db-1,rule=cpu-high");
	assert_string_equal(names[1], "host=db-1,rule=psi-cpu");
	/* never more than asked for */
	assert_int_equal(fleet_merge__groups(&c, k, 2, names, 1), 1);
}

static void test_file_name(void **state)
{
	char out[64];

	fleet_merge__file_name("label:role=db,day=2026-11-25", out, sizeof(out));
	assert_string_equal(out, "label-role-db_day-2026-11-25");
	fleet_merge__file_name("host=../../etc/x y", out, sizeof(out));
	assert_null(strchr(out, '/'));
	assert_string_equal(out, "host-.._.._etc_x_y");
	fleet_merge__file_name("rule=abcdefghij", out, 8);
	assert_string_equal(out, "rule-ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_keys_parsed),
		cmocka_unit_test(test_no_key_is_one_group),
		cmocka_unit_test(test_one_key_each_kind),
		cmocka_unit_test(test_missing_value_is_none),
		cmocka_unit_test(test_rules_make_a_group_each_combined),
		cmocka_unit_test(test_file_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
