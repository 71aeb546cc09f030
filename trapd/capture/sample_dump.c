// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sample_dump.c - a closed window's samples, copied (sample_dump.h).
 *
 * Stacks are stored once each, keyed by the id the sampler's stack map
 * gave them, in an open-addressing table; their frames share one pool.
 */
#include "trapd/capture/sample_dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NO_STACK UINT32_MAX

struct dump_stack {
	uint64_t id;
	size_t off; /* into ips */
	uint32_t len;
	struct sampler_leaf leaf;
};

struct dump_record {
	struct sampler_key key;
	uint64_t count;
	uint32_t user, kernel; /* into stacks, NO_STACK when missing */
};

struct sample_dump {
	struct dump_record *recs;
	size_t nrecs, recs_cap;
	struct dump_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t *slots; /* stack index + 1 by id; 0 = empty */
	size_t slots_cap;
	uint64_t *ips;
	size_t nips, ips_cap;
	struct sampler_stats stats;
	int ncpus;
};

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

static size_t slot_of(uint64_t id, size_t cap)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int rehash(struct sample_dump *d)
{
	size_t ncap = d->slots_cap ? d->slots_cap * 2 : 256, i, j;
	uint32_t *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < d->nstacks; i++) {
		for (j = slot_of(d->stacks[i].id, ncap); n[j]; j = (j + 1) & (ncap - 1))
			;
		n[j] = (uint32_t)i + 1;
	}
	free(d->slots);
	d->slots = n;
	d->slots_cap = ncap;
	return 0;
}

/* add_stack - the index of stack @id (@len frames at @ips), stored once. */
static int add_stack(struct sample_dump *d, uint64_t id, const uint64_t *ips, uint32_t len,
		     const struct sampler_leaf *leaf, uint32_t *out)
{
	struct dump_stack *st;
	size_t j;

	if (!len) {
		*out = NO_STACK;
		return 0;
	}
	if ((d->nstacks + 1) * 4 > d->slots_cap * 3 && rehash(d))
		return -ENOMEM;
	for (j = slot_of(id, d->slots_cap); d->slots[j]; j = (j + 1) & (d->slots_cap - 1)) {
		if (d->stacks[d->slots[j] - 1].id == id) {
			*out = d->slots[j] - 1;
			return 0;
		}
	}
	if (d->nstacks >= NO_STACK ||
	    grow((void **)&d->stacks, &d->stacks_cap, d->nstacks + 1, sizeof(*d->stacks)) ||
	    grow((void **)&d->ips, &d->ips_cap, d->nips + len, sizeof(*d->ips)))
		return -ENOMEM;
	st = &d->stacks[d->nstacks];
	st->id = id;
	st->off = d->nips;
	st->len = len;
	if (leaf)
		st->leaf = *leaf;
	else
		memset(&st->leaf, 0, sizeof(st->leaf));
	memcpy(d->ips + d->nips, ips, len * sizeof(*ips));
	d->nips += len;
	d->slots[j] = (uint32_t)d->nstacks + 1;
	*out = (uint32_t)d->nstacks++;
	return 0;
}

static int copy_record(const struct sampler_record *rec, void *ctx)
{
	struct sample_dump *d = ctx;
	struct dump_record *r;
	int err;

	err = grow((void **)&d->recs, &d->recs_cap, d->nrecs + 1, sizeof(*d->recs));
	if (err)
		return err;
	r = &d->recs[d->nrecs];
	r->key = *rec->key;
	r->count = rec->count;
	err = add_stack(d, rec->key->user_stack, rec->user_ips, rec->user_len, rec->user_leaf,
			&r->user);
	if (!err)
		err = add_stack(d, rec->key->kernel_stack, rec->kernel_ips, rec->kernel_len, NULL,
				&r->kernel);
	if (!err)
		d->nrecs++;
	return err;
}

struct sample_dump *sample_dump__collect(struct sampler *s)
{
	struct sample_dump *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return NULL;
	d->ncpus = sampler__ncpus(s);
	err = sampler__get_stats(s, &d->stats);
	if (!err)
		err = sampler__for_each(s, copy_record, d);
	if (err) {
		sample_dump__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

int sample_dump__for_each(const struct sample_dump *d, sampler_record_fn fn, void *ctx)
{
	static const struct sampler_leaf no_leaf;
	const struct dump_stack *u, *k;
	struct sampler_record rec;
	size_t i;
	int err;

	for (i = 0; i < d->nrecs; i++) {
		u = d->recs[i].user == NO_STACK ? NULL : &d->stacks[d->recs[i].user];
		k = d->recs[i].kernel == NO_STACK ? NULL : &d->stacks[d->recs[i].kernel];
		rec.key = &d->recs[i].key;
		rec.count = d->recs[i].count;
		rec.user_ips = u ? d->ips + u->off : NULL;
		rec.user_len = u ? u->len : 0;
		rec.user_leaf = u ? &u->leaf : &no_leaf;
		rec.kernel_ips = k ? d->ips + k->off : NULL;
		rec.kernel_len = k ? k->len : 0;
		err = fn(&rec, ctx);
		if (err)
			return err;
	}
	return 0;
}

const struct sampler_stats *sample_dump__stats(const struct sample_dump *d)
{
	return &d->stats;
}

int sample_dump__ncpus(const struct sample_dump *d)
{
	return d->ncpus;
}

void sample_dump__free(struct sample_dump *d)
{
	if (!d)
		return;
	free(d->recs);
	free(d->stacks);
	free(d->slots);
	free(d->ips);
	free(d);
}
