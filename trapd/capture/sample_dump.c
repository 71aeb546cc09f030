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
	bool unwound;	       /* the user stack was unwound from a copy (DWARF) */
};

struct sample_dump {
	struct dump_record *recs;
	size_t nrecs, recs_cap;
	struct dump_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t *slots; /* stack index + 1 by id; 0 = empty */
	size_t slots_cap;
	uint32_t *rec_slots; /* record index + 1 by key; 0 = empty */
	size_t rec_slots_cap;
	uint64_t *ips;
	size_t nips, ips_cap;
	struct sampler_stats stats;
	struct unwind_summary unwind;
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

static size_t key_slot(const struct sampler_key *k, size_t cap)
{
	uint64_t h = k->user_stack ^ (k->kernel_stack * 0x9e3779b97f4a7c15ull);

	h ^= ((uint64_t)k->pid << 32 | k->tid) * 0xff51afd7ed558ccdull;
	h ^= k->cgroup_id;
	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static bool same_key(const struct sampler_key *a, const struct sampler_key *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->user_stack == b->user_stack &&
	       a->kernel_stack == b->kernel_stack && a->cgroup_id == b->cgroup_id &&
	       !memcmp(a->comm, b->comm, sizeof(a->comm));
}

static int rehash_records(struct sample_dump *d)
{
	size_t ncap = d->rec_slots_cap ? d->rec_slots_cap * 2 : 256, i, j;
	uint32_t *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < d->nrecs; i++) {
		for (j = key_slot(&d->recs[i].key, ncap); n[j]; j = (j + 1) & (ncap - 1))
			;
		n[j] = (uint32_t)i + 1;
	}
	free(d->rec_slots);
	d->rec_slots = n;
	d->rec_slots_cap = ncap;
	return 0;
}

/* find_record - the slot of @key's record, or of the empty slot it would
 * take. */
static size_t find_record(const struct sample_dump *d, const struct sampler_key *key)
{
	size_t j;

	for (j = key_slot(key, d->rec_slots_cap); d->rec_slots[j];
	     j = (j + 1) & (d->rec_slots_cap - 1))
		if (same_key(&d->recs[d->rec_slots[j] - 1].key, key))
			break;
	return j;
}

int sample_dump__add(struct sample_dump *d, const struct sampler_record *rec)
{
	struct dump_record *r;
	size_t j;
	int err;

	if ((d->nrecs + 1) * 4 > d->rec_slots_cap * 3 && rehash_records(d))
		return -ENOMEM;
	j = find_record(d, rec->key);
	if (d->rec_slots[j]) {
		d->recs[d->rec_slots[j] - 1].count += rec->count;
		return 0;
	}
	if (d->nrecs >= NO_STACK - 1)
		return -E2BIG;
	err = grow((void **)&d->recs, &d->recs_cap, d->nrecs + 1, sizeof(*d->recs));
	if (err)
		return err;
	r = &d->recs[d->nrecs];
	r->key = *rec->key;
	r->count = rec->count;
	r->unwound = rec->unwound;
	err = add_stack(d, rec->key->user_stack, rec->user_ips, rec->user_len, rec->user_leaf,
			&r->user);
	if (!err)
		err = add_stack(d, rec->key->kernel_stack, rec->kernel_ips, rec->kernel_len, NULL,
				&r->kernel);
	if (err)
		return err;
	d->rec_slots[j] = (uint32_t)d->nrecs + 1;
	d->nrecs++;
	return 0;
}

static int copy_record(const struct sampler_record *rec, void *ctx)
{
	return sample_dump__add(ctx, rec);
}

struct sample_dump *sample_dump__new(void)
{
	return calloc(1, sizeof(struct sample_dump));
}

/* merge_unwound - add the samples a drain unwound, with their kernel
 * stacks, which stayed in the sampler's map, looked up now. */
static int merge_unwound(struct sample_dump *d, struct sampler *s, const struct sample_dump *u)
{
	uint64_t kernel[SAMPLER_MAX_DEPTH];
	struct sampler_record rec;
	size_t i;
	int err;

	for (i = 0; i < u->nrecs; i++) {
		const struct dump_record *r = &u->recs[i];
		const struct dump_stack *st = r->user == NO_STACK ? NULL : &u->stacks[r->user];

		memset(&rec, 0, sizeof(rec));
		rec.key = &r->key;
		rec.count = r->count;
		rec.user_ips = st ? u->ips + st->off : NULL;
		rec.user_len = st ? st->len : 0;
		rec.unwound = true;
		rec.kernel_ips = kernel;
		rec.kernel_len = sampler__lookup_stack(s, r->key.kernel_stack, kernel);
		err = sample_dump__add(d, &rec);
		if (err)
			return err;
	}
	return 0;
}

struct sample_dump *sample_dump__collect(struct sampler *s, const struct sample_dump *unwound,
					 const struct unwind_summary *summary)
{
	struct sample_dump *d = sample_dump__new();
	int err;

	if (!d)
		return NULL;
	d->ncpus = sampler__ncpus(s);
	if (summary)
		d->unwind = *summary;
	err = sampler__get_stats(s, &d->stats);
	if (!err)
		err = sampler__for_each(s, copy_record, d);
	if (!err && unwound)
		err = merge_unwound(d, s, unwound);
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
		rec.unwound = d->recs[i].unwound;
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

const struct unwind_summary *sample_dump__unwind(const struct sample_dump *d)
{
	return &d->unwind;
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
	free(d->rec_slots);
	free(d->ips);
	free(d);
}
