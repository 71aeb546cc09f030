/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* shipping.h - the daemon's side of upload/: the uploader configured from
 * the rules file ([upload], and [global] spool_dir), what it reports
 * logged, and a capture's sidecar read into the metadata its objects
 * carry (names and values in docs/upload.md).
 */
#ifndef TRAPD_SHIPPING_H
#define TRAPD_SHIPPING_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"
#include "upload/uploader.h"

/* shipping__start - recover the spool after an unclean stop (@recover)
 * and start the uploader of @r; *@out stays NULL when @r has no [upload]
 * (captures stay in the spool). Returns 0
 * or a negative errno with @err filled (-EINVAL: a setting or secret is
 * bad). */
int shipping__start(const struct rules *r, bool recover, struct uploader **out, char *err,
		    size_t errlen);

/* shipping__read_meta - an uploader_meta_fn: the metadata of the capture
 * whose sidecar is @sidecar_path. */
int shipping__read_meta(const char *sidecar_path, struct upload_meta *meta, size_t max, size_t *n,
			char *err, size_t errlen);

/* shipping__spool_trusted - whether @r's spool_dir is one root may write
 * in and read from (upload/spool.h: ours, not group or other-writable),
 * or does not exist yet; @err says what to fix when not. */
bool shipping__spool_trusted(const struct rules *r, char *err, size_t errlen);

#endif
