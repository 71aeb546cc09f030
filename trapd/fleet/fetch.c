// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fetch.c - a capture's files from a store into the cache (fetch.h). */
#include "trapd/fleet/fetch.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trapd/fleet/fleet_capture.h"
#include "trapd/util/read_all.h"
#include "upload/http_request.h"
#include "upload/sha256.h"

/* read_back - what a download wrote to @fd, into a new string. */
static int read_back(int fd, size_t max, char **text, size_t *len)
{
	bool truncated = false;
	int e;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	e = read_all(fd, max, text, len, &truncated);
	if (!e && truncated) {
		free(*text);
		*text = NULL;
		return -EFBIG;
	}
	return e;
}

/* download - @key into a new temporary entry of @cache (or, without a
 * cache, a file in memory): its fd, positioned at 0, and @tmp's name. */
static int download(struct fleet_store *s, struct fleet_cache *cache, const char *key, uint64_t max,
		    char *tmp, size_t tmplen, char *err, size_t errlen)
{
	int fd =
		cache ? fleet_cache__begin(cache, tmp, tmplen) : memfd_create("trapd", MFD_CLOEXEC);
	int e;

	if (fd < 0) {
		e = cache ? fd : -errno;
		snprintf(err, errlen, "%s: no temporary file: %s", key, strerror(-e));
		return e;
	}
	e = fleet_store__get(s, key, fd, max, err, errlen);
	if (e) {
		if (cache)
			fleet_cache__abort(cache, fd, tmp);
		else
			close(fd);
		return e;
	}
	return fd;
}

int fleet_fetch__sidecar(struct fleet_store *s, struct fleet_cache *cache, const char *key,
			 const char *etag, char **text, size_t *len, bool *cached, char *err,
			 size_t errlen)
{
	const char *parts[] = { s->name, key, etag };
	char name[96], tmp[64], object[UPLOAD_KEY_MAX + 8];
	int fd = -1, e;

	*text = NULL;
	*cached = false;
	if (!*etag)
		cache = NULL;
	if (cache) {
		fleet_cache__name(parts, 3, ".json", name, sizeof(name));
		fd = fleet_cache__open_entry(cache, name);
	}
	if (fd >= 0) {
		e = read_back(fd, FLEET_SIDECAR_MAX, text, len);
		close(fd);
		*cached = !e;
		if (!e)
			return 0;
	}
	snprintf(object, sizeof(object), "%s.json", key);
	fd = download(s, cache, object, FLEET_SIDECAR_MAX, tmp, sizeof(tmp), err, errlen);
	if (fd < 0)
		return fd;
	e = read_back(fd, FLEET_SIDECAR_MAX, text, len);
	if (e)
		snprintf(err, errlen, "%s: reading it back: %s", object, strerror(-e));
	if (cache && !e)
		fleet_cache__commit(cache, fd, tmp, name);
	else if (cache)
		fleet_cache__abort(cache, fd, tmp);
	else
		close(fd);
	return e;
}

/* verify - whether the file at @fd has the digest @sha (hex). */
static int verify(int fd, const char *sha)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	int e;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	e = sha256_fd(fd, d, NULL);
	if (e)
		return e;
	hex_lower(d, sizeof(d), hex);
	return strcmp(hex, sha) ? -EBADMSG : 0;
}

/* fetch_sidecar_beside - SHA.json beside the profile: the sidecar, for
 * the commands that read it next to a capture (report). A capture
 * without one is still a profile. */
static void fetch_sidecar_beside(struct fleet_store *s, struct fleet_cache *cache, const char *key,
				 const char *sha)
{
	char name[80], tmp[64], object[UPLOAD_KEY_MAX + 8], err[256];
	int fd;

	snprintf(name, sizeof(name), "%s.json", sha);
	fd = fleet_cache__open_entry(cache, name);
	if (fd >= 0) {
		close(fd);
		return;
	}
	snprintf(object, sizeof(object), "%s.json", key);
	fd = download(s, cache, object, FLEET_SIDECAR_MAX, tmp, sizeof(tmp), err, sizeof(err));
	if (fd >= 0)
		fleet_cache__commit(cache, fd, tmp, name);
}

int fleet_fetch__profile(struct fleet_store *s, struct fleet_cache *cache, const char *key,
			 bool with_sidecar, char *path, size_t len, char *err, size_t errlen)
{
	struct fleet_capture c = { 0 };
	char name[80], tmp[64], object[UPLOAD_KEY_MAX + 8];
	enum fleet_part part;
	int fd, e;

	snprintf(object, sizeof(object), "%s.pb.zst", key);
	if (fleet_key__parse(object, &c, &part)) {
		snprintf(err, errlen, "%s: not a capture's key (HOST/YYYY/MM/DD/SHA256.pb.zst)",
			 object);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s.pb.zst", c.sha256);
	fd = fleet_cache__open_entry(cache, name);
	if (fd < 0) {
		fd = download(s, cache, object, FLEET_PROFILE_MAX, tmp, sizeof(tmp), err, errlen);
		if (fd < 0)
			return fd;
		e = verify(fd, c.sha256);
		if (e) {
			fleet_cache__abort(cache, fd, tmp);
			snprintf(err, errlen, "%s%s: %s", s->url_base, object,
				 e == -EBADMSG
					 ? "its content does not have the SHA-256 its key names: "
					   "refused"
					 : strerror(-e));
			return e == -EBADMSG ? e : -EIO;
		}
		e = fleet_cache__commit(cache, fd, tmp, name);
		if (e) {
			snprintf(err, errlen, "cache %s: %s", cache->path, strerror(-e));
			return -EIO;
		}
	} else {
		close(fd);
	}
	if (with_sidecar)
		fetch_sidecar_beside(s, cache, key, c.sha256);
	fleet_cache__path(cache, name, path, len);
	return 0;
}

#define PREFETCH_JOBS_MAX 32

struct prefetch {
	struct fleet_store *s;
	struct fleet_cache *cache;
	const char *const *keys;
	size_t n, next, fetched;
	pthread_mutex_t lock;
};

static void *prefetcher(void *arg)
{
	struct prefetch *p = arg;
	char path[PATH_MAX], err[256];
	size_t i;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			break;
		if (!fleet_fetch__profile(p->s, p->cache, p->keys[i], false, path, sizeof(path),
					  err, sizeof(err)))
			__atomic_fetch_add(&p->fetched, 1, __ATOMIC_RELAXED);
	}
	http_request__drop_connection();
	return NULL;
}

size_t fleet_fetch__profiles(struct fleet_store *s, struct fleet_cache *cache,
			     const char *const *keys, size_t n, unsigned jobs)
{
	struct prefetch p = { s, cache, keys, n, 0, 0, PTHREAD_MUTEX_INITIALIZER };
	pthread_t t[PREFETCH_JOBS_MAX];
	unsigned i, started = 0;

	for (i = 1; i < jobs && i < PREFETCH_JOBS_MAX && i < n; i++)
		if (!pthread_create(&t[started], NULL, prefetcher, &p))
			started++;
	prefetcher(&p);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return p.fetched;
}

int fleet_fetch__resolve(const char *arg, char *path, size_t len, char *err, size_t errlen)
{
	char spec[1024], key[UPLOAD_KEY_MAX + 16];
	struct fleet_store *s = NULL;
	struct fleet_cache *cache = NULL;
	size_t n;
	int e;

	if (!fleet_store__is_url(arg)) {
		snprintf(path, len, "%s", arg);
		return 0;
	}
	if (fleet_store__split_url(arg, spec, sizeof(spec), key, sizeof(key))) {
		snprintf(err, errlen,
			 "%s: not a capture's URL (STORE/HOST/YYYY/MM/DD/SHA256.pb.zst)", arg);
		return -EINVAL;
	}
	n = strlen(key);
	if (n > 7 && !strcmp(key + n - 7, ".pb.zst"))
		key[n - 7] = '\0';
	e = fleet_store__open(spec, NULL, &s, err, errlen);
	if (!e)
		e = fleet_cache__open(NULL, 0, &cache, err, errlen);
	if (!e)
		e = fleet_fetch__profile(s, cache, key, true, path, len, err, errlen);
	fleet_cache__close(cache);
	fleet_store__close(s);
	return e;
}
