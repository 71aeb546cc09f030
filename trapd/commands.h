/* commands.h - the subcommands of the trapd binary and their exit codes.
 *
 * Each command lives in cmd_<name>.c, parses its own options with
 * getopt_long (argv[0] is the command's name) and returns an exit status.
 */
#ifndef TRAPD_COMMANDS_H
#define TRAPD_COMMANDS_H

/* Exit statuses, documented in README.md (section "Exit status"). */
enum trapd_exit {
	TRAPD_EXIT_OK = 0,
	TRAPD_EXIT_FAILURE = 1,	   /* a runtime failure: BPF, I/O, a target that vanished */
	TRAPD_EXIT_USAGE = 2,	   /* bad usage or bad input: flags, files, rules */
	TRAPD_EXIT_REGRESSION = 3, /* trapd diff, trapd ci: the profile regressed */
	TRAPD_EXIT_RULE_FIRED = 4, /* trapd ci -c RULES: a rule fired during the run */
};

int cmd_capture(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_arm(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_ci(int argc, char **argv);

#endif
