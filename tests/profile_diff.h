/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_diff.h - for tests and fuzz harnesses: compare two profiles
 * field by field and describe the first difference.
 *
 * profile_invalid checks that every id and string index is in range.
 *
 * Strings are compared by content, not index, so a profile that went
 * through pprof_encode and pprof_decode (whose string table may gain the
 * well-known strings the encoder adds) still compares equal. Ids of
 * mappings, functions and locations are compared as they are: the encoder
 * writes them densely and in order, so a round trip keeps them.
 */
#ifndef TRAPD_TESTS_PROFILE_DIFF_H
#define TRAPD_TESTS_PROFILE_DIFF_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "trapd/profile/profile.h"

static inline bool profile_diff_str(const struct profile *a, uint32_t ia, const struct profile *b,
				    uint32_t ib)
{
	return ia >= a->nstrings || ib >= b->nstrings ||
	       strcmp(profile__str(a, ia), profile__str(b, ib)) != 0;
}

static inline bool profile_diff_mappings(const struct profile *a, const struct profile *b,
					 char *why, size_t len)
{
	const struct profile_mapping *x, *y;
	uint32_t i;

	if (a->nmappings != b->nmappings) {
		snprintf(why, len, "%u mappings vs %u", a->nmappings, b->nmappings);
		return true;
	}
	for (i = 0; i < a->nmappings; i++) {
		x = &a->mappings[i];
		y = &b->mappings[i];
		if (x->start != y->start || x->limit != y->limit ||
		    x->file_offset != y->file_offset || x->has_functions != y->has_functions ||
		    profile_diff_str(a, x->filename, b, y->filename) ||
		    profile_diff_str(a, x->build_id, b, y->build_id)) {
			snprintf(why, len, "mapping %u differs", i + 1);
			return true;
		}
	}
	return false;
}

static inline bool profile_diff_functions(const struct profile *a, const struct profile *b,
					  char *why, size_t len)
{
	const struct profile_function *x, *y;
	uint32_t i;

	if (a->nfunctions != b->nfunctions) {
		snprintf(why, len, "%u functions vs %u", a->nfunctions, b->nfunctions);
		return true;
	}
	for (i = 0; i < a->nfunctions; i++) {
		x = &a->functions[i];
		y = &b->functions[i];
		if (profile_diff_str(a, x->name, b, y->name) ||
		    profile_diff_str(a, x->system_name, b, y->system_name) ||
		    profile_diff_str(a, x->filename, b, y->filename) ||
		    x->start_line != y->start_line) {
			snprintf(why, len, "function %u differs", i + 1);
			return true;
		}
	}
	return false;
}

/* profile_diff_lines - whether location @id has other lines in @a and @b. */
static inline bool profile_diff_lines(const struct profile *a, const struct profile *b, uint32_t id)
{
	const struct profile_line *x, *y;
	uint32_t nx, ny, i;

	x = profile__location_lines(a, id, &nx);
	y = profile__location_lines(b, id, &ny);
	if (nx != ny)
		return true;
	for (i = 0; i < nx; i++)
		if (x[i].function != y[i].function || x[i].line != y[i].line)
			return true;
	return false;
}

static inline bool profile_diff_locations(const struct profile *a, const struct profile *b,
					  char *why, size_t len)
{
	const struct profile_location *x, *y;
	uint32_t i;

	if (a->nlocations != b->nlocations) {
		snprintf(why, len, "%u locations vs %u", a->nlocations, b->nlocations);
		return true;
	}
	for (i = 0; i < a->nlocations; i++) {
		x = &a->locations[i];
		y = &b->locations[i];
		if (x->address != y->address || x->mapping != y->mapping ||
		    x->function != y->function || profile_diff_lines(a, b, i + 1)) {
			snprintf(why, len, "location %u differs", i + 1);
			return true;
		}
	}
	return false;
}

static inline bool profile_diff_samples(const struct profile *a, const struct profile *b, char *why,
					size_t len)
{
	const struct profile_sample *x, *y;
	size_t i;

	if (a->nsamples != b->nsamples) {
		snprintf(why, len, "%zu samples vs %zu", a->nsamples, b->nsamples);
		return true;
	}
	for (i = 0; i < a->nsamples; i++) {
		x = &a->samples[i];
		y = &b->samples[i];
		if (x->count != y->count || x->pid != y->pid || x->tid != y->tid ||
		    x->run != y->run || x->nlocs != y->nlocs || x->offcpu_ns != y->offcpu_ns ||
		    profile_diff_str(a, x->state, b, y->state) ||
		    profile_diff_str(a, x->call, b, y->call) ||
		    profile_diff_str(a, x->phase, b, y->phase) || x->period_ns != y->period_ns ||
		    x->first_loc + x->nlocs > a->nstack_locs ||
		    y->first_loc + y->nlocs > b->nstack_locs ||
		    profile_diff_str(a, x->comm, b, y->comm) ||
		    profile_diff_str(a, x->cgroup, b, y->cgroup) ||
		    (x->nlocs && memcmp(profile__sample_locs(a, x), profile__sample_locs(b, y),
					x->nlocs * sizeof(uint32_t)) != 0)) {
			snprintf(why, len, "sample %zu differs", i);
			return true;
		}
	}
	return false;
}

/* profile_diff - true if @a and @b differ; @why then says where. */
static inline bool profile_diff(const struct profile *a, const struct profile *b, char *why,
				size_t len)
{
	uint32_t i;

	if (a->period_ns != b->period_ns || a->time_ns != b->time_ns ||
	    a->duration_ns != b->duration_ns) {
		snprintf(why, len, "period, time or duration differ");
		return true;
	}
	if (a->ncomments != b->ncomments) {
		snprintf(why, len, "%u comments vs %u", a->ncomments, b->ncomments);
		return true;
	}
	for (i = 0; i < a->ncomments; i++) {
		if (profile_diff_str(a, a->comments[i], b, b->comments[i])) {
			snprintf(why, len, "comment %u differs", i);
			return true;
		}
	}
	return profile_diff_mappings(a, b, why, len) || profile_diff_functions(a, b, why, len) ||
	       profile_diff_locations(a, b, why, len) || profile_diff_samples(a, b, why, len);
}

/* profile_invalid - true if an id or string index of @p is out of range
 * (what pprof_decode promises never to produce); @why then says which. */
static inline bool profile_invalid(const struct profile *p, char *why, size_t len)
{
	const struct profile_sample *s;
	size_t i;
	uint32_t j;

	for (j = 0; j < p->nmappings; j++)
		if (p->mappings[j].filename >= p->nstrings ||
		    p->mappings[j].build_id >= p->nstrings)
			return snprintf(why, len, "mapping %u: bad string", j + 1), true;
	for (j = 0; j < p->nfunctions; j++)
		if (p->functions[j].name >= p->nstrings ||
		    p->functions[j].system_name >= p->nstrings ||
		    p->functions[j].filename >= p->nstrings)
			return snprintf(why, len, "function %u: bad string", j + 1), true;
	for (j = 0; j < p->nlocations; j++)
		if (p->locations[j].mapping > p->nmappings ||
		    p->locations[j].function > p->nfunctions)
			return snprintf(why, len, "location %u: bad reference", j + 1), true;
	for (j = 0; j < p->ncomments; j++)
		if (p->comments[j] >= p->nstrings)
			return snprintf(why, len, "comment %u: bad string", j), true;
	for (i = 0; i < p->nsamples; i++) {
		s = &p->samples[i];
		if (s->comm >= p->nstrings || s->cgroup >= p->nstrings ||
		    s->first_loc + s->nlocs > p->nstack_locs)
			return snprintf(why, len, "sample %zu: bad string or stack", i), true;
		for (j = 0; j < s->nlocs; j++)
			if (!profile__sample_locs(p, s)[j] ||
			    profile__sample_locs(p, s)[j] > p->nlocations)
				return snprintf(why, len, "sample %zu: bad location", i), true;
	}
	return false;
}

#endif
