// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_log.c - the logging module (trapd/util/log.h): colour only on a
 * terminal and never under a non-empty NO_COLOR (https://no-color.org),
 * checked on a real pseudo-terminal; the level-checked macros, whose
 * arguments are not evaluated when their level is off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/log.h"

/* A pseudo-terminal: the master to read what was written, the slave as
 * the terminal trapd writes to. */
struct pty {
	int master;
	int slave;
};

static int pty_setup(void **state)
{
	static struct pty p;

	p.master = posix_openpt(O_RDWR | O_NOCTTY);
	if (p.master < 0 || grantpt(p.master) || unlockpt(p.master))
		return -1;
	p.slave = open(ptsname(p.master), O_RDWR | O_NOCTTY);
	if (p.slave < 0)
		return -1;
	*state = &p;
	return 0;
}

static int pty_teardown(void **state)
{
	struct pty *p = *state;

	close(p->slave);
	close(p->master);
	unsetenv("NO_COLOR");
	return 0;
}

/* read_pty - what is waiting on the master, at most @len - 1 bytes. */
static void read_pty(const struct pty *p, char *buf, size_t len)
{
	struct pollfd pfd = { .fd = p->master, .events = POLLIN };
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && poll(&pfd, 1, 200) > 0) {
		r = read(p->master, buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
}

/* error_on_pty - log_error("boom") with stderr on the pty; what it shows. */
static void error_on_pty(const struct pty *p, char *buf, size_t len)
{
	int saved = dup(STDERR_FILENO);

	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(p->slave, STDERR_FILENO) >= 0);
	log_error("boom");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	read_pty(p, buf, len);
}

static void test_colour_on_a_terminal(void **state)
{
	struct pty *p = *state;
	char out[256];

	unsetenv("NO_COLOR");
	assert_true(log_use_colour(p->slave));
	error_on_pty(p, out, sizeof(out));
	assert_non_null(strstr(out, "\033[1;31merror:\033[0m boom"));
}

static void test_no_colour_when_NO_COLOR_set(void **state)
{
	struct pty *p = *state;
	char out[256];

	setenv("NO_COLOR", "1", 1);
	assert_false(log_use_colour(p->slave));
	error_on_pty(p, out, sizeof(out));
	assert_non_null(strstr(out, "trapd: error: boom"));
	assert_null(strchr(out, '\033'));
}

/* no-color.org: "when present and not an empty string". */
static void test_colour_when_NO_COLOR_empty(void **state)
{
	struct pty *p = *state;

	setenv("NO_COLOR", "", 1);
	assert_true(log_use_colour(p->slave));
}

static void test_no_colour_off_a_terminal(void **state)
{
	int fds[2];

	unsetenv("NO_COLOR");
	assert_int_equal(pipe(fds), 0);
	assert_false(log_use_colour(fds[1]));
	close(fds[0]);
	close(fds[1]);
}

static int evaluated;

/* bump - an argument with a side effect: counts its evaluations. */
static int bump(void)
{
	return ++evaluated;
}

/* quiet - stderr to /dev/null for the messages that are on; returns the
 * saved stderr for loud(). */
static int quiet(void)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	assert_true(saved >= 0 && null >= 0);
	fflush(stderr);
	dup2(null, STDERR_FILENO);
	close(null);
	return saved;
}

static void loud(int saved)
{
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

static void test_arguments_not_evaluated_when_level_off(void **state)
{
	int saved = quiet();

	evaluated = 0;
	log_set_level(LOG_LVL_ERROR);
	log_warn("%d", bump());
	log_info("%d", bump());
	log_debug("%d", bump());
	assert_int_equal(evaluated, 0);
	log_error("%d", bump()); /* an error is always on */
	assert_int_equal(evaluated, 1);

	log_set_level(LOG_LVL_INFO);
	log_debug("%d", bump());
	assert_int_equal(evaluated, 1);
	log_warn("%d", bump());
	log_info("%d", bump());
	assert_int_equal(evaluated, 3);

	log_set_level(LOG_LVL_DEBUG);
	log_debug("%d", bump());
	assert_int_equal(evaluated, 4);
	loud(saved);
	log_set_level(LOG_LVL_INFO);
}

/* The macros are single statements: an if/else around them parses as
 * written (a bare { } block in a macro would take the else). */
static void test_macros_are_one_statement(void **state)
{
	int saved = quiet();

	evaluated = 0;
	log_set_level(LOG_LVL_DEBUG);
	if (evaluated)
		log_debug("never");
	else
		log_debug("%d", bump());
	assert_int_equal(evaluated, 1);
	loud(saved);
	log_set_level(LOG_LVL_INFO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_colour_on_a_terminal, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_no_colour_when_NO_COLOR_set, pty_setup,
						pty_teardown),
		cmocka_unit_test_setup_teardown(test_colour_when_NO_COLOR_empty, pty_setup,
						pty_teardown),
		cmocka_unit_test(test_no_colour_off_a_terminal),
		cmocka_unit_test(test_arguments_not_evaluated_when_level_off),
		cmocka_unit_test(test_macros_are_one_statement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
