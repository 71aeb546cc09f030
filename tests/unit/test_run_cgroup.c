// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_run_cgroup.c - the transient cgroup of `trapd ci` on this host's
 * real cgroups: a child attached before it runs is counted, the v2
 * directory and its id, destroy kills a running child and the orphan it
 * left and removes every directory (v1 twin included), twice is fine,
 * names are unique, named parents.
 *
 * Making cgroups needs root: without it the tests are skipped, or fail
 * when CI=true. Every test destroys what it made in its teardown, so a
 * failed assertion leaves no trapd-ci-* cgroup behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rules/cgroup_path.h"
#include "trapd/capture/run_cgroup.h"

#define MS 1000000ull

struct fixture {
	struct run_cgroup *cg, *other;
	char parent[4400]; /* a parent cgroup the test made, "" if none */
	char err[1024];
};

/* need_root - these tests make cgroups; skip without root unless CI. */
static bool need_root(void)
{
	if (geteuid() == 0)
		return true;
	if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
		fail_msg("making cgroups needs root, and CI=true does not allow skipping");
	return false;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	*state = f;
	return f ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	run_cgroup__free(f->cg);
	run_cgroup__free(f->other);
	if (f->parent[0])
		rmdir(f->parent);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	free(f);
	return 0;
}

static struct run_cgroup *create(struct fixture *f, const struct run_cgroup_opts *o)
{
	struct run_cgroup *cg = run_cgroup__create(o, f->err, sizeof(f->err));

	if (!cg)
		fail_msg("run_cgroup__create: %s (%s)", f->err, strerror(errno));
	return cg;
}

static uint64_t cpu_ns(struct fixture *f, struct run_cgroup *cg)
{
	uint64_t ns = 0;

	if (run_cgroup__cpu_ns(cg, &ns, f->err, sizeof(f->err)))
		fail_msg("run_cgroup__cpu_ns: %s", f->err);
	return ns;
}

static uint64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile unsigned long spins;

enum job {
	BURN,		 /* burn 200 ms of CPU, exit */
	SLEEP,		 /* pause until killed */
	ORPHAN_SLEEP,	 /* leave an orphan that pauses, report its pid, pause */
	ORPHAN_AND_EXIT, /* the same, but exit */
};

/* leave_orphan - double fork: a grandchild whose parent exits at once,
 * pausing until killed; its pid goes down @fd. */
static void leave_orphan(int fd)
{
	pid_t mid = fork(), gc;

	if (mid == 0) {
		gc = fork();
		if (gc == 0) {
			for (;;)
				pause();
		}
		if (write(fd, &gc, sizeof(gc)) != (ssize_t)sizeof(gc))
			_exit(1);
		_exit(0);
	}
	waitpid(mid, NULL, 0);
}

/* spawn - a child held at a gate until go() (so it can be attached
 * first), then doing @job. *@report (if not NULL) reads the orphan's pid. */
static pid_t spawn(enum job job, int *gate, int *report)
{
	int g[2], r[2];
	uint64_t t0;
	pid_t pid;
	char c;

	assert_int_equal(pipe(g), 0);
	assert_int_equal(pipe(r), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(g[1]);
		close(r[0]);
		if (read(g[0], &c, 1) != 1)
			_exit(1);
		if (job == BURN) {
			for (t0 = own_cpu_ns(); own_cpu_ns() - t0 < 200 * MS;)
				spins++;
			_exit(0);
		}
		if (job == ORPHAN_SLEEP || job == ORPHAN_AND_EXIT)
			leave_orphan(r[1]);
		if (job == ORPHAN_AND_EXIT)
			_exit(0);
		for (;;)
			pause();
	}
	close(g[0]);
	close(r[1]);
	*gate = g[1];
	if (report)
		*report = r[0];
	else
		close(r[0]);
	return pid;
}

static void go(int gate)
{
	assert_int_equal(write(gate, "x", 1), 1);
	close(gate);
}

/* in_v2_cgroup - whether /proc/@pid/cgroup puts @pid in v2 cgroup @name. */
static bool in_v2_cgroup(pid_t pid, const char *name)
{
	char path[64], line[4200], want[4200];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	snprintf(want, sizeof(want), "0::%s\n", name);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strcmp(line, want) == 0;
	fclose(f);
	return found;
}

static bool exists(const char *path)
{
	struct stat st;

	return path[0] && stat(path, &st) == 0;
}

/* killed - reap @pid and check SIGKILL ended it. */
static void assert_killed(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

static void test_attached_child_cpu_is_counted(void **state)
{
	struct fixture *f = *state;
	uint64_t before, after;
	int gate, status;
	pid_t pid;

	if (!need_root())
		skip();
	f->cg = create(f, NULL);
	before = cpu_ns(f, f->cg);
	pid = spawn(BURN, &gate, NULL);
	assert_int_equal(run_cgroup__attach(f->cg, pid, f->err, sizeof(f->err)), 0);
	if (run_cgroup__v2_name(f->cg)[0])
		assert_true(in_v2_cgroup(pid, run_cgroup__v2_name(f->cg)));
	go(gate);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	after = cpu_ns(f, f->cg);
	if (after - before < 150 * MS)
		fail_msg("cgroup counted %llu ns, the child burned 200 ms",
			 (unsigned long long)(after - before));
	assert_int_equal(run_cgroup__destroy(f->cg, f->err, sizeof(f->err)), 0);
}

static void test_v2_directory_and_id(void **state)
{
	struct fixture *f = *state;
	const char *path, *name;
	struct cgroup_ref ref;
	struct stat st;
	size_t pl, nl;

	if (!need_root())
		skip();
	f->cg = create(f, NULL);
	name = run_cgroup__v2_name(f->cg);
	path = run_cgroup__path(f->cg);
	if (!name[0])
		skip(); /* a v1-only host */
	assert_non_null(strstr(name, "/" RUN_CGROUP_NAME_PREFIX));
	pl = strlen(path);
	nl = strlen(name);
	assert_true(pl > nl && strcmp(path + pl - nl, name) == 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(run_cgroup__id(f->cg), (uint64_t)st.st_ino);
	/* what the rest of trapd resolves the name to agrees */
	assert_int_equal(cgroup_resolve(NULL, name, &ref), 0);
	assert_int_equal(ref.version, CGROUP_V2);
	assert_int_equal(ref.id, run_cgroup__id(f->cg));
	assert_string_equal(ref.relative, name);
	assert_int_equal(run_cgroup__destroy(f->cg, f->err, sizeof(f->err)), 0);
	assert_false(exists(path));
}

/* destroy_kills - a child (running, or exited after leaving an orphan)
 * and the orphan are killed and every directory removed. */
static void destroy_kills(struct fixture *f, const struct run_cgroup_opts *o, enum job job)
{
	char v2[4200], v1[4200];
	int gate, report, status;
	pid_t pid, orphan = 0;

	/* the orphan comes to this process, which can then see how it died */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	f->cg = create(f, o);
	snprintf(v2, sizeof(v2), "%s",
		 run_cgroup__v2_name(f->cg)[0] ? run_cgroup__path(f->cg) : "");
	snprintf(v1, sizeof(v1), "%s", run_cgroup__v1_path(f->cg));
	pid = spawn(job, &gate, &report);
	assert_int_equal(run_cgroup__attach(f->cg, pid, f->err, sizeof(f->err)), 0);
	go(gate);
	assert_int_equal(read(report, &orphan, sizeof(orphan)), (ssize_t)sizeof(orphan));
	close(report);
	if (job == ORPHAN_AND_EXIT) {
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
	}
	assert_int_equal(kill(orphan, 0), 0);
	if (v2[0])
		assert_true(in_v2_cgroup(orphan, run_cgroup__v2_name(f->cg)));
	if (run_cgroup__destroy(f->cg, f->err, sizeof(f->err)))
		fail_msg("run_cgroup__destroy: %s", f->err);
	if (job != ORPHAN_AND_EXIT)
		assert_killed(pid);
	assert_killed(orphan);
	assert_false(exists(v2));
	assert_false(exists(v1));
}

static void test_destroy_kills_child_and_orphan(void **state)
{
	if (!need_root())
		skip();
	destroy_kills(*state, NULL, ORPHAN_SLEEP);
}

static void test_destroy_kills_orphan_of_exited_child(void **state)
{
	if (!need_root())
		skip();
	destroy_kills(*state, NULL, ORPHAN_AND_EXIT);
}

/* The cpuacct twin, made through libcgroup: what a v1-only host gets. */
static void test_v1_twin(void **state)
{
	struct run_cgroup_opts o = { .v1_twin = true };
	struct fixture *f = *state;
	char path[4300], buf[64];
	int gate, status;
	unsigned long long used = 0;
	FILE *file;
	pid_t pid;

	if (!need_root())
		skip();
	if (access("/sys/fs/cgroup/cpuacct", F_OK) && access("/sys/fs/cgroup/cpu,cpuacct", F_OK))
		skip(); /* no cpuacct hierarchy: a pure v2 host */
	f->cg = create(f, &o);
	assert_true(exists(run_cgroup__v1_path(f->cg)));
	assert_non_null(strstr(run_cgroup__v1_path(f->cg), "/" RUN_CGROUP_NAME_PREFIX));
	pid = spawn(BURN, &gate, NULL);
	assert_int_equal(run_cgroup__attach(f->cg, pid, f->err, sizeof(f->err)), 0);
	go(gate);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	snprintf(path, sizeof(path), "%s/cpuacct.usage", run_cgroup__v1_path(f->cg));
	file = fopen(path, "re");
	assert_non_null(file);
	assert_non_null(fgets(buf, sizeof(buf), file));
	fclose(file);
	used = strtoull(buf, NULL, 10);
	if (used < 150 * MS)
		fail_msg("%s: %llu ns, the child burned 200 ms", path, used);
	assert_int_equal(run_cgroup__destroy(f->cg, f->err, sizeof(f->err)), 0);
	assert_false(exists(path));
	/* and with an orphan left running */
	run_cgroup__free(f->cg);
	f->cg = NULL;
	destroy_kills(f, &o, ORPHAN_SLEEP);
}

/* move_to_v2_parent - move @pid out of the v2 cgroup @dir into its parent. */
static void move_to_v2_parent(const char *dir, pid_t pid)
{
	char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/../cgroup.procs", dir);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)pid);
	assert_int_equal(fclose(f), 0);
}

/* With the processes only in the v1 twin (moved out of v2 here), destroy
 * must find and kill them one by one: what a v1-only host, or v2 on a
 * kernel before 5.14 (no cgroup.kill), gets. */
static void test_sigkill_loop_in_v1_twin(void **state)
{
	struct run_cgroup_opts o = { .v1_twin = true };
	struct fixture *f = *state;
	char v1[4200];
	int gate, report;
	pid_t pid, orphan = 0;

	if (!need_root())
		skip();
	if (access("/sys/fs/cgroup/cpuacct", F_OK) && access("/sys/fs/cgroup/cpu,cpuacct", F_OK))
		skip();
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	f->cg = create(f, &o);
	snprintf(v1, sizeof(v1), "%s", run_cgroup__v1_path(f->cg));
	pid = spawn(ORPHAN_SLEEP, &gate, &report);
	assert_int_equal(run_cgroup__attach(f->cg, pid, f->err, sizeof(f->err)), 0);
	go(gate);
	assert_int_equal(read(report, &orphan, sizeof(orphan)), (ssize_t)sizeof(orphan));
	close(report);
	if (run_cgroup__v2_name(f->cg)[0]) {
		move_to_v2_parent(run_cgroup__path(f->cg), pid);
		move_to_v2_parent(run_cgroup__path(f->cg), orphan);
		assert_false(in_v2_cgroup(orphan, run_cgroup__v2_name(f->cg)));
	}
	if (run_cgroup__destroy(f->cg, f->err, sizeof(f->err)))
		fail_msg("run_cgroup__destroy: %s", f->err);
	assert_killed(pid);
	assert_killed(orphan);
	assert_false(exists(v1));
}

static void test_destroy_twice_and_null(void **state)
{
	struct fixture *f = *state;
	uint64_t ns;

	assert_int_equal(run_cgroup__destroy(NULL, f->err, sizeof(f->err)), 0);
	run_cgroup__free(NULL);
	if (!need_root())
		skip();
	f->cg = create(f, NULL);
	assert_int_equal(run_cgroup__destroy(f->cg, f->err, sizeof(f->err)), 0);
	assert_int_equal(run_cgroup__destroy(f->cg, f->err, sizeof(f->err)), 0);
	assert_int_equal(run_cgroup__destroy(f->cg, NULL, 0), 0);
	assert_false(exists(run_cgroup__path(f->cg)));
	assert_int_equal(run_cgroup__cpu_ns(f->cg, &ns, f->err, sizeof(f->err)), -ENOENT);
	assert_int_equal(run_cgroup__attach(f->cg, 1, f->err, sizeof(f->err)), -ENOENT);
}

static void test_two_creates_differ(void **state)
{
	struct fixture *f = *state;

	if (!need_root())
		skip();
	f->cg = create(f, NULL);
	f->other = create(f, NULL);
	assert_string_not_equal(run_cgroup__path(f->cg), run_cgroup__path(f->other));
	assert_true(exists(run_cgroup__path(f->cg)));
	assert_true(exists(run_cgroup__path(f->other)));
	if (run_cgroup__id(f->cg))
		assert_true(run_cgroup__id(f->cg) != run_cgroup__id(f->other));
}

static void test_attach_refuses_bad_pids(void **state)
{
	struct fixture *f = *state;

	if (!need_root())
		skip();
	f->cg = create(f, NULL);
	assert_int_equal(run_cgroup__attach(f->cg, 0, f->err, sizeof(f->err)), -EINVAL);
	assert_int_equal(run_cgroup__attach(f->cg, -1, f->err, sizeof(f->err)), -EINVAL);
	/* trapd itself: destroying the cgroup would kill it */
	assert_int_equal(run_cgroup__attach(f->cg, getpid(), f->err, sizeof(f->err)), -EINVAL);
	assert_int_equal(run_cgroup__attach(f->cg, 4194304 + 1, f->err, sizeof(f->err)), -ESRCH);
}

static void test_named_parent(void **state)
{
	struct run_cgroup_opts o = { 0 };
	struct fixture *f = *state;
	char v2[4096], rel[256], want[300];

	if (!need_root())
		skip();
	if (cgroup_v2_mount(NULL, v2, sizeof(v2)))
		skip();
	snprintf(rel, sizeof(rel), RUN_CGROUP_NAME_PREFIX "test-parent-%d", (int)getpid());
	snprintf(f->parent, sizeof(f->parent), "%s/%s", v2, rel);
	assert_int_equal(mkdir(f->parent, 0755), 0);
	o.parent = rel;
	f->cg = create(f, &o);
	snprintf(want, sizeof(want), "/%s/" RUN_CGROUP_NAME_PREFIX, rel);
	assert_memory_equal(run_cgroup__v2_name(f->cg), want, strlen(want));
	assert_true(exists(run_cgroup__path(f->cg)));
	assert_int_equal(run_cgroup__destroy(f->cg, f->err, sizeof(f->err)), 0);
	/* the parent is the caller's, and stays */
	assert_true(exists(f->parent));

	o.parent = "no-such-parent-of-trapd-ci";
	assert_null(run_cgroup__create(&o, f->err, sizeof(f->err)));
	assert_int_equal(errno, ENOENT);
	o.parent = "../x";
	assert_null(run_cgroup__create(&o, f->err, sizeof(f->err)));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_attached_child_cpu_is_counted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_v2_directory_and_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_kills_child_and_orphan, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_destroy_kills_orphan_of_exited_child, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_v1_twin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_loop_in_v1_twin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_twice_and_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_creates_differ, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_refuses_bad_pids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_named_parent, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
