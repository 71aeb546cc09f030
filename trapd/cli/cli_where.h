/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cli_where.h - the --where options of `trapd report` and `trapd diff`:
 * conditions read and applied, with the same messages everywhere. */
#ifndef TRAPD_CLI_WHERE_H
#define TRAPD_CLI_WHERE_H

#include "trapd/profile/profile.h"
#include "trapd/profile/profile_where.h"

/* cli_parse_where - one more condition of a --where (profile_where.h),
 * @option naming the flag in the message. Returns 0 or -EINVAL
 * (reported). */
int cli_parse_where(const char *option, const char *s, struct profile_where *w);

/* cli_apply_where - keep the samples of @p (read from @file) that meet
 * @w. Returns 0, or -ENOENT when none do (reported, with the values the
 * labels asked about take in @file: a typo's likely fix). */
int cli_apply_where(struct profile *p, const struct profile_where *w, const char *file);

#endif
