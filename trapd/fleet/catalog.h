/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* catalog.h - the captures of a store that a filter wants, found with
 * the store's own listing: the key layout (HOST/YYYY/MM/DD/...) prunes
 * hosts and days before anything else is read; a capture is described
 * by the listing's metadata where the store lists it (Azure), else by its
 * sidecar, read only when the listing must show or filter on what the
 * keys do not say, and cached by ETag.
 *
 * A listing is whole or it fails: a page the store refuses ends it with
 * an error that says how far it got, never with part of the result. A
 * capture whose sidecar is missing or is not a capture's sidecar is left
 * out and named in the catalog's problems.
 */
#ifndef TRAPD_FLEET_CATALOG_H
#define TRAPD_FLEET_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/fleet/fleet_cache.h"
#include "trapd/fleet/fleet_capture.h"
#include "trapd/fleet/fleet_filter.h"
#include "trapd/fleet/store.h"

#define FLEET_CATALOG_MAX 100000		  /* captures one listing keeps */
#define FLEET_PROBLEMS_MAX 1000			  /* problems named; the rest counted */
#define FLEET_HOSTS_MAX 100000			  /* hosts one listing walks */
#define FLEET_PAGES_MAX 1000000			  /* pages one listing reads */
#define FLEET_OBJECTS_MAX (4 * FLEET_CATALOG_MAX) /* keys one listing reads */
/* Pages in a row with nothing on them yet a next one: a store may send a
 * few (S3 can, past deleted keys); one that goes on is not listed forever */
#define FLEET_EMPTY_PAGES_MAX 100

#define FLEET_LIST_JOBS_MAX 32

struct fleet_list_options {
	unsigned page_size; /* keys a page; 0: the store's default */
	unsigned jobs;	    /* sidecars read at once (threads, each its connection); 0: 1 */
	bool details;	    /* describe every capture, filter or not (to show them) */
};

struct fleet_catalog {
	struct fleet_capture *items; /* wanted, oldest first */
	size_t n, cap;
	/* what it took */
	uint64_t pages, objects, other_objects;
	uint64_t sidecars_read, sidecars_cached;
	/* captures left out, one line each ("KEY: sidecar missing") */
	char **problems;
	size_t nproblems;
	uint64_t problems_total;
};

/* fleet_catalog__list - the captures of @s that @f wants into @cat
 * (zeroed first), with @cache for sidecars (may be NULL). Returns 0, or
 * -EIO (or -E2BIG, -ENOMEM) with @err saying what failed and how far the
 * listing got; @cat is then empty. */
int fleet_catalog__list(struct fleet_store *s, struct fleet_cache *cache,
			const struct fleet_filter *f, const struct fleet_list_options *o,
			struct fleet_catalog *cat, char *err, size_t errlen);

/* fleet_catalog__free - free what @cat holds and zero it. */
void fleet_catalog__free(struct fleet_catalog *cat);

#endif
