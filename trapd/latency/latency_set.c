// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_set.c - shared, reference-counted latency probes. */
#include "trapd/latency/latency_set.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/util/clock.h"
#include "trapd/util/log.h"

struct latency_entry {
	struct latency_entry *next;
	struct latency_probe_spec spec;
	struct latency_probe *probe;
	unsigned refs;
	uint64_t seq;
	bool have_interval;
	int64_t last_read; /* when it was attached or last read (CLOCK_MONOTONIC) */
	uint64_t span_ns;
	struct lat_hist cumulative; /* at the last read */
	struct lat_hist interval;   /* since the read before */
};

struct latency_set {
	struct latency_entry *head;
	size_t n;
};

struct latency_set *latency_set__new(void)
{
	return calloc(1, sizeof(struct latency_set));
}

static void entry_free(struct latency_entry *e)
{
	latency_probe__free(e->probe);
	free(e);
}

void latency_set__free(struct latency_set *s)
{
	struct latency_entry *e, *next;

	if (!s)
		return;
	for (e = s->head; e; e = next) {
		next = e->next;
		entry_free(e);
	}
	free(s);
}

struct latency_entry *latency_set__acquire(struct latency_set *s,
					   const struct latency_probe_spec *spec, char *err,
					   size_t errlen)
{
	struct latency_entry *e;

	for (e = s->head; e; e = e->next) {
		if (!memcmp(&e->spec, spec, sizeof(*spec))) {
			e->refs++;
			return e;
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	e->spec = *spec;
	e->probe = latency_probe__open(spec, err, errlen);
	if (!e->probe) {
		int saved = errno;

		free(e);
		errno = saved;
		return NULL;
	}
	e->refs = 1;
	/* It counts from zero from now: the first tick ends a whole interval. */
	e->last_read = clock_mono_ns();
	e->next = s->head;
	s->head = e;
	s->n++;
	log_info("latency probe loaded: %s (%zu in all)", latency_kind__name(spec->kind), s->n);
	return e;
}

void latency_set__release(struct latency_set *s, struct latency_entry *e)
{
	struct latency_entry **pp;

	if (!e || --e->refs)
		return;
	for (pp = &s->head; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	s->n--;
	log_info("latency probe detached: %s (%zu left)", latency_kind__name(e->spec.kind), s->n);
	entry_free(e);
}

static void entry_tick(struct latency_entry *e, int64_t now)
{
	struct lat_hist *now_cum = malloc(sizeof(*now_cum));
	int err;

	if (!now_cum)
		return;
	err = latency_probe__read(e->probe, now_cum);
	if (err) {
		log_warn("reading the %s latency histogram: %s", latency_kind__name(e->spec.kind),
			 strerror(-err));
		e->have_interval = false;
	} else {
		lat_hist__delta(&e->interval, now_cum, &e->cumulative);
		e->cumulative = *now_cum;
		e->span_ns = (uint64_t)(now - e->last_read);
		e->last_read = now;
		e->have_interval = true;
		e->seq++;
	}
	free(now_cum);
}

void latency_set__tick(struct latency_set *s, int64_t now)
{
	struct latency_entry *e;

	for (e = s->head; e; e = e->next)
		entry_tick(e, now);
}

size_t latency_set__count(const struct latency_set *s)
{
	return s ? s->n : 0;
}

uint64_t latency_entry__seq(const struct latency_entry *e)
{
	return e->seq;
}

const struct lat_hist *latency_entry__interval(const struct latency_entry *e, uint64_t *span_ns)
{
	if (!e->have_interval)
		return NULL;
	*span_ns = e->span_ns;
	return &e->interval;
}

const struct latency_probe_spec *latency_entry__spec(const struct latency_entry *e)
{
	return &e->spec;
}
