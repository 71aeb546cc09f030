// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile.c - interning tables and growth for the in-memory profile. */
#include "trapd/profile/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open-addressing set of entity numbers (1-based; 0 marks an empty
 * slot). The entities themselves live in the profile's arrays, so the
 * index only needs to know how to hash one and compare it with a key. */
struct profile_index {
	uint32_t *slots;
	size_t cap; /* power of two */
	size_t used;
};

struct index_ops {
	uint64_t (*hash_entity)(const struct profile *p, uint32_t num);
	bool (*equals)(const struct profile *p, uint32_t num, const void *key);
};

static uint64_t hash_bytes(const void *data, size_t len, uint64_t h)
{
	const unsigned char *b = data;

	/* FNV-1a, then a final mix so low bits are usable as a slot. */
	if (!h)
		h = 0xcbf29ce484222325ull;
	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static void index_free(struct profile_index *ix)
{
	if (!ix)
		return;
	free(ix->slots);
	free(ix);
}

static int index_grow(struct profile *p, struct profile_index *ix, const struct index_ops *ops)
{
	size_t ncap = ix->cap ? ix->cap * 2 : 64, i;
	uint32_t *nslots = calloc(ncap, sizeof(*nslots));

	if (!nslots)
		return -ENOMEM;
	for (i = 0; i < ix->cap; i++) {
		uint32_t num = ix->slots[i];
		size_t s;

		if (!num)
			continue;
		s = mix(ops->hash_entity(p, num)) & (ncap - 1);
		while (nslots[s])
			s = (s + 1) & (ncap - 1);
		nslots[s] = num;
	}
	free(ix->slots);
	ix->slots = nslots;
	ix->cap = ncap;
	return 0;
}

/* index_find - the entity equal to @key, or 0; *slot_out gets the slot
 * where it is or where it would go. */
static uint32_t index_find(const struct profile *p, const struct profile_index *ix,
			   const struct index_ops *ops, uint64_t hash, const void *key,
			   size_t *slot_out)
{
	size_t s = mix(hash) & (ix->cap - 1);

	while (ix->slots[s]) {
		if (ops->equals(p, ix->slots[s], key)) {
			*slot_out = s;
			return ix->slots[s];
		}
		s = (s + 1) & (ix->cap - 1);
	}
	*slot_out = s;
	return 0;
}

/* index_lookup_or_reserve - 0 and *found set if @key is present; otherwise
 * makes room and returns 0 with *found = 0 and *slot_out where to insert. */
static int index_prepare(struct profile *p, struct profile_index **ixp, const struct index_ops *ops,
			 uint64_t hash, const void *key, uint32_t *found, size_t *slot_out)
{
	struct profile_index *ix = *ixp;
	int err;

	if (!ix) {
		ix = calloc(1, sizeof(*ix));
		if (!ix)
			return -ENOMEM;
		*ixp = ix;
	}
	if ((ix->used + 1) * 10 > ix->cap * 7) {
		err = index_grow(p, ix, ops);
		if (err)
			return err;
	}
	*found = index_find(p, ix, ops, hash, key, slot_out);
	return 0;
}

static void index_insert(struct profile_index *ix, size_t slot, uint32_t num)
{
	ix->slots[slot] = num;
	ix->used++;
}

/* grow_array - make room for one more element in *arr; caps at @max. */
static int grow_array(void **arr, size_t *cap, size_t n, size_t elem, size_t max)
{
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	if (n >= max)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > max)
		ncap = max;
	na = realloc(*arr, ncap * elem);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

static int grow_array32(void **arr, uint32_t *cap, size_t n, size_t elem, size_t max)
{
	size_t c = *cap;
	int err = grow_array(arr, &c, n, elem, max);

	*cap = (uint32_t)c;
	return err;
}

/* --- strings --- */

static uint64_t string_hash_entity(const struct profile *p, uint32_t num)
{
	const char *s = p->strings[num - 1];

	return hash_bytes(s, strlen(s), 0);
}

static bool string_equals(const struct profile *p, uint32_t num, const void *key)
{
	return strcmp(p->strings[num - 1], key) == 0;
}

static const struct index_ops string_ops = { string_hash_entity, string_equals };

int64_t profile__string(struct profile *p, const char *s)
{
	uint32_t found;
	size_t slot, len;
	char *copy;
	int err;

	if (!s)
		s = "";
	len = strnlen(s, PROFILE_MAX_STRING_LEN + 1);
	if (len > PROFILE_MAX_STRING_LEN)
		return -E2BIG;
	err = index_prepare(p, &p->string_index, &string_ops, hash_bytes(s, len, 0), s, &found,
			    &slot);
	if (err)
		return err;
	if (found)
		return found - 1;
	err = grow_array32((void **)&p->strings, &p->strings_cap, p->nstrings, sizeof(char *),
			   PROFILE_MAX_STRINGS);
	if (err)
		return err;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	p->strings[p->nstrings++] = copy;
	index_insert(p->string_index, slot, p->nstrings);
	return p->nstrings - 1;
}

const char *profile__str(const struct profile *p, uint32_t idx)
{
	return idx < p->nstrings ? p->strings[idx] : "";
}

/* --- mappings --- */

static uint64_t mapping_hash(const struct profile_mapping *m)
{
	uint64_t h = hash_bytes(&m->start, sizeof(m->start), 0);

	h = hash_bytes(&m->limit, sizeof(m->limit), h);
	h = hash_bytes(&m->file_offset, sizeof(m->file_offset), h);
	h = hash_bytes(&m->filename, sizeof(m->filename), h);
	return hash_bytes(&m->build_id, sizeof(m->build_id), h);
}

static uint64_t mapping_hash_entity(const struct profile *p, uint32_t num)
{
	return mapping_hash(&p->mappings[num - 1]);
}

static bool mapping_equals(const struct profile *p, uint32_t num, const void *key)
{
	const struct profile_mapping *a = &p->mappings[num - 1], *b = key;

	return a->start == b->start && a->limit == b->limit && a->file_offset == b->file_offset &&
	       a->filename == b->filename && a->build_id == b->build_id &&
	       a->has_functions == b->has_functions;
}

static const struct index_ops mapping_ops = { mapping_hash_entity, mapping_equals };

int64_t profile__add_mapping(struct profile *p, const struct profile_mapping *m)
{
	uint32_t found;
	size_t slot;
	int err;

	if (m->filename >= p->nstrings || m->build_id >= p->nstrings)
		return -EINVAL;
	err = index_prepare(p, &p->mapping_index, &mapping_ops, mapping_hash(m), m, &found, &slot);
	if (err)
		return err;
	if (found)
		return found;
	err = grow_array32((void **)&p->mappings, &p->mappings_cap, p->nmappings, sizeof(*m),
			   PROFILE_MAX_MAPPINGS);
	if (err)
		return err;
	p->mappings[p->nmappings++] = *m;
	index_insert(p->mapping_index, slot, p->nmappings);
	return p->nmappings;
}

/* --- functions --- */

static uint64_t function_hash(const struct profile_function *f)
{
	/* Field by field: the struct has padding. */
	uint64_t h = hash_bytes(&f->name, sizeof(f->name), 0);

	h = hash_bytes(&f->system_name, sizeof(f->system_name), h);
	h = hash_bytes(&f->filename, sizeof(f->filename), h);
	return hash_bytes(&f->start_line, sizeof(f->start_line), h);
}

static uint64_t function_hash_entity(const struct profile *p, uint32_t num)
{
	return function_hash(&p->functions[num - 1]);
}

static bool function_equals(const struct profile *p, uint32_t num, const void *key)
{
	const struct profile_function *a = &p->functions[num - 1], *b = key;

	return a->name == b->name && a->system_name == b->system_name &&
	       a->filename == b->filename && a->start_line == b->start_line;
}

static const struct index_ops function_ops = { function_hash_entity, function_equals };

int64_t profile__add_function_at(struct profile *p, uint32_t name, uint32_t system_name,
				 uint32_t filename, int64_t start_line)
{
	struct profile_function f = { name, system_name, filename, start_line };
	uint32_t found;
	size_t slot;
	int err;

	if (name >= p->nstrings || system_name >= p->nstrings || filename >= p->nstrings)
		return -EINVAL;
	err = index_prepare(p, &p->function_index, &function_ops, function_hash(&f), &f, &found,
			    &slot);
	if (err)
		return err;
	if (found)
		return found;
	err = grow_array32((void **)&p->functions, &p->functions_cap, p->nfunctions, sizeof(f),
			   PROFILE_MAX_FUNCTIONS);
	if (err)
		return err;
	p->functions[p->nfunctions++] = f;
	index_insert(p->function_index, slot, p->nfunctions);
	return p->nfunctions;
}

int64_t profile__add_function(struct profile *p, uint32_t name, uint32_t system_name,
			      uint32_t filename)
{
	return profile__add_function_at(p, name, system_name, filename, 0);
}

/* --- locations --- */

/* What a location is looked up by: its lines are not in p->lines yet. */
struct location_key {
	uint64_t address;
	uint32_t mapping;
	uint32_t nlines;
	const struct profile_line *lines;
};

static uint64_t location_hash(const struct location_key *k)
{
	uint64_t h = hash_bytes(&k->address, sizeof(k->address), 0);
	uint32_t i;

	h = hash_bytes(&k->mapping, sizeof(k->mapping), h);
	for (i = 0; i < k->nlines; i++) {
		h = hash_bytes(&k->lines[i].function, sizeof(k->lines[i].function), h);
		h = hash_bytes(&k->lines[i].line, sizeof(k->lines[i].line), h);
	}
	return h;
}

static struct location_key location_key_of(const struct profile *p, uint32_t num)
{
	const struct profile_location *l = &p->locations[num - 1];
	struct location_key k = { l->address, l->mapping, l->nlines, NULL };

	if (l->nlines)
		k.lines = p->lines + l->first_line;
	return k;
}

static uint64_t location_hash_entity(const struct profile *p, uint32_t num)
{
	struct location_key k = location_key_of(p, num);

	return location_hash(&k);
}

static bool location_equals(const struct profile *p, uint32_t num, const void *key)
{
	struct location_key a = location_key_of(p, num);
	const struct location_key *b = key;
	uint32_t i;

	if (a.address != b->address || a.mapping != b->mapping || a.nlines != b->nlines)
		return false;
	for (i = 0; i < a.nlines; i++)
		if (a.lines[i].function != b->lines[i].function ||
		    a.lines[i].line != b->lines[i].line)
			return false;
	return true;
}

static const struct index_ops location_ops = { location_hash_entity, location_equals };

/* store_lines - append @k's lines to p->lines; *first gets where. */
static int store_lines(struct profile *p, const struct location_key *k, uint32_t *first)
{
	int err;

	*first = p->nlines;
	if (!k->nlines)
		return 0;
	if ((size_t)p->nlines + k->nlines > PROFILE_MAX_LINES)
		return -E2BIG;
	while (p->lines_cap < p->nlines + k->nlines) {
		err = grow_array32((void **)&p->lines, &p->lines_cap, p->lines_cap,
				   sizeof(*p->lines), PROFILE_MAX_LINES);
		if (err)
			return err;
	}
	memcpy(p->lines + p->nlines, k->lines, k->nlines * sizeof(*k->lines));
	p->nlines += k->nlines;
	return 0;
}

int64_t profile__add_location_lines(struct profile *p, uint32_t mapping, uint64_t address,
				    const struct profile_line *lines, uint32_t n)
{
	struct location_key k = { address, mapping, n, lines };
	struct profile_location l = { address, mapping, 0, 0, n };
	uint32_t found, i;
	size_t slot;
	int err;

	if (mapping > p->nmappings || n > PROFILE_MAX_INLINE_DEPTH)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!lines[i].function || lines[i].function > p->nfunctions)
			return -EINVAL;
	err = index_prepare(p, &p->location_index, &location_ops, location_hash(&k), &k, &found,
			    &slot);
	if (err)
		return err;
	if (found)
		return found;
	err = grow_array32((void **)&p->locations, &p->locations_cap, p->nlocations, sizeof(l),
			   PROFILE_MAX_LOCATIONS);
	if (!err)
		err = store_lines(p, &k, &l.first_line);
	if (err)
		return err;
	l.function = n ? lines[n - 1].function : 0;
	p->locations[p->nlocations++] = l;
	index_insert(p->location_index, slot, p->nlocations);
	return p->nlocations;
}

int64_t profile__add_location(struct profile *p, uint32_t mapping, uint64_t address,
			      uint32_t function)
{
	struct profile_line line = { function, 0 };

	return profile__add_location_lines(p, mapping, address, &line, function ? 1 : 0);
}

const struct profile_line *profile__location_lines(const struct profile *p, uint32_t loc_id,
						   uint32_t *n)
{
	const struct profile_location *l;

	*n = 0;
	if (loc_id == 0 || loc_id > p->nlocations)
		return NULL;
	l = &p->locations[loc_id - 1];
	if (!l->nlines || l->first_line > p->nlines || l->nlines > p->nlines - l->first_line)
		return NULL;
	*n = l->nlines;
	return p->lines + l->first_line;
}

/* --- samples and comments --- */

int profile__add_sample(struct profile *p, const uint32_t *locs, uint32_t n,
			const struct profile_sample *tmpl)
{
	struct profile_sample *s;
	uint32_t i;
	int err;

	if (n > PROFILE_MAX_DEPTH)
		return -E2BIG;
	if (tmpl->comm >= p->nstrings || tmpl->cgroup >= p->nstrings ||
	    tmpl->state >= p->nstrings || tmpl->call >= p->nstrings)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (locs[i] == 0 || locs[i] > p->nlocations)
			return -EINVAL;
	if (p->nstack_locs + n > PROFILE_MAX_STACK_LOCS)
		return -E2BIG;
	while (p->stack_locs_cap < p->nstack_locs + n) {
		err = grow_array((void **)&p->stack_locs, &p->stack_locs_cap, p->stack_locs_cap,
				 sizeof(uint32_t), PROFILE_MAX_STACK_LOCS);
		if (err)
			return err;
	}
	err = grow_array((void **)&p->samples, &p->samples_cap, p->nsamples, sizeof(*s),
			 PROFILE_MAX_SAMPLES);
	if (err)
		return err;
	s = &p->samples[p->nsamples++];
	*s = *tmpl;
	s->first_loc = p->nstack_locs;
	s->nlocs = n;
	if (n)
		memcpy(p->stack_locs + p->nstack_locs, locs, n * sizeof(*locs));
	p->nstack_locs += n;
	return 0;
}

int profile__add_comment(struct profile *p, const char *text)
{
	int64_t idx = profile__string(p, text);
	int err;

	if (idx < 0)
		return (int)idx;
	err = grow_array32((void **)&p->comments, &p->comments_cap, p->ncomments, sizeof(uint32_t),
			   PROFILE_MAX_STRINGS);
	if (err)
		return err;
	p->comments[p->ncomments++] = (uint32_t)idx;
	return 0;
}

/* --- queries --- */

const char *profile__location_name(const struct profile *p, uint32_t loc_id, char *buf, size_t len)
{
	const struct profile_location *l;
	const struct profile_mapping *m;
	const char *file, *base;

	if (loc_id == 0 || loc_id > p->nlocations) {
		snprintf(buf, len, "[invalid location %u]", loc_id);
		return buf;
	}
	l = &p->locations[loc_id - 1];
	if (l->function && l->function <= p->nfunctions)
		return profile__str(p, p->functions[l->function - 1].name);
	if (l->mapping && l->mapping <= p->nmappings) {
		m = &p->mappings[l->mapping - 1];
		file = profile__str(p, m->filename);
		base = strrchr(file, '/');
		base = base ? base + 1 : file;
		if (*base && l->address >= m->start) {
			snprintf(buf, len, "%s+0x%" PRIx64, base,
				 l->address - m->start + m->file_offset);
			return buf;
		}
	}
	snprintf(buf, len, "0x%" PRIx64, l->address);
	return buf;
}

bool profile__location_is_kernel(const struct profile *p, uint32_t loc_id)
{
	const struct profile_location *l;

	if (loc_id == 0 || loc_id > p->nlocations)
		return false;
	l = &p->locations[loc_id - 1];
	if (l->mapping && l->mapping <= p->nmappings)
		return strcmp(profile__str(p, p->mappings[l->mapping - 1].filename),
			      PROFILE_KERNEL_MAPPING) == 0;
	return l->address >= 0xffff800000000000ull;
}

int64_t profile__total(const struct profile *p)
{
	int64_t total = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		total += p->samples[i].count;
	return total;
}

int64_t profile__cpu_ns(const struct profile *p)
{
	int64_t total = 0, t, period;
	size_t i;

	for (i = 0; i < p->nsamples; i++) {
		period = profile__sample_period(p, &p->samples[i]);
		if (p->samples[i].count <= 0 || period <= 0)
			continue;
		if (__builtin_mul_overflow(p->samples[i].count, period, &t) ||
		    __builtin_add_overflow(total, t, &total))
			return INT64_MAX;
	}
	return total;
}

/* --- lifetime --- */

struct profile *profile__new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (profile__string(p, "") != 0) {
		profile__free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void profile__free(struct profile *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->mappings);
	free(p->functions);
	free(p->locations);
	free(p->lines);
	free(p->samples);
	free(p->stack_locs);
	free(p->comments);
	index_free(p->string_index);
	index_free(p->mapping_index);
	index_free(p->function_index);
	index_free(p->location_index);
	free(p);
}
