// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* uploader.c - the uploader's thread (uploader.h). */
#include "upload/uploader.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upload/backoff.h"
#include "upload/curl_lib.h"
#include "upload/object.h"
#include "upload/safe_text.h"
#include "upload/scrub.h"
#include "upload/sha256.h"
#include "upload/spool.h"

#define NSEC_PER_SEC 1000000000ll

struct uploader {
	struct uploader_options o; /* its strings are copies, in @strings */
	char *strings[24];
	size_t nstrings;
	const struct upload_backend_ops *ops;
	struct upload_backend *backend;
	pthread_t thread;
	bool started;
	int abort; /* atomic: stop the request under way */

	pthread_mutex_t lock; /* guards what follows */
	pthread_cond_t wake;
	bool stop, kicked, retry_now, retry_failed;
	struct uploader_status st;
	char skipped_warned[NAME_MAX + 1]; /* the last entry next_capture warned of */
};

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void emit(struct uploader *u, const struct uploader_event *ev)
{
	if (u->o.on_event)
		u->o.on_event(ev, u->o.ctx);
}

/* --- one capture ---------------------------------------------------------- */

/* One file of a capture on its way. */
struct part {
	char path[PATH_MAX];
	char key[UPLOAD_KEY_MAX];
	int fd;
	uint64_t size;
};

/* open_part - @name of the spool, through spool_open_file: a symbolic
 * link is not followed, a FIFO never blocks the thread, and only a
 * regular file is read. */
static int open_part(struct part *p, const char *dir, const char *name)
{
	int fd;

	if (snprintf(p->path, sizeof(p->path), "%s/%s", dir, name) >= (int)sizeof(p->path))
		return -ENAMETOOLONG;
	fd = spool_open_file(dir, name, &p->size);
	p->fd = fd < 0 ? -1 : fd;
	return fd < 0 ? fd : 0;
}

static void close_part(struct part *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* capture_meta - the sidecar's metadata, and the digest; a sidecar that
 * cannot be read costs metadata, not the capture. */
static size_t capture_meta(struct uploader *u, const struct part *sidecar, const char *sha256,
			   struct upload_meta *meta)
{
	struct uploader_event ev = { .kind = UPLOADER_WARNING };
	char err[256] = "", raw[384], msg[384];
	size_t n = 0;

	if (u->o.read_meta &&
	    u->o.read_meta(sidecar->path, meta, UPLOAD_META_MAX - 1, &n, err, sizeof(err))) {
		/* the reader may quote the sidecar, which a target can shape */
		snprintf(raw, sizeof(raw), "%.120s: sending without its metadata: %.200s",
			 sidecar->path, err);
		safe_text_str(raw, msg, sizeof(msg));
		ev.name = sidecar->path;
		ev.message = msg;
		emit(u, &ev);
		n = 0;
	}
	upload_meta__add(meta, &n, UPLOAD_META_MAX, "trapd_sha256", sha256);
	return n;
}

static int put_part(struct uploader *u, const struct part *p, const char *sha256, const char *type,
		    const struct upload_meta *meta, size_t nmeta, struct upload_result *res)
{
	struct upload_object obj = {
		.key = p->key,
		.fd = p->fd,
		.size = p->size,
		.sha256 = sha256,
		.content_type = type,
		.meta = meta,
		.nmeta = nmeta,
	};

	pthread_mutex_lock(&u->lock);
	u->st.attempts++;
	pthread_mutex_unlock(&u->lock);
	return u->ops->put(u->backend, &obj, res);
}

/* send_capture - both files of @name, profile first, each with its own
 * digest (a store checks it) and both keyed by the profile's. Fills @res
 * (the last request's answer) and @key; returns 0 when both are
 * confirmed. */
static int send_capture(struct uploader *u, const char *name, struct upload_result *res, char *key,
			size_t keylen, uint64_t *bytes)
{
	struct part prof = { .fd = -1 }, side = { .fd = -1 };
	struct upload_meta meta[UPLOAD_META_MAX];
	uint8_t digest[SHA256_DIGEST_LEN];
	char sha[2 * SHA256_DIGEST_LEN + 1], side_sha[2 * SHA256_DIGEST_LEN + 1];
	char sidename[NAME_MAX + 1];
	size_t nmeta, base = strlen(name) - strlen(".pb.zst");
	int e;

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	snprintf(sidename, sizeof(sidename), "%.*s.json", (int)base, name);
	e = open_part(&prof, u->o.spool_dir, name);
	if (!e)
		e = open_part(&side, u->o.spool_dir, sidename);
	if (!e)
		e = sha256_fd(prof.fd, digest, NULL);
	if (!e) {
		hex_lower(digest, SHA256_DIGEST_LEN, sha);
		e = sha256_fd(side.fd, digest, NULL);
		hex_lower(digest, SHA256_DIGEST_LEN, side_sha);
	}
	if (e) {
		snprintf(res->msg, sizeof(res->msg), "reading %.300s: %s",
			 prof.fd < 0 ? prof.path : side.path, strerror(-e));
		if (e == -ENOENT)
			res->outcome = UPLOAD_TRANSIENT; /* dropped or sent meanwhile */
		goto out;
	}
	if (upload_object_key(u->o.host, name, sha, ".pb.zst", prof.key, sizeof(prof.key)) ||
	    upload_object_key(u->o.host, name, sha, ".json", side.key, sizeof(side.key))) {
		e = -EINVAL;
		snprintf(res->msg, sizeof(res->msg), "%s: not a spool capture name", name);
		goto out;
	}
	snprintf(key, keylen, "%s", prof.key);
	nmeta = capture_meta(u, &side, sha, meta);
	e = put_part(u, &prof, sha, "application/zstd", meta, nmeta, res);
	if (!e)
		e = put_part(u, &side, side_sha, "application/json", meta, nmeta, res);
	if (!e)
		*bytes = prof.size + side.size;
out:
	close_part(&prof);
	close_part(&side);
	return e;
}

/* --- the queue ----------------------------------------------------------- */

/* warn_skipped - once per entry: what the spool would not open. */
static void warn_skipped(struct uploader *u, const struct spool_skipped *sk)
{
	struct uploader_event ev = { .kind = UPLOADER_WARNING };
	char msg[NAME_MAX + 160];

	if (!sk->n || !strcmp(sk->first, u->skipped_warned))
		return;
	snprintf(u->skipped_warned, sizeof(u->skipped_warned), "%s", sk->first);
	snprintf(msg, sizeof(msg),
		 "%s in the spool is not a regular file: skipped, never opened (%llu such)",
		 sk->first, (unsigned long long)sk->n);
	ev.name = sk->first;
	ev.message = msg;
	emit(u, &ev);
}

/* next_capture - the oldest complete capture not marked failed, into
 * @name; counts pending and failed for the status. Returns 1 when there
 * is one, 0 when none, or a negative errno. */
static int next_capture(struct uploader *u, char *name, size_t len)
{
	struct spool_item *items = NULL;
	struct spool_skipped skipped;
	uint64_t pending = 0, failed = 0;
	size_t n = 0, i;
	int e, found = 0;

	e = spool_list_skipping(u->o.spool_dir, &items, &n, &skipped);
	if (e == -ENOENT)
		e = 0;
	else if (!e)
		warn_skipped(u, &skipped);
	for (i = 0; !e && i < n; i++) {
		if (!items[i].sidecar)
			continue; /* still being written */
		if (items[i].failed) {
			failed++;
			continue;
		}
		if (!found++)
			snprintf(name, len, "%s", items[i].name);
		pending++;
	}
	free(items);
	pthread_mutex_lock(&u->lock);
	if (!e) {
		u->st.pending = pending;
		u->st.failed = failed;
	}
	u->st.scans++;
	pthread_mutex_unlock(&u->lock);
	return e ? e : found > 0;
}

/* wait_for - sleep until kicked, stopped or @ns passed (0: until kicked).
 * Returns false when stopping. Called with u->lock held. */
static bool wait_for(struct uploader *u, int64_t ns, bool retry_wakes)
{
	struct timespec until;
	int64_t deadline = now_ns(CLOCK_MONOTONIC) + ns;

	until.tv_sec = deadline / NSEC_PER_SEC;
	until.tv_nsec = deadline % NSEC_PER_SEC;
	while (!u->stop && !(retry_wakes ? u->retry_now : u->kicked || u->retry_now)) {
		if (pthread_cond_timedwait(&u->wake, &u->lock, &until) == ETIMEDOUT)
			break;
	}
	u->kicked = false;
	u->retry_now = false;
	return !u->stop;
}

static void record_error(struct uploader *u, const char *msg)
{
	snprintf(u->st.last_error, sizeof(u->st.last_error), "%s", msg);
	u->st.last_error_real_ns = now_ns(CLOCK_REALTIME);
}

static void on_sent(struct uploader *u, const char *name, const char *key, uint64_t bytes)
{
	struct uploader_event ev = {
		.kind = UPLOADER_SENT, .name = name, .key = key, .bytes = bytes
	};
	char msg[384], url[sizeof(u->st.last_sent_url)];
	int e;

	if (upload_object_url(&u->o.backend, key, url, sizeof(url)))
		snprintf(url, sizeof(url), "%s", key);
	ev.url = url;
	/* remembered before the capture leaves: its spool path then says where it went */
	spool_note_sent(u->o.spool_dir, name, url);
	e = spool_remove(u->o.spool_dir, name);
	pthread_mutex_lock(&u->lock);
	snprintf(u->st.last_sent, sizeof(u->st.last_sent), "%s", name);
	snprintf(u->st.last_sent_url, sizeof(u->st.last_sent_url), "%s", url);
	u->st.sent++;
	u->st.bytes_sent += bytes;
	u->st.failures_in_a_row = 0;
	pthread_mutex_unlock(&u->lock);
	emit(u, &ev);
	if (e) {
		snprintf(msg, sizeof(msg), "%s was sent but could not leave the spool: %s", name,
			 strerror(-e));
		ev = (struct uploader_event){ .kind = UPLOADER_WARNING,
					      .name = name,
					      .message = msg };
		emit(u, &ev);
	}
}

static void on_permanent(struct uploader *u, const char *name, const struct upload_result *res)
{
	struct uploader_event ev = { .kind = UPLOADER_FAILED, .name = name, .message = res->msg };
	int e = spool_mark_failed(u->o.spool_dir, name, res->msg);

	pthread_mutex_lock(&u->lock);
	record_error(u, res->msg);
	u->st.failures_in_a_row = 0;
	pthread_mutex_unlock(&u->lock);
	emit(u, &ev);
	if (e && e != -ENOENT) {
		ev.kind = UPLOADER_WARNING;
		ev.message = "could not mark it failed; it will be tried again";
		emit(u, &ev);
	}
}

/* on_transient - report, then back off. Returns false when stopping. */
static bool on_transient(struct uploader *u, const char *name, const struct upload_result *res)
{
	struct uploader_event ev = { .kind = UPLOADER_RETRY, .name = name, .message = res->msg };
	bool go_on;

	pthread_mutex_lock(&u->lock);
	record_error(u, res->msg);
	u->st.transient_failures++;
	ev.failures = ++u->st.failures_in_a_row;
	ev.delay_ns = backoff_delay_ns(u->o.retry_min_ns, u->o.retry_max_ns, ev.failures,
				       backoff_random());
	u->st.next_try_real_ns = now_ns(CLOCK_REALTIME) + (int64_t)ev.delay_ns;
	pthread_mutex_unlock(&u->lock);
	emit(u, &ev);

	pthread_mutex_lock(&u->lock);
	go_on = wait_for(u, (int64_t)ev.delay_ns, true);
	u->st.next_try_real_ns = 0;
	pthread_mutex_unlock(&u->lock);
	return go_on;
}

/* make_safe - @res's message as the log, the status and the .failed
 * marker may show it: a server chose part of it (http_request.c makes its
 * part safe already; this covers every backend). */
static void make_safe(struct upload_result *res)
{
	char raw[sizeof(res->msg)];

	if (safe_text_is_safe(res->msg, strlen(res->msg)))
		return;
	memcpy(raw, res->msg, sizeof(raw));
	safe_text_str(raw, res->msg, sizeof(res->msg));
}

/* send_next - one capture, if any. Returns 1 when one was tried, 0 when
 * the queue is empty, -1 when stopping. */
static int send_next(struct uploader *u)
{
	char name[NAME_MAX + 1], key[UPLOAD_KEY_MAX] = "";
	struct upload_result res;
	uint64_t bytes = 0;
	int e = next_capture(u, name, sizeof(name));

	if (e <= 0) {
		if (e < 0) {
			pthread_mutex_lock(&u->lock);
			record_error(u, "cannot list the spool");
			pthread_mutex_unlock(&u->lock);
		}
		return 0;
	}
	pthread_mutex_lock(&u->lock);
	snprintf(u->st.in_flight, sizeof(u->st.in_flight), "%s", name);
	pthread_mutex_unlock(&u->lock);
	e = send_capture(u, name, &res, key, sizeof(key), &bytes);
	make_safe(&res);
	pthread_mutex_lock(&u->lock);
	u->st.in_flight[0] = '\0';
	pthread_mutex_unlock(&u->lock);
	if (!e)
		on_sent(u, name, key, bytes);
	else if (__atomic_load_n(&u->abort, __ATOMIC_RELAXED))
		return -1;
	else if (res.outcome == UPLOAD_PERMANENT)
		on_permanent(u, name, &res);
	else if (!on_transient(u, name, &res))
		return -1;
	return 1;
}

static void *run(void *arg)
{
	struct uploader *u = arg;
	bool failed_too;
	int r;

	for (;;) {
		while ((r = send_next(u)) > 0)
			;
		if (r < 0)
			break;
		pthread_mutex_lock(&u->lock);
		if (!wait_for(u, (int64_t)u->o.rescan_ns, false)) {
			pthread_mutex_unlock(&u->lock);
			break;
		}
		failed_too = u->retry_failed;
		u->retry_failed = false;
		pthread_mutex_unlock(&u->lock);
		if (failed_too)
			spool_clear_failed(u->o.spool_dir, NULL);
	}
	return NULL;
}

/* --- the handle ----------------------------------------------------------- */

/* init_wake - a condition variable timed on the monotonic clock (waits
 * are computed with it; a clock step must not cut a backoff short). */
static void init_wake(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

/* own - replace the borrowed string *@s by a copy of it. */
static int own(struct uploader *u, const char **s)
{
	char *c;

	if (!*s)
		return 0;
	if (u->nstrings == sizeof(u->strings) / sizeof(u->strings[0]) || !(c = strdup(*s)))
		return -ENOMEM;
	u->strings[u->nstrings++] = c;
	*s = c;
	return 0;
}

/* own_all - copies of every string of the options, so the caller may
 * free its configuration (a reload) while the thread runs. */
static int own_all(struct uploader *u)
{
	struct upload_config *c = &u->o.backend;
	const char **all[] = {
		&u->o.spool_dir,
		&u->o.host,
		&c->url,
		&c->dir,
		&c->base,
		&c->bucket,
		&c->account,
		&c->container,
		&c->prefix,
		&c->endpoint,
		&c->region,
		&c->access_key_id.file,
		&c->access_key_id.env,
		&c->secret_key.file,
		&c->secret_key.env,
		&c->session_token.file,
		&c->session_token.env,
		&c->sas_token.file,
		&c->sas_token.env,
		&c->auth_header.file,
		&c->auth_header.env,
		&c->ca_file,
	};
	size_t i;
	int e = 0;

	for (i = 0; !e && i < sizeof(all) / sizeof(all[0]); i++)
		e = own(u, all[i]);
	return e;
}

int uploader__start(const struct uploader_options *o, struct uploader **out, char *err,
		    size_t errlen)
{
	struct uploader *u;
	int e;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->o = *o;
	if (own_all(u)) {
		while (u->nstrings)
			free(u->strings[--u->nstrings]);
		free(u);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	u->o.backend.abort = &u->abort;
	if (!u->o.rescan_ns)
		u->o.rescan_ns = 60 * NSEC_PER_SEC;
	pthread_mutex_init(&u->lock, NULL);
	init_wake(&u->wake);
	u->ops = upload_backend__ops(o->backend.scheme);
	if (!u->ops) {
		snprintf(err, errlen, "no backend configured");
		e = -EINVAL;
		goto fail;
	}
	/* libcurl's heap is wiped on free only if that is set before any
	 * other curl call: here, before the thread exists */
	if (o->backend.scheme != UPLOAD_FILE) {
		e = scrub__curl_init();
		if (e == -ELIBACC)
			snprintf(err, errlen, "loading libcurl: %s", curl_lib__error());
		else if (e)
			snprintf(err, errlen, "libcurl could not be initialised");
		if (e)
			goto fail;
	}
	e = u->ops->open(&u->o.backend, &u->backend, err, errlen);
	if (e)
		goto fail;
	e = -pthread_create(&u->thread, NULL, run, u);
	if (e) {
		snprintf(err, errlen, "starting the uploader: %s", strerror(-e));
		goto fail;
	}
	u->started = true;
	*out = u;
	return 0;
fail:
	uploader__stop(u);
	return e;
}

static void wake(struct uploader *u, bool retry, bool failed_too)
{
	pthread_mutex_lock(&u->lock);
	u->kicked = true;
	u->retry_now |= retry;
	u->retry_failed |= failed_too;
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
}

void uploader__kick(struct uploader *u)
{
	if (u)
		wake(u, false, false);
}

void uploader__retry(struct uploader *u, bool failed_too)
{
	if (u)
		wake(u, true, failed_too);
}

void uploader__status(struct uploader *u, struct uploader_status *out)
{
	pthread_mutex_lock(&u->lock);
	*out = u->st;
	pthread_mutex_unlock(&u->lock);
}

void uploader__stop(struct uploader *u)
{
	if (!u)
		return;
	if (u->started) {
		__atomic_store_n(&u->abort, 1, __ATOMIC_RELAXED);
		pthread_mutex_lock(&u->lock);
		u->stop = true;
		pthread_cond_signal(&u->wake);
		pthread_mutex_unlock(&u->lock);
		pthread_join(u->thread, NULL);
	}
	if (u->backend)
		u->ops->close(u->backend);
	pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	while (u->nstrings)
		free(u->strings[--u->nstrings]);
	free(u);
}
