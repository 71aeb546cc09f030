// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fleet_filter.c - which captures a command wants (fleet_filter.h). */
#include "trapd/fleet/fleet_filter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rules/units.h"
#include "trapd/fleet/fleet_time.h"

static int add_to(const char **list, size_t *n, const char *option, const char *value, char *err,
		  size_t errlen)
{
	if (*n == FLEET_FILTER_MAX) {
		snprintf(err, errlen, "%s: at most %d of them", option, FLEET_FILTER_MAX);
		return -EINVAL;
	}
	if (!*value) {
		snprintf(err, errlen, "%s: an empty value", option);
		return -EINVAL;
	}
	list[(*n)++] = value;
	return 0;
}

/* parse_time - ISO 8601 (UTC), or a duration ago. */
static int parse_time(const char *option, const char *value, int64_t now_ns, int64_t *out,
		      char *err, size_t errlen)
{
	uint64_t ago;

	if (!fleet_time__parse_iso(value, out))
		return 0;
	if (!units_parse_duration(value, &ago) && ago <= (uint64_t)now_ns) {
		*out = now_ns - (int64_t)ago;
		return 0;
	}
	snprintf(err, errlen,
		 "%s '%s': expected a UTC time (2026-11-25, 2026-11-25T10:30:00Z) or a "
		 "duration before now (90m, 2h, 7d)",
		 option, value);
	return -EINVAL;
}

int fleet_filter__add(struct fleet_filter *f, const char *option, const char *value, int64_t now_ns,
		      char *err, size_t errlen)
{
	if (!strcmp(option, "--since"))
		return parse_time(option, value, now_ns, &f->since_ns, err, errlen);
	if (!strcmp(option, "--until"))
		return parse_time(option, value, now_ns, &f->until_ns, err, errlen);
	if (!strcmp(option, "--host"))
		return add_to(f->hosts, &f->nhosts, option, value, err, errlen);
	if (!strcmp(option, "--rule"))
		return add_to(f->rules, &f->nrules, option, value, err, errlen);
	if (!strcmp(option, "--trigger"))
		return add_to(f->triggers, &f->ntriggers, option, value, err, errlen);
	if (!strcmp(option, "--label")) {
		const char *eq = strchr(value, '=');

		if (!eq || eq == value) {
			snprintf(err, errlen, "--label '%s': expected KEY=VALUE", value);
			return -EINVAL;
		}
		return add_to(f->labels, &f->nlabels, option, value, err, errlen);
	}
	snprintf(err, errlen, "%s: not a filter", option);
	return -EINVAL;
}

static bool any_of(const char *const *list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return !n;
}

bool fleet_filter__host(const struct fleet_filter *f, const char *host)
{
	return any_of(f->hosts, f->nhosts, host);
}

bool fleet_filter__day(const struct fleet_filter *f, int day)
{
	if (f->since_ns && day < fleet_time__day(f->since_ns))
		return false;
	return !f->until_ns || day <= fleet_time__day(f->until_ns);
}

/* whole_days - whether the time range is whole days, which the keys' day
 * answers: a start at midnight, no end. */
static bool whole_days(const struct fleet_filter *f)
{
	return !f->until_ns &&
	       (!f->since_ns || f->since_ns == fleet_time__day_start(fleet_time__day(f->since_ns)));
}

bool fleet_filter__needs_details(const struct fleet_filter *f)
{
	return f->nrules || f->nlabels || f->ntriggers || !whole_days(f);
}

static bool label_matches(const struct fleet_capture *c, const char *kv)
{
	size_t klen = strcspn(kv, "=");
	char key[sizeof(c->labels[0].key)];
	const char *v;

	snprintf(key, sizeof(key), "%.*s", (int)klen, kv);
	v = fleet_capture__label(c, key);
	return v && !strcmp(v, kv + klen + 1);
}

/* labels_match - every label key asked for has one of its values. */
static bool labels_match(const struct fleet_filter *f, const struct fleet_capture *c)
{
	size_t i, j, klen;
	bool ok;

	for (i = 0; i < f->nlabels; i++) {
		klen = strcspn(f->labels[i], "=");
		ok = false;
		for (j = 0; j < f->nlabels && !ok; j++)
			ok = !strncmp(f->labels[j], f->labels[i], klen + 1) &&
			     label_matches(c, f->labels[j]);
		if (!ok)
			return false;
	}
	return true;
}

static bool rules_match(const struct fleet_filter *f, const struct fleet_capture *c)
{
	size_t i;

	for (i = 0; i < f->nrules; i++)
		if (fleet_capture__has_rule(c, f->rules[i]))
			return true;
	return !f->nrules;
}

bool fleet_filter__match(const struct fleet_filter *f, const struct fleet_capture *c)
{
	if (!fleet_filter__host(f, c->host) || !fleet_filter__day(f, c->day))
		return false;
	if (!fleet_filter__needs_details(f))
		return true;
	if (!c->described)
		return false;
	if ((f->since_ns && c->start_ns < f->since_ns) ||
	    (f->until_ns && c->start_ns > f->until_ns))
		return false;
	return any_of(f->triggers, f->ntriggers, c->trigger) && rules_match(f, c) &&
	       labels_match(f, c);
}
