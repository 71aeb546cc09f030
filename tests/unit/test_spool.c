// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_spool.c - the spool on a real directory: usage and bounds (oldest
 * dropped first, capture, sidecar and marker together, the new capture
 * kept, other files counted but never dropped), the state of each capture
 * (listed oldest first, complete or not, marked failed), removal once
 * sent, recovery after an unclean stop; names by sequence (a clock that
 * stepped back changes no order), and a directory or entries an attacker
 * could have planted: refused, skipped, never followed or blocked on. */
#include <dirent.h>
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "upload/spool.h"

/* The recovered sidecar is parsed as JSON where the tree has a reader. */
#if __has_include("trapd/util/json_read.h")
#include "trapd/util/json_read.h"
#define HAVE_JSON_READ 1
#endif

#define A "20261122T010000Z-web-aaaa"
#define B "20261122T020000Z-db-bbbb"
#define C "20261122T030000Z-manual-cccc"

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

static void test_enforce_drops_the_failed_marker_too(void **state)
{
	char err[256];

	assert_int_equal(spool_mark_failed(dir, A ".pb.zst", "HTTP 403"), 0);
	assert_true(exists(A ".failed"));
	assert_int_equal(spool_enforce(dir, 1 << 20, 2, NULL, NULL, NULL, err, sizeof(err)), 1);
	assert_false(exists(A ".pb.zst"));
	assert_false(exists(A ".json"));
	assert_false(exists(A ".failed"));
}

static void test_missing_spool_is_an_error(void **state)
{
	char err[256];

	assert_int_equal(spool_enforce("/nonexistent/spool", 1, 1, NULL, NULL, NULL, err,
				       sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "spool_dir /nonexistent/spool: No such file or directory");
}

/* --- the state of each capture -------------------------------------------- */

/* temporaries - how many NAME.tmp.PID files the spool holds. */
static int temporaries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strstr(de->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

static char *slurp(const char *name)
{
	static char text[8192];
	char path[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return text;
}

static void test_list_oldest_first_with_flags(void **state)
{
	struct spool_item *items = NULL;
	size_t n = 0;

	/* written out of order; one without its sidecar yet, one refused */
	put("20261121T235959Z-early-eeee.pb.zst", 70);
	put("20261122T040000Z-late-dddd.pb.zst", 300);
	assert_int_equal(spool_mark_failed(dir, B ".pb.zst", "HTTP 403"), 0);
	put("20261122T050000Z-lonely.failed", 5); /* a marker is no capture */
	put("20261122T060000Z-lonely.json", 5);	  /* nor a sidecar */

	assert_int_equal(spool_list(dir, &items, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(items[0].name, "20261121T235959Z-early-eeee.pb.zst");
	assert_false(items[0].sidecar);
	assert_false(items[0].failed);
	assert_int_equal(items[0].bytes, 70);
	assert_string_equal(items[1].name, A ".pb.zst");
	assert_true(items[1].sidecar);
	assert_false(items[1].failed);
	assert_int_equal(items[1].bytes, 1000); /* the profile alone */
	assert_string_equal(items[2].name, B ".pb.zst");
	assert_true(items[2].sidecar);
	assert_true(items[2].failed);
	assert_string_equal(items[3].name, C ".pb.zst");
	assert_false(items[3].failed);
	assert_string_equal(items[4].name, "20261122T040000Z-late-dddd.pb.zst");
	assert_false(items[4].sidecar);
	assert_int_equal(items[4].bytes, 300);
	free(items);

	assert_int_equal(spool_list("/nonexistent/spool", &items, &n), -ENOENT);
	assert_null(items);
	assert_int_equal(n, 0);
}

static void test_list_empty_spool(void **state)
{
	struct spool_item *items = (struct spool_item *)1;
	char empty[80];
	size_t n = 1;

	snprintf(empty, sizeof(empty), "%s/empty", dir);
	assert_int_equal(mkdir(empty, 0700), 0);
	assert_int_equal(spool_list(empty, &items, &n), 0);
	assert_int_equal(n, 0);
	free(items);
}

static void test_mark_and_read_failed(void **state)
{
	char reason[256];

	assert_int_equal(spool_read_failed(dir, A ".pb.zst", reason, sizeof(reason)), -ENOENT);
	assert_int_equal(spool_mark_failed(dir, A ".pb.zst",
					   "PUT https://h/k: HTTP 403\nAccessDenied\r\nnope"),
			 0);
	/* one line in the file, and read back without its newline */
	assert_string_equal(slurp(A ".failed"), "PUT https://h/k: HTTP 403 AccessDenied  nope\n");
	assert_int_equal(spool_read_failed(dir, A ".pb.zst", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "PUT https://h/k: HTTP 403 AccessDenied  nope");
	/* a short buffer: cut and terminated */
	assert_int_equal(spool_read_failed(dir, A ".pb.zst", reason, 8), 0);
	assert_string_equal(reason, "PUT htt");
	/* marked again: the new reason replaces the old */
	assert_int_equal(spool_mark_failed(dir, A ".pb.zst", "disk full\n"), 0);
	assert_string_equal(slurp(A ".failed"), "disk full \n");
	assert_int_equal(spool_read_failed(dir, A ".pb.zst", reason, sizeof(reason)), 0);
	assert_string_equal(reason, "disk full ");
	assert_int_equal(spool_mark_failed(dir, B ".pb.zst", ""), 0);
	assert_string_equal(slurp(B ".failed"), "\n");
	assert_int_equal(temporaries(), 0); /* written through one, renamed into place */
	assert_int_equal(spool_clear_failed(dir, NULL), 2);

	assert_int_equal(spool_mark_failed(dir, "notes.txt", "x"), -EINVAL);
	assert_int_equal(spool_mark_failed(dir, "../" A ".pb.zst", "x"), -EINVAL);
	assert_int_equal(spool_mark_failed(dir, "sub/" A ".pb.zst", "x"), -EINVAL);
	assert_int_equal(spool_mark_failed(dir, ".pb.zst", "x"), -EINVAL);
	assert_false(exists("notes.failed"));
}

static void test_clear_failed_one_or_all(void **state)
{
	struct spool_item *items = NULL;
	size_t n = 0;

	assert_int_equal(spool_clear_failed(dir, NULL), 0);
	assert_int_equal(spool_mark_failed(dir, A ".pb.zst", "a"), 0);
	assert_int_equal(spool_mark_failed(dir, B ".pb.zst", "b"), 0);
	assert_int_equal(spool_mark_failed(dir, C ".pb.zst", "c"), 0);
	assert_int_equal(spool_clear_failed(dir, B ".pb.zst"), 1);
	assert_true(exists(A ".failed"));
	assert_false(exists(B ".failed"));
	assert_true(exists(C ".failed"));
	assert_int_equal(spool_clear_failed(dir, B ".pb.zst"), 0);
	assert_int_equal(spool_clear_failed(dir, "20991231T000000Z-none.pb.zst"), 0);
	assert_int_equal(spool_clear_failed(dir, NULL), 2);
	assert_false(exists(A ".failed"));
	assert_false(exists(C ".failed"));
	/* the captures themselves stay */
	assert_int_equal(spool_list(dir, &items, &n), 0);
	assert_int_equal(n, 3);
	assert_false(items[0].failed || items[1].failed || items[2].failed);
	free(items);
	assert_int_equal(spool_clear_failed("/nonexistent/spool", NULL), -ENOENT);
}

static void test_remove_capture(void **state)
{
	struct spool_usage u;

	assert_int_equal(spool_mark_failed(dir, A ".pb.zst", "x"), 0);
	assert_int_equal(spool_remove(dir, A ".pb.zst"), 0);
	assert_false(exists(A ".pb.zst"));
	assert_false(exists(A ".json"));
	assert_false(exists(A ".failed"));
	assert_true(exists(B ".pb.zst"));
	assert_true(exists(B ".json"));
	assert_true(exists("notes.txt"));
	/* already gone (sent twice, dropped meanwhile): nothing to do */
	assert_int_equal(spool_remove(dir, A ".pb.zst"), 0);
	assert_int_equal(spool_usage(dir, &u), 0);
	assert_int_equal(u.captures, 2);
	assert_int_equal(spool_remove("/nonexistent/spool", A ".pb.zst"), -ENOENT);
}

/* Where sent captures went: the latest URL of a name, the last
 * SPOOL_SENT_KEEP names only, nothing believed through a planted link. */
static void test_sent_captures_are_remembered(void **state)
{
	char url[128], name[64], path[128];
	int i;

	assert_int_equal(spool_find_sent(dir, A ".pb.zst", url, sizeof(url)), -ENOENT);
	assert_int_equal(spool_note_sent(dir, A ".pb.zst", "s3://b/p/h/1.pb.zst"), 0);
	assert_int_equal(spool_note_sent(dir, A ".pb.zst", "s3://b/p/h/2.pb.zst"), 0);
	assert_int_equal(spool_find_sent(dir, A ".pb.zst", url, sizeof(url)), 0);
	assert_string_equal(url, "s3://b/p/h/2.pb.zst");
	assert_int_equal(spool_note_sent(dir, A ".pb.zst", "s3://b/new\nline"), -EINVAL);
	assert_int_equal(spool_note_sent(dir, "../" A ".pb.zst", "s3://b/x"), -EINVAL);
	for (i = 0; i < SPOOL_SENT_KEEP; i++) {
		snprintf(name, sizeof(name), "%010d-20261122T010000Z-web-x.pb.zst", i);
		snprintf(url, sizeof(url), "file:///store/%d.pb.zst", i);
		assert_int_equal(spool_note_sent(dir, name, url), 0);
	}
	assert_int_equal(spool_find_sent(dir, A ".pb.zst", url, sizeof(url)), -ENOENT);
	assert_int_equal(spool_find_sent(dir, "0000000000-20261122T010000Z-web-x.pb.zst", url,
					 sizeof(url)),
			 0);
	assert_string_equal(url, "file:///store/0.pb.zst");
	/* a link in the record's place is neither read nor followed */
	snprintf(path, sizeof(path), "%s/.sent", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(spool_find_sent(dir, "root:x:0:0:root:", url, sizeof(url)), -ENOENT);
	assert_int_equal(spool_note_sent(dir, B ".pb.zst", "s3://b/3.pb.zst"), 0);
	assert_int_equal(spool_find_sent(dir, B ".pb.zst", url, sizeof(url)), 0);
	assert_int_equal(spool_find_sent("/nonexistent/spool", B ".pb.zst", url, sizeof(url)),
			 -ENOENT);
}

/* The profile goes first and goes even when its sidecar cannot (here a
 * directory in the sidecar's place): what is left never looks like a
 * capture still to send. */
static void test_remove_profile_first(void **state)
{
	struct spool_item *items = NULL;
	char sub[128];
	size_t n = 0;

	snprintf(sub, sizeof(sub), "%s/%s", dir, B ".json");
	assert_int_equal(unlink(sub), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	put(B ".json/keep", 1);
	assert_int_equal(spool_mark_failed(dir, B ".pb.zst", "x"), 0);
	assert_int_equal(spool_remove(dir, B ".pb.zst"), 0);
	assert_false(exists(B ".pb.zst"));
	assert_true(exists(B ".json/keep"));
	assert_false(exists(B ".failed"));
	assert_int_equal(spool_list(dir, &items, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(items[0].name, A ".pb.zst");
	assert_string_equal(items[1].name, C ".pb.zst");
	free(items);
}

static void test_remove_rejects_other_names(void **state)
{
	static const char *const bad[] = {
		"notes.txt",
		"../" A ".pb.zst",
		"x/" A ".pb.zst",
		"/" A ".pb.zst",
		A ".json",
		".pb.zst",
		"",
	};
	size_t i;

	put("x.pb.zst", 1); /* nothing under another directory may go */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (spool_remove(dir, bad[i]) != -EINVAL)
			fail_msg("spool_remove took '%s'", bad[i]);
	assert_true(exists("notes.txt"));
	assert_true(exists(A ".json"));
	assert_true(exists(A ".pb.zst"));
}

/* --- recovery ---------------------------------------------------------------- */

#define DEAD_PID "4194305" /* above PID_MAX_LIMIT (2^22): never a process */

static void test_recover(void **state)
{
	struct spool_recovery r;
	struct spool_item *items = NULL;
	char err[256] = "", live[128], own[128];
	size_t n = 0;
	const char *side;

	/* a writer killed midway: its temporaries; a live writer's stay */
	put("20261122T040000Z-x.pb.zst.tmp." DEAD_PID, 10);
	put("20261122T040000Z-x.json.tmp." DEAD_PID, 10);
	snprintf(live, sizeof(live), "20261122T041000Z-y.pb.zst.tmp.%d", (int)getppid());
	put(live, 10);
	snprintf(own, sizeof(own), "20261122T042000Z-z.pb.zst.tmp.%d", (int)getpid());
	put(own, 10); /* an earlier life of ours, whose pid we now have */
	put("20261122T043000Z-w.pb.zst.tmp.12ab", 10); /* not a pid: not ours to judge */
	/* a removal killed midway: a sidecar or marker without its profile */
	put("20261122T050000Z-sent.json", 20);
	put("20261122T051000Z-sent2.failed", 5);
	put("20261122T052000Z-sent3.json", 20);
	put("20261122T052000Z-sent3.failed", 5);
	/* a profile whose sidecar was never written */
	put("20261122T060000Z-lone.pb.zst", 1234);

	assert_int_equal(spool_recover(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(r.temporaries, 3);
	assert_int_equal(r.leftovers, 4);
	assert_int_equal(r.sidecars, 1);
	assert_false(exists("20261122T040000Z-x.pb.zst.tmp." DEAD_PID));
	assert_false(exists("20261122T040000Z-x.json.tmp." DEAD_PID));
	assert_true(exists(live));
	assert_false(exists(own));
	assert_true(exists("20261122T043000Z-w.pb.zst.tmp.12ab"));
	assert_false(exists("20261122T050000Z-sent.json"));
	assert_false(exists("20261122T051000Z-sent2.failed"));
	assert_false(exists("20261122T052000Z-sent3.json"));
	assert_false(exists("20261122T052000Z-sent3.failed"));
	/* complete captures, their markers, other files: untouched */
	assert_int_equal(spool_mark_failed(dir, C ".pb.zst", "x"), 0);
	assert_true(exists(A ".pb.zst") && exists(A ".json") && exists(B ".json"));
	assert_true(exists("notes.txt"));
	assert_true(exists(".20261122T040000Z-x.pb.zst.tmp"));

	/* the lone profile has a sidecar now, and is ready to send */
	side = slurp("20261122T060000Z-lone.json");
#ifdef HAVE_JSON_READ
	{
		struct json_value *root = NULL;
		bool recovered = false;
		uint64_t bytes = 0;

		if (json_parse(side, strlen(side), &root, err, sizeof(err)))
			fail_msg("the recovered sidecar is not JSON: %s\n%s", err, side);
		assert_int_equal(json_boolean(json_get(root, "recovered"), &recovered), 0);
		assert_true(recovered);
		assert_string_equal(json_str(json_path(root, "profile.file")),
				    "20261122T060000Z-lone.pb.zst");
		assert_int_equal(json_number_u64(json_path(root, "profile.bytes"), &bytes), 0);
		assert_int_equal(bytes, 1234);
		json_free(root);
	}
#else
	assert_non_null(strstr(side, "\"recovered\": true"));
	assert_non_null(strstr(side, "\"file\": \"20261122T060000Z-lone.pb.zst\""));
	assert_non_null(strstr(side, "\"bytes\": 1234"));
	assert_int_equal(side[0], '{');
	assert_int_equal(side[strlen(side) - 2], '}');
#endif
	assert_int_equal(spool_list(dir, &items, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(items[3].name, "20261122T060000Z-lone.pb.zst");
	assert_true(items[3].sidecar);
	free(items);

	/* once consistent, a second pass finds nothing to do */
	assert_int_equal(spool_recover(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(r.temporaries + r.leftovers + r.sidecars, 0);
	assert_true(exists(C ".failed"));
	assert_true(exists(live));
}

static void test_recover_missing_or_unreadable(void **state)
{
	struct spool_recovery r = { .temporaries = 1, .leftovers = 1, .sidecars = 1 };
	char err[256] = "", file[128];

	assert_int_equal(spool_recover("/nonexistent/spool", &r, err, sizeof(err)), 0);
	assert_int_equal(r.temporaries + r.leftovers + r.sidecars, 0);
	snprintf(file, sizeof(file), "%s/notes.txt", dir);
	assert_int_equal(spool_recover(file, &r, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, file));
}

/* --- names and their order ------------------------------------------------- */

static void test_name_parts(void **state)
{
	uint64_t seq = 7;
	char ymd[8];

	assert_true(spool_name_seq("0000000042-20261122T061328Z-web-1a2b3c4d.pb.zst", &seq));
	assert_int_equal(seq, 42);
	assert_true(spool_name_date("0000000042-20261122T061328Z-web-1a2b3c4d.pb.zst", ymd));
	assert_memory_equal(ymd, "20261122", 8);
	/* an earlier version's name: a date, no sequence */
	assert_false(spool_name_seq(A ".pb.zst", &seq));
	assert_true(spool_name_date(A ".pb.zst", ymd));
	assert_memory_equal(ymd, "20261122", 8);
	/* digits and a dash alone are not a sequence */
	assert_false(spool_name_seq("12-notes.pb.zst", &seq));
	assert_false(spool_name_seq("-20261122T061328Z-x.pb.zst", &seq));
	assert_false(spool_name_seq("00000000000000000001-20261122T061328Z-x.pb.zst", &seq));
	assert_false(spool_name_date("12-notes.pb.zst", ymd));
	assert_false(spool_name_date("x20261122T061328Z.pb.zst", ymd));
}

static void test_next_name_continues_the_sequence(void **state)
{
	char name[NAME_MAX + 1], err[256] = "", sub[128];
	int64_t t = 1795328008ll * 1000000000ll; /* 2026-11-22T06:13:28Z */

	/* only old names: the first sequence */
	assert_int_equal(spool_next_name(dir, t, "web", "1a2b3c4d5e6f", name, sizeof(name), err,
					 sizeof(err)),
			 0);
	assert_string_equal(name, "0000000001-20261122T061328Z-web-1a2b3c4d.pb.zst");
	/* a capture of a higher number is there (a copied spool): above it */
	put("0000000041-20261122T000000Z-db-aaaaaaaa.pb.zst", 10);
	assert_int_equal(spool_next_name(dir, t, "web/../x y", "ffffffff", name, sizeof(name), err,
					 sizeof(err)),
			 0);
	assert_string_equal(name, "0000000042-20261122T061328Z-web_.._x_y-ffffffff.pb.zst");
	/* a name given out is never given again, though nothing is written
	 * under it yet, nor after the spool was emptied */
	snprintf(sub, sizeof(sub), "%s/0000000041-20261122T000000Z-db-aaaaaaaa.pb.zst", dir);
	assert_int_equal(unlink(sub), 0);
	assert_int_equal(spool_next_name(dir, t, NULL, "00000000", name, sizeof(name), err,
					 sizeof(err)),
			 0);
	assert_string_equal(name, "0000000043-20261122T061328Z-manual-00000000.pb.zst");
	/* a missing spool is made, 0750 */
	snprintf(sub, sizeof(sub), "%s/new", dir);
	assert_int_equal(spool_next_name(sub, t, "r", "1", name, sizeof(name), err, sizeof(err)),
			 0);
	assert_string_equal(name, "0000000001-20261122T061328Z-r-1.pb.zst");
	{
		struct stat st;

		assert_int_equal(stat(sub, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0750);
	}
}

/* The clock stepped back between captures: wall-clock names sort the
 * newest first, the sequence does not. Dropping takes the lowest
 * sequence, listing (the upload order) goes by sequence; names of an
 * earlier version come before all of them. */
static void test_order_is_the_sequence_not_the_clock(void **state)
{
	struct spool_item *items = NULL;
	struct drops d = { 0 };
	char err[256];
	size_t n = 0;

	put("0000000001-20991231T235959Z-before-aaaaaaaa.pb.zst", 100);
	put("0000000001-20991231T235959Z-before-aaaaaaaa.json", 10);
	put("0000000002-20200101T000000Z-after-bbbbbbbb.pb.zst", 100);
	put("0000000002-20200101T000000Z-after-bbbbbbbb.json", 10);
	put("0000000010-20000101T000000Z-last-cccccccc.pb.zst", 100);
	put("0000000010-20000101T000000Z-last-cccccccc.json", 10);
	assert_int_equal(spool_list(dir, &items, &n), 0);
	assert_int_equal(n, 6);
	assert_string_equal(items[0].name, A ".pb.zst");
	assert_string_equal(items[2].name, C ".pb.zst");
	assert_string_equal(items[3].name, "0000000001-20991231T235959Z-before-aaaaaaaa.pb.zst");
	assert_string_equal(items[4].name, "0000000002-20200101T000000Z-after-bbbbbbbb.pb.zst");
	assert_string_equal(items[5].name, "0000000010-20000101T000000Z-last-cccccccc.pb.zst");
	free(items);
	/* room for two: the old names and sequence 1 go, 2 and 10 stay */
	assert_int_equal(spool_enforce(dir, 1 << 20, 2, NULL, on_drop, &d, err, sizeof(err)), 4);
	assert_string_equal(d.names[3], "0000000001-20991231T235959Z-before-aaaaaaaa.pb.zst");
	assert_true(exists("0000000002-20200101T000000Z-after-bbbbbbbb.pb.zst"));
	assert_true(exists("0000000010-20000101T000000Z-last-cccccccc.json"));
}

/* --- a directory and entries an attacker could have planted --------------- */

static void test_loose_or_foreign_dir_is_refused(void **state)
{
	struct spool_item *items = NULL;
	char err[256] = "", name[NAME_MAX + 1], link[96];
	size_t n = 0;
	int fd;

	fd = spool_dir_open(dir, false, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(spool_dir_open(dir, false, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by others (mode 0777)"));
	assert_non_null(strstr(err, dir));
	assert_int_equal(spool_next_name(dir, 0, "x", "1", name, sizeof(name), err, sizeof(err)),
			 -EPERM);
	assert_int_equal(spool_list(dir, &items, &n), -EPERM);
	assert_int_equal(spool_enforce(dir, 0, 0, NULL, NULL, NULL, err, sizeof(err)), -EPERM);
	assert_true(exists(A ".pb.zst")); /* nothing dropped from a dir we do not trust */
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(spool_dir_open(dir, false, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by its group (mode 0770)"));
	assert_int_equal(chmod(dir, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(spool_dir_open(dir, false, err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "owned by uid 65534"));
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	snprintf(link, sizeof(link), "%s.link", dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(spool_dir_open(link, false, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	unlink(link);
}

static void plant(const char *name, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (target)
		assert_int_equal(symlink(target, path), 0);
	else
		assert_int_equal(mkfifo(path, 0666), 0);
}

/* A FIFO named to sort first, and a link to a root-only file: neither is
 * listed, opened, blocked on or given a sidecar; what follows is sent. */
static void test_planted_entries_are_skipped(void **state)
{
	struct spool_skipped sk;
	struct spool_recovery r;
	struct spool_item *items = NULL;
	char err[256] = "";
	uint64_t size = 0;
	size_t n = 0;

	plant("0000000000-19700101T000000Z-fifo-ffffffff.pb.zst", NULL);
	plant("0000000000-19700101T000000Z-fifo-ffffffff.json", NULL);
	plant("19700101T000000Z-link-eeee.pb.zst", "/etc/shadow");
	plant("19700101T000000Z-link-eeee.json", "/etc/shadow");
	assert_int_equal(spool_list_skipping(dir, &items, &n, &sk), 0);
	assert_int_equal(n, 3);
	assert_string_equal(items[0].name, A ".pb.zst");
	assert_true(items[0].sidecar);
	free(items);
	assert_int_equal(sk.n, 2);
	assert_string_equal(sk.first, "0000000000-19700101T000000Z-fifo-ffffffff.pb.zst");
	assert_int_equal(spool_open_file(dir, "0000000000-19700101T000000Z-fifo-ffffffff.json",
					 &size),
			 -EINVAL);
	assert_int_equal(spool_open_file(dir, "19700101T000000Z-link-eeee.json", &size), -ELOOP);
	assert_int_equal(spool_recover(dir, &r, err, sizeof(err)), 0);
	assert_int_equal(r.sidecars, 0);
	assert_int_equal(r.skipped.n, 2);
	assert_int_equal(spool_mark_failed(dir, "19700101T000000Z-link-eeee.pb.zst", "x"), 0);
	{
		char reason[64];

		/* the marker replaced nothing it pointed to */
		assert_int_equal(spool_read_failed(dir, "19700101T000000Z-link-eeee.pb.zst", reason,
						   sizeof(reason)),
				 0);
		assert_string_equal(reason, "x");
	}
	{
		struct stat st;

		assert_int_equal(stat("/etc/shadow", &st), 0);
		assert_true(st.st_size > 1);
	}
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
		cmocka_unit_test_setup_teardown(test_enforce_drops_the_failed_marker_too, setup,
						teardown),
		cmocka_unit_test(test_missing_spool_is_an_error),
		cmocka_unit_test_setup_teardown(test_list_oldest_first_with_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_empty_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_and_read_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear_failed_one_or_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_capture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_profile_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sent_captures_are_remembered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_rejects_other_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover_missing_or_unreadable, setup,
						teardown),
		cmocka_unit_test(test_name_parts),
		cmocka_unit_test_setup_teardown(test_next_name_continues_the_sequence, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_order_is_the_sequence_not_the_clock, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_loose_or_foreign_dir_is_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_planted_entries_are_skipped, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
