/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_rule.h - inside rules/ only: one [rule NAME] section, checked as
 * a whole once its last key has been read (rules_sections.c collects the
 * keys), and freeing what a rule owns. */
#ifndef TRAPD_RULES_RULE_H
#define TRAPD_RULES_RULE_H

#include "rules/rules_model.h"
#include "rules/rules_parse.h"

/* rules_rule__check - check the whole of @raw into @r (zeroed by the
 * caller), reporting every problem. Fills @meta. @r owns its strings
 * even when a problem was found: free them with rules_rule__free. */
void rules_rule__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
		       struct rules_rule_meta *meta);

/* rules_rule__free - free what @r owns (not @r). */
void rules_rule__free(struct rule *r);

#endif
