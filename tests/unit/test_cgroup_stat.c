// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cgroup_stat.c - cgroup hierarchies from the mountinfo of pure v2,
 * v1 (apart and co-mounted) and hybrid fixture trees (tests/data/sys),
 * a cgroup's directories in them, its counters by the documented
 * precedence, the error messages, and the live host through libcgroup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/cgroup_stat.h"

static char data[512];

static int setup(void **state)
{
	const char *d = getenv("TRAPD_TESTDATA");

	snprintf(data, sizeof(data), "%s/sys", d ? d : "tests/data");
	return 0;
}

/* layout - the mounts of fixture tree @name (prefix: the tree). */
static void layout(const char *name, struct cgroup_stat_mounts *m)
{
	char mi[700], prefix[600], err[512];

	snprintf(prefix, sizeof(prefix), "%s/%s", data, name);
	snprintf(mi, sizeof(mi), "%s/mountinfo", prefix);
	if (cgroup_stat_find_mounts(mi, prefix, m, err, sizeof(err)))
		fail_msg("%s", err);
}

/* under - @path is @prefix followed by @rest. */
static void assert_under(const char *path, const struct cgroup_stat_mounts *m, const char *rest)
{
	size_t pl = strlen(m->prefix);

	if (strncmp(path, m->prefix, pl) || strcmp(path + pl, rest))
		fail_msg("'%s' is not '%s' + '%s'", path, m->prefix, rest);
}

static void test_mounts_of_each_layout(void **state)
{
	struct cgroup_stat_mounts m;

	layout("v2", &m);
	assert_string_equal(m.v2, "/sys/fs/cgroup");
	assert_string_equal(m.cpu, "");
	assert_string_equal(m.cpuacct, "");
	assert_false(m.libcgroup); /* a fixture never asks libcgroup */
	layout("v1", &m);
	assert_string_equal(m.v2, "");
	assert_string_equal(m.cpu, "/sys/fs/cgroup/cpu");
	assert_string_equal(m.cpuacct, "/sys/fs/cgroup/cpuacct");
	layout("v1-comounted", &m);
	assert_string_equal(m.cpu, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(m.cpuacct, "/sys/fs/cgroup/cpu,cpuacct");
	layout("hybrid", &m);
	assert_string_equal(m.v2, "/sys/fs/cgroup/unified");
	assert_string_equal(m.cpu, "/sys/fs/cgroup/cpu");
	assert_string_equal(m.cpuacct, "/sys/fs/cgroup/cpuacct");
}

static void test_mount_line_details(void **state)
{
	struct cgroup_stat_mounts m;

	memset(&m, 0, sizeof(m));
	/* cpuset is not cpu; mount options are not super options */
	cgroup_stat_mount_line(
		"28 26 0:24 / /sys/fs/cgroup/cpuset rw,cpu - cgroup cgroup rw,cpuset", &m);
	assert_string_equal(m.cpu, "");
	/* escapes, optional fields, several of them */
	cgroup_stat_mount_line("29 26 0:25 / /cg/my\\040cpu rw shared:4 master:1 - cgroup cgroup "
			       "rw,nosuid,cpuacct,cpu",
			       &m);
	assert_string_equal(m.cpu, "/cg/my cpu");
	assert_string_equal(m.cpuacct, "/cg/my cpu");
	/* the first mount of a hierarchy wins */
	cgroup_stat_mount_line("30 26 0:25 / /elsewhere rw - cgroup cgroup rw,cpu", &m);
	assert_string_equal(m.cpu, "/cg/my cpu");
	/* malformed lines change nothing */
	cgroup_stat_mount_line("", &m);
	cgroup_stat_mount_line("31 26 0:26 / /x rw - cgroup2", &m);
	cgroup_stat_mount_line("31 26 0:26 / /x rw cgroup2 cgroup2 rw", &m);
	cgroup_stat_mount_line("31 26 0:26 / /x rw -", &m);
	assert_string_equal(m.v2, "");
	cgroup_stat_mount_line("31 26 0:26 / /x rw - cgroup2 cgroup2 rw", &m);
	assert_string_equal(m.v2, "/x");
}

static void test_find_mounts_errors(void **state)
{
	char mi[600], err[512];
	struct cgroup_stat_mounts m;

	assert_int_equal(cgroup_stat_find_mounts("/nonexistent/mountinfo", "", &m, err, 512),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/mountinfo: No such file or directory");
	snprintf(mi, sizeof(mi), "%s/../mountinfo/v1-only", data);
	assert_int_equal(cgroup_stat_find_mounts(mi, "", &m, err, sizeof(err)), 0);
	assert_string_equal(m.cpu, "/sys/fs/cgroup/cpu");
	/* a file without any cgroup mount in it */
	snprintf(mi, sizeof(mi), "%s/hybrid/proc/pressure/cpu", data);
	assert_int_equal(cgroup_stat_find_mounts(mi, "", &m, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no cgroup2, cpu or cpuacct cgroup mount"));
}

static void test_locate_hybrid(void **state)
{
	struct cgroup_stat_mounts m;
	struct cgroup_stat_dirs d;
	char err[1024];

	layout("hybrid", &m);
	assert_int_equal(cgroup_stat_locate(&m, "system.slice/web.service", &d, err, 1024), 0);
	assert_string_equal(d.relative, "/system.slice/web.service");
	assert_under(d.v2, &m, "/sys/fs/cgroup/unified/system.slice/web.service");
	assert_under(d.cpu, &m, "/sys/fs/cgroup/cpu/system.slice/web.service");
	assert_under(d.cpuacct, &m, "/sys/fs/cgroup/cpuacct/system.slice/web.service");
	/* v1 only, v2 only */
	assert_int_equal(cgroup_stat_locate(&m, "legacy", &d, err, sizeof(err)), 0);
	assert_string_equal(d.v2, "");
	assert_under(d.cpu, &m, "/sys/fs/cgroup/cpu/legacy");
	assert_int_equal(cgroup_stat_locate(&m, "batch.slice/", &d, err, sizeof(err)), 0);
	assert_under(d.v2, &m, "/sys/fs/cgroup/unified/batch.slice");
	assert_string_equal(d.cpu, "");
	assert_string_equal(d.cpuacct, "");
	/* an absolute v1 directory finds its v2 counterpart, and back */
	assert_int_equal(cgroup_stat_locate(&m, "/sys/fs/cgroup/cpu/system.slice//web.service", &d,
					    err, sizeof(err)),
			 0);
	assert_string_equal(d.relative, "/system.slice/web.service");
	assert_under(d.v2, &m, "/sys/fs/cgroup/unified/system.slice/web.service");
	assert_int_equal(cgroup_stat_locate(&m, "/sys/fs/cgroup/unified/system.slice/web.service/",
					    &d, err, sizeof(err)),
			 0);
	assert_under(d.cpu, &m, "/sys/fs/cgroup/cpu/system.slice/web.service");
	/* the roots */
	assert_int_equal(cgroup_stat_locate(&m, "/sys/fs/cgroup/cpuacct", &d, err, 1024), 0);
	assert_string_equal(d.relative, "/");
	assert_under(d.v2, &m, "/sys/fs/cgroup/unified");
	assert_int_equal(cgroup_stat_locate(&m, ".", &d, err, sizeof(err)), 0);
	assert_under(d.cpu, &m, "/sys/fs/cgroup/cpu");
	/* as /proc/PID/cgroup writes them */
	assert_int_equal(cgroup_stat_locate(&m, "/", &d, err, sizeof(err)), 0);
	assert_string_equal(d.relative, "/");
	assert_int_equal(cgroup_stat_locate(&m, "/system.slice/web.service", &d, err, 1024), 0);
	assert_under(d.cpuacct, &m, "/sys/fs/cgroup/cpuacct/system.slice/web.service");
}

static void test_locate_v1_comounted_through_links(void **state)
{
	struct cgroup_stat_mounts m;
	struct cgroup_stat_dirs d;
	char err[1024];

	layout("v1-comounted", &m);
	/* "/sys/fs/cgroup/cpu" is a link to "cpu,cpuacct", as systemd makes it */
	assert_int_equal(cgroup_stat_locate(&m, "/sys/fs/cgroup/cpu/system.slice/web.service", &d,
					    err, sizeof(err)),
			 0);
	assert_string_equal(d.relative, "/system.slice/web.service");
	assert_under(d.cpu, &m, "/sys/fs/cgroup/cpu,cpuacct/system.slice/web.service");
	assert_string_equal(d.cpu, d.cpuacct);
	assert_string_equal(d.v2, "");
}

static void test_locate_errors(void **state)
{
	struct cgroup_stat_mounts m;
	struct cgroup_stat_dirs d;
	char err[1024];

	layout("hybrid", &m);
	assert_int_equal(cgroup_stat_locate(&m, "system.slice/nope.service", &d, err, 1024),
			 -ENOENT);
	assert_non_null(strstr(err, "cgroup system.slice/nope.service: no such cgroup (looked for "
				    "/system.slice/nope.service in v2 '/sys/fs/cgroup/unified', "
				    "cpu '/sys/fs/cgroup/cpu', cpuacct '/sys/fs/cgroup/cpuacct'"));
	/* a directory outside every hierarchy is not a cgroup */
	assert_int_equal(cgroup_stat_locate(&m, "/sys", &d, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cgroup /sys: no such cgroup (looked for /sys in v2"));
	assert_int_equal(cgroup_stat_locate(&m, "system.slice/../../etc", &d, err, 1024), -EINVAL);
	assert_string_equal(err, "cgroup system.slice/../../etc: a '..' component is not allowed");
	assert_int_equal(cgroup_stat_locate(&m, "", &d, err, sizeof(err)), -EINVAL);
}

struct want {
	const char *layout, *cgroup;
	enum cgroup_stat_src usage_src;
	uint64_t usage_ns;
	enum cgroup_stat_src throttle_src;
	uint64_t periods, throttled, throttled_ns;
	uint64_t quota_mcpu; /* 0: none */
};

static void test_counters_by_precedence(void **state)
{
#define N CGROUP_STAT_SRC_NONE
#define V1 CGROUP_STAT_SRC_V1
#define V2 CGROUP_STAT_SRC_V2
	static const struct want w[] = {
		{ "v2", "system.slice/web.service", V2, 2000000000000, V2, 1000, 50, 2500000000,
		  500 },
		{ "v2", "system.slice", V2, 5000000000000, V2, 20000, 0, 0, 0 },
		{ "v2", "user.slice", V2, 1000000000000, N, 0, 0, 0, 0 },
		{ "v2", ".", V2, 9000000000000, N, 0, 0, 0, 0 },
		{ "v1", "system.slice/web.service", V1, 3000000000, V1, 4000, 120, 3000000000,
		  1500 },
		{ "v1-comounted", "system.slice/web.service", V1, 7000000000, V1, 600, 30,
		  900000000, 2000 },
		/* hybrid: usage from v2 (not cpuacct's 2.4s), throttling from v1 */
		{ "hybrid", "system.slice/web.service", V2, 2500000000000, V1, 2000, 100,
		  1500000000, 500 },
		{ "hybrid", "legacy", V1, 1000000000, V1, 100, 0, 0, 0 },
		{ "hybrid", "batch.slice", V2, 600000000000, N, 0, 0, 0, 0 },
	};
#undef N
#undef V1
#undef V2
	struct cgroup_stat_counters c;
	struct cgroup_stat_mounts m;
	struct cgroup_stat_dirs d;
	char err[1024];
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		layout(w[i].layout, &m);
		if (cgroup_stat_locate(&m, w[i].cgroup, &d, err, sizeof(err)) ||
		    cgroup_stat_read(&d,
				     CGROUP_STAT_USAGE | CGROUP_STAT_THROTTLE | CGROUP_STAT_QUOTA,
				     &c, err, sizeof(err)))
			fail_msg("%s %s: %s", w[i].layout, w[i].cgroup, err);
		if (c.usage_src != w[i].usage_src || c.usage_ns != w[i].usage_ns ||
		    c.throttle_src != w[i].throttle_src || c.nr_periods != w[i].periods ||
		    c.nr_throttled != w[i].throttled || c.throttled_ns != w[i].throttled_ns ||
		    c.has_quota != (w[i].quota_mcpu != 0) || c.quota_mcpu != w[i].quota_mcpu)
			fail_msg("%s %s: usage %d %llu throttle %d %llu %llu %llu quota %d %llu",
				 w[i].layout, w[i].cgroup, c.usage_src,
				 (unsigned long long)c.usage_ns, c.throttle_src,
				 (unsigned long long)c.nr_periods,
				 (unsigned long long)c.nr_throttled,
				 (unsigned long long)c.throttled_ns, c.has_quota,
				 (unsigned long long)c.quota_mcpu);
	}
	/* only what is asked for is read */
	layout("hybrid", &m);
	assert_int_equal(cgroup_stat_locate(&m, "system.slice/web.service", &d, err, 1024), 0);
	assert_int_equal(cgroup_stat_read(&d, CGROUP_STAT_THROTTLE, &c, err, sizeof(err)), 0);
	assert_int_equal(c.usage_src, CGROUP_STAT_SRC_NONE);
	assert_false(c.has_quota);
	assert_int_equal(c.nr_throttled, 100);
}

static void test_parsers(void **state)
{
	uint64_t v, q, p;
	bool has;
	int64_t n;

	assert_int_equal(cgroup_stat_parse_keyed("usage_usec 5\nuser_usec 3\n", "user_usec", &v),
			 0);
	assert_int_equal(v, 3);
	assert_int_equal(cgroup_stat_parse_keyed("xusage_usec 5\n", "usage_usec", &v), -ENOENT);
	assert_int_equal(cgroup_stat_parse_keyed("usage_usec5\n", "usage_usec", &v), -ENOENT);
	assert_int_equal(cgroup_stat_parse_keyed("usage_usec -5\n", "usage_usec", &v), -EINVAL);
	assert_int_equal(cgroup_stat_parse_keyed("usage_usec 5 6\n", "usage_usec", &v), -EINVAL);
	assert_int_equal(cgroup_stat_parse_number("-1\n", &n), 0);
	assert_int_equal(n, -1);
	assert_int_equal(cgroup_stat_parse_number("4185619110687\n", &n), 0);
	assert_int_equal(n, 4185619110687);
	assert_int_equal(cgroup_stat_parse_number("9223372036854775808", &n), -EINVAL);
	assert_int_equal(cgroup_stat_parse_number("1\n\n", &n), -EINVAL);
	assert_int_equal(cgroup_stat_parse_number("", &n), -EINVAL);
	assert_int_equal(cgroup_stat_parse_cpu_max("max 100000\n", &has, &q, &p), 0);
	assert_false(has);
	assert_int_equal(p, 100000);
	assert_int_equal(cgroup_stat_parse_cpu_max("250000 100000\n", &has, &q, &p), 0);
	assert_true(has);
	assert_int_equal(q, 250000);
	assert_int_equal(cgroup_stat_parse_cpu_max("50000\n", &has, &q, &p), -EINVAL);
	assert_int_equal(cgroup_stat_parse_cpu_max("50000 0\n", &has, &q, &p), -EINVAL);
	assert_int_equal(cgroup_stat_parse_cpu_max("0 100000\n", &has, &q, &p), -EINVAL);
	assert_int_equal(cgroup_stat_parse_cpu_max("maxi 100000\n", &has, &q, &p), -EINVAL);
}

/* copy - fixture tree @name into a scratch directory @out. */
static void copy(const char *name, char *out, size_t len)
{
	char cmd[2048];

	snprintf(out, len, "/tmp/trapd-cgstat-XXXXXX");
	assert_non_null(mkdtemp(out));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/%s/.' '%s'", data, name, out);
	assert_int_equal(system(cmd), 0);
}

static void put(const char *root, const char *file, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_tree(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_read_errors_name_the_file(void **state)
{
	char root[256], mi[512], err[2048];
	struct cgroup_stat_counters c;
	struct cgroup_stat_mounts m;
	struct cgroup_stat_dirs d;
	const unsigned int all = CGROUP_STAT_USAGE | CGROUP_STAT_THROTTLE | CGROUP_STAT_QUOTA;

	copy("hybrid", root, sizeof(root));
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);
	assert_int_equal(cgroup_stat_find_mounts(mi, root, &m, err, sizeof(err)), 0);
	assert_int_equal(cgroup_stat_locate(&m, "system.slice/web.service", &d, err, 2048), 0);

	put(root, "sys/fs/cgroup/unified/system.slice/web.service/cpu.stat", "user_usec 5\n");
	assert_int_equal(cgroup_stat_read(&d, all, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/sys/fs/cgroup/unified/system.slice/web.service/cpu.stat: "
				    "no 'usage_usec' line"));
	put(root, "sys/fs/cgroup/unified/system.slice/web.service/cpu.stat", "usage_usec 5\n");
	put(root, "sys/fs/cgroup/cpu/system.slice/web.service/cpu.stat", "nr_periods 5\n");
	assert_int_equal(cgroup_stat_read(&d, all, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/sys/fs/cgroup/cpu/system.slice/web.service/cpu.stat: "
				    "no 'nr_throttled' line"));
	put(root, "sys/fs/cgroup/cpu/system.slice/web.service/cpu.stat",
	    "nr_periods 5\nnr_throttled x\nthrottled_time 0\n");
	assert_int_equal(cgroup_stat_read(&d, all, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cpu.stat: 'nr_throttled' is not a 64-bit count"));
	put(root, "sys/fs/cgroup/cpu/system.slice/web.service/cpu.stat",
	    "nr_periods 5\nnr_throttled 1\nthrottled_time 0\n");
	put(root, "sys/fs/cgroup/cpu/system.slice/web.service/cpu.cfs_quota_us", "0\n");
	assert_int_equal(cgroup_stat_read(&d, all, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cpu.cfs_quota_us: not -1 or a positive count"));
	assert_int_equal(cgroup_stat_read(&d, CGROUP_STAT_USAGE, &c, err, sizeof(err)), 0);
	assert_int_equal(c.usage_ns, 5000);

	/* usage from cpuacct where v2 does not have the cgroup */
	assert_int_equal(cgroup_stat_locate(&m, "legacy", &d, err, sizeof(err)), 0);
	put(root, "sys/fs/cgroup/cpuacct/legacy/cpuacct.usage", "lots\n");
	assert_int_equal(cgroup_stat_read(&d, all, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/sys/fs/cgroup/cpuacct/legacy/cpuacct.usage: not a count of "
				    "nanoseconds"));
	/* the cgroup removed after it was found */
	remove_tree(d.cpuacct);
	assert_int_equal(cgroup_stat_read(&d, all, &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/sys/fs/cgroup/cpuacct/legacy/cpuacct.usage: no such file "
				    "(cgroup removed?)"));
	/* in the cpu hierarchy only: throttling, but no usage anywhere */
	assert_int_equal(cgroup_stat_locate(&m, "legacy", &d, err, sizeof(err)), 0);
	assert_int_equal(cgroup_stat_read(&d, CGROUP_STAT_THROTTLE, &c, err, sizeof(err)), 0);
	assert_int_equal(cgroup_stat_read(&d, CGROUP_STAT_USAGE, &c, err, sizeof(err)), -ENODATA);
	assert_string_equal(err, "cgroup /legacy: no CPU usage counter (not in the v2 tree, and "
				 "no cpuacct hierarchy holds it)");
	remove_tree(root);
}

/* the live host: libcgroup for the v1 mounts where there are any */
static void test_live_host(void **state)
{
	struct cgroup_stat_counters c;
	struct cgroup_stat_mounts m;
	struct cgroup_stat_dirs d;
	char err[1024];

	if (cgroup_stat_find_mounts(CGROUP_STAT_LIVE_MOUNTINFO, "", &m, err, sizeof(err))) {
		skip(); /* no cgroup file system here */
		return;
	}
	if (!access("/sys/fs/cgroup/unified/cgroup.procs", F_OK))
		assert_string_equal(m.v2, "/sys/fs/cgroup/unified");
	if (!access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK)) {
		/* libcgroup reads /proc/cgroups; a container may lack it */
		assert_true(m.libcgroup || access("/proc/cgroups", R_OK));
		assert_non_null(strstr(m.cpu, "/sys/fs/cgroup/cpu"));
	}
	assert_int_equal(cgroup_stat_locate(&m, ".", &d, err, sizeof(err)), 0);
	assert_int_equal(cgroup_stat_read(&d, CGROUP_STAT_USAGE | CGROUP_STAT_THROTTLE, &c, err,
					  sizeof(err)),
			 0);
	assert_true(c.usage_ns > 0);
	assert_true(c.nr_throttled <= c.nr_periods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mounts_of_each_layout),
		cmocka_unit_test(test_mount_line_details),
		cmocka_unit_test(test_find_mounts_errors),
		cmocka_unit_test(test_locate_hybrid),
		cmocka_unit_test(test_locate_v1_comounted_through_links),
		cmocka_unit_test(test_locate_errors),
		cmocka_unit_test(test_counters_by_precedence),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_read_errors_name_the_file),
		cmocka_unit_test(test_live_host),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
