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
#include "trapd/cli/cli_store.h"
#include "trapd/cli/cli_where.h"
#include "trapd/cli/commands.h"
#include "trapd/cli/diff_capture.h"
#include "trapd/profile/diff_report.h"
#include "trapd/profile/profile_file.h"
#include "trapd/profile/profile_phase.h"
#include "trapd/profile/profile_view.h"
#include "trapd/profile/profile_where.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/log.h"

struct diff_cmd {
	const char *base;
	const char *new_file;
	const char *svg;      /* NULL: not asked for */
	const char *markdown; /* NULL: not asked for; "-": stdout */
	size_t top;
	struct profile_diff_options opts;
	struct profile_where where, base_where; /* NEW's and BASE's samples kept */
	bool by_set;				/* --by given */
	enum profile_view view;			/* --view */
	const char *phase, *base_phase;		/* NEW's and BASE's; NULL: the window */
};

enum {
	OPT_TOP = 256,
	OPT_SVG,
	OPT_MARKDOWN,
	OPT_MAX_REGRESS,
	OPT_MIN_SHARE,
	OPT_ALPHA,
	OPT_WHERE,
	OPT_BASE_WHERE,
	OPT_BY,
	OPT_JUDGE_CPU_TIME,
	OPT_VIEW,
	OPT_PHASE,
	OPT_BASE_PHASE,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd diff BASE NEW [--top N] [--svg OUT] [--markdown OUT]\n"
		"                  [--max-regress PCT] [--min-share PCT] [--alpha A]\n"
		"                  [--base-where LABEL=VALUE]... [--where LABEL=VALUE]...\n"
		"                  [--by self|total] [--view cpu|offcpu|wall] [--judge-cpu-time]\n"
		"                  [--base-phase P] [--phase P]\n"
		"       trapd diff CAPTURE --base-where LABEL=VALUE --where LABEL=VALUE\n"
		"       trapd diff CAPTURE --base-phase before --phase during\n\n"
		"Compare capture NEW with capture BASE (trapd captures, or any gzip or plain\n"
		"pprof CPU profiles): each function's self time against the other functions'\n"
		"(its share of the samples, over what moved every share alike: the machine's\n"
		"speed cannot move it), and the CPU time of the whole run, shown but judged\n"
		"only with --judge-cpu-time. A change is a regression when it is larger\n"
		"than --max-regress and significant given the sampling error of the\n"
		"counts (and, for the CPU time of captures of several runs made by\n"
		"'trapd ci --runs N', the spread between runs).\n\n"
		"With one CAPTURE, both sides are its samples, chosen by label: the samples\n"
		"inside a func or syscall rule's slow calls against those inside its fast\n"
		"ones (--base-where call=fast --where call=slow) name the functions that make\n"
		"slow calls slow. The two sides are then compared by share (each function's\n"
		"part of its side) and by total time (the function and what it calls).\n\n"
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
		"      --judge-cpu-time   also judge the whole run's CPU time against\n"
		"                         --max-regress (a machine whose speed holds)\n"
		"      --base-where L=V   only BASE's samples whose label L is V (labels as\n"
		"                         for trapd report --where; repeated: any value of\n"
		"                         one label, and every label)\n"
		"      --where L=V        only NEW's samples whose label L is V\n"
		"      --by M             judge each function's self time (self: the default\n"
		"                         for two captures) or its total time (total: with\n"
		"                         what it calls; the default for one capture)\n"
		"      --view V           what the sides weigh, for captures that recorded\n"
		"                         off-CPU time: cpu (on-CPU samples; the default),\n"
		"                         offcpu (time waited) or wall (both). Times are\n"
		"                         tested in sampling periods, as samples are\n"
		"      --base-phase P     BASE's phase, for a capture the daemon took with its\n"
		"                         flight recorder on: before (the seconds before its\n"
		"                         trigger), during (the window: the default) or all\n"
		"      --phase P          NEW's phase. With one CAPTURE, --base-phase before\n"
		"                         --phase during shows what changed at the trigger\n"
		"  -h, --help             this text\n\n"
		"Exit status: 0 no regression, %d regression, 1 failure, 2 bad usage or input.\n\n"
		"Examples:\n"
		"  trapd diff main.pb.zst pr.pb.zst\n"
		"  trapd diff main.pb.zst pr.pb.zst --svg diff.svg --markdown summary.md\n"
		"  trapd diff api.pb.zst --base-where call=fast --where call=slow --svg slow.svg\n"
		"  trapd diff spike.pb.zst --base-phase before --phase during --svg breach.svg\n",
		DIFF_REPORT_DEFAULT_TOP, PROFILE_DIFF_DEFAULT_MAX_REGRESS,
		PROFILE_DIFF_DEFAULT_MIN_SHARE, PROFILE_DIFF_DEFAULT_ALPHA, TRAPD_EXIT_REGRESSION);
}

static int check_outputs(const struct diff_cmd *c);

static int check_args(struct diff_cmd *c, int argc, char **argv)
{
	if (argc - optind == 1 && (c->where.n || c->base_where.n || c->phase || c->base_phase)) {
		c->base = c->new_file = argv[optind];
		/* Sides chosen by label share their stacks' walk: total time
		 * compares. The history's stacks are walked by frame pointers
		 * and the window's maybe by DWARF: only self time compares. */
		if (!c->by_set)
			c->opts.by_total = !c->phase && !c->base_phase;
		return check_outputs(c);
	}
	if (argc - optind < 2) {
		log_error("trapd diff needs two captures, BASE and NEW, or one with --base-where "
			  "and --where (or --base-phase and --phase) choosing its two sides (see "
			  "--help)");
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
	return check_outputs(c);
}

static int check_outputs(const struct diff_cmd *c)
{
	if (c->svg && !strcmp(c->svg, "-") && c->markdown && !strcmp(c->markdown, "-")) {
		log_error(
			"--svg and --markdown cannot both write to stdout ('-'); give one a file");
		return -EINVAL;
	}
	return 0;
}

/* the options, by their long names (cli_bad_option suggests among them) */
static const struct option longopts[] = {
	{ "top", required_argument, NULL, OPT_TOP },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "markdown", required_argument, NULL, OPT_MARKDOWN },
	{ "max-regress", required_argument, NULL, OPT_MAX_REGRESS },
	{ "min-share", required_argument, NULL, OPT_MIN_SHARE },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "where", required_argument, NULL, OPT_WHERE },
	{ "base-where", required_argument, NULL, OPT_BASE_WHERE },
	{ "by", required_argument, NULL, OPT_BY },
	{ "judge-cpu-time", no_argument, NULL, OPT_JUDGE_CPU_TIME },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "phase", required_argument, NULL, OPT_PHASE },
	{ "base-phase", required_argument, NULL, OPT_BASE_PHASE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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
	case OPT_JUDGE_CPU_TIME:
		return cli_parse_comparison("--judge-cpu-time", NULL, &c->opts);
	case OPT_WHERE:
		return cli_parse_where("--where", optarg, &c->where);
	case OPT_BASE_WHERE:
		return cli_parse_where("--base-where", optarg, &c->base_where);
	case OPT_BY:
		c->by_set = true;
		return cli_parse_comparison("--by", optarg, &c->opts);
	case OPT_VIEW:
		return diff_capture__parse_view(optarg, &c->view, &c->opts);
	case OPT_PHASE:
	case OPT_BASE_PHASE:
		if (profile_phase__check(optarg)) {
			log_error("bad %s '%s': expected before, during or all",
				  opt == OPT_PHASE ? "--phase" : "--base-phase", optarg);
			return -EINVAL;
		}
		*(opt == OPT_PHASE ? &c->phase : &c->base_phase) = optarg;
		return 0;
	default:
		return cli_bad_option("diff", longopts, opt, argv[optind - 1]);
	}
}

/* parse_args - fill @c; returns 0, 1 for --help, or -EINVAL (reported). */
static int parse_args(struct diff_cmd *c, int argc, char **argv)
{
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

/* side_label - a side of one capture, named by its phase and conditions
 * ("phase before", "call=slow", "phase during, comm=x"). */
static const char *side_label(const char *phase, const struct profile_where *w, char *buf)
{
	char where[200];
	size_t off = 0;

	buf[0] = '\0';
	if (phase)
		off = (size_t)snprintf(buf, 256, "phase %s", phase);
	if (w->n)
		snprintf(buf + off, 256 - off, "%s%s", off ? ", " : "",
			 profile_where__describe(w, where, sizeof(where)));
	return buf[0] ? buf : "all samples";
}

/* one_capture - both sides are samples of one capture: each side is its
 * own whole (the same CPU time for both), so functions compare by their
 * share of their side; the sides are named by their conditions. */
static void one_capture(struct diff_cmd *c, struct diff_capture *base, struct diff_capture *new_cap,
			struct diff_outputs *outs, char labels[2][256])
{
	const struct profile *p = new_cap->profile;
	double ns = (double)profile__total(p) * (double)(p->period_ns > 0 ? p->period_ns : 1);
	base->cpu_ns = new_cap->cpu_ns = ns > 0 ? ns : 1;
	c->opts.shares_only = true;
	outs->base_label = side_label(c->base_phase, &c->base_where, labels[0]);
	outs->new_label = side_label(c->phase, &c->where, labels[1]);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { 0 };
	struct diff_capture base = { 0 }, new_cap = { 0 };
	struct diff_outputs outs = { 0 };
	char labels[2][256], fetched[2][PATH_MAX];
	int ret;

	ret = parse_args(&c, argc, argv);
	if (ret) {
		if (ret == 1)
			usage(stdout);
		return ret == 1 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (c.base == c.new_file) {
		ret = cli_store__resolve(&c.base, fetched[0], sizeof(fetched[0]));
		c.new_file = c.base;
	} else {
		ret = cli_store__resolve(&c.base, fetched[0], sizeof(fetched[0]));
		if (!ret)
			ret = cli_store__resolve(&c.new_file, fetched[1], sizeof(fetched[1]));
	}
	if (ret)
		return ret;
	ret = diff_capture__read(&base, c.base);
	if (!ret)
		ret = diff_capture__read(&new_cap, c.new_file);
	if (!ret)
		ret = diff_capture__phase(&base, c.base_phase);
	if (!ret)
		ret = diff_capture__phase(&new_cap, c.phase);
	if (!ret)
		ret = diff_capture__where(&base, &c.base_where);
	if (!ret)
		ret = diff_capture__where(&new_cap, &c.where);
	if (ret)
		goto cleanup;
	diff_capture__view(&base, c.view);
	diff_capture__view(&new_cap, c.view);
	if (c.base == c.new_file)
		one_capture(&c, &base, &new_cap, &outs, labels);
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
