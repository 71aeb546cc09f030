// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_rules.c - the rules file loader on arbitrary bytes: no crash, no
 * undefined behaviour, errors in line order and bounded in number; and a
 * file that loads prints (rules__print) to text that loads back to equal
 * rules and prints the same again (pins and the comment on a process
 * found by name alone included), never more than RULES_RULES_MAX rules;
 * read both as the daemon and as trapd ci reads it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print(const struct rules *r, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f || rules__print(r, f) || fclose(f))
		abort();
	return text;
}

/* check_errors - at least one, at most RULES_ERRORS_MAX + 1, each
 * "fuzz.ini:" then a line number (or not, for the file), lines rising. */
static void check_errors(const struct rules_errors *errs)
{
	long last = 0, line;
	size_t i;
	char *end;

	if (errs->n == 0 || errs->n > RULES_ERRORS_MAX + 1)
		abort();
	for (i = 0; i < errs->n; i++) {
		if (strncmp(errs->msgs[i], "fuzz.ini:", 9) || strchr(errs->msgs[i], '\n'))
			abort();
		if (errs->msgs[i][9] == ' ')
			continue; /* about the whole file */
		line = strtol(errs->msgs[i] + 9, &end, 10);
		if (*end != ':' || line < last)
			abort();
		last = line;
	}
}

static void check_equal(const struct rules *a, const struct rules *b)
{
	size_t i;

	if (!rules_global__equal(&a->global, &b->global) || a->nlabels != b->nlabels ||
	    a->nrules != b->nrules)
		abort();
	for (i = 0; i < a->nlabels; i++)
		if (strcmp(a->labels[i].key, b->labels[i].key) ||
		    strcmp(a->labels[i].value, b->labels[i].value))
			abort();
	for (i = 0; i < a->nrules; i++)
		if (!rule__equal(&a->rules[i], &b->rules[i]) ||
		    rules__find(b, a->rules[i].name) != &b->rules[i])
			abort();
}

/* one_use - the checks above with the file read for @use. */
static void one_use(const uint8_t *data, size_t size, enum rules_use use)
{
	struct rules *a = NULL, *b = NULL;
	struct rules_errors errs;
	char *text, *again;
	size_t len, len2;

	if (rules__parse_for("fuzz.ini", (const char *)data, size, use, &a, &errs)) {
		check_errors(&errs);
		rules_errors__free(&errs);
		return;
	}
	if (a->nrules > RULES_RULES_MAX) /* a file's rules are bounded */
		abort();
	text = print(a, &len);
	if (rules__parse_for("fuzz.ini", text, len, use, &b, &errs)) {
		fprintf(stderr, "printed rules do not load:\n%s\n%s\n", text,
			errs.n ? errs.msgs[0] : "");
		abort();
	}
	check_equal(a, b);
	again = print(b, &len2);
	if (len != len2 || memcmp(text, again, len))
		abort();
	free(again);
	free(text);
	rules__free(b);
	rules__free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one_use(data, size, RULES_FOR_DAEMON);
	one_use(data, size, RULES_FOR_CI);
	return 0;
}
