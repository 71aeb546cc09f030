/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_upload.h - inside rules/ only: the [upload] section: its key
 * table, its defaults, the checks made once the whole file is read, and
 * printing and freeing it. Whether it sends credentials in clear text
 * (rules_upload__insecure) is a question of the data: rules_model.h. */
#ifndef TRAPD_RULES_UPLOAD_H
#define TRAPD_RULES_UPLOAD_H

#include <stdio.h>

#include "rules/rules_keys.h"
#include "rules/rules_model.h"
#include "rules/rules_parse.h"

/* The [upload] keys, indexed by enum upload_key (in the order
 * rules__print writes them). */
extern const struct rules_key rules_upload_keys[UK_NR];

/* rules_upload__defaults - every [upload] key with a default, from its
 * text. Returns 0 or -ENOMEM. */
int rules_upload__defaults(struct rules_upload *u);

/* rules_upload__check - after the last line: split the url, and check
 * that the keys set fit its scheme and each other. */
void rules_upload__check(struct rules_parser *p);

/* rules_upload__print - the [upload] section (nothing without one). */
void rules_upload__print(const struct rules_upload *u, FILE *out);

/* rules_upload__free - free what @u owns (not @u). */
void rules_upload__free(struct rules_upload *u);

#endif
