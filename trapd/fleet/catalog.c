// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* catalog.c - the wanted captures of a store (catalog.h). */
#include "trapd/fleet/catalog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapd/fleet/fetch.h"
#include "trapd/fleet/fleet_time.h"

#define DAYS_LISTED_MAX 62 /* a longer range lists whole hosts */

/* The hosts a store has (its keys' first components). */
struct hosts {
	char **names;
	size_t n, cap;
};

/* A listing under way: where it is, for the message if it fails. */
struct walk {
	struct hosts *hosts; /* filled by on_hosts */
	struct fleet_store *s;
	const struct fleet_filter *f;
	const struct fleet_list_options *o;
	struct fleet_catalog *cat;
	const char *prefix; /* being listed */
};

static int fail(struct walk *w, int e, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "listing %s stopped at %s after %llu pages (%llu objects): %s; nothing is "
		 "shown, since it would not be the whole store",
		 w->s->name, *w->prefix ? w->prefix : "its top", (unsigned long long)w->cat->pages,
		 (unsigned long long)w->cat->objects, why);
	return e;
}

static void problem(struct fleet_catalog *cat, const char *key, const char *what)
{
	char *line = NULL;

	cat->problems_total++;
	if (cat->nproblems == FLEET_PROBLEMS_MAX)
		return;
	if (asprintf(&line, "%s: %s", key, what) < 0)
		return;
	cat->problems[cat->nproblems++] = line;
}

/* list_all - every page under @prefix, each to @fn. */
static int list_all(struct walk *w, const char *prefix, bool delimit,
		    int (*fn)(struct walk *, const struct upload_page *), char *err, size_t errlen)
{
	struct upload_list_query q = { .prefix = prefix,
				       .delimit = delimit,
				       .page_size = w->o->page_size,
				       .metadata = !delimit };
	struct upload_page page = { 0 };
	char why[400], *token = NULL;
	int e;

	w->prefix = prefix;
	do {
		q.token = token;
		e = fleet_store__list(w->s, &q, &page, why, sizeof(why));
		free(token);
		token = NULL;
		if (e)
			return fail(w, e, why, err, errlen);
		w->cat->pages++;
		w->cat->objects += page.nitems;
		e = fn(w, &page);
		token = page.next;
		page.next = NULL;
		upload_page__free(&page);
		if (e) {
			free(token);
			return fail(w, e,
				    e == -E2BIG ? "too many captures: narrow the query "
						  "with --host or --since"
						: strerror(-e),
				    err, errlen);
		}
	} while (token);
	return 0;
}

/* --- hosts ------------------------------------------------------------------ */

static int on_hosts(struct walk *w, const struct upload_page *page)
{
	struct hosts *h = w->hosts;
	size_t i, len;
	char **v;

	for (i = 0; i < page->nprefixes; i++) {
		len = strlen(page->prefixes[i]);
		if (len < 2 || len > FLEET_HOST_MAX)
			continue;
		if (h->n == h->cap) {
			v = realloc(h->names, (h->cap * 2 + 16) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			h->names = v;
			h->cap = h->cap * 2 + 16;
		}
		h->names[h->n] = strndup(page->prefixes[i], len - 1);
		if (!h->names[h->n])
			return -ENOMEM;
		h->n++;
	}
	return 0;
}

static void hosts_free(struct hosts *h)
{
	while (h->n)
		free(h->names[--h->n]);
	free(h->names);
}

/* find_hosts - the hosts to list: those asked for, or all the store has. */
static int find_hosts(struct walk *w, struct hosts *h, char *err, size_t errlen)
{
	size_t i;

	if (w->f->nhosts) {
		h->names = calloc(w->f->nhosts, sizeof(*h->names));
		if (!h->names)
			return -ENOMEM;
		for (i = 0; i < w->f->nhosts; i++)
			if (!strchr(w->f->hosts[i], '/') &&
			    !(h->names[h->n++] = strdup(w->f->hosts[i])))
				return -ENOMEM;
		return 0;
	}
	w->hosts = h;
	return list_all(w, "", true, on_hosts, err, errlen);
}

/* --- captures ----------------------------------------------------------------- */

static int grow(struct fleet_catalog *cat)
{
	struct fleet_capture *v;
	size_t ncap = cat->cap ? cat->cap * 2 : 64;

	if (cat->n < cat->cap)
		return 0;
	if (cat->n >= FLEET_CATALOG_MAX)
		return -E2BIG;
	v = realloc(cat->items, ncap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	cat->items = v;
	cat->cap = ncap;
	return 0;
}

/* add_part - one listed object of the layout into the catalog: with the
 * capture before it when it is its other file (listings are in key
 * order), else a capture of its own. */
static int add_part(struct walk *w, const struct upload_listed *it)
{
	struct fleet_catalog *cat = w->cat;
	struct fleet_capture c = { 0 }, *to;
	enum fleet_part part;
	int e;

	if (fleet_key__parse(it->key, &c, &part)) {
		cat->other_objects++;
		return 0;
	}
	if (!fleet_filter__host(w->f, c.host) || !fleet_filter__day(w->f, c.day))
		return 0;
	if (cat->n && !strcmp(cat->items[cat->n - 1].key, c.key)) {
		to = &cat->items[cat->n - 1];
	} else {
		e = grow(cat);
		if (e)
			return e;
		to = &cat->items[cat->n++];
		*to = c;
	}
	if (part == FLEET_PROFILE) {
		to->has_profile = true;
		to->profile_size = it->size;
		snprintf(to->profile_etag, sizeof(to->profile_etag), "%s", it->etag);
	} else {
		to->has_sidecar = true;
		to->sidecar_size = it->size;
		snprintf(to->sidecar_etag, sizeof(to->sidecar_etag), "%s", it->etag);
	}
	if (!to->described && it->nmeta)
		fleet_capture__from_meta(to, it->meta, it->nmeta);
	return 0;
}

static int on_objects(struct walk *w, const struct upload_page *page)
{
	size_t i;
	int e = 0;

	for (i = 0; !e && i < page->nitems; i++)
		e = add_part(w, &page->items[i]);
	return e;
}

/* list_host - the captures of @host on the days the filter wants: each
 * day's prefix when the range is short, else the whole host. */
static int list_host(struct walk *w, const char *host, char *err, size_t errlen)
{
	const struct fleet_filter *f = w->f;
	int64_t now = (int64_t)time(NULL) * 1000000000ll;
	int day, last, i = 0, e = 0;
	char prefix[FLEET_HOST_MAX + 16];

	if (f->since_ns) {
		day = fleet_time__day(f->since_ns);
		last = fleet_time__day(f->until_ns ? f->until_ns : now);
		for (; day <= last && i < DAYS_LISTED_MAX; day = fleet_time__next_day(day), i++)
			;
		if (i < DAYS_LISTED_MAX) {
			for (day = fleet_time__day(f->since_ns); !e && day <= last;
			     day = fleet_time__next_day(day)) {
				snprintf(prefix, sizeof(prefix), "%s/%04d/%02d/%02d/", host,
					 day / 10000, day / 100 % 100, day % 100);
				e = list_all(w, prefix, false, on_objects, err, errlen);
			}
			return e;
		}
	}
	snprintf(prefix, sizeof(prefix), "%s/", host);
	return list_all(w, prefix, false, on_objects, err, errlen);
}

/* --- describing and filtering ------------------------------------------------ */

/* describe - @c from its sidecar; false (a problem named) when it cannot
 * be. A store that fails to answer is an error (-EIO), not a problem. */
static int describe(struct walk *w, struct fleet_cache *cache, struct fleet_capture *c, char *err,
		    size_t errlen)
{
	char why[400], *text = NULL;
	uint64_t hits = cache ? cache->hits : 0;
	size_t len = 0;
	int e;

	if (!c->has_sidecar) {
		problem(w->cat, c->key, "no sidecar (.json): left out");
		return 0;
	}
	e = fleet_fetch__sidecar(w->s, cache, c->key, c->sidecar_etag, &text, &len, why,
				 sizeof(why));
	if (e == -ENOENT) {
		problem(w->cat, c->key, "its sidecar is gone: left out");
		return 0;
	}
	if (e) {
		snprintf(err, errlen, "reading the sidecar of %s%s: %s", w->s->url_base, c->key,
			 why);
		return -EIO;
	}
	if (cache && cache->hits > hits)
		w->cat->sidecars_cached++;
	else
		w->cat->sidecars_read++;
	if (fleet_capture__from_sidecar(c, text, len, why, sizeof(why))) {
		char what[480];

		snprintf(what, sizeof(what), "sidecar unreadable (%s): left out", why);
		problem(w->cat, c->key, what);
	}
	free(text);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct fleet_capture *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* settle - describe what must be, drop what is not wanted or not whole. */
static int settle(struct walk *w, struct fleet_cache *cache, char *err, size_t errlen)
{
	struct fleet_catalog *cat = w->cat;
	bool need = w->o->details || fleet_filter__needs_details(w->f);
	size_t i, kept = 0;
	int e;

	for (i = 0; i < cat->n; i++) {
		struct fleet_capture *c = &cat->items[i];

		if (!c->has_profile) {
			problem(cat, c->key, "a sidecar without its profile (.pb.zst): left out");
			continue;
		}
		if (need && !c->described) {
			e = describe(w, cache, c, err, errlen);
			if (e)
				return e;
			if (!c->described)
				continue;
		}
		if (fleet_filter__match(w->f, c))
			cat->items[kept++] = *c;
	}
	cat->n = kept;
	qsort(cat->items, cat->n, sizeof(*cat->items), by_start);
	return 0;
}

int fleet_catalog__list(struct fleet_store *s, struct fleet_cache *cache,
			const struct fleet_filter *f, const struct fleet_list_options *o,
			struct fleet_catalog *cat, char *err, size_t errlen)
{
	struct walk w = { NULL, s, f, o, cat, "" };
	struct hosts hosts = { 0 };
	size_t i;
	int e;

	memset(cat, 0, sizeof(*cat));
	cat->problems = calloc(FLEET_PROBLEMS_MAX, sizeof(*cat->problems));
	if (!cat->problems)
		return -ENOMEM;
	e = find_hosts(&w, &hosts, err, errlen);
	for (i = 0; !e && i < hosts.n; i++)
		e = list_host(&w, hosts.names[i], err, errlen);
	hosts_free(&hosts);
	if (!e)
		e = settle(&w, cache, err, errlen);
	if (e == -ENOMEM)
		snprintf(err, errlen, "listing %s: out of memory", s->name);
	if (e)
		fleet_catalog__free(cat);
	return e;
}

void fleet_catalog__free(struct fleet_catalog *cat)
{
	size_t i;

	for (i = 0; cat->problems && i < cat->nproblems; i++)
		free(cat->problems[i]);
	free(cat->problems);
	free(cat->items);
	memset(cat, 0, sizeof(*cat));
}
