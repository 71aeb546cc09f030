/* fuzz_rules.c - the rules file loader on arbitrary bytes: no crash, no
 * undefined behaviour, errors in line order and bounded in number; and a
 * file that loads prints (rules__print) to text that loads back to equal
 * rules and prints the same again; read both as the daemon and as trapd
 * ci reads it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

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
