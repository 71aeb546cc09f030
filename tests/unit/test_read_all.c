// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_read_all.c - reading a whole fd under a cap: exactly the cap, one
 * byte over it (an error, or cut and said so), empty files, and a pipe,
 * which says nothing of its size in advance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/read_all.h"

/* pipe_of - a pipe holding @n bytes of 'x', its write end closed. */
static int pipe_of(size_t n)
{
	int fds[2];
	char buf[4096];

	assert_int_equal(pipe(fds), 0);
	memset(buf, 'x', sizeof(buf));
	while (n) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);

		assert_int_equal(write(fds[1], buf, k), (ssize_t)k);
		n -= k;
	}
	close(fds[1]);
	return fds[0];
}

static void test_exactly_the_cap(void **state)
{
	int fd = pipe_of(5000);
	bool cut = true;
	size_t len;
	char *out;

	(void)state;
	assert_int_equal(read_all(fd, 5000, &out, &len, &cut), 0);
	assert_int_equal(len, 5000);
	assert_false(cut);
	assert_int_equal(out[len], '\0');
	free(out);
	close(fd);
}

static void test_over_the_cap_is_an_error(void **state)
{
	int fd = pipe_of(5001);
	size_t len = 7;
	char *out = NULL;

	(void)state;
	assert_int_equal(read_all(fd, 5000, &out, &len, NULL), -EFBIG);
	assert_null(out);
	close(fd);
}

static void test_over_the_cap_is_cut_when_asked(void **state)
{
	int fd = pipe_of(9000);
	bool cut = false;
	size_t len;
	char *out;

	(void)state;
	assert_int_equal(read_all(fd, 5000, &out, &len, &cut), 0);
	assert_int_equal(len, 5000);
	assert_true(cut);
	free(out);
	close(fd);
}

static void test_empty(void **state)
{
	int fd = pipe_of(0);
	bool cut = true;
	size_t len = 7;
	char *out;

	(void)state;
	assert_int_equal(read_all(fd, 0, &out, &len, &cut), 0);
	assert_int_equal(len, 0);
	assert_false(cut);
	assert_string_equal(out, "");
	free(out);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exactly_the_cap),
		cmocka_unit_test(test_over_the_cap_is_an_error),
		cmocka_unit_test(test_over_the_cap_is_cut_when_asked),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
