// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile_file.c - capture files: zstd, gzip and plain round trips,
 * truncated, corrupt and foreign files, decompression bombs, and atomic
 * writes that leave nothing behind when the disk is full.
 *
 * The full-disk tests mount a 64 KiB tmpfs, so they need root; they are
 * skipped otherwise, or fail when CI=true. Each test works in its own
 * directory under /tmp.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "tests/profile_diff.h"
#include "trapd/profile/pprof.h"
#include "trapd/profile/profile.h"
#include "trapd/profile/profile_file.h"

/* --- fixtures --- */

struct fixture {
	char dir[64];
	char path[128];
	bool mounted;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/trapd-test-capture-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/capture.pb.zst", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct dirent *de;
	char path[384];
	DIR *d;

	if (f->mounted)
		umount2(f->dir, MNT_DETACH);
	d = opendir(f->dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", f->dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* dir_entries - how many files are in @dir (and the first one's name). */
static int dir_entries(const char *dir, char *first, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!n++ && first)
			snprintf(first, len, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

static uint32_t str(struct profile *p, const char *s)
{
	int64_t idx = profile__string(p, s);

	assert_true(idx >= 0);
	return (uint32_t)idx;
}

/* build_profile - @nfuncs functions with names of @namelen pseudo-random
 * characters (hard to compress), one sample per function, labels. */
static struct profile *build_profile(uint32_t nfuncs, size_t namelen)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";
	struct profile_mapping m = { .start = 0x400000, .limit = 0x800000 };
	struct profile_sample s = { .count = 1, .pid = 100, .tid = 101 };
	struct profile *p = profile__new();
	uint32_t i, loc, map;
	uint64_t x = 88172645463325252ull;
	char name[256];
	size_t k;
	int64_t id;

	assert_non_null(p);
	assert_true(namelen < sizeof(name));
	m.filename = str(p, "/usr/bin/service");
	m.build_id = str(p, "abcdef0123456789");
	m.has_functions = true;
	map = (uint32_t)profile__add_mapping(p, &m);
	s.comm = str(p, "service");
	s.cgroup = str(p, "/system.slice/service.service");
	for (i = 0; i < nfuncs; i++) {
		for (k = 0; k < namelen; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
			name[k] = alphabet[x % 64];
		}
		snprintf(name + namelen, sizeof(name) - namelen, "_%u", i);
		id = profile__add_function(p, str(p, name), 0, 0);
		assert_true(id > 0);
		loc = (uint32_t)profile__add_location(p, map, 0x400000 + i * 16ull, (uint32_t)id);
		s.count = i + 1;
		assert_int_equal(profile__add_sample(p, &loc, 1, &s), 0);
	}
	assert_int_equal(profile__add_comment(p, "profile_file test"), 0);
	p->period_ns = 10000000;
	p->time_ns = 1700000000000000000ll;
	p->duration_ns = 2000000000ll;
	return p;
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void *read_bytes(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* read_back - profile_file__read must succeed and equal @p. */
static void read_back(const char *path, const struct profile *p)
{
	struct profile *q = NULL;
	char err[512], why[128];

	if (profile_file__read(path, &q, err, sizeof(err)))
		fail_msg("reading %s: %s", path, err);
	if (profile_diff(p, q, why, sizeof(why)))
		fail_msg("%s read back differs: %s", path, why);
	profile__free(q);
}

/* read_fails - profile_file__read must fail with @want, with a message
 * that names the file and holds @needle. */
static void read_fails(const char *path, int want, const char *needle)
{
	struct profile *q = (struct profile *)1;
	char err[512] = "";

	assert_int_equal(profile_file__read(path, &q, err, sizeof(err)), want);
	assert_null(q);
	if (strncmp(err, path, strlen(path)) != 0 || !strstr(err, needle))
		fail_msg("message \"%s\" lacks the path or \"%s\"", err, needle);
}

/* --- round trips --- */

static void test_zstd_round_trip(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(50, 20);
	char err[512], name[256];
	uint8_t *buf;
	size_t len;

	if (profile_file__write(f->path, p, err, sizeof(err)))
		fail_msg("%s", err);
	buf = read_bytes(f->path, &len);
	assert_true(len > 4 && memcmp(buf, "\x28\xb5\x2f\xfd", 4) == 0);
	free(buf);
	read_back(f->path, p);
	/* Only the capture itself: no temporary file left behind. */
	assert_int_equal(dir_entries(f->dir, name, sizeof(name)), 1);
	assert_string_equal(name, "capture.pb.zst");
	profile__free(p);
}

static void test_gzip_round_trip(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(50, 20);
	char err[512];
	uint8_t *buf;
	size_t len;

	if (profile_file__write_gzip(f->path, p, err, sizeof(err)))
		fail_msg("%s", err);
	buf = read_bytes(f->path, &len);
	assert_true(len > 2 && buf[0] == 0x1f && buf[1] == 0x8b);
	free(buf);
	read_back(f->path, p);
	assert_int_equal(dir_entries(f->dir, NULL, 0), 1);
	profile__free(p);
}

static void test_plain_pprof_is_read(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(10, 8);
	void *buf = NULL;
	size_t len;

	assert_int_equal(pprof_encode(p, &buf, &len), 0);
	write_bytes(f->path, buf, len);
	read_back(f->path, p);
	free(buf);
	profile__free(p);
}

static void test_rewrite_replaces_the_file(void **state)
{
	struct fixture *f = *state;
	struct profile *a = build_profile(5, 8), *b = build_profile(70, 8);
	char err[512];

	assert_int_equal(profile_file__write(f->path, a, err, sizeof(err)), 0);
	assert_int_equal(profile_file__write(f->path, b, err, sizeof(err)), 0);
	read_back(f->path, b);
	assert_int_equal(dir_entries(f->dir, NULL, 0), 1);
	profile__free(a);
	profile__free(b);
}

/* gzip_member - @len bytes as one complete gzip member, appended to @fd. */
static void gzip_member(int fd, const void *buf, size_t len)
{
	uLongf n = compressBound(len) + 64;
	z_stream zs = { 0 };
	uint8_t *out = malloc(n);

	assert_non_null(out);
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)n;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(write(fd, out, zs.total_out), (ssize_t)zs.total_out);
	deflateEnd(&zs);
	free(out);
}

static void zstd_frame(int fd, const void *buf, size_t len)
{
	size_t n = ZSTD_compressBound(len);
	void *out = malloc(n);

	assert_non_null(out);
	n = ZSTD_compress(out, n, buf, len, 1);
	assert_false(ZSTD_isError(n));
	assert_int_equal(write(fd, out, n), (ssize_t)n);
	free(out);
}

static void test_concatenated_members_and_frames_are_read(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(30, 10);
	uint8_t *buf = NULL;
	size_t len;
	int fd;

	/* The encoding cut in two, each half compressed on its own. */
	assert_int_equal(pprof_encode(p, (void **)&buf, &len), 0);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	gzip_member(fd, buf, len / 2);
	gzip_member(fd, buf + len / 2, len - len / 2);
	close(fd);
	read_back(f->path, p);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	zstd_frame(fd, buf, len / 3);
	zstd_frame(fd, buf + len / 3, len - len / 3);
	close(fd);
	read_back(f->path, p);
	free(buf);
	profile__free(p);
}

/* --- bad files --- */

static void test_truncated_zstd_is_ebadmsg_naming_the_file(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(50, 20);
	char err[512];
	uint8_t *buf;
	size_t len;

	assert_int_equal(profile_file__write(f->path, p, err, sizeof(err)), 0);
	buf = read_bytes(f->path, &len);
	write_bytes(f->path, buf, len / 2);
	read_fails(f->path, -EBADMSG, "truncated zstd data");
	/* Only the checksum missing. */
	write_bytes(f->path, buf, len - 1);
	read_fails(f->path, -EBADMSG, "zstd");
	write_bytes(f->path, buf, 6);
	read_fails(f->path, -EBADMSG, "zstd");
	free(buf);
	profile__free(p);
}

static void test_truncated_gzip_is_ebadmsg(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(50, 20);
	char err[512];
	uint8_t *buf;
	size_t len;

	assert_int_equal(profile_file__write_gzip(f->path, p, err, sizeof(err)), 0);
	buf = read_bytes(f->path, &len);
	write_bytes(f->path, buf, len / 2);
	read_fails(f->path, -EBADMSG, "truncated gzip data");
	write_bytes(f->path, buf, len - 4); /* no length trailer */
	read_fails(f->path, -EBADMSG, "gzip");
	free(buf);
	profile__free(p);
}

static void test_corrupt_data_is_ebadmsg(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(50, 20);
	char err[512];
	uint8_t *buf;
	size_t len;

	assert_int_equal(profile_file__write(f->path, p, err, sizeof(err)), 0);
	buf = read_bytes(f->path, &len);
	buf[len / 2] ^= 0x55;
	write_bytes(f->path, buf, len);
	read_fails(f->path, -EBADMSG, "corrupt zstd data");
	free(buf);

	assert_int_equal(profile_file__write_gzip(f->path, p, err, sizeof(err)), 0);
	buf = read_bytes(f->path, &len);
	buf[len - 6] ^= 0x55; /* the CRC */
	write_bytes(f->path, buf, len);
	read_fails(f->path, -EBADMSG, "corrupt gzip data");
	free(buf);
	profile__free(p);
}

static void test_foreign_file_gets_a_clear_message(void **state)
{
	static const char text[] = "{\"this\": \"is JSON, not a profile\"}\n";
	struct fixture *f = *state;

	write_bytes(f->path, text, sizeof(text) - 1);
	read_fails(f->path, -EBADMSG, "neither zstd, gzip nor a pprof profile (byte ");
	write_bytes(f->path, "", 0);
	read_fails(f->path, -EBADMSG, "empty file");
}

static void test_missing_file_is_enoent(void **state)
{
	struct fixture *f = *state;

	read_fails(f->path, -ENOENT, "No such file");
}

static void test_trailing_garbage_after_gzip_is_refused(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(5, 5);
	char err[512];
	uint8_t *buf;
	size_t len;

	assert_int_equal(profile_file__write_gzip(f->path, p, err, sizeof(err)), 0);
	buf = read_bytes(f->path, &len);
	memcpy(buf + len, "x", 1);
	write_bytes(f->path, buf, len + 1);
	read_fails(f->path, -EBADMSG, "trailing garbage");
	free(buf);
	profile__free(p);
}

/* --- bombs --- */

static void test_zstd_frame_declaring_a_huge_size_is_refused(void **state)
{
	/* magic; FHD 0xc0: 8-byte content size, no single segment; window
	 * descriptor; content size 2^31 (little-endian); an empty last raw
	 * block. Refused on the header alone, with the real cap. */
	static const uint8_t frame[] = { 0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x50, 0x00, 0x00, 0x00,
					 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00 };
	struct fixture *f = *state;

	write_bytes(f->path, frame, sizeof(frame));
	read_fails(f->path, -E2BIG, "declares 2147483648 bytes, over the cap");
}

static void test_zstd_bomb_without_declared_size_is_refused(void **state)
{
	size_t n = 4 << 20, clen, cap = ZSTD_compressBound(n);
	uint8_t *zeros = calloc(1, n), *out = malloc(cap);
	ZSTD_CCtx *c = ZSTD_createCCtx();
	struct profile *q = NULL;
	char err[512];

	assert_non_null(zeros);
	assert_non_null(out);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
	clen = ZSTD_compress2(c, out, cap, zeros, n);
	assert_false(ZSTD_isError(clen));
	assert_true(clen < 4096);
	assert_int_equal(profile_file__decode(out, clen, 1 << 20, "bomb.pb.zst", &q, err,
					      sizeof(err)),
			 -E2BIG);
	assert_null(q);
	assert_non_null(strstr(err, "bomb.pb.zst: zstd data decompresses to more than 1048576"));
	ZSTD_freeCCtx(c);
	free(zeros);
	free(out);
}

/* A reader of many files bounds each (trapd merge): a capture within the
 * bound is read and its decompressed size told; past it, -E2BIG, and how
 * much was decompressed before the refusal. */
static void test_bounded_read_tells_its_cost(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(50, 20), *q = NULL;
	size_t bytes = 0, raw_len;
	void *raw = NULL;
	char err[512];

	assert_int_equal(pprof_encode(p, &raw, &raw_len), 0);
	if (profile_file__write(f->path, p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(profile_file__read_bounded(f->path, raw_len, &bytes, &q, err, sizeof(err)),
			 0);
	assert_int_equal(bytes, raw_len);
	profile__free(q);
	assert_int_equal(profile_file__read_bounded(f->path, raw_len - 1, &bytes, &q, err,
						    sizeof(err)),
			 -E2BIG);
	assert_null(q);
	assert_true(bytes <= raw_len); /* refused at the frame's declared size, or on the way */
	assert_true(strstr(err, "over the cap") || strstr(err, "decompresses to more than"));
	/* the compressed file itself past the bound */
	assert_int_equal(profile_file__read_bounded(f->path, 16, &bytes, &q, err, sizeof(err)),
			 -E2BIG);
	assert_non_null(strstr(err, "larger than 16 bytes"));
	free(raw);
	profile__free(p);
}

static void test_gzip_bomb_is_refused(void **state)
{
	size_t n = 4 << 20;
	uLongf clen = compressBound(n);
	uint8_t *zeros = calloc(1, n), *out = malloc(clen);
	struct profile *q = NULL;
	z_stream zs = { 0 };
	char err[512];

	assert_non_null(zeros);
	assert_non_null(out);
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = zeros;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)clen;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(profile_file__decode(out, zs.total_out, 1 << 20, "bomb.pb.gz", &q, err,
					      sizeof(err)),
			 -E2BIG);
	assert_non_null(strstr(err, "bomb.pb.gz: gzip data decompresses to more than 1048576"));
	deflateEnd(&zs);
	free(zeros);
	free(out);
}

static void test_output_of_exactly_the_cap_is_accepted(void **state)
{
	struct profile *p = build_profile(20, 10), *q = NULL;
	char err[512], why[128];
	void *raw = NULL;
	size_t len;

	assert_int_equal(pprof_encode(p, &raw, &len), 0);
	assert_int_equal(profile_file__decode(raw, len, len, "plain", &q, err, sizeof(err)), 0);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	profile__free(q);
	assert_int_equal(profile_file__decode(raw, len, len - 1, "plain", &q, err, sizeof(err)),
			 -E2BIG);
	assert_null(q);
	free(raw);
	profile__free(p);
}

/* --- writing into a full filesystem --- */

static bool can_mount(struct fixture *f)
{
	bool ci = getenv("CI") && strcmp(getenv("CI"), "true") == 0;

	if (geteuid() != 0) {
		if (ci)
			fail_msg("the full-disk test needs root (CI=true)");
		return false;
	}
	if (mount("none", f->dir, "tmpfs", 0, "size=64k") != 0) {
		if (ci)
			fail_msg("mounting a tmpfs on %s: %s", f->dir, strerror(errno));
		return false;
	}
	f->mounted = true;
	return true;
}

static void test_full_disk_fails_cleanly_and_keeps_the_old_file(void **state)
{
	struct fixture *f = *state;
	struct profile *small = build_profile(5, 8), *big = build_profile(8000, 48);
	char err[512], name[256];

	if (!can_mount(f))
		skip();
	assert_int_equal(profile_file__write(f->path, big, err, sizeof(err)), -ENOSPC);
	if (strncmp(err, f->path, strlen(f->path)) != 0 || !strstr(err, "(disk full)"))
		fail_msg("unclear message: %s", err);
	assert_int_equal(dir_entries(f->dir, NULL, 0), 0);
	assert_int_equal(profile_file__write_gzip(f->path, big, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "No space left on device"));
	assert_int_equal(dir_entries(f->dir, NULL, 0), 0);

	/* A failed rewrite leaves the previous capture as it was. */
	assert_int_equal(profile_file__write(f->path, small, err, sizeof(err)), 0);
	assert_int_equal(profile_file__write(f->path, big, err, sizeof(err)), -ENOSPC);
	assert_int_equal(dir_entries(f->dir, name, sizeof(name)), 1);
	assert_string_equal(name, "capture.pb.zst");
	read_back(f->path, small);
	profile__free(small);
	profile__free(big);
}

static void test_write_into_missing_directory_names_the_path(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(1, 4);
	char path[256], err[512];

	snprintf(path, sizeof(path), "%s/nope/capture.pb.zst", f->dir);
	assert_int_equal(profile_file__write(path, p, err, sizeof(err)), -ENOENT);
	assert_true(strncmp(err, path, strlen(path)) == 0);
	assert_non_null(strstr(err, "No such file or directory"));
	profile__free(p);
}

/* --- go tool pprof reads the gzip capture --- */

static void test_go_tool_pprof_reads_gzip_capture(void **state)
{
	struct fixture *f = *state;
	struct profile *p = build_profile(3, 6);
	char cmd[512], out[8192], err[512];
	size_t n;
	FILE *pipe;

	if (system("command -v go >/dev/null 2>&1") != 0) {
		if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
			fail_msg("the Go toolchain is needed (CI=true)");
		skip();
	}
	snprintf(f->path, sizeof(f->path), "%s/capture.pb.gz", f->dir);
	assert_int_equal(profile_file__write_gzip(f->path, p, err, sizeof(err)), 0);
	snprintf(cmd, sizeof(cmd), "go tool pprof -raw -symbolize=none '%s' 2>&1", f->path);
	pipe = popen(cmd, "r");
	assert_non_null(pipe);
	n = fread(out, 1, sizeof(out) - 1, pipe);
	out[n] = '\0';
	if (pclose(pipe) != 0)
		fail_msg("%s failed:\n%s", cmd, out);
	assert_non_null(strstr(out, "Comment: profile_file test"));
	assert_non_null(strstr(out, "cgroup:[/system.slice/service.service] comm:[service]"));
	assert_non_null(strstr(out, "/usr/bin/service abcdef0123456789 [FN]"));
	assert_non_null(strstr(out, "         3   30000000: 3 "));
	profile__free(p);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_zstd_round_trip),
		T(test_gzip_round_trip),
		T(test_plain_pprof_is_read),
		T(test_rewrite_replaces_the_file),
		T(test_concatenated_members_and_frames_are_read),
		T(test_truncated_zstd_is_ebadmsg_naming_the_file),
		T(test_truncated_gzip_is_ebadmsg),
		T(test_corrupt_data_is_ebadmsg),
		T(test_foreign_file_gets_a_clear_message),
		T(test_missing_file_is_enoent),
		T(test_trailing_garbage_after_gzip_is_refused),
		T(test_zstd_frame_declaring_a_huge_size_is_refused),
		T(test_zstd_bomb_without_declared_size_is_refused),
		T(test_gzip_bomb_is_refused),
		T(test_bounded_read_tells_its_cost),
		T(test_output_of_exactly_the_cap_is_accepted),
		T(test_full_disk_fails_cleanly_and_keeps_the_old_file),
		T(test_write_into_missing_directory_names_the_path),
		T(test_go_tool_pprof_reads_gzip_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
