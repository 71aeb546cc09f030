// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_proc_comms.c - comm files kept open between scans: every process
 * is listed with its current name (a rename shows at the next scan, on a
 * fixture tree and on the real /proc), files of processes gone are closed,
 * and no more files are kept than the bound under the fd limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/proc_comms.h"

struct seen {
	pid_t want;    /* 0: count all */
	char comm[16]; /* of @want */
	size_t n;      /* processes listed */
};

static int collect(pid_t pid, const char *comm, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	if (pid == s->want)
		snprintf(s->comm, sizeof(s->comm), "%s", comm);
	return 0;
}

static size_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void write_comm(const char *root, int pid, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", name);
	fclose(f);
}

static void remove_pid(const char *root, int pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	rmdir(path);
}

static void test_fixture_tree(void **state)
{
	char root[] = "/tmp/trapd-comms-XXXXXX", err[256];
	struct proc_comms *c = proc_comms__new();
	struct seen s = { .want = 7 };
	size_t fds0 = open_fds();
	int pid;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (pid = 1; pid <= 20; pid++)
		write_comm(root, pid, pid == 7 ? "worker" : "other");
	assert_int_equal(proc_comms__scan(c, root, collect, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 20);
	assert_string_equal(s.comm, "worker");
	assert_int_equal(proc_comms__kept(c), 20);
	assert_int_equal(open_fds(), fds0 + 20);

	/* renamed in place (as prctl does): the kept file reads the new name */
	write_comm(root, 7, "renamed-to-a-long-name");
	memset(&s, 0, sizeof(s));
	s.want = 7;
	assert_int_equal(proc_comms__scan(c, root, collect, &s, err, sizeof(err)), 0);
	assert_string_equal(s.comm, "renamed-to-a-lo"); /* 15 bytes, as the kernel keeps it */

	/* gone: its file is closed after the scan */
	for (pid = 11; pid <= 20; pid++)
		remove_pid(root, pid);
	memset(&s, 0, sizeof(s));
	assert_int_equal(proc_comms__scan(c, root, collect, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 10);
	assert_int_equal(proc_comms__kept(c), 10);
	assert_int_equal(open_fds(), fds0 + 10);

	proc_comms__free(c);
	assert_int_equal(open_fds(), fds0);
	for (pid = 1; pid <= 10; pid++)
		remove_pid(root, pid);
	rmdir(root);
}

static void test_bounded_by_the_fd_limit(void **state)
{
	char root[] = "/tmp/trapd-comms-XXXXXX", err[256];
	struct rlimit old, low;
	struct proc_comms *c;
	struct seen s = { 0 };
	int pid;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (pid = 1; pid <= 100; pid++)
		write_comm(root, pid, "p");
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	c = proc_comms__new();
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_non_null(c);
	assert_int_equal(proc_comms__scan(c, root, collect, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 100); /* every process is still listed */
	assert_int_equal(proc_comms__kept(c), 32);
	proc_comms__free(c);
	for (pid = 1; pid <= 100; pid++)
		remove_pid(root, pid);
	rmdir(root);
}

/* The real /proc: a child renames itself between scans, then exits. */
static void test_real_proc(void **state)
{
	struct proc_comms *c = proc_comms__new();
	int go[2], done[2];
	struct seen s;
	char err[256], b;
	pid_t child;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		prctl(PR_SET_NAME, "before");
		if (write(done[1], "x", 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(1);
		prctl(PR_SET_NAME, "after");
		if (write(done[1], "x", 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(done[0], &b, 1), 1);
	memset(&s, 0, sizeof(s));
	s.want = child;
	assert_int_equal(proc_comms__scan(c, "/proc", collect, &s, err, sizeof(err)), 0);
	assert_string_equal(s.comm, "before");
	assert_true(proc_comms__kept(c) >= 2);

	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(read(done[0], &b, 1), 1);
	memset(&s, 0, sizeof(s));
	s.want = child;
	assert_int_equal(proc_comms__scan(c, "/proc", collect, &s, err, sizeof(err)), 0);
	assert_string_equal(s.comm, "after");

	assert_int_equal(write(go[1], "x", 1), 1);
	waitpid(child, NULL, 0);
	memset(&s, 0, sizeof(s));
	s.want = child;
	assert_int_equal(proc_comms__scan(c, "/proc", collect, &s, err, sizeof(err)), 0);
	assert_string_equal(s.comm, ""); /* gone, and not read from its old file */
	proc_comms__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_tree),
		cmocka_unit_test(test_bounded_by_the_fd_limit),
		cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
