// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_upload_object.c - object keys and metadata (upload/object.h): the
 * key of a spool capture (date from its name, the host made a safe path
 * component), metadata names made canonical, values made safe for every
 * store within S3's limits, and the header each store's style spells.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "upload/object.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define NAME "20261122T061328Z-web-1a2b.pb.zst"

static void test_key_date_path_from_spool_name(void **state)
{
	char key[UPLOAD_KEY_MAX];

	assert_int_equal(upload_object_key("web-1.example.com", NAME, SHA, ".pb.zst", key,
					   sizeof(key)),
			 0);
	assert_string_equal(key, "web-1.example.com/2026/11/22/" SHA ".pb.zst");
	assert_int_equal(upload_object_key("db_2", "20270101T000000Z-manual-x.json", SHA, ".json",
					   key, sizeof(key)),
			 0);
	assert_string_equal(key, "db_2/2027/01/01/" SHA ".json");
	/* no host: a word, never an empty path component */
	assert_int_equal(upload_object_key("", NAME, SHA, ".pb.zst", key, sizeof(key)), 0);
	assert_string_equal(key, "unknown/2026/11/22/" SHA ".pb.zst");
}

static void test_key_host_sanitised(void **state)
{
	static const struct {
		const char *host, *first;
	} cases[] = {
		{ "a/b", "a_b" },
		{ "../etc", "_._etc" },
		{ "..", "_." },
		{ ".", "_" },
		{ ".hidden", "_hidden" },
		{ "h\xc3\xa9te", "h__te" },
		{ "a b\tc", "a_b_c" },
		{ "x:y@z?q#f%", "x_y_z_q_f_" },
		{ "ok.host-name_1", "ok.host-name_1" },
	};
	char key[UPLOAD_KEY_MAX], *slash;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(upload_object_key(cases[i].host, NAME, SHA, ".pb.zst", key,
						   sizeof(key)),
				 0);
		slash = strchr(key, '/');
		assert_non_null(slash);
		*slash = '\0';
		if (strcmp(key, cases[i].first))
			fail_msg("host '%s': first component '%s', expected '%s'", cases[i].host,
				 key, cases[i].first);
		/* never a component that walks the store's tree */
		assert_string_not_equal(key, ".");
		assert_string_not_equal(key, "..");
		assert_true(key[0] != '.');
		assert_string_equal(slash + 1, "2026/11/22/" SHA ".pb.zst");
	}
}

static void test_key_long_host_stays_one_component(void **state)
{
	char host[600], key[UPLOAD_KEY_MAX];
	size_t first;

	memset(host, 'h', sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	assert_int_equal(upload_object_key(host, NAME, SHA, ".pb.zst", key, sizeof(key)), 0);
	first = strcspn(key, "/");
	assert_true(first > 0 && first <= 255); /* NAME_MAX: a file:// store can hold it */
	assert_string_equal(key + first, "/2026/11/22/" SHA ".pb.zst");
}

static void test_key_too_long(void **state)
{
	char key[UPLOAD_KEY_MAX];
	size_t want = strlen("web/2026/11/22/" SHA ".pb.zst");

	assert_int_equal(upload_object_key("web", NAME, SHA, ".pb.zst", key, want), -ENAMETOOLONG);
	assert_int_equal(upload_object_key("web", NAME, SHA, ".pb.zst", key, want + 1), 0);
	assert_int_equal(strlen(key), want);
}

static void test_key_rejects_names_not_from_the_spool(void **state)
{
	static const char *const bad[] = {
		"",
		"notes.txt",
		"2026112T061328Z-x.pb.zst",  /* seven digits */
		"20261122-061328Z-x.pb.zst", /* no T */
		"2026-11-22T061328Z-x.pb.zst",
		"x20261122T061328Z.pb.zst",
		"../20261122T061328Z-x.pb.zst",
		"2026112",
	};
	char key[UPLOAD_KEY_MAX];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (upload_object_key("web", bad[i], SHA, ".pb.zst", key, sizeof(key)) != -EINVAL)
			fail_msg("'%s' taken as a spool name", bad[i]);
}

static void expect_name(const char *in, const char *want)
{
	struct upload_meta m;
	int e = upload_meta__name(in, m.name, sizeof(m.name));

	if (e)
		fail_msg("upload_meta__name('%s') = %d, expected '%s'", in, e, want);
	if (strcmp(m.name, want))
		fail_msg("upload_meta__name('%s') = '%s', expected '%s'", in, m.name, want);
}

static void test_meta_name(void **state)
{
	struct upload_meta m;
	char long_in[128];

	expect_name("team.name", "team_name");
	expect_name("Team-Name", "team_name");
	expect_name("trapd_host", "trapd_host"); /* canonical names stay */
	expect_name("a..--//b", "a_b");
	expect_name("a__b", "a_b");
	expect_name("...lead", "lead");
	expect_name("trail...", "trail");
	expect_name("1st", "_1st");
	expect_name("42", "_42");
	expect_name("caf\xc3\xa9 au lait", "caf_au_lait");
	expect_name("\xff\xfex", "x");
	expect_name("A1.B2", "a1_b2");

	assert_int_equal(upload_meta__name("", m.name, sizeof(m.name)), -EINVAL);
	assert_int_equal(upload_meta__name("...", m.name, sizeof(m.name)), -EINVAL);
	assert_int_equal(upload_meta__name("\xc3\xa9", m.name, sizeof(m.name)), -EINVAL);

	/* 63 characters fit struct upload_meta's name, 64 do not */
	memset(long_in, 'a', 63);
	long_in[63] = '\0';
	expect_name(long_in, long_in);
	long_in[63] = 'a';
	long_in[64] = '\0';
	assert_int_equal(upload_meta__name(long_in, m.name, sizeof(m.name)), -EINVAL);
	/* the '_' before a leading digit counts */
	long_in[0] = '1';
	long_in[63] = '\0';
	assert_int_equal(upload_meta__name(long_in, m.name, sizeof(m.name)), -EINVAL);
}

/* A name whose first letter or digit comes after punctuation must not
 * start with a digit either (Azure metadata names are C identifiers), and
 * a canonical name is its own canonical form, so upload_meta__add takes
 * what upload_meta__name made of "1x". */
static void test_meta_name_digit_after_punctuation(void **state)
{
	struct upload_meta meta[1], m;
	size_t n = 0;

	expect_name(".1x", "_1x");
	expect_name("--9lives", "_9lives");
	expect_name("\303\2512", "_2"); /* "é2" */
	assert_int_equal(upload_meta__name("1x", m.name, sizeof(m.name)), 0);
	assert_string_equal(m.name, "_1x");
	expect_name(m.name, "_1x");
	assert_int_equal(upload_meta__add(meta, &n, 1, m.name, "v"), 0);
	assert_int_equal(n, 1);
}

static void test_meta_add_value_made_safe(void **state)
{
	struct upload_meta meta[8];
	size_t n = 0;

	assert_int_equal(upload_meta__add(meta, &n, 8, "label_team", "  web \t\r\n"), 0);
	assert_int_equal(n, 1);
	assert_string_equal(meta[0].name, "label_team");
	assert_string_equal(meta[0].value, "web");
	assert_int_equal(upload_meta__add(meta, &n, 8, "label_load", "50%"), 0);
	assert_string_equal(meta[1].value, "50%25");
	assert_int_equal(upload_meta__add(meta, &n, 8, "label_text", "a\nb\tc\x01\x7f"), 0);
	assert_string_equal(meta[2].value, "a%0Ab%09c%01%7F");
	assert_int_equal(upload_meta__add(meta, &n, 8, "label_city", "Z\xc3\xbcrich"), 0);
	assert_string_equal(meta[3].value, "Z%C3%BCrich");
	/* every other printable byte is kept as it is */
	assert_int_equal(upload_meta__add(meta, &n, 8, "label_all", "a b=c;d/e<f>\"g'h&~{|}"), 0);
	assert_string_equal(meta[4].value, "a b=c;d/e<f>\"g'h&~{|}");
	assert_int_equal(upload_meta__add(meta, &n, 8, "label_empty", "   "), 0);
	assert_string_equal(meta[5].value, "");
	assert_int_equal(n, 6);
}

static void test_meta_add_name_must_be_canonical(void **state)
{
	static const char *const bad[] = { "",	   "Team", "team.name", "1x",
					   "a__b", "_a",   "a_",	"caf\xc3\xa9" };
	struct upload_meta meta[4];
	size_t n = 0, i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (upload_meta__add(meta, &n, 4, bad[i], "v") != -EINVAL)
			fail_msg("name '%s' accepted", bad[i]);
	assert_int_equal(n, 0);
}

static void test_meta_add_limits(void **state)
{
	struct upload_meta meta[UPLOAD_META_MAX];
	char value[400], name[16];
	size_t n = 0, i;

	/* no more than @max items */
	assert_int_equal(upload_meta__add(meta, &n, 2, "a", "1"), 0);
	assert_int_equal(upload_meta__add(meta, &n, 2, "b", "2"), 0);
	assert_int_equal(upload_meta__add(meta, &n, 2, "c", "3"), -E2BIG);
	assert_int_equal(n, 2);

	/* one value no larger than struct upload_meta holds, after encoding */
	n = 0;
	memset(value, 'v', 319);
	value[319] = '\0';
	assert_int_equal(upload_meta__add(meta, &n, UPLOAD_META_MAX, "a", value), 0);
	value[319] = 'v';
	value[320] = '\0';
	assert_int_equal(upload_meta__add(meta, &n, UPLOAD_META_MAX, "b", value), -E2BIG);
	memset(value, '%', 107); /* 321 bytes encoded */
	value[107] = '\0';
	assert_int_equal(upload_meta__add(meta, &n, UPLOAD_META_MAX, "b", value), -E2BIG);
	assert_int_equal(n, 1);

	/* names and values together: at most UPLOAD_META_BYTES_MAX, exactly */
	memset(value, 'v', 319);
	value[319] = '\0';
	for (i = 1; i < 6; i++) { /* six items of 1 + 319 bytes: 1920 */
		snprintf(name, sizeof(name), "%c", (int)('a' + i));
		assert_int_equal(upload_meta__add(meta, &n, UPLOAD_META_MAX, name, value), 0);
	}
	value[124] = '\0'; /* "last" + 124 bytes: 2048 in all */
	assert_int_equal(upload_meta__add(meta, &n, UPLOAD_META_MAX, "last", value), 0);
	assert_int_equal(n, 7);
	assert_int_equal(upload_meta__add(meta, &n, UPLOAD_META_MAX, "z", ""), -E2BIG);
	assert_int_equal(n, 7);
}

static void test_meta_header_styles(void **state)
{
	char h[128];

	assert_string_equal(upload_meta__header("trapd_rules", UPLOAD_META_S3, h, sizeof(h)),
			    "x-amz-meta-trapd-rules");
	assert_string_equal(upload_meta__header("label_team_name", UPLOAD_META_S3, h, sizeof(h)),
			    "x-amz-meta-label-team-name");
	assert_string_equal(upload_meta__header("label_team", UPLOAD_META_AZBLOB, h, sizeof(h)),
			    "x-ms-meta-label_team");
	assert_string_equal(upload_meta__header("trapd_rules", UPLOAD_META_AZBLOB, h, sizeof(h)),
			    "x-ms-meta-trapd_rules");
	assert_string_equal(upload_meta__header("trapd_capture_id", UPLOAD_META_HTTP, h, sizeof(h)),
			    "X-Trapd-Capture-Id");
	assert_string_equal(upload_meta__header("label_team", UPLOAD_META_HTTP, h, sizeof(h)),
			    "X-Trapd-Label-Team");
	/* a short buffer: cut, terminated, nothing written past it */
	memset(h, '#', sizeof(h));
	assert_string_equal(upload_meta__header("trapd_capture_id", UPLOAD_META_HTTP, h, 12),
			    "X-Trapd-Cap");
	assert_int_equal(h[12], '#');
	assert_string_equal(upload_meta__header("trapd_rules", UPLOAD_META_S3, h, 14),
			    "x-amz-meta-tr");
	assert_int_equal(h[14], '#');
}

static bool c_identifier(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* Whatever a label's key is, its Azure header name is a C identifier. */
static void test_meta_azblob_names_are_c_identifiers(void **state)
{
	static const char *const keys[] = { "team",	   "team.name", "Team-Name", "1st",
					    "9",	   "a..b",	"x--y--",    "-x1",
					    "caf\xc3\xa9", "_under",	"UPPER" };
	char name[64], label[80], h[128];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(label, sizeof(label), "%s", keys[i]);
		assert_int_equal(upload_meta__name(label, name, sizeof(name)), 0);
		upload_meta__header(name, UPLOAD_META_AZBLOB, h, sizeof(h));
		assert_int_equal(strncmp(h, "x-ms-meta-", 10), 0);
		if (!c_identifier(h + 10))
			fail_msg("key '%s': '%s' is not a C identifier", keys[i], h + 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_date_path_from_spool_name),
		cmocka_unit_test(test_key_host_sanitised),
		cmocka_unit_test(test_key_long_host_stays_one_component),
		cmocka_unit_test(test_key_too_long),
		cmocka_unit_test(test_key_rejects_names_not_from_the_spool),
		cmocka_unit_test(test_meta_name),
		cmocka_unit_test(test_meta_name_digit_after_punctuation),
		cmocka_unit_test(test_meta_add_value_made_safe),
		cmocka_unit_test(test_meta_add_name_must_be_canonical),
		cmocka_unit_test(test_meta_add_limits),
		cmocka_unit_test(test_meta_header_styles),
		cmocka_unit_test(test_meta_azblob_names_are_c_identifiers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
