/* daemon.c - the guard's event loop: timer, signals, PSI triggers, control
 * socket, capture. */
#include "trapd/daemon.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "rules/proc_stat.h"
#include "rules/units.h"
#include "trapd/commands.h"
#include "trapd/log.h"
#include "trapd/shipping.h"

#define NSEC_PER_SEC 1000000000ll
#define MAX_EVENTS 16

static int epoll_watch(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
		return 0;
	if (errno == EEXIST && epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
		return 0;
	return -errno;
}

static int open_sampler(struct daemon *d);

/* --- loading rules ------------------------------------------------------- */

static void print_errors(const struct rules_errors *errs)
{
	size_t i;

	for (i = 0; i < errs->n; i++)
		log_error("%s", errs->msgs[i]);
}

/* load - the rules file as a new watch, or NULL (errors logged; *@bad
 * says whether the file was bad, as opposed to unreadable). */
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
	w = watch__new(r, &d->env, d->latency);
	if (!w)
		log_error("loading %s: %s", d->rules_path, strerror(errno));
	return w;
}

static void watch_triggers(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->watch->n; i++)
		if (d->watch->w[i].trigger_fd >= 0 &&
		    epoll_watch(d->epfd, d->watch->w[i].trigger_fd, EPOLLPRI))
			log_warn("rule %s: cannot watch its PSI trigger: %s",
				 d->watch->w[i].rule->name, strerror(errno));
}

static int arm_timer(struct daemon *d)
{
	uint64_t ns = d->watch->rules->global.poll_interval_ns;
	struct itimerspec its = {
		.it_interval = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) },
		.it_value = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) },
	};

	return timerfd_settime(d->timerfd, 0, &its, NULL) ? -errno : 0;
}

/* restart_uploader - after a reload: a new uploader when [upload] or the
 * spool changed (the old one stops; a capture it was sending stays in
 * the spool and goes again, under the same name). A new [upload] that
 * cannot start (a secret missing) leaves captures in the spool. */
static void restart_uploader(struct daemon *d, const struct rules *old)
{
	const struct rules *r = d->watch->rules;
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
	struct watch *nw, *old = d->watch;
	size_t kept, i;
	bool bad;

	log_info("reloading %s", d->rules_path);
	nw = load(d, &bad);
	if (!nw) {
		d->reloads_rejected++;
		log_error("reload rejected: %s; the old rules keep running",
			  bad ? "the file has errors" : "the file could not be read");
		return;
	}
	kept = watch__adopt(nw, old);
	for (i = 0; i < old->n; i++) /* triggers of rules that went away */
		if (old->w[i].trigger_fd >= 0)
			epoll_ctl(d->epfd, EPOLL_CTL_DEL, old->w[i].trigger_fd, NULL);
	watch__open_triggers(nw);
	d->watch = nw;
	watch_triggers(d);
	if (strcmp(nw->rules->global.control_socket, d->ctl_path))
		log_warn("control_socket changed to %s: it takes effect at the next start; the "
			 "daemon still listens on %s",
			 nw->rules->global.control_socket, d->ctl_path);
	restart_uploader(d, old->rules);
	watch__free(old);
	open_sampler(d);
	arm_timer(d);
	d->reloads++;
	d->loaded_real = session__realtime_ns();
	log_info("reloaded %s: %zu rules, %zu kept their state", d->rules_path, nw->n, kept);
}

/* --- the sampler --------------------------------------------------------- */

/* sampler_needs - the frequency and window the kept sampler's maps must
 * hold: the most any rule (or a manual capture) asks for. */
static void sampler_needs(const struct rules *r, uint64_t *freq, uint64_t *window)
{
	size_t i;

	*freq = r->global.manual_freq_hz;
	*window = r->global.max_window_ns;
	for (i = 0; i < r->nrules; i++)
		if (r->rules[i].freq_hz > *freq)
			*freq = r->rules[i].freq_hz;
}

/* open_sampler - load the sampler once, disarmed, so a rule that fires
 * arms it in microseconds instead of loading BPF then. Reopened when a
 * reload asks for bigger maps (and no capture runs). */
static int open_sampler(struct daemon *d)
{
	struct sampler_opts o = { .target = SAMPLER_TARGET_ALL, .cgroup_fd = -1 };
	char err[512];

	sampler_needs(d->watch->rules, &o.freq_hz, &o.window_ns);
	if (d->trap.sampler && o.freq_hz <= d->sampler_freq && o.window_ns <= d->sampler_window)
		return 0;
	if (trap__running(&d->trap)) {
		log_info("the sampler's maps grow after the running capture");
		return 0;
	}
	sampler__free(d->trap.sampler);
	d->trap.sampler = sampler__open(&o, err, sizeof(err));
	if (!d->trap.sampler) {
		log_error("%s", err);
		return -errno;
	}
	d->sampler_freq = o.freq_hz;
	d->sampler_window = o.window_ns;
	return 0;
}

/* --- captures ------------------------------------------------------------ */

static void watch_session(struct daemon *d)
{
	if (!d->session_watched && trap__running(&d->trap) &&
	    !epoll_watch(d->epfd, session__fd(d->trap.session), EPOLLIN))
		d->session_watched = true;
}

static void finish_capture(struct daemon *d)
{
	char err[512];

	if (d->session_watched)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, session__fd(d->trap.session), NULL);
	d->session_watched = false;
	if (trap__finish(&d->trap, d->watch->rules, err, sizeof(err)))
		log_error("capture lost: %s", err);
	else
		uploader__kick(d->uploader);
	open_sampler(d); /* bigger maps a reload asked for meanwhile */
}

/* resolve_process - the pid a process-name scope samples: the one the
 * rule's own signal pointed at, else the first of that name. */
static pid_t resolve_process(const struct daemon *d, const struct watched_rule *wr,
			     const struct rule_scope *s)
{
	pid_t pids[1] = { 0 };
	char err[256];
	size_t n = 0;

	if (wr && wr->rule->scope.kind == RULE_SCOPE_PROCESS &&
	    !strcmp(wr->rule->scope.process, s->process) && wr->src &&
	    signal_source__pid(wr->src) > 0)
		return signal_source__pid(wr->src);
	proc_stat_find_comm(d->env.proc_root, s->process, pids, 1, &n, err, sizeof(err));
	return n ? pids[0] : 0;
}

/* fire - start or join a capture. Returns 0 or a negative errno with @err. */
static int fire(struct daemon *d, struct trap_fire *f, struct watched_rule *wr, int64_t now,
		char *err, size_t errlen)
{
	int e;

	if (f->sample.kind == RULE_SCOPE_PROCESS) {
		f->process_pid = resolve_process(d, wr, &f->sample);
		if (!f->process_pid) {
			snprintf(err, errlen, "no process named '%s' to sample", f->sample.process);
			return -ESRCH;
		}
	}
	e = trap__fire(&d->trap, f, &d->watch->rules->global, now, err, errlen);
	if (e)
		d->capture_errors++;
	watch_session(d);
	return e;
}

static void on_rule_fired(struct watched_rule *wr, enum eval_verdict v, int64_t now, void *ctx)
{
	struct daemon *d = ctx;
	struct trap_fire f = {
		.rule = wr->rule,
		.eval = &wr->eval,
		.sample = wr->rule->sample,
		.duration_ns = wr->rule->window_ns,
		.freq_hz = wr->rule->freq_hz,
	};
	char err[512];

	if (v != EVAL_FIRE)
		return;
	if (wr->lat)
		f.latency = latency_source__window(wr->lat, &f.latency_span_ns);
	if (fire(d, &f, wr, now, err, sizeof(err)))
		log_error("rule %s: cannot capture: %s", wr->rule->name, err);
}

/* arm - a manual capture: as @rule_name would capture (its cooldown and
 * limits are charged), or as [global] manual_* say. @reply gets what
 * happened. Returns 0, -ENOENT (no such rule) or the capture's error. */
static int arm(struct daemon *d, const char *rule_name, uint64_t duration_ns, const char *why,
	       char *reply, size_t len)
{
	const struct rules_global *g = &d->watch->rules->global;
	struct watched_rule *wr = NULL;
	struct trap_fire f = { .manual_reason = why };
	bool joining = trap__running(&d->trap);
	int64_t now = session__now_ns();
	int e;

	if (rule_name && rule_name[0]) {
		wr = watch__find(d->watch, rule_name);
		if (!wr) {
			snprintf(reply, len, "no rule named '%s' in %s", rule_name, d->rules_path);
			return -ENOENT;
		}
		f.sample = wr->rule->sample;
		f.duration_ns = wr->rule->window_ns;
		f.freq_hz = wr->rule->freq_hz;
	} else {
		f.sample = g->manual_sample;
		f.duration_ns = g->manual_window_ns;
		f.freq_hz = g->manual_freq_hz;
	}
	if (duration_ns)
		f.duration_ns = duration_ns > g->max_window_ns ? g->max_window_ns : duration_ns;
	d->manual_arms++;
	e = fire(d, &f, wr, now, reply, len);
	if (e)
		return e;
	if (wr)
		evaluator__record_fire(&wr->eval, &d->watch->global_fires, now);
	snprintf(reply, len, "capture %s %s (%s)\n", d->trap.id, joining ? "joined" : "started",
		 d->trap.sample_desc);
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
	watch__observe_all(d->watch, session__now_ns(), on_rule_fired, d);
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

static void answer(struct daemon *d, int fd, const struct control_request *req)
{
	char reply[1024], line[1100];
	char *body = NULL;
	size_t len = 0;
	int e;

	if (req->verb == CONTROL_STATUS) {
		if (daemon__status(d, req->json, &body, &len))
			control__reply(fd, "error: out of memory", NULL, 0);
		else
			control__reply(fd, "ok", body, len);
		free(body);
		return;
	}
	if (req->verb == CONTROL_UPLOAD) {
		if (!d->uploader) {
			control__reply(fd, "usage: no [upload] in the rules file: captures stay in "
					   "the spool", NULL, 0);
			return;
		}
		uploader__retry(d->uploader, req->failed);
		snprintf(reply, sizeof(reply), "uploading the spool now%s\n",
			 req->failed ? ", captures that failed included" : "");
		control__reply(fd, "ok", reply, strlen(reply));
		log_info("trapd upload%s: uploading the spool now", req->failed ? " --failed" : "");
		return;
	}
	e = arm(d, req->rule, req->duration_ns, "trapd arm", reply, sizeof(reply));
	if (!e) {
		control__reply(fd, "ok", reply, strlen(reply));
		return;
	}
	snprintf(line, sizeof(line), "%s: %s", e == -ENOENT || e == -EINVAL ? "usage" : "error",
		 reply);
	control__reply(fd, line, NULL, 0);
}

static void on_control(struct daemon *d)
{
	struct control_request req;
	char err[512], line[600];
	int fd;

	for (;;) {
		fd = control__accept(d->ctlfd, d->ctl_gid, err, sizeof(err));
		if (fd == -EAGAIN || fd == -EWOULDBLOCK)
			return;
		if (fd < 0) {
			log_warn("%s", err);
			if (fd != -EACCES)
				return;
			continue;
		}
		if (control__read_request(fd, &req, err, sizeof(err))) {
			snprintf(line, sizeof(line), "usage: %s", err);
			control__reply(fd, line, NULL, 0);
		} else {
			answer(d, fd, &req);
		}
		close(fd);
	}
}

static void dispatch(struct daemon *d, const struct epoll_event *ev)
{
	struct watched_rule *wr;
	int fd = ev->data.fd;

	if (fd == d->timerfd)
		on_timer(d);
	else if (fd == d->sigfd)
		on_signal(d);
	else if (fd == d->ctlfd)
		on_control(d);
	else if (trap__running(&d->trap) && fd == session__fd(d->trap.session))
		session__handle(d->trap.session);
	else if ((wr = watch__by_trigger(d->watch, fd)))
		watch__observe(d->watch, wr, session__now_ns(), on_rule_fired, d);
}

static void loop(struct daemon *d)
{
	struct epoll_event evs[MAX_EVENTS];

	while (!d->stopping) {
		int timeout = -1, n, i;

		if (trap__running(&d->trap))
			timeout = session__timeout_ms(d->trap.session, session__now_ns());
		n = epoll_wait(d->epfd, evs, MAX_EVENTS, timeout);
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++)
			dispatch(d, &evs[i]);
		if (trap__running(&d->trap) && session__tick(d->trap.session, session__now_ns()))
			finish_capture(d);
	}
	if (trap__running(&d->trap)) { /* cut short, written, not lost */
		session__end(d->trap.session, "daemon stopping");
		finish_capture(d);
	}
}

/* --- setup --------------------------------------------------------------- */

static int open_signals(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return d->sigfd < 0 ? -errno : 0;
}

static int open_control(struct daemon *d)
{
	const struct rules_global *g = &d->watch->rules->global;
	char err[512];

	d->ctl_gid = (gid_t)-1;
	if (g->control_group) {
		struct group *gr = getgrnam(g->control_group);

		if (!gr) {
			log_error("control_group '%s': no such group", g->control_group);
			return -ENOENT;
		}
		d->ctl_gid = gr->gr_gid;
	}
	snprintf(d->ctl_path, sizeof(d->ctl_path), "%s", g->control_socket);
	d->ctlfd = control__listen(d->ctl_path, d->ctl_gid, err, sizeof(err));
	if (d->ctlfd < 0) {
		log_error("%s", err);
		return d->ctlfd;
	}
	return 0;
}

static int setup(struct daemon *d)
{
	int e;

	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->epfd < 0 || d->timerfd < 0)
		return -errno;
	e = open_signals(d);
	if (!e)
		e = open_sampler(d);
	if (!e)
		e = open_control(d);
	if (!e)
		e = arm_timer(d);
	if (!e)
		e = epoll_watch(d->epfd, d->timerfd, EPOLLIN);
	if (!e)
		e = epoll_watch(d->epfd, d->sigfd, EPOLLIN);
	if (!e)
		e = epoll_watch(d->epfd, d->ctlfd, EPOLLIN);
	if (e)
		return e;
	watch__open_triggers(d->watch);
	watch_triggers(d);
	return 0;
}

static void teardown(struct daemon *d)
{
	uploader__stop(d->uploader);
	trap__reset(&d->trap);
	sampler__free(d->trap.sampler);
	watch__free(d->watch);
	latency_set__free(d->latency);
	if (d->ctlfd >= 0) {
		close(d->ctlfd);
		unlink(d->ctl_path);
	}
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
	const struct rules *r = d->watch->rules;
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
		.env = *env,
		.epfd = -1,
		.timerfd = -1,
		.sigfd = -1,
		.ctlfd = -1,
	};
	char dur[32];
	bool bad;
	int e;

	d.latency = latency_set__new();
	if (!d.latency) {
		log_error("starting the daemon: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	d.watch = load(&d, &bad);
	if (!d.watch) {
		latency_set__free(d.latency);
		return bad ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
	}
	d.started_real = d.loaded_real = session__realtime_ns();
	e = setup(&d);
	if (e) {
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
	log_info("trapd daemon %s: %zu rules from %s, polled every %s; control socket %s",
		 TRAPD_VERSION, d.watch->n, rules_path,
		 units_format_duration(d.watch->rules->global.poll_interval_ns, dur, sizeof(dur)),
		 d.ctl_path);
	/* A first reading now, so rates have their base at the first tick. */
	watch__observe_all(d.watch, session__now_ns(), on_rule_fired, &d);
	loop(&d);
	teardown(&d);
	log_info("stopped");
	return TRAPD_EXIT_OK;
}
