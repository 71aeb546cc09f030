/* spool.h - the spool directory every capture is written to first, and
 * its bounds: at most so many bytes and so many captures. When a new
 * capture would leave it over either bound, the oldest captures are
 * dropped (each one reported to the caller, who logs and counts it).
 *
 * A capture is a NAME.pb.zst file and its NAME.json sidecar; names start
 * with the UTC time the capture started (20261122T061328Z-...), so the
 * order of names is the order of age. Files of other names are left
 * alone, but their bytes count.
 */
#ifndef TRAPD_SPOOL_H
#define TRAPD_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_SCAN_MAX 100000 /* directory entries looked at */

struct spool_usage {
	uint64_t captures;
	uint64_t bytes;
};

/* Called for each capture dropped: its .pb.zst name and the bytes freed. */
typedef void (*spool_drop_fn)(const char *name, uint64_t bytes, void *ctx);

/* spool_usage - captures and bytes in @dir. Returns 0 or a negative errno
 * (-ENOENT: not created yet). */
int spool_usage(const char *dir, struct spool_usage *out);

/* spool_enforce - drop the oldest captures of @dir until it holds at most
 * @max_bytes and @max_files captures, never dropping @keep (the name of
 * the capture just written; NULL: none). Calls @fn for every drop.
 * Returns how many were dropped, or a negative errno (@err says what). */
int spool_enforce(const char *dir, uint64_t max_bytes, uint64_t max_files, const char *keep,
		  spool_drop_fn fn, void *ctx, char *err, size_t errlen);

#endif
