// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_source.c - a latency rule's window over its shared probe. */
#include "trapd/latency/latency_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/units.h"
#include "trapd/latency/latency_spec.h"

#define RETRY_NS (30 * 1000000000ll) /* after a probe failed to load */
#define MAX_SLOTS 65536u

struct latency_source {
	struct rule rule; /* what the source needs of it, strings its own */
	struct latency_set *set;
	const char *mountinfo;
	uint64_t poll_ns;
	struct latency_entry *entry; /* NULL: not resolved or loaded (yet) */
	struct latency_spec_anchor anchor;
	uint64_t seen;	     /* the entry's last interval taken */
	int64_t retry_after; /* a failed load is not retried before this */
	struct lat_window *window;
	unsigned slots;
};

static int copy_str(char **to, const char *from)
{
	*to = NULL;
	if (from && !(*to = strdup(from)))
		return -ENOMEM;
	return 0;
}

/* copy_rule - the fields latency_spec__resolve and the value need. */
static int copy_rule(struct rule *to, const struct rule *r)
{
	memset(to, 0, sizeof(*to));
	memcpy(to->name, r->name, sizeof(to->name));
	to->signal = r->signal;
	to->lat_kind = r->lat_kind;
	to->lat_stat = r->lat_stat;
	to->lat_window_ns = r->lat_window_ns;
	to->lat_min_count = r->lat_min_count;
	to->scope.kind = r->scope.kind;
	to->scope.pid = r->scope.pid;
	if (copy_str(&to->scope.cgroup, r->scope.cgroup) ||
	    copy_str(&to->scope.process, r->scope.process) ||
	    copy_str(&to->lat_syscalls, r->lat_syscalls) ||
	    copy_str(&to->lat_device, r->lat_device) ||
	    copy_str(&to->lat_function, r->lat_function))
		return -ENOMEM;
	return 0;
}

static void free_rule(struct rule *r)
{
	free(r->scope.cgroup);
	free(r->scope.process);
	free(r->lat_syscalls);
	free(r->lat_device);
	free(r->lat_function);
}

struct latency_source *latency_source__new(const struct rule *r, struct latency_set *set,
					   const char *mountinfo, uint64_t poll_ns)
{
	struct latency_source *s = calloc(1, sizeof(*s));
	uint64_t slots;

	if (!s)
		return NULL;
	s->set = set;
	s->mountinfo = mountinfo;
	s->poll_ns = poll_ns ? poll_ns : 1000000000ull;
	/* Enough intervals to cover the window; one when it is unset. */
	slots = (r->lat_window_ns + s->poll_ns - 1) / s->poll_ns;
	s->slots = slots < 1 ? 1 : slots > MAX_SLOTS ? MAX_SLOTS : (unsigned)slots;
	s->window = lat_window__new(s->slots);
	if (copy_rule(&s->rule, r) || !s->window) {
		latency_source__free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void drop_probe(struct latency_source *s)
{
	latency_set__release(s->set, s->entry);
	s->entry = NULL;
	lat_window__clear(s->window);
}

void latency_source__free(struct latency_source *s)
{
	if (!s)
		return;
	if (s->entry)
		latency_set__release(s->set, s->entry);
	lat_window__free(s->window);
	free_rule(&s->rule);
	free(s);
}

/* attach - resolve the rule and take its probe. */
static int attach(struct latency_source *s, int64_t now, char *err, size_t errlen)
{
	struct latency_probe_spec *spec = malloc(sizeof(*spec));
	int e;

	if (!spec) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e = latency_spec__resolve(&s->rule, s->mountinfo, spec, &s->anchor, err, errlen);
	if (!e) {
		s->entry = latency_set__acquire(s->set, spec, err, errlen);
		if (!s->entry) {
			e = -errno;
			s->retry_after = now + RETRY_NS;
		} else {
			s->seen = latency_entry__seq(s->entry);
		}
	}
	free(spec);
	return e;
}

/* take_intervals - add what the probe measured since the last read. */
static int take_intervals(struct latency_source *s)
{
	const struct lat_hist *h;
	uint64_t span = 0;

	if (latency_entry__seq(s->entry) == s->seen)
		return 0;
	/* One interval per tick: if ticks were missed, the probe's last
	 * interval already spans them. */
	s->seen = latency_entry__seq(s->entry);
	h = latency_entry__interval(s->entry, &span);
	return h ? lat_window__push(s->window, h, span) : 0;
}

static const double quantiles[] = {
	[RULE_LAT_P50] = 0.5,
	[RULE_LAT_P90] = 0.9,
	[RULE_LAT_P99] = 0.99,
	[RULE_LAT_P999] = 0.999,
};

/* value - the rule's figure of the window. */
static int value(const struct latency_source *s, int64_t *out, char *err, size_t errlen)
{
	const struct lat_hist *h = lat_window__hist(s->window);
	uint64_t span = lat_window__span(s->window);
	char w[32];

	switch (s->rule.lat_stat) {
	case RULE_LAT_COUNT:
		*out = (int64_t)h->events;
		return 0;
	case RULE_LAT_RATE:
		*out = span ? (int64_t)((unsigned __int128)h->events * 1000 * 1000000000ull / span)
			    : 0;
		return 0;
	default:
		break;
	}
	if (h->events < s->rule.lat_min_count || !h->events) {
		units_format_duration(s->slots * s->poll_ns, w, sizeof(w));
		if (s->rule.lat_min_count > 1)
			snprintf(err, errlen, "%llu events in the last %s, fewer than min_count %u",
				 (unsigned long long)h->events, w, s->rule.lat_min_count);
		else
			snprintf(err, errlen, "no events in the last %s", w);
		return -EAGAIN;
	}
	if (s->rule.lat_stat == RULE_LAT_MAX)
		*out = (int64_t)lat_hist__max(h);
	else
		*out = (int64_t)lat_hist__percentile(h, quantiles[s->rule.lat_stat]);
	return 0;
}

int latency_source__read(struct latency_source *s, int64_t now, int64_t *out, char *err,
			 size_t errlen)
{
	int e;

	if (s->entry && latency_spec__changed(&s->anchor, err, errlen)) {
		/* Resolved again at the next read: the new cgroup, process or
		 * binary gets a probe of its own. */
		drop_probe(s);
		return -ENOENT;
	}
	if (!s->entry) {
		if (now < s->retry_after) {
			snprintf(err, errlen, "probe not loaded; retrying in %llds",
				 (long long)((s->retry_after - now) / 1000000000));
			return -EAGAIN;
		}
		e = attach(s, now, err, errlen);
		return e ? e : -EAGAIN;
	}
	e = take_intervals(s);
	if (e) {
		snprintf(err, errlen, "out of memory");
		return e;
	}
	if (!lat_window__filled(s->window)) {
		snprintf(err, errlen, "no interval measured yet");
		return -EAGAIN;
	}
	return value(s, out, err, errlen);
}

const struct lat_hist *latency_source__window(const struct latency_source *s, uint64_t *span_ns)
{
	if (!s->entry || !lat_window__filled(s->window))
		return NULL;
	*span_ns = lat_window__span(s->window);
	return lat_window__hist(s->window);
}

const struct latency_probe_spec *latency_source__spec(const struct latency_source *s)
{
	return s->entry ? latency_entry__spec(s->entry) : NULL;
}
