// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_control.c - control socket requests, and both ends of a real unix
 * socket: answers, permission checks (file mode and peer credentials).
 * The server's connection table is test_control_server.c's, the socket
 * file's safety test_control_socket.c's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "trapd/daemon/control.h"
#include "trapd/daemon/control_server.h"

static void test_parse_status(void **state)
{
	struct control_request r;
	char err[128];

	assert_int_equal(control_request__parse("status", &r, err, sizeof(err)), 0);
	assert_int_equal(r.verb, CONTROL_STATUS);
	assert_false(r.json);
	assert_int_equal(control_request__parse("  status   json ", &r, err, sizeof(err)), 0);
	assert_true(r.json);
	assert_int_equal(control_request__parse("status xml", &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unexpected 'xml' after status: expected json");
	assert_int_equal(control_request__parse("status json json", &r, err, sizeof(err)), -EINVAL);
}

static void test_parse_arm(void **state)
{
	struct control_request r;
	char err[128];

	assert_int_equal(control_request__parse("arm", &r, err, sizeof(err)), 0);
	assert_int_equal(r.verb, CONTROL_ARM);
	assert_string_equal(r.rule, "");
	assert_int_equal(r.duration_ns, 0);
	assert_int_equal(control_request__parse("arm web-cpu", &r, err, sizeof(err)), 0);
	assert_string_equal(r.rule, "web-cpu");
	assert_int_equal(control_request__parse("arm - 5000000000", &r, err, sizeof(err)), 0);
	assert_string_equal(r.rule, "");
	assert_int_equal(r.duration_ns, 5000000000ull);
	assert_int_equal(control_request__parse("arm db 1", &r, err, sizeof(err)), 0);
	assert_string_equal(r.rule, "db");
}

static void test_parse_top(void **state)
{
	struct control_request r;
	char err[128];

	(void)state;
	assert_int_equal(control_request__parse("top", &r, err, sizeof(err)), 0);
	assert_int_equal(r.verb, CONTROL_TOP);
	assert_int_equal(r.seconds, CONTROL_TOP_DEFAULT_SECONDS);
	assert_int_equal(control_request__parse("top 10", &r, err, sizeof(err)), 0);
	assert_int_equal(r.seconds, 10);
}

static void test_parse_rejects(void **state)
{
	static const struct {
		const char *line, *msg;
	} bad[] = {
		{ "", "empty request: expected status, arm, upload or top" },
		{ "reload", "unknown request 'reload': expected status, arm, upload or top" },
		{ "top 0", "bad '0' after top: expected seconds, 1 to 10" },
		{ "top 11", "bad '11' after top: expected seconds, 1 to 10" },
		{ "top 5s", "bad '5s' after top: expected seconds, 1 to 10" },
		{ "top 5 6", "unexpected '6' after top [SECONDS]" },
		{ "upload now", "unexpected 'now' after upload: expected failed" },
		{ "upload failed x", "unexpected 'x' after upload: expected failed" },
		{ "arm we/b", "bad rule name 'we/b'" },
		{ "arm web 0", "bad duration '0': expected nanoseconds > 0" },
		{ "arm web 5s", "bad duration '5s': expected nanoseconds > 0" },
		{ "arm web 99999999999999999999", "bad duration '99999999999999999999': "
						  "expected nanoseconds > 0" },
		{ "arm web 5 6", "unexpected '6' after arm [RULE] [DURATION_NS]" },
	};
	struct control_request r;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(control_request__parse(bad[i].line, &r, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, bad[i].msg);
	}
}

static void test_format_round_trip(void **state)
{
	const char *lines[] = { "status",    "status json", "arm",	     "arm web", "arm - 7",
				"arm web 9", "upload",	    "upload failed", "top 5",	"top 10" };
	struct control_request r, back;
	char buf[CONTROL_REQUEST_MAX], err[128];
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(control_request__parse(lines[i], &r, err, sizeof(err)), 0);
		assert_int_equal(control_request__format(&r, buf, sizeof(buf)), 0);
		assert_int_equal(buf[strlen(buf) - 1], '\n');
		buf[strlen(buf) - 1] = '\0';
		assert_string_equal(buf, lines[i]);
		assert_int_equal(control_request__parse(buf, &back, err, sizeof(err)), 0);
		assert_memory_equal(&r, &back, sizeof(r));
	}
}

/* --- over a real socket -------------------------------------------------- */

struct sock_fixture {
	char dir[64];
	char path[128];
	int epfd;
	struct control_server srv;
	struct control_request last;
	unsigned handled;
};

/* fake_answer - answers like a daemon would, by the rule's name. */
static void fake_answer(void *ctx, struct control_conn *c, const struct control_request *req)
{
	struct sock_fixture *f = ctx;

	f->last = *req;
	f->handled++;
	if (req->verb == CONTROL_ARM && !strcmp(req->rule, "nosuch"))
		control_conn__reply(c, "usage: no rule named 'nosuch'", NULL, 0);
	else if (req->verb == CONTROL_ARM && !strcmp(req->rule, "broken"))
		control_conn__reply(c, "error: the sampler could not be loaded", NULL, 0);
	else
		control_conn__reply(c, "ok", "rules: 2\n", 9);
}

static int sock_setup(void **state)
{
	static struct sock_fixture f;
	char err[512];

	memset(&f, 0, sizeof(f));
	snprintf(f.dir, sizeof(f.dir), "/tmp/trapd-control-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	snprintf(f.path, sizeof(f.path), "%s/run/control.sock", f.dir);
	f.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (control_server__open(&f.srv, f.path, (gid_t)-1, f.epfd, fake_answer, &f, err,
				 sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	*state = &f;
	return 0;
}

static int sock_teardown(void **state)
{
	struct sock_fixture *f = *state;
	char cmd[200];

	control_server__close(&f->srv);
	close(f->epfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* client - fork a client that sends @req (as @uid when not 0) and exits
 * with 0 / 2 (usage) / 3 (error) / 4 (could not talk) and its body or
 * message on a pipe. */
static pid_t client(const char *path, const char *req_line, uid_t uid, int *rfd)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct control_request req;
		char err[256];
		FILE *out = fdopen(p[1], "w");
		int e;

		close(p[0]);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(5);
		control_request__parse(req_line, &req, err, sizeof(err));
		e = control__call(path, &req, out, err, sizeof(err));
		if (e)
			fputs(err, out);
		fclose(out);
		_exit(e == 0 ? 0 : e == -EINVAL ? 2 : e == -EIO ? 3 : 4);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

static int wait_exit(pid_t pid)
{
	int st = 0;

	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void read_all(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
}

/* serve_one - run the server's side of the loop until it answered one
 * request (0) or refused a peer (-EACCES); -ETIMEDOUT after 5 s. */
static int serve_one(struct sock_fixture *f, struct control_request *req)
{
	unsigned handled = f->handled;
	uint64_t refused = f->srv.refused;
	struct epoll_event evs[8];
	int i, n, round;

	for (round = 0; round < 500; round++) {
		n = epoll_wait(f->epfd, evs, 8, 10);
		for (i = 0; i < n; i++)
			control_server__dispatch(&f->srv, evs[i].data.fd, evs[i].events,
						 (int64_t)round * 10000000);
		if (f->srv.refused != refused)
			return -EACCES;
		if (f->handled != handled && !control_server__connections(&f->srv)) {
			*req = f->last;
			return 0;
		}
	}
	return -ETIMEDOUT;
}

static void test_status_round_trip(void **state)
{
	struct sock_fixture *f = *state;
	struct control_request req;
	struct stat st;
	char body[256];
	int rfd;
	pid_t pid;

	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	pid = client(f->path, "status json", 0, &rfd);
	assert_int_equal(serve_one(f, &req), 0);
	assert_int_equal(req.verb, CONTROL_STATUS);
	assert_true(req.json);
	read_all(rfd, body, sizeof(body));
	assert_int_equal(wait_exit(pid), 0);
	assert_string_equal(body, "rules: 2\n");
}

static void test_usage_and_error_answers(void **state)
{
	struct sock_fixture *f = *state;
	struct control_request req;
	char body[256];
	int rfd;
	pid_t pid;

	pid = client(f->path, "arm nosuch", 0, &rfd);
	serve_one(f, &req);
	read_all(rfd, body, sizeof(body));
	assert_int_equal(wait_exit(pid), 2);
	assert_string_equal(body, "no rule named 'nosuch'");

	pid = client(f->path, "arm broken 1000", 0, &rfd);
	serve_one(f, &req);
	read_all(rfd, body, sizeof(body));
	assert_int_equal(wait_exit(pid), 3);
	assert_string_equal(body, "the sampler could not be loaded");
	assert_int_equal(req.duration_ns, 1000);
}

static void test_no_daemon(void **state)
{
	struct sock_fixture *f = *state;
	char path[200], body[512];
	int rfd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/none.sock", f->dir);
	pid = client(path, "status", 0, &rfd);
	read_all(rfd, body, sizeof(body));
	assert_int_equal(wait_exit(pid), 4);
	assert_non_null(strstr(body, "no trapd daemon is listening on"));
}

static void test_second_daemon_is_refused(void **state)
{
	struct sock_fixture *f = *state;
	struct control_socket cs;
	char err[512];

	assert_int_equal(control_socket__open(&cs, f->path, (gid_t)-1, err, sizeof(err)),
			 -EADDRINUSE);
	assert_non_null(strstr(err, "another trapd daemon is listening"));
}

static void test_non_root_is_refused_by_file_mode(void **state)
{
	struct sock_fixture *f = *state;
	char body[512];
	int rfd;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	chmod(f->dir, 0755); /* the directory is not what stops it */
	pid = client(f->path, "status", 65534, &rfd);
	read_all(rfd, body, sizeof(body));
	assert_int_equal(wait_exit(pid), 4);
	assert_non_null(strstr(body, "permission denied"));
}

static void test_non_root_is_refused_by_peer_check(void **state)
{
	struct sock_fixture *f = *state;
	struct control_request req;
	char body[512];
	int rfd;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	chmod(f->dir, 0755);
	chmod(f->path, 0666); /* someone loosened the file: the daemon still says no */
	pid = client(f->path, "status", 65534, &rfd);
	assert_int_equal(serve_one(f, &req), -EACCES);
	read_all(rfd, body, sizeof(body));
	assert_int_equal(wait_exit(pid), 3);
	assert_non_null(strstr(body, "permission denied"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_status),
		cmocka_unit_test(test_parse_arm),
		cmocka_unit_test(test_parse_top),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test_setup_teardown(test_status_round_trip, sock_setup, sock_teardown),
		cmocka_unit_test_setup_teardown(test_usage_and_error_answers, sock_setup,
						sock_teardown),
		cmocka_unit_test_setup_teardown(test_no_daemon, sock_setup, sock_teardown),
		cmocka_unit_test_setup_teardown(test_second_daemon_is_refused, sock_setup,
						sock_teardown),
		cmocka_unit_test_setup_teardown(test_non_root_is_refused_by_file_mode, sock_setup,
						sock_teardown),
		cmocka_unit_test_setup_teardown(test_non_root_is_refused_by_peer_check, sock_setup,
						sock_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
