/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* top_view.h - one screen of `trapd top`: the last seconds of the
 * daemon's flight recorder as a table of the hottest functions, processes
 * or cgroups, each in shares of one CPU (a process using two CPUs is at
 * 200 %).
 */
#ifndef TRAPD_TOP_VIEW_H
#define TRAPD_TOP_VIEW_H

#include <stddef.h>
#include <stdio.h>

#include "trapd/profile/profile.h"

enum top_by {
	TOP_BY_FUNCTION, /* self and total time, and the process with the most of it */
	TOP_BY_PROCESS,	 /* CPU by process, and its hottest function */
	TOP_BY_CGROUP,	 /* CPU by cgroup, and its hottest function */
};

/* top_by__parse - "function", "process" or "cgroup"; -EINVAL else. */
int top_by__parse(const char *s, enum top_by *out);

/* top_view__write - @p (the recorder's seconds) as @rows rows by @by,
 * under a header line saying what it covers, @width columns wide.
 * Returns 0 or -ENOMEM. */
int top_view__write(FILE *out, const struct profile *p, enum top_by by, size_t rows, size_t width);

#endif
