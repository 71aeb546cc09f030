// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile_view.c - which time of a capture its views weigh (see the
 * header). */
#include "trapd/profile/profile_view.h"

#include <errno.h>
#include <string.h>

static const char *const names[] = {
	[PROFILE_VIEW_CPU] = "cpu",
	[PROFILE_VIEW_OFFCPU] = "offcpu",
	[PROFILE_VIEW_WALL] = "wall",
};

int profile_view__parse(const char *s, enum profile_view *v)
{
	size_t i;

	if (!strcmp(s, "off-cpu")) {
		*v = PROFILE_VIEW_OFFCPU;
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*v = (enum profile_view)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *profile_view__name(enum profile_view v)
{
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

const char *profile_view__what(enum profile_view v)
{
	switch (v) {
	case PROFILE_VIEW_OFFCPU:
		return "off-CPU time";
	case PROFILE_VIEW_WALL:
		return "wall-clock time (on + off CPU)";
	default:
		return "on-CPU samples";
	}
}

bool profile_view__has_oncpu(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].count > 0)
			return true;
	return false;
}

bool profile_view__has_offcpu(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].offcpu_ns > 0)
			return true;
	return false;
}

enum profile_view profile_view__default(const struct profile *p)
{
	return !profile_view__has_oncpu(p) && profile_view__has_offcpu(p) ? PROFILE_VIEW_OFFCPU
									  : PROFILE_VIEW_CPU;
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* cpu_ns - the CPU time of @s's samples (negative counts, from a hostile
 * file, weigh nothing, as everywhere). */
static int64_t cpu_ns(const struct profile_sample *s, int64_t period)
{
	int64_t r;

	if (s->count <= 0 || period <= 0)
		return 0;
	return __builtin_mul_overflow(s->count, period, &r) ? INT64_MAX : r;
}

int profile_view__apply(struct profile *p, enum profile_view v)
{
	struct profile_sample *s;
	int64_t off;
	size_t i;

	if (p->view != PROFILE_VIEW_CPU)
		return -EALREADY;
	if (v == PROFILE_VIEW_CPU)
		return 0;
	for (i = 0; i < p->nsamples; i++) {
		s = &p->samples[i];
		off = s->offcpu_ns > 0 ? s->offcpu_ns : 0;
		s->count = v == PROFILE_VIEW_OFFCPU ? off : sat_add(cpu_ns(s, p->period_ns), off);
	}
	p->period_ns = 1;
	p->view = v;
	return 0;
}
