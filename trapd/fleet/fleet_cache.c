// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fleet_cache.c - a bounded local cache of what was read from a store
 * (fleet_cache.h). */
#include "trapd/fleet/fleet_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upload/sha256.h"

#define TRIM_ENTRIES_MAX (1u << 20)

static int default_dir(char *out, size_t len)
{
	const char *v = getenv("TRAPD_CACHE_DIR");
	int n;

	if (v && *v)
		n = snprintf(out, len, "%s", v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v == '/')
		n = snprintf(out, len, "%s/trapd", v);
	else if ((v = getenv("HOME")) && *v == '/')
		n = snprintf(out, len, "%s/.cache/trapd", v);
	else
		return -ENOENT;
	return n < (int)len ? 0 : -ENAMETOOLONG;
}

/* make_dirs - mkdir -p @path, the last one 0700. */
static void make_dirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	mkdir(path, 0700);
}

/* trusted - whether directory @fd is ours alone. */
static int trusted(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(err, errlen,
			 "cache %s: owned by uid %u with mode %03o; it must be yours and closed "
			 "to others (chmod 700), or give another with TRAPD_CACHE_DIR",
			 path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		return -EPERM;
	}
	return 0;
}

/* trusted_parents - whether every folder above @path is one only its
 * owner (root or us) can rename things in: another user who could would
 * swap the cache for a folder of their own between our check and a read
 * of an entry by its path. A sticky folder (/tmp) is fine: others cannot
 * rename what is ours in it. */
static int trusted_parents(const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX], *slash;
	struct stat st;

	if (!realpath(path, real))
		return -errno;
	while ((slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0'; /* the parent; "/" stays "/" */
		if (stat(real, &st))
			return -errno;
		if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
		    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))) {
			snprintf(err, errlen,
				 "cache %s: %s is open to others (owner %u, mode %03o): give a "
				 "cache only you can change with TRAPD_CACHE_DIR or --cache-dir",
				 path, real, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
			return -EPERM;
		}
		if (slash == real)
			break;
	}
	return 0;
}

int fleet_cache__open(const char *dir, uint64_t max_bytes, struct fleet_cache **out, char *err,
		      size_t errlen)
{
	struct fleet_cache *c = calloc(1, sizeof(*c));
	int e = 0;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->dirfd = -1;
	pthread_mutex_init(&c->trim_lock, NULL);
	c->max_bytes = max_bytes ? max_bytes : FLEET_CACHE_DEFAULT_BYTES;
	if (dir)
		snprintf(c->path, sizeof(c->path), "%s", dir);
	else if ((e = default_dir(c->path, sizeof(c->path))))
		snprintf(err, errlen, "no cache folder: set TRAPD_CACHE_DIR or HOME");
	if (!e) {
		make_dirs(c->path);
		c->dirfd = open(c->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (c->dirfd < 0) {
			e = -errno;
			snprintf(err, errlen, "cache %s: %s", c->path, strerror(errno));
		}
	}
	if (!e)
		e = trusted(c->dirfd, c->path, err, errlen);
	if (!e)
		e = trusted_parents(c->path, err, errlen);
	if (e) {
		fleet_cache__close(c);
		return e;
	}
	*out = c;
	return 0;
}

void fleet_cache__name(const char *const *parts, size_t n, const char *suffix, char *out,
		       size_t len)
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	size_t i;

	sha256_init(&ctx);
	for (i = 0; i < n; i++)
		sha256_update(&ctx, parts[i], strlen(parts[i]) + 1); /* the NUL separates */
	sha256_final(&ctx, d);
	hex_lower(d, sizeof(d), hex);
	snprintf(out, len, "m-%s%s", hex, suffix);
}

int fleet_cache__open_entry(struct fleet_cache *c, const char *name)
{
	int fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		__atomic_fetch_add(&c->misses, 1, __ATOMIC_RELAXED);
		return -ENOENT;
	}
	futimens(fd, NULL); /* used now: the trim keeps it longer */
	__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
	return fd;
}

int fleet_cache__begin(struct fleet_cache *c, char *tmp, size_t len)
{
	static unsigned seq;
	int fd;

	snprintf(tmp, len, ".tmp-%ld-%u", (long)getpid(),
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	fd = openat(c->dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

static void trim(struct fleet_cache *c);

int fleet_cache__commit(struct fleet_cache *c, int fd, const char *tmp, const char *name)
{
	struct stat st;
	uint64_t since;
	int e;

	since = fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
	e = close(fd) ? -errno : 0;

	if (!e && renameat(c->dirfd, tmp, c->dirfd, name))
		e = -errno;
	if (e)
		unlinkat(c->dirfd, tmp, 0);
	else
		__atomic_fetch_add(&c->stored, 1, __ATOMIC_RELAXED);
	/* a long run (a merge of many large profiles) keeps within the cap
	 * as it goes, not only when the cache is closed */
	since = __atomic_add_fetch(&c->since_trim, since, __ATOMIC_RELAXED);
	if (!e && since > c->max_bytes / 4) {
		pthread_mutex_lock(&c->trim_lock);
		if (c->since_trim > c->max_bytes / 4) {
			c->since_trim = 0;
			trim(c);
		}
		pthread_mutex_unlock(&c->trim_lock);
	}
	return e;
}

void fleet_cache__abort(struct fleet_cache *c, int fd, const char *tmp)
{
	if (fd >= 0)
		close(fd);
	unlinkat(c->dirfd, tmp, 0);
}

const char *fleet_cache__path(const struct fleet_cache *c, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", c->path, name);
	return out;
}

/* --- trimming -------------------------------------------------------------- */

struct entry {
	char name[96];
	time_t used;
	uint64_t size;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

/* gather - the cache's entries into *@out (the caller frees it), their
 * total size in *@total. */
static size_t gather(struct fleet_cache *c, struct entry **out, uint64_t *total)
{
	struct entry *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd = dup(c->dirfd);

	*total = 0;
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d)) && n < TRIM_ENTRIES_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			nv = realloc(v, (cap ? 2 * cap : 256) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap = cap ? 2 * cap : 256;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].used = st.st_mtime;
		v[n].size = (uint64_t)st.st_size;
		*total += v[n++].size;
	}
	closedir(d);
	*out = v;
	return n;
}

/* trim - drop the entries used longest ago until the cache is within its
 * cap, down to nine tenths of it so that it is not trimmed at every run. */
static void trim(struct fleet_cache *c)
{
	struct entry *v = NULL;
	uint64_t total;
	size_t n = gather(c, &v, &total), i;

	if (total > c->max_bytes) {
		qsort(v, n, sizeof(*v), by_use);
		for (i = 0; i < n && total > c->max_bytes / 10 * 9; i++)
			if (!unlinkat(c->dirfd, v[i].name, 0))
				total -= v[i].size;
	}
	free(v);
}

void fleet_cache__close(struct fleet_cache *c)
{
	if (!c)
		return;
	if (c->dirfd >= 0) {
		trim(c);
		close(c->dirfd);
	}
	pthread_mutex_destroy(&c->trim_lock);
	free(c);
}
