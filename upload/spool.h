/* spool.h - the spool directory every capture is written to first, its
 * bounds, and the state of each capture on its way to the backend.
 *
 * A capture is a NAME.pb.zst file and its NAME.json sidecar; names start
 * with the UTC time the capture started (20261122T061328Z-...), so the
 * order of names is the order of age. The writer (trapd/atomic_file.c)
 * renames each file into place complete, the profile first and the
 * sidecar last: a capture is ready for upload once its sidecar is there.
 * A capture the backend refused for good gets a NAME.failed marker (the
 * reason, one line) and is not tried again until asked. Once the backend
 * has confirmed a capture, it leaves the spool: profile first, then
 * sidecar and marker, so a crash in between leaves nothing that looks
 * like a capture still to send. Files of other names are left alone, but
 * their bytes count.
 *
 * Bounds: at most so many bytes and so many captures. When a new capture
 * would leave the spool over either, the oldest captures are dropped
 * (each one reported to the caller, who logs and counts it).
 */
#ifndef TRAPD_SPOOL_H
#define TRAPD_SPOOL_H

#include <limits.h>
#include <stdbool.h>
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

/* A capture in the spool, as spool_list sees it. */
struct spool_item {
	char name[NAME_MAX + 1]; /* NAME.pb.zst */
	uint64_t bytes;		 /* of the profile alone */
	bool sidecar;		 /* NAME.json is there: complete */
	bool failed;		 /* NAME.failed is there: refused for good */
};

/* spool_list - every capture of @dir, oldest first, into a new array
 * *@items (the caller frees it) of *@n. Returns 0 or a negative errno
 * (-ENOENT: the spool is not created yet). */
int spool_list(const char *dir, struct spool_item **items, size_t *n);

/* spool_mark_failed - write NAME.failed for the capture @name with
 * @reason (one line). Returns 0 or a negative errno. */
int spool_mark_failed(const char *dir, const char *name, const char *reason);

/* spool_read_failed - the reason in @name's marker into @buf. Returns 0
 * or a negative errno (-ENOENT: none). */
int spool_read_failed(const char *dir, const char *name, char *buf, size_t len);

/* spool_clear_failed - remove @name's marker, or every marker when @name
 * is NULL. Returns how many were removed, or a negative errno. */
int spool_clear_failed(const char *dir, const char *name);

/* spool_remove - the capture @name leaves the spool (it is stored
 * elsewhere now): profile, then sidecar, then marker. Returns 0 or a
 * negative errno. */
int spool_remove(const char *dir, const char *name);

/* What spool_recover did after an unclean stop. */
struct spool_recovery {
	uint64_t temporaries; /* half-written NAME.tmp.PID files removed */
	uint64_t leftovers;   /* sidecars and markers of captures already sent, removed */
	uint64_t sidecars;    /* profiles whose sidecar was never written, given one */
};

/* spool_recover - make @dir consistent before anything else uses it:
 * remove what a writer killed midway left (temporaries of processes that
 * are gone), what a removal killed midway left (a sidecar or marker
 * without its profile), and give a profile without a sidecar a minimal
 * one ("recovered": true), so nothing is lost and the uploader sends it.
 * Returns 0 or a negative errno with @err filled. */
int spool_recover(const char *dir, struct spool_recovery *out, char *err, size_t errlen);

#endif
