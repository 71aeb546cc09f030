// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_perfmap.c - JIT perf maps: the line format and its edge cases,
 * later lines winning over earlier ones at an address, a last line still
 * being written, the caps, and reading through a process's root with its
 * namespaced pid (a fixture /proc tree) only what perf would: a regular
 * file of the process's user or root, never a link, FIFO or another
 * user's file (each refusal said in true words, without blocking), also
 * after the process exited, from the /tmp it had. */
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

#include "trapd/symbolize/perfmap.h"

static struct perfmap parse(const char *text)
{
	struct perfmap m;

	assert_int_equal(perfmap__parse(text, strlen(text), &m), 0);
	return m;
}

static void test_lines(void **state)
{
	struct perfmap m = parse("7f0000001000 40 LazyCompile:*hot /app/a.js:1:10\n"
				 "0x7f0000002000 0x20 JS:~cold\n"
				 "7F0000003000 10 [Optimized] System.String::Concat(string)\r\n");

	(void)state;
	assert_int_equal(m.n, 3);
	assert_int_equal(m.nbad, 0);
	assert_string_equal(perfmap__lookup(&m, 0x7f0000001000), "LazyCompile:*hot /app/a.js:1:10");
	assert_string_equal(perfmap__lookup(&m, 0x7f000000103f), "LazyCompile:*hot /app/a.js:1:10");
	assert_null(perfmap__lookup(&m, 0x7f0000001040));
	assert_string_equal(perfmap__lookup(&m, 0x7f000000201f), "JS:~cold");
	assert_string_equal(perfmap__lookup(&m, 0x7f0000003004),
			    "[Optimized] System.String::Concat(string)");
	assert_null(perfmap__lookup(&m, 0xfff));
	perfmap__free(&m);
}

/* Lines that do not parse are counted and skipped, not fatal. */
static void test_bad_lines(void **state)
{
	struct perfmap m = parse("1000 10 ok\n"
				 "\n"
				 "zz 10 not hex\n"
				 "2000 0 empty\n"
				 "ffffffffffffff00 200 wraps\n"
				 "3000 10\n"
				 "3000 10 \n"
				 "12345678901234567 10 seventeen digits\n"
				 "4000  10 two blanks\n");

	(void)state;
	assert_int_equal(m.n, 1);
	assert_int_equal(m.nbad, 7);
	perfmap__free(&m);
}

/* Code compiled again at an address: the later line names it. */
static void test_later_wins(void **state)
{
	struct perfmap m = parse("1000 100 old\n"
				 "1040 10 inner\n"
				 "1000 100 new\n");

	(void)state;
	assert_string_equal(perfmap__lookup(&m, 0x1010), "new");
	assert_string_equal(perfmap__lookup(&m, 0x1044), "new");
	perfmap__free(&m);
	m = parse("1000 100 old\n1040 10 inner\n");
	assert_string_equal(perfmap__lookup(&m, 0x1044), "inner");
	assert_string_equal(perfmap__lookup(&m, 0x1080), "old");
	perfmap__free(&m);
}

/* A runtime may be writing the last line: only whole lines count. */
static void test_partial_last_line(void **state)
{
	struct perfmap m = parse("1000 10 whole\n2000 10 half-writ");

	(void)state;
	assert_int_equal(m.n, 1);
	assert_int_equal(m.nbad, 0);
	assert_null(perfmap__lookup(&m, 0x2000));
	perfmap__free(&m);
}

static void test_long_name_cut(void **state)
{
	char *text = malloc(PERFMAP_MAX_NAME * 2 + 16);
	struct perfmap m;

	(void)state;
	memcpy(text, "1000 10 ", 8);
	memset(text + 8, 'x', PERFMAP_MAX_NAME * 2);
	memcpy(text + 8 + PERFMAP_MAX_NAME * 2, "\n", 2);
	m = parse(text);
	assert_int_equal(m.n, 1);
	assert_int_equal(strlen(perfmap__lookup(&m, 0x1000)), PERFMAP_MAX_NAME);
	perfmap__free(&m);
	free(text);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Read as the process sees it: /proc/PID/root/tmp/perf-NSPID.map. */
static void test_read_through_root(void **state)
{
	char dir[] = "/tmp/test_perfmap.XXXXXX", path[512];
	struct perfmap m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/42", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/42/rootfs", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/42/rootfs/tmp", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/42/root", dir);
	assert_int_equal(symlink("rootfs", path), 0);
	snprintf(path, sizeof(path), "%s/42/status", dir);
	write_file(path, "Name:\tnode\nPid:\t42\nNSpid:\t42\t7\n");
	snprintf(path, sizeof(path), "%s/42/rootfs/tmp/perf-7.map", dir);
	write_file(path, "1000 10 inside\n");
	assert_int_equal(perfmap__read(dir, 42, &m), 0);
	assert_string_equal(perfmap__lookup(&m, 0x1004), "inside");
	perfmap__free(&m);
	/* a link planted in the target's /tmp is not followed at all */
	unlink(path);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(perfmap__read(dir, 42, &m), -ELOOP);
	assert_string_equal(m.error, "/tmp/perf-7.map: a symbolic link (not followed)");
	unlink(path);
	assert_int_equal(perfmap__read(dir, 42, &m), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* perfmap_fixture - DIR/42 as a process of uid 1000 seeing itself as
 * pid 7; the path of its perf map into @map. */
static void perfmap_fixture(char *dir, char *map, size_t len)
{
	char path[512];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/42", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/42/rootfs", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/42/rootfs/tmp", dir);
	assert_int_equal(mkdir(path, 01777), 0);
	snprintf(path, sizeof(path), "%s/42/root", dir);
	assert_int_equal(symlink("rootfs", path), 0);
	snprintf(path, sizeof(path), "%s/42/status", dir);
	write_file(path, "Name:\tnode\nPid:\t42\nUid:\t1000\t1000\t1000\t1000\nNSpid:\t42\t7\n");
	snprintf(map, len, "%s/42/rootfs/tmp/perf-7.map", dir);
}

static void perfmap_fixture_free(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* perf's rule: the process's user's file, or root's; another user's map
 * could name the process's code anything. */
static void test_owner_must_be_the_process_or_root(void **state)
{
	char dir[] = "/tmp/test_perfmap.XXXXXX", map[512];
	struct perfmap m;

	(void)state;
	if (geteuid() != 0)
		skip();
	perfmap_fixture(dir, map, sizeof(map));
	write_file(map, "1000 10 SECRETNAME\n");
	assert_int_equal(chown(map, 1001, 1001), 0);
	assert_int_equal(perfmap__read(dir, 42, &m), -EPERM);
	assert_string_equal(m.error, "/tmp/perf-7.map: owned by uid 1001, not by the process's "
				     "user (uid 1000) or root");
	assert_int_equal(m.n, 0);
	assert_int_equal(chown(map, 1000, 1000), 0);
	assert_int_equal(perfmap__read(dir, 42, &m), 0);
	assert_string_equal(perfmap__lookup(&m, 0x1004), "SECRETNAME");
	perfmap__free(&m);
	assert_int_equal(chown(map, 0, 0), 0);
	assert_int_equal(perfmap__read(dir, 42, &m), 0);
	perfmap__free(&m);
	perfmap_fixture_free(dir);
}

/* A FIFO is never opened (so never blocks), and is called a FIFO. */
static void test_fifo_is_refused_in_true_words(void **state)
{
	char dir[] = "/tmp/test_perfmap.XXXXXX", map[512];
	struct perfmap m;

	(void)state;
	perfmap_fixture(dir, map, sizeof(map));
	assert_int_equal(mkfifo(map, 0666), 0);
	assert_int_equal(perfmap__read(dir, 42, &m), -EPERM);
	assert_string_equal(m.error, "/tmp/perf-7.map: a FIFO, not a regular file");
	perfmap_fixture_free(dir);
}

/* After the process exits its map is read from the /tmp it had (kept
 * open while it lived), not from whatever that path names now, and with
 * the same checks: a link planted after the exit is not followed, a file
 * of another user is not read. */
static void test_read_after_exit_from_the_kept_tmp(void **state)
{
	char dir[] = "/tmp/test_perfmap.XXXXXX", map[512], path[700], moved[600];
	struct perfmap_owner o;
	struct perfmap m;
	int tmp;

	(void)state;
	perfmap_fixture(dir, map, sizeof(map));
	write_file(map, "1000 10 early\n");
	tmp = perfmap__open_tmp(dir, 42, &o);
	assert_true(tmp >= 0);
	assert_int_equal(o.nspid, 7);
	assert_int_equal(o.ruid, 1000);
	/* the process exits: its /proc entry goes, and its /tmp is no longer
	 * where it was (a mount namespace's that died); the path now holds
	 * another directory with a decoy */
	snprintf(path, sizeof(path), "%s/42/root", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/42/rootfs/tmp", dir);
	snprintf(moved, sizeof(moved), "%s/gone-tmp", dir);
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(mkdir(path, 01777), 0);
	write_file(map, "1000 10 decoy\n");
	snprintf(path, sizeof(path), "%s/perf-7.map", moved);
	write_file(path, "1000 10 early\n1000 10 complete at exit\n");
	assert_int_equal(perfmap__read(dir, 42, &m), -ENOENT);
	assert_int_equal(perfmap__read_at(tmp, &o, PERFMAP_MAX_FILE, &m), 0);
	assert_string_equal(perfmap__lookup(&m, 0x1004), "complete at exit");
	perfmap__free(&m);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(perfmap__read_at(tmp, &o, PERFMAP_MAX_FILE, &m), -ELOOP);
	assert_string_equal(m.error, "/tmp/perf-7.map: a symbolic link (not followed)");
	assert_int_equal(m.n, 0);
	if (geteuid() == 0) {
		assert_int_equal(unlink(path), 0);
		write_file(path, "1000 10 SECRETNAME\n");
		assert_int_equal(chown(path, 1001, 1001), 0);
		assert_int_equal(perfmap__read_at(tmp, &o, PERFMAP_MAX_FILE, &m), -EPERM);
		assert_int_equal(m.n, 0);
	}
	close(tmp);
	perfmap_fixture_free(dir);
}

static void test_parse_status(void **state)
{
	struct perfmap_owner o;

	(void)state;
	perfmap__parse_status("\nName:\tx\nUid:\t1000\t0\t0\t0\nNSpid:\t9\t3\n", 9, &o);
	assert_int_equal(o.nspid, 3);
	assert_int_equal(o.ruid, 1000);
	assert_int_equal(o.euid, 0);
	perfmap__parse_status("\nUid:\t1\nNSpid:\t9\n", 9, &o);
	assert_int_equal(o.nspid, 9);
	assert_int_equal(o.ruid, 1);
	assert_int_equal(o.euid, -1);
	perfmap__parse_status("\nUid:\tx 5\nNSpid:\t99999999999999999999\n", 9, &o);
	assert_int_equal(o.nspid, 9);
	assert_int_equal(o.ruid, -1);
	perfmap__parse_status("", 4, &o);
	assert_int_equal(o.nspid, 4);
	assert_int_equal(o.euid, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_later_wins),
		cmocka_unit_test(test_partial_last_line),
		cmocka_unit_test(test_long_name_cut),
		cmocka_unit_test(test_read_through_root),
		cmocka_unit_test(test_owner_must_be_the_process_or_root),
		cmocka_unit_test(test_fifo_is_refused_in_true_words),
		cmocka_unit_test(test_read_after_exit_from_the_kept_tmp),
		cmocka_unit_test(test_parse_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
