// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_procmaps.c - the /proc/PID/maps parser: fields, odd paths, malformed
 * lines, caps, the fixture tree in tests/data/proc and this process's own
 * maps. Run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/symbolize/procmaps.h"

#define FIXTURES "tests/data/proc"

static int parse_str(const char *text, unsigned int flags, struct procmaps *m)
{
	return procmaps__parse(text, strlen(text), flags, m);
}

static void test_parses_every_field(void **state)
{
	struct procmaps m;

	assert_int_equal(parse_str("55bcce686000-55bcce68b000 r-xp 00002000 fe:01 247134"
				   "                     /usr/bin/cat\n",
				   0, &m),
			 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.nbad, 0);
	assert_false(m.truncated);
	assert_int_equal(m.entries[0].start, 0x55bcce686000ull);
	assert_int_equal(m.entries[0].end, 0x55bcce68b000ull);
	assert_int_equal(m.entries[0].offset, 0x2000);
	assert_int_equal(m.entries[0].dev_major, 0xfe);
	assert_int_equal(m.entries[0].dev_minor, 1);
	assert_int_equal(m.entries[0].inode, 247134);
	assert_int_equal(m.entries[0].perms, PROCMAPS_READ | PROCMAPS_EXEC);
	assert_int_equal(m.entries[0].kind, PROCMAPS_FILE);
	assert_false(m.entries[0].deleted);
	assert_string_equal(m.entries[0].path, "/usr/bin/cat");
	procmaps__free(&m);
	assert_null(m.entries);
	assert_int_equal(m.n, 0);
}

static void test_parse_line_reports_malformed(void **state)
{
	char path[PROCMAPS_MAX_PATH + 1];
	struct procmaps_entry e;
	const char *ok = "1000-2000 rwxs 0 0:0 0 /x";
	const char *bad = "1000-2000 rwxs 0 0:0 0x /x";

	assert_int_equal(procmaps__parse_line(ok, strlen(ok), &e, path), 0);
	assert_int_equal(e.perms, PROCMAPS_READ | PROCMAPS_WRITE | PROCMAPS_EXEC | PROCMAPS_SHARED);
	assert_string_equal(e.path, "/x");
	assert_ptr_equal(e.path, path);
	assert_int_equal(procmaps__parse_line(bad, strlen(bad), &e, path), -EINVAL);
	/* only the given length counts: cut before the inode, after it, and
	 * after the space that follows it */
	assert_int_equal(procmaps__parse_line(ok, 21, &e, path), -EINVAL);
	assert_int_equal(procmaps__parse_line(ok, 22, &e, path), 0);
	assert_int_equal(e.kind, PROCMAPS_ANON);
	assert_int_equal(procmaps__parse_line(ok, 23, &e, path), 0);
	assert_string_equal(e.path, "");
}

static void test_realistic_fixture_kinds_and_paths(void **state)
{
	struct procmaps m;

	assert_int_equal(procmaps__read(FIXTURES, 100, 0, &m), 0);
	assert_int_equal(m.n, 18);
	assert_int_equal(m.nbad, 0);
	/* [heap] */
	assert_int_equal(m.entries[4].kind, PROCMAPS_PSEUDO);
	assert_string_equal(m.entries[4].path, "[heap]");
	/* anonymous, with the kernel's trailing space */
	assert_int_equal(m.entries[5].kind, PROCMAPS_ANON);
	assert_string_equal(m.entries[5].path, "");
	assert_int_equal(m.entries[6].kind, PROCMAPS_PSEUDO);
	assert_string_equal(m.entries[6].path, "[anon:jit code]");
	/* spaces inside the path are kept, padding before it is not */
	assert_int_equal(m.entries[7].kind, PROCMAPS_FILE);
	assert_string_equal(m.entries[7].path, "/opt/my app/lib with spaces.so");
	assert_int_equal(m.entries[7].dev_minor, 1);
	assert_true(m.entries[8].deleted);
	assert_string_equal(m.entries[8].path, "/usr/lib/old/libgone.so.1");
	assert_true(m.entries[9].deleted);
	assert_true(m.entries[9].perms & PROCMAPS_SHARED);
	assert_string_equal(m.entries[9].path, "/memfd:jit-cache");
	assert_int_equal(m.entries[10].kind, PROCMAPS_OTHER);
	assert_string_equal(m.entries[10].path, "anon_inode:[perf_event]");
	assert_string_equal(m.entries[16].path, "[vdso]");
	assert_int_equal(m.entries[17].start, 0xffffffffff600000ull);
	assert_int_equal(m.entries[17].perms, PROCMAPS_EXEC);
	/* consecutive mappings of one file share one copy of the path */
	assert_ptr_equal(m.entries[11].path, m.entries[12].path);
	procmaps__free(&m);
}

static void test_exec_only_keeps_executable(void **state)
{
	struct procmaps m;
	size_t i;

	assert_int_equal(procmaps__read(FIXTURES, 100, PROCMAPS_EXEC_ONLY, &m), 0);
	assert_int_equal(m.n, 10);
	for (i = 0; i < m.n; i++)
		assert_true(m.entries[i].perms & PROCMAPS_EXEC);
	assert_string_equal(m.entries[0].path, "/usr/bin/cat");
	assert_int_equal(m.entries[0].offset, 0x2000);
	assert_string_equal(m.entries[7].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(m.entries[9].path, "[vsyscall]");
	procmaps__free(&m);
}

static void test_malformed_lines_are_skipped_and_counted(void **state)
{
	struct procmaps m;

	assert_int_equal(procmaps__read(FIXTURES, 101, 0, &m), 0);
	assert_int_equal(m.nbad, 17);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.entries[0].path, "/good/first");
	assert_string_equal(m.entries[1].path, "/good/second");
	assert_string_equal(m.entries[2].path, "/good/upper-hex-max-inode");
	assert_int_equal(m.entries[2].inode, UINT64_MAX);
	assert_int_equal(m.entries[2].dev_major, 0xfe);
	assert_int_equal(m.entries[2].dev_minor, 0xa);
	/* the last line has no newline and still counts */
	assert_string_equal(m.entries[3].path, "/good/no-final-newline");
	procmaps__free(&m);
}

static void test_overlong_and_nul_lines_are_skipped(void **state)
{
	static const char head[] = "1000-2000 r-xp 0 0:0 1 /";
	static const char good[] = "3000-4000 r-xp 0 0:0 1 /ok\n";
	size_t plen = PROCMAPS_MAX_PATH + 10, len = 0;
	char *text = malloc(sizeof(head) + plen + sizeof(good) + 64);
	struct procmaps m;

	assert_non_null(text);
	memcpy(text, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	memset(text + len, 'a', plen);
	len += plen;
	text[len++] = '\n';
	/* a NUL inside a line */
	memcpy(text + len, "5000-6000 r-xp 0 0:0 1 /n\0ul\n", 29);
	len += 29;
	memcpy(text + len, good, sizeof(good) - 1);
	len += sizeof(good) - 1;
	assert_int_equal(procmaps__parse(text, len, 0, &m), 0);
	assert_int_equal(m.nbad, 2);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.entries[0].path, "/ok");
	procmaps__free(&m);
	free(text);
}

static void test_longest_path_is_accepted(void **state)
{
	size_t len = 0;
	char *text = malloc(PROCMAPS_MAX_LINE + 2);
	struct procmaps m;

	assert_non_null(text);
	len = (size_t)snprintf(text, 64, "1000-2000 r-xp 0 0:0 1 /");
	memset(text + len, 'p', PROCMAPS_MAX_PATH - 1);
	len += PROCMAPS_MAX_PATH - 1;
	assert_int_equal(procmaps__parse(text, len, 0, &m), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(strlen(m.entries[0].path), PROCMAPS_MAX_PATH);
	procmaps__free(&m);
	/* one byte more is refused */
	text[len++] = 'p';
	assert_int_equal(procmaps__parse(text, len, 0, &m), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.nbad, 1);
	procmaps__free(&m);
	free(text);
}

static void test_entry_cap_truncates(void **state)
{
	size_t n = PROCMAPS_MAX_ENTRIES + 10, i, len = 0, cap = n * 64;
	char *text = malloc(cap);
	struct procmaps m;

	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%zx-%zx r-xp 0 0:0 %zu /lib/%zu\n",
					(i + 1) << 12, (i + 2) << 12, i, i);
	assert_int_equal(procmaps__parse(text, len, PROCMAPS_EXEC_ONLY, &m), 0);
	assert_int_equal(m.n, PROCMAPS_MAX_ENTRIES);
	assert_true(m.truncated);
	assert_string_equal(m.entries[PROCMAPS_MAX_ENTRIES - 1].path, "/lib/65535");
	procmaps__free(&m);
	free(text);
}

static void test_empty_input(void **state)
{
	struct procmaps m;

	assert_int_equal(procmaps__parse("", 0, 0, &m), 0);
	assert_int_equal(m.n, 0);
	procmaps__free(&m);
	assert_int_equal(procmaps__parse(NULL, 0, 0, &m), 0);
	procmaps__free(&m);
	assert_int_equal(procmaps__parse("\n\n\n", 3, 0, &m), 0);
	assert_int_equal(m.nbad, 0);
	procmaps__free(&m);
	procmaps__free(NULL);
}

static void test_missing_process_is_esrch(void **state)
{
	struct procmaps m;

	assert_int_equal(procmaps__read(FIXTURES, 99999, 0, &m), -ESRCH);
	assert_int_equal(m.n, 0);
	assert_int_equal(procmaps__read(FIXTURES, 0, 0, &m), -EINVAL);
	assert_int_equal(procmaps__read(FIXTURES, -1, 0, &m), -EINVAL);
}

/* The parser against the real kernel: this test binary's own executable
 * mapping must be there, with the inode stat() reports. */
static void test_reads_own_maps(void **state)
{
	char exe[4096];
	struct procmaps m;
	struct stat st;
	ssize_t n;
	size_t i;
	bool found = false;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(stat(exe, &st), 0);
	assert_int_equal(procmaps__read("/proc", getpid(), PROCMAPS_EXEC_ONLY, &m), 0);
	assert_int_equal(m.nbad, 0);
	assert_true(m.n >= 2);
	for (i = 0; i < m.n; i++) {
		if (strcmp(m.entries[i].path, exe) != 0)
			continue;
		found = true;
		assert_int_equal(m.entries[i].inode, (uint64_t)st.st_ino);
		assert_int_equal(m.entries[i].kind, PROCMAPS_FILE);
	}
	assert_true(found);
	procmaps__free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parses_every_field),
		cmocka_unit_test(test_parse_line_reports_malformed),
		cmocka_unit_test(test_realistic_fixture_kinds_and_paths),
		cmocka_unit_test(test_exec_only_keeps_executable),
		cmocka_unit_test(test_malformed_lines_are_skipped_and_counted),
		cmocka_unit_test(test_overlong_and_nul_lines_are_skipped),
		cmocka_unit_test(test_longest_path_is_accepted),
		cmocka_unit_test(test_entry_cap_truncates),
		cmocka_unit_test(test_empty_input),
		cmocka_unit_test(test_missing_process_is_esrch),
		cmocka_unit_test(test_reads_own_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
