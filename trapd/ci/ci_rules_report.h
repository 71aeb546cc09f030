/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ci_rules_report.h - what `trapd ci -c RULES` saw during a run: every
 * fire of a rule (when, its value against its threshold, the capture it
 * started or joined), every capture written, and for each rule the
 * extreme value it read (the highest for an `above` rule, the lowest for
 * a `below` one), so a rule that stayed quiet shows how close it came.
 *
 * Written as a terminal table and as Markdown for the job's summary page.
 */
#ifndef TRAPD_CI_RULES_REPORT_H
#define TRAPD_CI_RULES_REPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/rules.h"

#define CI_REPORT_FIRES_MAX 256	   /* fires listed; later ones are counted */
#define CI_REPORT_CAPTURES_MAX 256 /* likewise for captures */

struct ci_report_fire {
	char rule[RULE_NAME_MAX];
	int64_t at_ns;	  /* since the command started */
	int64_t value;	  /* in the rule's unit */
	bool dry_run;	  /* the rule (or [global]) is dry_run: no capture */
	char capture[33]; /* the id of the capture it started or joined; "" */
	char err[160];	  /* why no capture came of it; "" */
};

struct ci_report_capture {
	char id[33];
	char path[PATH_MAX]; /* "" when lost */
	char err[160];	     /* why it was lost; "" */
};

/* One watched rule: the rule itself, and the extreme of its readings. */
struct ci_report_rule {
	const struct rule *rule;
	bool have_peak;
	int64_t peak;
	uint64_t fires;
};

struct ci_rules_report {
	char *const *argv; /* the command */
	const char *rules_path;
	int64_t wall_ns;
	int64_t cpu_ns; /* -1: unknown */
	int exit_status;
	int signo; /* the signal that cut the run short, or 0 */

	struct ci_report_rule *rules; /* one per rule of the file, in its order */
	size_t nrules;
	struct ci_report_fire fires[CI_REPORT_FIRES_MAX];
	size_t nfires;
	uint64_t fires_total; /* nfires and those not listed */
	struct ci_report_capture captures[CI_REPORT_CAPTURES_MAX];
	size_t ncaptures;
	uint64_t captures_total;
};

/* ci_rules_report__init - @rep for the rules of @r (which must outlive
 * it). Returns 0 or -ENOMEM. */
int ci_rules_report__init(struct ci_rules_report *rep, const struct rules *r);
void ci_rules_report__release(struct ci_rules_report *rep);

/* ci_rules_report__reading - rule @i read @value: keep it if it is the
 * most extreme yet. */
void ci_rules_report__reading(struct ci_rules_report *rep, size_t i, int64_t value);

/* ci_rules_report__fire - rule @i fired at @at_ns (in a dry run: it
 * would have); the capture @capture ("" or NULL: none) came of it, or
 * @err says why not. */
void ci_rules_report__fire(struct ci_rules_report *rep, size_t i, int64_t at_ns, int64_t value,
			   bool dry_run, const char *capture, const char *err);

/* ci_rules_report__capture - capture @id was written to @path, or lost
 * (@path NULL) for @err. */
void ci_rules_report__capture(struct ci_rules_report *rep, const char *id, const char *path,
			      const char *err);

/* ci_rules_report__text, __markdown - the report to @f. Return 0 or
 * -EIO. */
int ci_rules_report__text(const struct ci_rules_report *rep, FILE *f);
int ci_rules_report__markdown(const struct ci_rules_report *rep, FILE *f);

#endif
