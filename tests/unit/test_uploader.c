// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_uploader.c - the uploader's thread (upload/uploader.h) with the
 * real file:// backend into a temporary directory: captures leave the
 * spool oldest first under content-derived keys, the same content is
 * stored once, a permanent failure is marked and skipped until retried
 * by hand, a transient one backs off (a kick does not cut the wait, a
 * retry does), a capture without its sidecar waits, the sidecar's
 * metadata is read through the callback, and stopping is prompt.
 *
 * Failures come from the file system, not from fakes: a regular file
 * where the store's directory should be is ENOTDIR (permanent), a store
 * behind a dangling symlink is ENOENT (transient: the mount may come
 * back).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upload/object.h"
#include "upload/sha256.h"
#include "upload/spool.h"
#include "upload/uploader.h"

#define SEC 1000000000ull
#define WAIT_S 10.0 /* for anything that should take milliseconds */

#define CAP_A "20261122T010000Z-rule-web-aaaa"
#define CAP_B "20261123T020000Z-manual-bbbb"

static char root[64], spool[160], store[160];

/* --- events, as the uploader's thread reports them ------------------------ */

struct seen {
	enum uploader_event_kind kind;
	char name[NAME_MAX + 1];
	char key[UPLOAD_KEY_MAX];
	char message[384];
	uint64_t bytes, delay_ns;
	unsigned failures;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct seen ev[64];
	int n;
} events = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void on_event(const struct uploader_event *ev, void *ctx)
{
	struct seen *s;

	pthread_mutex_lock(&events.lock);
	if (events.n < 64) {
		s = &events.ev[events.n++];
		memset(s, 0, sizeof(*s));
		s->kind = ev->kind;
		snprintf(s->name, sizeof(s->name), "%s", ev->name ? ev->name : "");
		snprintf(s->key, sizeof(s->key), "%s", ev->key ? ev->key : "");
		snprintf(s->message, sizeof(s->message), "%s", ev->message ? ev->message : "");
		s->bytes = ev->bytes;
		s->delay_ns = ev->delay_ns;
		s->failures = ev->failures;
	}
	pthread_cond_broadcast(&events.cond);
	pthread_mutex_unlock(&events.lock);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int count_kind(enum uploader_event_kind kind)
{
	int i, n = 0;

	for (i = 0; i < events.n; i++)
		n += events.ev[i].kind == kind;
	return n;
}

/* wait_events - until @n events of @kind were seen; fails after WAIT_S. */
static void wait_events(enum uploader_event_kind kind, int n)
{
	struct timespec until;
	int have;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)WAIT_S;
	pthread_mutex_lock(&events.lock);
	while ((have = count_kind(kind)) < n)
		if (pthread_cond_timedwait(&events.cond, &events.lock, &until))
			break;
	pthread_mutex_unlock(&events.lock);
	if (have < n)
		fail_msg("%d events of kind %d after %.0f s, expected %d", have, (int)kind, WAIT_S,
			 n);
}

/* the @i-th event of @kind (it must have been seen) */
static const struct seen *event(enum uploader_event_kind kind, int i)
{
	int k;

	for (k = 0; k < events.n; k++)
		if (events.ev[k].kind == kind && !i--)
			return &events.ev[k];
	fail_msg("no event %d of kind %d", i, (int)kind);
	return NULL;
}

/* --- the spool and the store ------------------------------------------------ */

static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* read_file - the whole of @path, NUL-terminated, its size in *@len;
 * NULL when it cannot be read. */
static char *read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = '\0';
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static bool in_spool(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", spool, name);
	return access(path, F_OK) == 0;
}

/* profile_bytes - @len deterministic bytes for capture @seed. */
static void profile_bytes(unsigned char *b, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (unsigned char)x;
	}
}

/* put_capture - @base.pb.zst (@len bytes from @seed) and, with
 * @sidecar, @base.json, into the spool. */
static void put_capture(const char *base, size_t len, uint32_t seed, bool sidecar)
{
	unsigned char *b = malloc(len);
	char path[256], json[256];

	assert_non_null(b);
	profile_bytes(b, len, seed);
	snprintf(path, sizeof(path), "%s/%s.pb.zst", spool, base);
	write_file(path, b, len);
	free(b);
	if (!sidecar)
		return;
	snprintf(path, sizeof(path), "%s/%s.json", spool, base);
	snprintf(json, sizeof(json), "{\"format\": \"trapd-capture/1\", \"name\": \"%s\"}\n", base);
	write_file(path, json, strlen(json));
}

/* expected_key - where @base (@len bytes from @seed) must land. */
static void expected_key(const char *base, size_t len, uint32_t seed, const char *suffix, char *key,
			 size_t keylen)
{
	unsigned char *b = malloc(len);
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1];

	assert_non_null(b);
	profile_bytes(b, len, seed);
	sha256(b, len, d);
	free(b);
	hex_lower(d, sizeof(d), hex);
	snprintf(key, keylen, "web-1/%.4s/%.2s/%.2s/%s%s", base, base + 4, base + 6, hex, suffix);
}

/* assert_stored - the store holds @base's profile and sidecar under
 * their keys, byte for byte. */
static void assert_stored(const char *base, size_t len, uint32_t seed)
{
	char key[UPLOAD_KEY_MAX], path[UPLOAD_KEY_MAX + 256], *got;
	unsigned char *want = malloc(len);
	size_t n;

	assert_non_null(want);
	profile_bytes(want, len, seed);
	expected_key(base, len, seed, ".pb.zst", key, sizeof(key));
	snprintf(path, sizeof(path), "%s/%s", store, key);
	got = read_file(path, &n);
	if (!got)
		fail_msg("%s is not in the store", path);
	assert_int_equal(n, len);
	assert_memory_equal(got, want, len);
	free(got);
	free(want);
	expected_key(base, len, seed, ".json", key, sizeof(key));
	snprintf(path, sizeof(path), "%s/%s", store, key);
	got = read_file(path, &n);
	if (!got)
		fail_msg("%s is not in the store", path);
	assert_non_null(strstr(got, base));
	free(got);
}

/* count_files - regular files under @dir, and how many look temporary. */
static int count_files(const char *dir, int *temporaries)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(lstat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			n += count_files(path, temporaries);
		} else {
			n++;
			*temporaries += strstr(de->d_name, ".tmp.") != NULL;
		}
	}
	closedir(d);
	return n;
}

/* --- the uploader ------------------------------------------------------------ */

static struct {
	pthread_mutex_t lock;
	char paths[8][PATH_MAX];
	size_t max[8];
	int calls;
	bool fail;
} meta_calls = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A sidecar reader as trapd/ would give: two items, or an error. */
static int fake_read_meta(const char *sidecar_path, struct upload_meta *meta, size_t max, size_t *n,
			  char *err, size_t errlen)
{
	bool fail;

	pthread_mutex_lock(&meta_calls.lock);
	if (meta_calls.calls < 8) {
		snprintf(meta_calls.paths[meta_calls.calls], PATH_MAX, "%s", sidecar_path);
		meta_calls.max[meta_calls.calls] = max;
	}
	meta_calls.calls++;
	fail = meta_calls.fail;
	pthread_mutex_unlock(&meta_calls.lock);
	*n = 0;
	if (fail) {
		snprintf(err, errlen, "line 1, column 2: not a capture sidecar");
		return -EINVAL;
	}
	/* no cmocka asserts here: this runs on the uploader's thread */
	if (upload_meta__add(meta, n, max, "label_team", "web") ||
	    upload_meta__add(meta, n, max, "trapd_rules", "cpu")) {
		snprintf(err, errlen, "upload_meta__add failed");
		return -E2BIG;
	}
	return 0;
}

static struct uploader_options options(const char *dir)
{
	struct uploader_options o = {
		.backend = { .scheme = UPLOAD_FILE, .url = "file://test", .dir = dir },
		.spool_dir = spool,
		.host = "web-1",
		.retry_min_ns = SEC / 10,
		.retry_max_ns = SEC / 5,
		.rescan_ns = 60 * SEC,
		.on_event = on_event,
	};

	return o;
}

static struct uploader *start(const struct uploader_options *o)
{
	struct uploader *u = NULL;
	char err[256] = "";

	if (uploader__start(o, &u, err, sizeof(err)))
		fail_msg("uploader__start: %s", err);
	assert_non_null(u);
	return u;
}

/* wait_status - until @pred holds of the status; fails after WAIT_S. */
static void wait_status(struct uploader *u, bool (*pred)(const struct uploader_status *),
			struct uploader_status *st, const char *what)
{
	double until = now_s() + WAIT_S;

	for (;;) {
		uploader__status(u, st);
		if (pred(st))
			return;
		if (now_s() > until)
			fail_msg("the status never showed %s", what);
		usleep(10000);
	}
}

static bool idle_and_empty(const struct uploader_status *st)
{
	return st->pending == 0 && st->in_flight[0] == '\0' && st->scans >= 1;
}

static bool one_failed(const struct uploader_status *st)
{
	return st->failed == 1 && st->pending == 0;
}

static bool none_failed(const struct uploader_status *st)
{
	return st->failed == 0 && st->pending == 0;
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/trapd-uploader-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(spool, sizeof(spool), "%s/spool", root);
	snprintf(store, sizeof(store), "%s/store", root);
	pthread_mutex_lock(&events.lock);
	events.n = 0;
	pthread_mutex_unlock(&events.lock);
	pthread_mutex_lock(&meta_calls.lock);
	meta_calls.calls = 0;
	meta_calls.fail = false;
	pthread_mutex_unlock(&meta_calls.lock);
	return mkdir(spool, 0700);
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* --- the tests ---------------------------------------------------------------- */

static void test_sends_oldest_first_under_content_keys(void **state)
{
	struct uploader_options o = options(store);
	struct uploader_status st;
	struct spool_item *items = NULL;
	char key[UPLOAD_KEY_MAX], spool_copy[160], host[16];
	struct uploader *u;
	size_t n = 1;

	put_capture(CAP_B, 5000, 2, true); /* the newer one is written first */
	put_capture(CAP_A, 70000, 1, true);
	/* the uploader keeps copies: the caller's strings may go */
	snprintf(spool_copy, sizeof(spool_copy), "%s", spool);
	snprintf(host, sizeof(host), "web-1");
	o.spool_dir = spool_copy;
	o.host = host;
	u = start(&o);
	memset(spool_copy, 'x', sizeof(spool_copy) - 1);
	memset(host, 'x', sizeof(host) - 1);
	wait_events(UPLOADER_SENT, 2);
	wait_status(u, idle_and_empty, &st, "an empty queue");
	uploader__stop(u);

	assert_int_equal(events.n, 2); /* SENT twice, nothing else */
	assert_string_equal(event(UPLOADER_SENT, 0)->name, CAP_A ".pb.zst");
	assert_string_equal(event(UPLOADER_SENT, 1)->name, CAP_B ".pb.zst");
	expected_key(CAP_A, 70000, 1, ".pb.zst", key, sizeof(key));
	assert_string_equal(event(UPLOADER_SENT, 0)->key, key);
	assert_int_equal(strncmp(key, "web-1/2026/11/22/", 17), 0);
	assert_int_equal(event(UPLOADER_SENT, 0)->bytes,
			 70000 + strlen("{\"format\": \"trapd-capture/1\", \"name\": \"\"}\n") +
				 strlen(CAP_A));
	expected_key(CAP_B, 5000, 2, ".pb.zst", key, sizeof(key));
	assert_string_equal(event(UPLOADER_SENT, 1)->key, key);
	assert_stored(CAP_A, 70000, 1);
	assert_stored(CAP_B, 5000, 2);

	/* both left the spool, every file of them */
	assert_int_equal(spool_list(spool, &items, &n), 0);
	assert_int_equal(n, 0);
	free(items);
	assert_false(in_spool(CAP_A ".json") || in_spool(CAP_B ".json"));

	assert_int_equal(st.sent, 2);
	assert_int_equal(st.attempts, 4); /* profile and sidecar each */
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.transient_failures, 0);
	assert_int_equal(st.bytes_sent,
			 event(UPLOADER_SENT, 0)->bytes + event(UPLOADER_SENT, 1)->bytes);
	assert_string_equal(st.last_error, "");
}

static void test_same_content_stored_once(void **state)
{
	struct uploader_options o = options(store);
	char first[2][UPLOAD_KEY_MAX];
	struct uploader *u;
	int tmp = 0, i;

	for (i = 0; i < 2; i++) {
		put_capture(CAP_A, 3000, 1, true);
		put_capture(CAP_B, 4000, 2, true);
		u = start(&o);
		wait_events(UPLOADER_SENT, 2 * (i + 1));
		uploader__stop(u);
		if (i == 0) {
			snprintf(first[0], UPLOAD_KEY_MAX, "%s", event(UPLOADER_SENT, 0)->key);
			snprintf(first[1], UPLOAD_KEY_MAX, "%s", event(UPLOADER_SENT, 1)->key);
		}
	}
	assert_string_equal(event(UPLOADER_SENT, 2)->key, first[0]);
	assert_string_equal(event(UPLOADER_SENT, 3)->key, first[1]);
	assert_int_equal(count_files(store, &tmp), 4);
	assert_int_equal(tmp, 0);
	assert_stored(CAP_A, 3000, 1);
}

static void test_permanent_failure_marked_until_retried(void **state)
{
	struct uploader_options o;
	struct uploader_status st;
	char blocker[96], dir[128], reason[384];
	struct uploader *u;
	uint64_t attempts;

	/* the store's directory would be under a regular file: ENOTDIR */
	snprintf(blocker, sizeof(blocker), "%s/blocker", root);
	snprintf(dir, sizeof(dir), "%s/store", blocker);
	write_file(blocker, "x", 1);
	o = options(dir);
	put_capture(CAP_A, 1000, 1, true);
	u = start(&o);
	wait_events(UPLOADER_FAILED, 1);
	wait_status(u, one_failed, &st, "one capture failed");
	assert_string_equal(event(UPLOADER_FAILED, 0)->name, CAP_A ".pb.zst");
	assert_non_null(strstr(event(UPLOADER_FAILED, 0)->message, "Not a directory"));
	assert_true(in_spool(CAP_A ".pb.zst") && in_spool(CAP_A ".json"));
	assert_true(in_spool(CAP_A ".failed"));
	assert_int_equal(spool_read_failed(spool, CAP_A ".pb.zst", reason, sizeof(reason)), 0);
	assert_non_null(strstr(reason, "Not a directory"));
	assert_non_null(strstr(st.last_error, "Not a directory"));
	assert_int_equal(st.sent, 0);
	assert_int_equal(st.transient_failures, 0);

	/* marked: a kick, or a retry without the failed, leaves it alone */
	attempts = st.attempts;
	uploader__kick(u);
	uploader__retry(u, false);
	usleep(300000);
	uploader__status(u, &st);
	assert_int_equal(st.attempts, attempts);
	assert_int_equal(count_kind(UPLOADER_FAILED), 1);

	/* the store is fixed, and the failed are retried by hand */
	assert_int_equal(unlink(blocker), 0);
	assert_int_equal(mkdir(blocker, 0700), 0);
	uploader__retry(u, true);
	wait_events(UPLOADER_SENT, 1);
	wait_status(u, none_failed, &st, "no capture failed");
	uploader__stop(u);
	assert_false(in_spool(CAP_A ".pb.zst"));
	assert_false(in_spool(CAP_A ".failed"));
	snprintf(store, sizeof(store), "%s", dir);
	assert_stored(CAP_A, 1000, 1);
}

static bool scanned_twice(const struct uploader_status *st)
{
	return st->scans >= 2;
}

static void test_capture_without_sidecar_waits(void **state)
{
	struct uploader_options o = options(store);
	struct uploader_status st;
	char tmp[256], path[256];
	const char *json = "{\"format\": \"trapd-capture/1\"}\n";
	struct uploader *u;

	put_capture(CAP_A, 1000, 1, false); /* still being written */
	u = start(&o);
	uploader__kick(u);
	wait_status(u, scanned_twice, &st, "two scans");
	usleep(100000);
	uploader__status(u, &st);
	assert_int_equal(events.n, 0);
	assert_int_equal(st.attempts, 0);
	assert_int_equal(st.pending, 0);
	assert_true(in_spool(CAP_A ".pb.zst"));

	/* the writer renames the sidecar into place last */
	snprintf(tmp, sizeof(tmp), "%s/%s.json.tmp.%d", spool, CAP_A, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s.json", spool, CAP_A);
	write_file(tmp, json, strlen(json));
	assert_int_equal(rename(tmp, path), 0);
	uploader__kick(u);
	wait_events(UPLOADER_SENT, 1);
	uploader__stop(u);
	assert_false(in_spool(CAP_A ".pb.zst"));
}

static void test_metadata_read_from_the_sidecar(void **state)
{
	struct uploader_options o = options(store);
	char want[256];
	struct uploader *u;

	o.read_meta = fake_read_meta;
	put_capture(CAP_A, 1000, 1, true);
	u = start(&o);
	wait_events(UPLOADER_SENT, 1);
	/* a sidecar the reader refuses costs the metadata, not the capture */
	pthread_mutex_lock(&meta_calls.lock);
	meta_calls.fail = true;
	pthread_mutex_unlock(&meta_calls.lock);
	put_capture(CAP_B, 1000, 2, true);
	uploader__kick(u);
	wait_events(UPLOADER_SENT, 2);
	uploader__stop(u);

	assert_int_equal(meta_calls.calls, 2); /* once per capture, not per file */
	snprintf(want, sizeof(want), "%s/%s.json", spool, CAP_A);
	assert_string_equal(meta_calls.paths[0], want);
	snprintf(want, sizeof(want), "%s/%s.json", spool, CAP_B);
	assert_string_equal(meta_calls.paths[1], want);
	/* room is left for what the uploader adds itself */
	assert_in_range(meta_calls.max[0], 2, UPLOAD_META_MAX - 1);
	assert_int_equal(count_kind(UPLOADER_WARNING), 1);
	assert_non_null(strstr(event(UPLOADER_WARNING, 0)->message, "not a capture sidecar"));
	assert_stored(CAP_A, 1000, 1);
	assert_stored(CAP_B, 1000, 2);
}

/* transient_store - a store behind a symlink to a directory that does not
 * exist yet (an unmounted share): ENOENT, transient. Returns the store;
 * creating @target fixes it. */
static const char *transient_store(char *target, size_t len)
{
	static char link[128];

	snprintf(link, sizeof(link), "%s/share", root);
	snprintf(target, len, "%s/mnt", root);
	assert_int_equal(symlink(target, link), 0);
	return link;
}

static void test_transient_failure_backs_off_until_retry(void **state)
{
	char target[128];
	struct uploader_options o = options(transient_store(target, sizeof(target)));
	struct uploader_status st;
	const struct seen *retry;
	struct uploader *u;
	uint64_t attempts;

	o.retry_min_ns = 60 * SEC;
	o.retry_max_ns = 120 * SEC;
	put_capture(CAP_A, 1000, 1, true);
	put_capture(CAP_B, 1000, 2, true);
	u = start(&o);
	wait_events(UPLOADER_RETRY, 1);
	retry = event(UPLOADER_RETRY, 0);
	assert_string_equal(retry->name, CAP_A ".pb.zst");
	assert_int_equal(retry->failures, 1);
	assert_in_range(retry->delay_ns, 30 * SEC, 60 * SEC);
	assert_non_null(strstr(retry->message, "No such file or directory"));
	uploader__status(u, &st);
	assert_int_equal(st.transient_failures, 1);
	assert_int_equal(st.failures_in_a_row, 1);
	assert_true(st.next_try_real_ns > 0);
	assert_int_equal(st.pending, 2);
	assert_false(in_spool(CAP_A ".failed")); /* transient: never marked */

	/* a new capture does not cut the backoff, nor does it go first */
	attempts = st.attempts;
	uploader__kick(u);
	usleep(300000);
	uploader__status(u, &st);
	assert_int_equal(st.attempts, attempts);
	assert_int_equal(count_kind(UPLOADER_RETRY), 1);

	/* the share is back; a retry by hand goes now */
	assert_int_equal(mkdir(target, 0700), 0);
	uploader__retry(u, false);
	wait_events(UPLOADER_SENT, 2);
	uploader__status(u, &st);
	uploader__stop(u);
	assert_string_equal(event(UPLOADER_SENT, 0)->name, CAP_A ".pb.zst");
	assert_string_equal(event(UPLOADER_SENT, 1)->name, CAP_B ".pb.zst");
	assert_int_equal(st.failures_in_a_row, 0);
	assert_int_equal(st.next_try_real_ns, 0);
	snprintf(store, sizeof(store), "%s", target);
	assert_stored(CAP_A, 1000, 1);
}

static void test_stop_during_a_long_backoff(void **state)
{
	char target[128];
	struct uploader_options o = options(transient_store(target, sizeof(target)));
	struct uploader *u;
	double t0, took;

	o.retry_min_ns = 3600 * SEC;
	o.retry_max_ns = 3600 * SEC;
	put_capture(CAP_A, 1000, 1, true);
	u = start(&o);
	wait_events(UPLOADER_RETRY, 1);
	t0 = now_s();
	uploader__stop(u);
	took = now_s() - t0;
	if (took > 1)
		fail_msg("uploader__stop took %.2f s in a backoff", took);
	assert_true(in_spool(CAP_A ".pb.zst") && in_spool(CAP_A ".json"));
	assert_false(in_spool(CAP_A ".failed"));
}

static void test_stop_while_idle(void **state)
{
	struct uploader_options o = options(store);
	struct uploader_status st;
	struct uploader *u = start(&o);
	double t0, took;

	wait_status(u, idle_and_empty, &st, "an idle uploader");
	t0 = now_s();
	uploader__stop(u);
	took = now_s() - t0;
	if (took > 1)
		fail_msg("uploader__stop took %.2f s when idle", took);
	uploader__stop(NULL);
}

static void test_start_refuses_bad_settings(void **state)
{
	struct uploader_options o = options(store);
	struct uploader *u = (struct uploader *)1;
	char err[256] = "";

	o.backend.scheme = UPLOAD_NONE;
	assert_int_equal(uploader__start(&o, &u, err, sizeof(err)), -EINVAL);
	assert_null(u);
	assert_non_null(strstr(err, "no backend"));
	o = options("relative/dir");
	assert_int_equal(uploader__start(&o, &u, err, sizeof(err)), -EINVAL);
	assert_null(u);
	assert_non_null(strstr(err, "file:///"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sends_oldest_first_under_content_keys),
		T(test_same_content_stored_once),
		T(test_permanent_failure_marked_until_retried),
		T(test_capture_without_sidecar_waits),
		T(test_metadata_read_from_the_sidecar),
		T(test_transient_failure_backs_off_until_retry),
		T(test_stop_during_a_long_backoff),
		T(test_stop_while_idle),
		T(test_start_refuses_bad_settings),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
