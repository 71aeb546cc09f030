// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_json.c - the JSON writer: nesting, commas, escaping, misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

/* render - run @fn on a writer into memory; returns the text (free it)
 * and json_finish's result in *ret. */
static char *render(void (*fn)(struct json_writer *), int *ret)
{
	struct json_writer w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	json_init(&w, f);
	fn(&w);
	*ret = json_finish(&w);
	fclose(f);
	return buf;
}

static void nested(struct json_writer *w)
{
	json_object_begin(w);
	json_kv_string(w, "a", "x");
	json_key(w, "list");
	json_array_begin(w);
	json_u64(w, 1);
	json_i64(w, -2);
	json_bool(w, true);
	json_null(w);
	json_array_end(w);
	json_key(w, "empty");
	json_object_begin(w);
	json_object_end(w);
	json_object_end(w);
}

static void test_nesting_and_commas(void **state)
{
	int ret;
	char *s = render(nested, &ret);

	assert_int_equal(ret, 0);
	assert_string_equal(s, "{\n  \"a\": \"x\",\n  \"list\": [\n    1,\n    -2,\n    true,\n"
			       "    null\n  ],\n  \"empty\": {}\n}\n");
	free(s);
}

static void one_line_pairs(struct json_writer *w)
{
	json_object_begin(w);
	json_key(w, "h");
	json_array_begin(w);
	json_array_begin_inline(w);
	json_double(w, -0.5);
	json_double(w, 199.98); /* the shortest spelling, not 199.97999999999999 */
	json_array_end(w);
	json_array_begin_inline(w);
	json_array_begin(w); /* nested in a one-line array: one line too */
	json_u64(w, 1);
	json_array_end(w);
	json_array_begin_inline(w);
	json_array_end(w);
	json_array_end(w);
	json_array_end(w);
	json_object_end(w);
}

static void test_inline_arrays_stay_on_one_line(void **state)
{
	int ret;
	char *s = render(one_line_pairs, &ret);

	assert_int_equal(ret, 0);
	assert_string_equal(s, "{\n  \"h\": [\n    [-0.5, 199.98],\n    [[1], []]\n  ]\n}\n");
	free(s);
}

static void escapes(struct json_writer *w)
{
	json_string(w, "q\"b\\n\n\t\x01\x7f caf\xc3\xa9 \xff\xfe end");
}

static void test_strings_are_escaped_and_valid_utf8(void **state)
{
	int ret;
	char *s = render(escapes, &ret);

	assert_int_equal(ret, 0);
	assert_string_equal(
		s, "\"q\\\"b\\\\n\\n\\u0009\\u0001\\u007f caf\xc3\xa9 \\ufffd\\ufffd end\"\n");
	free(s);
}

/* Bytes that look like UTF-8 but are not well-formed: a surrogate, an
 * overlong form, a code point above U+10FFFF. */
static void ill_formed(struct json_writer *w)
{
	json_string(w, "a\xed\xa0\x80 b\xe0\x80\x80 c\xf4\x90\x80\x80 d\xf0\x9f\x94\xa5");
}

static void test_writer_output_is_what_the_reader_accepts(void **state)
{
	struct json_value *v = NULL;
	char err[256];
	int ret;
	char *s = render(ill_formed, &ret);

	assert_int_equal(ret, 0);
	assert_int_equal(json_parse(s, strlen(s), &v, err, sizeof(err)), 0);
	assert_string_equal(json_str(v), "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd b"
					 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd c"
					 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd d"
					 "\xf0\x9f\x94\xa5");
	json_free(v);
	free(s);
}

static void unbalanced(struct json_writer *w)
{
	json_object_begin(w);
	json_key(w, "k");
}

static void closes_too_much(struct json_writer *w)
{
	json_array_begin(w);
	json_array_end(w);
	json_array_end(w);
}

static void test_misuse_is_reported(void **state)
{
	int ret;
	char *s = render(unbalanced, &ret);

	assert_int_equal(ret, -EINVAL);
	free(s);
	s = render(closes_too_much, &ret);
	assert_int_equal(ret, -EINVAL);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_commas),
		cmocka_unit_test(test_inline_arrays_stay_on_one_line),
		cmocka_unit_test(test_strings_are_escaped_and_valid_utf8),
		cmocka_unit_test(test_misuse_is_reported),
		cmocka_unit_test(test_writer_output_is_what_the_reader_accepts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
