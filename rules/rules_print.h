/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_print.h - loaded rules as a rules file again, and whether two
 * loaded rules, [global] or [upload] sections are alike: what `trapd
 * check` prints and what a reload compares. Included through rules.h. */
#ifndef TRAPD_RULES_PRINT_H
#define TRAPD_RULES_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "rules/rules_model.h"

/* rules__print - the normalised file: every setting of every section
 * spelled out with its default filled in, in a form rules__parse reads
 * back to an equal struct rules. Returns 0 or a negative errno. */
int rules__print(const struct rules *r, FILE *out);

/* rules_global__equal - whether two [global] sections are alike in
 * every setting. */
bool rules_global__equal(const struct rules_global *a, const struct rules_global *b);

/* rules_upload__equal - whether two [upload] sections are alike in
 * every setting. */
bool rules_upload__equal(const struct rules_upload *a, const struct rules_upload *b);

/* rule__equal - whether two rules watch, fire and capture alike (a reload
 * keeps the state of a rule that is equal to its old self). */
bool rule__equal(const struct rule *a, const struct rule *b);

#endif
