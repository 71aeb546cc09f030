// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cgroup_path.c - finding the v2 hierarchy in mountinfo fixtures of
 * hybrid, pure v2 and v1-only hosts, and resolving real cgroups on this
 * host (root: the test creates and removes them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/cgroup_path.h"

static const char *datadir(void)
{
	const char *d = getenv("TRAPD_TESTDATA");

	return d ? d : "tests/data";
}

static void fixture(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/mountinfo/%s", datadir(), name);
}

static void test_v2_mount_on_each_layout(void **state)
{
	char path[512], mnt[256];

	fixture(path, sizeof(path), "hybrid");
	assert_int_equal(cgroup_v2_mount(path, mnt, sizeof(mnt)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	fixture(path, sizeof(path), "pure-v2");
	assert_int_equal(cgroup_v2_mount(path, mnt, sizeof(mnt)), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup");
	fixture(path, sizeof(path), "v1-only");
	assert_int_equal(cgroup_v2_mount(path, mnt, sizeof(mnt)), -ENOENT);
	assert_int_equal(cgroup_v2_mount("/nonexistent/mountinfo", mnt, sizeof(mnt)), -ENOENT);
}

/* need_root - these tests make cgroups; skip without root unless CI. */
static int need_root(void)
{
	if (geteuid() == 0)
		return 0;
	if (getenv("CI") && !strcmp(getenv("CI"), "true"))
		fail_msg("needs root, and CI=true does not allow skipping");
	return -1;
}

static void test_resolve_real_v2_cgroup(void **state)
{
	char v2[256], dir[512], name[64], found[512];
	struct cgroup_ref ref;
	struct stat st;

	if (need_root()) {
		skip();
		return;
	}
	assert_int_equal(cgroup_v2_mount(NULL, v2, sizeof(v2)), 0);
	snprintf(name, sizeof(name), "trapd-unit-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/%s", v2, name);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(stat(dir, &st), 0);

	assert_int_equal(cgroup_resolve(NULL, name, &ref), 0);
	assert_int_equal(ref.version, CGROUP_V2);
	assert_string_equal(ref.path, dir);
	assert_int_equal(ref.relative[0], '/');
	assert_string_equal(ref.relative + 1, name);
	assert_int_equal(ref.id, (uint64_t)st.st_ino);
	assert_int_equal(cgroup_resolve(NULL, dir, &ref), 0);
	assert_int_equal(ref.id, (uint64_t)st.st_ino);

	assert_int_equal(cgroup_path_of_id(v2, ref.id, 10000, found, sizeof(found)), 0);
	assert_string_equal(found, ref.relative);
	rmdir(dir);
	assert_int_equal(cgroup_path_of_id(v2, ref.id, 10000, found, sizeof(found)), -ENOENT);
}

static void test_resolve_errors(void **state)
{
	struct cgroup_ref ref;

	assert_int_equal(cgroup_resolve(NULL, "no/such/cgroup/here", &ref), -ENOENT);
	assert_int_equal(cgroup_resolve(NULL, "/no/such/path", &ref), -ENOENT);
	/* not a cgroup directory: read as a v2 path ("/tmp" below the root) */
	assert_int_equal(cgroup_resolve(NULL, "/tmp", &ref), -ENOENT);
	assert_int_equal(cgroup_resolve(NULL, "", &ref), -EINVAL);
}

static void test_resolve_slash_is_the_v2_root(void **state)
{
	struct cgroup_ref ref;
	char v2[4096];

	if (cgroup_v2_mount(NULL, v2, sizeof(v2)))
		skip();
	assert_int_equal(cgroup_resolve(NULL, "/", &ref), 0);
	assert_int_equal(ref.version, CGROUP_V2);
	assert_string_equal(ref.path, v2);
	assert_string_equal(ref.relative, "/");
}

static void test_resolve_v1_cgroup(void **state)
{
	struct cgroup_ref ref;
	char dir[128];

	if (need_root()) {
		skip();
		return;
	}
	if (access("/sys/fs/cgroup/cpu/cgroup.procs", F_OK)) {
		skip(); /* a pure v2 host has no v1 hierarchy to test */
		return;
	}
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpu/trapd-unit-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cgroup_resolve(NULL, dir, &ref), 0);
	assert_int_equal(ref.version, CGROUP_V1);
	assert_string_equal(ref.relative, dir + strlen("/sys/fs/cgroup/cpu"));
	assert_int_equal(ref.id, 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_mount_on_each_layout),
		cmocka_unit_test(test_resolve_real_v2_cgroup),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_resolve_slash_is_the_v2_root),
		cmocka_unit_test(test_resolve_v1_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
