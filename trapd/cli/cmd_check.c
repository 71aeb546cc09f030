// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_check.c - `trapd check [--ci] -c RULES`: validate a rules file and print it
 * normalised (every key of every section, defaults filled in), or every
 * problem in it as "file:line: [section] key: message". */
#include <getopt.h>
#include <stdio.h>

#include "rules/rules.h"
#include "trapd/cli/cli_args.h"
#include "trapd/cli/commands.h"
#include "trapd/util/log.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: trapd check [--ci] -c RULES\n\n"
		     "Read the rules file RULES, check every section, key and value, and print\n"
		     "it normalised: every setting spelled out, defaults filled in, units in\n"
		     "one spelling. That output is itself a valid rules file. When RULES has\n"
		     "problems, print each as FILE:LINE: [section] key: what is wrong, what was\n"
		     "expected, and exit 2. docs/rules.md describes the file.\n\n"
		     "Options:\n"
		     "  -c, --config RULES  the rules file to check\n"
		     "      --ci            check it as 'trapd ci -c RULES' reads it: a rule\n"
		     "                      that names no cgroup, pid or process watches the\n"
		     "                      command trapd ci runs\n"
		     "  -h, --help          this text\n\n"
		     "Exit status: 0 the file is good, 2 it is not (or bad usage).\n\n"
		     "Examples:\n"
		     "  trapd check -c /etc/trapd/rules.ini\n"
		     "  trapd check -c rules.ini > /dev/null && systemctl reload trapd\n"
		     "  trapd check --ci -c ci-rules.ini\n");
}

enum { OPT_CI = 256 };

/* parse_args - the RULES path into *@path, what it is read for into
 * *@use; returns 0, 1 for --help, or -1 after a usage error (reported). */
static int parse_args(int argc, char **argv, const char **path, enum rules_use *use)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "ci", no_argument, NULL, OPT_CI },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	optind = 0; /* glibc: a full reset, so the command can run twice (tests) */
	while ((opt = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			*path = optarg;
			break;
		case OPT_CI:
			*use = RULES_FOR_CI;
			break;
		case 'h':
			return 1;
		default:
			cli_bad_option("check", longopts, opt, argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'; usage: trapd check [--ci] -c RULES",
			  argv[optind]);
		return -1;
	}
	if (!*path) {
		log_error("no rules file given; usage: trapd check [--ci] -c RULES");
		return -1;
	}
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct rules_errors errs = { 0 };
	struct rules *r = NULL;
	enum rules_use use = RULES_FOR_DAEMON;
	const char *path = NULL;
	size_t i;
	int ret;

	ret = parse_args(argc, argv, &path, &use);
	if (ret) {
		if (ret > 0)
			usage(stdout);
		return ret > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (rules__load_for(path, use, &r, &errs)) {
		/* plain lines, exactly as rules__load words them, so editors and
		 * scripts can jump to FILE:LINE */
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.msgs[i]);
		if (errs.n > RULES_ERRORS_MAX)
			fprintf(stderr, "%s: more than %d errors\n", path, RULES_ERRORS_MAX);
		else if (errs.n > 1)
			fprintf(stderr, "%s: %zu errors\n", path, errs.n);
		else
			fprintf(stderr, "%s: 1 error\n", path);
		rules_errors__free(&errs);
		return TRAPD_EXIT_USAGE;
	}
	ret = rules__print(r, stdout);
	if (!ret && fflush(stdout))
		ret = -1;
	rules__free(r);
	if (ret) {
		log_error("cannot write the rules to stdout");
		return TRAPD_EXIT_FAILURE;
	}
	return TRAPD_EXIT_OK;
}
