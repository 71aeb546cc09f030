// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_control_server.c - the daemon's control connections on a simulated
 * clock: a request in pieces, deadlines, the full table, an answer the
 * client never reads, accept back-off when the process is out of fds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "trapd/daemon/control_server.h"

#define SEC 1000000000LL
#define MS 1000000LL
#define T0 (100 * SEC)

struct srv_fixture {
	char dir[64];
	char path[96];
	int epfd;
	struct control_server srv;
	unsigned handled;
	size_t body_len; /* of the answer to status */
};

static void big_answer(void *ctx, struct control_conn *c, const struct control_request *req)
{
	struct srv_fixture *f = ctx;
	char *body = malloc(f->body_len + 1);

	assert_non_null(body);
	memset(body, 'x', f->body_len);
	f->handled++;
	control_conn__reply(c, "ok", body, f->body_len);
	free(body);
}

static int srv_setup(void **state)
{
	static struct srv_fixture f;
	char err[512];

	memset(&f, 0, sizeof(f));
	f.body_len = 6;
	snprintf(f.dir, sizeof(f.dir), "/tmp/trapd-ctlsrv-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	snprintf(f.path, sizeof(f.path), "%s/ctl.sock", f.dir);
	f.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (control_server__open(&f.srv, f.path, (gid_t)-1, f.epfd, big_answer, &f, err,
				 sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*state = &f;
	return 0;
}

static int srv_teardown(void **state)
{
	struct srv_fixture *f = *state;
	char cmd[200];

	control_server__close(&f->srv);
	close(f->epfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* pump - one turn of the daemon's loop at simulated time @now, without
 * waiting: the events that are ready, then the deadlines. */
static void pump(struct srv_fixture *f, int64_t now)
{
	struct epoll_event evs[32];
	int i, n;

	n = epoll_wait(f->epfd, evs, 32, 0);
	for (i = 0; i < n; i++)
		control_server__dispatch(&f->srv, evs[i].data.fd, evs[i].events, now);
	control_server__expire(&f->srv, now);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* answer_of - what the server sent before closing; "" if it closed
 * without a word, "(open)" if it has not closed yet. */
static const char *answer_of(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = recv(fd, buf + n, len - 1 - n, MSG_DONTWAIT)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	if (n == 0 && r < 0 && errno == EAGAIN)
		return "(open)";
	return buf;
}

static void test_answers_a_request_in_pieces(void **state)
{
	struct srv_fixture *f = *state;
	char buf[256];
	int fd = connect_to(f->path);

	assert_int_equal(write(fd, "sta", 3), 3);
	pump(f, T0);
	assert_int_equal(control_server__connections(&f->srv), 1);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "(open)");
	assert_int_equal(write(fd, "tus\n", 4), 4);
	pump(f, T0 + MS);
	assert_int_equal(f->handled, 1);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "ok\nxxxxxx");
	assert_int_equal(control_server__connections(&f->srv), 0);
	close(fd);
}

static void test_bad_requests_get_usage(void **state)
{
	struct srv_fixture *f = *state;
	char buf[700], line[600];
	int fd;

	memset(line, 'a', sizeof(line));
	fd = connect_to(f->path);
	assert_int_equal(write(fd, line, sizeof(line)), (ssize_t)sizeof(line));
	pump(f, T0);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)),
			    "usage: request longer than 511 bytes\n");
	close(fd);

	fd = connect_to(f->path);
	assert_int_equal(write(fd, "status\0json\n", 12), 12);
	pump(f, T0);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "usage: a NUL byte in the request\n");
	close(fd);

	/* a line without its newline, then the end of the client's writing */
	fd = connect_to(f->path);
	assert_int_equal(write(fd, "reload", 6), 6);
	shutdown(fd, SHUT_WR);
	pump(f, T0);
	assert_string_equal(
		answer_of(fd, buf, sizeof(buf)),
		"usage: unknown request 'reload': expected status, arm, upload or top\n");
	close(fd);
	assert_int_equal(f->handled, 0);
}

static void test_idle_connection_closed_at_its_deadline(void **state)
{
	struct srv_fixture *f = *state;
	char buf[64];
	int fd = connect_to(f->path);

	assert_int_equal(control_server__timeout_ms(&f->srv, T0), -1);
	pump(f, T0);
	assert_int_equal(control_server__connections(&f->srv), 1);
	assert_int_equal(control_server__timeout_ms(&f->srv, T0), 2000);
	assert_int_equal(control_server__timeout_ms(&f->srv, T0 + 1500 * MS + 1), 500);
	pump(f, T0 + CONTROL_DEADLINE_NS - 1);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "(open)");
	/* a byte a second does not extend it */
	assert_int_equal(write(fd, "s", 1), 1);
	pump(f, T0 + CONTROL_DEADLINE_NS);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "");
	assert_int_equal(control_server__connections(&f->srv), 0);
	assert_int_equal(f->srv.expired, 1);
	assert_int_equal(control_server__timeout_ms(&f->srv, T0 + CONTROL_DEADLINE_NS), -1);
	close(fd);
}

static void test_full_table_evicts_the_oldest(void **state)
{
	struct srv_fixture *f = *state;
	int fds[CONTROL_CONN_MAX + 1], i, last;
	char buf[64];

	for (i = 0; i <= CONTROL_CONN_MAX; i++) {
		fds[i] = connect_to(f->path);
		pump(f, T0 + i * MS);
	}
	assert_int_equal(control_server__connections(&f->srv), CONTROL_CONN_MAX);
	assert_int_equal(f->srv.evicted, 1);
	assert_string_equal(answer_of(fds[0], buf, sizeof(buf)), "");
	assert_string_equal(answer_of(fds[1], buf, sizeof(buf)), "(open)");
	/* the newest is served although the table is full of idle ones */
	last = CONTROL_CONN_MAX;
	assert_int_equal(write(fds[last], "status\n", 7), 7);
	pump(f, T0 + 20 * MS);
	assert_string_equal(answer_of(fds[last], buf, sizeof(buf)), "ok\nxxxxxx");
	for (i = 0; i <= CONTROL_CONN_MAX; i++)
		close(fds[i]);
}

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void test_unread_answer_does_not_block(void **state)
{
	struct srv_fixture *f = *state;
	int64_t t;
	char buf[64];
	int fd = connect_to(f->path);

	f->body_len = 3u << 20; /* far more than a socket buffer */
	assert_int_equal(write(fd, "status\n", 7), 7);
	t = wall_ns();
	pump(f, T0);
	pump(f, T0 + SEC);
	assert_true(wall_ns() - t < 500 * MS);
	assert_int_equal(f->handled, 1);
	assert_int_equal(control_server__connections(&f->srv), 1); /* waiting for EPOLLOUT */
	pump(f, T0 + CONTROL_DEADLINE_NS);
	assert_int_equal(control_server__connections(&f->srv), 0);
	(void)buf;
	close(fd);
}

static void test_answer_over_the_cap_is_an_error(void **state)
{
	struct srv_fixture *f = *state;
	char buf[256];
	int fd = connect_to(f->path);

	f->body_len = CONTROL_ANSWER_MAX;
	assert_int_equal(write(fd, "status\n", 7), 7);
	pump(f, T0);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)),
			    "error: the answer is too large for the control socket\n");
	close(fd);
}

/* out_of_fds - lower RLIMIT_NOFILE so the next fd cannot be allocated. */
static void out_of_fds(struct rlimit *old)
{
	struct rlimit rl;
	int next = dup(0);

	assert_true(next >= 0);
	close(next);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, old), 0);
	rl = *old;
	rl.rlim_cur = (rlim_t)next;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

static void test_emfile_pauses_accepting_with_growing_backoff(void **state)
{
	struct srv_fixture *f = *state;
	struct rlimit old;
	char buf[64];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int i;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	out_of_fds(&old);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, "status\n", 7), 7);
	pump(f, T0);
	assert_true(f->srv.paused);
	assert_int_equal(f->srv.accept_errors, 1);
	assert_int_equal(control_server__timeout_ms(&f->srv, T0), 100);
	/* paused: however often the loop turns, accept is not tried */
	for (i = 0; i < 1000; i++)
		pump(f, T0 + 50 * MS);
	assert_int_equal(f->srv.accept_errors, 1);
	pump(f, T0 + 100 * MS); /* resumes */
	pump(f, T0 + 100 * MS); /* fails again: a longer pause */
	assert_int_equal(f->srv.accept_errors, 2);
	assert_int_equal(control_server__timeout_ms(&f->srv, T0 + 100 * MS), 200);
	pump(f, T0 + 300 * MS);
	pump(f, T0 + 300 * MS);
	assert_int_equal(control_server__timeout_ms(&f->srv, T0 + 300 * MS), 400);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "(open)");
	pump(f, T0 + 700 * MS);
	pump(f, T0 + 700 * MS);
	assert_false(f->srv.paused);
	assert_string_equal(answer_of(fd, buf, sizeof(buf)), "ok\nxxxxxx");
	assert_int_equal(f->srv.backoff_ns, CONTROL_BACKOFF_MIN_NS);
	close(fd);
}

static void test_backoff_stops_growing_at_its_cap(void **state)
{
	struct srv_fixture *f = *state;
	struct rlimit old;
	int64_t now = T0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int i;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	out_of_fds(&old);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	for (i = 0; i < 12; i++) {
		pump(f, now); /* resumes (from the second round on) */
		pump(f, now); /* fails: 100, 200, 400 ... 3200, then 5000 ms */
		assert_true(f->srv.paused);
		assert_int_equal(f->srv.accept_errors, i + 1);
		assert_int_equal(control_server__timeout_ms(&f->srv, now), i < 6 ? 100 << i : 5000);
		now = f->srv.resume_ns;
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answers_a_request_in_pieces, srv_setup,
						srv_teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests_get_usage, srv_setup,
						srv_teardown),
		cmocka_unit_test_setup_teardown(test_idle_connection_closed_at_its_deadline,
						srv_setup, srv_teardown),
		cmocka_unit_test_setup_teardown(test_full_table_evicts_the_oldest, srv_setup,
						srv_teardown),
		cmocka_unit_test_setup_teardown(test_unread_answer_does_not_block, srv_setup,
						srv_teardown),
		cmocka_unit_test_setup_teardown(test_answer_over_the_cap_is_an_error, srv_setup,
						srv_teardown),
		cmocka_unit_test_setup_teardown(test_emfile_pauses_accepting_with_growing_backoff,
						srv_setup, srv_teardown),
		cmocka_unit_test_setup_teardown(test_backoff_stops_growing_at_its_cap, srv_setup,
						srv_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
