/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* exit_status.h - the exit statuses of the trapd binary, documented in
 * README.md ("Exit status"). Below the CLI only the modules that decide
 * how a command ends (the daemon, `trapd ci`, `trapd diff`) use them.
 */
#ifndef TRAPD_EXIT_STATUS_H
#define TRAPD_EXIT_STATUS_H

enum trapd_exit {
	TRAPD_EXIT_OK = 0,
	TRAPD_EXIT_FAILURE = 1,	   /* a runtime failure: BPF, I/O, a target that vanished */
	TRAPD_EXIT_USAGE = 2,	   /* bad usage or bad input: flags, files, rules */
	TRAPD_EXIT_REGRESSION = 3, /* trapd diff, trapd ci: the profile regressed */
	TRAPD_EXIT_RULE_FIRED = 4, /* trapd ci -c RULES: a rule fired during the run */
};

#endif
