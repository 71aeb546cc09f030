// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile_merge.c - append one profile to another (see profile_merge.h).
 *
 * One pass per table of the source, in dependency order: strings, then
 * mappings and functions (which refer to strings), locations (mappings,
 * functions), samples (locations, strings). Each pass fills an array from
 * the source's index or id to the destination's, so the whole merge is
 * linear in the size of both profiles.
 */
#include "trapd/profile/profile_merge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* Counts of one period made counts of another (profile_merge__add_by_time):
 * each count times its period (@num, or the sample's own) / @den, the
 * remainder (nanoseconds) carried to the next sample so that the sum
 * keeps the time. @den 0: counts are taken as they are. */
struct rescale {
	int64_t num, den;
	__int128 carry;
};

/* Source index or id -> destination index or id, per table. Id maps have
 * n + 1 entries, entry 0 being 0 ("none"). */
struct merge_maps {
	uint32_t *str;
	uint32_t *mapping;
	uint32_t *function;
	uint32_t *location;
};

/* xlat - @map[@idx] into *out; -EINVAL when @idx is not below @n. */
static int xlat(const uint32_t *map, uint32_t n, uint32_t idx, uint32_t *out)
{
	if (idx >= n)
		return -EINVAL;
	*out = map[idx];
	return 0;
}

static int map_strings(struct profile *dst, const struct profile *src, uint32_t *map)
{
	uint32_t i;
	int64_t idx;

	for (i = 0; i < src->nstrings; i++) {
		idx = profile__string(dst, src->strings[i]);
		if (idx < 0)
			return (int)idx;
		map[i] = (uint32_t)idx;
	}
	return 0;
}

static int map_mappings(struct profile *dst, const struct profile *src, struct merge_maps *mm)
{
	struct profile_mapping m;
	uint32_t i;
	int64_t id;
	int err;

	mm->mapping[0] = 0;
	for (i = 0; i < src->nmappings; i++) {
		m = src->mappings[i];
		err = xlat(mm->str, src->nstrings, m.filename, &m.filename);
		if (!err)
			err = xlat(mm->str, src->nstrings, m.build_id, &m.build_id);
		if (err)
			return err;
		id = profile__add_mapping(dst, &m);
		if (id < 0)
			return (int)id;
		mm->mapping[i + 1] = (uint32_t)id;
	}
	return 0;
}

static int map_functions(struct profile *dst, const struct profile *src, struct merge_maps *mm)
{
	struct profile_function f;
	uint32_t i;
	int64_t id;
	int err;

	mm->function[0] = 0;
	for (i = 0; i < src->nfunctions; i++) {
		f = src->functions[i];
		err = xlat(mm->str, src->nstrings, f.name, &f.name);
		if (!err)
			err = xlat(mm->str, src->nstrings, f.system_name, &f.system_name);
		if (!err)
			err = xlat(mm->str, src->nstrings, f.filename, &f.filename);
		if (err)
			return err;
		id = profile__add_function_at(dst, f.name, f.system_name, f.filename, f.start_line);
		if (id < 0)
			return (int)id;
		mm->function[i + 1] = (uint32_t)id;
	}
	return 0;
}

static int map_locations(struct profile *dst, const struct profile *src, struct merge_maps *mm)
{
	struct profile_line lines[PROFILE_MAX_INLINE_DEPTH];
	const struct profile_line *from;
	uint32_t i, j, n, mapping;
	int64_t id;
	int err;

	mm->location[0] = 0;
	for (i = 0; i < src->nlocations; i++) {
		from = profile__location_lines(src, i + 1, &n);
		if (n > PROFILE_MAX_INLINE_DEPTH)
			return -EINVAL;
		err = xlat(mm->mapping, src->nmappings + 1, src->locations[i].mapping, &mapping);
		for (j = 0; !err && j < n; j++) {
			lines[j] = from[j];
			err = xlat(mm->function, src->nfunctions + 1, from[j].function,
				   &lines[j].function);
		}
		if (err)
			return err;
		id = profile__add_location_lines(dst, mapping, src->locations[i].address, lines, n);
		if (id < 0)
			return (int)id;
		mm->location[i + 1] = (uint32_t)id;
	}
	return 0;
}

/* add_sample - @s of @src, its ids and strings translated, into @dst. */
static int add_sample(struct profile *dst, const struct profile *src, const struct merge_maps *mm,
		      const struct profile_sample *s, int64_t run, struct rescale *rs)
{
	uint32_t locs[PROFILE_MAX_DEPTH], i;
	struct profile_sample tmpl = *s;
	const uint32_t *from;
	int err;

	if (s->nlocs > PROFILE_MAX_DEPTH || s->first_loc > src->nstack_locs ||
	    s->nlocs > src->nstack_locs - s->first_loc)
		return -EINVAL;
	from = profile__sample_locs(src, s);
	for (i = 0; i < s->nlocs; i++) {
		/* 0 maps to 0, which profile__add_sample refuses. */
		err = xlat(mm->location, src->nlocations + 1, from[i], &locs[i]);
		if (err)
			return err;
	}
	err = xlat(mm->str, src->nstrings, s->comm, &tmpl.comm);
	if (!err)
		err = xlat(mm->str, src->nstrings, s->cgroup, &tmpl.cgroup);
	if (!err)
		err = xlat(mm->str, src->nstrings, s->state, &tmpl.state);
	if (!err)
		err = xlat(mm->str, src->nstrings, s->call, &tmpl.call);
	if (!err)
		err = xlat(mm->str, src->nstrings, s->phase, &tmpl.phase);
	if (err)
		return err;
	if (run > 0)
		tmpl.run = run;
	if (rs->den && s->period_ns > 0 && s->period_ns != rs->den)
		return profile__add_sample(dst, locs, s->nlocs, &tmpl); /* keeps its period */
	if (rs->den)
		tmpl.period_ns = 0; /* counted in @dst's period below */
	if (rs->den && tmpl.count > 0) {
		__int128 whole;

		rs->carry += (__int128)tmpl.count * (s->period_ns > 0 ? s->period_ns : rs->num);
		whole = rs->carry / rs->den;
		tmpl.count = whole > INT64_MAX ? INT64_MAX : (int64_t)whole;
		if (whole > INT64_MAX)
			rs->carry = 0; /* saturated: nothing sane to carry */
		else
			rs->carry -= (__int128)tmpl.count * rs->den;
	}
	return profile__add_sample(dst, locs, s->nlocs, &tmpl);
}

/* add_comments - the comments of @src that @dst lacks (see the header).
 * Only @dst's comments from before the merge are looked for, so a comment
 * @src repeats is repeated, as merging into an empty profile must do. */
static int add_comments(struct profile *dst, const struct profile *src, const uint32_t *strmap)
{
	bool *had = NULL;
	uint32_t i, idx;
	int err = 0;

	if (!src->ncomments)
		return 0;
	/* Every comment of src is already a string of dst (map_strings). */
	had = calloc(dst->nstrings, sizeof(*had));
	if (!had)
		return -ENOMEM;
	for (i = 0; i < dst->ncomments; i++)
		if (dst->comments[i] < dst->nstrings)
			had[dst->comments[i]] = true;
	for (i = 0; i < src->ncomments && !err; i++) {
		err = xlat(strmap, src->nstrings, src->comments[i], &idx);
		if (!err && !had[idx])
			err = profile__add_comment(dst, profile__str(dst, idx));
	}
	free(had);
	return err;
}

/* merge_scalars - period, time and duration (the period already checked). */
static void merge_scalars(struct profile *dst, const struct profile *src)
{
	if (!dst->period_ns)
		dst->period_ns = src->period_ns;
	if (src->time_ns && (!dst->time_ns || src->time_ns < dst->time_ns))
		dst->time_ns = src->time_ns;
	if (__builtin_add_overflow(dst->duration_ns, src->duration_ns, &dst->duration_ns))
		dst->duration_ns = src->duration_ns < 0 ? INT64_MIN : INT64_MAX;
}

/* check - what can be refused before @dst changes. */
static int check(const struct profile *dst, const struct profile *src, int64_t run,
		 const struct rescale *rs)
{
	if (run < 0 || dst == src)
		return -EINVAL;
	if (!rs->den && src->period_ns && dst->period_ns && src->period_ns != dst->period_ns)
		return -EINVAL;
	if (src->nsamples > PROFILE_MAX_SAMPLES - dst->nsamples ||
	    src->nstack_locs > PROFILE_MAX_STACK_LOCS - dst->nstack_locs)
		return -E2BIG;
	return 0;
}

static int merge(struct profile *dst, const struct profile *src, int64_t run, struct rescale *rs)
{
	struct merge_maps mm = { NULL };
	size_t i;
	int err;

	err = check(dst, src, run, rs);
	if (err)
		return err;
	mm.str = malloc((src->nstrings ? src->nstrings : 1) * sizeof(*mm.str));
	mm.mapping = malloc(((size_t)src->nmappings + 1) * sizeof(*mm.mapping));
	mm.function = malloc(((size_t)src->nfunctions + 1) * sizeof(*mm.function));
	mm.location = malloc(((size_t)src->nlocations + 1) * sizeof(*mm.location));
	if (!mm.str || !mm.mapping || !mm.function || !mm.location) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = map_strings(dst, src, mm.str);
	if (!err)
		err = map_mappings(dst, src, &mm);
	if (!err)
		err = map_functions(dst, src, &mm);
	if (!err)
		err = map_locations(dst, src, &mm);
	for (i = 0; !err && i < src->nsamples; i++)
		err = add_sample(dst, src, &mm, &src->samples[i], run, rs);
	if (!err)
		err = add_comments(dst, src, mm.str);
	if (!err)
		merge_scalars(dst, src);
cleanup:
	free(mm.str);
	free(mm.mapping);
	free(mm.function);
	free(mm.location);
	return err;
}

int profile_merge__add(struct profile *dst, const struct profile *src, int64_t run)
{
	struct rescale none = { 0, 0, 0 };

	return merge(dst, src, run, &none);
}

/* own_periods - whether a sample of @p has a period of its own. */
static bool own_periods(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].period_ns)
			return true;
	return false;
}

int profile_merge__add_by_time(struct profile *dst, const struct profile *src)
{
	struct rescale rs = { src->period_ns > 0 ? src->period_ns : dst->period_ns,
			      dst->period_ns > 0 ? dst->period_ns : src->period_ns, 0 };

	if (rs.den <= 0 || (rs.num == rs.den && !own_periods(src)))
		rs.den = 0; /* nothing to convert: the counts are of one period */
	return merge(dst, src, 0, &rs);
}
