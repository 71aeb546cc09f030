/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* commands.h - the subcommands of the trapd binary (their exit codes are
 * trapd/util/exit_status.h's).
 *
 * Each command lives in cmd_<name>.c, parses its own options with
 * getopt_long (argv[0] is the command's name) and returns an exit status.
 */
#ifndef TRAPD_COMMANDS_H
#define TRAPD_COMMANDS_H

#include <stddef.h>

#include "trapd/util/exit_status.h"

int cmd_capture(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_arm(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_ci(int argc, char **argv);
int cmd_captures(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* cli_control_socket - the daemon's control socket: @socket (-S), the
 * control_socket of rules file @rules (-c; its errors printed), or the
 * default. Returns 0 or a negative errno (usage). */
int cli_control_socket(const char *socket, const char *rules, char *out, size_t len);

#endif
