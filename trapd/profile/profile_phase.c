// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile_phase.c - a capture's phases: the history spliced in, one phase
 * read back (see profile_phase.h). */
#include "trapd/profile/profile_phase.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "trapd/profile/profile_merge.h"

#define PHASE_COMMENT "phase " PROFILE_PHASE_BEFORE ": "

/* phase_index - the string index of @name in @p, 0 when it has none. */
static uint32_t phase_index(const struct profile *p, const char *name)
{
	uint32_t i;

	for (i = 1; i < p->nstrings; i++)
		if (!strcmp(p->strings[i], name))
			return i;
	return 0;
}

/* unsplice - a splice that failed part way: @p's own @n samples again,
 * without phases (strings and locations it added stay, unused). */
static void unsplice(struct profile *p, size_t n)
{
	size_t i;

	p->nsamples = n;
	for (i = 0; i < n; i++)
		p->samples[i].phase = 0;
}

int profile_phase__splice(struct profile *p, struct profile *before)
{
	int64_t bp = before->period_ns, idx;
	size_t i, first = p->nsamples;
	uint32_t during, b;
	char line[160];
	int err;

	idx = profile__string(p, PROFILE_PHASE_DURING);
	if (idx < 0)
		return (int)idx;
	during = (uint32_t)idx;
	for (i = 0; i < p->nsamples; i++)
		if (!p->samples[i].phase)
			p->samples[i].phase = during;
	snprintf(line, sizeof(line),
		 PHASE_COMMENT "time_ns=%" PRId64 " duration_ns=%" PRId64 " period_ns=%" PRId64,
		 before->time_ns, before->duration_ns, bp);
	err = profile__add_comment(p, line);
	idx = err ? err : profile__string(p, PROFILE_PHASE_BEFORE);
	if (idx < 0) {
		unsplice(p, first);
		return (int)idx;
	}
	b = (uint32_t)idx;
	/* The history's counts are of its own period: merged as they are,
	 * then each sample says which period that is. The window keeps the
	 * profile's time, duration and period. */
	{
		int64_t time = p->time_ns, duration = p->duration_ns, period = p->period_ns;

		before->period_ns = 0;
		err = profile_merge__add(p, before, 0);
		before->period_ns = bp;
		p->time_ns = time;
		p->duration_ns = duration;
		p->period_ns = period;
	}
	for (i = first; !err && i < p->nsamples; i++) {
		p->samples[i].phase = b;
		if (bp != p->period_ns && !p->samples[i].period_ns)
			p->samples[i].period_ns = bp;
	}
	if (err)
		unsplice(p, first);
	return err;
}

bool profile_phase__has(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].phase)
			return true;
	return false;
}

int profile_phase__check(const char *name)
{
	return !strcmp(name, PROFILE_PHASE_BEFORE) || !strcmp(name, PROFILE_PHASE_DURING) ||
			       !strcmp(name, PROFILE_PHASE_ALL)
		       ? 0
		       : -EINVAL;
}

/* in_phase - whether @s is of phase @want (a string index of @p; 0: the
 * name is not in @p) named @name: a sample without a phase is "during". */
static bool in_phase(const struct profile_sample *s, uint32_t want, const char *name)
{
	if (!s->phase)
		return !strcmp(name, PROFILE_PHASE_DURING);
	return want && s->phase == want;
}

/* phase_comment - whether @c is a phase comment (profile_phase__splice
 * writes them), and its time, duration and period into *@t, *@d, *@q. */
static bool phase_comment(const char *c, int64_t *t, int64_t *d, int64_t *q)
{
	return !strncmp(c, PHASE_COMMENT, strlen(PHASE_COMMENT)) &&
	       sscanf(c + strlen(PHASE_COMMENT),
		      "time_ns=%" SCNd64 " duration_ns=%" SCNd64 " period_ns=%" SCNd64, t, d,
		      q) == 3;
}

/* history_scalars - the history's time, duration and period from the
 * phase comments of @p; false when it has none. A merged profile
 * (`trapd merge`) has one comment per member that held a history: its
 * history starts at the earliest, lasts the sum (as the merged window
 * does, profile_merge.h) and is of the shortest period. */
static bool history_scalars(const struct profile *p, int64_t *time, int64_t *duration,
			    int64_t *period)
{
	int64_t t, d, q;
	bool found = false;
	const char *c;
	uint32_t i;

	for (i = 0; i < p->ncomments; i++) {
		c = profile__str(p, p->comments[i]);
		if (!phase_comment(c, &t, &d, &q))
			continue;
		if (!found) {
			*time = t, *duration = d, *period = q;
			found = true;
			continue;
		}
		if (t > 0 && (*time <= 0 || t < *time))
			*time = t;
		if (d > 0 && __builtin_add_overflow(*duration, d, duration))
			*duration = INT64_MAX;
		if (q > 0 && (*period <= 0 || q < *period))
			*period = q;
	}
	return found;
}

/* to_period - every count of @p made a count of @period, by time (a
 * sample without a period of its own is of @p's), the remainders carried
 * so that the total is kept within one period; @p's period becomes
 * @period. */
static void to_period(struct profile *p, int64_t period)
{
	__int128 carry = 0, whole;
	struct profile_sample *s;
	int64_t own;
	size_t i;

	for (i = 0; period > 0 && i < p->nsamples; i++) {
		s = &p->samples[i];
		own = profile__sample_period(p, s);
		s->period_ns = 0;
		if (own == period || own <= 0 || s->count <= 0)
			continue;
		carry += (__int128)s->count * own;
		whole = carry / period;
		s->count = whole > INT64_MAX ? INT64_MAX : (int64_t)whole;
		carry = whole > INT64_MAX ? 0 : carry - whole * period;
	}
	if (period > 0)
		p->period_ns = period;
}

/* shortest_period - the shortest period of @p's samples (their own, or
 * @p's); 0 when it has none. */
static int64_t shortest_period(const struct profile *p)
{
	int64_t best = 0, q;
	size_t i;

	for (i = 0; i < p->nsamples; i++) {
		q = profile__sample_period(p, &p->samples[i]);
		if (q > 0 && (!best || q < best))
			best = q;
	}
	return best;
}

int profile_phase__select(struct profile *p, const char *name)
{
	int64_t time = 0, duration = 0, period = 0;
	uint32_t want = phase_index(p, name);
	size_t i, n = 0;
	bool history;

	if (profile_phase__check(name))
		return -EINVAL;
	history = history_scalars(p, &time, &duration, &period);
	if (!strcmp(name, PROFILE_PHASE_ALL)) {
		to_period(p, p->period_ns);
		/* from the history's start to the window's end */
		if (history && time > 0 && time < p->time_ns) {
			p->duration_ns += p->time_ns - time;
			p->time_ns = time;
		}
		return 0;
	}
	for (i = 0; i < p->nsamples; i++)
		if (in_phase(&p->samples[i], want, name))
			p->samples[n++] = p->samples[i];
	p->nsamples = n;
	if (strcmp(name, PROFILE_PHASE_BEFORE)) {
		to_period(p, p->period_ns);
		return 0;
	}
	/* the history's samples may be of several periods (merged captures
	 * whose recorders ran at different rates): all of the shortest */
	to_period(p, n ? shortest_period(p) : period);
	if (history) {
		p->time_ns = time;
		p->duration_ns = duration;
	}
	return 0;
}

int64_t profile_phase__samples(const struct profile *p, const char *name)
{
	uint32_t want = phase_index(p, name);
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (in_phase(&p->samples[i], want, name) && p->samples[i].count > 0)
			sum += p->samples[i].count;
	return sum;
}

const char *profile_phase__comment_words(const char *comment, char *buf, size_t len)
{
	int64_t t, d, q;
	char when[32] = "?";
	struct tm tm;
	time_t secs;

	if (!phase_comment(comment, &t, &d, &q))
		return NULL;
	secs = (time_t)(t / 1000000000);
	if (t > 0 && gmtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (q > 0)
		snprintf(buf, len, "phase " PROFILE_PHASE_BEFORE ": from %s, %.2fs at %.0f Hz",
			 when, (double)d / 1e9, 1e9 / (double)q);
	else
		snprintf(buf, len, "phase " PROFILE_PHASE_BEFORE ": from %s, %.2fs", when,
			 (double)d / 1e9);
	return buf;
}
