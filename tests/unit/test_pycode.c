// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_pycode.c - Python code objects as the sampler reads them: every
 * code unit of 360 real code objects (CPython 3.11, 3.12 and 3.13's own
 * line tables and lines, tests/data/python/make-linetables.py) gets the
 * line CPython gives it; a table cut anywhere yields a right line or 0;
 * names are checked (types, kinds, lengths) before they are believed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/pycode.h"

#define CODE_TYPE 0x7f0000001000ull
#define UNICODE_TYPE 0x7f0000002000ull
#define BYTES_TYPE 0x7f0000003000ull

static const char *datadir(void)
{
	const char *d = getenv("TRAPD_TESTDATA");

	return d ? d : "tests/data";
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One code object of a linetables file. */
struct table {
	int32_t first;
	uint8_t *bytes;
	size_t nbytes;
	int32_t *lines; /* per code unit */
	size_t nlines;
};

static bool read_table(FILE *f, struct table *t)
{
	static char line[1 << 20];
	char *hex, *list, *p;
	size_t i;

	if (!fgets(line, sizeof(line), f))
		return false;
	t->first = (int32_t)strtol(line, &hex, 10);
	hex++;
	list = strchr(hex, ' ');
	assert_non_null(list);
	*list++ = '\0';
	t->nbytes = strlen(hex) / 2;
	t->bytes = malloc(t->nbytes + 1);
	for (i = 0; i < t->nbytes; i++)
		t->bytes[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
	t->lines = malloc(strlen(list) * sizeof(*t->lines) + 4);
	for (t->nlines = 0, p = list; *p && *p != '\n'; t->nlines++) {
		t->lines[t->nlines] = (int32_t)strtol(p, &p, 10);
		if (*p == ',')
			p++;
	}
	return true;
}

static void check_version(const char *version)
{
	char path[512];
	struct table t;
	size_t codes = 0, units = 0, cut;
	uint32_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/python/linetables-%s.txt", datadir(), version);
	f = fopen(path, "re");
	assert_non_null(f);
	while (read_table(f, &t)) {
		for (i = 0; i < t.nlines; i++, units++) {
			int32_t got = pycode__line_at(t.bytes, t.nbytes, t.first, i);

			if (got != t.lines[i])
				fail_msg(
					"%s: code %zu (first line %d), unit %u: line %d, CPython says %d",
					version, codes, t.first, i, got, t.lines[i]);
		}
		/* past the last unit: no line */
		assert_int_equal(pycode__line_at(t.bytes, t.nbytes, t.first, (uint32_t)t.nlines),
				 0);
		/* cut anywhere: the right line or none, never another */
		for (cut = 0; cut < t.nbytes; cut += 1 + cut / 8)
			for (i = 0; i < t.nlines; i += 3) {
				int32_t got = pycode__line_at(t.bytes, cut, t.first, i);

				assert_true(got == 0 || got == t.lines[i]);
			}
		free(t.bytes);
		free(t.lines);
		codes++;
	}
	fclose(f);
	assert_true(codes >= 100);
	print_message("    %s: %zu code objects, %zu code units\n", version, codes, units);
}

static void test_lines_as_cpython_311(void **state)
{
	(void)state;
	check_version("3.11");
}

static void test_lines_as_cpython_312(void **state)
{
	(void)state;
	check_version("3.12");
}

static void test_lines_as_cpython_313(void **state)
{
	(void)state;
	check_version("3.13");
}

static void test_bad_tables_have_no_lines(void **state)
{
	/* a continuation byte where an entry starts; a varint that never ends */
	static const uint8_t not_entry[] = { 0x12, 0x80 };
	static const uint8_t endless[] = { 0xe8, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41 };
	/* 15: no location, then a long entry of +2 lines */
	static const uint8_t none_then_long[] = { 0xf8, 0xf0, 0x04, 0x00, 0x00, 0x00 };

	(void)state;
	assert_int_equal(pycode__line_at(not_entry, sizeof(not_entry), 10, 0), 0);
	assert_int_equal(pycode__line_at(endless, sizeof(endless), 10, 0), 0);
	assert_int_equal(pycode__line_at(none_then_long, sizeof(none_then_long), 10, 0), 0);
	assert_int_equal(pycode__line_at(none_then_long, sizeof(none_then_long), 10, 1), 12);
	assert_int_equal(pycode__line_at(NULL, 0, 10, 0), 0);
}

static const struct pyruntime rt = {
	.version = 0x030b02f0,
	.layout = { .co_code = 0xb8 },
	.code_type = CODE_TYPE,
	.unicode_type = UNICODE_TYPE,
	.bytes_type = BYTES_TYPE,
};

/* set_str - a compact string of @n characters of @kind bytes. */
static void set_str(struct sampler_py_str *s, const void *chars, size_t n, unsigned kind,
		    bool ascii)
{
	memset(s, 0, sizeof(*s));
	s->type = UNICODE_TYPE;
	s->length = n;
	s->state = kind << 2 | 1u << 5 | (ascii ? 1u << 6 : 0);
	s->copied = (uint32_t)(n * kind > SAMPLER_PY_NAME_MAX ? SAMPLER_PY_NAME_MAX : n * kind);
	memcpy(s->data, chars, s->copied);
}

static struct sampler_py_code *good_record(void)
{
	struct sampler_py_code *r = calloc(1, sizeof(*r));

	r->pid = 42;
	r->code = 0x7f0000100000ull;
	r->type = CODE_TYPE;
	r->firstlineno = 7;
	set_str(&r->qualname, "Outer.held_leaf", 15, 1, true);
	set_str(&r->filename, "/srv/app.py", 11, 1, true);
	r->lines_type = BYTES_TYPE;
	/* 4 units on the first line (one-line form 10, two column bytes), then
	 * 2 units two lines further (form 12) */
	r->lines[0] = 0x80 | 10 << 3 | 3;
	r->lines[1] = 0;
	r->lines[2] = 0;
	r->lines[3] = 0x80 | 12 << 3 | 1; /* delta 2, 2 units */
	r->lines[4] = 0;
	r->lines[5] = 0;
	r->lines_copied = 6;
	r->lines_size = 6;
	return r;
}

static void test_decode_names_and_lines(void **state)
{
	struct sampler_py_code *r = good_record();
	struct pycode c;

	(void)state;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_string_equal(c.qualname, "Outer.held_leaf");
	assert_string_equal(c.filename, "/srv/app.py");
	assert_int_equal(c.firstlineno, 7);
	assert_false(c.lines_cut);
	assert_int_equal(pycode__line(&c, 0xb8), 7);
	assert_int_equal(pycode__line(&c, 0xb8 + 2 * 3), 7);
	assert_int_equal(pycode__line(&c, 0xb8 + 2 * 4), 9);
	assert_int_equal(pycode__line(&c, 0xb8 + 2 * 6), 0); /* past the table */
	assert_int_equal(pycode__line(&c, 0x10), 0);	     /* before the code */
	assert_int_equal(pycode__line(&c, SAMPLER_PY_INSTR_UNKNOWN), 0);
	/* what was kept of the record: the header and the copied table */
	assert_int_equal(pycode__decode(r, offsetof(struct sampler_py_code, lines) + 6, &rt, &c),
			 PYCODE_OK);
	free(r);
}

static void test_decode_wide_names(void **state)
{
	static const uint8_t latin1[] = { 'c', 0xe9, 'l', 0x07 };
	static const uint16_t ucs2[] = { 0x4f60, 0x597d };
	static const uint32_t ucs4[] = { 0x1f600, 'x' };
	struct sampler_py_code *r = good_record();
	struct pycode c;

	(void)state;
	set_str(&r->qualname, latin1, 4, 1, false);
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_string_equal(c.qualname, "c\xc3\xa9l?"); /* a control character shown as '?' */
	set_str(&r->qualname, ucs2, 2, 2, false);
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_string_equal(c.qualname, "\xe4\xbd\xa0\xe5\xa5\xbd");
	set_str(&r->qualname, ucs4, 2, 4, false);
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_string_equal(c.qualname, "\xf0\x9f\x98\x80x");
	free(r);
}

static void test_decode_long_name_is_marked_cut(void **state)
{
	struct sampler_py_code *r = good_record();
	char name[400];
	struct pycode c;

	(void)state;
	memset(name, 'a', sizeof(name));
	set_str(&r->qualname, name, sizeof(name), 1, true);
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_int_equal(strlen(c.qualname), SAMPLER_PY_NAME_MAX + 3);
	assert_string_equal(c.qualname + SAMPLER_PY_NAME_MAX, "...");
	free(r);
}

static void test_decode_refuses_what_is_not_so(void **state)
{
	struct sampler_py_code *r = good_record();
	struct pycode c;

	(void)state;
	r->type = UNICODE_TYPE; /* freed, its memory reused */
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_NOT_CODE);
	free(r);

	r = good_record();
	r->qualname.type = BYTES_TYPE;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	r->qualname.type = UNICODE_TYPE;
	r->qualname.state &= ~(1u << 5); /* not compact */
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	free(r);

	r = good_record();
	r->qualname.data[3] = 0xc3; /* "ascii" with a byte past 0x7f */
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	free(r);

	r = good_record();
	r->qualname.state = 3u << 2 | 1u << 5; /* kind 3 */
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	free(r);

	r = good_record();
	r->qualname.copied = 300; /* more than the buffer */
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	r->qualname.copied = 15;
	r->qualname.length = 3; /* fewer characters than copied */
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	r->qualname.length = 0;
	r->qualname.copied = 0;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_NAME);
	free(r);

	r = good_record();
	r->filename.type = 0;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_BAD_FILENAME);
	free(r);

	r = good_record();
	assert_int_equal(pycode__decode(r, offsetof(struct sampler_py_code, lines) - 1, &rt, &c),
			 PYCODE_TRUNCATED);
	assert_int_equal(pycode__decode(r, offsetof(struct sampler_py_code, lines) + 5, &rt, &c),
			 PYCODE_TRUNCATED);
	/* a line table of another type: named, without lines */
	r->lines_type = UNICODE_TYPE;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_int_equal(pycode__line(&c, 0xb8), 0);
	/* a table longer than its copy */
	r->lines_type = BYTES_TYPE;
	r->lines_size = 9000;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_true(c.lines_cut);
	/* a copy longer than the table says it is */
	r->lines_size = 2;
	assert_int_equal(pycode__decode(r, sizeof(*r), &rt, &c), PYCODE_OK);
	assert_null(c.lines);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_as_cpython_311),
		cmocka_unit_test(test_lines_as_cpython_312),
		cmocka_unit_test(test_lines_as_cpython_313),
		cmocka_unit_test(test_bad_tables_have_no_lines),
		cmocka_unit_test(test_decode_names_and_lines),
		cmocka_unit_test(test_decode_wide_names),
		cmocka_unit_test(test_decode_long_name_is_marked_cut),
		cmocka_unit_test(test_decode_refuses_what_is_not_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
