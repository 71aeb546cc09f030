/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cli_json.h - errors as JSON for the commands that take --json
 * (bpftool's convention): a script that asked for JSON on stdout gets
 * JSON there when the command fails too, one object:
 *
 *   {"error": {"message": "connecting to /run/trapd/control.sock: ...",
 *              "exit_status": 1}}
 *
 * The command calls cli_json_errors_begin() before it parses its options
 * (so a usage error is JSON as well) and returns through
 * cli_json_errors_end(). Only the first error becomes the message; later
 * errors and warnings still go to stderr.
 */
#ifndef TRAPD_CLI_JSON_H
#define TRAPD_CLI_JSON_H

#include <stdbool.h>

/* cli_wants_json - whether @argv (argv[0] the command's name, up to a
 * "--") holds --json, or an abbreviation getopt_long takes for it. */
bool cli_wants_json(int argc, char **argv);

/* cli_json_errors_begin - from now on the first error is kept for
 * cli_json_errors_end instead of written to stderr. */
void cli_json_errors_begin(void);

/* cli_json_errors_end - the command ends with exit status @status. If it
 * is not 0, print the error object on stdout (the kept message, or a
 * generic one if the command failed without an error message). If it is
 * 0, an error that was kept is written to stderr as usual. Returns
 * @status. */
int cli_json_errors_end(int status);

#endif
