// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_diff.c - `trapd diff BASE NEW`: what grew and shrank between two
 * captures, whether it is a regression, and a differential flame graph.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/capture/capture.h"
#include "trapd/capture/run_record.h"
#include "trapd/cli/cli_args.h"
#include "trapd/cli/commands.h"
#include "trapd/cli/diff_capture.h"
#include "trapd/profile/diff_report.h"
#include "trapd/profile/profile_file.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/log.h"

struct diff_cmd {
	const char *base;
	const char *new_file;
	const char *svg;      /* NULL: not asked for */
	const char *markdown; /* NULL: not asked for; "-": stdout */
	size_t top;
	struct profile_diff_options opts;
};

enum {
	OPT_TOP = 256,
	OPT_SVG,
	OPT_MARKDOWN,
	OPT_MAX_REGRESS,
	OPT_MIN_SHARE,
	OPT_ALPHA,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd diff BASE NEW [--top N] [--svg OUT] [--markdown OUT]\n"
		"                  [--max-regress PCT] [--min-share PCT] [--alpha A]\n\n"
		"Compare capture NEW with capture BASE (trapd captures, or any gzip or plain\n"
		"pprof CPU profiles): the CPU time of the whole run, and each function's self\n"
		"CPU time (its share of the samples times the run's CPU time). A change is a\n"
		"regression when it is larger than --max-regress and significant given the\n"
		"sampling error of the counts (and, for captures of several runs made by\n"
		"'trapd ci --runs N', the spread between runs).\n\n"
		"Options:\n"
		"      --top N            functions listed as grown and as shrunk (default %d;\n"
		"                         0 lists all)\n"
		"      --svg OUT          differential flame graph: NEW's frames, red where\n"
		"                         their share grew, blue where it shrank\n"
		"      --markdown OUT     the comparison as Markdown (a CI job summary or a pull\n"
		"                         request comment); '-' for stdout\n"
		"      --max-regress PCT  growth allowed before it is a regression (default %g)\n"
		"      --min-share PCT    test only functions with at least this share of a\n"
		"                         side's samples (default %g)\n"
		"      --alpha A          false alarm rate over all the tests (default %g)\n"
		"  -h, --help             this text\n\n"
		"Exit status: 0 no regression, %d regression, 1 failure, 2 bad usage or input.\n\n"
		"Examples:\n"
		"  trapd diff main.pb.zst pr.pb.zst\n"
		"  trapd diff main.pb.zst pr.pb.zst --svg diff.svg --markdown summary.md\n",
		DIFF_REPORT_DEFAULT_TOP, PROFILE_DIFF_DEFAULT_MAX_REGRESS,
		PROFILE_DIFF_DEFAULT_MIN_SHARE, PROFILE_DIFF_DEFAULT_ALPHA, TRAPD_EXIT_REGRESSION);
}

static int check_args(struct diff_cmd *c, int argc, char **argv)
{
	if (argc - optind < 2) {
		log_error("trapd diff needs two captures: BASE and NEW (see --help)");
		return -EINVAL;
	}
	if (argc - optind > 2) {
		log_error("unexpected argument '%s': trapd diff reads BASE and NEW; put options "
			  "like --svg before their value",
			  argv[optind + 2]);
		return -EINVAL;
	}
	c->base = argv[optind];
	c->new_file = argv[optind + 1];
	if (c->svg && !strcmp(c->svg, "-") && c->markdown && !strcmp(c->markdown, "-")) {
		log_error(
			"--svg and --markdown cannot both write to stdout ('-'); give one a file");
		return -EINVAL;
	}
	return 0;
}

static int parse_option(struct diff_cmd *c, int opt, char **argv)
{
	switch (opt) {
	case OPT_TOP:
		return cli_parse_top(optarg, &c->top);
	case OPT_SVG:
		c->svg = optarg;
		return 0;
	case OPT_MARKDOWN:
		c->markdown = optarg;
		return 0;
	case OPT_MAX_REGRESS:
		return cli_parse_comparison("--max-regress", optarg, &c->opts);
	case OPT_MIN_SHARE:
		return cli_parse_comparison("--min-share", optarg, &c->opts);
	case OPT_ALPHA:
		return cli_parse_comparison("--alpha", optarg, &c->opts);
	default:
		return cli_bad_option("diff", opt, argv[optind - 1]);
	}
}

/* parse_args - fill @c; returns 0, 1 for --help, or -EINVAL (reported). */
static int parse_args(struct diff_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, OPT_TOP },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "markdown", required_argument, NULL, OPT_MARKDOWN },
		{ "max-regress", required_argument, NULL, OPT_MAX_REGRESS },
		{ "min-share", required_argument, NULL, OPT_MIN_SHARE },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct profile_diff_options defaults = PROFILE_DIFF_OPTIONS_INIT;
	int opt;

	c->top = DIFF_REPORT_DEFAULT_TOP;
	c->opts = defaults;
	opterr = 0;
	optind = 0; /* glibc: a full reset, so the command can run twice (tests) */
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (parse_option(c, opt, argv))
			return -EINVAL;
	}
	return check_args(c, argc, argv);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { 0 };
	struct diff_capture base = { 0 }, new_cap = { 0 };
	struct diff_outputs outs = { 0 };
	int ret;

	ret = parse_args(&c, argc, argv);
	if (ret) {
		if (ret == 1)
			usage(stdout);
		return ret == 1 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	ret = diff_capture__read(&base, c.base);
	if (!ret)
		ret = diff_capture__read(&new_cap, c.new_file);
	if (ret)
		goto cleanup;
	outs.svg = c.svg;
	outs.markdown = c.markdown;
	outs.text = !(c.svg && !strcmp(c.svg, "-")) && !(c.markdown && !strcmp(c.markdown, "-"));
	outs.top = c.top;
	ret = diff_capture__compare(&base, &new_cap, &c.opts, &outs);
cleanup:
	diff_capture__release(&base);
	diff_capture__release(&new_cap);
	return ret;
}
