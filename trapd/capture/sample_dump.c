// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sample_dump.c - a window's samples, moved out of the kernel maps
 * (sample_dump.h).
 *
 * Stacks are stored once each, keyed by the id the sampler's stack map
 * gave them, in an open-addressing table; their frames share one pool.
 * Records keep the ids and find their stacks when read, since a record
 * can be moved out before or after its stacks.
 */
#include "trapd/capture/sample_dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NO_STACK UINT32_MAX
/* What moves during the window may hold (records, stacks, frames, table):
 * arrays grow by doubling, so the allocation stays under twice this. The
 * copy after the window is not held to it: it is bounded by the maps'
 * sizes (sampler.c), and leaving it in the kernel would lose it. */
#define SPILL_MAX_BYTES (128ull << 20)
/* The most one spill moves, so that it holds the event loop for a time
 * bounded whatever the maps' sizes: more than a tick of sampling adds at
 * 999 Hz on 64 CPUs (12,800 stacks, 6,400 counts). The kernel's side
 * frees each entry with interrupts off, which costs a trap in some VMs. */
#define SPILL_MAX_STACKS 16384u
#define SPILL_MAX_COUNTS 32768u
/* The most one moved stack can take here. */
#define STACK_MAX_BYTES (sizeof(struct dump_stack) + 8 * SAMPLER_MAX_DEPTH + 2 * sizeof(uint32_t))

struct dump_stack {
	uint64_t id;
	size_t off; /* into ips */
	uint32_t len;
	bool walked; /* a user stack the kernel walk walked (sampler_stack.walked) */
	struct sampler_leaf leaf;
};

struct dump_record {
	struct sampler_key key; /* its stack ids are looked up when read */
	uint64_t count;
	bool unwound; /* the user stack was unwound from a copy (DWARF) */
};

struct sample_dump {
	struct dump_record *recs;
	size_t nrecs, recs_cap;
	struct dump_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t *slots; /* stack index + 1 by id; 0 = empty */
	size_t slots_cap;
	uint32_t *rec_slots; /* sample_dump__add: record index + 1 by key; 0 = empty */
	size_t rec_slots_cap;
	uint64_t *ips;
	size_t nips, ips_cap;
	struct sampler_stats stats;
	struct unwind_summary unwind;
	int ncpus;
	struct call_split *calls; /* the calls its samples fell in; NULL: not split */
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
	st->walked = false;
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

/* find_stack - the index of stack @id, NO_STACK when it was lost. */
static uint32_t find_stack(const struct sample_dump *d, uint64_t id)
{
	size_t j;

	if (!id || !d->slots_cap)
		return NO_STACK;
	for (j = slot_of(id, d->slots_cap); d->slots[j]; j = (j + 1) & (d->slots_cap - 1))
		if (d->stacks[d->slots[j] - 1].id == id)
			return d->slots[j] - 1;
	return NO_STACK;
}

static int take_stack(const void *key, const void *value, void *ctx)
{
	const struct sampler_stack *st = value;
	uint64_t ips[SAMPLER_MAX_DEPTH];
	__u64 id;
	uint32_t idx;
	int err;

	memcpy(&id, key, sizeof(id));
	if (!st->len || st->len > SAMPLER_MAX_DEPTH)
		return 0;
	/* uint64_t and the map's __u64 are different C types of one size. */
	memcpy(ips, st->ips, st->len * sizeof(*ips));
	err = add_stack(ctx, id, ips, st->len, &st->leaf, &idx);
	if (!err && idx != NO_STACK)
		((struct sample_dump *)ctx)->stacks[idx].walked = st->walked == 1;
	return err;
}

static int take_count(const void *key, const void *value, void *ctx)
{
	struct sample_dump *d = ctx;
	struct dump_record *r;
	__u64 count;
	int err;

	err = grow((void **)&d->recs, &d->recs_cap, d->nrecs + 1, sizeof(*d->recs));
	if (err)
		return err;
	memcpy(&count, value, sizeof(count));
	r = &d->recs[d->nrecs++];
	memcpy(&r->key, key, sizeof(r->key));
	r->count = count;
	r->unwound = false;
	return 0;
}

/* held - the bytes the moved entries take (not the arrays' spare room). */
static uint64_t held(const struct sample_dump *d)
{
	return d->nrecs * sizeof(*d->recs) + d->nstacks * sizeof(*d->stacks) +
	       d->nips * sizeof(*d->ips) + d->slots_cap * sizeof(*d->slots);
}

struct sample_dump *sample_dump__new(void)
{
	return calloc(1, sizeof(struct sample_dump));
}

int sample_dump__spill(struct sample_dump *d, struct sampler *s)
{
	uint64_t room, stacks, counts;

	if (!sampler__spill_due(s))
		return 0;
	room = held(d) < SPILL_MAX_BYTES ? SPILL_MAX_BYTES - held(d) : 0;
	/* Half the room each, counted at their largest: what does not fit
	 * stays in the kernel, which counts what it then drops. */
	stacks = room / 2 / STACK_MAX_BYTES;
	counts = room / 2 / sizeof(struct dump_record);
	return sampler__move(s, stacks < SPILL_MAX_STACKS ? stacks : SPILL_MAX_STACKS,
			     counts < SPILL_MAX_COUNTS ? counts : SPILL_MAX_COUNTS, take_stack,
			     take_count, d);
}

static int take_call(uint64_t id, uint64_t ns, bool open, void *ctx)
{
	struct sample_dump *d = ctx;

	return call_split__add(d->calls, id, ns, open);
}

/* collect_calls - the durations of the calls the window's samples fell
 * in, and the histogram of all its calls. */
static int collect_calls(struct sample_dump *d, struct sampler *s)
{
	struct lat_hist all;
	int err;

	d->calls = call_split__new();
	if (!d->calls)
		return -ENOMEM;
	lat_hist__reset(&all);
	err = sampler__read_calls(s, take_call, d, &all);
	if (!err)
		call_split__set_all(d->calls, &all);
	return err;
}

int sample_dump__collect(struct sample_dump *d, struct sampler *s)
{
	int err;

	d->ncpus = sampler__ncpus(s);
	err = sampler__get_stats(s, &d->stats);
	if (!err)
		err = sampler__move(s, SIZE_MAX, SIZE_MAX, take_stack, take_count, d);
	if (!err && sampler__window_split_calls(s))
		err = collect_calls(d, s);
	return err;
}

struct call_split *sample_dump__calls(const struct sample_dump *d)
{
	return d->calls;
}

static size_t key_slot(const struct sampler_key *k, size_t cap)
{
	uint64_t h = k->user_stack ^ (k->kernel_stack * 0x9e3779b97f4a7c15ull);

	h ^= ((uint64_t)k->pid << 32 | k->tid) * 0xff51afd7ed558ccdull;
	h ^= k->cgroup_id ^ (k->py_stack * 0xc2b2ae3d27d4eb4full) ^
	     (k->call * 0x94d049bb133111ebull);
	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static bool same_key(const struct sampler_key *a, const struct sampler_key *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->user_stack == b->user_stack &&
	       a->kernel_stack == b->kernel_stack && a->cgroup_id == b->cgroup_id &&
	       a->py_stack == b->py_stack && a->offcpu == b->offcpu && a->call == b->call &&
	       a->life == b->life && !memcmp(a->comm, b->comm, sizeof(a->comm));
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
	size_t j = key_slot(key, d->rec_slots_cap);

	for (; d->rec_slots[j]; j = (j + 1) & (d->rec_slots_cap - 1))
		if (same_key(&d->recs[d->rec_slots[j] - 1].key, key))
			break;
	return j;
}

/* append_record - a new record of @key, @count samples. */
static int append_record(struct sample_dump *d, const struct sampler_key *key, uint64_t count,
			 bool unwound)
{
	struct dump_record *r;
	int err;

	err = grow((void **)&d->recs, &d->recs_cap, d->nrecs + 1, sizeof(*d->recs));
	if (err)
		return err;
	r = &d->recs[d->nrecs++];
	r->key = *key;
	r->count = count;
	r->unwound = unwound;
	return 0;
}

int sample_dump__add(struct sample_dump *d, const struct sampler_record *rec)
{
	uint32_t idx;
	size_t j;
	int err;

	if (held(d) + STACK_MAX_BYTES > SPILL_MAX_BYTES)
		return -ENOSPC;
	if ((d->nrecs + 1) * 4 > d->rec_slots_cap * 3 && rehash_records(d))
		return -ENOMEM;
	j = find_record(d, rec->key);
	if (d->rec_slots[j]) {
		d->recs[d->rec_slots[j] - 1].count += rec->count;
		return 0;
	}
	if (d->nrecs >= NO_STACK - 1)
		return -E2BIG;
	err = rec->user_len ? add_stack(d, rec->key->user_stack, rec->user_ips, rec->user_len,
					rec->user_leaf, &idx)
			    : 0;
	if (!err)
		err = append_record(d, rec->key, rec->count, rec->unwound);
	if (err)
		return err;
	d->rec_slots[j] = (uint32_t)d->nrecs;
	return 0;
}

int sample_dump__add_site(struct sample_dump *d, uint64_t site, const uint64_t *ips, uint32_t n)
{
	uint32_t idx;

	if (held(d) + STACK_MAX_BYTES > SPILL_MAX_BYTES)
		return -ENOSPC;
	return add_stack(d, site, ips, n, NULL, &idx);
}

/* is_site - whether stack id @id names a blocking site (bpf/sampler.h). */
static bool is_site(uint64_t id)
{
	return id & SAMPLER_SITE_BIT;
}

int sample_dump__merge_unwound(struct sample_dump *d, const struct sample_dump *u,
			       const struct unwind_summary *summary)
{
	const struct dump_stack *st;
	uint32_t ui, idx;
	size_t i;
	int err = 0;

	d->unwind = *summary;
	for (i = 0; i < u->nstacks && !err; i++)
		if (is_site(u->stacks[i].id))
			err = add_stack(d, u->stacks[i].id, u->ips + u->stacks[i].off,
					u->stacks[i].len, NULL, &idx);
	for (i = 0; i < u->nrecs && !err; i++) {
		ui = find_stack(u, u->recs[i].key.user_stack);
		st = ui == NO_STACK ? NULL : &u->stacks[ui];
		if (st)
			err = add_stack(d, st->id, u->ips + st->off, st->len, NULL, &idx);
		if (!err)
			err = append_record(d, &u->recs[i].key, u->recs[i].count, true);
	}
	return err;
}

void sample_dump__set_unwind(struct sample_dump *d, const struct unwind_summary *summary)
{
	d->unwind = *summary;
}

const struct unwind_summary *sample_dump__unwind(const struct sample_dump *d)
{
	return &d->unwind;
}

int sample_dump__for_each(const struct sample_dump *d, sampler_record_fn fn, void *ctx)
{
	static const struct sampler_leaf no_leaf;
	const struct dump_stack *u, *k, *py;
	struct sampler_record rec;
	size_t i;
	int err;

	uint32_t ui, ki, pi;

	for (i = 0; i < d->nrecs; i++) {
		ui = find_stack(d, d->recs[i].key.user_stack);
		ki = find_stack(d, d->recs[i].key.kernel_stack);
		u = ui == NO_STACK ? NULL : &d->stacks[ui];
		k = ki == NO_STACK ? NULL : &d->stacks[ki];
		pi = d->recs[i].key.py_stack ? find_stack(d, d->recs[i].key.py_stack) : NO_STACK;
		py = pi == NO_STACK ? NULL : &d->stacks[pi];
		rec.key = &d->recs[i].key;
		rec.count = d->recs[i].count;
		rec.user_ips = u ? d->ips + u->off : NULL;
		rec.user_len = u ? u->len : 0;
		rec.user_leaf = u ? &u->leaf : &no_leaf;
		rec.kernel_ips = k ? d->ips + k->off : NULL;
		rec.kernel_len = k ? k->len : 0;
		rec.py = py ? d->ips + py->off : NULL;
		rec.py_len = py ? py->len : 0;
		/* a blocking site's stack was unwound from its copy */
		rec.unwound = d->recs[i].unwound || (u && (is_site(u->id) || u->walked));
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

size_t sample_dump__nstacks(const struct sample_dump *d)
{
	return d->nstacks;
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
	call_split__free(d->calls);
	free(d);
}
