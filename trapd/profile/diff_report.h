/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* diff_report.h - a profile_diff written for people: a terminal table for
 * `trapd diff`, and a Markdown summary for a CI job's page or a pull
 * request comment (`trapd ci`).
 *
 * Both say the verdict first, then the whole run's CPU time, then the
 * functions that grew (regressions first) and those that shrank, with
 * their self shares before and after, the change in their CPU time and
 * their sample counts, and last how the verdict was reached (threshold,
 * level, functions tested), so a developer can tell noise from a finding.
 */
#ifndef TRAPD_DIFF_REPORT_H
#define TRAPD_DIFF_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "trapd/profile/profile_diff.h"

#define DIFF_REPORT_DEFAULT_TOP 10

/* diff_report__text - the terminal view: at most @top functions that grew
 * and @top that shrank (0: all). Returns 0 or -EIO. */
int diff_report__text(FILE *out, const struct profile_diff *d, size_t top);

/* diff_report__markdown - the Markdown view; @base_name and @new_name
 * label the sides (any bytes: they are cleaned and escaped). Returns 0 or
 * -EIO. */
int diff_report__markdown(FILE *out, const struct profile_diff *d, const char *base_name,
			  const char *new_name, size_t top);

#endif
