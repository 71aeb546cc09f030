/* test_spool.c - the spool's usage and bounds on a real directory: oldest
 * dropped first (capture and sidecar together), the new capture kept,
 * other files counted but never dropped. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "upload/spool.h"

static char dir[64];

static void put(const char *name, size_t bytes)
{
	char path[256], buf[4096] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	while (bytes) {
		size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);

		assert_int_equal(fwrite(buf, 1, n, f), n);
		bytes -= n;
	}
	fclose(f);
}

static bool exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Three captures of 1000 + 100 bytes, oldest first, and a stray file. */
static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/trapd-spool-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("20261122T010000Z-web-aaaa.pb.zst", 1000);
	put("20261122T010000Z-web-aaaa.json", 100);
	put("20261122T020000Z-db-bbbb.pb.zst", 1000);
	put("20261122T020000Z-db-bbbb.json", 100);
	put("20261122T030000Z-manual-cccc.pb.zst", 1000);
	put("20261122T030000Z-manual-cccc.json", 100);
	put("notes.txt", 50);
	put(".20261122T040000Z-x.pb.zst.tmp", 10); /* a write in progress */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct drops {
	char names[8][64];
	uint64_t bytes[8];
	int n;
};

static void on_drop(const char *name, uint64_t bytes, void *ctx)
{
	struct drops *d = ctx;

	if (d->n < 8) {
		snprintf(d->names[d->n], sizeof(d->names[0]), "%s", name);
		d->bytes[d->n++] = bytes;
	}
}

static void test_usage_counts_captures_and_all_bytes(void **state)
{
	struct spool_usage u;

	assert_int_equal(spool_usage(dir, &u), 0);
	assert_int_equal(u.captures, 3);
	assert_int_equal(u.bytes, 3 * 1100 + 50);
	assert_int_equal(spool_usage("/nonexistent/spool", &u), -ENOENT);
}

static void test_within_bounds_drops_nothing(void **state)
{
	struct drops d = { 0 };
	char err[256];

	assert_int_equal(spool_enforce(dir, 1 << 20, 3, NULL, on_drop, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
}

static void test_file_cap_drops_oldest_with_sidecar(void **state)
{
	struct drops d = { 0 };
	char err[256];

	assert_int_equal(spool_enforce(dir, 1 << 20, 2, NULL, on_drop, &d, err, sizeof(err)), 1);
	assert_string_equal(d.names[0], "20261122T010000Z-web-aaaa.pb.zst");
	assert_int_equal(d.bytes[0], 1100);
	assert_false(exists("20261122T010000Z-web-aaaa.pb.zst"));
	assert_false(exists("20261122T010000Z-web-aaaa.json"));
	assert_true(exists("20261122T020000Z-db-bbbb.pb.zst"));
	assert_true(exists("notes.txt"));
}

static void test_byte_cap_drops_until_under(void **state)
{
	struct drops d = { 0 };
	char err[256];

	/* 3350 bytes, cap 1500: two captures must go */
	assert_int_equal(spool_enforce(dir, 1500, 100, NULL, on_drop, &d, err, sizeof(err)), 2);
	assert_string_equal(d.names[1], "20261122T020000Z-db-bbbb.pb.zst");
	assert_true(exists("20261122T030000Z-manual-cccc.pb.zst"));
	assert_true(exists(".20261122T040000Z-x.pb.zst.tmp"));
}

static void test_the_new_capture_is_kept(void **state)
{
	struct drops d = { 0 };
	char err[256];

	/* a cap no capture fits: all go but the one just written */
	assert_int_equal(spool_enforce(dir, 10, 100, "20261122T020000Z-db-bbbb.pb.zst", on_drop, &d,
				       err, sizeof(err)),
			 2);
	assert_true(exists("20261122T020000Z-db-bbbb.pb.zst"));
	assert_true(exists("20261122T020000Z-db-bbbb.json"));
	assert_false(exists("20261122T030000Z-manual-cccc.pb.zst"));
}

static void test_missing_spool_is_an_error(void **state)
{
	char err[256];

	assert_int_equal(spool_enforce("/nonexistent/spool", 1, 1, NULL, NULL, NULL, err,
				       sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "spool /nonexistent/spool: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_usage_counts_captures_and_all_bytes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_within_bounds_drops_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_cap_drops_oldest_with_sidecar, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_byte_cap_drops_until_under, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_new_capture_is_kept, setup, teardown),
		cmocka_unit_test(test_missing_spool_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
