// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ci_watch.c - a run of `trapd ci -c RULES`: the command in its cgroup,
 * the rules watching it, captures when they fire (ci_watch.h). */
#include "trapd/ci/ci_watch.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "trapd/capture/run_cgroup.h"
#include "trapd/capture/target.h"
#include "trapd/ci/ci_rules_report.h"
#include "trapd/guard/guard.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/clock.h"
#include "trapd/util/exit_status.h"
#include "trapd/util/log.h"

#define MAX_EVENTS 16

struct ci_watch {
	const struct ci_watch_opts *o;
	struct guard guard;
	struct ci_rules_report rep;
	struct run_cgroup *cg;
	struct capture_target cmd;
	struct target_handle h;
	int epfd, timerfd, sigfd;
	int64_t started; /* monotonic ns, when the command was let go */
	bool exited;	 /* the command has */
	bool failed;	 /* trapd's own loop failed */
	int signo;
};

/* --- the rules ------------------------------------------------------------- */

/* load - the rules file, read for trapd ci, its captures into the
 * output directory. Returns 0 or an exit status (errors printed). */
static int load(const struct ci_watch_opts *o, struct rules **out)
{
	struct rules_errors errs = { 0 };
	struct rules *r = NULL;
	char *dir;
	size_t i;
	int e;

	e = rules__load_for(o->rules_path, RULES_FOR_CI, &r, &errs);
	for (i = 0; i < errs.n; i++)
		log_error("%s", errs.msgs[i]);
	rules_errors__free(&errs);
	if (e)
		return e == -EINVAL || e == -ENOENT || e == -EISDIR ? TRAPD_EXIT_USAGE
								    : TRAPD_EXIT_FAILURE;
	dir = strdup(o->dir);
	if (!dir) {
		log_error("reading %s: %s", o->rules_path, strerror(ENOMEM));
		rules__free(r);
		return TRAPD_EXIT_FAILURE;
	}
	free(r->global.spool_dir);
	r->global.spool_dir = dir;
	/* DIR is the job's, not a spool: never drop a file there to stay in bounds */
	r->global.spool_max_bytes = UINT64_MAX;
	r->global.spool_max_files = UINT32_MAX;
	if (r->upload.url)
		log_info("%s: [upload] is the daemon's; trapd ci keeps its captures in %s",
			 o->rules_path, o->dir);
	*out = r;
	return 0;
}

/* --- what the guard tells us ----------------------------------------------- */

/* on_fired - a fire (or a dry run's would-be fire) into the report,
 * with the capture it started or joined. */
static void on_fired(struct guard *g, const struct watched_rule *wr, enum eval_verdict v,
		     int64_t now, const char *err, void *ctx)
{
	struct ci_watch *cw = ctx;
	size_t i = (size_t)(wr - g->watch->w);
	int64_t at = cw->started && now > cw->started ? now - cw->started : 0;
	bool captured = v == EVAL_FIRE && !err[0];

	ci_rules_report__fire(&cw->rep, i, at, wr->eval.value, v == EVAL_DRY_RUN,
			      captured ? g->trap.id : NULL, err);
}

/* on_captured - a capture written or lost. */
static void on_captured(struct guard *g, const char *id, const char *path, const char *err,
			void *ctx)
{
	struct ci_watch *cw = ctx;

	(void)g;
	ci_rules_report__capture(&cw->rep, id, path, err);
}

/* observe - the poll tick, and each rule's reading into the report. */
static void observe(struct ci_watch *cw)
{
	struct watch *w = cw->guard.watch;
	size_t i;

	guard__observe_all(&cw->guard, clock_mono_ns());
	for (i = 0; i < w->n; i++)
		if (w->w[i].eval.have_value && w->w[i].eval.state != RULE_STATE_NO_DATA)
			ci_rules_report__reading(&cw->rep, i, w->w[i].eval.value);
}

/* --- setting up ------------------------------------------------------------ */

/* make_cgroup - the run's cgroup, under --cgroup-parent or trapd's own. */
static int make_cgroup(struct ci_watch *cw)
{
	struct run_cgroup_opts co = { .parent = cw->o->parent_cgroup };
	char err[512];

	cw->cg = run_cgroup__create(&co, err, sizeof(err));
	if (!cw->cg) {
		log_error("creating the run's cgroup: %s", err);
		return -errno;
	}
	return 0;
}

/* open_guard - the rules, resolved to the run's cgroup, in force. */
static int open_guard(struct ci_watch *cw, struct rules *r)
{
	const struct guard_hooks hooks = { .fired = on_fired, .captured = on_captured, .ctx = cw };
	struct watch *w;
	int e;

	cw->epfd = epoll_create1(EPOLL_CLOEXEC);
	cw->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (cw->epfd < 0 || cw->timerfd < 0 ||
	    guard__init(&cw->guard, &cw->o->env, cw->epfd, &hooks)) {
		e = -errno;
		rules__free(r);
		return e;
	}
	if (rules__resolve_run(r, run_cgroup__path(cw->cg))) {
		rules__free(r);
		return -ENOMEM;
	}
	w = guard__new_watch(&cw->guard, r);
	if (!w)
		return -errno;
	e = guard__open(&cw->guard, w);
	if (!e)
		e = ci_rules_report__init(&cw->rep, w->rules);
	if (!e)
		e = guard__arm_timer(&cw->guard, cw->timerfd);
	if (!e)
		e = guard__watch_fd(cw->epfd, cw->timerfd, EPOLLIN);
	if (!e)
		e = guard__watch_fd(cw->epfd, cw->sigfd, EPOLLIN);
	return e;
}

/* spawn - the command, forked and held before exec, in the cgroup. */
static int spawn(struct ci_watch *cw)
{
	struct sampler_opts unused = { 0 };
	char err[512];
	int e;

	cw->cmd.kind = CAPTURE_TARGET_COMMAND;
	cw->cmd.argv = cw->o->argv;
	e = target_prepare(&cw->cmd, NULL, &unused, &cw->h);
	if (e)
		return e;
	if (cw->h.pidfd < 0) {
		log_error("cannot follow %s: pidfd_open failed (it needs Linux 5.3)",
			  cw->cmd.argv[0]);
		return -ENOSYS;
	}
	e = run_cgroup__attach(cw->cg, cw->cmd.pid, err, sizeof(err));
	if (e) {
		log_error("moving %s into the run's cgroup: %s", cw->cmd.argv[0], err);
		return e;
	}
	return guard__watch_fd(cw->epfd, cw->h.pidfd, EPOLLIN);
}

/* --- the run ----------------------------------------------------------------- */

/* on_signal - SIGINT, SIGTERM, SIGHUP end the run (and are passed on to
 * the command); SIGCHLD is the pidfd's business. */
static void on_signal(struct ci_watch *cw)
{
	struct signalfd_siginfo si;

	while (read(cw->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		log_info("%s: stopping the run", strsignal((int)si.ssi_signo));
		cw->signo = (int)si.ssi_signo;
		/* passed on, as trapd ci without rules does */
		if (!cw->exited && cw->cmd.pid > 0)
			kill(cw->cmd.pid, cw->signo);
	}
}

/* dispatch - one ready fd: the poll timer, a signal, the command's
 * exit, or the guard's own (PSI triggers, the capture's session). */
static void dispatch(struct ci_watch *cw, int fd)
{
	uint64_t expirations;

	if (fd == cw->timerfd) {
		if (read(cw->timerfd, &expirations, sizeof(expirations)) > 0)
			observe(cw);
	} else if (fd == cw->sigfd) {
		on_signal(cw);
	} else if (fd == cw->h.pidfd) {
		cw->exited = true;
	} else {
		guard__dispatch(&cw->guard, fd);
	}
}

/* watch_run - from the command's release to its exit (or a signal). */
static void watch_run(struct ci_watch *cw)
{
	struct epoll_event evs[MAX_EVENTS];

	while (!cw->exited && !cw->signo) {
		int n = epoll_wait(cw->epfd, evs, MAX_EVENTS, guard__timeout_ms(&cw->guard)), i;

		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			cw->failed = true;
			break;
		}
		for (i = 0; i < n; i++)
			dispatch(cw, evs[i].data.fd);
		guard__tick(&cw->guard);
	}
	cw->rep.wall_ns = clock_mono_ns() - cw->started;
	guard__stop(&cw->guard, cw->signo ? "trapd ci stopped" : "the run ended");
}

/* finish - measure, kill what is left, reap. */
static void finish(struct ci_watch *cw)
{
	uint64_t cpu_ns;
	char err[512];

	if (!run_cgroup__cpu_ns(cw->cg, &cpu_ns, err, sizeof(err)))
		cw->rep.cpu_ns = cpu_ns > INT64_MAX ? INT64_MAX : (int64_t)cpu_ns;
	else
		log_warn("reading the run's CPU time: %s", err);
	if (run_cgroup__destroy(cw->cg, err, sizeof(err)))
		log_warn("removing the run's cgroup: %s", err);
	target_reap(&cw->cmd, &cw->h, true);
	cw->rep.exit_status = cw->cmd.exit_status;
	cw->rep.signo = cw->signo;
}

static int write_summary_md(FILE *f, void *ctx)
{
	return ci_rules_report__markdown(ctx, f);
}

/* report - print it, write the summary; the exit status. */
static int report(struct ci_watch *cw)
{
	char err[512];

	cw->rep.argv = cw->o->argv;
	ci_rules_report__text(&cw->rep, stdout);
	fflush(stdout);
	if (atomic_file_write(cw->o->summary, write_summary_md, &cw->rep, err, sizeof(err))) {
		log_error("cannot write the summary: %s", err);
		return TRAPD_EXIT_FAILURE;
	}
	if (cw->failed)
		return TRAPD_EXIT_FAILURE;
	if (cw->signo)
		return 128 + cw->signo;
	if (cw->cmd.exit_status) {
		log_error("%s exited with status %d", cw->o->argv[0], cw->cmd.exit_status);
		return cw->cmd.exit_status;
	}
	if (cw->rep.fires_total) {
		log_error("rules fired %llu time%s during the run: see %s",
			  (unsigned long long)cw->rep.fires_total,
			  cw->rep.fires_total == 1 ? "" : "s", cw->o->summary);
		return TRAPD_EXIT_RULE_FIRED;
	}
	return TRAPD_EXIT_OK;
}

/* release - everything; what was never made is skipped. */
static void release(struct ci_watch *cw)
{
	guard__release(&cw->guard);
	ci_rules_report__release(&cw->rep);
	target_close(&cw->h);
	run_cgroup__free(cw->cg);
	if (cw->timerfd >= 0)
		close(cw->timerfd);
	if (cw->epfd >= 0)
		close(cw->epfd);
}

int ci_watch__run(const struct ci_watch_opts *o, int sigfd)
{
	struct ci_watch cw = {
		.o = o,
		.h = TARGET_HANDLE_INIT,
		.epfd = -1,
		.timerfd = -1,
		.sigfd = sigfd,
	};
	struct rules *r = NULL;
	int ret, e;

	ret = load(o, &r);
	if (ret)
		return ret;
	e = make_cgroup(&cw);
	if (e) {
		rules__free(r);
		return TRAPD_EXIT_FAILURE;
	}
	e = open_guard(&cw, r);
	if (!e)
		e = spawn(&cw);
	if (e) {
		if (e != -EINVAL)
			log_error("starting the run: %s", strerror(-e));
		release(&cw);
		return e == -EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
	}
	log_info("watching %s with %zu rules of %s", o->argv[0], cw.guard.watch->n, o->rules_path);
	/* first readings (and the latency probes loaded) before it starts */
	observe(&cw);
	e = target_release(&cw.cmd, &cw.h);
	cw.started = clock_mono_ns();
	if (e == -ENOEXEC)
		cw.exited = true;
	watch_run(&cw);
	finish(&cw);
	ret = report(&cw);
	release(&cw);
	return ret;
}
