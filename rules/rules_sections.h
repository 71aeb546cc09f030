/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_sections.h - inside rules/ only: the sections of the rules file
 * as the lexer (ini.h) meets them, and the checks that need the whole
 * file. rules.c runs the lexer with this handler over a struct
 * rules_parser, then calls rules_sections__end. */
#ifndef TRAPD_RULES_SECTIONS_H
#define TRAPD_RULES_SECTIONS_H

#include "rules/ini.h"
#include "rules/rules_parse.h"

/* The lexer's callbacks: sections and keys into a struct rules_parser
 * (the lexer's ctx). */
extern const struct ini_handler rules_sections__handler;

/* rules_sections__end - after the last line: check the last rule and
 * what needs the whole file (durations against max_window, history
 * against poll_interval, unique names, [upload]); fills in each rule's
 * dry_run default. */
void rules_sections__end(struct rules_parser *p);

#endif
