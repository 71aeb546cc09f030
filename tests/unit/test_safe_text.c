// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_safe_text.c - untrusted text made safe to show (upload/safe_text.h):
 * each class of byte that must be escaped (C0, DEL, C1, bidirectional
 * controls, every kind of ill-formed UTF-8), what must pass unchanged
 * (printable ASCII, well-formed UTF-8 of every length), cutting at a
 * character or escape boundary with the "..." mark, and idempotence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "upload/safe_text.h"

struct text_case {
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *want;
};

static void expect_cases(const struct text_case *c, size_t n)
{
	char out[256];
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = c[i].len ? c[i].len : strlen(c[i].in);
		safe_text(c[i].in, len, out, sizeof(out));
		if (strcmp(out, c[i].want))
			fail_msg("case %zu: got '%s', expected '%s'", i, out, c[i].want);
		if (safe_text_is_safe(c[i].in, len) != !strcmp(c[i].in, c[i].want))
			fail_msg("case %zu: safe_text_is_safe disagrees", i);
	}
}

static void test_controls_escaped(void **state)
{
	static const struct text_case c[] = {
		{ "plain ASCII, punctuation !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", 0,
		  "plain ASCII, punctuation !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" },
		{ "\x1b]0;owned\x07title", 0, "\\x1b]0;owned\\x07title" },
		{ "red \x1b[31mtext\x1b[0m", 0, "red \\x1b[31mtext\\x1b[0m" },
		{ "two\nlines\r\tand tab", 0, "two\\x0alines\\x0d\\x09and tab" },
		{ "del\x7f", 0, "del\\x7f" },
		{ "nul\0inside", 10, "nul\\x00inside" },
		{ "\x01\x1f", 0, "\\x01\\x1f" },
	};

	expect_cases(c, sizeof(c) / sizeof(c[0]));
}

static void test_unicode_controls_escaped(void **state)
{
	static const struct text_case c[] = {
		/* C1: U+0080, U+009B (CSI), U+009F */
		{ "a\xc2\x80"
		  "b\xc2\x9b"
		  "c\xc2\x9f",
		  0, "a\\xc2\\x80b\\xc2\\x9bc\\xc2\\x9f" },
		/* U+00A0 is the first character after C1: kept */
		{ "nbsp\xc2\xa0", 0, "nbsp\xc2\xa0" },
		/* bidi: RLO U+202E, LRE U+202A, FSI U+2068, PDI U+2069 */
		{ "file\xe2\x80\xae"
		  "fdp.exe",
		  0, "file\\xe2\\x80\\xaefdp.exe" },
		{ "\xe2\x80\xaa\xe2\x81\xa8\xe2\x81\xa9", 0,
		  "\\xe2\\x80\\xaa\\xe2\\x81\\xa8\\xe2\\x81\\xa9" },
		/* neighbours of the bidi ranges are ordinary: U+2029 is not
		 * escaped (not a control to a terminal), U+202F, U+2065 kept */
		{ "\xe2\x80\xaf\xe2\x81\xa5", 0, "\xe2\x80\xaf\xe2\x81\xa5" },
	};

	expect_cases(c, sizeof(c) / sizeof(c[0]));
}

static void test_utf8_kept_and_invalid_escaped(void **state)
{
	static const struct text_case c[] = {
		{ "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5", 0,
		  "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5" },
		{ "\xff\xfe", 0, "\\xff\\xfe" },
		{ "lone \x80 continuation", 0, "lone \\x80 continuation" },
		{ "overlong \xc0\xaf", 0, "overlong \\xc0\\xaf" },
		{ "overlong3 \xe0\x80\xaf", 0, "overlong3 \\xe0\\x80\\xaf" },
		{ "surrogate \xed\xa0\x80", 0, "surrogate \\xed\\xa0\\x80" },
		{ "too big \xf4\x90\x80\x80", 0, "too big \\xf4\\x90\\x80\\x80" },
		{ "f5 \xf5\x80\x80\x80", 0, "f5 \\xf5\\x80\\x80\\x80" },
		/* cut short: the start byte alone, then what follows as itself */
		{ "cut \xe6\x97", 0, "cut \\xe6\\x97" },
		{ "cut \xe6\x97x", 0, "cut \\xe6\\x97x" },
		{ "\xc3", 0, "\\xc3" },
	};

	expect_cases(c, sizeof(c) / sizeof(c[0]));
}

static void test_cut_marks_and_never_splits(void **state)
{
	char out[16], big[20];

	/* fits exactly: no mark */
	assert_string_equal(safe_text("0123456789abcde", 15, out, sizeof(out)), "0123456789abcde");
	/* one byte too many: cut, marked, within the buffer */
	assert_string_equal(safe_text("0123456789abcdef", 16, out, sizeof(out)), "0123456789ab...");
	/* an escape is never cut in two */
	assert_string_equal(safe_text("0123456789\x1b\x1b", 12, out, sizeof(out)), "0123456789...");
	assert_string_equal(safe_text("0123456789\x1b\x1b\x1b", 13, big, sizeof(big)),
			    "0123456789\\x1b...");
	/* nor a character */
	assert_string_equal(safe_text("0123456789a\xe6\x97\xa5xyz", 17, out, sizeof(out)),
			    "0123456789a...");
	/* tiny buffers */
	assert_string_equal(safe_text("abcdef", 6, out, 3), "..");
	assert_string_equal(safe_text("abcdef", 6, out, 1), "");
	out[0] = '#';
	safe_text("abc", 3, out, 0);
	assert_int_equal(out[0], '#');
	assert_string_equal(safe_text_str(NULL, out, sizeof(out)), "");
}

static void test_idempotent(void **state)
{
	static const char in[] = "a\x1b[2J\xff\xc2\x9b\xe2\x80\xae\\x41 ok \xc3\xa9";
	char once[256], twice[256];

	safe_text(in, sizeof(in) - 1, once, sizeof(once));
	assert_true(safe_text_is_safe(once, strlen(once)));
	safe_text_str(once, twice, sizeof(twice));
	assert_string_equal(once, twice);
	assert_null(memchr(once, 0x1b, strlen(once)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_unicode_controls_escaped),
		cmocka_unit_test(test_utf8_kept_and_invalid_escaped),
		cmocka_unit_test(test_cut_marks_and_never_splits),
		cmocka_unit_test(test_idempotent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
