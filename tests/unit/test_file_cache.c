// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_file_cache.c - polled files kept open, read once a tick. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/file_cache.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Within a tick every read of a path gets the text of the first; the
 * next tick reads it again. A file outside procfs and kernfs is not kept
 * open (an unlinked one would read on), and its removal is seen. */
static void test_one_read_a_tick(void **state)
{
	char tmp[] = "/tmp/trapd-file-cache-XXXXXX", buf[64];
	struct file_cache *c = file_cache__new();
	size_t len;
	int fd;

	(void)state;
	assert_non_null(c);
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	put(tmp, "1\n");
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, tmp, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "1\n");
	put(tmp, "22\n");
	assert_int_equal(file_cache__read(c, tmp, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "1\n"); /* the tick's text */
	assert_int_equal(len, 2);
	assert_int_equal(file_cache__open_files(c), 0);
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, tmp, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "22\n");
	/* a buffer too small for the tick's text: as a read would say */
	assert_int_equal(file_cache__read(c, tmp, buf, 3, &len), -EFBIG);
	assert_int_equal(len, 0);
	unlink(tmp);
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, tmp, buf, sizeof(buf), &len), -ENOENT);
	assert_int_equal(file_cache__read(c, tmp, buf, sizeof(buf), &len), -ENOENT);
	/* no cache: the plain read */
	assert_int_equal(file_cache__read(NULL, "/proc/self/stat", buf, sizeof(buf), &len), -EFBIG);
	file_cache__free(c);
}

/* A file of /proc is kept open and read again from offset 0; once its
 * process is gone the kept file fails, the path is tried afresh, and the
 * answer is the path's. */
static void test_proc_file_is_kept_until_its_process_goes(void **state)
{
	struct file_cache *c = file_cache__new();
	char path[64], buf[4096];
	int status;
	size_t len;
	pid_t child;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, path, buf, sizeof(buf), &len), 0);
	assert_int_equal(strtol(buf, NULL, 10), child);
	assert_int_equal(file_cache__open_files(c), 1);
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, path, buf, sizeof(buf), &len), 0);
	assert_true(len > 0 && buf[len - 1] == '\n');
	assert_int_equal(strtol(buf, NULL, 10), child);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, path, buf, sizeof(buf), &len), -ENOENT);
	assert_int_equal(len, 0);
	assert_int_equal(file_cache__open_files(c), 0);
	file_cache__free(c);
}

/* A file no read asks for is closed after FILE_CACHE_IDLE_TICKS ticks. */
static void test_unread_files_are_closed(void **state)
{
	struct file_cache *c = file_cache__new();
	char buf[4096];
	int i;

	(void)state;
	file_cache__tick(c);
	assert_int_equal(file_cache__read(c, "/proc/self/stat", buf, sizeof(buf), NULL), 0);
	assert_int_equal(file_cache__read(c, "/proc/self/statm", buf, sizeof(buf), NULL), 0);
	assert_int_equal(file_cache__open_files(c), 2);
	for (i = 0; i < FILE_CACHE_IDLE_TICKS; i++) {
		file_cache__tick(c);
		assert_int_equal(file_cache__read(c, "/proc/self/stat", buf, sizeof(buf), NULL), 0);
	}
	assert_int_equal(file_cache__open_files(c), 2);
	file_cache__tick(c);
	assert_int_equal(file_cache__open_files(c), 1); /* statm, unread for too long */
	file_cache__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_read_a_tick),
		cmocka_unit_test(test_proc_file_is_kept_until_its_process_goes),
		cmocka_unit_test(test_unread_files_are_closed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
