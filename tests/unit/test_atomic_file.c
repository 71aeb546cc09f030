// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_atomic_file.c - writing a file as root where another user may have
 * planted something at its name: a symbolic link is replaced, never
 * followed; a FIFO is refused without blocking; another user's entry in
 * a sticky directory is refused; a planted temporary name is passed over;
 * a character device is written in place; nothing half written stays. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "trapd/util/atomic_file.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/trapd-atomic-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *name)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static char *slurp(const char *path)
{
	static char text[256];
	size_t n;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* entries - files in the directory (temporaries left behind show here). */
static int entries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static int write_text(const char *path, const char *text, char *err, size_t errlen)
{
	return atomic_file_write_bytes(path, text, strlen(text), err, errlen);
}

static void test_writes_and_replaces_a_regular_file(void **state)
{
	char err[512] = "";

	(void)state;
	assert_int_equal(write_text(at("out.json"), "one", err, sizeof(err)), 0);
	assert_string_equal(slurp(at("out.json")), "one");
	assert_int_equal(write_text(at("out.json"), "two", err, sizeof(err)), 0);
	assert_string_equal(slurp(at("out.json")), "two");
	assert_int_equal(entries(), 1);
}

/* The attack of the finding: x.json -> a root-owned file. */
static void test_a_planted_link_is_replaced_not_followed(void **state)
{
	char err[512] = "";
	struct stat st;

	(void)state;
	put(at("victim"), "root's secret\n");
	assert_int_equal(symlink(at("victim"), at("x.json")), 0);
	assert_int_equal(write_text(at("x.json"), "capture metadata", err, sizeof(err)), 0);
	assert_string_equal(slurp(at("victim")), "root's secret\n");
	assert_int_equal(lstat(at("x.json"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(slurp(at("x.json")), "capture metadata");
}

static void test_a_planted_fifo_is_refused_without_blocking(void **state)
{
	char err[512] = "";
	struct stat st;

	(void)state;
	assert_int_equal(mkfifo(at("x.json"), 0666), 0);
	assert_int_equal(atomic_file_check(at("x.json"), err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "exists and is a FIFO"));
	err[0] = '\0';
	assert_int_equal(write_text(at("x.json"), "data", err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "exists and is a FIFO; not written through"));
	assert_int_equal(lstat(at("x.json"), &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(entries(), 1); /* no temporary left */
}

/* Temporaries have random names made with O_EXCL: one planted at the
 * name of an earlier version (NAME.tmp.PID) is passed over, unfollowed. */
static void test_a_planted_temporary_is_not_followed(void **state)
{
	char err[512] = "", tmp[64];

	(void)state;
	put(at("victim"), "keep\n");
	snprintf(tmp, sizeof(tmp), "out.tmp.%d", (int)getpid());
	assert_int_equal(symlink(at("victim"), at(tmp)), 0);
	assert_int_equal(write_text(at("out"), "new", err, sizeof(err)), 0);
	assert_string_equal(slurp(at("victim")), "keep\n");
	assert_string_equal(slurp(at("out")), "new");
}

/* /tmp's rule: in a sticky directory, another user's entry is theirs. */
static void test_another_users_entry_in_a_sticky_dir_is_refused(void **state)
{
	char err[512] = "";

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(dir, 01777), 0);
	put(at("victim"), "keep\n");
	assert_int_equal(symlink(at("victim"), at("x.json")), 0);
	assert_int_equal(lchown(at("x.json"), 65534, 65534), 0);
	assert_int_equal(atomic_file_check(at("x.json"), err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "a symbolic link of uid 65534 in the sticky directory"));
	assert_int_equal(write_text(at("x.json"), "data", err, sizeof(err)), -EPERM);
	assert_string_equal(slurp(at("victim")), "keep\n");
	/* our own entry there, or a new name, is fine */
	assert_int_equal(write_text(at("mine.json"), "data", err, sizeof(err)), 0);
	assert_int_equal(write_text(at("mine.json"), "again", err, sizeof(err)), 0);
	assert_int_equal(chmod(dir, 0700), 0);
}

static void test_a_character_device_is_written_in_place(void **state)
{
	char err[512] = "";
	struct stat st;

	(void)state;
	assert_int_equal(write_text("/dev/null", "discarded", err, sizeof(err)), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_true(atomic_file_is_stream("/dev/null"));
	assert_true(atomic_file_is_stream("-"));
	assert_true(atomic_file_is_stream("/dev/stdout"));
	assert_false(atomic_file_is_stream(at("none")));
}

static void test_a_directory_or_missing_parent_is_an_error(void **state)
{
	char err[512] = "";

	(void)state;
	assert_int_equal(mkdir(at("sub"), 0700), 0);
	assert_int_equal(write_text(at("sub"), "x", err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "is a directory"));
	assert_int_equal(write_text(at("none/x"), "x", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "none"));
	assert_int_equal(write_text(at("sub/"), "x", err, sizeof(err)), -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_and_replaces_a_regular_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_planted_link_is_replaced_not_followed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_planted_fifo_is_refused_without_blocking,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_planted_temporary_is_not_followed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_another_users_entry_in_a_sticky_dir_is_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_character_device_is_written_in_place, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_directory_or_missing_parent_is_an_error,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
