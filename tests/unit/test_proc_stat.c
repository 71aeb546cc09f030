// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_proc_stat.c - /proc/PID/stat, status and statm parsing (a comm
 * with spaces and parentheses, kernel threads, malformed text), the
 * fixture processes of tests/data/sys/proc, the bounded file read, and a
 * sanity check of this very process on the live /proc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/proc_stat.h"

static char proc_root[512];

static int setup(void **state)
{
	const char *d = getenv("TRAPD_TESTDATA");

	snprintf(proc_root, sizeof(proc_root), "%s/sys/proc", d ? d : "tests/data");
	return 0;
}

static void test_parse_stat_real_line(void **state)
{
	static const char line[] =
		"7925 (cat) R 7921 7921 1344 0 -1 4194304 100 0 0 0 3 4 0 0 20 0 1 0 525530 "
		"3133440 384 18446744073709551615 94115309662208 94115309682089 0 0 0 0 0 0 0 "
		"0 0 17 0 0 0 0 0 0\n";
	struct proc_stat_cpu st;

	assert_int_equal(proc_stat_parse_stat(line, &st), 0);
	assert_string_equal(st.comm, "cat");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.utime, 3);
	assert_int_equal(st.stime, 4);
	assert_int_equal(st.num_threads, 1);
	assert_int_equal(st.starttime, 525530);
}

static void test_parse_stat_comm_with_spaces_and_parens(void **state)
{
	static const char *const lines[] = {
		"5150 (tricky) (comm) S 1 5150 5150 0 -1 0 0 0 0 0 70 30 0 0 20 0 1 0 200000 0\n",
		"5150 ()) ) S 1 5150 5150 0 -1 0 0 0 0 0 70 30 0 0 20 0 1 0 200000 0\n",
		"5150 (a\nb) S 1 5150 5150 0 -1 0 0 0 0 0 70 30 0 0 20 0 1 0 200000",
	};
	static const char *const comms[] = { "tricky) (comm", ")) ", "a\nb" };
	struct proc_stat_cpu st;
	size_t i;

	for (i = 0; i < 3; i++) {
		assert_int_equal(proc_stat_parse_stat(lines[i], &st), 0);
		assert_string_equal(st.comm, comms[i]);
		assert_int_equal(st.utime, 70);
		assert_int_equal(st.stime, 30);
		assert_int_equal(st.starttime, 200000);
	}
	/* a comm longer than the kernel keeps is cut to 15 bytes */
	assert_int_equal(
		proc_stat_parse_stat("1 (0123456789abcdefgh) S 0 0 0 0 -1 0 0 0 0 0 1 2 0 0 "
				     "20 0 1 0 9\n",
				     &st),
		0);
	assert_string_equal(st.comm, "0123456789abcde");
}

static void test_parse_stat_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"1 (x) S 1 2 3",				    /* cut short */
		"1 (x S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9",   /* no ')' */
		"1 x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9",   /* no '(' */
		"1 (x) S 1 1 1 0 -1 0 0 0 0 0 -1 2 0 0 20 0 1 0 9", /* negative utime */
		"1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 x",  /* starttime */
		"1 (x)  S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9", /* two spaces */
		"1 (x) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 2 0 0 20 0 1 0 9",
		"(x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9", /* no pid */
		"1 )x( S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9",
	};
	struct proc_stat_cpu st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(proc_stat_parse_stat(bad[i], &st), -EINVAL);
}

static void test_parse_status(void **state)
{
	struct proc_stat_status st;

	assert_int_equal(proc_stat_parse_status("Name:\tx\nVmRSS:\t    1740 kB\nThreads:\t7\n",
						&st),
			 0);
	assert_true(st.has_rss);
	assert_int_equal(st.rss_bytes, 1740 * 1024);
	assert_int_equal(st.threads, 7);
	/* a kernel thread: no VmRSS */
	assert_int_equal(proc_stat_parse_status("Name:\tkthreadd\nThreads:\t1\n", &st), 0);
	assert_false(st.has_rss);
	assert_int_equal(st.threads, 1);
	/* "Threads" must start a line; the Name line is escaped by the kernel */
	assert_int_equal(proc_stat_parse_status("Name:\tThreads:\t9\n", &st), -EINVAL);
	assert_int_equal(proc_stat_parse_status("Threads:\tmany\n", &st), -EINVAL);
	assert_int_equal(proc_stat_parse_status("Threads:\t3 4\n", &st), -EINVAL);
	assert_int_equal(proc_stat_parse_status("Threads:\t3\nVmRSS:\t12 MB\n", &st), -EINVAL);
	assert_int_equal(proc_stat_parse_status("Threads:\t3\nVmRSS:\t18014398509481984 kB\n", &st),
			 -EINVAL);
	assert_int_equal(proc_stat_parse_status("", &st), -EINVAL);
}

static void test_parse_statm_and_u64(void **state)
{
	const char *p;
	uint64_t v;

	assert_int_equal(proc_stat_parse_statm("765 424 396 5 0 123 0\n", &v), 0);
	assert_int_equal(v, 424);
	assert_int_equal(proc_stat_parse_statm("765\n", &v), -EINVAL);
	assert_int_equal(proc_stat_parse_statm("765  424", &v), -EINVAL);
	p = "18446744073709551615x";
	assert_int_equal(proc_stat_parse_u64(&p, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(*p, 'x');
	p = "18446744073709551616";
	assert_int_equal(proc_stat_parse_u64(&p, &v), -ERANGE);
	p = "-1";
	assert_int_equal(proc_stat_parse_u64(&p, &v), -EINVAL);
	p = " 1";
	assert_int_equal(proc_stat_parse_u64(&p, &v), -EINVAL);
}

static void test_fixture_processes(void **state)
{
	struct proc_stat_status status;
	struct proc_stat_cpu cpu;
	char comm[PROC_STAT_COMM_LEN], err[256];
	uint64_t n;

	assert_int_equal(proc_stat_read_cpu(proc_root, 4242, NULL, &cpu, err, sizeof(err)), 0);
	assert_string_equal(cpu.comm, "nginx");
	assert_int_equal(cpu.utime + cpu.stime, 1500);
	assert_int_equal(cpu.starttime, 123456);
	assert_int_equal(proc_stat_read_status(proc_root, 4242, NULL, &status, err, sizeof(err)),
			 0);
	assert_int_equal(status.threads, 4);
	assert_int_equal(proc_stat_rss(proc_root, 4243, NULL, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 20480 * 1024);
	assert_int_equal(proc_stat_count_fds(proc_root, 4242, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(proc_stat_read_comm(proc_root, 5150, comm), 0);
	assert_string_equal(comm, "tricky) (comm");
	assert_int_equal(proc_stat_read_cpu(proc_root, 5150, NULL, &cpu, err, sizeof(err)), 0);
	assert_string_equal(cpu.comm, "tricky) (comm");
	assert_int_equal(cpu.utime, 70);

	/* a kernel thread: no VmRSS, statm all zero, no fds (.gitkeep is no fd) */
	assert_int_equal(proc_stat_rss(proc_root, 2, NULL, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(proc_stat_count_fds(proc_root, 2, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
}

static void test_missing_process(void **state)
{
	struct proc_stat_status status;
	struct proc_stat_cpu cpu;
	char comm[PROC_STAT_COMM_LEN], err[256];
	uint64_t n;

	assert_int_equal(proc_stat_read_cpu(proc_root, 999, NULL, &cpu, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "pid 999: no such process");
	assert_int_equal(proc_stat_read_status(proc_root, 999, NULL, &status, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(proc_stat_rss(proc_root, 999, NULL, &n, err, sizeof(err)), -ENOENT);
	assert_int_equal(proc_stat_count_fds(proc_root, 999, &n, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "pid 999: no such process");
	assert_int_equal(proc_stat_read_comm(proc_root, 999, comm), -ENOENT);
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

static void test_find_comm(void **state)
{
	pid_t pids[8];
	char err[256];
	size_t n;

	assert_int_equal(proc_stat_find_comm(proc_root, "nginx", pids, 8, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	qsort(pids, n, sizeof(pids[0]), cmp_pid);
	assert_int_equal(pids[0], 4242);
	assert_int_equal(pids[1], 4243);
	assert_int_equal(proc_stat_find_comm(proc_root, "nginx", pids, 1, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(proc_stat_find_comm(proc_root, "tricky) (comm", pids, 8, &n, err,
					     sizeof(err)),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], 5150);
	/* compared as the kernel keeps it: the first 15 bytes */
	assert_int_equal(proc_stat_find_comm(proc_root, "php-fpm: pool www", pids, 8, &n, err, 256),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], 6001);
	assert_int_equal(proc_stat_find_comm(proc_root, "nobody", pids, 8, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 0);
	assert_int_equal(proc_stat_find_comm("/nonexistent", "x", pids, 8, &n, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent: No such file or directory");
}

static void test_read_text_is_bounded(void **state)
{
	char path[] = "/tmp/trapd-proc-stat-XXXXXX", buf[16];
	size_t len;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("123456789012345", f); /* 15 bytes: fits 16 with the NUL */
	fclose(f);
	assert_int_equal(proc_stat_read_text(path, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, 15);
	assert_string_equal(buf, "123456789012345");
	f = fopen(path, "a");
	fputs("6", f);
	fclose(f);
	assert_int_equal(proc_stat_read_text(path, buf, sizeof(buf), &len), -EFBIG);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	unlink(path);
	assert_int_equal(proc_stat_read_text(path, buf, sizeof(buf), &len), -ENOENT);
}

/* the live /proc, this process: only sanity */
/* listed_fds - this process's open fds, listed (not the listing's own). */
static uint64_t listed_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	uint64_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

static void test_live_self(void **state)
{
	struct proc_stat_status status;
	struct proc_stat_cpu cpu;
	char comm[PROC_STAT_COMM_LEN], want[PROC_STAT_COMM_LEN], err[256];
	uint64_t n;

	assert_int_equal(proc_stat_read_cpu("/proc", getpid(), NULL, &cpu, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s", program_invocation_short_name);
	assert_string_equal(cpu.comm, want);
	assert_int_equal(proc_stat_read_comm("/proc", getpid(), comm), 0);
	assert_string_equal(comm, want);
	assert_int_equal(proc_stat_read_status("/proc", getpid(), NULL, &status, err, sizeof(err)),
			 0);
	assert_true(status.threads >= 1 && status.has_rss && status.rss_bytes > 0);
	assert_int_equal(proc_stat_count_fds("/proc", getpid(), &n, err, sizeof(err)), 0);
	assert_true(n >= 3);
	assert_int_equal(n, listed_fds()); /* the count procfs gives is the listing's */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat_real_line),
		cmocka_unit_test(test_parse_stat_comm_with_spaces_and_parens),
		cmocka_unit_test(test_parse_stat_malformed),
		cmocka_unit_test(test_parse_status),
		cmocka_unit_test(test_parse_statm_and_u64),
		cmocka_unit_test(test_fixture_processes),
		cmocka_unit_test(test_missing_process),
		cmocka_unit_test(test_find_comm),
		cmocka_unit_test(test_read_text_is_bounded),
		cmocka_unit_test(test_live_self),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
