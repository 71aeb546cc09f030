// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fleet_merge.c - which group a capture is summed into (fleet_merge.h). */
#include "trapd/fleet/fleet_merge.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NONE "(none)"
#define VALUES_MAX 16 /* values of one key a capture has (its rules) */

int fleet_group_key__parse(const char *s, struct fleet_group_key *k, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum fleet_group_kind kind;
	} kinds[] = { { "host", FLEET_GROUP_HOST },
		      { "rule", FLEET_GROUP_RULE },
		      { "day", FLEET_GROUP_DAY },
		      { "trigger", FLEET_GROUP_TRIGGER } };
	size_t i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(s, kinds[i].name)) {
			k->kind = kinds[i].kind;
			return 0;
		}
	if (!strncmp(s, "label:", 6) && s[6] && strlen(s + 6) < sizeof(k->label)) {
		k->kind = FLEET_GROUP_LABEL;
		snprintf(k->label, sizeof(k->label), "%s", s + 6);
		return 0;
	}
	snprintf(err, errlen, "--group-by '%s': expected host, rule, day, trigger or label:KEY", s);
	return -EINVAL;
}

static bool seen(char (*names)[FLEET_GROUP_NAME_MAX], size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* values - the values of @k for @c into @out (one, or a rule each). */
static size_t values(const struct fleet_capture *c, const struct fleet_group_key *k,
		     char (*out)[FLEET_GROUP_NAME_MAX])
{
	const char *v = NULL, *p;
	size_t n = 0, len;

	switch (k->kind) {
	case FLEET_GROUP_HOST:
		v = c->host;
		break;
	case FLEET_GROUP_TRIGGER:
		v = c->trigger;
		break;
	case FLEET_GROUP_LABEL:
		v = fleet_capture__label(c, k->label);
		break;
	case FLEET_GROUP_DAY:
		snprintf(out[0], FLEET_GROUP_NAME_MAX, "day=%04d-%02d-%02d", c->day / 10000,
			 c->day / 100 % 100, c->day % 100);
		return 1;
	case FLEET_GROUP_RULE:
		for (p = c->rules; *p && n < VALUES_MAX; p += len + (p[len] == ',')) {
			len = strcspn(p, ",");
			snprintf(out[n], FLEET_GROUP_NAME_MAX, "rule=%.*s", (int)len, p);
			n += !seen(out, n, out[n]); /* "a,a" from a store is one rule */
		}
		if (!n)
			snprintf(out[n++], FLEET_GROUP_NAME_MAX, "rule=" NONE);
		return n;
	}
	snprintf(out[0], FLEET_GROUP_NAME_MAX, "%s%s=%.400s",
		 k->kind == FLEET_GROUP_LABEL ? "label:" : "",
		 k->kind == FLEET_GROUP_HOST	  ? "host"
		 : k->kind == FLEET_GROUP_TRIGGER ? "trigger"
						  : k->label,
		 v && *v ? v : NONE);
	return 1;
}

size_t fleet_merge__groups(const struct fleet_capture *c, const struct fleet_group_key *keys,
			   size_t nkeys, char (*names)[FLEET_GROUP_NAME_MAX], size_t max)
{
	char vals[VALUES_MAX][FLEET_GROUP_NAME_MAX];
	size_t n = 1, i, j, nv, have, len;

	if (!max)
		return 0;
	snprintf(names[0], FLEET_GROUP_NAME_MAX, "%s", nkeys ? "" : "all");
	for (i = 0; i < nkeys; i++) {
		nv = values(c, &keys[i], vals);
		have = n;
		/* every name so far, once for each value (the last in place) */
		for (j = 1; j < nv; j++)
			for (size_t g = 0; g < have && n < max; g++)
				memcpy(names[n++], names[g], FLEET_GROUP_NAME_MAX);
		for (j = 0; j < n; j++) {
			len = strlen(names[j]);
			snprintf(names[j] + len, FLEET_GROUP_NAME_MAX - len, "%s%s", len ? "," : "",
				 vals[j / have < nv ? j / have : nv - 1]);
		}
	}
	return n;
}

void fleet_merge__file_name(const char *group, char *out, size_t len)
{
	size_t n = 0;

	for (; *group && n + 1 < len; group++) {
		unsigned char ch = (unsigned char)*group;

		out[n++] = isalnum(ch) || ch == '.' || ch == '-' || ch == '_' ? (char)ch
			   : ch == '='					      ? '-'
			   : ch == ':'					      ? '-'
									      : '_';
	}
	out[n] = '\0';
}
