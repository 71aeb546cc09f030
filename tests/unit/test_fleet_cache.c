// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_fleet_cache.c - the local cache of what was read from a store
 * (trapd/fleet/fleet_cache.h), as an attacker on the host would try it:
 * a cache folder open to others, another user's, or a link is refused;
 * an entry planted as a link is not read; entries are written whole
 * (temporary, then renamed) and named by a hash of what identifies them;
 * the cache is trimmed to its cap, the entries used longest ago first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "trapd/fleet/fleet_cache.h"

static char root[64];

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/test_fleet_cache.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", root, name);
}

static void put(struct fleet_cache *c, const char *name, size_t size)
{
	char tmp[64], *buf = calloc(1, size ? size : 1);
	int fd = fleet_cache__begin(c, tmp, sizeof(tmp));

	assert_non_null(buf);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	assert_int_equal(fleet_cache__commit(c, fd, tmp, name), 0);
	free(buf);
}

static void test_new_folder_is_private(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], err[256];
	struct stat st;

	path_of(dir, sizeof(dir), "a/b/cache");
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	fleet_cache__close(c);
}

static void test_folder_open_to_others_is_refused(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], err[256];

	path_of(dir, sizeof(dir), "open");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), -EPERM);
	assert_null(c);
	assert_non_null(strstr(err, "closed to others"));
}

static void test_another_users_folder_is_refused(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], err[256];

	if (geteuid() != 0)
		skip(); /* only root can give a folder away */
	path_of(dir, sizeof(dir), "theirs");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chown(dir, 65534, 65534), 0);
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "uid 65534"));
}

/* A parent others may rename things in: the cache could be swapped for
 * theirs between the check and a read by path. /tmp, sticky, is fine. */
static void test_parent_open_to_others_is_refused(void **state)
{
	struct fleet_cache *c = NULL;
	char parent[128], dir[160], err[512];

	path_of(parent, sizeof(parent), "shared");
	assert_int_equal(mkdir(parent, 0700), 0);
	assert_int_equal(chmod(parent, 0777), 0);
	snprintf(dir, sizeof(dir), "%s/cache", parent);
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), -EPERM);
	assert_null(c);
	assert_non_null(strstr(err, "is open to others"));
	assert_int_equal(chmod(parent, 01777), 0); /* sticky: others cannot rename ours */
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), 0);
	fleet_cache__close(c);
}

static void test_folder_that_is_a_link_is_refused(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], target[128], err[256];

	path_of(target, sizeof(target), "real");
	path_of(dir, sizeof(dir), "link");
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, dir), 0);
	assert_true(fleet_cache__open(dir, 0, &c, err, sizeof(err)) < 0);
	assert_null(c);
}

static void test_entries_written_whole_and_read(void **state)
{
	const char *parts[] = { "s3://b/p/", "web-1/2026/11/25/abc", "etag1" };
	const char *other[] = { "s3://b/p/", "web-1/2026/11/25/abc", "etag2" };
	struct fleet_cache *c = NULL;
	char dir[128], err[256], name[96], name2[96];
	int fd;

	path_of(dir, sizeof(dir), "c");
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), 0);
	fleet_cache__name(parts, 3, ".json", name, sizeof(name));
	fleet_cache__name(other, 3, ".json", name2, sizeof(name2));
	assert_string_not_equal(name, name2); /* another ETag, another entry */
	assert_int_equal(strncmp(name, "m-", 2), 0);
	assert_int_equal(fleet_cache__open_entry(c, name), -ENOENT);
	put(c, name, 10);
	fd = fleet_cache__open_entry(c, name);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(c->hits, 1);
	assert_int_equal(c->misses, 1);
	fleet_cache__close(c);
}

static void test_entry_planted_as_a_link_is_not_read(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], err[256], link[192];

	path_of(dir, sizeof(dir), "c");
	assert_int_equal(fleet_cache__open(dir, 0, &c, err, sizeof(err)), 0);
	snprintf(link, sizeof(link), "%s/planted.pb.zst", dir);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(fleet_cache__open_entry(c, "planted.pb.zst"), -ENOENT);
	fleet_cache__close(c);
}

/* Over its cap the cache keeps the entries used last, down to 9/10. */
static void test_trimmed_while_written(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], err[256], name[32];
	int i, kept, fd;

	path_of(dir, sizeof(dir), "c");
	assert_int_equal(fleet_cache__open(dir, 10000, &c, err, sizeof(err)), 0);
	for (i = 0; i < 50; i++) { /* 100000 bytes through a 10000-byte cache */
		snprintf(name, sizeof(name), "w%d", i);
		put(c, name, 2000);
	}
	/* never more than the cap and the cap's quarter written since a trim */
	assert_true(c->since_trim <= 10000 / 4 + 2000);
	/* what is kept is the cap and what came since the last trim, at most */
	for (i = 0, kept = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		fd = fleet_cache__open_entry(c, name);
		kept += fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	assert_true(kept >= 1 && kept * 2000 <= 10000 + 10000 / 4 + 2000);
	fleet_cache__close(c);
}

static void test_trimmed_oldest_first(void **state)
{
	struct fleet_cache *c = NULL;
	char dir[128], err[256], name[32], path[192];
	struct timeval tv[2] = { { 0, 0 }, { 0, 0 } };
	int i, fd;

	path_of(dir, sizeof(dir), "c");
	assert_int_equal(fleet_cache__open(dir, 30000, &c, err, sizeof(err)), 0);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		put(c, name, 2000);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		tv[0].tv_sec = tv[1].tv_sec = 1000000 + i; /* e0 is the oldest */
		assert_int_equal(utimes(path, tv), 0);
	}
	fd = fleet_cache__open_entry(c, "e0"); /* used now: kept */
	assert_true(fd >= 0);
	close(fd);
	fleet_cache__close(c); /* 20000 bytes: within 30000 */
	assert_int_equal(fleet_cache__open(dir, 10000, &c, err, sizeof(err)), 0);
	fleet_cache__close(c); /* over 10000: trimmed to at most 9000 */
	assert_int_equal(fleet_cache__open(dir, 10000, &c, err, sizeof(err)), 0);
	fd = fleet_cache__open_entry(c, "e0");
	assert_true(fd >= 0);
	close(fd);
	for (i = 1; i <= 6; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		assert_int_equal(fleet_cache__open_entry(c, name), -ENOENT);
	}
	for (i = 7; i < 10; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		fd = fleet_cache__open_entry(c, name);
		assert_true(fd >= 0);
		close(fd);
	}
	fleet_cache__close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_folder_is_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folder_open_to_others_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_another_users_folder_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_parent_open_to_others_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_folder_that_is_a_link_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_entries_written_whole_and_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_entry_planted_as_a_link_is_not_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_trimmed_oldest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trimmed_while_written, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
