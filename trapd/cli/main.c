// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* main.c - the trapd binary: global options and the command table. */
#include "trapd/cli/commands.h"

#include <stdio.h>
#include <string.h>

#include "rules/did_you_mean.h"
#include "trapd/util/log.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "capture", cmd_capture, "one-shot capture of a pid, a cgroup, the system or a command" },
	{ "report", cmd_report, "top functions, folded stacks, pprof and SVG flame graph" },
	{ "diff", cmd_diff, "what grew and shrank between two captures; differential flame graph" },
	{ "ci", cmd_ci, "run a benchmark, profile it, fail when it regressed against a baseline" },
	{ "check", cmd_check, "validate a rules file and print it normalised" },
	{ "daemon", cmd_daemon, "the guard: watch the rules, capture when one fires" },
	{ "arm", cmd_arm, "ask the running daemon for a capture now" },
	{ "status", cmd_status, "the running daemon's rules, capture, spool and uploads" },
	{ "top", cmd_top, "the hottest functions of the last seconds, live (flight recorder)" },
	{ "upload", cmd_upload, "send the spool's captures to the backend now" },
	{ "captures", cmd_captures, "list and filter the captures in a store (captures ls)" },
	{ "merge", cmd_merge, "sum a store's captures into one profile per group" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: trapd [-v|-q] COMMAND [ARGS]\n"
		     "       trapd COMMAND --help\n\n"
		     "trapd is a trap profiler: it watches cheap signals and, when a rule\n"
		     "breaches, samples stacks with eBPF for a bounded window.\n\n"
		     "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nOptions:\n"
		     "  -v, --verbose  more messages (twice: libbpf debug output)\n"
		     "  -q, --quiet    errors only\n"
		     "  -V, --version  print the version\n"
		     "  -h, --help     this text\n\n"
		     "Exit status: 0 success, 1 runtime failure, 2 bad usage or input.\n");
}

int main(int argc, char **argv)
{
	int verbosity = LOG_LVL_INFO;
	struct did_you_mean meant;
	size_t i;

	log_route_libbpf();
	/* Global options come before the command; each command parses its own. */
	for (argv++, argc--; argc > 0 && argv[0][0] == '-'; argv++, argc--) {
		const char *a = argv[0];

		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbosity++;
		} else if (!strcmp(a, "-vv")) {
			verbosity += 2;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			verbosity = LOG_LVL_ERROR;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("trapd %s\n", TRAPD_VERSION);
			return TRAPD_EXIT_OK;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return TRAPD_EXIT_OK;
		} else {
			log_error("unknown option '%s'; see 'trapd --help'", a);
			return TRAPD_EXIT_USAGE;
		}
	}
	log_set_level(verbosity > LOG_LVL_LIBBPF ? LOG_LVL_LIBBPF : verbosity);
	if (argc == 0) {
		usage(stderr);
		return TRAPD_EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return TRAPD_EXIT_OK;
	}
	did_you_mean__init(&meant, argv[0]);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[0], commands[i].name))
			return commands[i].run(argc, argv);
		did_you_mean__offer(&meant, commands[i].name);
	}
	if (did_you_mean__best(&meant))
		log_error("unknown command '%s'; did you mean '%s'? See 'trapd --help'", argv[0],
			  did_you_mean__best(&meant));
	else
		log_error("unknown command '%s'; see 'trapd --help'", argv[0]);
	return TRAPD_EXIT_USAGE;
}
