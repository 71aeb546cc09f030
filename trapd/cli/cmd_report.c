// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_report.c - `trapd report`: the top functions of a capture, and on
 * request its folded stacks, a gzip pprof copy and an SVG flame graph.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/capture/capture.h"
#include "rules/units.h"
#include "trapd/cli/cli_args.h"
#include "trapd/cli/cli_store.h"
#include "trapd/cli/cli_where.h"
#include "trapd/cli/commands.h"
#include "trapd/latency/latency_report.h"
#include "trapd/profile/flamegraph.h"
#include "trapd/profile/folded.h"
#include "trapd/profile/profile_file.h"
#include "trapd/profile/profile_phase.h"
#include "trapd/profile/profile_view.h"
#include "trapd/profile/profile_where.h"
#include "trapd/profile/report.h"
#include "trapd/profile/stacktree.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/json_read.h"
#include "trapd/util/log.h"

#define SIDECAR_MAX_BYTES (16u << 20)

struct report_cmd {
	const char *file;
	const char *folded; /* outputs; NULL = not asked for, "-" = stdout */
	const char *pprof;
	const char *svg;
	const char *title;
	size_t top;
	enum profile_view view;
	bool view_set;
	struct profile_where where; /* the samples kept; empty: all */
	const char *phase;	    /* --phase; NULL: the window of a capture with history */
	int64_t before_samples;	    /* the history's samples, when the window is shown alone */
};

/* What the view writers need. */
struct report_views {
	const struct stacktree *tree;
	struct flamegraph_options svg;
};

enum {
	OPT_TOP = 256,
	OPT_FOLDED,
	OPT_PPROF,
	OPT_SVG,
	OPT_TITLE,
	OPT_VIEW,
	OPT_WHERE,
	OPT_PHASE,
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd report FILE [--top N] [--folded OUT] [--pprof OUT] [--svg OUT]\n"
		"                         [--title T] [--view cpu|offcpu|wall]\n"
		"                         [--where LABEL=VALUE]... [--phase before|during|all]\n\n"
		"Print the functions of capture FILE with the most samples (self: the\n"
		"function itself was running; total: it was on the stack), and write other\n"
		"views of it on request. FILE is a trapd capture (.pb.zst) or any gzip or\n"
		"plain pprof profile.\n\n"
		"Options:\n"
		"      --top N        rows in the table (default %d; 0 lists all)\n"
		"      --folded OUT   folded stacks, one 'comm;outer;...;leaf COUNT' per\n"
		"                     line (flamegraph.pl, speedscope, inferno)\n"
		"      --pprof OUT    gzip-compressed pprof (go tool pprof)\n"
		"      --svg OUT      interactive SVG flame graph (open it in a browser:\n"
		"                     hover, click to zoom, Ctrl-F to search)\n"
		"      --title T      the flame graph's title (default 'trapd: FILE')\n"
		"      --view V       which time the table, folded stacks and flame graph\n"
		"                     weigh, for a capture that recorded off-CPU time\n"
		"                     (capture --off-cpu): cpu (on-CPU samples; the\n"
		"                     default), offcpu (where threads waited, and how\n"
		"                     long) or wall (both: for one thread, where its\n"
		"                     wall-clock time went). Time views count\n"
		"                     nanoseconds, in folded stacks too\n"
		"      --where L=V    only the samples whose label L is V: call=slow (inside\n"
		"                     the calls a func or syscall rule found slow; also fast,\n"
		"                     outside, unknown), state=uninterruptible, comm=NAME,\n"
		"                     cgroup=PATH, pid=N, tid=N, run=N. Repeated: any value\n"
		"                     of one label, and every label\n"
		"      --phase P      a capture the daemon took with its flight recorder on\n"
		"                     ([global] history_frequency) holds the seconds before\n"
		"                     its trigger too: before (those, at the recorder's\n"
		"                     rate), during (the window: the default) or all (both,\n"
		"                     counted by time at the window's rate)\n"
		"  -h, --help         this text\n\n"
		"OUT '-' writes --folded or --svg to stdout instead of the table.\n\n"
		"Examples:\n"
		"  trapd report pg.pb.zst                        # top 20 functions\n"
		"  trapd report pg.pb.zst --top 50 --svg pg.svg  # and a flame graph\n"
		"  trapd report pg.pb.zst --folded - | grep -c memcpy\n"
		"  trapd report api.pb.zst --where call=slow --svg slow.svg\n"
		"  trapd report spike.pb.zst --phase before   # what ran before the trigger\n"
		"  trapd report pg.pb.zst --pprof pg.pb.gz && go tool pprof -http=: pg.pb.gz\n",
		REPORT_DEFAULT_TOP);
}

/* check_args - what getopt cannot: the one FILE, and outputs that fit
 * together. */
static int check_args(struct report_cmd *c, int argc, char **argv)
{

	if (optind >= argc) {
		log_error("no capture file given; usage: trapd report FILE (see --help)");
		return -EINVAL;
	}
	c->file = argv[optind];
	if (optind + 1 < argc) {
		log_error("unexpected argument '%s': trapd report reads one FILE; put options "
			  "like --svg before their value",
			  argv[optind + 1]);
		return -EINVAL;
	}
	if (c->folded && c->svg && !strcmp(c->folded, "-") && !strcmp(c->svg, "-")) {
		log_error("--folded and --svg cannot both write to stdout ('-'); give one a file");
		return -EINVAL;
	}
	if (c->pprof && !strcmp(c->pprof, "-")) {
		log_error("--pprof needs a file name: gzip pprof is not written to stdout");
		return -EINVAL;
	}
	if (c->title && !c->svg)
		log_warn("--title only applies to the flame graph (--svg OUT)");
	return 0;
}

/* parse_args - fill @c; returns 0, 1 for --help, or -EINVAL (reported). */
static int parse_args(struct report_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "top", required_argument, NULL, OPT_TOP },
		{ "folded", required_argument, NULL, OPT_FOLDED },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "view", required_argument, NULL, OPT_VIEW },
		{ "where", required_argument, NULL, OPT_WHERE },
		{ "phase", required_argument, NULL, OPT_PHASE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	c->top = REPORT_DEFAULT_TOP;
	opterr = 0;
	optind = 0; /* glibc: a full reset, so the command can run twice (tests) */
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			return 1;
		case OPT_TOP:
			if (cli_parse_top(optarg, &c->top))
				return -EINVAL;
			break;
		case OPT_FOLDED:
			c->folded = optarg;
			break;
		case OPT_PPROF:
			c->pprof = optarg;
			break;
		case OPT_SVG:
			c->svg = optarg;
			break;
		case OPT_TITLE:
			c->title = optarg;
			break;
		case OPT_VIEW:
			if (profile_view__parse(optarg, &c->view)) {
				log_error("bad --view '%s': expected cpu, offcpu or wall", optarg);
				return -EINVAL;
			}
			c->view_set = true;
			break;
		case OPT_WHERE:
			if (cli_parse_where("--where", optarg, &c->where))
				return -EINVAL;
			break;
		case OPT_PHASE:
			if (profile_phase__check(optarg)) {
				log_error("bad --phase '%s': expected before, during or all",
					  optarg);
				return -EINVAL;
			}
			c->phase = optarg;
			break;
		default:
			cli_bad_option("report", longopts, opt, argv[optind - 1]);
			return -EINVAL;
		}
	}
	return check_args(c, argc, argv);
}

/* --- outputs --- */

typedef int (*view_writer)(FILE *out, const struct report_views *v);

static int write_folded_view(FILE *out, const struct report_views *v)
{
	return folded_write(out, v->tree);
}

static int write_svg_view(FILE *out, const struct report_views *v)
{
	return flamegraph_write(out, v->tree, &v->svg);
}

struct view_job {
	view_writer fn;
	const struct report_views *v;
};

static int fill_view(FILE *f, void *ctx)
{
	const struct view_job *job = ctx;
	int ret = job->fn(f, job->v);

	/* The writers say -EIO; errno says why (ENOSPC, EPIPE...). */
	return ret == -EIO && errno ? -errno : ret;
}

/* write_view - run @fn into @path ("-" is stdout) through atomic_file:
 * never a truncated file, never a device replaced. Returns 0 or a negative
 * errno; @err says what failed. */
static int write_view(const char *path, view_writer fn, const struct report_views *v, char *err,
		      size_t errlen)
{
	struct view_job job = { fn, v };

	return atomic_file_write_or_stdout(path, fill_view, &job, err, errlen);
}

/* write_pprof - the gzip copy, of the profile as read (every sample
 * type: pprof tools choose with -sample_index); returns the exit status. */
static int write_pprof(const struct report_cmd *c, const struct profile *p)
{
	char err[512] = "";
	int ret;

	if (!c->pprof)
		return TRAPD_EXIT_OK;
	ret = profile_file__write_gzip(c->pprof, p, err, sizeof(err));
	if (ret) {
		log_error("cannot write pprof: %s", err[0] ? err : strerror(-ret));
		return TRAPD_EXIT_FAILURE;
	}
	return TRAPD_EXIT_OK;
}

/* write_outputs - every view asked for; returns the exit status. */
static int write_outputs(const struct report_cmd *c, const struct report_views *v)
{
	char err[512] = "";
	int ret;

	if (c->folded) {
		ret = write_view(c->folded, write_folded_view, v, err, sizeof(err));
		if (ret) {
			log_error("cannot write folded stacks: %s", err);
			return TRAPD_EXIT_FAILURE;
		}
	}
	if (c->svg) {
		ret = write_view(c->svg, write_svg_view, v, err, sizeof(err));
		if (ret) {
			log_error("cannot write the flame graph: %s", err);
			return TRAPD_EXIT_FAILURE;
		}
		if (strcmp(c->svg, "-"))
			log_info("flame graph: %s (open it in a browser)", c->svg);
	}
	return TRAPD_EXIT_OK;
}

/* read_capture - @c->file into *p; returns an exit status (reported). */
static int read_capture(const struct report_cmd *c, struct profile **p)
{
	char err[512] = "";
	int ret;

	ret = profile_file__read(c->file, p, err, sizeof(err));
	if (!ret)
		return TRAPD_EXIT_OK;
	if (ret == -ENOMEM) {
		log_error("%s: out of memory reading it", c->file);
		return TRAPD_EXIT_FAILURE;
	}
	if (ret == -EBADMSG)
		log_error("%s; trapd report reads trapd captures (.pb.zst) and gzip or plain "
			  "pprof files",
			  err[0] ? err : c->file);
	else
		log_error("%s", err[0] ? err : strerror(-ret));
	return TRAPD_EXIT_USAGE;
}

/* print_trigger_latency - one fired rule's latency window. */
static void print_trigger_latency(FILE *out, const char *sidecar, const struct json_value *trig,
				  size_t i)
{
	const struct json_value *lat = json_get(trig, "latency");
	const char *rule = json_str(json_get(trig, "rule")),
		   *sig = json_str(json_get(trig, "signal"));
	struct lat_hist *h;
	uint64_t span;
	char err[160];

	if (json_type(lat) != JSON_OBJECT)
		return;
	h = malloc(sizeof(*h));
	if (!h)
		return;
	if (latency_report__from_json(lat, h, &span, err, sizeof(err))) {
		log_warn("%s: triggers[%zu].latency: %s", sidecar, i, err);
	} else {
		fprintf(out, "\nLatency when rule %s fired (%s):\n", rule ? rule : "?",
			sig ? sig : "?");
		latency_report__text(out, h, span, "  ");
	}
	free(h);
}

static uint64_t u64_at(const struct json_value *v, const char *path)
{
	uint64_t n = 0;

	json_number_u64(json_path(v, path), &n);
	return n;
}

/* print_unwind_reasons - " (cut short: stack_short 12, no_cfi 5)": the
 * reasons other than reaching an entry, most frequent first. */
static void print_unwind_reasons(FILE *out, const struct json_value *ended)
{
	uint64_t best, n;
	size_t i, k, shown = 0, nkeys = json_len(ended);
	bool used[32] = { false };

	for (k = 0; k < nkeys && k < 32; k++) {
		size_t pick = nkeys;

		best = 0;
		for (i = 0; i < nkeys && i < 32; i++) {
			const char *key = json_member_key(ended, i);

			if (used[i] || !key || !strcmp(key, "entry") ||
			    json_number_u64(json_index(ended, i), &n) || n <= best)
				continue;
			best = n;
			pick = i;
		}
		if (pick == nkeys)
			break;
		used[pick] = true;
		fprintf(out, "%s%s %" PRIu64,
			shown++ ? ", " : "; cut short: ", json_member_key(ended, pick), best);
	}
}

/* print_kernel_walk - the completeness line of a kernel walk: its own
 * walks, and those it handed to a stack copy (a file's table not built
 * yet) as DWARF unwinding counted them. */
static void print_kernel_walk(FILE *out, const struct json_value *u)
{
	const struct json_value *k = json_get(u, "kernel_walk");
	uint64_t copied = u64_at(k, "copied"), walks = u64_at(k, "walks");
	uint64_t unwound = u64_at(u, "unwound"), done, entry;

	/* a walk handed to a copy counts once, as the copy */
	walks = walks >= copied ? walks - copied : 0;
	entry = u64_at(k, "ended.entry") + u64_at(u, "ended.entry");
	done = walks + unwound;
	fprintf(out,
		"\nStacks: kernel walk, %.1f %% complete (%" PRIu64 " of %" PRIu64
		" stacks reached a process or thread entry",
		done ? 100.0 * (double)entry / (double)done : 0.0, entry, done);
	print_unwind_reasons(out, json_get(k, "ended"));
	if (unwound)
		fprintf(out, "; %" PRIu64 " copied and unwound while tables were built", unwound);
	fprintf(out, ")\n");
}

/* print_completeness - one line: how the capture's user stacks were
 * walked and how many reached the code that starts a process or thread
 * (the rest are cut short, and say why). */
static void print_completeness(FILE *out, const struct json_value *root)
{
	const struct json_value *u = json_get(root, "unwind");
	const char *mode = json_str(json_get(u, "mode"));
	uint64_t walks, entry, rooted, all;

	if (mode && !strcmp(mode, "kernel")) {
		print_kernel_walk(out, u);
		return;
	}
	if (mode && !strcmp(mode, "dwarf")) {
		walks = u64_at(u, "unwound");
		entry = u64_at(u, "ended.entry");
		fprintf(out,
			"\nStacks: DWARF unwinding, %.1f %% complete (%" PRIu64 " of %" PRIu64
			" walks reached a process or thread entry",
			walks ? 100.0 * (double)entry / (double)walks : 0.0, entry, walks);
		print_unwind_reasons(out, json_get(u, "ended"));
		fprintf(out, ")\n");
		return;
	}
	rooted = u64_at(root, "stack_roots.rooted");
	all = rooted + u64_at(root, "stack_roots.unrooted") +
	      u64_at(root, "stack_roots.outermost_unnamed");
	if (!all)
		return;
	fprintf(out,
		"\nStacks: frame pointers, %.1f %% complete (%" PRIu64 " of %" PRIu64
		" samples reached a process or thread entry%s)\n",
		100.0 * (double)rooted / (double)all, rooted, all,
		rooted < all ? "; code without frame pointers cuts the rest: try --unwind dwarf"
			     : "");
}

/* print_python - one line when the capture met CPython interpreters: how
 * many samples had their Python frames walked and how many of those
 * frames got a name and a line. */
static void print_python(FILE *out, const struct json_value *root)
{
	uint64_t found = u64_at(root, "python.interpreters");
	uint64_t refused = u64_at(root, "python.interpreters_not_walkable");
	uint64_t frames = u64_at(root, "python.frames"),
		 named = u64_at(root, "python.frames_named");
	uint64_t lines = u64_at(root, "python.frames_with_line");

	if (!found && !refused)
		return;
	fprintf(out,
		"Python: %" PRIu64 " samples with Python frames, %" PRIu64
		" frames, %.1f %% named, %.1f %% with a line",
		u64_at(root, "python.samples_with_frames"), frames,
		frames ? 100.0 * (double)named / (double)frames : 0.0,
		frames ? 100.0 * (double)lines / (double)frames : 0.0);
	if (refused)
		fprintf(out, "; %" PRIu64 " interpreter%s of an unsupported version or build",
			refused, refused == 1 ? "" : "s");
	fprintf(out, "\n");
}

/* print_calls - the calls the samples were split by, when they were:
 * where slow started, and the samples of each kind of call. */
static void print_calls(FILE *out, const struct json_value *root)
{
	const struct json_value *calls = json_path(root, "calls");
	char thr[32], p50[32], p99[32];
	const char *what = json_str(json_path(calls, "what"));
	uint64_t ns;

	if (!what)
		return;
	if (json_number_u64(json_path(calls, "threshold_ns"), &ns))
		snprintf(thr, sizeof(thr), "no call returned");
	else
		units_format_duration_short(ns, thr, sizeof(thr));
	units_format_duration_short(u64_at(calls, "p50_ns"), p50, sizeof(p50));
	units_format_duration_short(u64_at(calls, "p99_ns"), p99, sizeof(p99));
	fprintf(out,
		"\nCalls of %s: %" PRIu64 " returned in the window (p50 %s, p99 %s); slow from "
		"%s%s: %" PRIu64 " slow and %" PRIu64 " fast calls sampled\n",
		what, u64_at(calls, "calls"), p50, p99, thr,
		json_path(calls, "slow_from_percentile") ? " (the window's percentile)" : "",
		u64_at(calls, "slow"), u64_at(calls, "fast"));
	fprintf(out,
		"  samples: %" PRIu64 " inside slow calls, %" PRIu64 " inside fast ones, %" PRIu64
		" outside, %" PRIu64 " unknown (--where call=slow shows the first)\n",
		u64_at(calls, "samples.slow"), u64_at(calls, "samples.fast"),
		u64_at(calls, "samples.outside"), u64_at(calls, "samples.unknown"));
}

/* print_sidecar - what the capture's sidecar (FILE.json) adds to the
 * table when there is one: how complete the stacks are, and the latency
 * windows that fired the capture, the distribution next to the
 * functions. A missing sidecar is normal (a plain pprof file). */
static void print_sidecar(FILE *out, const char *file)
{
	const struct json_value *trigs;
	struct json_value *root = NULL;
	char sidecar[PATH_MAX], err[256];
	size_t i;

	if (profile_file__sidecar_path(file, sidecar, sizeof(sidecar)) || access(sidecar, F_OK))
		return;
	if (json_read_file(sidecar, SIDECAR_MAX_BYTES, &root, err, sizeof(err))) {
		log_warn("%s; its completeness and latency windows are not shown", err);
		return;
	}
	print_completeness(out, root);
	print_python(out, root);
	print_calls(out, root);
	trigs = json_get(root, "triggers");
	for (i = 0; i < json_len(trigs); i++)
		print_trigger_latency(out, sidecar, json_index(trigs, i), i);
	json_free(root);
}

/* print_offcpu - the off-CPU time of the profile by the state threads
 * waited in, and how to see it, when it recorded any. */
static void print_offcpu(FILE *out, const struct profile *p, const int64_t *by_state,
			 const char *const *states, size_t nstates)
{
	int64_t all = 0;
	size_t i;

	for (i = 0; i < nstates; i++)
		all += by_state[i];
	if (all <= 0)
		return;
	fprintf(out, "\nOff-CPU: %.3fs", (double)all / 1e9);
	for (i = 0; i < nstates; i++)
		if (by_state[i] > 0)
			fprintf(out, "%s %.1f%% %s", i ? "," : ":",
				100.0 * (double)by_state[i] / (double)all, states[i]);
	fprintf(out, "%s\n",
		p->view == PROFILE_VIEW_CPU ? " (--view offcpu shows where; --view wall adds "
					      "the on-CPU time)"
					    : "");
}

/* offcpu_by_state - the off-CPU nanoseconds of @p by state (@states
 * first, everything else last). Read before a view changes the counts. */
static void offcpu_by_state(const struct profile *p, int64_t *by_state, const char *const *states,
			    size_t nstates)
{
	const struct profile_sample *s;
	size_t i, k;

	memset(by_state, 0, nstates * sizeof(*by_state));
	for (i = 0; i < p->nsamples; i++) {
		s = &p->samples[i];
		if (s->offcpu_ns <= 0)
			continue;
		for (k = 0; k + 1 < nstates && strcmp(profile__str(p, s->state), states[k]); k++)
			;
		if (by_state[k] <= INT64_MAX - s->offcpu_ns)
			by_state[k] += s->offcpu_ns;
	}
}

static const char *const offcpu_states[] = {
	PROFILE_STATE_SLEEPING,
	PROFILE_STATE_UNINTERRUPTIBLE,
	PROFILE_STATE_RUNNABLE,
	PROFILE_STATE_OTHER,
};
#define NSTATES (sizeof(offcpu_states) / sizeof(offcpu_states[0]))

static int run(const struct report_cmd *c, const struct profile *p, struct stacktree *t,
	       const int64_t *by_state)
{
	struct report_views v = { .tree = t, .svg = FLAMEGRAPH_OPTIONS_INIT };
	char title[640], subtitle[256], where[256];
	const char *base = strrchr(c->file, '/');
	bool to_stdout = (c->folded && !strcmp(c->folded, "-")) || (c->svg && !strcmp(c->svg, "-"));
	int ret;

	if (report_summary(subtitle, sizeof(subtitle), p, t)) {
		log_error("out of memory");
		return TRAPD_EXIT_FAILURE;
	}
	snprintf(title, sizeof(title), "trapd: %s%s%s%s%s%s", base ? base + 1 : c->file,
		 p->view == PROFILE_VIEW_CPU ? "" : " (",
		 p->view == PROFILE_VIEW_CPU ? "" : profile_view__what((enum profile_view)p->view),
		 p->view == PROFILE_VIEW_CPU ? "" : ")", c->where.n ? " where " : "",
		 profile_where__describe(&c->where, where, sizeof(where)));
	v.svg.title = c->title ? c->title : title;
	v.svg.subtitle = subtitle;
	v.svg.time_ns = profile_view__is_time(p);
	/* stdout carries a view; the table would corrupt it. */
	if (!to_stdout) {
		if (c->where.n)
			printf("Where: %s\n", where);
		ret = report_write_top(stdout, p, t, c->top);
		if (ret) {
			log_error("cannot print the table: %s", strerror(-ret));
			return TRAPD_EXIT_FAILURE;
		}
		print_sidecar(stdout, c->file);
		print_offcpu(stdout, p, by_state, offcpu_states, NSTATES);
		if (c->before_samples > 0)
			printf("\nThis capture also holds %lld samples of the seconds before its "
			       "trigger: --phase before shows them, --phase all both.\n",
			       (long long)c->before_samples);
	} else if (t->truncated) {
		log_warn("%lld samples had stacks cut by the tree's caps", (long long)t->truncated);
	}
	return write_outputs(c, &v);
}

/* choose_view - the view asked for, or the profile's default; a view the
 * profile has nothing for is said, not refused (a capture's shape is no
 * usage error). */
static enum profile_view choose_view(const struct report_cmd *c, const struct profile *p)
{
	if (!c->view_set)
		return profile_view__default(p);
	if (c->view == PROFILE_VIEW_OFFCPU && !profile_view__has_offcpu(p))
		log_warn("%s recorded no off-CPU time (capture it with --off-cpu, or a rule's "
			 "capture = cpu+offcpu)",
			 c->file);
	return c->view;
}

/* choose_phase - the phase asked for (@explicit: before --pprof writes
 * it), or, after, the window of a capture that holds its history: the
 * written pprof keeps every phase unless one was asked for. */
static int choose_phase(struct report_cmd *c, struct profile *p, bool explicit)
{
	if (explicit != (c->phase != NULL))
		return 0;
	if (explicit) {
		if (strcmp(c->phase, PROFILE_PHASE_DURING) && !profile_phase__has(p))
			log_warn("%s holds no history before its trigger (the daemon's "
				 "[global] history_frequency records it)",
				 c->file);
		profile_phase__select(p, c->phase);
		return 0;
	}
	if (!profile_phase__has(p))
		return 0;
	c->before_samples = profile_phase__samples(p, PROFILE_PHASE_BEFORE);
	profile_phase__select(p, PROFILE_PHASE_DURING);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd c = { 0 };
	int64_t by_state[NSTATES];
	struct profile *p = NULL;
	struct stacktree *t = NULL;
	char fetched[PATH_MAX];
	int ret;

	ret = parse_args(&c, argc, argv);
	if (ret) {
		if (ret == 1)
			usage(stdout);
		return ret == 1 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	ret = cli_store__resolve(&c.file, fetched, sizeof(fetched));
	if (ret)
		return ret;
	ret = read_capture(&c, &p);
	if (!ret)
		ret = choose_phase(&c, p, true);
	if (!ret)
		ret = write_pprof(&c, p);
	if (!ret)
		ret = choose_phase(&c, p, false);
	if (ret)
		goto cleanup;
	if (cli_apply_where(p, &c.where, c.file)) {
		ret = TRAPD_EXIT_USAGE;
		goto cleanup;
	}
	offcpu_by_state(p, by_state, offcpu_states, NSTATES);
	profile_view__apply(p, choose_view(&c, p));
	if (stacktree__from_profile(p, &t)) {
		log_error("out of memory building the call tree of %s", c.file);
		ret = TRAPD_EXIT_FAILURE;
		goto cleanup;
	}
	ret = run(&c, p, t, by_state);
cleanup:
	stacktree__free(t);
	profile__free(p);
	return ret;
}
