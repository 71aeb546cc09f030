// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* catalog.c - the wanted captures of a store (catalog.h). */
#include "trapd/fleet/catalog.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapd/fleet/fetch.h"
#include "trapd/fleet/fleet_time.h"
#include "upload/http_request.h"

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
	/* describing: several threads at once (fleet_list_options.jobs) */
	pthread_mutex_t lock; /* the catalog's problems and counts */
	struct fleet_cache *cache;
	size_t next; /* the next capture to describe */
	int error;   /* the first failure; the others stop */
	char *err;
	size_t errlen;
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

/* problem - name @key's problem; the caller holds the walk's lock when
 * threads describe. */
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

/* stop_why - in words, why list_all stopped a listing with @e. */
static const char *stop_why(int e)
{
	switch (e) {
	case -E2BIG:
		return "too many captures or pages: narrow the query with --host or --since";
	case -ELOOP:
		return "the store gave the same next page again";
	case -ENODATA:
		return "the store gave page after empty page, each with a next one";
	default:
		return strerror(-e);
	}
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
	unsigned empty = 0;
	int e;

	w->prefix = prefix;
	do {
		q.token = token;
		e = fleet_store__list(w->s, &q, &page, why, sizeof(why));
		if (e) {
			free(token);
			return fail(w, e, why, err, errlen);
		}
		w->cat->pages++;
		w->cat->objects += page.nitems;
		e = fn(w, &page);
		/* a store whose pages never end, or go round, is not listed forever */
		empty = page.nitems || page.nprefixes ? 0 : empty + 1;
		if (!e && page.next && token && !strcmp(page.next, token))
			e = -ELOOP;
		if (!e && page.next && empty >= FLEET_EMPTY_PAGES_MAX)
			e = -ENODATA;
		if (!e && (w->cat->pages > FLEET_PAGES_MAX || w->cat->objects > FLEET_OBJECTS_MAX))
			e = -E2BIG;
		free(token);
		token = page.next;
		page.next = NULL;
		upload_page__free(&page);
		if (e) {
			free(token);
			return fail(w, e, stop_why(e), err, errlen);
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
		if (h->n == FLEET_HOSTS_MAX)
			return -E2BIG;
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

/* describe - @c from its sidecar, on a describing thread; a capture that
 * cannot be is a problem named, a store that fails to answer an error
 * (-EIO, in @err). */
static int describe(struct walk *w, struct fleet_capture *c, char *err, size_t errlen)
{
	char why[400], what[480], *text = NULL;
	const char *problem_text = NULL;
	bool cached = false;
	size_t len = 0;
	int e = 0;

	if (!c->has_sidecar) {
		problem_text = "no sidecar (.json): left out";
	} else if (c->sidecar_size > FLEET_SIDECAR_MAX) {
		/* No capture trapd writes comes near: one host's store must not
		 * deny the view of every other */
		snprintf(what, sizeof(what),
			 "sidecar of %llu bytes, over the %u a capture's may have: left out",
			 (unsigned long long)c->sidecar_size, FLEET_SIDECAR_MAX);
		problem_text = what;
	} else {
		e = fleet_fetch__sidecar(w->s, w->cache, c->key, c->sidecar_etag, &text, &len,
					 &cached, why, sizeof(why));
		if (e == -ENOENT) {
			problem_text = "its sidecar is gone: left out";
		} else if (e == -EFBIG) {
			/* larger than its listing said */
			snprintf(what, sizeof(what),
				 "sidecar over the %u bytes a capture's may have: left out",
				 FLEET_SIDECAR_MAX);
			problem_text = what;
			e = 0;
		} else if (e) {
			snprintf(err, errlen, "reading the sidecar of %.300s%.300s: %.380s",
				 w->s->url_base, c->key, why);
		} else if (fleet_capture__from_sidecar(c, text, len, why, sizeof(why))) {
			problem_text = what;
			snprintf(what, sizeof(what), "sidecar unreadable (%s): left out", why);
		}
	}
	pthread_mutex_lock(&w->lock);
	if (text && cached)
		w->cat->sidecars_cached++;
	else if (text)
		w->cat->sidecars_read++;
	if (problem_text)
		problem(w->cat, c->key, problem_text);
	pthread_mutex_unlock(&w->lock);
	free(text);
	return e == -ENOENT ? 0 : e ? -EIO : 0;
}

/* describer - a describing thread: the next capture that needs it, until
 * none is left or one failed. Its connection goes when it is done. */
static void *describer(void *arg)
{
	struct walk *w = arg;
	bool need = w->o->details || fleet_filter__needs_details(w->f);
	char err[1024];
	size_t i;
	int e;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		i = w->error ? w->cat->n : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->cat->n)
			break;
		struct fleet_capture *c = &w->cat->items[i];

		if (!need || c->described || !c->has_profile)
			continue;
		e = describe(w, c, err, sizeof(err));
		pthread_mutex_lock(&w->lock);
		if (e && !w->error) {
			w->error = e;
			snprintf(w->err, w->errlen, "%s", err);
		}
		pthread_mutex_unlock(&w->lock);
	}
	http_request__drop_connection();
	return NULL;
}

/* describe_all - every capture that needs it described, by @jobs threads
 * (this one among them). */
static int describe_all(struct walk *w, unsigned jobs)
{
	pthread_t t[FLEET_LIST_JOBS_MAX];
	unsigned i, started = 0;

	if (jobs > FLEET_LIST_JOBS_MAX)
		jobs = FLEET_LIST_JOBS_MAX;
	for (i = 1; i < jobs && i < w->cat->n; i++)
		if (!pthread_create(&t[started], NULL, describer, w))
			started++;
	describer(w);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return w->error;
}

static int by_start(const void *a, const void *b)
{
	const struct fleet_capture *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* settle - describe what must be, drop what is not wanted or not whole. */
static int settle(struct walk *w, char *err, size_t errlen)
{
	struct fleet_catalog *cat = w->cat;
	bool need = w->o->details || fleet_filter__needs_details(w->f);
	size_t i, kept = 0;
	int e;

	w->err = err;
	w->errlen = errlen;
	e = describe_all(w, w->o->jobs ? w->o->jobs : 1);
	if (e)
		return e;
	for (i = 0; i < cat->n; i++) {
		struct fleet_capture *c = &cat->items[i];

		if (!c->has_profile)
			problem(cat, c->key, "a sidecar without its profile (.pb.zst): left out");
		else if ((!need || c->described) && fleet_filter__match(w->f, c))
			cat->items[kept++] = *c;
	}
	cat->n = kept;
	qsort(cat->items, cat->n, sizeof(*cat->items), by_start);
	qsort(cat->problems, cat->nproblems, sizeof(*cat->problems), by_text);
	return 0;
}

int fleet_catalog__list(struct fleet_store *s, struct fleet_cache *cache,
			const struct fleet_filter *f, const struct fleet_list_options *o,
			struct fleet_catalog *cat, char *err, size_t errlen)
{
	struct walk w = { .s = s,
			  .f = f,
			  .o = o,
			  .cat = cat,
			  .prefix = "",
			  .lock = PTHREAD_MUTEX_INITIALIZER,
			  .cache = cache };
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
		e = settle(&w, err, errlen);
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
