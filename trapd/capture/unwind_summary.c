// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwind_summary.c - the names of the unwinding modes: the rules file's
 * words (rules/rule_words.c), so `--unwind` and `unwind =` take the same
 * ones. */
#include "trapd/capture/unwind_summary.h"

#include <errno.h>

#include "rules/rule_words.h"

enum unwind_mode unwind_mode_from_rule(enum rule_unwind u)
{
	switch (u) {
	case RULE_UNWIND_DWARF:
		return UNWIND_MODE_DWARF;
	case RULE_UNWIND_FP:
		return UNWIND_MODE_FP;
	case RULE_UNWIND_KERNEL:
		return UNWIND_MODE_KERNEL;
	default:
		return UNWIND_MODE_AUTO;
	}
}

static enum rule_unwind to_rule(enum unwind_mode m)
{
	return m == UNWIND_MODE_FP	 ? RULE_UNWIND_FP
	       : m == UNWIND_MODE_DWARF	 ? RULE_UNWIND_DWARF
	       : m == UNWIND_MODE_KERNEL ? RULE_UNWIND_KERNEL
					 : RULE_UNWIND_AUTO;
}

const char *unwind_mode_name(enum unwind_mode m)
{
	return rule_unwind__name(to_rule(m));
}

int unwind_mode_parse(const char *s, enum unwind_mode *out)
{
	enum rule_unwind u;

	if (rule_unwind__parse(s, &u))
		return -EINVAL;
	*out = unwind_mode_from_rule(u);
	return 0;
}
