// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile_where.c - keep the samples whose labels say so (profile_where.h). */
#include "trapd/profile/profile_where.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const label_names[PROFILE_LABEL_NR] = {
	[PROFILE_LABEL_CALL] = "call", [PROFILE_LABEL_STATE] = "state",
	[PROFILE_LABEL_COMM] = "comm", [PROFILE_LABEL_CGROUP] = "cgroup",
	[PROFILE_LABEL_PID] = "pid",   [PROFILE_LABEL_TID] = "tid",
	[PROFILE_LABEL_RUN] = "run",
};

const char *profile_label__name(enum profile_label l)
{
	return (unsigned)l < PROFILE_LABEL_NR ? label_names[l] : "?";
}

static bool is_number(enum profile_label l)
{
	return l == PROFILE_LABEL_PID || l == PROFILE_LABEL_TID || l == PROFILE_LABEL_RUN;
}

static int parse_label(const char *name, size_t len, enum profile_label *out)
{
	int i;

	for (i = 0; i < PROFILE_LABEL_NR; i++) {
		if (strlen(label_names[i]) == len && !strncmp(name, label_names[i], len)) {
			*out = (enum profile_label)i;
			return 0;
		}
	}
	return -EINVAL;
}

int profile_where__add(struct profile_where *w, const char *text, char *err, size_t errlen)
{
	const char *eq = strchr(text, '=');
	struct profile_where_cond c = { .value = eq ? eq + 1 : NULL };
	char *end;

	if (!eq || eq == text) {
		snprintf(err, errlen, "'%s': expected LABEL=VALUE, like call=slow", text);
		return -EINVAL;
	}
	if (parse_label(text, (size_t)(eq - text), &c.label)) {
		snprintf(err, errlen,
			 "'%s': no label '%.*s'; expected call, state, comm, cgroup, pid, tid or "
			 "run",
			 text, (int)(eq - text), text);
		return -EINVAL;
	}
	if (is_number(c.label)) {
		errno = 0;
		c.num = strtoll(c.value, &end, 10);
		if (errno || end == c.value || *end) {
			snprintf(err, errlen, "'%s': %s is a number", text, label_names[c.label]);
			return -EINVAL;
		}
	}
	if (w->n >= PROFILE_WHERE_MAX) {
		snprintf(err, errlen, "'%s': at most %d conditions", text, PROFILE_WHERE_MAX);
		return -EINVAL;
	}
	w->conds[w->n++] = c;
	return 0;
}

/* string_of - the string index of @s's @label; 0: the sample has none. */
static uint32_t string_of(const struct profile_sample *s, enum profile_label label)
{
	switch (label) {
	case PROFILE_LABEL_CALL:
		return s->call;
	case PROFILE_LABEL_STATE:
		return s->state;
	case PROFILE_LABEL_COMM:
		return s->comm;
	case PROFILE_LABEL_CGROUP:
		return s->cgroup;
	default:
		return 0;
	}
}

static int64_t number_of(const struct profile_sample *s, enum profile_label label)
{
	switch (label) {
	case PROFILE_LABEL_PID:
		return s->pid;
	case PROFILE_LABEL_TID:
		return s->tid;
	default:
		return s->run;
	}
}

static bool cond_holds(const struct profile_where_cond *c, const struct profile *p,
		       const struct profile_sample *s)
{
	uint32_t str;

	if (is_number(c->label))
		return number_of(s, c->label) == c->num &&
		       (c->label != PROFILE_LABEL_RUN || s->run != 0);
	str = string_of(s, c->label);
	return str && !strcmp(profile__str(p, str), c->value);
}

bool profile_where__match(const struct profile_where *w, const struct profile *p,
			  const struct profile_sample *s)
{
	bool asked[PROFILE_LABEL_NR] = { false }, met[PROFILE_LABEL_NR] = { false };
	size_t i;
	int l;

	for (i = 0; i < w->n; i++) {
		asked[w->conds[i].label] = true;
		if (!met[w->conds[i].label])
			met[w->conds[i].label] = cond_holds(&w->conds[i], p, s);
	}
	for (l = 0; l < PROFILE_LABEL_NR; l++)
		if (asked[l] && !met[l])
			return false;
	return true;
}

size_t profile_where__apply(struct profile *p, const struct profile_where *w)
{
	size_t i, kept = 0;

	for (i = 0; i < p->nsamples; i++)
		if (profile_where__match(w, p, &p->samples[i]))
			p->samples[kept++] = p->samples[i];
	p->nsamples = kept;
	return kept;
}

char *profile_where__describe(const struct profile_where *w, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < w->n && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "",
			     label_names[w->conds[i].label], w->conds[i].value);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int by_number(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Distinct values listed at most; a label with more says "...". */
#define VALUES_MAX 64

char *profile_where__values(const struct profile *p, enum profile_label label, char *buf,
			    size_t len)
{
	const char *names[VALUES_MAX];
	int64_t nums[VALUES_MAX];
	size_t i, k, n = 0, used = 0;
	bool more = false;
	int w;

	for (i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];
		uint32_t str = string_of(s, label);
		int64_t num = number_of(s, label);

		if (is_number(label) ? (label == PROFILE_LABEL_RUN && !num) : !str)
			continue;
		for (k = 0; k < n; k++)
			if (is_number(label) ? nums[k] == num
					     : !strcmp(names[k], profile__str(p, str)))
				break;
		if (k < n)
			continue;
		if (n == VALUES_MAX) {
			more = true;
			continue;
		}
		if (is_number(label))
			nums[n++] = num;
		else
			names[n++] = profile__str(p, str);
	}
	if (is_number(label))
		qsort(nums, n, sizeof(*nums), by_number);
	else
		qsort(names, n, sizeof(*names), by_string);
	if (len)
		snprintf(buf, len, "none");
	for (k = 0; k < n && used < len; k++) {
		if (is_number(label))
			w = snprintf(buf + used, len - used, "%s%" PRId64, k ? ", " : "", nums[k]);
		else
			w = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", names[k]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	if (more && used < len)
		snprintf(buf + used, len - used, ", ...");
	return buf;
}
