/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ci_watch.h - `trapd ci -c RULES`: run a command in a cgroup of its own
 * while the rules watch it, and capture only when one fires.
 *
 * The rules file is read for trapd ci (RULES_FOR_CI): a rule that names
 * no cgroup, pid or process watches the run's cgroup, and samples it. The
 * guard (trapd/guard/guard.h), the daemon's engine, polls and judges the rules
 * from before the command's first instruction to its exit; a fire arms
 * the kept sampler for the rule's window, and the capture is written
 * into the output directory (the run's spool). When the command exits
 * a capture still running is cut short and written, everything left in
 * the cgroup is killed and the cgroup removed.
 */
#ifndef TRAPD_CI_WATCH_H
#define TRAPD_CI_WATCH_H

#include "rules/signal.h"

struct ci_watch_opts {
	const char *rules_path;
	const char *dir;	   /* captures and summary.md go here (it exists) */
	const char *summary;	   /* the Markdown summary's path */
	const char *parent_cgroup; /* NULL: the cgroup trapd runs in */
	char *const *argv;
	struct signal_env env;
};

/* ci_watch__run - run @o->argv watched by @o->rules_path; @sigfd is
 * capture_loop's signalfd. Prints the report and writes the summary.
 * Returns the exit status: the command's when it failed (127 when it
 * could not be run), 128 + N when signal N stopped trapd,
 * TRAPD_EXIT_RULE_FIRED when a rule fired, 0 when none did; 2 for a bad
 * rules file (every problem printed), 1 for trapd's own failures. */
int ci_watch__run(const struct ci_watch_opts *o, int sigfd);

#endif
