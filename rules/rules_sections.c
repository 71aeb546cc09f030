// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_sections.c - the sections of the rules file as the lexer meets
 * them ([global], [labels], [upload], [rule NAME], unknown ones), each
 * key to its section, and the checks that need the whole file: rule
 * durations against max_window, history against poll_interval, unique
 * names. A [rule NAME] is checked by rules_rule.c once read, [upload] by
 * rules_upload.c at the end. */
#include "rules/rules_sections.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/evaluator.h" /* EVAL_HISTORY_MAX */
#include "rules/rules_keys.h"
#include "rules/rules_rule.h"
#include "rules/rules_upload.h"
#include "rules/units.h"

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

static bool good_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n >= 1 && n <= max && strspn(s, NAME_CHARS) == n;
}

/* --- sections -------------------------------------------------------------- */

/* grow_rules - room for one more rule and its meta. */
static int grow_rules(struct rules_parser *p)
{
	struct rules *r = p->r;
	size_t cap = p->rules_cap ? p->rules_cap * 2 : 8;
	struct rules_rule_meta *meta;
	struct rule *rules;

	if (r->nrules < p->rules_cap)
		return 0;
	rules = reallocarray(r->rules, cap, sizeof(*rules));
	if (!rules)
		return -ENOMEM;
	r->rules = rules;
	meta = reallocarray(p->meta, cap, sizeof(*meta));
	if (!meta)
		return -ENOMEM;
	p->meta = meta;
	p->rules_cap = cap;
	return 0;
}

/* end_rule - check the rule being read, if any, and keep it (a rule with
 * errors too: the end-of-file checks look at what of it is good). */
static void end_rule(struct rules_parser *p)
{
	struct rules_raw_rule *raw = &p->raw;
	struct rules *r = p->r;
	struct rule *rule;
	int k;

	if (p->sect != SECT_RULE)
		return;
	p->sect = SECT_SKIP;
	if (grow_rules(p)) {
		rules_parser__nomem(p);
	} else {
		rule = &r->rules[r->nrules];
		memset(rule, 0, sizeof(*rule));
		memcpy(rule->name, raw->name, sizeof(rule->name));
		rules_rule__check(p, raw, rule, &p->meta[r->nrules]);
		r->nrules++;
	}
	for (k = 0; k < RK_NR; k++) {
		free(raw->val[k]);
		raw->val[k] = NULL;
		raw->vline[k] = 0;
	}
}

/* start_rule - a [rule NAME] header; @name is what follows "rule". */
static void start_rule(struct rules_parser *p, int line, const char *name)
{
	struct rules_raw_rule *raw = &p->raw;
	char q[80];

	name += strspn(name, " \t");
	if (p->r->nrules >= RULES_RULES_MAX) {
		/* reported once; the rest of the file is still read for its
		 * other errors, but no more rules are kept */
		if (!p->too_many)
			rules_parser__error(p, line, NULL, NULL,
					    "too many rules (limit %d); split the rules between "
					    "hosts or merge rules that watch the same thing",
					    RULES_RULES_MAX);
		p->too_many = true;
		p->sect = SECT_SKIP;
		return;
	}
	p->sect = SECT_RULE;
	raw->line = line;
	raw->name[0] = '\0';
	snprintf(p->section, sizeof(p->section), "[rule%s%s]", *name ? " " : "",
		 rules_value__quote(name, q, sizeof(q)));
	memcpy(raw->section, p->section, sizeof(raw->section));
	if (!*name)
		rules_parser__error(p, line, p->section, NULL, "a rule needs a name: [rule NAME]");
	else if (!good_name(name, RULE_NAME_MAX - 1))
		rules_parser__error(p, line, p->section, NULL,
				    "bad rule name; expected 1 to %d letters, digits, '_', '.' or "
				    "'-'",
				    RULE_NAME_MAX - 1);
	else
		snprintf(raw->name, sizeof(raw->name), "%s", name);
}

/* start_once - [global] or [labels]: a second header is an error, but
 * its keys are still checked (as if the first went on). */
static void start_once(struct rules_parser *p, int line, enum section sect, int *first)
{
	p->sect = sect;
	snprintf(p->section, sizeof(p->section), "[%s]",
		 sect == SECT_GLOBAL   ? "global"
		 : sect == SECT_UPLOAD ? "upload"
				       : "labels");
	if (*first)
		rules_parser__error(p, line, p->section, NULL,
				    "appears twice (first on line %d); put its keys in one section",
				    *first);
	else
		*first = line;
}

static int on_section(void *ctx, int line, const char *name)
{
	struct rules_parser *p = ctx;
	char q[80];

	end_rule(p);
	p->sect = SECT_SKIP;
	if (!name)
		return 0;
	if (!strcmp(name, "global"))
		start_once(p, line, SECT_GLOBAL, &p->global_line);
	else if (!strcmp(name, "labels"))
		start_once(p, line, SECT_LABELS, &p->labels_line);
	else if (!strcmp(name, "upload"))
		start_once(p, line, SECT_UPLOAD, &p->upload_line);
	else if (!strncmp(name, "rule", 4) && strchr(" \t", name[4])) /* or [rule] */
		start_rule(p, line, name + 4);
	else
		rules_parser__error(p, line, NULL, NULL,
				    "[%s]: unknown section; expected [global], [labels], "
				    "[upload] or [rule NAME]",
				    rules_value__quote(name, q, sizeof(q)));
	return p->nomem ? -ENOMEM : 0;
}

/* --- keys ------------------------------------------------------------------ */

static void unknown_key(struct rules_parser *p, int line, const char *key,
			const struct rules_key *keys, int n)
{
	const char *meant = rules_keys__meant(keys, n, key);
	char q[80], list[360];

	if (meant)
		rules_parser__error(p, line, p->section, rules_value__quote(key, q, sizeof(q)),
				    "unknown key; did you mean %s?", meant);
	else
		rules_parser__error(p, line, p->section, rules_value__quote(key, q, sizeof(q)),
				    "unknown key; expected one of %s",
				    rules_keys__list(keys, n, list, sizeof(list)));
}

/* A section of plain keys ([global], [upload]): its table, where each key
 * was set, which were bad, and the struct they fill. */
struct plain_section {
	const struct rules_key *keys;
	int n;
	int *lines;
	bool *bad;
	void *base;
};

static void plain_key(struct rules_parser *p, const struct plain_section *s, int line,
		      const char *key, const char *value)
{
	int k = rules_keys__find(s->keys, s->n, key), err;
	char msg[MSG_MAX], q[96];

	if (k < 0) {
		unknown_key(p, line, key, s->keys, s->n);
		return;
	}
	if (s->lines[k]) {
		rules_parser__error(p, line, p->section, key, "set twice (first on line %d)",
				    s->lines[k]);
		return;
	}
	s->lines[k] = line;
	err = rules_key__parse(&s->keys[k], s->base, value, msg, sizeof(msg));
	if (err == -EINVAL)
		rules_parser__error(p, line, p->section, key, "bad value '%s': %s",
				    rules_value__quote(value, q, sizeof(q)), msg);
	else if (err)
		rules_parser__nomem(p);
	s->bad[k] = err != 0;
}

static void global_key(struct rules_parser *p, int line, const char *key, const char *value)
{
	struct plain_section s = { rules_global_keys, GK_NR, p->gline, p->gbad, &p->r->global };

	plain_key(p, &s, line, key, value);
}

static void upload_key(struct rules_parser *p, int line, const char *key, const char *value)
{
	struct plain_section s = { rules_upload_keys, UK_NR, p->uline, p->ubad, &p->r->upload };

	plain_key(p, &s, line, key, value);
}

static void label_key(struct rules_parser *p, int line, const char *key, const char *value)
{
	struct rules *r = p->r;
	struct rules_label *l;
	char q[80];

	if (!good_name(key, LABEL_KEY_MAX)) {
		rules_parser__error(p, line, p->section, rules_value__quote(key, q, sizeof(q)),
				    "bad label name; expected 1 to %d letters, digits, '_', '.' or "
				    "'-'",
				    LABEL_KEY_MAX);
		return;
	}
	if (strlen(value) > LABEL_VALUE_MAX) {
		rules_parser__error(p, line, p->section, key,
				    "value longer than %d bytes; expected a short label",
				    LABEL_VALUE_MAX);
		return;
	}
	if (r->nlabels == p->labels_cap) {
		size_t cap = p->labels_cap ? p->labels_cap * 2 : 8;
		struct rules_label *labels = reallocarray(r->labels, cap, sizeof(*labels));
		int *lines = labels ? reallocarray(p->label_lines, cap, sizeof(*lines)) : NULL;

		if (labels)
			r->labels = labels;
		if (!lines) {
			rules_parser__nomem(p);
			return;
		}
		p->label_lines = lines;
		p->labels_cap = cap;
	}
	l = &r->labels[r->nlabels];
	l->key = strdup(key);
	l->value = strdup(value);
	p->label_lines[r->nlabels++] = line;
	if (!l->key || !l->value)
		rules_parser__nomem(p);
}

static void rule_key(struct rules_parser *p, int line, const char *key, const char *value)
{
	struct rules_raw_rule *raw = &p->raw;
	int k = rules_keys__find(rules_rule_keys, RK_NR, key);

	if (k < 0) {
		unknown_key(p, line, key, rules_rule_keys, RK_NR);
		return;
	}
	if (raw->vline[k]) {
		rules_parser__error(p, line, p->section, key, "set twice (first on line %d)",
				    raw->vline[k]);
		return;
	}
	raw->vline[k] = line;
	raw->val[k] = strdup(value);
	if (!raw->val[k])
		rules_parser__nomem(p);
}

static int on_key(void *ctx, int line, const char *key, const char *value)
{
	struct rules_parser *p = ctx;
	char q[80];

	switch (p->sect) {
	case SECT_NONE:
		rules_parser__error(p, line, NULL, rules_value__quote(key, q, sizeof(q)),
				    "not in a section; put it under [global], [labels], "
				    "[upload] or [rule NAME]");
		break;
	case SECT_GLOBAL:
		global_key(p, line, key, value);
		break;
	case SECT_LABELS:
		label_key(p, line, key, value);
		break;
	case SECT_UPLOAD:
		upload_key(p, line, key, value);
		break;
	case SECT_RULE:
		rule_key(p, line, key, value);
		break;
	default:
		break;
	}
	return p->nomem ? -ENOMEM : 0;
}

static int on_error(void *ctx, int line, const char *msg)
{
	struct rules_parser *p = ctx;

	rules_parser__error(p, line, NULL, NULL, "%s", msg);
	return p->nomem ? -ENOMEM : 0;
}

/* --- the whole file --------------------------------------------------------- */

struct named {
	const char *name;
	int line;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* check_unique - report every name of @v (@n, "" skipped) used before. */
static void check_unique(struct rules_parser *p, struct named *v, size_t n, bool rules)
{
	size_t i, first = 0;

	if (n < 2)
		return;
	qsort(v, n, sizeof(*v), cmp_named);
	for (i = 1; i < n; i++) {
		if (strcmp(v[i].name, v[first].name)) {
			first = i;
			continue;
		}
		if (!*v[i].name)
			continue;
		if (rules)
			rules_parser__error(p, v[i].line, NULL, NULL,
					    "[rule %s]: a second rule of that name (first on line "
					    "%d); rule names must be unique",
					    v[i].name, v[first].line);
		else
			rules_parser__error(p, v[i].line, "[labels]", v[i].name,
					    "set twice (first on line %d)", v[first].line);
	}
}

static void check_names(struct rules_parser *p)
{
	struct rules *r = p->r;
	size_t i, n = r->nrules > r->nlabels ? r->nrules : r->nlabels;
	struct named *v = n ? calloc(n, sizeof(*v)) : NULL;

	if (n && !v) {
		rules_parser__nomem(p);
		return;
	}
	for (i = 0; i < r->nrules; i++)
		v[i] = (struct named){ r->rules[i].name, r->rules[i].line };
	check_unique(p, v, r->nrules, true);
	for (i = 0; i < r->nlabels; i++)
		v[i] = (struct named){ r->labels[i].key, p->label_lines[i] };
	check_unique(p, v, r->nlabels, false);
	free(v);
}

/* check_history - the signal history kept must fit EVAL_HISTORY_MAX
 * points at one point per poll. */
static void check_history(struct rules_parser *p)
{
	const struct rules_global *g = &p->r->global;
	uint64_t points = g->history_ns / g->poll_interval_ns;
	char h[32], i[32];
	int line = p->gline[GK_HISTORY] ? p->gline[GK_HISTORY] : p->gline[GK_POLL_INTERVAL];

	if (p->gbad[GK_HISTORY] || p->gbad[GK_POLL_INTERVAL] || points <= EVAL_HISTORY_MAX)
		return;
	rules_parser__error(p, line, "[global]", p->gline[GK_HISTORY] ? "history" : "poll_interval",
			    "history %s at poll_interval %s is %llu points; expected at most %d: "
			    "a shorter history or a longer poll_interval",
			    units_format_duration(g->history_ns, h, sizeof(h)),
			    units_format_duration(g->poll_interval_ns, i, sizeof(i)),
			    (unsigned long long)points, EVAL_HISTORY_MAX);
}

/* check_window - a capture window longer than max_window could never be
 * taken whole. @line 0: the default (reported at @dflt_line). */
static void check_window(struct rules_parser *p, const char *section, const char *key, uint64_t ns,
			 int line, int dflt_line)
{
	uint64_t max = p->r->global.max_window_ns;
	char d[32], m[32];

	if (p->gbad[GK_MAX_WINDOW] || ns <= max)
		return;
	rules_parser__error(p, line ? line : dflt_line, section, key,
			    "%s%s is longer than max_window %s of [global]; expected at most %s",
			    units_format_duration(ns, d, sizeof(d)), line ? "" : " (the default)",
			    units_format_duration(max, m, sizeof(m)), m);
}

void rules_sections__end(struct rules_parser *p)
{
	struct rules *r = p->r;
	char section[96], q[80];
	size_t i;

	end_rule(p);
	check_history(p);
	if (!p->gbad[GK_MANUAL_DURATION])
		check_window(p, "[global]", "manual_duration", r->global.manual_window_ns,
			     p->gline[GK_MANUAL_DURATION], p->gline[GK_MAX_WINDOW]);
	for (i = 0; i < r->nrules; i++) {
		struct rule *rule = &r->rules[i];
		const struct rules_rule_meta *m = &p->meta[i];

		if (!m->dry_run_set)
			rule->dry_run = r->global.dry_run;
		if (!m->record_set)
			rule->record = rules__record_default(rule);
		if (!m->slow_set)
			rules__slow_default(rule);
		if (!m->duration_ok)
			continue;
		snprintf(section, sizeof(section), "[rule %s]",
			 rules_value__quote(rule->name, q, sizeof(q)));
		check_window(p, section, "duration", rule->window_ns, m->duration_line, m->line);
	}
	check_names(p);
	rules_upload__check(p);
}

const struct ini_handler rules_sections__handler = {
	.section = on_section,
	.key = on_key,
	.error = on_error,
};
