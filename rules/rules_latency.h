/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_latency.h - inside rules/ only: what the latency signals
 * (KIND.STAT, "runqlat.p99") add to a [rule NAME] section: their window,
 * the scope they take, and their own keys (min_count, syscalls, device,
 * function). Their names are rule_words.h's. Called by rules_rule.c. */
#ifndef TRAPD_RULES_LATENCY_H
#define TRAPD_RULES_LATENCY_H

#include "rules/rules_model.h"
#include "rules/rules_parse.h"

/* rules_latency__check_window - window = DURATION (1s to 10m) of a
 * latency rule into lat_window_ns; unset: 0, one poll interval. */
void rules_latency__check_window(struct rules_parser *p, const struct rules_raw_rule *raw,
				 struct rule *r);

/* rules_latency__scope - which of @cg, @pid, @proc (the values of
 * cgroup, pid and process, already checked) a latency rule watches: at
 * most one, none for biolat. Returns it; when none is set, the run's
 * scope in a file for trapd ci (biolat aside), else the system's; or
 * NULL after reporting a conflict. The result points into the arguments
 * or to a static scope: copy it. */
const struct rule_scope *rules_latency__scope(struct rules_parser *p,
					      const struct rules_raw_rule *raw,
					      const struct rule *r, const struct rule_scope *cg,
					      const struct rule_scope *pid,
					      const struct rule_scope *proc);

/* rules_latency__check - min_count, syscalls, device and function of any
 * rule with a signal: each refused where @r's signal does not take it,
 * checked into @r where it does (strings @r owns); function required
 * for func.*. */
void rules_latency__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r);

/* rules_latency__check_slow_calls - slow_calls = off | DURATION | pNN of
 * a func or syscall rule (refused for others). Returns whether it was
 * given and good; when not given the default is rules__slow_default's. */
bool rules_latency__check_slow_calls(struct rules_parser *p, const struct rules_raw_rule *raw,
				     struct rule *r);

#endif
