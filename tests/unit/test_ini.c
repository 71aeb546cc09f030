// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ini.c - the INI lexer: what it hands on for each kind of line,
 * every syntax error with its line, the limits, and a callback stopping
 * it. Each case lexes a text into a transcript of events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/ini.h"

/* A transcript: "S1 name", "K2 key=[value]", "E3 message", one a line. */
struct transcript {
	char *text;
	size_t len;
	FILE *f;
	int stop_at; /* a callback on this line returns -ENOMEM; -1: none */
};

static int on_section(void *ctx, int line, const char *name)
{
	struct transcript *t = ctx;

	fprintf(t->f, "S%d %s\n", line, name ? name : "(null)");
	return line == t->stop_at ? -ENOMEM : 0;
}

static int on_key(void *ctx, int line, const char *key, const char *value)
{
	struct transcript *t = ctx;

	fprintf(t->f, "K%d %s=[%s]\n", line, key, value);
	return line == t->stop_at ? -ENOMEM : 0;
}

static int on_error(void *ctx, int line, const char *msg)
{
	struct transcript *t = ctx;

	fprintf(t->f, "E%d %s\n", line, msg);
	return line == t->stop_at ? -ENOMEM : 0;
}

static const struct ini_handler handler = { on_section, on_key, on_error };

/* lex_n - run the lexer on @len bytes of @text; returns its transcript
 * (free it) and its return value in *ret. */
static char *lex_n(const char *text, size_t len, int stop_at, int *ret)
{
	struct transcript t = { .stop_at = stop_at };

	t.f = open_memstream(&t.text, &t.len);
	assert_non_null(t.f);
	*ret = ini__parse(text, len, &handler, &t);
	fclose(t.f);
	return t.text;
}

/* expect - lexing @text gives transcript @want and return value @ret. */
static void expect(const char *text, const char *want, int ret)
{
	int got;
	char *out = lex_n(text, strlen(text), -1, &got);

	if (strcmp(out, want))
		print_error("input:\n%s\ngot:\n%s\nwant:\n%s\n", text, out, want);
	assert_string_equal(out, want);
	assert_int_equal(got, ret);
	free(out);
}

static void test_sections_keys_and_comments(void **state)
{
	expect("# comment\n"
	       "; comment\n"
	       "  \t# indented comment\n"
	       "\n"
	       "   \t \n"
	       "[global]\n"
	       "  [ rule  web ]  # header comment\n"
	       "[x];comment\n"
	       "a=b\n"
	       "  key  =  value  \n"
	       "k\t=\tv w\t\n"
	       "empty =\n"
	       "empty2 =   \n",
	       "S6 global\n"
	       "S7 rule  web\n"
	       "S8 x\n"
	       "K9 a=[b]\n"
	       "K10 key=[value]\n"
	       "K11 k=[v w]\n"
	       "K12 empty=[]\n"
	       "K13 empty2=[]\n",
	       0);
}

static void test_inline_comments_need_a_blank(void **state)
{
	expect("a = x # c\n"
	       "b = x#c\n"
	       "c = x ;c\n"
	       "d = x;c\n"
	       "e = #c\n"
	       "f =;c\n"
	       "g = x\t#c\n"
	       "h = a = b\n"
	       "i = [not a header]\n",
	       "K1 a=[x]\n"
	       "K2 b=[x#c]\n"
	       "K3 c=[x]\n"
	       "K4 d=[x;c]\n"
	       "K5 e=[]\n"
	       "K6 f=[]\n"
	       "K7 g=[x]\n"
	       "K8 h=[a = b]\n"
	       "K9 i=[[not a header]]\n",
	       0);
}

static void test_quoted_values(void **state)
{
	expect("a = \"  x # y ; z  \"\n"
	       "b = \"say \\\"hi\\\"\" # comment\n"
	       "c = \"back\\\\slash\"\n"
	       "d = \"\"\n"
	       "e = x \"not\" quoted\n"
	       "f = \"x\"  \n"
	       "g = \"x\";c\n",
	       "K1 a=[  x # y ; z  ]\n"
	       "K2 b=[say \"hi\"]\n"
	       "K3 c=[back\\slash]\n"
	       "K4 d=[]\n"
	       "K5 e=[x \"not\" quoted]\n"
	       "K6 f=[x]\n"
	       "K7 g=[x]\n",
	       0);
}

static void test_syntax_errors_go_on(void **state)
{
	expect("just words\n"
	       "= value\n"
	       "[global\n"
	       "a = 1\n"
	       "[global] x\n"
	       "[]\n"
	       "[  ]\n"
	       "b = \"open\n"
	       "c = \"bad \\n escape\"\n"
	       "d = \"x\" y\n"
	       "e = \"ends in \\\n"
	       "ok = 1\n",
	       "E1 expected 'key = value', '[section]' or a comment\n"
	       "E2 expected a key before '='\n"
	       "E3 expected ']' to end the section header\n"
	       "S3 (null)\n"
	       "K4 a=[1]\n"
	       "E5 unexpected text after ']'; expected a comment or the end of the line\n"
	       "S5 (null)\n"
	       "E6 expected a section name between '[' and ']'\n"
	       "S6 (null)\n"
	       "E7 expected a section name between '[' and ']'\n"
	       "S7 (null)\n"
	       "E8 quoted value without its closing '\"'\n"
	       "E9 in a quoted value '\\' must be followed by '\"' or '\\'\n"
	       "E10 unexpected text after the closing '\"'; expected a comment or the end of "
	       "the line\n"
	       "E11 quoted value without its closing '\"'\n"
	       "K12 ok=[1]\n",
	       -EINVAL);
}

static void test_line_ends_and_bom(void **state)
{
	expect("\xef\xbb\xbf[a]\r\nk = v\r\n\r\nx = \"q\"\r\nlast = 1",
	       "S1 a\nK2 k=[v]\nK4 x=[q]\nK5 last=[1]\n", 0);
	/* a byte order mark only counts at the very start */
	expect("\n\xef\xbb\xbf[a]\n", "E2 expected 'key = value', '[section]' or a comment\n",
	       -EINVAL);
	expect("", "", 0);
	expect("\n\n", "", 0);
}

static void test_bytes_that_are_not_text(void **state)
{
	static const char nul[] = "a = 1\nb = x\0y\nc = 3\n";
	int ret;
	char *out;

	out = lex_n(nul, sizeof(nul) - 1, -1, &ret);
	assert_string_equal(out,
			    "K1 a=[1]\nE2 NUL byte at column 6; a rules file is text\nK3 c=[3]\n");
	assert_int_equal(ret, -EINVAL);
	free(out);
	expect("a = \x01\n", "E1 control character 0x01 at column 5; only tab is allowed\n",
	       -EINVAL);
	expect("a = x\ry\n", "E1 control character 0x0d at column 6; only tab is allowed\n",
	       -EINVAL);
	expect("a = \x7f\n", "E1 control character 0x7f at column 5; only tab is allowed\n",
	       -EINVAL);
	expect("a = \xff\n", "E1 not valid UTF-8 at column 5\n", -EINVAL);
	expect("a = \xc3\n", "E1 not valid UTF-8 at column 5\n", -EINVAL);
	expect("a = \xc0\xaf\n", "E1 not valid UTF-8 at column 5\n", -EINVAL);	   /* overlong */
	expect("a = \xed\xa0\x80\n", "E1 not valid UTF-8 at column 5\n", -EINVAL); /* surrogate */
	expect("a = \xf4\x90\x80\x80\n", "E1 not valid UTF-8 at column 5\n", -EINVAL);
	expect("a = \xe6\x9d\xb1 \xf0\x9f\x98\x80\n", "K1 a=[\xe6\x9d\xb1 \xf0\x9f\x98\x80]\n", 0);
}

static void test_limits(void **state)
{
	char *text = malloc(INI_MAX_FILE + 2), *out;
	int ret;

	assert_non_null(text);
	/* a line of exactly INI_MAX_LINE bytes, then one of one more */
	memset(text, 'x', INI_MAX_FILE + 1);
	memcpy(text, "k=", 2);
	text[INI_MAX_LINE] = '\n';
	memcpy(text + INI_MAX_LINE + 1, "k=", 2);
	text[2 * INI_MAX_LINE + 2] = '\n';
	out = lex_n(text, 2 * INI_MAX_LINE + 3, -1, &ret);
	assert_int_equal(ret, -EINVAL);
	assert_int_equal(strncmp(out, "K1 k=[xxx", 9), 0);
	assert_non_null(strstr(out, "]\nE2 line longer than 4096 bytes\n"));
	free(out);
	/* CR LF does not count against the line */
	text[INI_MAX_LINE] = '\r';
	text[INI_MAX_LINE + 1] = '\n';
	out = lex_n(text, INI_MAX_LINE + 2, -1, &ret);
	assert_int_equal(ret, 0);
	free(out);
	out = lex_n(text, INI_MAX_FILE + 1, -1, &ret);
	assert_string_equal(out, "E0 larger than 1 MiB; a rules file is smaller\n");
	assert_int_equal(ret, -EINVAL);
	free(out);
	free(text);
}

static void test_callback_stops_the_lexer(void **state)
{
	const char *text = "[a]\nk = 1\nbad\nk = 2\n";
	int ret;
	char *out;

	out = lex_n(text, strlen(text), 2, &ret);
	assert_string_equal(out, "S1 a\nK2 k=[1]\n");
	assert_int_equal(ret, -ENOMEM);
	free(out);
	out = lex_n(text, strlen(text), 3, &ret);
	assert_string_equal(
		out, "S1 a\nK2 k=[1]\nE3 expected 'key = value', '[section]' or a comment\n");
	assert_int_equal(ret, -ENOMEM);
	free(out);
	out = lex_n("[a\n", 3, 1, &ret);
	assert_string_equal(out, "E1 expected ']' to end the section header\n");
	assert_int_equal(ret, -ENOMEM);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_keys_and_comments),
		cmocka_unit_test(test_inline_comments_need_a_blank),
		cmocka_unit_test(test_quoted_values),
		cmocka_unit_test(test_syntax_errors_go_on),
		cmocka_unit_test(test_line_ends_and_bom),
		cmocka_unit_test(test_bytes_that_are_not_text),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_callback_stops_the_lexer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
