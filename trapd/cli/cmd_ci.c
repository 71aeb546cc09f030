// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_ci.c - `trapd ci`: the CI performance-regression trap. Run a
 * command (N times) in a cgroup of its own, profile all of it, compare
 * with a baseline capture and fail the job when it regressed; or, with
 * -c RULES, watch it with rules and capture only when one fires
 * (ci_watch.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/units.h"
#include "trapd/capture/capture.h"
#include "trapd/capture/capture_loop.h"
#include "trapd/capture/run_record.h"
#include "trapd/capture/sampler.h" /* SAMPLER_COPY_MAX */
#include "trapd/capture/unwind_summary.h"
#include "trapd/ci/ci_run.h"
#include "trapd/ci/ci_watch.h"
#include "trapd/cli/cli_args.h"
#include "trapd/cli/cli_store.h"
#include "trapd/cli/commands.h"
#include "trapd/cli/diff_capture.h"
#include "trapd/profile/diff_report.h"
#include "trapd/profile/profile_merge.h"
#include "trapd/profile/profile_view.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/log.h"
#include "trapd/util/privileges.h"

#define DEFAULT_DIR "trapd-ci"
#define DEFAULT_FREQ_HZ 499
#define MAX_FREQ_HZ 100000
#define CAPTURE_NAME "profile.pb.zst"
#define SUMMARY_NAME "summary.md"
#define DIFF_SVG_NAME "diff.svg"

struct ci_cmd {
	const char *rules;	 /* -c: watch with rules instead of comparing */
	const char *profile_opt; /* an option of the comparison given, for -c's message */
	const char *baseline;
	const char *dir;
	const char *parent_cgroup;
	unsigned runs;
	uint64_t freq_hz;
	enum unwind_mode unwind;
	uint32_t stack_copy_bytes; /* 0: the session's default */
	const char *unwind_opt;	   /* --unwind or --stack-copy if given, for -c's message */
	size_t top;
	struct profile_diff_options opts;
	enum profile_view view; /* --view: what is recorded and compared */
	char *const *argv;
};

enum {
	OPT_BASELINE = 256,
	OPT_MAX_REGRESS,
	OPT_MIN_SHARE,
	OPT_ALPHA,
	OPT_RUNS,
	OPT_TOP,
	OPT_CGROUP_PARENT,
	OPT_UNWIND,
	OPT_STACK_COPY,
	OPT_VIEW,
	OPT_BY,
	OPT_JUDGE_CPU_TIME,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd ci [--baseline FILE] [--max-regress PCT] [-o DIR] [--runs N]\n"
		"                [-F HZ] [--unwind MODE] [--stack-copy SIZE] [--top N]\n"
		"                [--min-share PCT] [--alpha A] [--view cpu|offcpu|wall]\n"
		"                [--by self|total] [--judge-cpu-time]\n"
		"                -- CMD ARGS\n"
		"       trapd ci -c RULES [-o DIR] -- CMD ARGS\n\n"
		"Run CMD (a benchmark or a test) in a cgroup of its own, sample all of it,\n"
		"children included, from start to exit, and compare the profile with a\n"
		"baseline capture. Writes to DIR: the new capture (%s and its .json\n"
		"sidecar: keep it as the next baseline), %s (a Markdown summary for the\n"
		"job's page or a pull request) and, with a baseline, %s (a differential\n"
		"flame graph). The comparison is also printed.\n\n"
		"With -c RULES, CMD is not profiled as a whole: the rules watch its cgroup\n"
		"while it runs (a rule that names no cgroup, pid or process watches the\n"
		"run), a rule that fires captures for its window into DIR, and the job\n"
		"fails with status %d if any fired. %s lists the fires and each rule's\n"
		"most extreme reading. 'trapd check --ci -c RULES' checks such a file.\n"
		"Each rule's frequency, unwind and stack_copy say how it samples.\n\n"
		"Options:\n"
		"      --baseline FILE    the capture to compare with (a previous run's %s)\n"
		"      --max-regress PCT  growth of one function's time beside the others'\n"
		"                         (or of the run's CPU time, --judge-cpu-time)\n"
		"                         allowed before it is a regression (default %g)\n"
		"  -o, --output DIR       where the files go (default %s)\n"
		"      --runs N           run CMD N times (default 1): more samples, and\n"
		"                         the spread of the runs' CPU times measured\n"
		"  -F, --frequency HZ     samples per second per CPU (default %d)\n"
		"      --unwind MODE      how user stacks are walked: dwarf (copies of the\n"
		"                         stack top unwound with the programs' .eh_frame;\n"
		"                         complete without frame pointers), kernel (the\n"
		"                         .eh_frame made into tables the kernel walks:\n"
		"                         complete, no copy, no depth cut), fp (frame\n"
		"                         pointers, in the kernel; cheapest) or auto\n"
		"                         (default: dwarf unless the copy rate is too high)\n"
		"      --stack-copy SIZE  user stack copied per sample in dwarf mode\n"
		"                         (default 16KiB, from 1KiB to 32KiB)\n"
		"      --top N            functions listed as grown and as shrunk (default %d)\n"
		"      --min-share PCT    functions tested: those with this share of the\n"
		"                         samples (default %g)\n"
		"      --alpha A          false alarm rate over all the tests (default %g)\n"
		"      --view V           what is compared: cpu (on-CPU samples; the\n"
		"                         default), offcpu (where the command waited, and\n"
		"                         how long: recorded too) or wall (both). The\n"
		"                         baseline must have been recorded with it\n"
		"      --by M             judge each function's self time (self, the\n"
		"                         default) or its total time (with what it calls)\n"
		"      --judge-cpu-time   also fail when the whole run's CPU time grew past\n"
		"                         --max-regress (with --runs, significantly): only\n"
		"                         on a machine whose speed holds from run to run;\n"
		"                         otherwise it is shown, not judged\n"
		"      --cgroup-parent P  make the run's cgroup under P (default: the cgroup\n"
		"                         trapd runs in)\n"
		"  -c, --config RULES     watch CMD with these rules instead (see above)\n"
		"  -h, --help             this text\n\n"
		"Exit status: CMD's own when it fails; %d when the profile regressed; %d\n"
		"when a rule fired (-c); 128 + N when signal N stopped trapd (CMD got it\n"
		"too); 0 otherwise; 1 and 2 for trapd's own failures and bad usage.\n\n"
		"Examples:\n"
		"  trapd ci -o out -- ./bench --quick\n"
		"  trapd ci --baseline main/profile.pb.zst --runs 3 -o out -- make check\n"
		"  trapd ci -c ci-rules.ini -o out -- ./integration-tests\n",
		CAPTURE_NAME, SUMMARY_NAME, DIFF_SVG_NAME, TRAPD_EXIT_RULE_FIRED, SUMMARY_NAME,
		CAPTURE_NAME, PROFILE_DIFF_DEFAULT_MAX_REGRESS, DEFAULT_DIR, DEFAULT_FREQ_HZ,
		DIFF_REPORT_DEFAULT_TOP, PROFILE_DIFF_DEFAULT_MIN_SHARE, PROFILE_DIFF_DEFAULT_ALPHA,
		TRAPD_EXIT_REGRESSION, TRAPD_EXIT_RULE_FIRED);
}

/* comparison_option - @opt's name if it belongs to the profile
 * comparison (which -c RULES replaces), else NULL. */
static const char *comparison_option(int opt)
{
	switch (opt) {
	case OPT_BASELINE:
		return "--baseline";
	case OPT_MAX_REGRESS:
		return "--max-regress";
	case OPT_MIN_SHARE:
		return "--min-share";
	case OPT_ALPHA:
		return "--alpha";
	case OPT_RUNS:
		return "--runs";
	case OPT_TOP:
		return "--top";
	case OPT_VIEW:
		return "--view";
	case OPT_BY:
		return "--by";
	case OPT_JUDGE_CPU_TIME:
		return "--judge-cpu-time";
	case 'F':
		return "-F";
	default:
		return NULL;
	}
}

/* the options, by their long names (cli_bad_option suggests among them) */
static const struct option longopts[] = {
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "max-regress", required_argument, NULL, OPT_MAX_REGRESS },
	{ "min-share", required_argument, NULL, OPT_MIN_SHARE },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "by", required_argument, NULL, OPT_BY },
	{ "judge-cpu-time", no_argument, NULL, OPT_JUDGE_CPU_TIME },
	{ "cgroup-parent", required_argument, NULL, OPT_CGROUP_PARENT },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "stack-copy", required_argument, NULL, OPT_STACK_COPY },
	{ "output", required_argument, NULL, 'o' },
	{ "frequency", required_argument, NULL, 'F' },
	{ "config", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* parse_unwind - --unwind MODE and --stack-copy SIZE, as `trapd capture`
 * takes them. Returns 0 or -EINVAL (reported). */
static int parse_unwind(struct ci_cmd *c, int opt, const char *arg)
{
	c->unwind_opt = opt == OPT_UNWIND ? "--unwind" : "--stack-copy";
	return opt == OPT_UNWIND ? cli_parse_unwind(arg, &c->unwind)
				 : cli_parse_stack_copy(arg, &c->stack_copy_bytes);
}

static int parse_option(struct ci_cmd *c, int opt, char **argv)
{
	const char *comparison = comparison_option(opt);
	long v;

	if (comparison)
		c->profile_opt = comparison;
	switch (opt) {
	case OPT_BASELINE:
		c->baseline = optarg;
		return 0;
	case 'o':
		c->dir = optarg;
		return 0;
	case OPT_CGROUP_PARENT:
		c->parent_cgroup = optarg;
		return 0;
	case OPT_MAX_REGRESS:
		return cli_parse_comparison("--max-regress", optarg, &c->opts);
	case OPT_MIN_SHARE:
		return cli_parse_comparison("--min-share", optarg, &c->opts);
	case OPT_ALPHA:
		return cli_parse_comparison("--alpha", optarg, &c->opts);
	case OPT_JUDGE_CPU_TIME:
		return cli_parse_comparison("--judge-cpu-time", NULL, &c->opts);
	case OPT_RUNS:
		if (cli_parse_count(optarg, "--runs", NULL, 1, RUN_RECORD_MAX_RUNS, &v))
			return -EINVAL;
		c->runs = (unsigned)v;
		return 0;
	case OPT_TOP:
		return cli_parse_top(optarg, &c->top);
	case OPT_VIEW:
		return diff_capture__parse_view(optarg, &c->view, &c->opts);
	case OPT_BY:
		return cli_parse_comparison("--by", optarg, &c->opts);
	case 'F':
		if (units_parse_frequency(optarg, MAX_FREQ_HZ, &c->freq_hz)) {
			log_error("bad frequency '%s': expected 1 to %d Hz, like 99 or 999Hz",
				  optarg, MAX_FREQ_HZ);
			return -EINVAL;
		}
		return 0;
	case 'c':
		c->rules = optarg;
		return 0;
	case OPT_UNWIND:
	case OPT_STACK_COPY:
		return parse_unwind(c, opt, optarg);
	default:
		return cli_bad_option("ci", longopts, opt, argv[optind - 1]);
	}
}

/* parse_args - fill @c; returns 0, 1 for --help, or -EINVAL (reported). */
static int parse_args(struct ci_cmd *c, int argc, char **argv)
{
	static const struct profile_diff_options defaults = PROFILE_DIFF_OPTIONS_INIT;
	int opt;

	c->dir = DEFAULT_DIR;
	c->runs = 1;
	c->freq_hz = DEFAULT_FREQ_HZ;
	c->unwind = UNWIND_MODE_AUTO;
	c->top = DIFF_REPORT_DEFAULT_TOP;
	c->opts = defaults;
	opterr = 0;
	optind = 0;
	/* '+': options end at the first non-option, CMD's own flags are its. */
	while ((opt = getopt_long(argc, argv, "+:ho:F:c:", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (parse_option(c, opt, argv))
			return -EINVAL;
	}
	if (optind >= argc) {
		log_error("no command to run: trapd ci [OPTIONS] -- CMD ARGS (see --help)");
		return -EINVAL;
	}
	if (c->rules && c->profile_opt) {
		log_error("%s compares whole runs; with -c RULES the rules decide what is "
			  "captured (see --help)",
			  c->profile_opt);
		return -EINVAL;
	}
	if (c->rules && c->unwind_opt) {
		log_error("%s: with -c RULES each rule's unwind and stack_copy say how its "
			  "captures walk stacks (see --help)",
			  c->unwind_opt);
		return -EINVAL;
	}
	c->argv = argv + optind;
	return 0;
}

/* --- outputs --- */

static int make_dir(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		log_error("cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

static int join(char *buf, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len) {
		log_error("%s/%s: path too long", dir, name);
		return -ENAMETOOLONG;
	}
	return 0;
}

struct no_baseline {
	const struct run_record *record;
	const char *capture;
};

static int fill_no_baseline(FILE *f, void *ctx)
{
	const struct no_baseline *nb = ctx;
	char cpu[UNITS_DURATION_SHORT_LEN], wall[UNITS_DURATION_SHORT_LEN];
	size_t i;

	fprintf(f,
		"### trapd: no baseline to compare with\n\n"
		"This run's capture, `%s`, can be the next job's `--baseline`.\n\n"
		"| run | CPU time | wall time | exit status |\n| ---: | ---: | ---: | ---: |\n",
		nb->capture);
	for (i = 0; i < nb->record->nruns; i++) {
		const struct ci_run *r = &nb->record->runs[i];

		fprintf(f, "| %zu | %s | %s | %d |\n", i + 1,
			units_format_duration_short((uint64_t)r->cpu_ns, cpu, sizeof(cpu)),
			units_format_duration_short((uint64_t)r->wall_ns, wall, sizeof(wall)),
			r->exit_status);
	}
	return ferror(f) ? -EIO : 0;
}

/* write_no_baseline - the summary when there is nothing to compare with. */
static int write_no_baseline(const char *path, const struct run_record *r, const char *capture)
{
	struct no_baseline nb = { r, capture };
	char err[512];

	if (atomic_file_write(path, fill_no_baseline, &nb, err, sizeof(err))) {
		log_error("cannot write the summary: %s", err);
		return TRAPD_EXIT_FAILURE;
	}
	return TRAPD_EXIT_OK;
}

/* compare - the new capture against the baseline; the exit status. */
static int compare(const struct ci_cmd *c, const char *capture, const char *summary)
{
	struct diff_capture base = { 0 }, new_cap = { 0 };
	struct diff_outputs outs = { .text = true, .markdown = summary, .top = c->top };
	char svg[PATH_MAX];
	int ret;

	if (join(svg, sizeof(svg), c->dir, DIFF_SVG_NAME))
		return TRAPD_EXIT_USAGE;
	outs.svg = svg;
	outs.base_label = c->baseline;
	outs.new_label = "this run";
	ret = diff_capture__read(&base, c->baseline);
	if (!ret)
		ret = diff_capture__phase(&base, NULL);
	if (!ret)
		ret = diff_capture__read(&new_cap, capture);
	if (!ret) {
		diff_capture__view(&base, c->view);
		diff_capture__view(&new_cap, c->view);
		ret = diff_capture__compare(&base, &new_cap, &c->opts, &outs);
	}
	diff_capture__release(&base);
	diff_capture__release(&new_cap);
	return ret;
}

/* --- runs --- */

struct ci_state {
	struct run_record record;
	struct profile *merged;
	struct capture_info info;
	int64_t first_start_ns;
	int64_t duration_ns;
	uint64_t leaf[LEAF_NR];		       /* over all runs */
	uint64_t roots[STACK_ROOT_NR];	       /* over all runs */
	uint64_t offcpu_ns[SAMPLER_OFFCPU_NR]; /* over all runs */
	int signo;
};

static void add_counts(uint64_t *sum, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sum[i] += v[i];
}

/* run_all - the runs, merged into one profile; stops at a failing run.
 * Returns 0 or an exit status. */
static int run_all(const struct ci_cmd *c, int sigfd, struct ci_state *st)
{
	struct ci_run_opts o = {
		.argv = c->argv,
		.freq_hz = c->freq_hz,
		.parent_cgroup = c->parent_cgroup,
		.unwind = c->unwind,
		.stack_copy_bytes = c->stack_copy_bytes,
		.record = c->view == PROFILE_VIEW_CPU ? 0
						      : SAMPLER_RECORD_CPU | SAMPLER_RECORD_OFFCPU,
	};
	unsigned i;
	int e;

	for (i = 0; i < c->runs; i++) {
		struct ci_run *run = &st->record.runs[i];
		struct profile *p = NULL;

		log_info("run %u of %u: %s", i + 1, c->runs, c->argv[0]);
		e = ci_run__once(&o, sigfd, &st->info, &p, run, &st->signo);
		if (e)
			return e == -EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
		st->record.nruns = i + 1;
		if (!i)
			st->first_start_ns = st->info.start_ns;
		st->duration_ns += st->info.duration_ns;
		add_counts(st->leaf, st->info.leaf, LEAF_NR);
		add_counts(st->roots, st->info.roots, STACK_ROOT_NR);
		add_counts(st->offcpu_ns, st->info.offcpu_ns, SAMPLER_OFFCPU_NR);
		e = p ? profile_merge__add(st->merged, p, (int64_t)i + 1) : 0;
		profile__free(p);
		if (e) {
			log_error("merging run %u's profile: %s", i + 1, strerror(-e));
			return TRAPD_EXIT_FAILURE;
		}
		if (st->signo || run->exit_status)
			break;
	}
	return TRAPD_EXIT_OK;
}

static int write_capture(const char *path, struct ci_state *st)
{
	char err[512];

	st->info.ci = &st->record;
	st->info.start_ns = st->first_start_ns;
	st->info.duration_ns = st->duration_ns;
	memcpy(st->info.leaf, st->leaf, sizeof(st->leaf));
	memcpy(st->info.roots, st->roots, sizeof(st->roots));
	memcpy(st->info.offcpu_ns, st->offcpu_ns, sizeof(st->offcpu_ns));
	if (capture_write(path, st->merged, &st->info, err, sizeof(err))) {
		log_error("writing the capture: %s", err);
		return TRAPD_EXIT_FAILURE;
	}
	log_info("wrote %s", path);
	return TRAPD_EXIT_OK;
}

/* verdict - after the runs: CMD's failure, the comparison, or 0. */
static int verdict(const struct ci_cmd *c, const struct ci_state *st, const char *capture,
		   const char *summary)
{
	const struct ci_run *last = &st->record.runs[st->record.nruns - 1];

	if (st->signo)
		return 128 + st->signo;
	if (last->exit_status) {
		log_error("run %zu: %s exited with status %d; nothing compared", st->record.nruns,
			  c->argv[0], last->exit_status);
		return last->exit_status;
	}
	if (!c->baseline) {
		log_info("no --baseline: %s is the first of its line", capture);
		return write_no_baseline(summary, &st->record, capture);
	}
	return compare(c, capture, summary);
}

static int run(struct ci_cmd *c)
{
	struct ci_state st = { 0 };
	static char baseline[PATH_MAX];
	char capture[PATH_MAX], summary[PATH_MAX];
	int ret, sigfd = -1;

	if (make_dir(c->dir) || join(capture, sizeof(capture), c->dir, CAPTURE_NAME) ||
	    join(summary, sizeof(summary), c->dir, SUMMARY_NAME))
		return TRAPD_EXIT_USAGE;
	ret = c->baseline ? cli_store__resolve(&c->baseline, baseline, sizeof(baseline)) : 0;
	if (ret)
		return ret;
	if (c->baseline && access(c->baseline, R_OK)) {
		log_error("--baseline %s: %s", c->baseline, strerror(errno));
		return TRAPD_EXIT_USAGE;
	}
	st.merged = profile__new();
	if (!st.merged || capture_new_id(&st.info)) {
		log_error("setting up: %s", strerror(errno));
		profile__free(st.merged);
		return TRAPD_EXIT_FAILURE;
	}
	st.info.trigger = "ci";
	if (capture_loop__block_signals(&sigfd)) {
		log_error("setting up signals: %s", strerror(errno));
		ret = TRAPD_EXIT_FAILURE;
		goto out;
	}
	ret = run_all(c, sigfd, &st);
	if (!ret && st.record.nruns)
		ret = write_capture(capture, &st);
	if (!ret && st.record.nruns)
		ret = verdict(c, &st, capture, summary);
out:
	if (sigfd >= 0)
		close(sigfd);
	profile__free(st.merged);
	return ret;
}

/* run_watched - -c RULES: the run watched by rules (ci_watch.h). */
static int run_watched(const struct ci_cmd *c)
{
	struct ci_watch_opts o = {
		.rules_path = c->rules,
		.dir = c->dir,
		.parent_cgroup = c->parent_cgroup,
		.argv = c->argv,
		.env = SIGNAL_ENV_LIVE,
	};
	char summary[PATH_MAX];
	int ret, sigfd = -1;

	if (make_dir(c->dir) || join(summary, sizeof(summary), c->dir, SUMMARY_NAME))
		return TRAPD_EXIT_USAGE;
	o.summary = summary;
	if (capture_loop__block_signals(&sigfd)) {
		log_error("setting up signals: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	ret = ci_watch__run(&o, sigfd);
	close(sigfd);
	return ret;
}

int cmd_ci(int argc, char **argv)
{
	struct ci_cmd c = { 0 };
	int ret;

	ret = parse_args(&c, argc, argv);
	if (ret) {
		if (ret == 1)
			usage(stdout);
		return ret == 1 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (!privileges__can_sample())
		return TRAPD_EXIT_FAILURE;
	return c.rules ? run_watched(&c) : run(&c);
}
