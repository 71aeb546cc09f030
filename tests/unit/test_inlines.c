// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_inlines.c - inline chains from the DWARF of a real -O2 -g build
 * (tests/workloads/nofp/inl, found under $TRAPD_BUILD): inl_hot_inline is
 * always inlined into inl_caller; the chain, the names and the lines
 * (checked against the markers in its source) must be right, and limits
 * and damaged DWARF must give nothing rather than a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/symbolize/elfsym.h"
#include "trapd/symbolize/inlines.h"

static const char *artifact(const char *name)
{
	static char path[4096];
	const char *build = getenv("TRAPD_BUILD");

	snprintf(path, sizeof(path), "%s/workloads/%s", build && *build ? build : "build", name);
	return path;
}

/* marker_line - the line of @path holding @marker, 0 if none. */
static int64_t marker_line(const char *path, const char *marker)
{
	char line[512];
	int64_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

static struct inlines *open_inl(uint64_t max_bytes, uint64_t *bytes)
{
	int fd = open(artifact("nofp/inl"), O_RDONLY | O_CLOEXEC);
	struct inlines *in;

	assert_true(fd >= 0);
	in = inlines__open_fd(fd, max_bytes, bytes);
	close(fd);
	return in;
}

/* caller_start - the address of inl_caller in the workload. */
static uint64_t caller_start(void)
{
	struct elfsym *e = elfsym__open(artifact("nofp/inl"));
	uint64_t start = 0;

	assert_non_null(e);
	assert_int_equal(elfsym__find(e, "inl_caller", &start), 0);
	elfsym__free(e);
	return start;
}

static void test_chain_names_and_lines(void **state)
{
	struct inlines_frame f[8];
	uint64_t bytes, start = caller_start(), a;
	struct inlines *in = open_inl(UINT64_MAX, &bytes);
	int64_t hot, call, def;
	unsigned n, inlined = 0, hot_seen = 0;

	assert_non_null(in);
	assert_true(bytes > 0);
	for (a = start; a < start + 0x200; a++) {
		n = inlines__lookup(in, a, f, 8);
		if (n < 2 || strcmp(f[0].name, "inl_hot_inline"))
			continue;
		inlined++;
		assert_int_equal(n, 2);
		assert_string_equal(f[1].name, "inl_caller");
		assert_non_null(f[0].decl_file);
		hot = marker_line(f[0].decl_file, "/* HOT */");
		call = marker_line(f[0].decl_file, "/* CALL */");
		def = marker_line(f[0].decl_file, "unsigned long inl_hot_inline(");
		assert_true(hot > 0 && call > 0 && def > 0);
		/* The caller's line is the call; the inlined function's is in it. */
		assert_int_equal(f[1].line, call);
		assert_int_equal(f[0].decl_line, def);
		assert_true(f[0].line >= def && f[0].line < call);
		hot_seen += f[0].line == hot;
	}
	assert_true(inlined > 0);
	assert_true(hot_seen > 0);
	/* Wherever in it, the outermost frame is the function itself. */
	n = inlines__lookup(in, start, f, 8);
	assert_true(n >= 1);
	assert_string_equal(f[n - 1].name, "inl_caller");
	/* No unit holds address 1. */
	assert_int_equal(inlines__lookup(in, 1, f, 8), 0);
	inlines__free(in);
}

static void test_chain_deeper_than_max_keeps_the_outermost(void **state)
{
	struct inlines_frame f[1];
	uint64_t bytes, start = caller_start(), a;
	struct inlines *in = open_inl(UINT64_MAX, &bytes);
	struct inlines_frame all[8];
	bool checked = false;

	assert_non_null(in);
	for (a = start; a < start + 0x200 && !checked; a++) {
		if (inlines__lookup(in, a, all, 8) != 2)
			continue;
		assert_int_equal(inlines__lookup(in, a, f, 1), 1);
		assert_string_equal(f[0].name, "inl_caller");
		checked = true;
	}
	assert_true(checked);
	inlines__free(in);
}

static void test_byte_limit_refuses(void **state)
{
	uint64_t bytes = 0;

	errno = 0;
	assert_null(open_inl(16, &bytes));
	assert_int_equal(errno, E2BIG);
	/* What it would have read is said, for the budget's accounting. */
	assert_true(bytes > 16);
}

static void test_file_without_dwarf(void **state)
{
	int fd = open(artifact("symtest/symtest-stripped"), O_RDONLY | O_CLOEXEC);
	uint64_t bytes;

	assert_true(fd >= 0);
	errno = 0;
	assert_null(inlines__open_fd(fd, UINT64_MAX, &bytes));
	assert_int_equal(errno, ENOENT);
	close(fd);
}

/* Every function of a unit, in an order unlike its DIEs' and its
 * addresses', among them functions in a C++ namespace (a container the
 * unit's index looks into): each address is named by its own function,
 * looked up through the index the first lookup made. */
static void test_each_function_of_a_unit(void **state)
{
	static const char *const names[] = { "_ZN7cxxspin5churnEi", "main", "_ZN7cxxspin3runEd",
					     "_ZN7cxxspin5churnEi" };
	int fd = open(artifact("cxxspin"), O_RDONLY | O_CLOEXEC);
	struct elfsym *e = elfsym__open(artifact("cxxspin"));
	struct inlines_frame f[8];
	struct inlines *in;
	uint64_t bytes, start;
	unsigned i, n;

	assert_true(fd >= 0);
	assert_non_null(e);
	in = inlines__open_fd(fd, UINT64_MAX, &bytes);
	close(fd);
	assert_non_null(in);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(elfsym__find(e, names[i], &start), 0);
		n = inlines__lookup(in, start + 1, f, 8);
		assert_true(n >= 1);
		assert_string_equal(f[n - 1].name, names[i]);
	}
	/* an address no function holds */
	assert_int_equal(inlines__lookup(in, 1, f, 8), 0);
	inlines__free(in);
	elfsym__free(e);
}

/* read_file - the whole workload in a malloc'd buffer. */
static unsigned char *read_file(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Every byte of .debug_info and .debug_abbrev overwritten in turn with
 * junk: lookups give what they give, never a crash (ASan would say). */
static void test_damaged_dwarf_gives_nothing_worse(void **state)
{
	struct inlines_frame f[INLINES_MAX_NEST];
	size_t len, i, step;
	unsigned char *orig = read_file(artifact("nofp/inl"), &len), *img;
	uint64_t bytes, start = caller_start();
	struct inlines *in;

	img = malloc(len);
	assert_non_null(img);
	step = len / 2000 + 1;
	for (i = 0; i < len; i += step) {
		size_t n = step < 16 ? step : 16;

		memcpy(img, orig, len);
		/* the last stretch of the file may be shorter */
		memset(img + i, (int)(i * 37), n < len - i ? n : len - i);
		in = inlines__open_mem(img, len, UINT64_MAX, &bytes);
		if (!in)
			continue;
		inlines__lookup(in, start + 0x10, f, INLINES_MAX_NEST);
		inlines__lookup(in, start + 0x40, f, INLINES_MAX_NEST);
		inlines__free(in);
	}
	free(img);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_names_and_lines),
		cmocka_unit_test(test_chain_deeper_than_max_keeps_the_outermost),
		cmocka_unit_test(test_byte_limit_refuses),
		cmocka_unit_test(test_file_without_dwarf),
		cmocka_unit_test(test_each_function_of_a_unit),
		cmocka_unit_test(test_damaged_dwarf_gives_nothing_worse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
