// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* make-seeds.c - write the seed corpora of fuzz_pprof and fuzz_capture
 * (tests/fuzz/corpus/pprof and tests/fuzz/corpus/capture): trapd's own
 * encodings, Go's CPU profile (tests/data/go-cpu.pb.gz) and hand-made
 * encodings with sparse ids, inlined frames and other sample types, each
 * as plain pprof, zstd and gzip. Run from the repository root:
 *
 *   cc -std=gnu11 -D_GNU_SOURCE -I. tests/fuzz/make-seeds.c trapd/profile/pb.c \
 *      trapd/profile/pprof.c trapd/profile/pprof_decode.c trapd/profile/profile.c \
 *      trapd/profile/profile_file.c -lzstd -lz -o /tmp/make-seeds && /tmp/make-seeds
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trapd/profile/pb.h"
#include "trapd/profile/pprof.h"
#include "trapd/profile/profile.h"
#include "trapd/profile/profile_file.h"

#define PPROF_DIR "tests/fuzz/corpus/pprof/"
#define CAPTURE_DIR "tests/fuzz/corpus/capture/"

static void die(const char *what)
{
	fprintf(stderr, "make-seeds: %s\n", what);
	exit(1);
}

static void save(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		die(path);
}

/* trapd_profile - what a capture looks like: kernel and user frames,
 * an unresolved frame, labels, comments. */
static struct profile *trapd_profile(void)
{
	struct profile *p = profile__new();
	struct profile_mapping m = { .start = 0x400000, .limit = 0x500000, .has_functions = true };
	struct profile_sample s = { .count = 3, .pid = 10, .tid = 11 };
	uint32_t locs[3];

	m.filename = (uint32_t)profile__string(p, "/usr/bin/app");
	m.build_id = (uint32_t)profile__string(p, "0123456789abcdef");
	profile__add_mapping(p, &m);
	m.start = 0xffffffff81000000ull;
	m.limit = 0xffffffff82000000ull;
	m.filename = (uint32_t)profile__string(p, PROFILE_KERNEL_MAPPING);
	m.build_id = 0;
	profile__add_mapping(p, &m);
	profile__add_function(p, (uint32_t)profile__string(p, "burn"), 0, 1);
	profile__add_function(p, (uint32_t)profile__string(p, "main"), 0, 1);
	profile__add_function(p, (uint32_t)profile__string(p, "do_syscall_64"), 0, 0);
	locs[0] = (uint32_t)profile__add_location(p, 2, 0xffffffff81001234ull, 3);
	locs[1] = (uint32_t)profile__add_location(p, 1, 0x401000, 1);
	locs[2] = (uint32_t)profile__add_location(p, 1, 0x402000, 2);
	s.comm = (uint32_t)profile__string(p, "app");
	s.cgroup = (uint32_t)profile__string(p, "/system.slice/app.service");
	profile__add_sample(p, locs, 3, &s);
	profile__add_sample(p, locs + 1, 2, &s);
	locs[0] = (uint32_t)profile__add_location(p, 0, 0x7fff0000, 0);
	s.count = 1;
	profile__add_sample(p, locs, 2, &s);
	profile__add_comment(p, "seed");
	p->period_ns = 10101010;
	p->time_ns = 1700000000000000000ll;
	p->duration_ns = 1000000000;
	return p;
}

/* foreign_profile - ids out of order and sparse, strings last, an
 * inlined location, unpacked fields, heap-like sample types. */
static void foreign_profile(struct pb_buf *b)
{
	static const char *const s[] = {
		"",  "alloc_objects", "count",	"alloc_space", "bytes", "f",
		"g", "/lib/x.so",     "thread", "t1"
	};
	size_t m, l, i;

	m = pb_msg_begin(b, 2);
	pb_put_uint(b, 1, 77);
	pb_put_uint(b, 1, 3);
	pb_put_uint(b, 2, 2);
	pb_put_uint(b, 2, 2048);
	l = pb_msg_begin(b, 3);
	pb_put_uint(b, 1, 8);
	pb_put_uint(b, 2, 9);
	pb_msg_end(b, l);
	pb_msg_end(b, m);
	for (i = 0; i < 2; i++) {
		m = pb_msg_begin(b, 1);
		pb_put_uint(b, 1, 1 + 2 * i);
		pb_put_uint(b, 2, 2 + 2 * i);
		pb_msg_end(b, m);
	}
	m = pb_msg_begin(b, 4);
	pb_put_uint(b, 1, 77);
	pb_put_uint(b, 2, 500);
	for (i = 0; i < 2; i++) {
		l = pb_msg_begin(b, 4);
		pb_put_uint(b, 1, i ? 1000 : 6);
		pb_put_uint(b, 2, 40 + i);
		pb_msg_end(b, l);
	}
	pb_msg_end(b, m);
	m = pb_msg_begin(b, 4);
	pb_put_uint(b, 1, 3);
	pb_put_uint(b, 3, 0x1234);
	pb_msg_end(b, m);
	m = pb_msg_begin(b, 5);
	pb_put_uint(b, 1, 1000);
	pb_put_uint(b, 2, 5);
	pb_msg_end(b, m);
	m = pb_msg_begin(b, 5);
	pb_put_uint(b, 1, 6);
	pb_put_uint(b, 2, 6);
	pb_msg_end(b, m);
	m = pb_msg_begin(b, 3);
	pb_put_uint(b, 1, 500);
	pb_put_uint(b, 5, 7);
	pb_msg_end(b, m);
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		pb_put_string(b, 6, s[i]);
	pb_put_uint(b, 12, 524288);
}

static void *gunzip_file(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	char *buf = malloc(1 << 20);
	int n;

	if (!gz || !buf)
		die(path);
	n = gzread(gz, buf, 1 << 20);
	if (n <= 0)
		die(path);
	gzclose(gz);
	*len = (size_t)n;
	return buf;
}

int main(void)
{
	struct profile *p = trapd_profile(), *go;
	char err[512];
	struct pb_buf b;
	void *buf;
	size_t len;

	if (pprof_encode(p, &buf, &len))
		die("encode");
	save(PPROF_DIR "trapd.pb", buf, len);
	save(CAPTURE_DIR "trapd.pb", buf, len);
	free(buf);
	if (profile_file__write(CAPTURE_DIR "trapd.pb.zst", p, err, sizeof(err)) ||
	    profile_file__write_gzip(CAPTURE_DIR "trapd.pb.gz", p, err, sizeof(err)))
		die(err);
	buf = gunzip_file("tests/data/go-cpu.pb.gz", &len);
	save(PPROF_DIR "go-cpu.pb", buf, len);
	free(buf);
	if (profile_file__read("tests/data/go-cpu.pb.gz", &go, err, sizeof(err)) ||
	    profile_file__write(CAPTURE_DIR "go-cpu.pb.zst", go, err, sizeof(err)))
		die(err);
	profile__free(go);
	pb_buf_init(&b, 1 << 20);
	foreign_profile(&b);
	if (pb_buf_error(&b))
		die("foreign profile");
	save(PPROF_DIR "foreign.pb", b.data, b.len);
	pb_buf_free(&b);
	save(PPROF_DIR "empty.pb", "", 0);
	profile__free(p);
	return 0;
}
