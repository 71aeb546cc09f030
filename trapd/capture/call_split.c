// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* call_split.c - which of a window's calls were slow (call_split.h). */
#include "trapd/capture/call_split.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What the sampler can hand over: its call_times and call_tasks maps
 * (bpf/sampler.h), so growth is bounded. */
#define MAX_CALLS (1u << 20)

struct call_entry {
	uint64_t id;
	uint64_t ns;
	uint32_t order; /* when it was added: the first of an id is kept */
	bool open;
	uint8_t cls; /* enum call_class, set by call_split__decide */
};

struct call_split {
	struct call_entry *calls;
	size_t n, cap;
	bool sorted;
	struct lat_hist all;
	struct call_split_stats stats;
};

struct call_split *call_split__new(void)
{
	struct call_split *c = calloc(1, sizeof(*c));

	if (c)
		lat_hist__reset(&c->all);
	return c;
}

void call_split__free(struct call_split *c)
{
	if (!c)
		return;
	free(c->calls);
	free(c);
}

int call_split__add(struct call_split *c, uint64_t id, uint64_t ns, bool open)
{
	struct call_entry *grown;
	size_t cap;

	if (!id)
		return -EINVAL;
	if (c->n == c->cap) {
		if (c->cap >= MAX_CALLS)
			return -ENOMEM;
		cap = c->cap ? 2 * c->cap : 256;
		grown = realloc(c->calls, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		c->calls = grown;
		c->cap = cap;
	}
	c->calls[c->n] =
		(struct call_entry){ .id = id, .ns = ns, .order = (uint32_t)c->n, .open = open };
	c->n++;
	c->sorted = false;
	return 0;
}

void call_split__set_all(struct call_split *c, const struct lat_hist *all)
{
	c->all = *all;
}

static int by_id(const void *x, const void *y)
{
	const struct call_entry *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	/* the first added first, so it is the one kept */
	return a->order < b->order ? -1 : a->order > b->order;
}

/* sort_unique - by id, keeping the first of an id added twice. */
static void sort_unique(struct call_split *c)
{
	size_t i, out = 0;

	if (c->sorted)
		return;
	if (c->n)
		qsort(c->calls, c->n, sizeof(*c->calls), by_id);
	for (i = 0; i < c->n; i++)
		if (!out || c->calls[out - 1].id != c->calls[i].id)
			c->calls[out++] = c->calls[i];
	c->n = out;
	c->sorted = true;
}

static enum call_class class_of(const struct call_entry *e, uint64_t threshold)
{
	if (e->ns >= threshold)
		return CALL_SLOW;
	return e->open ? CALL_UNKNOWN : CALL_FAST;
}

uint64_t call_split__decide(struct call_split *c, const struct call_threshold *t)
{
	struct call_split_stats *st = &c->stats;
	uint64_t thr;
	size_t i;

	sort_unique(c);
	if (t->ns)
		thr = t->ns;
	else if (c->all.events)
		thr = lat_hist__percentile(&c->all, t->percentile / 100.0);
	else
		thr = UINT64_MAX;
	memset(st, 0, sizeof(*st));
	st->threshold_ns = thr;
	st->calls = c->all.events;
	if (c->all.events) {
		st->p50_ns = lat_hist__percentile(&c->all, 0.5);
		st->p99_ns = lat_hist__percentile(&c->all, 0.99);
		st->max_ns = lat_hist__max(&c->all);
	}
	for (i = 0; i < c->n; i++) {
		c->calls[i].cls = (uint8_t)class_of(&c->calls[i], thr);
		st->sampled++;
		st->open += c->calls[i].open;
		st->slow += c->calls[i].cls == CALL_SLOW;
		st->fast += c->calls[i].cls == CALL_FAST;
	}
	return thr;
}

enum call_class call_split__class(const struct call_split *c, uint64_t id)
{
	size_t lo = 0, hi = c->n, mid;

	if (!id)
		return CALL_OUTSIDE;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->calls[mid].id == id)
			return (enum call_class)c->calls[mid].cls;
		if (c->calls[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return CALL_UNKNOWN;
}

const struct call_split_stats *call_split__stats(const struct call_split *c)
{
	return &c->stats;
}

const char *call_class__name(enum call_class k)
{
	static const char *const names[CALL_CLASS_NR] = { "outside", "fast", "slow", "unknown" };

	return (unsigned)k < CALL_CLASS_NR ? names[k] : "unknown";
}
