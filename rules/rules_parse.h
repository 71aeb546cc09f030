/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_parse.h - inside rules/ only: the state of one load of a rules
 * file (struct rules_parser) and the one way its parts report a problem,
 * "file:line: [section] key: message", kept in line order. Shared by the
 * section parsers (rules_sections.c, rules_rule.c, rules_latency.c,
 * rules_pin.c, rules_upload.c) and the entry points (rules.c), which
 * create the state and hand the errors to the caller.
 *
 * No part of the parser prints or stops at a problem: each records it
 * here and goes on, so one load reports every problem of a file.
 */
#ifndef TRAPD_RULES_PARSE_H
#define TRAPD_RULES_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules_keys.h"
#include "rules/rules_model.h"

#define MSG_MAX 512 /* one error message, before the file name and line */

/* A [rule NAME] section as read: each key's value and line (0: not
 * set), checked as a whole when the section ends. */
struct rules_raw_rule {
	int line;		  /* of the header */
	char name[RULE_NAME_MAX]; /* "" when the header's is not a good name */
	char section[96];	  /* "[rule NAME]" for messages */
	char *val[RK_NR];
	int vline[RK_NR];
};

/* What the end-of-file checks need to know about a rule. */
struct rules_rule_meta {
	int line;	   /* of the header */
	int duration_line; /* 0: the default */
	bool duration_ok;  /* window_ns holds a parsed value */
	bool dry_run_set;
	bool record_set; /* capture = was given (and good) */
	bool slow_set;	 /* slow_calls = was given (and good) */
};

enum section {
	SECT_NONE, /* before the first header */
	SECT_GLOBAL,
	SECT_LABELS,
	SECT_UPLOAD,
	SECT_RULE,
	SECT_SKIP, /* an unknown or malformed header: its keys are not checked */
};

struct rules_error {
	int line;
	bool keyed; /* about a key: after the section's own errors of the line */
	char *msg;
};

/* The state of one load. */
struct rules_parser {
	const char *name; /* the file, in messages */
	struct rules *r;
	struct rules_error errs[RULES_ERRORS_MAX]; /* the first ones, by line */
	size_t nerrs;
	size_t dropped;
	bool nomem;
	bool too_many; /* more than RULES_RULES_MAX rules: reported */

	enum section sect;
	char section[96]; /* "[global]", "[rule web]" */
	int global_line, labels_line, upload_line;
	int gline[GK_NR]; /* where each [global] key is set; 0: not */
	bool gbad[GK_NR];
	int uline[UK_NR]; /* likewise for [upload] */
	bool ubad[UK_NR];
	struct rules_raw_rule raw;    /* the [rule NAME] being read */
	struct rules_rule_meta *meta; /* one per r->rules */
	size_t rules_cap;
	int *label_lines; /* one per r->labels */
	size_t labels_cap;
};

/* rules_parser__error - record "FILE:LINE: SECTION KEY: message" (parts
 * left out when NULL; LINE when > 0). Allocation failures are kept and
 * make the load fail with -ENOMEM. */
void rules_parser__error(struct rules_parser *p, int line, const char *section, const char *key,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* rules_parser__nomem - an allocation failed: the load fails with
 * -ENOMEM. */
void rules_parser__nomem(struct rules_parser *p);

/* rules_parser__bad - "[rule NAME] KEY: bad value 'V': @msg" at the line
 * of @raw's key @k. */
void rules_parser__bad(struct rules_parser *p, const struct rules_raw_rule *raw, enum rule_key k,
		       const char *msg);

/* rules_parser__not_allowed - "[rule NAME] KEY: not allowed with signal
 * SIGNAL; @why" at the line of @raw's key @k. */
void rules_parser__not_allowed(struct rules_parser *p, const struct rules_raw_rule *raw,
			       const struct rule *r, enum rule_key k, const char *why);

/* rules_parser__take_errors - move the errors @p kept into @errs (zeroed
 * by the caller), with a last "FILE: too many errors" line if some were
 * left out; @p keeps none. Returns 0 or -ENOMEM (@p keeps them all). */
int rules_parser__take_errors(struct rules_parser *p, struct rules_errors *errs);

#endif
