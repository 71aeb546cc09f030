/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_pin.h - inside rules/ only: process_user, process_exe and
 * process_cgroup of a [rule NAME] section, what a process found by its
 * name must also be (struct rule_pin). Checked by rules_rule.c once the
 * rule's scope and sample are known. */
#ifndef TRAPD_RULES_PIN_H
#define TRAPD_RULES_PIN_H

#include "rules/rules_model.h"
#include "rules/rules_parse.h"

/* rules_pin__check - process_user, process_exe and process_cgroup of
 * @raw into @r->pin (copies @r owns), once @r's scope and sample are
 * known: only where a process is found by its name; each one set
 * elsewhere is reported. */
void rules_pin__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r);

#endif
