// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* evaluator.c - the firing rules: for, clear, clear_for, cooldown, limits. */
#include "rules/evaluator.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule_words.h" /* rule__format_value, for the reasons it gives */

#define NSEC_PER_SEC 1000000000ll
#define HOUR_NS (3600 * NSEC_PER_SEC)
#define DAY_NS (24 * HOUR_NS)

static const char *const state_names[] = {
	[RULE_STATE_NO_DATA] = "no data",	[RULE_STATE_ARMED] = "armed",
	[RULE_STATE_HOLDING] = "holding",	[RULE_STATE_FIRED] = "fired",
	[RULE_STATE_COOLDOWN] = "cooling down", [RULE_STATE_LIMITED] = "limited",
};

const char *rule_state__name(enum rule_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

void rule_eval__init(struct rule_eval *e)
{
	memset(e, 0, sizeof(*e));
	e->state = RULE_STATE_NO_DATA;
	e->breach_since = -1;
	e->clear_since = -1;
	e->last_fired = -1;
	rule_eval__say(e, "no value read yet");
}

void rule_eval__say(struct rule_eval *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	e->reason = EVAL_REASON_TEXT;
}

/* reason - the decision's figures, worded when asked. */
static void reason(struct rule_eval *e, enum eval_reason why, int64_t span_ns)
{
	e->reason = why;
	e->reason_ns = span_ns;
}

size_t rule_eval__history_points(const struct rules_global *g)
{
	uint64_t n = g->poll_interval_ns ? g->history_ns / g->poll_interval_ns + 1 : 1;

	return n > EVAL_HISTORY_MAX ? EVAL_HISTORY_MAX : (size_t)n;
}

int rule_eval__size_history(struct rule_eval *e, size_t points)
{
	struct eval_point *h = NULL;
	size_t keep, i;

	if (points > EVAL_HISTORY_MAX)
		points = EVAL_HISTORY_MAX;
	if (points == e->hist_cap)
		return 0;
	if (points && !(h = calloc(points, sizeof(*h))))
		return -ENOMEM;
	keep = e->hist_n < points ? e->hist_n : points;
	for (i = 0; i < keep; i++) /* the newest @keep, oldest first */
		h[i] = e->history[(e->hist_head + e->hist_n - keep + i) % e->hist_cap];
	free(e->history);
	e->history = h;
	e->hist_cap = points;
	e->hist_head = 0;
	e->hist_n = keep;
	return 0;
}

void rule_eval__free(struct rule_eval *e)
{
	free(e->history);
	e->history = NULL;
	e->hist_cap = e->hist_head = e->hist_n = 0;
}

/* --- fire times ---------------------------------------------------------- */

static void fires_forget_before(struct eval_fires *f, int64_t t)
{
	while (f->n && f->t[f->head] < t) {
		f->head = (f->head + 1) % EVAL_FIRES_MAX;
		f->n--;
	}
}

static void fires_push(struct eval_fires *f, int64_t now)
{
	fires_forget_before(f, now - DAY_NS);
	if (f->n == EVAL_FIRES_MAX) { /* limits are at most EVAL_FIRES_MAX a day */
		f->head = (f->head + 1) % EVAL_FIRES_MAX;
		f->n--;
	}
	f->t[(f->head + f->n) % EVAL_FIRES_MAX] = now;
	f->n++;
}

size_t eval_fires__count(const struct eval_fires *f, int64_t now, int64_t span_ns)
{
	size_t i, n = 0;

	for (i = f->n; i > 0; i--) {
		if (f->t[(f->head + i - 1) % EVAL_FIRES_MAX] <= now - span_ns)
			break;
		n++;
	}
	return n;
}

/* limit_reached - the first of the four limits that stops a fire at
 * @now, described in @buf; NULL when none does. */
static const char *limit_reached(const struct rule_eval *e, const struct rule *r,
				 const struct rules_global *g, const struct eval_fires *global,
				 int64_t now, char *buf, size_t len)
{
	const struct {
		const struct eval_fires *f;
		uint32_t max;
		int64_t span;
		const char *whose, *per;
	} limits[] = {
		{ &e->fires, r->max_per_hour, HOUR_NS, "the rule's", "hour" },
		{ &e->fires, r->max_per_day, DAY_NS, "the rule's", "day" },
		{ global, g->max_per_hour, HOUR_NS, "the global", "hour" },
		{ global, g->max_per_day, DAY_NS, "the global", "day" },
	};
	size_t i;

	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		if (!limits[i].max ||
		    eval_fires__count(limits[i].f, now, limits[i].span) < limits[i].max)
			continue;
		snprintf(buf, len, "%s limit of %u per %s", limits[i].whose, limits[i].max,
			 limits[i].per);
		return buf;
	}
	return NULL;
}

/* --- history ------------------------------------------------------------- */

static void history_push(struct rule_eval *e, int64_t now, int64_t value)
{
	struct eval_point *p;

	if (!e->hist_cap)
		return;
	if (e->hist_n == e->hist_cap) {
		e->hist_head = (e->hist_head + 1) % e->hist_cap;
		e->hist_n--;
	}
	p = &e->history[(e->hist_head + e->hist_n) % e->hist_cap];
	p->t_ns = now;
	p->value = value;
	e->hist_n++;
}

size_t rule_eval__history(const struct rule_eval *e, int64_t now, int64_t span_ns,
			  struct eval_point *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < e->hist_n && n < max; i++) {
		const struct eval_point *p = &e->history[(e->hist_head + i) % e->hist_cap];

		if (p->t_ns >= now - span_ns && p->t_ns <= now)
			out[n++] = *p;
	}
	return n;
}

/* --- the decision -------------------------------------------------------- */

static bool in_breach(const struct rule *r, int64_t v)
{
	return r->above ? v > r->threshold : v < r->threshold;
}

static bool is_clear(const struct rule *r, int64_t v)
{
	return r->above ? v <= r->clear : v >= r->clear;
}

/* dur - a duration for people: "250ms", "2.5s", "4m52s", "1h02m". */
static const char *dur(int64_t ns, char *buf)
{
	long long ms = ns > 0 ? (ns + 500000) / 1000000 : 0, s = (ms + 50) / 1000;

	if (ms < 1000)
		snprintf(buf, 32, "%lldms", ms);
	else if (ms < 60000 && (ms + 50) % 1000 / 100)
		snprintf(buf, 32, "%lld.%llds", (ms + 50) / 1000, (ms + 50) % 1000 / 100);
	else if (ms < 60000)
		snprintf(buf, 32, "%llds", (ms + 50) / 1000);
	else if (s < 3600)
		snprintf(buf, 32, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, 32, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	if (ms == 0)
		snprintf(buf, 32, "0s");
	return buf;
}

static const char *dir(const struct rule *r)
{
	return r->above ? "above" : "below";
}

/* still_latched - a fired rule re-arms once its value has been clear for
 * clear_for. Returns true (and says why) while it has not. */
static bool still_latched(struct rule_eval *e, const struct rule *r, int64_t now)
{
	if (!is_clear(r, e->value)) {
		e->clear_since = -1;
	} else {
		if (e->clear_since < 0)
			e->clear_since = now;
		if (now - e->clear_since >= (int64_t)r->clear_for_ns) {
			e->clear_since = -1;
			return false;
		}
	}
	if (e->clear_since < 0)
		reason(e, EVAL_REASON_LATCHED, 0);
	else
		reason(e, EVAL_REASON_CLEARING, now - e->clear_since);
	e->state = RULE_STATE_FIRED;
	return true;
}

static bool cooling(const struct rule_eval *e, const struct rule *r, int64_t now)
{
	return e->last_fired >= 0 && now - e->last_fired < (int64_t)r->cooldown_ns;
}

static enum eval_verdict fire(struct rule_eval *e, const struct rule *r,
			      const struct rules_global *g, struct eval_fires *global, int64_t now)
{
	char v[48], t[48], d[32];

	rule_eval__say(e, "fired: %s %s %s for %s", rule__format_value(r, e->value, v, sizeof(v)),
		       dir(r), rule__format_value(r, r->threshold, t, sizeof(t)),
		       dur(now - e->breach_since, d));
	evaluator__record_fire(e, global, now);
	e->state = RULE_STATE_FIRED;
	return r->dry_run || g->dry_run ? EVAL_DRY_RUN : EVAL_FIRE;
}

/* breach_held - the value is in breach; decide between holding, cooling,
 * limited and firing. */
static enum eval_verdict breach_held(struct rule_eval *e, const struct rule *r,
				     const struct rules_global *g, struct eval_fires *global,
				     int64_t now)
{
	char t[48], d[32], lim[64];
	int64_t held;
	bool was_limited = e->state == RULE_STATE_LIMITED;

	if (e->breach_since < 0)
		e->breach_since = now;
	held = now - e->breach_since;
	if (held < (int64_t)r->for_ns) {
		e->state = RULE_STATE_HOLDING;
		reason(e, EVAL_REASON_HOLDING, held);
		return EVAL_NONE;
	}
	if (cooling(e, r, now)) {
		e->state = RULE_STATE_COOLDOWN;
		reason(e, EVAL_REASON_COOLING, e->last_fired + (int64_t)r->cooldown_ns - now);
		return EVAL_NONE;
	}
	if (limit_reached(e, r, g, global, now, lim, sizeof(lim))) {
		e->state = RULE_STATE_LIMITED;
		if (!was_limited) /* one suppressed capture per breach, not per poll */
			e->suppressed++;
		rule_eval__say(e, "%s %s for %s, but %s is reached", dir(r),
			       rule__format_value(r, r->threshold, t, sizeof(t)), dur(held, d),
			       lim);
		return EVAL_NONE;
	}
	return fire(e, r, g, global, now);
}

enum eval_verdict evaluator__observe(struct rule_eval *e, const struct rule *r,
				     const struct rules_global *g, struct eval_fires *global_fires,
				     int64_t now, int err, int64_t value)
{
	if (err) {
		e->have_value = false;
		e->breach_since = -1;
		e->clear_since = -1;
		if (e->state != RULE_STATE_FIRED)
			e->state = RULE_STATE_NO_DATA;
		rule_eval__say(e, "no value: %s", strerror(-err));
		return EVAL_NONE;
	}
	e->have_value = true;
	e->value = value;
	e->value_ns = now;
	history_push(e, now, value);
	if (e->state == RULE_STATE_FIRED && still_latched(e, r, now))
		return EVAL_NONE;
	if (in_breach(r, value))
		return breach_held(e, r, g, global_fires, now);
	e->breach_since = -1;
	if (cooling(e, r, now)) {
		e->state = RULE_STATE_COOLDOWN;
		reason(e, EVAL_REASON_ARMED_COOLING, e->last_fired + (int64_t)r->cooldown_ns - now);
	} else {
		e->state = RULE_STATE_ARMED;
		reason(e, EVAL_REASON_ARMED, 0);
	}
	return EVAL_NONE;
}

const char *rule_eval__why(const struct rule_eval *e, const struct rule *r, char *buf, size_t len)
{
	char v[48], t[48], d1[32], d2[32];

	if (e->reason == EVAL_REASON_TEXT) {
		snprintf(buf, len, "%s", e->why);
		return buf;
	}
	rule__format_value(r, e->value, v, sizeof(v));
	rule__format_value(r, r->threshold, t, sizeof(t));
	switch (e->reason) {
	case EVAL_REASON_ARMED:
		snprintf(buf, len, "%s is not %s %s", v, dir(r), t);
		break;
	case EVAL_REASON_ARMED_COOLING:
		snprintf(buf, len, "%s is not %s %s; cooling down for %s more", v, dir(r), t,
			 dur(e->reason_ns, d1));
		break;
	case EVAL_REASON_HOLDING:
		snprintf(buf, len, "%s %s for %s of %s", dir(r), t, dur(e->reason_ns, d1),
			 dur((int64_t)r->for_ns, d2));
		break;
	case EVAL_REASON_COOLING:
		snprintf(buf, len, "%s %s, but cooling down for %s more", dir(r), t,
			 dur(e->reason_ns, d1));
		break;
	case EVAL_REASON_LATCHED:
		snprintf(buf, len, "fired; re-arms once the value is back %s %s",
			 r->above ? "to or below" : "to or above",
			 rule__format_value(r, r->clear, v, sizeof(v)));
		break;
	case EVAL_REASON_CLEARING:
		snprintf(buf, len, "fired; clear for %s of %s", dur(e->reason_ns, d1),
			 dur((int64_t)r->clear_for_ns, d2));
		break;
	case EVAL_REASON_TEXT:
		break;
	}
	return buf;
}

void evaluator__record_fire(struct rule_eval *e, struct eval_fires *global_fires, int64_t now)
{
	fires_push(&e->fires, now);
	fires_push(global_fires, now);
	e->last_fired = now;
	e->fired++;
	e->breach_since = -1;
	e->clear_since = -1;
}
