// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* run_cgroup.c - one transient cgroup for one `trapd ci` run.
 *
 * What libcgroup (2.0.2, Debian 12) does here, checked on a hybrid host
 * (v1 cpu and cpuacct apart, v2 at /sys/fs/cgroup/unified, Linux 6.18):
 * - Its mount table has no entry for the v2 tree as such: a cgroup2 mount
 *   appears only under the controllers its cgroup.controllers lists
 *   ("hugetlb -> /sys/fs/cgroup/unified" there); asked for "unified" it
 *   answers ECGROUPNOTEXIST (50002).
 * - cgroup_create_cgroup with no controller returns 0 and makes nothing
 *   anywhere (version 3 makes an empty v2 cgroup there; 2.0.2 does not).
 *   With the controller "unified" it fails with ECGROUPSUBSYSNOTMOUNTED
 *   (50004); with "cgroup2" it returns 0 and again makes nothing.
 * - With "hugetlb" it does make the v2 directory, but first writes
 *   "+hugetlb" into the parent's cgroup.subtree_control and never undoes
 *   it (deleting leaves it set). That changes the host for every cgroup
 *   below; on a pure v2 host, where the parent is trapd's own cgroup with
 *   trapd in it, the kernel refuses it outright (no internal processes).
 *   So the v2 directory is made with mkdir(2), its processes moved by
 *   writing cgroup.procs, and it is removed with rmdir(2).
 * - For v1 it serves: cgroup_create_cgroup with "cpuacct" makes the twin
 *   (mkdir -p, mode 0775; an existing directory counts as made, hence the
 *   check before), cgroup_change_cgroup_path moves every thread of a
 *   process, cgroup_get_current_controller_path says where trapd is, and
 *   cgroup_delete_cgroup_ext removes the twin. It is used for all of that.
 *   Its mount discovery is rules/cgroup_stat's (which calls cgroup_init).
 */
#include "trapd/capture/run_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libcgroup.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rules/cgroup_stat.h"
#include "rules/errmsg.h"
#include "rules/proc_stat.h"

#define NAME_TRIES 8   /* fresh names tried when one exists */
#define WALK_DEPTH 32  /* cgroups the command made below ours: levels ... */
#define WALK_DIRS 4096 /* ... and directories visited */
#define SMALL_FILE 512 /* cgroup.events */
#define POLL_MS 2      /* first pause while waiting for the cgroup to empty */
#define POLL_MS_MAX 50 /* ... growing to this */

struct run_cgroup {
	char name[64];		      /* "trapd-ci-<pid>-<hex>" */
	char v2_name[PATH_MAX];	      /* relative to the v2 root, "" without v2 */
	char v2_dir[PATH_MAX];	      /* absolute, "" without v2 */
	char v1_name[PATH_MAX];	      /* the twin, relative to the cpuacct root */
	char v1_dir[PATH_MAX];	      /* absolute, "" without a twin */
	struct cgroup *v1;	      /* libcgroup's handle of the twin */
	struct cgroup_stat_dirs stat; /* what cgroup_stat_read reads */
	uint64_t id;
	unsigned int timeout_ms;
	bool v2_made, v1_made; /* the directory is there to remove */
};

/* lib_errno - a libcgroup error code (ECG*, positive) as a negative errno. */
static int lib_errno(int code)
{
	int e;

	switch (code) {
	case 0:
		return 0;
	case ECGOTHER:
		e = cgroup_get_last_errno();
		return e > 0 ? -e : -EIO;
	case ECGROUPNOTEXIST:
		return -ENOENT;
	case ECGROUPNOTOWNER:
		return -EPERM;
	case ECGROUPNOTALLOWED:
		return -EACCES;
	case ECGNONEMPTY:
		return -EBUSY;
	case ECGROUPNOTINITIALIZED:
	case ECGROUPNOTMOUNTED:
	case ECGROUPSUBSYSNOTMOUNTED:
		return -ENODEV;
	default:
		return -EIO;
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* join - @a @b @c into @out; -ENAMETOOLONG when it does not fit. */
static int join(char *out, size_t len, const char *a, const char *b, const char *c)
{
	int n = snprintf(out, len, "%s%s%s", a, b, c);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* under_rel - @rel ("/" or "/a/b") as a prefix to put "/name" after. */
static const char *under_rel(const char *rel)
{
	return strcmp(rel, "/") ? rel : "";
}

static int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, ret = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* own_v2_parent - the v2 cgroup this process is in, from the "0::PATH"
 * line of /proc/self/cgroup, into @rel. */
static int own_v2_parent(char *rel, size_t len, char *err, size_t errlen)
{
	char buf[8192], *line, *end;
	int ret;

	ret = proc_stat_read_text("/proc/self/cgroup", buf, sizeof(buf), NULL);
	if (ret)
		return errmsg_fail(err, errlen, ret, "/proc/self/cgroup: %s", strerror(-ret));
	for (line = buf; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (!strncmp(line, "0::/", 4))
			return join(rel, len, line + 3, "", "")
				       ? errmsg_fail(err, errlen, -ENAMETOOLONG,
						     "/proc/self/cgroup: v2 path too long")
				       : 0;
	}
	return errmsg_fail(err, errlen, -ENOENT, "/proc/self/cgroup: no v2 (\"0::\") line");
}

/* own_v1_parent - the cpuacct cgroup this process is in, from libcgroup. */
static int own_v1_parent(char *rel, size_t len, char *err, size_t errlen)
{
	char *path = NULL;
	int code, ret;

	code = cgroup_get_current_controller_path(getpid(), "cpuacct", &path);
	if (code || !path) {
		free(path);
		return errmsg_fail(err, errlen, code ? lib_errno(code) : -ENOENT,
				   "libcgroup: no cpuacct cgroup of this process: %s (code %d)",
				   code ? cgroup_strerror(code) : "none", code);
	}
	ret = join(rel, len, path[0] == '/' ? "" : "/", path, "");
	free(path);
	return ret ? errmsg_fail(err, errlen, ret, "cpuacct cgroup path too long") : 0;
}

/* parent_in - the parent of the new cgroup in the hierarchy mounted at
 * @mnt (@v2 or cpuacct), relative to its root, into @rel: the named one,
 * or the cgroup this process is in. */
static int parent_in(const struct cgroup_stat_mounts *m, const char *named, bool v2, char *rel,
		     size_t len, char *err, size_t errlen)
{
	struct cgroup_stat_dirs *d;
	int ret;

	if (!named)
		return v2 ? own_v2_parent(rel, len, err, errlen)
			  : own_v1_parent(rel, len, err, errlen);
	d = malloc(sizeof(*d));
	if (!d)
		return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
	ret = cgroup_stat_locate(m, named, d, err, errlen);
	if (!ret && !(v2 ? d->v2 : d->cpuacct)[0])
		ret = errmsg_fail(err, errlen, -ENOENT,
				  "parent cgroup %s: not in the %s hierarchy %s", named,
				  v2 ? "v2" : "cpuacct", v2 ? m->v2 : m->cpuacct);
	if (!ret && join(rel, len, d->relative, "", ""))
		ret = errmsg_fail(err, errlen, -ENAMETOOLONG, "parent cgroup %s: too long", named);
	free(d);
	return ret;
}

static void make_name(char *out, size_t len)
{
	static unsigned int counter;
	struct timespec ts;
	uint32_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint32_t)ts.tv_nsec ^ ((uint32_t)ts.tv_sec * 2654435761u) ^ ++counter;
	}
	snprintf(out, len, RUN_CGROUP_NAME_PREFIX "%d-%08x", (int)getpid(), (unsigned int)r);
}

static const char *perm_hint(int e)
{
	return e == -EACCES || e == -EPERM
		       ? " (not root, and the parent cgroup is not delegated to this user)"
		       : "";
}

/* make_v2 - mkdir the cgroup under @rel in the v2 tree, with a fresh name
 * until one is free; its id is the directory's inode number. */
static int make_v2(struct run_cgroup *cg, const struct cgroup_stat_mounts *m, const char *rel,
		   char *err, size_t errlen)
{
	struct stat st;
	int i, ret;

	for (i = 0; i < NAME_TRIES; i++) {
		make_name(cg->name, sizeof(cg->name));
		if (join(cg->v2_name, sizeof(cg->v2_name), under_rel(rel), "/", cg->name) ||
		    join(cg->v2_dir, sizeof(cg->v2_dir), m->v2, cg->v2_name, ""))
			return errmsg_fail(err, errlen, -ENAMETOOLONG, "cgroup %s%s/...: too long",
					   m->v2, under_rel(rel));
		if (mkdir(cg->v2_dir, 0755) == 0)
			break;
		if (errno != EEXIST) {
			ret = -errno;
			return errmsg_fail(err, errlen, ret, "cannot create cgroup %s: %s%s",
					   cg->v2_dir, strerror(-ret), perm_hint(ret));
		}
	}
	if (i == NAME_TRIES)
		return errmsg_fail(err, errlen, -EEXIST, "no free cgroup name under %s%s", m->v2,
				   under_rel(rel));
	cg->v2_made = true;
	if (stat(cg->v2_dir, &st))
		return errmsg_fail(err, errlen, -errno, "%s: %s", cg->v2_dir, strerror(errno));
	cg->id = (uint64_t)st.st_ino;
	return 0;
}

/* make_v1 - the cpuacct twin, same name, under @rel, through libcgroup. */
static int make_v1(struct run_cgroup *cg, const struct cgroup_stat_mounts *m, const char *rel,
		   char *err, size_t errlen)
{
	struct stat st;
	int code, ret;

	if (!cg->name[0])
		make_name(cg->name, sizeof(cg->name));
	if (join(cg->v1_name, sizeof(cg->v1_name), under_rel(rel), "/", cg->name) ||
	    join(cg->v1_dir, sizeof(cg->v1_dir), m->cpuacct, cg->v1_name, ""))
		return errmsg_fail(err, errlen, -ENAMETOOLONG, "cgroup %s%s/...: too long",
				   m->cpuacct, under_rel(rel));
	/* libcgroup's mkdir takes an existing directory as made */
	if (stat(cg->v1_dir, &st) == 0)
		return errmsg_fail(err, errlen, -EEXIST, "cgroup %s exists already", cg->v1_dir);
	cg->v1 = cgroup_new_cgroup(cg->v1_name);
	if (!cg->v1 || !cgroup_add_controller(cg->v1, "cpuacct"))
		return errmsg_fail(err, errlen, -ENOMEM, "libcgroup: out of memory");
	code = cgroup_create_cgroup(cg->v1, 1);
	/* a failure part way may leave the directory: remove it then too */
	cg->v1_made = stat(cg->v1_dir, &st) == 0;
	if (code) {
		ret = lib_errno(code);
		return errmsg_fail(err, errlen, ret,
				   "libcgroup cannot create cpuacct:%s: %s (code %d)%s",
				   cg->v1_name, cgroup_strerror(code), code, perm_hint(ret));
	}
	if (!cg->v1_made)
		return errmsg_fail(err, errlen, -EIO, "libcgroup made no directory %s", cg->v1_dir);
	return 0;
}

/* make_all - the v2 cgroup, and the cpuacct twin where v2 cannot tell the
 * CPU time (or @opts asks for it); fills what cgroup_stat_read reads. */
static int make_all(struct run_cgroup *cg, const struct cgroup_stat_mounts *m,
		    const struct run_cgroup_opts *opts, char *err, size_t errlen)
{
	struct cgroup_stat_counters c;
	char rel[PATH_MAX];
	bool v2_counts = false;
	int ret;

	if (m->v2[0]) {
		ret = parent_in(m, opts->parent, true, rel, sizeof(rel), err, errlen);
		if (!ret)
			ret = make_v2(cg, m, rel, err, errlen);
		if (ret)
			return ret;
		join(cg->stat.v2, sizeof(cg->stat.v2), cg->v2_dir, "", "");
		join(cg->stat.relative, sizeof(cg->stat.relative), cg->v2_name, "", "");
		v2_counts = cgroup_stat_read(&cg->stat, CGROUP_STAT_USAGE, &c, NULL, 0) == 0;
		if (!v2_counts)
			cg->stat.v2[0] = '\0';
	}
	if (v2_counts && !opts->v1_twin)
		return 0;
	if (!m->cpuacct[0])
		return errmsg_fail(err, errlen, -ENODATA,
				   "no CPU time counter: %s and no cpuacct hierarchy is mounted",
				   m->v2[0] ? "v2 cpu.stat has no usage_usec" : "no v2 tree");
	ret = parent_in(m, opts->parent, false, rel, sizeof(rel), err, errlen);
	if (!ret)
		ret = make_v1(cg, m, rel, err, errlen);
	if (ret)
		return ret;
	join(cg->stat.cpuacct, sizeof(cg->stat.cpuacct), cg->v1_dir, "", "");
	if (!cg->stat.relative[0])
		join(cg->stat.relative, sizeof(cg->stat.relative), cg->v1_name, "", "");
	return 0;
}

struct run_cgroup *run_cgroup__create(const struct run_cgroup_opts *opts, char *err, size_t errlen)
{
	static const struct run_cgroup_opts defaults;
	struct cgroup_stat_mounts *m = NULL;
	struct run_cgroup *cg = NULL;
	int ret;

	if (!opts)
		opts = &defaults;
	m = malloc(sizeof(*m));
	cg = calloc(1, sizeof(*cg));
	if (!m || !cg) {
		ret = errmsg_fail(err, errlen, -ENOMEM, "out of memory");
		goto cleanup;
	}
	cg->timeout_ms = opts->timeout_ms ? opts->timeout_ms : RUN_CGROUP_TIMEOUT_MS;
	/* the mounts, v1 ones through libcgroup (which this initialises) */
	ret = cgroup_stat_find_mounts(CGROUP_STAT_LIVE_MOUNTINFO, "", m, err, errlen);
	if (!ret && !m->v2[0] && !m->cpuacct[0])
		ret = errmsg_fail(err, errlen, -ENOENT,
				  "no cgroup v2 tree and no cpuacct hierarchy");
	if (!ret)
		ret = make_all(cg, m, opts, err, errlen);
cleanup:
	free(m);
	if (ret) {
		run_cgroup__free(cg);
		errno = -ret;
		return NULL;
	}
	return cg;
}

int run_cgroup__attach(struct run_cgroup *cg, pid_t pid, char *err, size_t errlen)
{
	static const char *const cpuacct[] = { "cpuacct", NULL };
	char path[PATH_MAX + 32], text[32];
	int ret = 0, code;

	if (!cg || pid <= 0 || pid == getpid())
		return errmsg_fail(err, errlen, -EINVAL, "cannot attach pid %d", (int)pid);
	if (!cg->v2_made && !cg->v1_made)
		return errmsg_fail(err, errlen, -ENOENT, "cgroup %s was removed", cg->name);
	if (cg->v2_made) {
		snprintf(text, sizeof(text), "%d\n", (int)pid);
		if (join(path, sizeof(path), cg->v2_dir, "/cgroup.procs", ""))
			return errmsg_fail(err, errlen, -ENAMETOOLONG, "%s: too long", cg->v2_dir);
		ret = write_text(path, text);
		if (ret)
			return errmsg_fail(err, errlen, ret, "cannot move pid %d into %s: %s%s",
					   (int)pid, cg->v2_dir, strerror(-ret), perm_hint(ret));
	}
	if (cg->v1_made) {
		/* every thread of @pid, where the v1 "tasks" file takes one */
		code = cgroup_change_cgroup_path(cg->v1_name, pid, cpuacct);
		if (code)
			return errmsg_fail(
				err, errlen, lib_errno(code),
				"libcgroup cannot move pid %d into cpuacct:%s: %s (code %d)",
				(int)pid, cg->v1_name, cgroup_strerror(code), code);
	}
	return 0;
}

int run_cgroup__cpu_ns(const struct run_cgroup *cg, uint64_t *ns, char *err, size_t errlen)
{
	struct cgroup_stat_counters c;
	int ret;

	if (!cg || !ns)
		return errmsg_fail(err, errlen, -EINVAL, "no cgroup");
	if (!cg->stat.v2[0] && !cg->stat.cpuacct[0])
		return errmsg_fail(err, errlen, -ENOENT, "cgroup %s was removed", cg->name);
	ret = cgroup_stat_read(&cg->stat, CGROUP_STAT_USAGE, &c, err, errlen);
	if (!ret)
		*ns = c.usage_ns;
	return ret;
}

const char *run_cgroup__v2_name(const struct run_cgroup *cg)
{
	return cg ? cg->v2_name : "";
}

uint64_t run_cgroup__id(const struct run_cgroup *cg)
{
	return cg ? cg->id : 0;
}

const char *run_cgroup__path(const struct run_cgroup *cg)
{
	if (!cg)
		return "";
	return cg->v2_dir[0] ? cg->v2_dir : cg->v1_dir;
}

const char *run_cgroup__v1_path(const struct run_cgroup *cg)
{
	return cg ? cg->v1_dir : "";
}

/* kill_members - SIGKILL every process in @dir and the cgroups below it;
 * *@seen counts them (0: all are gone). @budget bounds the directories. */
static int kill_members(const char *dir, int depth, size_t *budget, size_t *seen)
{
	char path[PATH_MAX], line[32];
	struct dirent *de;
	const char *p;
	uint64_t pid;
	DIR *d;
	FILE *f;

	if (depth > WALK_DEPTH || *budget == 0 ||
	    join(path, sizeof(path), dir, "/cgroup.procs", ""))
		return -ELOOP;
	(*budget)--;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		p = line;
		if (proc_stat_parse_u64(&p, &pid) || pid == 0 || pid > INT32_MAX ||
		    (pid_t)pid == getpid())
			continue;
		(*seen)++;
		kill((pid_t)pid, SIGKILL);
	}
	fclose(f);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    join(path, sizeof(path), dir, "/", de->d_name))
			continue;
		if (kill_members(path, depth + 1, budget, seen) == -ELOOP)
			break;
	}
	closedir(d);
	return 0;
}

/* v2_populated - 1 while any process is in @dir or below (cgroup.events
 * "populated"), 0 once none is, or a negative errno. */
static int v2_populated(const char *dir)
{
	char path[PATH_MAX], buf[SMALL_FILE];
	uint64_t v;
	int ret;

	if (join(path, sizeof(path), dir, "/cgroup.events", ""))
		return -ENAMETOOLONG;
	ret = proc_stat_read_text(path, buf, sizeof(buf), NULL);
	if (ret)
		return ret;
	if (cgroup_stat_parse_keyed(buf, "populated", &v))
		return -EINVAL;
	return v != 0;
}

/* pause_until - sleep a little (longer each time, from *@pause ms)
 * unless @deadline (now_ms) has passed: then -ETIMEDOUT. */
static int pause_until(uint64_t deadline, unsigned int *pause)
{
	if (now_ms() >= deadline)
		return -ETIMEDOUT;
	sleep_ms(*pause);
	*pause = *pause * 2 > POLL_MS_MAX ? POLL_MS_MAX : *pause * 2;
	return 0;
}

static int stuck(const char *dir, char *err, size_t errlen)
{
	return errmsg_fail(err, errlen, -ETIMEDOUT,
			   "cgroup %s: processes still in it after SIGKILL (stuck in the kernel?)",
			   dir);
}

/* empty_v2 - kill everything in the v2 cgroup @dir and below and wait
 * until cgroup.events says it is empty, until @deadline. */
static int empty_v2(const char *dir, uint64_t deadline, char *err, size_t errlen)
{
	unsigned int pause = POLL_MS;
	char path[PATH_MAX];
	size_t seen, budget;
	bool killed = false;
	int pop;

	/* cgroup.kill (Linux 5.14): the whole subtree at once, forks too */
	if (!join(path, sizeof(path), dir, "/cgroup.kill", ""))
		killed = write_text(path, "1") == 0;
	for (;;) {
		pop = v2_populated(dir);
		if (pop == 0 || pop == -ENOENT)
			return 0;
		if (pop < 0)
			return errmsg_fail(err, errlen, pop, "%s/cgroup.events: %s", dir,
					   strerror(-pop));
		/* an older kernel: a member at a time, again and again, as
		 * processes may fork while this runs */
		if (!killed) {
			seen = 0;
			budget = WALK_DIRS;
			kill_members(dir, 0, &budget, &seen);
		}
		if (pause_until(deadline, &pause))
			return stuck(dir, err, errlen);
	}
}

/* empty_v1 - the same in a v1 hierarchy: SIGKILL every member until
 * cgroup.procs is empty here and below. */
static int empty_v1(const char *dir, uint64_t deadline, char *err, size_t errlen)
{
	unsigned int pause = POLL_MS;
	size_t seen, budget;
	int ret;

	for (;;) {
		seen = 0;
		budget = WALK_DIRS;
		ret = kill_members(dir, 0, &budget, &seen);
		if (ret && ret != -ELOOP)
			return errmsg_fail(err, errlen, ret, "%s: %s", dir, strerror(-ret));
		if (seen == 0)
			return 0;
		if (pause_until(deadline, &pause))
			return stuck(dir, err, errlen);
	}
}

/* rmdir_tree - remove @dir and the cgroups below it, deepest first. */
static int rmdir_tree(const char *dir, int depth, size_t *budget)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (depth > WALK_DEPTH || *budget == 0)
		return -ELOOP;
	(*budget)--;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
		    !join(path, sizeof(path), dir, "/", de->d_name))
			ret = rmdir_tree(path, depth + 1, budget);
	closedir(d);
	if (!ret && rmdir(dir) && errno != ENOENT)
		ret = -errno;
	return ret;
}

/* remove_v2 - rmdir the v2 cgroup; EBUSY passes once the last exit is
 * accounted, so it is tried again until @deadline. */
static int remove_v2(struct run_cgroup *cg, uint64_t deadline, char *err, size_t errlen)
{
	size_t budget;
	int ret;

	for (;;) {
		budget = WALK_DIRS;
		ret = rmdir_tree(cg->v2_dir, 0, &budget);
		if (ret != -EBUSY || now_ms() >= deadline)
			break;
		sleep_ms(POLL_MS);
	}
	if (ret)
		return errmsg_fail(err, errlen, ret, "cannot remove cgroup %s: %s", cg->v2_dir,
				   strerror(-ret));
	cg->v2_made = false;
	cg->stat.v2[0] = '\0';
	return 0;
}

/* remove_v1 - the twin through libcgroup, with what was made below it;
 * it is empty by now, so no task is moved to the parent. */
static int remove_v1(struct run_cgroup *cg, uint64_t deadline, char *err, size_t errlen)
{
	struct stat st;
	int code;

	for (;;) {
		code = cgroup_delete_cgroup_ext(cg->v1, CGFLAG_DELETE_RECURSIVE);
		if (stat(cg->v1_dir, &st) && errno == ENOENT)
			break;
		if (now_ms() >= deadline)
			return errmsg_fail(err, errlen, code ? lib_errno(code) : -EBUSY,
					   "libcgroup cannot remove cpuacct:%s: %s (code %d)",
					   cg->v1_name,
					   code ? cgroup_strerror(code) : "still there", code);
		sleep_ms(POLL_MS);
	}
	cg->v1_made = false;
	cg->stat.cpuacct[0] = '\0';
	return 0;
}

int run_cgroup__destroy(struct run_cgroup *cg, char *err, size_t errlen)
{
	uint64_t deadline;
	int ret = 0, r;

	if (!cg)
		return 0;
	deadline = now_ms() + cg->timeout_ms;
	/* the first error is the one reported; the rest is still tried */
	if (cg->v2_made) {
		r = empty_v2(cg->v2_dir, deadline, err, errlen);
		if (!r)
			r = remove_v2(cg, deadline, err, errlen);
		ret = r;
	}
	if (cg->v1_made) {
		r = empty_v1(cg->v1_dir, deadline, ret ? NULL : err, ret ? 0 : errlen);
		if (!r)
			r = remove_v1(cg, deadline, ret ? NULL : err, ret ? 0 : errlen);
		ret = ret ? ret : r;
	}
	return ret;
}

void run_cgroup__free(struct run_cgroup *cg)
{
	if (!cg)
		return;
	run_cgroup__destroy(cg, NULL, 0);
	cgroup_free(&cg->v1);
	free(cg);
}
