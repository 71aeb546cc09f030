/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fetch.h - a capture's files read from a store into the local cache:
 * the profile under its SHA-256 (checked against its key: a store that
 * hands back other bytes is refused), its sidecar beside it, so that
 * every command that reads a capture file reads one from a store too.
 */
#ifndef TRAPD_FLEET_FETCH_H
#define TRAPD_FLEET_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "trapd/fleet/fleet_cache.h"
#include "trapd/fleet/store.h"

#define FLEET_SIDECAR_MAX (4u << 20) /* bytes of a sidecar read */
/* Bytes of a profile read from a store, compressed and decompressed: the
 * largest capture trapd writes is far under it (the sampler keeps at most
 * 256 K distinct samples, about 180 bytes each in pprof), so more is a
 * store's doing, refused before it costs more than this. */
#define FLEET_PROFILE_MAX (64ull << 20)

/* fleet_fetch__sidecar - the sidecar of capture @key ("HOST/Y/M/D/SHA")
 * into a new string *@text (*@len bytes; the caller frees it): from the
 * cache when an entry for @store, @key and @etag is there (@etag "": not
 * cached), else from the store (and cached); *@cached says which. Returns
 * 0, -ENOENT (no such object), or -EIO with @err saying why. @cache may
 * be NULL. */
int fleet_fetch__sidecar(struct fleet_store *s, struct fleet_cache *cache, const char *key,
			 const char *etag, char **text, size_t *len, bool *cached, char *err,
			 size_t errlen);

/* fleet_fetch__profile - capture @key's profile as a file in @cache:
 * its path in @path ("CACHE/SHA.pb.zst"), and, @with_sidecar, SHA.json
 * beside it when the store has the sidecar (for the commands that read
 * it next to a capture; a merge does not). Returns 0, -ENOENT, -EBADMSG (its
 * bytes are not its digest) or -EIO, with @err saying why. */
int fleet_fetch__profile(struct fleet_store *s, struct fleet_cache *cache, const char *key,
			 bool with_sidecar, char *path, size_t len, char *err, size_t errlen);

/* fleet_fetch__profiles - fleet_fetch__profile (no sidecar) of the @n
 * captures @keys[0..n), @jobs at a time (threads, each on a connection
 * it keeps), so that they are in @cache when they are read one by one.
 * What fails is not fatal here: the reader meets it again, with its
 * message. Returns how many are in the cache. */
size_t fleet_fetch__profiles(struct fleet_store *s, struct fleet_cache *cache,
			     const char *const *keys, size_t n, unsigned jobs);

/* fleet_fetch__resolve - @arg as a local capture file: a path stays as
 * it is; a capture's URL (fleet_store__split_url) is fetched into the
 * default cache and its path returned. Returns 0, or a negative errno
 * with @err saying why (-EINVAL: a bad URL or setting, exit status 2). */
int fleet_fetch__resolve(const char *arg, char *path, size_t len, char *err, size_t errlen);

#endif
