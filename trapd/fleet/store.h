/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* store.h - a store of captures opened for reading: the one the uploader
 * writes to, named the way a user names it:
 *
 *   RULES.ini               the [upload] section of a rules file: the
 *                           uploader's own settings and credentials
 *   DIR, file:///DIR        a directory (the file backend's layout)
 *   s3://BUCKET[/PREFIX]    S3 or a compatible store: the endpoint from
 *                           TRAPD_STORE_ENDPOINT, AWS_ENDPOINT_URL_S3 or
 *                           AWS_ENDPOINT_URL (none: AWS), the region from
 *                           AWS_REGION or AWS_DEFAULT_REGION (us-east-1),
 *                           the keys from AWS_ACCESS_KEY_ID,
 *                           AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
 *   azblob://ACCOUNT/CONTAINER[/PREFIX]   Azure Blob: the endpoint from
 *                           TRAPD_STORE_ENDPOINT (none: Azure's), the SAS
 *                           from AZURE_STORAGE_SAS_TOKEN (read and list)
 *
 * With TRAPD_STORE_CONFIG=RULES in the environment, a URL takes every
 * setting but its bucket or container and prefix from that file's
 * [upload] (whose scheme must be the URL's). A URL's settings go through
 * the rules file's own checks (rules/), so a bad one reads as a rules
 * error would; credentials go to a plain http:// endpoint only when the
 * user says so (allow_insecure_credentials in a file,
 * TRAPD_ALLOW_INSECURE_CREDENTIALS=yes for a URL), and with a warning.
 * Nothing secret is ever in a message.
 */
#ifndef TRAPD_FLEET_STORE_H
#define TRAPD_FLEET_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upload/backend.h"
#include "upload/listing.h"

struct rules;

struct fleet_store {
	char name[512];		  /* for messages and keys' URLs: the URL, no secret */
	char url_base[512];	  /* "s3://BUCKET/PREFIX/": a key's URL is this + key */
	struct upload_config cfg; /* borrows @rules's strings */
	struct rules *rules;	  /* owned: the file read, or the URL's settings */
	const struct upload_backend_ops *ops;
	struct upload_backend *backend;
	uint64_t requests; /* list and get calls made (a directory's too) */
};

/* fleet_store__open - open the store @spec names (see above) into *@out.
 * @endpoint, when not NULL, overrides the endpoint of a URL. Returns 0;
 * -EINVAL for a spec, setting or credential that is wrong (@err says
 * which; exit status 2), -ENOTSUP for a store that cannot be listed or
 * read (http); another negative errno when a file cannot be read. */
int fleet_store__open(const char *spec, const char *endpoint, struct fleet_store **out, char *err,
		      size_t errlen);

/* fleet_store__close - close @s and free it; NULL is fine. */
void fleet_store__close(struct fleet_store *s);

/* fleet_store__list and fleet_store__get may be called from several
 * threads at once; each keeps its own connection until it calls
 * http_request__drop_connection (upload/http_request.h). */

/* fleet_store__list - one page (listing.h). Returns 0 or -EIO with @err
 * saying why (never a secret). */
int fleet_store__list(struct fleet_store *s, const struct upload_list_query *q,
		      struct upload_page *page, char *err, size_t errlen);

/* fleet_store__get - the object at @key into @fd, at most @max bytes.
 * Returns 0, -ENOENT (no such object) or -EIO with @err saying why. */
int fleet_store__get(struct fleet_store *s, const char *key, int fd, uint64_t max, char *err,
		     size_t errlen);

/* fleet_store__split_url - a capture's URL (@url: "s3://BUCKET/PREFIX/
 * HOST/YYYY/MM/DD/SHA.pb.zst", an azblob:// or file:// one) into the
 * store's spec (@store: all before HOST) and the key (@key: from HOST
 * on). Returns 0, or -EINVAL when @url is not a capture's URL. */
int fleet_store__split_url(const char *url, char *store, size_t storelen, char *key, size_t keylen);

/* fleet_store__is_url - whether @s names a store by URL (s3://,
 * azblob://, file://). */
bool fleet_store__is_url(const char *s);

#endif
