// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_json_read.c - the strict JSON reader: the grammar it accepts and
 * rejects (with line and column), strings and numbers, duplicate keys,
 * depth, accessors, files, a round trip through trapd's writer and a real
 * sidecar cut at every byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

/* parse - json_parse of a C string; fails the test unless it returns
 * @want. Returns the tree (NULL on error). */
static struct json_value *parse(const char *text, int want, char *err, size_t errlen)
{
	struct json_value *v = (struct json_value *)1;
	int ret = json_parse(text, strlen(text), &v, err, errlen);

	if (ret != want)
		fail_msg("%s: returned %d (%s), not %d", text, ret, err ? err : "", want);
	if (ret)
		assert_null(v);
	return v;
}

static struct json_value *parse_ok(const char *text)
{
	char err[256];

	return parse(text, 0, err, sizeof(err));
}

/* assert_rejects - @text fails with exactly the message @want. */
static void assert_rejects(const char *text, const char *want)
{
	char err[256];

	parse(text, -EINVAL, err, sizeof(err));
	if (strcmp(err, want))
		fail_msg("%s: error \"%s\", not \"%s\"", text, err, want);
}

/* read_golden - a file under tests/data/golden (found as golden.h does);
 * returns the malloc'd text, NUL-terminated, and its length. */
static char *read_golden(const char *name, size_t *len)
{
	const char *dir = getenv("TRAPD_SRCDIR");
	char path[512], *text;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/golden/%s", dir ? dir : ".", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s (run from the top of the tree or set TRAPD_SRCDIR)", path);
	text = malloc(65536);
	assert_non_null(text);
	*len = fread(text, 1, 65535, f);
	text[*len] = '\0';
	fclose(f);
	return text;
}

static void test_reads_a_daemon_sidecar(void **state)
{
	const struct json_value *root, *labels, *h;
	size_t len;
	char *text = read_golden("metadata_daemon.json", &len), err[256];
	struct json_value *doc = NULL;
	uint64_t u;
	int64_t i;
	double d;
	bool b;

	assert_int_equal(json_parse(text, len, &doc, err, sizeof(err)), 0);
	root = doc;
	assert_int_equal(json_type(root), JSON_OBJECT);
	assert_string_equal(json_str(json_get(root, "format")), "trapd-capture/1");
	assert_string_equal(json_str(json_path(root, "window.start")), "2026-11-22T05:59:20.698Z");
	assert_int_equal(json_number_u64(json_path(root, "window.start_ns"), &u), 0);
	assert_true(u == 1795327160698296842ULL);
	assert_string_equal(json_str(json_path(root, "triggers.1.rule")), "host-pressure");
	assert_int_equal(json_boolean(json_path(root, "triggers.1.joined"), &b), 0);
	assert_true(b);
	h = json_path(root, "triggers.0.history.2");
	assert_int_equal(json_len(h), 2);
	assert_int_equal(json_number_i64(json_index(h, 0), &i), 0);
	assert_int_equal(i, -10);
	assert_int_equal(json_number_double(json_index(h, 1), &d), 0);
	assert_true(d == 87.25);
	assert_int_equal(json_len(json_path(root, "triggers.2.history")), 0);
	labels = json_get(root, "labels");
	assert_int_equal(json_len(labels), 2);
	assert_string_equal(json_member_key(labels, 0), "env");
	assert_string_equal(json_member_key(labels, 1), "team");
	assert_string_equal(json_str(json_index(labels, 1)), "payments \"core\"");
	json_free(doc);
	free(text);
}

/* A sidecar cut short (a full disk, a crash) is an error at every length,
 * never a crash or a partial tree; one flipped byte never crashes. */
static void test_truncated_sidecar_is_rejected_at_every_byte(void **state)
{
	size_t len, end, i;
	char *text = read_golden("metadata_daemon.json", &len), err[256];
	struct json_value *doc;

	end = strrchr(text, '}') - text; /* the prefix up to here is complete */
	for (i = 0; i <= end; i++) {
		err[0] = '\0';
		assert_int_equal(json_parse(text, i, &doc, err, sizeof(err)), -EINVAL);
		assert_null(doc);
		assert_memory_equal(err, "line ", 5);
	}
	for (i = end + 1; i <= len; i++) {
		assert_int_equal(json_parse(text, i, &doc, err, sizeof(err)), 0);
		json_free(doc);
	}
	for (i = 0; i < len; i++) {
		char saved = text[i];

		text[i] = "\"{}[],:0\\\x01\xff"[i % 11];
		if (json_parse(text, len, &doc, err, sizeof(err)) == 0)
			json_free(doc);
		text[i] = saved;
	}
	free(text);
}

static void test_scalars_and_whitespace(void **state)
{
	struct json_value *v;
	bool b = false;

	v = parse_ok(" \t\r\n true \n");
	assert_int_equal(json_type(v), JSON_BOOL);
	assert_int_equal(json_boolean(v, &b), 0);
	assert_true(b);
	json_free(v);
	v = parse_ok("false");
	assert_int_equal(json_boolean(v, &b), 0);
	assert_false(b);
	json_free(v);
	v = parse_ok("null");
	assert_int_equal(json_type(v), JSON_NULL);
	assert_int_equal(json_boolean(v, &b), -EINVAL);
	json_free(v);
	v = parse_ok("\"\"");
	assert_string_equal(json_str(v), "");
	assert_int_equal(json_len(v), 0);
	json_free(v);
	v = parse_ok("[ 1 ,\t{ \"a\" : [ ] , \"b\":{}}\r\n]");
	assert_int_equal(json_len(v), 2);
	assert_int_equal(json_len(json_path(v, "1.a")), 0);
	assert_int_equal(json_type(json_path(v, "1.b")), JSON_OBJECT);
	json_free(v);
}

static void test_grammar_errors_have_line_and_column(void **state)
{
	struct json_value *v;
	char err[256];

	assert_rejects("", "line 1, column 1: expected a value, found the end of the input");
	assert_rejects(" \n ", "line 2, column 2: expected a value, found the end of the input");
	assert_rejects("{\n  \"a\": 1,\n  \"b\": 2 \"c\"\n}",
		       "line 3, column 10: expected ',' or '}' after an object member, found '\"'");
	assert_rejects("[1, 2,]", "line 1, column 7: expected a value, found ']'");
	assert_rejects("{\"a\": 1,}",
		       "line 1, column 9: expected a member name in double quotes, found '}'");
	assert_rejects("{\"a\" 1}",
		       "line 1, column 6: expected ':' after an object member name, found '1'");
	assert_rejects("{'a': 1}",
		       "line 1, column 2: expected a member name in double quotes, found '''");
	assert_rejects("{a: 1}",
		       "line 1, column 2: expected a member name in double quotes, found 'a'");
	assert_rejects("[1 2]",
		       "line 1, column 4: expected ',' or ']' after an array element, found '2'");
	assert_rejects("[1", "line 1, column 3: expected ',' or ']' after an array element, "
			     "found the end of the input");
	assert_rejects("{} {}", "line 1, column 4: expected the end of the document, found '{'");
	assert_rejects("1 // c", "line 1, column 3: expected the end of the document, found '/'");
	assert_rejects("/* c */ 1", "line 1, column 1: expected a value, found '/'");
	assert_rejects("\xef\xbb\xbf{}", "line 1, column 1: expected a value, found byte 0xef");
	assert_rejects("tru", "line 1, column 1: invalid literal (expected true)");
	assert_rejects("[nul]", "line 1, column 2: invalid literal (expected null)");
	assert_rejects("True", "line 1, column 1: expected a value, found 'T'");
	assert_rejects("[\"caf\xc3\xa9\", x]", "line 1, column 10: expected a value, found 'x'");
	assert_rejects("\"abc", "line 1, column 1: unterminated string");
	assert_rejects("[\"abc\\\"]", "line 1, column 2: unterminated string");
	/* A NUL is a byte like any other: not the end of the text. */
	assert_int_equal(json_parse("{\"a\": 1}\0", 9, &v, err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "line 1, column 9: expected the end of the document, found byte 0x00");
}

static void test_numbers_follow_the_rfc(void **state)
{
	static const char *const good[] = { "0",   "-0",   "7",	    "-12",    "0.5",	    "-0.0",
					    "1e5", "1E+5", "1e-05", "2.5E-3", "123.456e789" };
	struct json_value *v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = parse_ok(good[i]);
		assert_string_equal(json_number_text(v), good[i]);
		json_free(v);
	}
	assert_rejects("01", "line 1, column 1: leading zero in a number");
	assert_rejects("-007", "line 1, column 2: leading zero in a number");
	assert_rejects("[1, 00]", "line 1, column 5: leading zero in a number");
	assert_rejects("+1", "line 1, column 1: expected a value, found '+'");
	assert_rejects(".5", "line 1, column 1: expected a value, found '.'");
	assert_rejects("-", "line 1, column 2: expected a digit after '-', found the end of the "
			    "input");
	assert_rejects("-a", "line 1, column 2: expected a digit after '-', found 'a'");
	assert_rejects("1.",
		       "line 1, column 3: expected a digit after the decimal point, found the "
		       "end of the input");
	assert_rejects("1.e5",
		       "line 1, column 3: expected a digit after the decimal point, found 'e'");
	assert_rejects("1e", "line 1, column 3: expected a digit in the exponent, found the end of "
			     "the input");
	assert_rejects("1e+",
		       "line 1, column 4: expected a digit in the exponent, found the end of "
		       "the input");
	assert_rejects("0x10", "line 1, column 2: expected the end of the document, found 'x'");
	assert_rejects("NaN", "line 1, column 1: expected a value, found 'N'");
	assert_rejects("-Infinity", "line 1, column 2: expected a digit after '-', found 'I'");
}

/* json_number_i64/u64 are exact over their whole range and refuse what
 * does not fit or is not written as an integer. */
static void test_integers_are_exact(void **state)
{
	static const struct {
		const char *text;
		int ret_u, ret_i;
		uint64_t u;
		int64_t i;
	} cases[] = {
		{ "0", 0, 0, 0, 0 },
		{ "-0", 0, 0, 0, 0 },
		{ "42", 0, 0, 42, 42 },
		{ "-1", -ERANGE, 0, 0, -1 },
		{ "18446744073709551615", 0, -ERANGE, UINT64_MAX, 0 },
		{ "18446744073709551616", -ERANGE, -ERANGE, 0, 0 },
		{ "99999999999999999999999", -ERANGE, -ERANGE, 0, 0 },
		{ "9223372036854775807", 0, 0, INT64_MAX, INT64_MAX },
		{ "9223372036854775808", 0, -ERANGE, 9223372036854775808ULL, 0 },
		{ "-9223372036854775808", -ERANGE, 0, 0, INT64_MIN },
		{ "-9223372036854775809", -ERANGE, -ERANGE, 0, 0 },
		{ "1.0", -EINVAL, -EINVAL, 0, 0 },
		{ "1e3", -EINVAL, -EINVAL, 0, 0 },
		{ "-2E0", -EINVAL, -EINVAL, 0, 0 },
	};
	struct json_value *v;
	uint64_t u;
	int64_t i;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		v = parse_ok(cases[k].text);
		u = 7;
		i = 7;
		assert_int_equal(json_number_u64(v, &u), cases[k].ret_u);
		assert_int_equal(json_number_i64(v, &i), cases[k].ret_i);
		assert_true(u == (cases[k].ret_u ? 7 : cases[k].u));
		assert_true(i == (cases[k].ret_i ? 7 : cases[k].i));
		json_free(v);
	}
	v = parse_ok("\"1\"");
	assert_int_equal(json_number_u64(v, &u), -EINVAL);
	assert_int_equal(json_number_i64(v, &i), -EINVAL);
	json_free(v);
}

static void test_doubles(void **state)
{
	struct json_value *v = parse_ok("[1.5e3, -0.25, 1e400, 1e-400, 18446744073709551616]");
	double d;

	assert_int_equal(json_number_double(json_index(v, 0), &d), 0);
	assert_true(d == 1500.0);
	assert_int_equal(json_number_double(json_index(v, 1), &d), 0);
	assert_true(d == -0.25);
	assert_int_equal(json_number_double(json_index(v, 2), &d), -ERANGE);
	assert_int_equal(json_number_double(json_index(v, 3), &d), 0);
	assert_true(d == 0.0);
	assert_int_equal(json_number_double(json_index(v, 4), &d), 0);
	assert_true(d == 18446744073709551616.0);
	assert_int_equal(json_number_double(v, &d), -EINVAL);
	json_free(v);
}

static void test_string_escapes_decode_to_utf8(void **state)
{
	struct json_value *v;

	v = parse_ok("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"");
	assert_string_equal(json_str(v), "q\" b\\ s/ \b\f\n\r\t");
	json_free(v);
	/* é (2 bytes), € (3), U+FFFF, 😀 as a surrogate pair (4), raw UTF-8. */
	v = parse_ok(
		"\"\\u00e9\\u20AC\\uffff\\ud83d\\ude00 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	assert_string_equal(json_str(v), "\xc3\xa9\xe2\x82\xac\xef\xbf\xbf\xf0\x9f\x98\x80 "
					 "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	assert_int_equal(json_len(v), 22);
	json_free(v);
	v = parse_ok("\"\\u0041\\u007f\\udbff\\udfff\"");
	assert_string_equal(json_str(v), "A\x7f\xf4\x8f\xbf\xbf");
	json_free(v);
}

static void test_bad_strings_are_rejected(void **state)
{
	assert_rejects("\"a\\x\"", "line 1, column 3: invalid escape \\x");
	assert_rejects("\"a\\'\"", "line 1, column 3: invalid escape \\'");
	assert_rejects("\"\\u12\"", "line 1, column 2: expected 4 hex digits after \\u");
	assert_rejects("\"\\u12G4\"", "line 1, column 2: expected 4 hex digits after \\u");
	assert_rejects("\"\\u0000\"", "line 1, column 2: \\u0000 is not supported in strings");
	assert_rejects("\"x\\ud800\"", "line 1, column 3: unpaired surrogate \\uD800");
	assert_rejects("\"\\ud800\\u0041\"", "line 1, column 2: unpaired surrogate \\uD800");
	assert_rejects("\"\\ud800\\ud800\"", "line 1, column 2: unpaired surrogate \\uD800");
	assert_rejects("\"\\udc00\\ud800\"", "line 1, column 2: unpaired surrogate \\uDC00");
	assert_rejects("\"\\ud800\\n\"", "line 1, column 2: unpaired surrogate \\uD800");
	assert_rejects("\"a\tb\"", "line 1, column 3: control character 0x09 in a string");
	assert_rejects("\"a\nb\"", "line 1, column 3: control character 0x0a in a string");
	assert_rejects("[\"\x1f\"]", "line 1, column 3: control character 0x1f in a string");
}

/* Only well-formed UTF-8 (Unicode table 3-7) is accepted in strings. */
static void test_invalid_utf8_is_rejected(void **state)
{
	static const char *const bad[] = {
		"\x80",		    /* a stray continuation byte */
		"\xc0\xaf",	    /* overlong '/' */
		"\xc1\xbf",	    /* overlong */
		"\xe0\x80\xaf",	    /* overlong, 3 bytes */
		"\xe0\x9f\xbf",	    /* overlong, 3 bytes */
		"\xed\xa0\x80",	    /* an encoded surrogate, U+D800 */
		"\xf0\x8f\xbf\xbf", /* overlong, 4 bytes */
		"\xf4\x90\x80\x80", /* U+110000 */
		"\xf5\x80\x80\x80", /* beyond */
		"\xff",
		"\xe2\x82",	/* truncated by the closing quote */
		"\xe2\x82x",	/* a bad continuation */
		"\xf0\x9f\x98", /* truncated */
	};
	char text[32], err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "\"ok %s\"", bad[i]);
		parse(text, -EINVAL, err, sizeof(err));
		assert_string_equal(err, "line 1, column 5: invalid UTF-8 in a string");
	}
	json_free(parse_ok("\"\xed\x9f\xbf \xee\x80\x80 \xf4\x8f\xbf\xbf \xf0\x90\x80\x80\""));
}

/* The column counts characters, not bytes, so an editor finds it. */
static void test_columns_count_characters(void **state)
{
	assert_rejects("{\"caf\xc3\xa9\": \"\xe2\x82\xac\xe2\x82\xac\", }",
		       "line 1, column 16: expected a member name in double quotes, found '}'");
	assert_rejects("[\r\n1,\n\t2 3]",
		       "line 3, column 4: expected ',' or ']' after an array element, found '3'");
}

static void test_duplicate_keys_are_rejected(void **state)
{
	struct json_value *v;

	assert_rejects("{\"a\": 1, \"b\": 2,\n \"a\": 3}",
		       "line 2, column 2: duplicate key in an object");
	assert_rejects("{\"x\": {\"k\": 1, \"\\u006b\": 2}}",
		       "line 1, column 16: duplicate key in an object");
	/* The same key in different objects is fine. */
	v = parse_ok("{\"a\": {\"a\": 1}, \"b\": {\"a\": 2}}");
	assert_string_equal(json_number_text(json_path(v, "b.a")), "2");
	json_free(v);
}

/* nest - @depth arrays, one inside the other; free it. */
static char *nest(size_t depth)
{
	char *s = malloc(2 * depth + 1);
	size_t i;

	assert_non_null(s);
	for (i = 0; i < depth; i++) {
		s[i] = '[';
		s[2 * depth - 1 - i] = ']';
	}
	s[2 * depth] = '\0';
	return s;
}

static void test_depth_is_bounded(void **state)
{
	char err[256], *s = nest(JSON_READ_MAX_DEPTH), *deep = nest(1000000);
	struct json_value *v;
	size_t i;

	v = parse_ok(s);
	assert_int_equal(json_len(json_path(v, "0.0.0.0")), 1);
	json_free(v);
	free(s);
	s = nest(JSON_READ_MAX_DEPTH + 1);
	assert_rejects(s, "line 1, column 65: nested deeper than 64 arrays and objects");
	free(s);
	/* A million levels: rejected at 65, long before the stack runs out. */
	parse(deep, -EINVAL, err, sizeof(err));
	assert_string_equal(err, "line 1, column 65: nested deeper than 64 arrays and objects");
	free(deep);
	s = malloc(6 * 70 + 1);
	assert_non_null(s);
	for (i = 0; i < 70; i++)
		memcpy(s + 5 * i, "{\"a\":", 5);
	s[5 * 70] = '\0';
	assert_rejects(s, "line 1, column 321: nested deeper than 64 arrays and objects");
	free(s);
}

/* json_get finds every member of a large object by binary search, keys
 * that prefix each other included; json_index keeps document order. */
static void test_object_lookup_and_order(void **state)
{
	char text[16384], key[16];
	struct json_value *v;
	size_t n = 0, i;
	int64_t x;

	n += snprintf(text + n, sizeof(text) - n, "{");
	for (i = 0; i < 500; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s\"k%zu\": %zu", i ? ", " : "",
			      (i * 7919) % 500, i);
	n += snprintf(text + n, sizeof(text) - n, ", \"\": -1}");
	v = parse_ok(text);
	assert_int_equal(json_len(v), 501);
	for (i = 0; i < 500; i++) {
		snprintf(key, sizeof(key), "k%zu", (i * 7919) % 500);
		assert_string_equal(json_member_key(v, i), key);
		assert_int_equal(json_number_i64(json_get(v, key), &x), 0);
		assert_int_equal(x, i);
		assert_ptr_equal(json_get(v, key), json_index(v, i));
	}
	assert_int_equal(json_number_i64(json_get(v, ""), &x), 0);
	assert_int_equal(x, -1);
	assert_null(json_get(v, "k"));
	assert_null(json_get(v, "k5000"));
	assert_null(json_get(v, "k1 "));
	assert_null(json_member_key(v, 501));
	assert_null(json_index(v, 501));
	json_free(v);
}

static void test_path(void **state)
{
	struct json_value *v = parse_ok("{\"a\": {\"b\": [10, {\"c\": \"x\"}], \"d.e\": 1}, "
					"\"ab\": 2, \"7\": 3}");

	assert_string_equal(json_str(json_path(v, "a.b.1.c")), "x");
	assert_string_equal(json_number_text(json_path(v, "a.b.0")), "10");
	assert_string_equal(json_number_text(json_path(v, "ab")), "2");
	assert_string_equal(json_number_text(json_path(v, "7")), "3");
	assert_ptr_equal(json_path(v, NULL), v);
	assert_null(json_path(v, "a.b.2"));
	assert_null(json_path(v, "a.b.x"));
	assert_null(json_path(v, "a.b.-1"));
	assert_null(json_path(v, "a.b."));
	assert_null(json_path(v, "a.b.99999999999999999999999"));
	assert_null(json_path(v, "a..b"));
	assert_null(json_path(v, "a.d.e")); /* a dotted key needs json_get */
	assert_non_null(json_get(json_get(v, "a"), "d.e"));
	assert_null(json_path(v, "a.b.1.c.z"));
	assert_null(json_path(NULL, "a"));
	json_free(v);
}

/* Every accessor takes NULL or a value of the wrong type. */
static void test_accessors_refuse_wrong_types(void **state)
{
	struct json_value *v = parse_ok("[\"s\", 1, null, {}]");
	uint64_t u;
	int64_t i;
	double d;
	bool b;

	assert_int_equal(json_type(NULL), JSON_ABSENT);
	assert_int_equal(json_type(json_index(v, 2)), JSON_NULL);
	assert_null(json_get(v, "a"));
	assert_null(json_get(NULL, "a"));
	assert_null(json_get(json_index(v, 3), NULL));
	assert_null(json_index(json_index(v, 0), 0));
	assert_null(json_member_key(v, 0));
	assert_null(json_str(json_index(v, 1)));
	assert_null(json_str(NULL));
	assert_null(json_number_text(json_index(v, 0)));
	assert_int_equal(json_len(json_index(v, 1)), 0);
	assert_int_equal(json_len(NULL), 0);
	assert_int_equal(json_boolean(NULL, &b), -EINVAL);
	assert_int_equal(json_number_u64(NULL, &u), -EINVAL);
	assert_int_equal(json_number_i64(json_index(v, 2), &i), -EINVAL);
	assert_int_equal(json_number_double(json_index(v, 3), &d), -EINVAL);
	assert_string_equal(json_type_name(JSON_ARRAY), "an array");
	assert_string_equal(json_type_name(JSON_ABSENT), "nothing");
	assert_string_equal(json_type_name((enum json_type)99), "unknown");
	json_free(v);
	json_free(NULL);
}

static const char round_trip_text[] =
	"tab\t nl\n q\" bs\\ \x01\x1f\x7f caf\xc3\xa9 \xf0\x9f\x98\x80";

static void write_document(struct json_writer *w)
{
	json_object_begin(w);
	json_kv_string(w, "s", round_trip_text);
	json_kv_u64(w, "u64_max", UINT64_MAX);
	json_kv_i64(w, "i64_min", INT64_MIN);
	json_key(w, "pairs");
	json_array_begin(w);
	json_array_begin_inline(w);
	json_double(w, -0.5);
	json_double(w, 199.98);
	json_double(w, 1e300);
	json_double(w, 5e-324);
	json_array_end(w);
	json_array_end(w);
	json_key(w, "flags");
	json_object_begin(w);
	json_key(w, "yes");
	json_bool(w, true);
	json_key(w, "no");
	json_bool(w, false);
	json_key(w, "none");
	json_null(w);
	json_object_end(w);
	json_key(w, "\xe2\x82\xac key \"quoted\"");
	json_array_begin(w);
	json_array_end(w);
	json_object_end(w);
}

/* What trapd's writer produces reads back as the same values. */
static void test_round_trip_through_the_writer(void **state)
{
	const struct json_value *pairs, *flags;
	struct json_value *v;
	struct json_writer w;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	uint64_t u;
	int64_t i;
	double d;
	bool b;

	assert_non_null(f);
	json_init(&w, f);
	write_document(&w);
	assert_int_equal(json_finish(&w), 0);
	fclose(f);
	assert_int_equal(json_parse(text, len, &v, err, sizeof(err)), 0);
	assert_string_equal(json_str(json_get(v, "s")), round_trip_text);
	assert_int_equal(json_number_u64(json_get(v, "u64_max"), &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(json_number_i64(json_get(v, "i64_min"), &i), 0);
	assert_true(i == INT64_MIN);
	pairs = json_path(v, "pairs.0");
	assert_int_equal(json_number_double(json_index(pairs, 0), &d), 0);
	assert_true(d == -0.5);
	assert_int_equal(json_number_double(json_index(pairs, 1), &d), 0);
	assert_true(d == 199.98);
	assert_int_equal(json_number_double(json_index(pairs, 2), &d), 0);
	assert_true(d == 1e300);
	assert_int_equal(json_number_double(json_index(pairs, 3), &d), 0);
	assert_true(d == 5e-324);
	flags = json_get(v, "flags");
	assert_int_equal(json_boolean(json_get(flags, "yes"), &b), 0);
	assert_true(b);
	assert_int_equal(json_boolean(json_get(flags, "no"), &b), 0);
	assert_false(b);
	assert_int_equal(json_type(json_get(flags, "none")), JSON_NULL);
	assert_int_equal(json_type(json_get(v, "\xe2\x82\xac key \"quoted\"")), JSON_ARRAY);
	assert_string_equal(json_member_key(v, 5), "\xe2\x82\xac key \"quoted\"");
	json_free(v);
	free(text);
}

/* write_temp - @len bytes of @text into a new temporary file; its path
 * in @path (64 bytes). */
static void write_temp(char *path, const char *text, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/test_json_read.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void test_read_file(void **state)
{
	char path[64], err[256], want[160];
	struct json_value *v = NULL;

	write_temp(path, "{\"a\": [1, 2]}\n", 14);
	assert_int_equal(json_read_file(path, 14, &v, err, sizeof(err)), 0);
	assert_int_equal(json_len(json_get(v, "a")), 2);
	json_free(v);
	assert_int_equal(json_read_file(path, 13, &v, err, sizeof(err)), -EFBIG);
	assert_null(v);
	snprintf(want, sizeof(want), "%s: larger than 13 bytes", path);
	assert_string_equal(err, want);
	unlink(path);

	write_temp(path, "{\n\"a\": [1 2]}", 13);
	assert_int_equal(json_read_file(path, 1 << 20, &v, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: line 2, column 9: expected ',' or ']' after an array element, found '2'",
		 path);
	assert_string_equal(err, want);
	unlink(path);

	write_temp(path, "", 0);
	assert_int_equal(json_read_file(path, 0, &v, err, sizeof(err)), -EINVAL);
	unlink(path);

	assert_int_equal(json_read_file(path, 100, &v, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
	assert_int_equal(json_read_file("/tmp", 100, &v, err, sizeof(err)), -EISDIR);
}

/* A file larger than the first read buffer is read whole. */
static void test_read_large_file(void **state)
{
	size_t n = 0, i, cap = 200000;
	char path[64], err[256], *text = malloc(cap);
	struct json_value *v = NULL;

	assert_non_null(text);
	n += snprintf(text + n, cap - n, "[");
	for (i = 0; i < 20000; i++)
		n += snprintf(text + n, cap - n, "%s%zu", i ? "," : "", i);
	n += snprintf(text + n, cap - n, "]");
	write_temp(path, text, n);
	assert_int_equal(json_read_file(path, n, &v, err, sizeof(err)), 0);
	assert_int_equal(json_len(v), 20000);
	assert_string_equal(json_number_text(json_index(v, 19999)), "19999");
	json_free(v);
	assert_int_equal(json_read_file(path, n - 1, &v, err, sizeof(err)), -EFBIG);
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_a_daemon_sidecar),
		cmocka_unit_test(test_truncated_sidecar_is_rejected_at_every_byte),
		cmocka_unit_test(test_scalars_and_whitespace),
		cmocka_unit_test(test_grammar_errors_have_line_and_column),
		cmocka_unit_test(test_numbers_follow_the_rfc),
		cmocka_unit_test(test_integers_are_exact),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_string_escapes_decode_to_utf8),
		cmocka_unit_test(test_bad_strings_are_rejected),
		cmocka_unit_test(test_invalid_utf8_is_rejected),
		cmocka_unit_test(test_columns_count_characters),
		cmocka_unit_test(test_duplicate_keys_are_rejected),
		cmocka_unit_test(test_depth_is_bounded),
		cmocka_unit_test(test_object_lookup_and_order),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_accessors_refuse_wrong_types),
		cmocka_unit_test(test_round_trip_through_the_writer),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_large_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
