/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* report.h - the top functions table of `trapd report`.
 *
 * Functions are aggregated over a stacktree by display name: self counts
 * the samples whose leaf is the function; total counts the samples with
 * the function anywhere on the stack, once per sample even when it
 * recurses. Process and root nodes are not functions and are left out.
 * Both sides of the tree are aggregated, so `trapd diff` can rank what
 * grew from the same rows.
 */
#ifndef TRAPD_REPORT_H
#define TRAPD_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trapd/profile/profile.h"
#include "trapd/profile/stacktree.h"

#define REPORT_DEFAULT_TOP 20
/* The table fits this many columns when names are truncated. */
#define REPORT_COLUMNS 80

struct report_row {
	const char *name; /* the tree's node name: valid while the tree lives */
	enum stacktree_kind kind;
	int64_t self;
	int64_t total;
	int64_t base_self;
	int64_t base_total;
};

/* report_functions - one row per function name in @t, sorted by self
 * (main side) descending, then name. *rows is malloc'd (free() it), *nrows
 * its length (0 and NULL for a tree without frames). Returns 0 or
 * -ENOMEM. */
int report_functions(const struct stacktree *t, struct report_row **rows, size_t *nrows);

/* report_functions_waiting - the same, but a kernel frame's self time is
 * the innermost user frame's below it, when there is one (its total
 * stays its own): off the CPU, every stack's leaf is the scheduler, and
 * what the table should rank is the code that waited. */
int report_functions_waiting(const struct stacktree *t, struct report_row **rows, size_t *nrows);

/* report_functions_outlined - the same, but code inlined into a function
 * is the function's own (as perf counts self time): comparisons judge the
 * function that got slower, which inlining choices do not move. */
int report_functions_outlined(const struct stacktree *t, struct report_row **rows, size_t *nrows);

/* report_functions_outlined_waiting - both: what comparisons of time off
 * the CPU judge. */
int report_functions_outlined_waiting(const struct stacktree *t, struct report_row **rows,
				      size_t *nrows);

/* report_summary - one line describing @p and the main side of @t into
 * @buf (@len bytes, always terminated), e.g. "2970 samples over 10.00s at
 * 99 Hz, 1 process". Parts the profile does not record are left out.
 * Returns 0 or -ENOMEM. */
int report_summary(char *buf, size_t len, const struct profile *p, const struct stacktree *t);

/* report_write_top - the table: a "Total:" line (report_summary), the
 * profile's comments as "# " lines, notes on samples cut by the tree's
 * caps, then the @top functions with the most self samples (@top 0: all;
 * code inlined into a function is the function's, with a line saying so
 * when there is any: report_functions_outlined; in the off-CPU view self
 * is the user code that waited: report_functions_outlined_waiting) and a
 * line saying how many more there are.
 * A time view (profile_view.h) shows times instead of sample counts.
 * Names are truncated with "..." so a row fits REPORT_COLUMNS. Returns 0,
 * -ENOMEM, or -EIO when writing @out failed. */
int report_write_top(FILE *out, const struct profile *p, const struct stacktree *t, size_t top);

#endif
