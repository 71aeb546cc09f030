/* cmd_capture.c - `trapd capture`: one-shot capture of a pid, a cgroup, the
 * whole system or a command it starts, without a daemon.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "rules/cgroup_path.h"
#include "rules/units.h"
#include "trapd/capture.h"
#include "trapd/commands.h"
#include "trapd/log.h"
#include "trapd/symbolizer.h"
#include "trapd/target.h"

#define DEFAULT_DURATION_NS (10ull * 1000000000)
#define DEFAULT_FREQ_HZ 99
#define NSEC_PER_SEC 1000000000ll
/* cgroup v1 targets are followed by their member list, re-read this often. */
#define V1_REFRESH_MS 100

struct capture_cmd {
	uint64_t duration_ns; /* 0 = until the command exits (commands only) */
	bool duration_set;
	uint64_t freq_hz;
	uint64_t max_samples;
	const char *output;
	char output_buf[256];
	const char *cgroup_name;
	struct capture_target target;
	int targets_given;
};

/* The state of a running window. */
struct window {
	struct sampler *sampler;
	struct symbolizer *sym;
	struct target_handle target;
	int sigfd;
	const char *end_reason;
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
		"  -o, --output FILE     where to write (default trapd-TIME-TARGET.pb.zst)\n"
		"      --max-samples N   stop storing samples after N (counted as lost)\n"
		"  -h, --help            this text\n\n"
		"Examples:\n"
		"  trapd capture -p $(pidof nginx) -d 30s -F 999Hz\n"
		"  trapd capture -g system.slice/postgresql.service -o pg.pb.zst\n"
		"  trapd capture -a -d 5s\n"
		"  trapd capture -o build.pb.zst -- make -j8\n"
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

static int parse_option(struct capture_cmd *c, int opt, const char *arg)
{
	int err = 0, maxf;

	switch (opt) {
	case 'd':
		err = units_parse_duration(arg, &c->duration_ns);
		if (err)
			log_error("bad duration '%s': expected a length like 500ms, 10s or 2m", arg);
		c->duration_set = true;
		break;
	case 'F':
		maxf = max_frequency();
		err = units_parse_frequency(arg, (uint64_t)maxf, &c->freq_hz);
		if (err)
			log_error("bad frequency '%s': expected 1 to %d Hz (the kernel's "
				  "perf_event_max_sample_rate), like 99 or 999Hz", arg, maxf);
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
	default:
		err = -EINVAL;
	}
	return err;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	c->freq_hz = DEFAULT_FREQ_HZ;
	c->duration_ns = DEFAULT_DURATION_NS;
	c->target.exit_status = -1;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+d:F:p:g:ao:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || opt == ':') {
			if (optopt && strchr("dFpgo", optopt))
				log_error("option -%c needs a value; see 'trapd capture --help'", optopt);
			else
				log_error("unknown option '%s'; see 'trapd capture --help'",
					  argv[optind - 1]);
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
		log_error(c->targets_given ? "give only one of -p, -g, -a and -- CMD"
					   : "say what to sample: -p PID, -g CGROUP, -a, or -- CMD ARGS");
		return -EINVAL;
	}
	return 0;
}

/* default_output - trapd-20261122T051500-pid1234.pb.zst in the current
 * directory. */
static void default_output(struct capture_cmd *c)
{
	char when[32], what[64];
	const char *base;
	time_t now = time(NULL);
	struct tm tm;
	char *p;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	switch (c->target.kind) {
	case CAPTURE_TARGET_PID:
		snprintf(what, sizeof(what), "pid%d", (int)c->target.pid);
		break;
	case CAPTURE_TARGET_CGROUP:
		base = strrchr(c->target.cgroup.path, '/');
		snprintf(what, sizeof(what), "cg-%s", base && base[1] ? base + 1 : "root");
		break;
	case CAPTURE_TARGET_COMMAND:
		base = strrchr(c->target.argv[0], '/');
		snprintf(what, sizeof(what), "cmd-%s", base ? base + 1 : c->target.argv[0]);
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

static void on_event(const struct sampler_event *ev, void *ctx)
{
	struct window *w = ctx;
	int err = symbolizer__snapshot(w->sym, (int)ev->pid);

	if (err && err != -ESRCH)
		log_debug("snapshot of pid %u: %s", ev->pid, strerror(-err));
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* handle_signals - returns true when the window must end. */
static bool handle_signals(struct window *w, struct capture_target *t)
{
	struct signalfd_siginfo si;

	while (read(w->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (target_reap(t, &w->target, false)) {
				w->end_reason = "command exited";
				return true;
			}
			continue;
		}
		/* A started command gets the signal too (a terminal's ^C reaches
		 * it anyway; a kill of trapd alone must not orphan it). */
		if (t->kind == CAPTURE_TARGET_COMMAND && !w->target.reaped)
			kill(t->pid, (int)si.ssi_signo);
		w->end_reason = "interrupted";
		return true;
	}
	return false;
}

/* run_window - wait until the window ends: its duration, the target's
 * exit, or a signal. Snapshots processes as the sampler announces them. */
static void run_window(struct window *w, struct capture_cmd *c)
{
	int64_t deadline = c->duration_ns ? now_ns(CLOCK_MONOTONIC) + (int64_t)c->duration_ns : 0;
	bool v1 = target_follows_members(&c->target);

	w->end_reason = "duration";
	for (;;) {
		struct pollfd fds[3] = {
			{ .fd = sampler__events_fd(w->sampler), .events = POLLIN },
			{ .fd = w->sigfd, .events = POLLIN },
			{ .fd = w->target.reaped ? -1 : w->target.pidfd, .events = POLLIN },
		};
		int64_t left = deadline ? deadline - now_ns(CLOCK_MONOTONIC) : -1;
		int timeout = left < 0 ? -1 : (int)((left + 999999) / 1000000);

		if (deadline && left <= 0)
			break;
		if (v1 && (timeout < 0 || timeout > V1_REFRESH_MS))
			timeout = V1_REFRESH_MS;
		if (poll(fds, 3, timeout) < 0 && errno != EINTR)
			break;
		if (fds[0].revents)
			sampler__drain_events(w->sampler, on_event, w);
		if (fds[1].revents && handle_signals(w, &c->target))
			break;
		if (fds[2].revents && c->target.kind == CAPTURE_TARGET_PID) {
			w->end_reason = "target exited";
			log_info("pid %d exited; the capture covers its life until then",
				 (int)c->target.pid);
			break;
		}
		if (v1)
			target_watch(&c->target, w->sampler);
	}
	/* Whatever is still announced belongs to the window. */
	sampler__drain_events(w->sampler, on_event, w);
}

static int block_signals(struct window *w)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	w->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return w->sigfd < 0 ? -errno : 0;
}

/* wait_command - after the window: the command keeps running until it
 * exits (a -d shorter than the command only bounds the sampling). */
static void wait_command(struct window *w, struct capture_target *t)
{
	if (t->kind != CAPTURE_TARGET_COMMAND || w->target.reaped || t->pid <= 0)
		return;
	if (w->target.gate_fd < 0)
		log_info("window closed; waiting for '%s' (pid %d) to exit", t->argv[0],
			 (int)t->pid);
	target_reap(t, &w->target, true);
}

static void print_summary(const struct capture_cmd *c, const struct capture_info *info,
			  const char *sidecar)
{
	uint64_t lost = sampler__samples_lost(&info->stats);

	log_info("captured %" PRIu64 " samples in %.2fs at %" PRIu64 " Hz on %d CPUs (%s); "
		 "%" PRIu64 " samples or stacks lost",
		 info->samples_stored, (double)info->duration_ns / NSEC_PER_SEC, info->freq_hz,
		 info->ncpus, info->end_reason, lost);
	log_info("wrote %s (%" PRIu64 " bytes) and %s", c->output, info->profile_bytes, sidecar);
}

/* collect_and_write - symbolize the closed window and write the files. */
static int collect_and_write(struct capture_cmd *c, struct window *w, struct capture_info *info)
{
	struct profile *p = NULL;
	char err[512], sidecar[4200];
	int e;

	info->target = c->target;
	e = capture_build_profile(w->sampler, w->sym, info, &p);
	if (e) {
		log_error("reading the capture: %s", strerror(-e));
		return TRAPD_EXIT_FAILURE;
	}
	e = capture_write(c->output, p, info, err, sizeof(err));
	profile__free(p);
	if (e) {
		log_error("writing the capture: %s", err);
		return TRAPD_EXIT_FAILURE;
	}
	capture_sidecar_path(c->output, sidecar, sizeof(sidecar));
	print_summary(c, info, sidecar);
	return TRAPD_EXIT_OK;
}

static int open_sampler(struct capture_cmd *c, struct sampler_opts *o, struct window *w)
{
	char err[512];

	o->freq_hz = c->freq_hz;
	o->window_ns = c->duration_ns ? c->duration_ns : 60ull * NSEC_PER_SEC;
	o->max_samples = c->max_samples;
	w->sampler = sampler__open(o, err, sizeof(err));
	if (!w->sampler) {
		log_error("%s", err);
		return -errno;
	}
	w->sym = symbolizer__new("/proc");
	if (!w->sym)
		return -errno;
	target_watch(&c->target, w->sampler);
	return 0;
}

/* run_capture - everything after the arguments are known good. */
static int run_capture(struct capture_cmd *c, struct window *w, struct capture_info *info)
{
	int64_t decided = now_ns(CLOCK_MONOTONIC), start_mono;
	struct sampler_opts o = { 0 };
	int e;

	if (block_signals(w)) {
		log_error("setting up signals: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	e = target_prepare(&c->target, c->cgroup_name, &o, &w->target);
	if (e) {
		if (e != -EINVAL)
			log_error("setting up the target: %s", strerror(-e));
		return e == -EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
	}
	if (!c->output)
		default_output(c);
	if (open_sampler(c, &o, w))
		return TRAPD_EXIT_FAILURE;
	if (c->target.kind == CAPTURE_TARGET_PID)
		symbolizer__snapshot(w->sym, c->target.pid);

	info->start_ns = now_ns(CLOCK_REALTIME);
	start_mono = now_ns(CLOCK_MONOTONIC);
	e = sampler__start(w->sampler);
	info->arm_ns = now_ns(CLOCK_MONOTONIC) - decided;
	if (!e)
		e = target_release(&c->target, &w->target);
	if (e == -ENOEXEC)
		return c->target.exit_status;
	if (e) {
		log_error("starting the sampler: %s", strerror(-e));
		return TRAPD_EXIT_FAILURE;
	}
	run_window(w, c);
	sampler__stop(w->sampler);
	info->duration_ns = now_ns(CLOCK_MONOTONIC) - start_mono;
	info->end_reason = w->end_reason;
	info->ncpus = sampler__ncpus(w->sampler);
	return collect_and_write(c, w, info);
}

int cmd_capture(int argc, char **argv)
{
	struct window w = { .sigfd = -1, .target = TARGET_HANDLE_INIT };
	struct capture_info info = { 0 };
	struct capture_cmd c = { 0 };
	int ret;

	ret = parse_args(&c, argc, argv);
	if (ret) {
		if (ret > 0)
			usage(stdout);
		return ret > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (capture_new_id(&info)) {
		log_error("no randomness for a capture id: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	info.trigger = "manual";
	info.freq_hz = c.freq_hz;
	info.period_ns = 1000000000ull / c.freq_hz;
	ret = run_capture(&c, &w, &info);
	if (c.target.kind == CAPTURE_TARGET_COMMAND && c.target.pid > 0) {
		wait_command(&w, &c.target);
		if (ret == TRAPD_EXIT_OK)
			ret = c.target.exit_status;
	}
	sampler__free(w.sampler);
	symbolizer__free(w.sym);
	if (w.sigfd >= 0)
		close(w.sigfd);
	target_close(&w.target);
	return ret;
}
