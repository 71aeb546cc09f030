/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules.h - the rules file: loading it, with every problem reported as
 * "file:line: [section] key: message", and all a user of the rules needs.
 * The header to include from outside rules/: it brings
 *   rules_model.h  what a loaded file holds (struct rules, struct rule),
 *   rule_words.h   a rule as words: signal names, units, values,
 *   rules_print.h  the normalised file `trapd check` prints, and
 *                  whether two rules or sections are alike.
 *
 * The file is INI (docs/rules.md is its reference): a [global] section, a
 * [labels] section, an [upload] section and one [rule NAME] section per
 * rule. Every value is checked when the file is loaded; a loaded struct
 * rules is valid, so the daemon never meets a bad rule at run time.
 *
 * Inside rules/ the loader is layered, bottom first, each file including
 * only those of the lines above its own (`make check-includes` fails on a
 * cycle). Private: not for users outside rules/.
 *   units.h, ini.h, syscall_table.h      values, the INI lexer, syscalls
 *   did_you_mean.h                       the word meant (also the CLI's)
 *   rules_model.h                        the data
 *   rule_words.h                         a rule as words
 *   evaluator.h                          its limits bound some keys
 *   rules_keys.h                         key tables, one value (private)
 *   rules_parse.h                        a load's state, errors (private)
 *   rules_pin.h, rules_latency.h         parts of a [rule NAME] (private)
 *   rules_upload.h                       [upload] (private)
 *   rules_rule.h                         a [rule NAME] (private)
 *   rules_sections.h                     all sections in turn (private)
 *   rules_print.h                        the file as text again
 *   rules.h                              the entry points (rules.c)
 * The signal readers (signal.h and below) use rules_model.h only.
 */
#ifndef TRAPD_RULES_H
#define TRAPD_RULES_H

#include <stddef.h>

#include "rules/rule_words.h"
#include "rules/rules_model.h"
#include "rules/rules_print.h"

/* rules__load - read and validate @path. On success returns 0 and a new
 * struct rules in *out. Otherwise returns -EINVAL (the file is bad: every
 * problem is in @errs) or another negative errno (it could not be read:
 * one message in @errs). The caller frees @errs in both cases. */
int rules__load(const char *path, struct rules **out, struct rules_errors *errs);

/* rules__parse - the same from memory; @name stands for the file name in
 * messages. @text need not be NUL-terminated. */
int rules__parse(const char *name, const char *text, size_t len, struct rules **out,
		 struct rules_errors *errs);

/* rules__load_for, rules__parse_for - the same, read for @use
 * (rules__load and rules__parse read for the daemon). */
int rules__load_for(const char *path, enum rules_use use, struct rules **out,
		    struct rules_errors *errs);
int rules__parse_for(const char *name, const char *text, size_t len, enum rules_use use,
		     struct rules **out, struct rules_errors *errs);

/* rules__resolve_run - make every RULE_SCOPE_RUN scope and sample of @r
 * the cgroup @cgroup_dir (an absolute directory). Returns 0 or -ENOMEM
 * (@r is then partly resolved: free it). */
int rules__resolve_run(struct rules *r, const char *cgroup_dir);

/* rules__free - free @r and all it owns; NULL is ignored. */
void rules__free(struct rules *r);

/* rules_errors__free - free the messages of @errs (not @errs) and empty
 * it; NULL is ignored. */
void rules_errors__free(struct rules_errors *errs);

#endif
