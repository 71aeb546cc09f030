/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fleet_cache.h - what trapd read from a store, kept on local disk so
 * that the next query does not read it again: sidecars under a name made
 * of the store, the key and the object's ETag (a changed object has
 * another ETag, so a stale copy is never used), and profiles under their
 * own SHA-256 (verified when fetched, so the name is the content).
 *
 * The folder is TRAPD_CACHE_DIR, else $XDG_CACHE_HOME/trapd, else
 * $HOME/.cache/trapd; created 0700, and refused when it is a link, not
 * the user's own, or open to others (a cache another user can write
 * could hand trapd a profile of their choosing). Its size is bounded:
 * when it passes its cap the entries used longest ago go first.
 *
 * Entries may be read and written from several threads at once (a
 * listing's fetches); opening and closing the cache may not.
 */
#ifndef TRAPD_FLEET_CACHE_H
#define TRAPD_FLEET_CACHE_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define FLEET_CACHE_DEFAULT_BYTES (512ull << 20)

struct fleet_cache {
	int dirfd;
	char path[PATH_MAX];
	uint64_t max_bytes;
	uint64_t hits, misses, stored;
	uint64_t since_trim; /* bytes committed since the last trim */
	pthread_mutex_t trim_lock;
};

/* fleet_cache__open - the cache at @dir (NULL: the default above), of at
 * most @max_bytes. Returns 0 or a negative errno with @err saying why. */
int fleet_cache__open(const char *dir, uint64_t max_bytes, struct fleet_cache **out, char *err,
		      size_t errlen);

/* fleet_cache__close - trim the cache to its cap and free @c; NULL is
 * fine. */
void fleet_cache__close(struct fleet_cache *c);

/* fleet_cache__name - the entry name of @parts[0..n) (store, key, ETag)
 * hashed, with @suffix, into @out (at least 80 bytes). */
void fleet_cache__name(const char *const *parts, size_t n, const char *suffix, char *out,
		       size_t len);

/* fleet_cache__open_entry - entry @name for reading (and marks it used).
 * Returns an fd, or -ENOENT when it is not there. */
int fleet_cache__open_entry(struct fleet_cache *c, const char *name);

/* fleet_cache__begin - a new temporary entry to write: its fd, and its
 * name in @tmp (at least 64 bytes). Returns the fd or a negative errno. */
int fleet_cache__begin(struct fleet_cache *c, char *tmp, size_t len);

/* fleet_cache__commit - make temporary @tmp (written through @fd, which
 * this closes) entry @name. Returns 0 or a negative errno (@tmp is gone
 * either way). */
int fleet_cache__commit(struct fleet_cache *c, int fd, const char *tmp, const char *name);

/* fleet_cache__abort - drop temporary @tmp and close @fd. */
void fleet_cache__abort(struct fleet_cache *c, int fd, const char *tmp);

/* fleet_cache__path - the path of entry @name into @out. Returns @out. */
const char *fleet_cache__path(const struct fleet_cache *c, const char *name, char *out, size_t len);

#endif
