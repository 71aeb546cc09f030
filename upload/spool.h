/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* spool.h - the spool directory every capture is written to first, its
 * bounds, and the state of each capture on its way to the backend.
 *
 * The directory is trusted only when nobody else can change it: every
 * function here opens it O_DIRECTORY|O_NOFOLLOW and refuses it (-EPERM,
 * with a message saying what to fix) unless it is owned by our euid and
 * not writable by its group or others. That suffices for what is inside:
 * only the owner of such a directory can add, rename or remove entries in
 * it, so no other user can plant a symbolic link or a FIFO at a name we
 * are about to use. Every file is then opened relative to that descriptor
 * with O_NOFOLLOW (and O_NONBLOCK when read), written through a temporary
 * renamed into place, and an entry that is not a regular file is never
 * opened, counted as a capture or given a sidecar.
 *
 * The spool owns its names: SEQ-WHEN-RULE-ID.pb.zst (spool_next_name),
 * SEQ a zero-padded number one above both the highest in the directory
 * and the last one given out (kept in the spool's .sequence file), WHEN
 * the UTC time the capture started (for humans and object keys). Age is
 * the sequence, not the time: after the clock steps back (a VM resumed, NTP)
 * the newest capture is still the last one dropped and the last one sent.
 * Names of earlier versions (WHEN-RULE-ID.pb.zst, no sequence) are still
 * read; they come before every sequenced name, in the order of their names.
 *
 * A capture is a NAME.pb.zst file and its NAME.json sidecar. The writer
 * (trapd/util/atomic_file.c) renames each file into place complete, the
 * profile first and the sidecar last: a capture is ready for upload once
 * its sidecar is there. A capture the backend refused for good gets a
 * NAME.failed marker (the reason, one line) and is not tried again until
 * asked. Once the backend has confirmed a capture, it leaves the spool:
 * profile first, then sidecar and marker, so a crash in between leaves
 * nothing that looks like a capture still to send. Files of other names
 * are left alone, but their bytes count.
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
#define SPOOL_SEQ_DIGITS 10   /* zero-padded width of a new name's sequence */

/* spool_dir_open - @dir as a trusted spool (see above): a directory, not a
 * symbolic link, owned by our euid, not writable by group or others. With
 * @create, a missing one is made 0750 first. Returns a descriptor
 * (O_DIRECTORY, close-on-exec; the caller closes it) or a negative errno:
 * -EPERM when it is not safe (@err: "spool_dir /x: writable by others
 * (mode 0777); make it 0750 and owned by root"), -ENOENT when missing and
 * not @create, -ELOOP for a symbolic link, -ENOTDIR. */
int spool_dir_open(const char *dir, bool create, char *err, size_t errlen);

/* spool_next_name - the name for a capture started at @real_ns (UTC
 * nanoseconds) by @what (a rule's name, "manual"; bytes other than
 * [A-Za-z0-9_.-] become '_') with id @id (its first 8 characters are
 * used): SEQ-YYYYMMDDTHHMMSSZ-WHAT-ID8.pb.zst into @out, SEQ one above the
 * highest sequence of any entry in @dir and the last one given out (so a
 * name given out whose capture is not written yet is never given again).
 * Creates @dir (0750) when missing and checks it as spool_dir_open does.
 * Returns 0 or a negative errno (@err says what). */
int spool_next_name(const char *dir, int64_t real_ns, const char *what, const char *id, char *out,
		    size_t len, char *err, size_t errlen);

/* spool_name_seq - the sequence number @name starts with (*@seq); false
 * for a name of an earlier version, which has none. */
bool spool_name_seq(const char *name, uint64_t *seq);

/* spool_name_date - the capture's UTC start date "YYYYMMDD" (8 bytes, not
 * terminated) from a spool name, sequenced or not, into @ymd. False when
 * @name is not a spool name. */
bool spool_name_date(const char *name, char ymd[8]);

/* spool_open_file - @name in the spool @dir, opened for reading without
 * following a symbolic link or blocking on a FIFO, and only when it is a
 * regular file (-EINVAL otherwise). Returns the descriptor (the caller
 * closes it) and its size in *@size, or a negative errno. */
int spool_open_file(const char *dir, const char *name, uint64_t *size);

struct spool_usage {
	uint64_t captures;
	uint64_t bytes;
};

/* Called for each capture dropped: its .pb.zst name and the bytes freed. */
typedef void (*spool_drop_fn)(const char *name, uint64_t bytes, void *ctx);

/* spool_usage - captures and bytes in @dir (looked at, never opened, so
 * a directory spool_dir_open would refuse is still measured). Returns 0
 * or a negative errno (-ENOENT: not created yet). */
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

/* Entries with a capture's name that are not regular files (a FIFO, a
 * symbolic link, a directory): never opened, never listed. */
struct spool_skipped {
	uint64_t n;
	char first[NAME_MAX + 1]; /* the oldest of them */
};

/* spool_list - every capture of @dir, oldest first, into a new array
 * *@items (the caller frees it) of *@n. Returns 0 or a negative errno
 * (-ENOENT: the spool is not created yet; -EPERM: not a trusted
 * directory). */
int spool_list(const char *dir, struct spool_item **items, size_t *n);

/* spool_list_skipping - spool_list, and what it skipped into @skipped. */
int spool_list_skipping(const char *dir, struct spool_item **items, size_t *n,
			struct spool_skipped *skipped);

/* spool_mark_failed - write NAME.failed for the capture @name with
 * @reason (one line). Returns 0 or a negative errno. */
int spool_mark_failed(const char *dir, const char *name, const char *reason);

/* spool_read_failed - the reason in @name's marker into @buf. Returns 0
 * or a negative errno (-ENOENT: none). */
int spool_read_failed(const char *dir, const char *name, char *buf, size_t len);

/* spool_clear_failed - remove @name's marker, or every marker when @name
 * is NULL. Returns how many were removed, or a negative errno. */
int spool_clear_failed(const char *dir, const char *name);

/* spool_note_sent - remember that the capture @name is stored at @url
 * now, in the spool's .sent file (the last SPOOL_SENT_KEEP captures sent),
 * so that whoever still holds its spool path can be told where it went.
 * Returns 0 or a negative errno. */
#define SPOOL_SENT_KEEP 128
int spool_note_sent(const char *dir, const char *name, const char *url);

/* spool_find_sent - the URL spool_note_sent remembered for @name into
 * @url. Returns 0, -ENOENT (not remembered) or another negative errno
 * (-EPERM: @dir is not a trusted spool, so nothing in it is believed). */
int spool_find_sent(const char *dir, const char *name, char *url, size_t len);

/* spool_remove - the capture @name leaves the spool (it is stored
 * elsewhere now): profile, then sidecar, then marker. Returns 0 or a
 * negative errno. */
int spool_remove(const char *dir, const char *name);

/* What spool_recover did after an unclean stop. */
struct spool_recovery {
	uint64_t temporaries;	      /* half-written NAME.tmp.PID files removed */
	uint64_t leftovers;	      /* sidecars and markers of captures already sent, removed */
	uint64_t sidecars;	      /* profiles whose sidecar was never written, given one */
	struct spool_skipped skipped; /* not regular files: left alone */
};

/* spool_recover - make @dir consistent before anything else uses it:
 * remove what a writer killed midway left (temporaries of processes that
 * are gone), what a removal killed midway left (a sidecar or marker
 * without its profile), and give a profile without a sidecar a minimal
 * one ("recovered": true), so nothing is lost and the uploader sends it.
 * An entry that is not a regular file gets no sidecar (out->skipped).
 * Returns 0 (also when @dir does not exist yet) or a negative errno with
 * @err filled. */
int spool_recover(const char *dir, struct spool_recovery *out, char *err, size_t errlen);

#endif
