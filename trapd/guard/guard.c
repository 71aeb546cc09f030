// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* guard.c - the rules in force, the kept sampler and the capture fires
 * start (guard.h). */
#include "trapd/guard/guard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "rules/file_cache.h"
#include "rules/proc_stat.h"
#include "trapd/capture/history.h"
#include "trapd/symbolize/symcache.h"
#include "trapd/symbolize/unwinder.h"
#include "trapd/util/clock.h"
#include "trapd/util/log.h"

#define NSEC_PER_SEC 1000000000ll

/* rules/ cannot include the sampler's or the session's headers: its
 * limits of stack_copy are copies of theirs. */
_Static_assert(RULE_STACK_COPY_MAX == SAMPLER_COPY_MAX,
	       "stack_copy's maximum is the sampler's SAMPLER_COPY_MAX");
_Static_assert(RULE_STACK_COPY_DEFAULT == SESSION_STACK_COPY_DEFAULT,
	       "stack_copy's default is the session's");
_Static_assert(RULE_STACK_COPY_MIN <= SESSION_STACK_COPY_DEFAULT, "stack_copy's minimum");

int guard__watch_fd(int epfd, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0)
		return 0;
	if (errno == EEXIST && epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
		return 0;
	return -errno;
}

int guard__init(struct guard *g, const struct signal_env *env, int epfd,
		const struct guard_hooks *hooks)
{
	memset(g, 0, sizeof(*g));
	g->overhead.stats_fd = -1;
	g->env = *env;
	g->epfd = epfd;
	if (hooks)
		g->hooks = *hooks;
	g->latency = latency_set__new();
	g->env.files = file_cache__new();    /* the watches' files, kept open */
	g->trap.symcache = symcache__new(0); /* bounded by the rules in force */
	/* the CFI DWARF unwinding reads, kept between captures within the
	 * symbol cache's bound */
	if (unwinder__supported())
		g->trap.unwinder = unwinder__new("/proc", 0);
	if (!g->latency || !g->env.files || !g->trap.symcache ||
	    (unwinder__supported() && !g->trap.unwinder)) {
		file_cache__free(g->env.files);
		g->env.files = NULL;
		unwinder__free(g->trap.unwinder);
		g->trap.unwinder = NULL;
		latency_set__free(g->latency);
		symcache__free(g->trap.symcache);
		g->latency = NULL;
		g->trap.symcache = NULL;
		return -ENOMEM;
	}
	return 0;
}

struct watch *guard__new_watch(struct guard *g, struct rules *rules)
{
	return watch__new(rules, &g->env, g->latency);
}

/* --- the sampler --------------------------------------------------------- */

/* copy_need - the stack copies a capture of @unwind may take: none for
 * frame pointers, nor where this build cannot unwind them. */
static uint64_t copy_need(enum rule_unwind unwind, uint64_t bytes)
{
	return unwind == RULE_UNWIND_FP || !unwinder__supported() ? 0 : bytes;
}

/* sampler_needs - the frequency and window the kept sampler's maps must
 * hold, and the stack copies it must be able to take: the most any rule
 * (or a manual capture) asks for. Loading the copies at open keeps a
 * DWARF capture's arming as fast as a frame-pointer one's. */
static void sampler_needs(const struct rules *r, struct sampler_opts *o)
{
	const struct rules_global *g = &r->global;
	uint64_t copy = copy_need(g->manual_unwind, g->manual_stack_copy_bytes), c;
	size_t i;

	o->freq_hz = g->manual_freq_hz;
	o->window_ns = g->max_window_ns;
	for (i = 0; i < r->nrules; i++) {
		if (r->rules[i].freq_hz > o->freq_hz)
			o->freq_hz = r->rules[i].freq_hz;
		c = copy_need(r->rules[i].unwind, r->rules[i].stack_copy_bytes);
		if (c > copy)
			copy = c;
	}
	o->stack_copy_bytes = (uint32_t)copy;
}

/* wants_walk - whether the rules in force walk stacks in the kernel: the
 * flight recorder always does, a capture when its unwind says kernel. */
static bool wants_walk(const struct rules *r)
{
	size_t i;

	if (r->global.history_freq_hz || r->global.manual_unwind == RULE_UNWIND_KERNEL)
		return true;
	for (i = 0; i < r->nrules; i++)
		if (r->rules[i].unwind == RULE_UNWIND_KERNEL)
			return true;
	return false;
}

/* walk_tables - the kernel walk's tables, one set for the capture sampler
 * and the recorder (a file's table is built once for both, and kept
 * across captures): made when the rules in force first want them, anew
 * when unwind_tables_memory changed, dropped when nothing walks. NULL
 * when none (or the kernel cannot walk: said each time they are made). */
static struct unwind_tables *walk_tables(struct guard *g)
{
	const struct rules *r = g->watch->rules;
	uint64_t rows = r->global.unwind_tables_bytes / sizeof(struct sampler_unwind_row);
	char err[256];

	if (!wants_walk(r)) {
		unwind_tables__put(g->tables);
		g->tables = NULL;
		g->tables_rows = 0;
		return NULL;
	}
	if (g->tables_rows == rows)
		return g->tables;
	unwind_tables__put(g->tables);
	g->tables_rows = rows;
	g->tables = unwind_tables__new(rows > UINT32_MAX ? UINT32_MAX : (uint32_t)rows, "/proc",
				       err, sizeof(err));
	if (!g->tables)
		log_info(
			"the kernel cannot walk user stacks (%s): frame pointers or copies instead",
			err);
	return g->tables;
}

/* load_sampler - a sampler for @o; if it cannot be loaded with stack
 * copies, one without (captures then walk frame pointers, and a rule of
 * unwind = dwarf fails to capture, saying why). */
static struct sampler *load_sampler(struct sampler_opts *o)
{
	struct sampler *s;
	char err[512];

	s = sampler__open(o, err, sizeof(err));
	if (s || !o->stack_copy_bytes)
		goto out;
	log_warn("cannot load the sampler with stack copies (%s); user stacks are walked by "
		 "frame pointers",
		 err);
	o->stack_copy_bytes = 0;
	s = sampler__open(o, err, sizeof(err));
out:
	if (!s)
		log_error("%s", err);
	return s;
}

/* open_sampler - load the sampler once, disarmed, so a rule that fires
 * arms it in microseconds instead of loading BPF then. Reopened when a
 * reload asks for bigger maps (and no capture runs). */
static int open_sampler(struct guard *g)
{
	struct sampler_opts o = { .target = SAMPLER_TARGET_ALL, .cgroup_fd = -1 };
	uint64_t copy;

	sampler_needs(g->watch->rules, &o);
	o.walk_tables = walk_tables(g);
	copy = o.stack_copy_bytes;
	if (g->trap.sampler && o.freq_hz <= g->sampler_freq && o.window_ns <= g->sampler_window &&
	    copy <= g->sampler_copy && o.walk_tables == g->sampler_tables)
		return 0;
	if (trap__running(&g->trap)) {
		log_info("the sampler's maps grow after the running capture");
		return 0;
	}
	sampler__free(g->trap.sampler);
	g->trap.sampler = load_sampler(&o);
	if (!g->trap.sampler)
		return -errno;
	g->sampler_freq = o.freq_hz;
	g->sampler_window = o.window_ns;
	/* what was asked, even if refused: not retried at every capture (a
	 * reference to the tables, so their address is never another's) */
	g->sampler_copy = copy;
	unwind_tables__put(g->sampler_tables);
	g->sampler_tables = unwind_tables__get(o.walk_tables);
	return 0;
}

/* --- rules in force ------------------------------------------------------ */

/* set_limits - the symbol cache's bound and each capture's symbolization
 * budget, as the rules in force say. */
static void set_limits(struct guard *g)
{
	const struct rules_global *r = &g->watch->rules->global;
	struct symbudget *b = &g->trap.budget;

	symcache__set_limit(g->trap.symcache, r->symbol_cache_bytes);
	g->trap.keep_cfi_bytes = r->symbol_cache_bytes;
	symbudget__init(b);
	b->max[SYMBUDGET_BYTES] = r->symbolize_bytes;
	b->max[SYMBUDGET_SYMBOLS] = r->symbolize_symbols;
	b->max[SYMBUDGET_PERFMAP_BYTES] = r->symbolize_perf_map_bytes;
	b->max[SYMBUDGET_TIME] = r->symbolize_time_ns;
	g->trap.overhead = &g->overhead;
	g->trap.max_capture_pct = (double)r->max_capture_overhead_centi / 100.0;
}

/* close_history - stop the recorder, and the BPF statistics it held. */
static void close_history(struct guard *g)
{
	if (!g->trap.history)
		return;
	history__close(g->trap.history);
	g->trap.history = NULL;
	overhead__release_stats(&g->overhead);
}

/* open_history - the flight recorder as the rules in force say: started,
 * stopped, or restarted when its settings changed (the seconds it kept
 * go with it; slices already taken keep theirs). A recorder that cannot
 * start is logged and the daemon runs without it. */
static void open_history(struct guard *g)
{
	const struct rules_global *r = &g->watch->rules->global;
	struct history_opts o = {
		.freq_hz = r->history_freq_hz,
		.window_ns = r->history_window_ns,
		.max_bytes = r->history_max_bytes,
		.symcache = g->trap.symcache,
		.max_pct = (double)r->max_overhead_centi / 100.0,
		.irq_ns = g->overhead.irq_ns,
		.ncpus = g->overhead.ncpus,
		.walk_tables = walk_tables(g),
	};
	char err[512];

	if (g->trap.history && !memcmp(&o, &g->history_opts, sizeof(o)))
		return;
	close_history(g);
	g->history_opts = o;
	if (!o.freq_hz)
		return;
	overhead__hold_stats(&g->overhead); /* the recorder measures its BPF */
	g->trap.history = history__open(&o, err, sizeof(err));
	if (!g->trap.history) {
		overhead__release_stats(&g->overhead);
		log_error("history: %s; captures hold their window only", err);
	} else
		log_info("history: recording %llu Hz stacks, the last %llu s go into each capture",
			 (unsigned long long)o.freq_hz,
			 (unsigned long long)(o.window_ns / NSEC_PER_SEC));
}

static void watch_triggers(struct guard *g)
{
	size_t i;

	for (i = 0; i < g->watch->n; i++)
		if (g->watch->w[i].trigger_fd >= 0 &&
		    guard__watch_fd(g->epfd, g->watch->w[i].trigger_fd, EPOLLPRI))
			log_warn("rule %s: cannot watch its PSI trigger: %s",
				 g->watch->w[i].rule->name, strerror(errno));
}

int guard__open(struct guard *g, struct watch *w)
{
	int e;

	g->watch = w;
	overhead__open(&g->overhead);
	set_limits(g);
	e = open_sampler(g);
	if (e)
		return e;
	open_history(g);
	watch__open_triggers(w);
	watch_triggers(g);
	return 0;
}

struct watch *guard__replace(struct guard *g, struct watch *w, size_t *kept)
{
	struct watch *old = g->watch;
	size_t i;

	*kept = watch__adopt(w, old);
	for (i = 0; i < old->n; i++) /* triggers of rules that went away */
		if (old->w[i].trigger_fd >= 0)
			epoll_ctl(g->epfd, EPOLL_CTL_DEL, old->w[i].trigger_fd, NULL);
	watch__open_triggers(w);
	g->watch = w;
	watch_triggers(g);
	set_limits(g);
	open_sampler(g);
	open_history(g);
	return old;
}

/* --- captures ------------------------------------------------------------ */

static void watch_session(struct guard *g)
{
	if (!g->session_watched && trap__running(&g->trap) &&
	    !guard__watch_fd(g->epfd, session__fd(g->trap.session), EPOLLIN))
		g->session_watched = true;
}

/* collect - a pending capture is written or lost: tell the owner. */
static void collect(struct guard *g, struct trap_pending *p, bool wait)
{
	char path[PATH_MAX], err[512], id[sizeof(p->id)];
	int e;

	memcpy(id, p->id, sizeof(id));
	epoll_ctl(g->epfd, EPOLL_CTL_DEL, session__fd(p->session), NULL);
	e = trap__collect(&g->trap, p, g->watch->rules, wait, path, sizeof(path), err, sizeof(err));
	if (e == -EINPROGRESS)
		return;
	if (e)
		log_error("capture %s lost: %s", id, err);
	if (g->hooks.captured)
		g->hooks.captured(g, id, e ? NULL : path, e ? err : "", g->hooks.ctx);
}

/* finish_capture - the window is over: it is copied out of the sampler
 * and written in the background; the sampler is free at once. */
static void finish_capture(struct guard *g)
{
	struct trap_pending *p;
	char err[512], id[sizeof(g->trap.id)];

	memcpy(id, g->trap.id, sizeof(id));
	if (g->session_watched)
		epoll_ctl(g->epfd, EPOLL_CTL_DEL, session__fd(g->trap.session), NULL);
	g->session_watched = false;
	p = trap__finish(&g->trap, g->watch->rules, err, sizeof(err));
	if (!p) {
		log_error("capture %s lost: %s", id, err);
		if (g->hooks.captured)
			g->hooks.captured(g, id, NULL, err, g->hooks.ctx);
	} else if (guard__watch_fd(g->epfd, session__fd(p->session), EPOLLIN)) {
		collect(g, p, true); /* cannot be told when it is done: wait */
	}
	open_sampler(g); /* bigger maps a reload asked for meanwhile */
}

/* resolve_process - the pid a process-name scope samples: the one the
 * rule's own signal pointed at (found with the rule's pins), else the
 * first of that name that holds the rule's pins (process_user,
 * process_exe, process_cgroup), so a process any user renamed is never
 * the one sampled. A manual capture (no rule) has no pins. */
static pid_t resolve_process(const struct guard *g, const struct watched_rule *wr,
			     const struct rule_scope *s)
{
	const struct rule_pin *pin = wr ? &wr->rule->pin : NULL;
	pid_t pids[1] = { 0 };
	char err[256];
	size_t n = 0;

	if (wr && wr->rule->scope.kind == RULE_SCOPE_PROCESS &&
	    !strcmp(wr->rule->scope.process, s->process) && wr->src &&
	    signal_source__pid(wr->src) > 0)
		return signal_source__pid(wr->src);
	proc_match_find(g->env.proc_root, s->process, pin, pids, 1, &n, err, sizeof(err));
	return n ? pids[0] : 0;
}

int guard__fire(struct guard *g, struct trap_fire *f, struct watched_rule *wr, int64_t now,
		char *err, size_t errlen)
{
	int e;

	if (f->sample.kind == RULE_SCOPE_PROCESS) {
		f->process_pid = resolve_process(g, wr, &f->sample);
		if (!f->process_pid) {
			snprintf(err, errlen, "no process named '%s' to sample", f->sample.process);
			g->capture_errors++;
			return -ESRCH;
		}
	}
	e = trap__fire(&g->trap, f, &g->watch->rules->global, now, err, errlen);
	if (e)
		g->capture_errors++;
	watch_session(g);
	return e;
}

/* calls_of - the calls a func or syscall rule's capture splits its
 * samples by: those its own probe measures, as resolved on this host. */
static void calls_of(const struct watched_rule *wr, struct trap_fire *f, char *what, size_t len)
{
	const struct latency_probe_spec *spec = latency_source__spec(wr->lat);
	const struct rule *r = wr->rule;

	if (!spec || sampler_calls__of(spec, r, &f->calls, what, len))
		return;
	f->calls_what = what;
	f->slow.ns = r->slow_ns;
	f->slow.percentile = r->slow_pct;
}

static void on_rule_fired(struct watched_rule *wr, enum eval_verdict v, int64_t now, void *ctx)
{
	struct guard *g = ctx;
	struct trap_fire f = {
		.rule = wr->rule,
		.eval = &wr->eval,
		.sample = wr->rule->sample,
		.duration_ns = wr->rule->window_ns,
		.freq_hz = wr->rule->freq_hz,
		.unwind = wr->rule->unwind,
		.stack_copy_bytes = wr->rule->stack_copy_bytes,
		.no_python = !wr->rule->python,
		.record = wr->rule->record,
	};
	char err[512] = "", what[PATH_MAX + 320];

	if (v == EVAL_FIRE) {
		if (wr->lat)
			f.latency = latency_source__window(wr->lat, &f.latency_span_ns);
		if (wr->lat && wr->rule->split_calls)
			calls_of(wr, &f, what, sizeof(what));
		if (guard__fire(g, &f, wr, now, err, sizeof(err)))
			log_error("rule %s: cannot capture: %s", wr->rule->name, err);
		else
			err[0] = '\0';
	}
	if (g->hooks.fired)
		g->hooks.fired(g, wr, v, now, err, g->hooks.ctx);
}

int guard__arm_timer(struct guard *g, int timerfd)
{
	uint64_t ns = g->watch->rules->global.poll_interval_ns;
	struct itimerspec its = {
		.it_interval = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) },
		.it_value = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) },
	};

	return timerfd_settime(timerfd, 0, &its, NULL) ? -errno : 0;
}

void guard__observe_all(struct guard *g, int64_t now)
{
	watch__observe_all(g->watch, now, on_rule_fired, g);
}

bool guard__dispatch(struct guard *g, int fd)
{
	struct watched_rule *wr;
	struct trap_pending *p;

	if (trap__running(&g->trap) && fd == session__fd(g->trap.session)) {
		session__handle(g->trap.session);
		return true;
	}
	p = trap__pending_by_fd(&g->trap, fd);
	if (p) {
		session__handle(p->session);
		if (session__finished(p->session))
			collect(g, p, false);
		return true;
	}
	wr = watch__by_trigger(g->watch, fd);
	if (!wr)
		return false;
	file_cache__tick(g->env.files); /* read the pressure file afresh */
	watch__observe(g->watch, wr, clock_mono_ns(), on_rule_fired, g);
	return true;
}

int guard__timeout_ms(struct guard *g)
{
	return trap__running(&g->trap) ? session__timeout_ms(g->trap.session, clock_mono_ns()) : -1;
}

void guard__tick(struct guard *g)
{
	if (trap__running(&g->trap) && session__tick(g->trap.session, clock_mono_ns()))
		finish_capture(g);
}

void guard__stop(struct guard *g, const char *why)
{
	if (trap__running(&g->trap)) {
		session__end(g->trap.session, why);
		finish_capture(g);
	}
	while (g->trap.pending)
		collect(g, g->trap.pending, true);
}

void guard__release(struct guard *g)
{
	trap__reset(&g->trap);
	close_history(g);
	overhead__close(&g->overhead);
	sampler__free(g->trap.sampler);
	g->trap.sampler = NULL;
	unwind_tables__put(g->sampler_tables);
	unwind_tables__put(g->tables);
	g->sampler_tables = g->tables = NULL;
	symcache__free(g->trap.symcache);
	g->trap.symcache = NULL;
	unwinder__free(g->trap.unwinder);
	g->trap.unwinder = NULL;
	watch__free(g->watch);
	g->watch = NULL;
	latency_set__free(g->latency);
	g->latency = NULL;
	file_cache__free(g->env.files);
	g->env.files = NULL;
}
