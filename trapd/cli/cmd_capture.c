// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_capture.c - `trapd capture`: one-shot capture of a pid, a cgroup, the
 * whole system or a command it starts, without a daemon.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rules/cgroup_path.h"
#include "rules/units.h"
#include "trapd/capture/capture.h"
#include "trapd/capture/capture_loop.h"
#include "trapd/capture/overhead.h"
#include "trapd/capture/session.h"
#include "trapd/capture/target.h"
#include "trapd/cli/cli_args.h"
#include "trapd/cli/cli_calls.h"
#include "trapd/cli/commands.h"
#include "trapd/profile/profile_file.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/clock.h"
#include "trapd/util/cpus.h"
#include "trapd/util/log.h"
#include "trapd/util/privileges.h"

#define DEFAULT_DURATION_NS (10ull * 1000000000)
#define DEFAULT_FREQ_HZ 99
#define DEFAULT_MAX_OVERHEAD_CENTI 1000 /* 10 %, as the daemon's max_capture_overhead */
#define NSEC_PER_SEC 1000000000ll

struct capture_cmd {
	uint64_t duration_ns; /* 0 = until the command exits (commands only) */
	bool duration_set;
	uint64_t freq_hz;
	uint64_t max_samples;
	const char *output;
	char output_buf[256];
	const char *cgroup_name;
	enum unwind_mode unwind;
	uint32_t stack_copy_bytes; /* 0: the session's default */
	bool no_python;
	uint32_t record; /* SAMPLER_RECORD_* bits */
	struct capture_target target;
	int targets_given;
	struct cli_calls calls;	     /* --calls, --slow */
	uint64_t max_overhead_centi; /* --max-overhead: hundredths of a percent of the host */
	struct overhead overhead;    /* what sampling costs here, measured when it matters */
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd capture [-d DUR] [-F HZ] [-p PID | -g CGROUP | -a] [-o FILE]\n"
		"                     [--max-samples N] [-- CMD ARGS]\n\n"
		"Sample user and kernel stacks with eBPF for a bounded window and write a\n"
		"capture: FILE (zstd-compressed pprof, .pb.zst) and its metadata sidecar\n"
		"(the same name ending in .json).\n\n"
		"What to sample (exactly one):\n"
		"  -p, --pid PID         a process (all its threads)\n"
		"  -g, --cgroup CGROUP   a cgroup and its descendants: a path below the v2\n"
		"                        hierarchy (system.slice/x.service) or an absolute\n"
		"                        path of a v2 or v1 cgroup directory\n"
		"  -a, --all             the whole system\n"
		"  -- CMD ARGS           a command started by trapd, sampled from its first\n"
		"                        instruction to its exit, children included; trapd\n"
		"                        exits with its status (127 if it cannot be run)\n\n"
		"Options:\n"
		"  -d, --duration DUR    window length (default 10s; for a command, until it\n"
		"                        exits): 500ms, 30s, 2m\n"
		"  -F, --frequency HZ    samples per second per CPU (default %d): 99, 999Hz\n"
		"      --max-overhead PCT  the most of the host the sampling may take\n"
		"                        (default 10%%): a frequency that would take more is\n"
		"                        lowered, saying so, and a window whose measured cost\n"
		"                        passes it ends early\n"
		"  -o, --output FILE     where to write (default trapd-TIME-TARGET.pb.zst);\n"
		"                        - or /dev/stdout: the profile alone to stdout\n"
		"      --max-samples N   stop storing samples after N (counted as lost)\n"
		"      --unwind MODE     how user stacks are walked: dwarf (copies of the\n"
		"                        stack top unwound with the programs' .eh_frame;\n"
		"                        complete without frame pointers), kernel (the\n"
		"                        .eh_frame made into tables the kernel walks:\n"
		"                        complete, no copy, no depth cut), fp (frame\n"
		"                        pointers, in the kernel; cheapest) or auto\n"
		"                        (default: dwarf unless the copy rate is too high)\n"
		"      --stack-copy SIZE user stack copied per sample in dwarf mode\n"
		"                        (default 16KiB, at most 32KiB)\n"
		"      --no-python       do not walk CPython's frames: Python processes\n"
		"                        show their interpreter's native frames only\n"
		"      --off-cpu         also record where the target's threads wait off\n"
		"                        the CPU (blocked on a lock, I/O, a sleep, or\n"
		"                        preempted), and for how long: trapd report\n"
		"                        --view offcpu or wall shows it\n"
		"      --off-cpu-only    record off-CPU time only, no CPU samples\n"
		"      --calls SPEC      number the calls of func:/ABS/PATH:SYMBOL (a\n"
		"                        function), syscall:NAME[,NAME] or syscall, and\n"
		"                        label each sample with the call it fell in:\n"
		"                        call=slow, fast, outside (trapd report --where)\n"
		"      --slow LINE       where slow calls start: a duration (20ms) or a\n"
		"                        percentile of the window's calls (default p99)\n"
		"  -h, --help            this text\n\n"
		"Examples:\n"
		"  trapd capture -p $(pidof nginx) -d 30s -F 999Hz\n"
		"  trapd capture -g system.slice/postgresql.service -o pg.pb.zst\n"
		"  trapd capture -a -d 5s\n"
		"  trapd capture -p $(pidof myd) --off-cpu -d 10s -o myd.pb.zst\n"
		"  trapd capture -o build.pb.zst -- make -j8\n"
		"  trapd capture -p $(pidof api) --calls func:/srv/api:handle --slow 50ms\n"
		"  trapd report pg.pb.zst --svg pg.svg\n",
		DEFAULT_FREQ_HZ);
}

static int max_frequency(void)
{
	char buf[32];
	long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v > 0 ? (int)v : 100000;
}

enum {
	OPT_UNWIND = 0x100,
	OPT_STACK_COPY,
	OPT_NO_PYTHON,
	OPT_OFF_CPU,
	OPT_OFF_CPU_ONLY,
	OPT_CALLS,
	OPT_SLOW,
	OPT_MAX_OVERHEAD,
};

static int parse_option(struct capture_cmd *c, int opt, const char *arg)
{
	int err = 0, maxf;

	switch (opt) {
	case 'd':
		err = units_parse_duration(arg, &c->duration_ns);
		if (err)
			log_error("bad duration '%s': expected a length like 500ms, 10s or 2m",
				  arg);
		c->duration_set = true;
		break;
	case 'F':
		maxf = max_frequency();
		err = units_parse_frequency(arg, (uint64_t)maxf, &c->freq_hz);
		if (err)
			log_error("bad frequency '%s': expected 1 to %d Hz (the kernel's "
				  "perf_event_max_sample_rate), like 99 or 999Hz",
				  arg, maxf);
		break;
	case 'p':
		err = target_parse_pid(arg, &c->target.pid);
		if (err)
			log_error("bad pid '%s': expected a process id", arg);
		c->target.kind = CAPTURE_TARGET_PID;
		c->targets_given++;
		break;
	case 'g':
		c->cgroup_name = arg;
		c->target.kind = CAPTURE_TARGET_CGROUP;
		c->targets_given++;
		break;
	case 'a':
		c->target.kind = CAPTURE_TARGET_SYSTEM;
		c->targets_given++;
		break;
	case 'o':
		c->output = arg;
		break;
	case 'm':
		err = units_parse_size(arg, &c->max_samples);
		if (err || c->max_samples == 0) {
			log_error("bad --max-samples '%s': expected a positive count", arg);
			err = -EINVAL;
		}
		break;
	case OPT_UNWIND:
		err = cli_parse_unwind(arg, &c->unwind);
		break;
	case OPT_STACK_COPY:
		err = cli_parse_stack_copy(arg, &c->stack_copy_bytes);
		break;
	case OPT_NO_PYTHON:
		c->no_python = true;
		break;
	case OPT_OFF_CPU:
		c->record = SAMPLER_RECORD_CPU | SAMPLER_RECORD_OFFCPU;
		break;
	case OPT_OFF_CPU_ONLY:
		c->record = SAMPLER_RECORD_OFFCPU;
		break;
	case OPT_CALLS:
		cli_parse_calls(arg, &c->calls);
		break;
	case OPT_SLOW:
		err = cli_parse_slow(arg, &c->calls.slow);
		break;
	case OPT_MAX_OVERHEAD:
		err = units_parse_percent(arg, &c->max_overhead_centi);
		if (!err && (!c->max_overhead_centi || c->max_overhead_centi > 10000))
			err = -ERANGE;
		if (err)
			log_error("bad --max-overhead '%s': expected a share of the host from "
				  "0.01%% to 100%%, like 10%%",
				  arg);
		break;
	default:
		err = -EINVAL;
	}
	return err;
}

/* check_calls - --calls resolved now (a usage error before anything is
 * armed); --slow without it is refused. */
static int check_calls(struct capture_cmd *c)
{
	if (!c->calls.text) {
		if (c->calls.slow.ns || c->calls.slow.percentile) {
			log_error("--slow needs --calls: which calls are slow?");
			return -EINVAL;
		}
		return 0;
	}
	if (!c->calls.slow.ns && !c->calls.slow.percentile)
		c->calls.slow.percentile = 99;
	return cli_resolve_calls(&c->calls);
}

/* parse_args - fill @c; returns 0, 1 for --help, or -EINVAL. */
static int parse_args(struct capture_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "frequency", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "all", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "max-samples", required_argument, NULL, 'm' },
		{ "unwind", required_argument, NULL, OPT_UNWIND },
		{ "stack-copy", required_argument, NULL, OPT_STACK_COPY },
		{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "off-cpu-only", no_argument, NULL, OPT_OFF_CPU_ONLY },
		{ "calls", required_argument, NULL, OPT_CALLS },
		{ "slow", required_argument, NULL, OPT_SLOW },
		{ "max-overhead", required_argument, NULL, OPT_MAX_OVERHEAD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	c->freq_hz = DEFAULT_FREQ_HZ;
	c->max_overhead_centi = DEFAULT_MAX_OVERHEAD_CENTI;
	c->duration_ns = DEFAULT_DURATION_NS;
	c->unwind = UNWIND_MODE_AUTO;
	c->target.exit_status = -1;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+d:F:p:g:ao:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || opt == ':') {
			if (optopt && strchr("dFpgo", optopt))
				log_error("option -%c needs a value; see 'trapd capture --help'",
					  optopt);
			else
				cli_bad_option("capture", longopts, '?', argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_option(c, opt, optarg))
			return -EINVAL;
	}
	if (optind < argc) {
		c->target.kind = CAPTURE_TARGET_COMMAND;
		c->target.argv = argv + optind;
		c->targets_given++;
		if (!c->duration_set)
			c->duration_ns = 0;
	}
	if (c->targets_given != 1) {
		log_error(c->targets_given
				  ? "give only one of -p, -g, -a and -- CMD"
				  : "say what to sample: -p PID, -g CGROUP, -a, or -- CMD ARGS");
		return -EINVAL;
	}
	return check_calls(c);
}

/* default_output - trapd-20261122T051500-pid1234.pb.zst in the current
 * directory; @t is the target as resolved. */
static void default_output(struct capture_cmd *c, const struct capture_target *t)
{
	char when[32], what[64];
	const char *base;
	time_t now = time(NULL);
	struct tm tm;
	char *p;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	switch (t->kind) {
	case CAPTURE_TARGET_PID:
		snprintf(what, sizeof(what), "pid%d", (int)t->pid);
		break;
	case CAPTURE_TARGET_CGROUP:
		base = strrchr(t->cgroup.path, '/');
		snprintf(what, sizeof(what), "cg-%s", base && base[1] ? base + 1 : "root");
		break;
	case CAPTURE_TARGET_COMMAND:
		base = strrchr(t->argv[0], '/');
		snprintf(what, sizeof(what), "cmd-%s", base ? base + 1 : t->argv[0]);
		break;
	default:
		snprintf(what, sizeof(what), "system");
	}
	for (p = what; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			*p = '_';
	snprintf(c->output_buf, sizeof(c->output_buf), "trapd-%s-%s.pb.zst", when, what);
	c->output = c->output_buf;
}

static void print_summary(const struct capture_cmd *c, const struct capture_info *info)
{
	uint64_t lost = sampler__samples_lost(&info->stats);
	char sidecar[4200];

	uint64_t off = 0;
	int i;

	for (i = 0; i < SAMPLER_OFFCPU_NR; i++)
		off += info->offcpu_ns[i];
	if (info->record & SAMPLER_RECORD_OFFCPU)
		log_info("captured %" PRIu64 " samples and %.3fs of waits off the CPU (%" PRIu64
			 " switches) in %.2fs at %" PRIu64 " Hz on %d CPUs (%s); %" PRIu64
			 " samples or stacks lost",
			 info->samples_stored, (double)off / NSEC_PER_SEC,
			 info->stats.v[SAMPLER_STAT_OFFCPU_SWITCHES],
			 (double)info->duration_ns / NSEC_PER_SEC, info->freq_hz, info->ncpus,
			 info->end_reason, lost);
	if (info->stats.v[SAMPLER_STAT_OFFCPU_THROTTLED])
		log_info("%" PRIu64 " of the switches were over the bound of %" PRIu64
			 " stack takes a second a CPU (max_capture_overhead): counted under "
			 "the stacks their thread last left with",
			 info->stats.v[SAMPLER_STAT_OFFCPU_THROTTLED],
			 info->overhead ? info->overhead->offcpu_takes_hz : 0);
	else
		log_info("captured %" PRIu64 " samples in %.2fs at %" PRIu64
			 " Hz on %d CPUs (%s); %" PRIu64 " samples or stacks lost",
			 info->samples_stored, (double)info->duration_ns / NSEC_PER_SEC,
			 info->freq_hz, info->ncpus, info->end_reason, lost);
	if (profile_file__sidecar_path(c->output, sidecar, sizeof(sidecar)))
		log_info("wrote the profile to %s; no metadata sidecar for a stream", c->output);
	else
		log_info("wrote %s (%" PRIu64 " bytes) and %s", c->output, info->profile_bytes,
			 sidecar);
}

/* check_output - refuse -o now rather than after the window: something
 * not a regular file at FILE or its sidecar's name, or another user's
 * entry in a sticky directory such as /tmp (atomic_file.h). */
static int check_output(const struct capture_cmd *c)
{
	char sidecar[4200], err[PATH_MAX + 256];

	if (atomic_file_check(c->output, err, sizeof(err)) ||
	    (!profile_file__sidecar_path(c->output, sidecar, sizeof(sidecar)) &&
	     atomic_file_check(sidecar, err, sizeof(err)))) {
		log_error("%s", err);
		return -EINVAL;
	}
	return 0;
}

/* measure_overhead - what a sample costs here, measured (0.2 s) only
 * when the frequency asked for might not fit the budget at a pessimistic
 * guess: most captures never pay for the measure. */
static void measure_overhead(struct capture_cmd *c)
{
	struct overhead *o = &c->overhead;
	double max = (double)c->max_overhead_centi / 100.0 * OVERHEAD_CAP_SHARE;
	int e;

	memset(o, 0, sizeof(*o));
	o->stats_fd = -1; /* on while the window runs: overhead_window__start */
	o->ncpus = cpus_online_count();
	o->irq_ns = 2 * OVERHEAD_DEFAULT_IRQ_NS;
	if (overhead__cap_freq(c->freq_hz, o->ncpus, o->ncpus, overhead__sample_ns(o, 0), max) >=
	    c->freq_hz)
		return;
	e = overhead__calibrate(OVERHEAD_CALIBRATE_PERIOD_NS, 5, &o->irq_ns);
	o->irq_measured = !e;
	if (e)
		o->irq_ns = OVERHEAD_DEFAULT_IRQ_NS;
	else
		log_debug("a sampling interrupt costs about %.1f us here",
			  (double)o->irq_ns / 1000.0);
}

static struct session *open_session(struct capture_cmd *c, int *ret)
{
	struct session_opts o = {
		.target = c->target,
		.cgroup_name = c->cgroup_name,
		.freq_hz = c->freq_hz,
		.duration_ns = c->duration_ns,
		.max_samples = c->max_samples,
		.unwind = c->unwind,
		.stack_copy_bytes = c->stack_copy_bytes,
		.no_python = c->no_python,
		.record = c->record,
		.calls = c->calls.calls,
		.calls_what = c->calls.what,
		.slow = c->calls.slow,
		.overhead = &c->overhead,
		.max_overhead_pct = (double)c->max_overhead_centi / 100.0,
	};
	struct session *s;
	char err[512];

	measure_overhead(c);
	s = session__open(&o, err, sizeof(err));
	if (!s) {
		if (err[0])
			log_error("%s", err);
		*ret = errno == EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
	}
	return s;
}

/* run_capture - everything after the arguments are known good; the session
 * is left in *sp for the caller to wait for a command and free. */
static int run_capture(struct capture_cmd *c, struct session **sp, int *sigfd,
		       struct capture_info *info)
{
	int64_t decided = clock_mono_ns();
	char err[512];
	int e, ret = TRAPD_EXIT_FAILURE;

	if (capture_loop__block_signals(sigfd)) {
		log_error("setting up signals: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	if (c->output && check_output(c))
		return TRAPD_EXIT_USAGE;
	*sp = open_session(c, &ret);
	if (!*sp)
		return ret;
	if (!c->output)
		default_output(c, session__target(*sp));
	e = session__start(*sp, decided);
	if (e == -ENOEXEC)
		return session__target(*sp)->exit_status;
	if (e) {
		log_error("starting the sampler: %s", strerror(-e));
		return TRAPD_EXIT_FAILURE;
	}
	capture_loop__run(*sp, *sigfd);
	if (session__finish(*sp, c->output, info, err, sizeof(err))) {
		log_error("%s", err);
		return TRAPD_EXIT_FAILURE;
	}
	print_summary(c, info);
	return TRAPD_EXIT_OK;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_info info = { 0 };
	struct capture_cmd c = { 0 };
	struct session *s = NULL;
	int ret, sigfd = -1;

	ret = parse_args(&c, argc, argv);
	if (ret) {
		if (ret > 0)
			usage(stdout);
		return ret > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (!privileges__can_sample())
		return TRAPD_EXIT_FAILURE;
	if (capture_new_id(&info)) {
		log_error("no randomness for a capture id: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	info.trigger = "manual";
	ret = run_capture(&c, &s, &sigfd, &info);
	/* The command keeps running until it exits: a -d shorter than the
	 * command only bounds the sampling. */
	if (s && session__target(s)->kind == CAPTURE_TARGET_COMMAND) {
		session__wait_command(s);
		if (ret == TRAPD_EXIT_OK)
			ret = session__target(s)->exit_status;
	}
	session__free(s);
	if (sigfd >= 0)
		close(sigfd);
	return ret;
}
