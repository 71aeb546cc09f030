/* test_log.c - the logging module (trapd/log.h): colour only on a
 * terminal and never under a non-empty NO_COLOR (https://no-color.org),
 * checked on a real pseudo-terminal.
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

#include "trapd/log.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_colour_on_a_terminal, pty_setup, pty_teardown),
		cmocka_unit_test_setup_teardown(test_no_colour_when_NO_COLOR_set, pty_setup,
						pty_teardown),
		cmocka_unit_test_setup_teardown(test_colour_when_NO_COLOR_empty, pty_setup,
						pty_teardown),
		cmocka_unit_test(test_no_colour_off_a_terminal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
