// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* daemon.c - the guard's event loop: timer, signals, PSI triggers, control
 * socket, capture. */
#include "trapd/daemon/daemon.h"
#include "trapd/daemon/daemon_status.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "rules/units.h"
#include "trapd/capture/history.h"
#include "trapd/daemon/shipping.h"
#include "trapd/profile/pprof.h"
#include "trapd/util/clock.h"
#include "trapd/util/exit_status.h"
#include "trapd/util/log.h"
#include "trapd/util/signals.h"
#include "upload/spool.h"

#define MAX_EVENTS 16

/* --- loading rules ------------------------------------------------------- */

static void print_errors(const struct rules_errors *errs)
{
	size_t i;

	for (i = 0; i < errs->n; i++)
		log_error("%s", errs->msgs[i]);
}

/* spool_safe - [global] spool_dir is one root may write in (spool.h:
 * ours, not group or other-writable); a missing one is made, 0750, with
 * the first capture. Refused: logged, saying what to fix. */
static bool spool_safe(const struct rules *r, const char *rules_path)
{
	char err[PATH_MAX + 200];

	if (shipping__spool_trusted(r, err, sizeof(err)))
		return true;
	log_error("%s: %s", rules_path, err);
	return false;
}

/* load - the rules file as a new watch, or NULL (errors logged; *@bad
 * says whether the file was bad, as opposed to unreadable; an unsafe
 * spool_dir is a bad file). */
static struct watch *load(struct daemon *d, bool *bad)
{
	struct rules_errors errs = { 0 };
	struct rules *r = NULL;
	struct watch *w;
	int e;

	e = rules__load(d->rules_path, &r, &errs);
	*bad = e == -EINVAL;
	if (e) {
		print_errors(&errs);
		rules_errors__free(&errs);
		return NULL;
	}
	rules_errors__free(&errs);
	if (!spool_safe(r, d->rules_path)) {
		*bad = true;
		rules__free(r);
		return NULL;
	}
	w = guard__new_watch(&d->guard, r);
	if (!w)
		log_error("loading %s: %s", d->rules_path, strerror(errno));
	return w;
}

static int arm_timer(struct daemon *d)
{
	return guard__arm_timer(&d->guard, d->timerfd);
}

/* restart_uploader - after a reload: a new uploader when [upload] or the
 * spool changed (the old one stops; a capture it was sending stays in
 * the spool and goes again, under the same name). A new [upload] that
 * cannot start (a secret missing) leaves captures in the spool. */
static void restart_uploader(struct daemon *d, const struct rules *old)
{
	const struct rules *r = d->guard.watch->rules;
	char err[512];

	if (rules_upload__equal(&old->upload, &r->upload) &&
	    !strcmp(old->global.spool_dir, r->global.spool_dir) && (d->uploader || !r->upload.url))
		return;
	uploader__stop(d->uploader);
	d->uploader = NULL;
	if (shipping__start(r, false, &d->uploader, err, sizeof(err)))
		log_error("[upload]: %s; captures stay in the spool until it is fixed", err);
	else if (d->uploader)
		log_info("uploading captures to %s", r->upload.url);
}

/* reload - SIGHUP: a good file replaces the rules, keeping the state of
 * the unchanged ones; a bad one is rejected and the old rules stay. */
static void reload(struct daemon *d)
{
	struct watch *nw, *old;
	size_t kept;
	bool bad;

	log_info("reloading %s", d->rules_path);
	nw = load(d, &bad);
	if (!nw) {
		d->reloads_rejected++;
		log_error("reload rejected: %s; the old rules keep running",
			  bad ? "the file has errors" : "the file could not be read");
		return;
	}
	if (strcmp(nw->rules->global.control_socket, d->ctl_path))
		log_warn("control_socket changed to %s: it takes effect at the next start; the "
			 "daemon still listens on %s",
			 nw->rules->global.control_socket, d->ctl_path);
	old = guard__replace(&d->guard, nw, &kept);
	restart_uploader(d, old->rules);
	watch__free(old);
	arm_timer(d);
	d->reloads++;
	d->loaded_real = clock_real_ns();
	log_info("reloaded %s: %zu rules, %zu kept their state", d->rules_path, nw->n, kept);
}

/* --- captures ------------------------------------------------------------ */

static void on_captured(struct guard *g, const char *id, const char *path, const char *err,
			void *ctx)
{
	struct daemon *d = ctx;

	(void)g;
	(void)id;
	(void)err;
	if (path)
		uploader__kick(d->uploader);
}

/* arm - a manual capture: as @rule_name would capture (its cooldown and
 * limits are charged), or as [global] manual_* say. @reply gets what
 * happened. Returns 0, -ENOENT (no such rule) or the capture's error. */
static int arm(struct daemon *d, const char *rule_name, uint64_t duration_ns, const char *why,
	       char *reply, size_t len)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	struct watched_rule *wr = NULL;
	struct trap_fire f = { .manual_reason = why };
	bool joining = trap__running(&d->guard.trap);
	int64_t now = clock_mono_ns();
	int e;

	if (rule_name && rule_name[0]) {
		wr = watch__find(d->guard.watch, rule_name);
		if (!wr) {
			snprintf(reply, len, "no rule named '%s' in %s", rule_name, d->rules_path);
			return -ENOENT;
		}
		f.sample = wr->rule->sample;
		f.duration_ns = wr->rule->window_ns;
		f.freq_hz = wr->rule->freq_hz;
		f.unwind = wr->rule->unwind;
		f.stack_copy_bytes = wr->rule->stack_copy_bytes;
		f.no_python = !wr->rule->python;
		f.record = wr->rule->record;
	} else {
		f.sample = g->manual_sample;
		f.duration_ns = g->manual_window_ns;
		f.freq_hz = g->manual_freq_hz;
		f.unwind = g->manual_unwind;
		f.stack_copy_bytes = g->manual_stack_copy_bytes;
		f.no_python = !g->manual_python;
		f.record = g->manual_record;
	}
	if (duration_ns)
		f.duration_ns = duration_ns > g->max_window_ns ? g->max_window_ns : duration_ns;
	d->manual_arms++;
	e = guard__fire(&d->guard, &f, wr, now, reply, len);
	if (e)
		return e;
	if (wr)
		evaluator__record_fire(&wr->eval, &d->guard.watch->global_fires, now);
	snprintf(reply, len, "capture %s %s (%s)\n", d->guard.trap.id,
		 joining ? "joined" : "started", d->guard.trap.sample_desc);
	log_info("manual capture (%s%s%s): %s", why, wr ? ", as rule " : "",
		 wr ? wr->rule->name : "", joining ? "joined the running capture" : "started");
	return 0;
}

/* --- events -------------------------------------------------------------- */

static void on_timer(struct daemon *d)
{
	uint64_t expirations;

	if (read(d->timerfd, &expirations, sizeof(expirations)) < 0)
		return;
	guard__observe_all(&d->guard, clock_mono_ns());
}

static void on_signal(struct daemon *d)
{
	struct signalfd_siginfo si;
	char reply[512];

	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			reload(d);
			break;
		case SIGUSR1:
			if (arm(d, NULL, 0, "SIGUSR1", reply, sizeof(reply)))
				log_error("SIGUSR1: cannot capture: %s", reply);
			break;
		case SIGTERM:
		case SIGINT:
			log_info("%s: stopping", strsignal((int)si.ssi_signo));
			d->stopping = true;
			break;
		default:
			break;
		}
	}
}

/* answer_top - `trapd top`: the recorder's last seconds as pprof. The
 * merge and the encoding are bounded by CONTROL_TOP_MAX_SECONDS of the
 * ring (itself bounded by history_max_memory), and done at most once per
 * TOP_CACHE_NS for each length asked, whatever the clients ask. */
static void answer_top(struct daemon *d, struct control_conn *c, uint32_t seconds)
{
	int64_t now = clock_mono_ns();
	const struct top_answer *a;
	struct profile *p = NULL;
	void *buf = NULL;
	size_t len = 0;
	int e;

	if (!d->guard.trap.history) {
		control_conn__reply(c,
				    d->guard.watch->rules->global.history_freq_hz
					    ? "error: the flight recorder is not running (see the "
					      "daemon's log)"
					    : "usage: the flight recorder is off: set [global] "
					      "history_frequency (19Hz, say) in the rules file",
				    NULL, 0);
		return;
	}
	a = top_cache__get(&d->top, seconds, now);
	if (a) {
		control_conn__reply(c, "ok", a->buf, a->len);
		return;
	}
	e = history__recent(d->guard.trap.history, seconds, &p);
	if (!e && !p)
		p = profile__new();
	if (!e && !p)
		e = -ENOMEM;
	if (!e)
		e = pprof_encode(p, &buf, &len);
	if (!e && len > CONTROL_ANSWER_MAX - 64)
		e = -E2BIG;
	if (e)
		control_conn__reply(c,
				    e == -E2BIG ? "error: the recorder's seconds are too big to "
						  "send: ask for fewer"
						: "error: out of memory",
				    NULL, 0);
	profile__free(p);
	if (e) {
		free(buf);
		return;
	}
	control_conn__reply(c, "ok", buf, len);
	top_cache__put(&d->top, seconds, now, buf, len);
}

/* answer - a control request (control_handler): on the loop's thread,
 * queued for the client to read at its pace. */
static void answer(void *ctx, struct control_conn *c, const struct control_request *req)
{
	struct daemon *d = ctx;
	char reply[1024], line[1100];
	char *body = NULL;
	size_t len = 0;
	int e;

	if (req->verb == CONTROL_STATUS) {
		if (daemon__status(d, req->json, &body, &len))
			control_conn__reply(c, "error: out of memory", NULL, 0);
		else
			control_conn__reply(c, "ok", body, len);
		free(body);
		return;
	}
	if (req->verb == CONTROL_TOP) {
		answer_top(d, c, req->seconds);
		return;
	}
	if (req->verb == CONTROL_UPLOAD) {
		if (!d->uploader) {
			control_conn__reply(c,
					    "usage: no [upload] in the rules file: captures stay "
					    "in the spool",
					    NULL, 0);
			return;
		}
		uploader__retry(d->uploader, req->failed);
		snprintf(reply, sizeof(reply), "uploading the spool now%s\n",
			 req->failed ? ", captures that failed included" : "");
		control_conn__reply(c, "ok", reply, strlen(reply));
		log_info("trapd upload%s: uploading the spool now", req->failed ? " --failed" : "");
		return;
	}
	e = arm(d, req->rule, req->duration_ns, "trapd arm", reply, sizeof(reply));
	if (!e) {
		control_conn__reply(c, "ok", reply, strlen(reply));
		return;
	}
	snprintf(line, sizeof(line), "%s: %s", e == -ENOENT || e == -EINVAL ? "usage" : "error",
		 reply);
	control_conn__reply(c, line, NULL, 0);
}

static void dispatch(struct daemon *d, const struct epoll_event *ev)
{
	int fd = ev->data.fd;

	if (fd == d->timerfd)
		on_timer(d);
	else if (fd == d->sigfd)
		on_signal(d);
	else if (control_server__owns(&d->ctl, fd))
		control_server__dispatch(&d->ctl, fd, ev->events, clock_mono_ns());
	else
		guard__dispatch(&d->guard, fd);
}

/* loop_timeout - the capture's next deadline or a control connection's,
 * whichever comes first (-1: neither). */
static int loop_timeout(struct daemon *d)
{
	int g = guard__timeout_ms(&d->guard);
	int c = control_server__timeout_ms(&d->ctl, clock_mono_ns());

	return g < 0 ? c : c < 0 || g < c ? g : c;
}

static void loop(struct daemon *d)
{
	struct epoll_event evs[MAX_EVENTS];

	while (!d->stopping) {
		int n, i;

		n = epoll_wait(d->epfd, evs, MAX_EVENTS, loop_timeout(d));
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++)
			dispatch(d, &evs[i]);
		/* after the events: a request that came during a stall is
		 * answered before its deadline closes it */
		control_server__expire(&d->ctl, clock_mono_ns());
		guard__tick(&d->guard);
	}
	guard__stop(&d->guard, "daemon stopping"); /* cut short, written, not lost */
}

/* --- setup --------------------------------------------------------------- */

static int open_signals(struct daemon *d)
{
	static const int signos[] = { SIGHUP, SIGUSR1, SIGTERM, SIGINT, SIGCHLD };

	d->sigfd = signals_open_fd(signos, sizeof(signos) / sizeof(signos[0]));
	return d->sigfd < 0 ? d->sigfd : 0;
}

/* open_control - the control socket (errors logged). A directory that is
 * not root's alone, or a file in the socket's place, is the configuration's
 * to fix: d->ctl_bad_config. */
static int open_control(struct daemon *d)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	gid_t gid = (gid_t)-1;
	char err[1024];
	int e;

	d->ctl_bad_config = true;
	if (g->control_group) {
		struct group *gr = getgrnam(g->control_group);

		if (!gr) {
			log_error("%s: control_group '%s': no such group", d->rules_path,
				  g->control_group);
			return -ENOENT;
		}
		gid = gr->gr_gid;
	}
	snprintf(d->ctl_path, sizeof(d->ctl_path), "%s", g->control_socket);
	e = control_server__open(&d->ctl, d->ctl_path, gid, d->epfd, answer, d, err, sizeof(err));
	if (e) {
		log_error("%s", err);
		d->ctl_bad_config = e == -EPERM || e == -EEXIST || e == -ENOENT || e == -EINVAL ||
				    e == -ENAMETOOLONG || e == -ENOTDIR;
		return e;
	}
	d->ctl_bad_config = false;
	return 0;
}

/* setup - the loop's fds, then @w in force (whatever happens, teardown
 * frees it). */
static int setup(struct daemon *d, struct watch *w)
{
	int e;

	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->guard.epfd = d->epfd;
	e = d->epfd < 0 || d->timerfd < 0 ? -errno : 0;
	/* signals first: a SIGHUP while BPF loads waits instead of killing us */
	if (!e)
		e = open_signals(d);
	if (!e)
		e = guard__open(&d->guard, w);
	else
		d->guard.watch = w;
	if (!e)
		e = open_control(d);
	if (!e)
		e = arm_timer(d);
	if (!e)
		e = guard__watch_fd(d->epfd, d->timerfd, EPOLLIN);
	if (!e)
		e = guard__watch_fd(d->epfd, d->sigfd, EPOLLIN);
	return e;
}

static void teardown(struct daemon *d)
{
	uploader__stop(d->uploader);
	guard__release(&d->guard);
	control_server__close(&d->ctl); /* removes the socket file only if still ours */
	top_cache__free(&d->top);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->timerfd >= 0)
		close(d->timerfd);
	if (d->epfd >= 0)
		close(d->epfd);
}

/* start_uploader - recover the spool and start sending. Returns 0 or an
 * exit status (a bad [upload] at start is a configuration error). */
static int start_uploader(struct daemon *d)
{
	const struct rules *r = d->guard.watch->rules;
	char err[512];
	int e = shipping__start(r, true, &d->uploader, err, sizeof(err));

	if (!e) {
		if (d->uploader)
			log_info("uploading captures to %s", r->upload.url);
		return 0;
	}
	log_error("%s:%d: [upload]: %s", d->rules_path, r->upload.line, err);
	return e == -EINVAL || e == -EPERM || e == -ENOENT ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
}

int daemon__run(const char *rules_path, const struct signal_env *env)
{
	struct daemon d = {
		.rules_path = rules_path,
		.epfd = -1,
		.timerfd = -1,
		.sigfd = -1,
	};
	const struct guard_hooks hooks = { .captured = on_captured, .ctx = &d };
	struct watch *w;
	char dur[32];
	bool bad;
	int e;

	control_server__init(&d.ctl);
	if (guard__init(&d.guard, env, -1, &hooks)) {
		log_error("starting the daemon: %s", strerror(ENOMEM));
		return TRAPD_EXIT_FAILURE;
	}
	w = load(&d, &bad);
	if (!w) {
		guard__release(&d.guard);
		return bad ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
	}
	d.started_real = d.loaded_real = clock_real_ns();
	e = setup(&d, w);
	if (e) {
		if (d.ctl_bad_config) {
			teardown(&d);
			return TRAPD_EXIT_USAGE;
		}
		if (e != -ENOENT && e != -EADDRINUSE)
			log_error("starting the daemon: %s", strerror(-e));
		teardown(&d);
		return TRAPD_EXIT_FAILURE;
	}
	/* after setup: signals are blocked, so the thread never takes one */
	e = start_uploader(&d);
	if (e) {
		teardown(&d);
		return e;
	}
	log_info("daemon %s: %zu rule%s from %s, polled every %s; control socket %s", TRAPD_VERSION,
		 w->n, w->n == 1 ? "" : "s", rules_path,
		 units_format_duration(w->rules->global.poll_interval_ns, dur, sizeof(dur)),
		 d.ctl_path);
	/* A first reading now, so rates have their base at the first tick. */
	guard__observe_all(&d.guard, clock_mono_ns());
	loop(&d);
	teardown(&d);
	log_info("stopped");
	return TRAPD_EXIT_OK;
}
