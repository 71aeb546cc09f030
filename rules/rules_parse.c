// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_parse.c - the errors of one load (rules_parse.h): each formatted
 * as "file:line: [section] key: message" and kept in line order, the
 * first RULES_ERRORS_MAX of them, until the entry points (rules.c) hand
 * them to the caller. */
#include "rules/rules_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule_words.h"

/* keep_error - insert @msg among the kept errors in line order (on one
 * line: errors about a header before those about its keys, otherwise in
 * the order found), keeping the first RULES_ERRORS_MAX. */
static void keep_error(struct rules_parser *p, int line, bool keyed, char *msg)
{
	size_t i = p->nerrs;

	while (i > 0 && (p->errs[i - 1].line > line ||
			 (p->errs[i - 1].line == line && p->errs[i - 1].keyed && !keyed)))
		i--;
	if (p->nerrs == RULES_ERRORS_MAX) {
		p->dropped++;
		if (i == RULES_ERRORS_MAX) {
			free(msg);
			return;
		}
		free(p->errs[--p->nerrs].msg);
	}
	memmove(&p->errs[i + 1], &p->errs[i], (p->nerrs - i) * sizeof(p->errs[0]));
	p->errs[i] = (struct rules_error){ line, keyed, msg };
	p->nerrs++;
}

void rules_parser__error(struct rules_parser *p, int line, const char *section, const char *key,
			 const char *fmt, ...)
{
	char msg[MSG_MAX], where[160], *full = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "%s%s%s%s", section ? section : "",
		 section && key ? " " : "", key ? key : "", section || key ? ": " : "");
	if (line > 0)
		n = asprintf(&full, "%s:%d: %s%s", p->name, line, where, msg);
	else
		n = asprintf(&full, "%s: %s%s", p->name, where, msg);
	if (n < 0) {
		p->nomem = true;
		return;
	}
	keep_error(p, line, key != NULL, full);
}

void rules_parser__nomem(struct rules_parser *p)
{
	p->nomem = true;
}

void rules_parser__bad(struct rules_parser *p, const struct rules_raw_rule *raw, enum rule_key k,
		       const char *msg)
{
	char q[96];

	rules_parser__error(p, raw->vline[k], raw->section, rules_rule_keys[k].name,
			    "bad value '%s': %s", rules_value__quote(raw->val[k], q, sizeof(q)),
			    msg);
}

void rules_parser__not_allowed(struct rules_parser *p, const struct rules_raw_rule *raw,
			       const struct rule *r, enum rule_key k, const char *why)
{
	char sig[32];

	rules_parser__error(p, raw->vline[k], raw->section, rules_rule_keys[k].name,
			    "not allowed with signal %s; %s",
			    rule__signal_name(r, sig, sizeof(sig)), why);
}

int rules_parser__take_errors(struct rules_parser *p, struct rules_errors *errs)
{
	size_t n = p->nerrs + (p->dropped ? 1 : 0), i;

	if (!n)
		return 0;
	errs->msgs = calloc(n, sizeof(*errs->msgs));
	if (!errs->msgs)
		return -ENOMEM;
	for (i = 0; i < p->nerrs; i++) {
		errs->msgs[i] = p->errs[i].msg;
		p->errs[i].msg = NULL;
	}
	if (p->dropped && asprintf(&errs->msgs[i],
				   "%s: too many errors; only the first %d are "
				   "shown",
				   p->name, RULES_ERRORS_MAX) < 0)
		errs->msgs[i] = NULL;
	errs->n = p->dropped && !errs->msgs[i] ? i : n;
	return 0;
}
