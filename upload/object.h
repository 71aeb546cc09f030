/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* object.h - what a capture is called in the store and the metadata it
 * carries there.
 *
 * Object keys are derived from content, so sending a capture twice (a
 * retry after a timeout whose request had in fact arrived, a restart in
 * the middle of an upload) stores the same object again instead of a
 * second one:
 *
 *     PREFIX HOST/YYYY/MM/DD/SHA256.pb.zst     the profile
 *     PREFIX HOST/YYYY/MM/DD/SHA256.json       its sidecar
 *
 * SHA256 is the hex digest of the profile file; the date is the capture's
 * start (from its spool name), so a fleet's captures list by host and day.
 *
 * Metadata names are lower-case words joined by '_' ("trapd_rules",
 * "label_team"). Stores differ in what a name may be: S3 sends
 * x-amz-meta-NAME (any token, lower-cased by the store), Azure Blob
 * x-ms-meta-NAME (a C identifier), a web server X-Trapd-Name. Each
 * backend spells names with upload_meta__header.
 */
#ifndef TRAPD_UPLOAD_OBJECT_H
#define TRAPD_UPLOAD_OBJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "upload/backend.h"

#define UPLOAD_KEY_MAX 1024	   /* S3's limit on a key, in bytes */
#define UPLOAD_META_BYTES_MAX 2048 /* S3's limit on all user metadata */

/* upload_object_key - "HOST/YYYY/MM/DD/@sha256@suffix" for the spool
 * capture @spool_name (which starts with YYYYMMDD) into @out. Characters
 * of @host other than letters, digits, '.', '-' and '_' become '_'.
 * Returns 0, -EINVAL (not a spool name) or -ENAMETOOLONG. */
int upload_object_key(const char *host, const char *spool_name, const char *sha256,
		      const char *suffix, char *out, size_t len);

/* upload_meta__name - @in as a metadata name: lower-case, and every run
 * of characters other than letters and digits one '_' ("team.name" ->
 * "team_name"); a leading digit gets a '_' before it. Returns 0 or
 * -EINVAL (nothing left, or too long for struct upload_meta). */
int upload_meta__name(const char *in, char *out, size_t len);

/* upload_meta__add - append @name = @value to @meta (*@n of @max), the
 * value made safe for any store: trimmed, printable ASCII kept, every
 * other byte and '%' as %XX. Returns 0, -EINVAL (bad name), -E2BIG (no
 * room: more than @max items or UPLOAD_META_BYTES_MAX in all). */
int upload_meta__add(struct upload_meta *meta, size_t *n, size_t max, const char *name,
		     const char *value);

enum upload_meta_style {
	UPLOAD_META_S3,	    /* x-amz-meta-trapd-rules */
	UPLOAD_META_AZBLOB, /* x-ms-meta-trapd_rules */
	UPLOAD_META_HTTP,   /* X-Trapd-Rules (the "trapd" word not repeated) */
};

/* upload_meta__header - the header name of @name in @style, into @out.
 * Returns @out. */
const char *upload_meta__header(const char *name, enum upload_meta_style style, char *out,
				size_t len);

#endif
