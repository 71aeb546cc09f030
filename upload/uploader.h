/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uploader.h - the thread that moves captures from the spool to the
 * backend, so the daemon's event loop never waits for a network.
 *
 * Ownership: the daemon's thread writes captures into the spool and keeps
 * its bounds (spool.h); the uploader's thread reads them, sends them and
 * removes each one once the backend has confirmed it. They share only the
 * directory and struct uploader's status (under its mutex). Captures go
 * oldest first, profile then sidecar, under content-derived keys
 * (object.h), so a capture sent twice is stored once.
 *
 *   - confirmed: the capture leaves the spool;
 *   - transient failure (refused, timeout, 5xx): the same capture is tried
 *     again after a backoff (backoff.h) that grows to retry_max; nothing
 *     behind it goes first, since the backend is what is failing;
 *   - permanent failure (403, bad TLS, a file that cannot be read): the
 *     capture is marked failed in the spool (spool_mark_failed), reported,
 *     and skipped until uploader__retry(.., true).
 *
 * Everything the thread does is reported through @on_event (on the
 * uploader's thread): upload/ prints nothing itself.
 */
#ifndef TRAPD_UPLOAD_UPLOADER_H
#define TRAPD_UPLOAD_UPLOADER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upload/backend.h"

enum uploader_event_kind {
	UPLOADER_SENT,	  /* a capture is stored; it left the spool */
	UPLOADER_RETRY,	  /* a transient failure; next try after @delay_ns */
	UPLOADER_FAILED,  /* a permanent failure; marked and skipped */
	UPLOADER_WARNING, /* something odd that stops nothing (a bad sidecar) */
};

struct uploader_event {
	enum uploader_event_kind kind;
	const char *name;    /* the spool capture, NAME.pb.zst */
	const char *key;     /* its object key (SENT) */
	const char *url;     /* where it is now (SENT): upload_object_url */
	uint64_t bytes;	     /* profile and sidecar (SENT) */
	uint64_t delay_ns;   /* RETRY */
	unsigned failures;   /* RETRY: in a row */
	const char *message; /* RETRY, FAILED, WARNING */
};

/* Reads a capture's sidecar into metadata items (trapd/ knows its format).
 * Returns 0 or a negative errno with @err filled; the capture is sent all
 * the same, with what metadata the uploader has. */
typedef int (*uploader_meta_fn)(const char *sidecar_path, struct upload_meta *meta, size_t max,
				size_t *n, char *err, size_t errlen);

struct uploader_options {
	struct upload_config backend; /* copied, strings and all */
	const char *spool_dir;
	const char *host; /* the first part of object keys */
	uint64_t retry_min_ns;
	uint64_t retry_max_ns;
	uint64_t rescan_ns; /* look at the spool this often even unprompted */
	uploader_meta_fn read_meta;
	void (*on_event)(const struct uploader_event *ev, void *ctx);
	void *ctx;
};

/* What `trapd status` shows. */
struct uploader_status {
	uint64_t pending;  /* complete captures waiting, the one in flight included */
	uint64_t failed;   /* marked failed, waiting for a retry by hand */
	uint64_t sent;	   /* since start */
	uint64_t scans;	   /* times the spool was looked at */
	uint64_t attempts; /* requests for captures, since start */
	uint64_t transient_failures;
	uint64_t bytes_sent;
	char in_flight[NAME_MAX + 1]; /* "" when idle */
	char last_sent[NAME_MAX + 1]; /* the spool name of the last capture sent */
	char last_sent_url[1024];     /* and where it is now */
	unsigned failures_in_a_row;
	int64_t next_try_real_ns; /* 0: not waiting */
	char last_error[384];	  /* "" when none yet */
	int64_t last_error_real_ns;
};

struct uploader;

/* uploader__start - open the backend (reading its secrets) and start the
 * thread. Returns 0 or a negative errno with @err filled (-EINVAL: a
 * setting or secret is bad). */
int uploader__start(const struct uploader_options *o, struct uploader **out, char *err,
		    size_t errlen);

/* uploader__kick - a capture was added to the spool: look now. */
void uploader__kick(struct uploader *u);

/* uploader__retry - try now rather than after the backoff; with
 * @failed_too, captures marked failed are tried again as well. */
void uploader__retry(struct uploader *u, bool failed_too);

/* uploader__status - a copy of the current status. */
void uploader__status(struct uploader *u, struct uploader_status *out);

/* uploader__stop - stop the request under way (the capture stays in the
 * spool, to be sent again), join the thread, close the backend, free
 * @u. NULL is fine. */
void uploader__stop(struct uploader *u);

#endif
