/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* listing.h - what a store says it holds: one page of a listing, as the
 * backends' list operation returns it (backend.h), and the parsers of the
 * two XML answers that carry one:
 *
 *   S3 ListObjectsV2      <ListBucketResult>: <Contents> (Key, Size, ETag,
 *                         LastModified), <CommonPrefixes><Prefix>,
 *                         <IsTruncated>, <NextContinuationToken>
 *   Azure List Blobs      <EnumerationResults>: <Blobs><Blob> (Name,
 *                         <Properties> Etag, Content-Length, Last-Modified,
 *                         <Metadata>), <BlobPrefix><Name>, <NextMarker>
 *
 * Both answers come from a server trapd does not trust: the parsers read
 * at most UPLOAD_LIST_BODY_MAX bytes, keep at most UPLOAD_LIST_ITEMS_MAX
 * entries (and prefixes) a page, refuse a key longer than UPLOAD_KEY_MAX
 * or holding a control byte, decode the five XML entities and numeric
 * character references (not to a NUL or a control byte), and never
 * allocate more than the caps allow (tests/fuzz/fuzz_listing.c).
 */
#ifndef TRAPD_UPLOAD_LISTING_H
#define TRAPD_UPLOAD_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upload/backend.h"

#define UPLOAD_LIST_BODY_MAX (16u << 20) /* bytes of one listing answer */
#define UPLOAD_LIST_ITEMS_MAX 5000	 /* entries, and prefixes, of one page */
#define UPLOAD_LIST_TOKEN_MAX 4096	 /* bytes of a continuation token or marker */
#define UPLOAD_ETAG_MAX 128		 /* bytes of an ETag, quotes removed */

/* One object of a listing. */
struct upload_listed {
	char *key;		    /* relative to the store's prefix (owned) */
	uint64_t size;		    /* bytes */
	char etag[UPLOAD_ETAG_MAX]; /* without its quotes; "" if none */
	char modified[40];	    /* the store's last-modified text, as sent; "" if none */
	/* User metadata, when the store lists it (Azure, include=metadata):
	 * names lower-cased as upload_meta__name makes them ("trapd_host"),
	 * values as sent. NULL and 0 otherwise. Owned. */
	struct upload_meta *meta;
	size_t nmeta;
};

/* One page of a listing. */
struct upload_page {
	struct upload_listed *items; /* owned */
	size_t nitems;
	/* With a delimiter: the deeper keys' common prefixes, relative to
	 * the store's prefix and ending in the delimiter ("web-1/"). Owned. */
	char **prefixes;
	size_t nprefixes;
	/* Where the next page starts (S3's NextContinuationToken, Azure's
	 * NextMarker); NULL on the last page. Owned. */
	char *next;
};

/* What to list: one page of the keys under @prefix. */
struct upload_list_query {
	const char *prefix; /* under the configured prefix; "" lists it all */
	bool delimit;	    /* group keys with a '/' after @prefix into prefixes */
	const char *token;  /* the previous page's next; NULL for the first */
	unsigned page_size; /* 0: the store's default (1000 for S3, 5000 for Azure) */
	bool metadata;	    /* ask for user metadata (stores that list it) */
};

/* upload_page__free - free what @p owns and zero it (@p itself is the
 * caller's). NULL is fine. */
void upload_page__free(struct upload_page *p);

/* upload_list_parse_s3 - a ListObjectsV2 answer (@len bytes at @xml, not
 * NUL-terminated) into @page (zeroed first). Keys and prefixes that do
 * not start with @strip (the configured prefix, "" for none) are left out;
 * @strip is cut from the others. The next page is NextContinuationToken
 * when IsTruncated is true (a truncated answer without a token is
 * -EBADMSG: the listing could not go on). Returns 0, -EBADMSG (not a
 * ListBucketResult, a malformed element, a bad number, a key too long or
 * with a control byte: @err says which and where), -E2BIG (over a cap)
 * or -ENOMEM; on failure @page is empty. */
int upload_list_parse_s3(const char *xml, size_t len, const char *strip, struct upload_page *page,
			 char *err, size_t errlen);

/* upload_list_parse_azblob - a List Blobs answer into @page, as
 * upload_list_parse_s3: Blob/Name, Properties/Content-Length, Etag and
 * Last-Modified, each Metadata child one item (its name made a metadata
 * name by upload_meta__name, values cut to fit struct upload_meta; at
 * most UPLOAD_META_MAX, the rest ignored), BlobPrefix/Name, NextMarker
 * (empty or absent: the last page). */
int upload_list_parse_azblob(const char *xml, size_t len, const char *strip,
			     struct upload_page *page, char *err, size_t errlen);

#endif
