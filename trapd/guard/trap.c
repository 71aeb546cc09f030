// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* trap.c - start, join and finish the daemon's capture. */
#include "trapd/guard/trap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rules/units.h"
#include "trapd/capture/history.h"
#include "trapd/capture/overhead.h"
#include "trapd/util/clock.h"
#include "trapd/util/log.h"
#include "upload/spool.h"

#define NSEC_PER_SEC 1000000000ll

void trap__sample_target(const struct rule_scope *scope, pid_t pid, struct capture_target *target,
			 const char **cgroup_name)
{
	memset(target, 0, sizeof(*target));
	target->exit_status = -1;
	*cgroup_name = NULL;
	switch (scope->kind) {
	case RULE_SCOPE_CGROUP:
		target->kind = CAPTURE_TARGET_CGROUP;
		*cgroup_name = scope->cgroup;
		break;
	case RULE_SCOPE_PID:
		target->kind = CAPTURE_TARGET_PID;
		target->pid = scope->pid;
		break;
	case RULE_SCOPE_PROCESS:
		target->kind = CAPTURE_TARGET_PID;
		target->pid = pid;
		break;
	default:
		target->kind = CAPTURE_TARGET_SYSTEM;
	}
}

/* describe - what @f samples, comparable between rules: a process name
 * is described by the pid it resolved to. */
static void describe(const struct trap_fire *f, char *buf, size_t len)
{
	if (f->sample.kind == RULE_SCOPE_PROCESS)
		snprintf(buf, len, "pid %d", (int)f->process_pid);
	else
		rule_scope__format(&f->sample, buf, len);
}

/* record_trigger - add @f's rule to the capture's triggers. */
static void record_trigger(struct trap *t, const struct trap_fire *f, int64_t history_ns,
			   int64_t now, bool joined)
{
	struct eval_point pts[EVAL_HISTORY_MAX];
	const struct rule *r = f->rule;
	struct capture_trigger *c;
	struct trap_trigger *st;
	enum rule_unit u;
	size_t i, n;

	if (!r || t->ntriggers == TRAP_MAX_TRIGGERS)
		return;
	c = &t->triggers[t->ntriggers];
	st = &t->storage[t->ntriggers];
	memset(c, 0, sizeof(*c));
	/* the slot may hold an earlier capture's pointers: trap__reset freed
	 * them, and a trigger without a histogram must not keep them */
	st->history_t = st->history_v = NULL;
	st->latency = NULL;
	snprintf(st->rule, sizeof(st->rule), "%s", r->name);
	rule__signal_name(r, st->signal, sizeof(st->signal));
	rule_scope__format(&r->scope, st->scope, sizeof(st->scope));
	u = rule__unit(r);
	n = rule_eval__history(f->eval, now, history_ns, pts, EVAL_HISTORY_MAX);
	st->history_t = calloc(n ? n : 1, sizeof(double));
	st->history_v = calloc(n ? n : 1, sizeof(double));
	if (!st->history_t || !st->history_v)
		n = 0;
	for (i = 0; i < n; i++) {
		st->history_t[i] = (double)(pts[i].t_ns - now) / NSEC_PER_SEC;
		st->history_v[i] = rule_unit__to_double(u, pts[i].value);
	}
	c->rule = st->rule;
	c->signal = st->signal;
	c->scope = st->scope;
	c->unit = u == RULE_UNIT_CENTI_PERCENT ? "%"
		  : u == RULE_UNIT_BYTES       ? "bytes"
		  : u == RULE_UNIT_COUNT       ? "count"
		  : u == RULE_UNIT_NSEC	       ? "ns"
					       : "/s";
	if (f->latency && (st->latency = malloc(sizeof(*st->latency)))) {
		*st->latency = *f->latency;
		c->latency = st->latency;
		c->latency_span_ns = f->latency_span_ns;
	}
	c->above = r->above;
	c->joined = joined;
	c->threshold = rule_unit__to_double(u, r->threshold);
	c->value = rule_unit__to_double(u, f->eval->value);
	c->at_ns = clock_real_ns() - (clock_mono_ns() - now);
	c->history_t = st->history_t;
	c->history_v = st->history_v;
	c->nhistory = n;
	t->ntriggers++;
}

/* free_triggers - the heap parts of @n trigger slots. */
static void free_triggers(struct trap_trigger *st, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(st[i].history_t);
		free(st[i].history_v);
		free(st[i].latency);
		st[i].history_t = st[i].history_v = NULL;
		st[i].latency = NULL;
	}
}

/* reset_running - drop the running capture, if any (it is lost). */
static void reset_running(struct trap *t)
{
	session__free(t->session);
	t->session = NULL;
	free_triggers(t->storage, t->ntriggers);
	t->ntriggers = 0;
}

static int new_id(struct trap *t)
{
	struct capture_info tmp;

	if (capture_new_id(&tmp))
		return -errno;
	memcpy(t->id, tmp.id, sizeof(t->id));
	return 0;
}

_Static_assert((int)RULE_RECORD_CPU == SAMPLER_RECORD_CPU &&
		       (int)RULE_RECORD_OFFCPU == SAMPLER_RECORD_OFFCPU,
	       "capture = bits are the sampler's");

/* recorder_bpf_ns - what a sample of the flight recorder costs in BPF,
 * measured (0: no recorder, or no sample yet). */
static uint64_t recorder_bpf_ns(const struct trap *t)
{
	struct history_stats st;

	if (!t->history)
		return 0;
	history__stats(t->history, &st);
	return st.interrupts_per_second ? st.bpf_ns_per_second / st.interrupts_per_second : 0;
}

static int start(struct trap *t, const struct trap_fire *f, int64_t now, char *err, size_t errlen)
{
	struct session_opts o = {
		.freq_hz = f->freq_hz,
		.duration_ns = f->duration_ns,
		.unwind = unwind_mode_from_rule(f->unwind),
		.stack_copy_bytes = (uint32_t)f->stack_copy_bytes,
		.no_python = f->no_python,
		.record = (uint32_t)f->record,
		.calls = f->calls,
		.calls_what = f->calls_what,
		.slow = f->slow,
		.sampler = t->sampler,
		.symcache = t->symcache,
		.unwinder = t->unwinder,
		.keep_cfi_bytes = t->keep_cfi_bytes,
		.budget = &t->budget,
		/* the seconds before this decision, cut now */
		.before = t->history ? history__slice(t->history, clock_real_ns()) : NULL,
		.overhead = t->overhead,
		.max_overhead_pct = t->max_capture_pct,
		.overhead_bpf_hint_ns = recorder_bpf_ns(t),
	};
	int e;

	trap__sample_target(&f->sample, f->process_pid, &o.target, &o.cgroup_name);
	err[0] = '\0';
	t->session = session__open(&o, err, errlen);
	if (!t->session) {
		e = -errno;
		if (!err[0])
			snprintf(err, errlen, "cannot sample %s", t->sample_desc);
		return e;
	}
	e = session__start(t->session, now);
	if (e) {
		snprintf(err, errlen, "arming the sampler: %s", strerror(-e));
		session__free(t->session);
		t->session = NULL;
		return e;
	}
	e = new_id(t);
	if (e) {
		snprintf(err, errlen, "no randomness for a capture id: %s", strerror(-e));
		reset_running(t);
		return e;
	}
	t->started = now;
	t->started_real = clock_real_ns();
	t->ntriggers = 0;
	t->manual = !f->rule;
	snprintf(t->manual_reason, sizeof(t->manual_reason), "%s",
		 f->manual_reason ? f->manual_reason : "");
	return 0;
}

/* join - a rule fired while the capture runs. */
static void join(struct trap *t, const struct trap_fire *f, const struct rules_global *g,
		 int64_t now)
{
	int64_t end = now + (int64_t)f->duration_ns, cap = t->started + (int64_t)g->max_window_ns;
	int64_t left;
	char desc[320], why[800], d[32];

	if (end > cap)
		end = cap;
	session__extend(t->session, end);
	describe(f, desc, sizeof(desc));
	if (strcmp(desc, t->sample_desc) && strcmp(t->sample_desc, "system")) {
		snprintf(why, sizeof(why), "%s %s joined a capture of %s and samples %s",
			 f->rule ? "rule" : "a manual capture", f->rule ? f->rule->name : "",
			 t->sample_desc, desc);
		if (!session__widen_to_system(t->session, why))
			log_info("capture %s now samples every task: %s", t->id, why);
	}
	left = session__deadline(t->session) - now;
	left = (left + NSEC_PER_SEC / 20) / (NSEC_PER_SEC / 10) * (NSEC_PER_SEC / 10);
	log_info("%s joined capture %s; it ends in %s", f->rule ? f->rule->name : "manual capture",
		 t->id, left > 0 ? units_format_duration((uint64_t)left, d, sizeof(d)) : "0s");
}

int trap__fire(struct trap *t, const struct trap_fire *f, const struct rules_global *g, int64_t now,
	       char *err, size_t errlen)
{
	char d[32];
	int e;

	if (t->session) {
		join(t, f, g, now);
		record_trigger(t, f, (int64_t)g->history_ns, now, true);
		return 0;
	}
	if (t->npending >= TRAP_MAX_PENDING) {
		snprintf(err, errlen, "%zu captures are still being written", t->npending);
		return -EBUSY;
	}
	describe(f, t->sample_desc, sizeof(t->sample_desc));
	e = start(t, f, now, err, errlen);
	if (e)
		return e;
	record_trigger(t, f, (int64_t)g->history_ns, now, false);
	log_info("capture %s started: %s for %s at %llu Hz (%s)", t->id, t->sample_desc,
		 units_format_duration(f->duration_ns, d, sizeof(d)),
		 (unsigned long long)f->freq_hz, f->rule ? f->rule->name : t->manual_reason);
	return 0;
}

/* spool_path - where the capture goes: the spool names it (spool.h; it
 * also creates and checks the directory). A refused directory is logged
 * here with the spool's own words, which say what to fix. */
static int spool_path(const struct trap *t, const struct rules *r, char *path, size_t len)
{
	const char *dir = r->global.spool_dir;
	char name[NAME_MAX + 1], err[PATH_MAX + 200];
	int e;

	e = spool_next_name(dir, t->started_real, t->ntriggers ? t->triggers[0].rule : "manual",
			    t->id, name, sizeof(name), err, sizeof(err));
	if (e) {
		log_error("%s", err);
		return e;
	}
	if (snprintf(path, len, "%s/%s", dir, name) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static void on_drop(const char *name, uint64_t bytes, void *ctx)
{
	struct trap *t = ctx;

	t->dropped++;
	log_warn("spool full: dropped the oldest capture %s (%llu bytes)", name,
		 (unsigned long long)bytes);
}

/* keep_in_bounds - the spool's size and count caps, never dropping the
 * capture just written at @path. */
static void keep_in_bounds(struct trap *t, const struct rules *r, const char *path)
{
	const char *base = strrchr(path, '/');
	char err[512];

	if (spool_enforce(r->global.spool_dir, r->global.spool_max_bytes, r->global.spool_max_files,
			  base ? base + 1 : path, on_drop, t, err, sizeof(err)) < 0)
		log_warn("%s", err);
}

static void pending_free(struct trap_pending *p)
{
	size_t i;

	if (!p)
		return;
	session__free(p->session); /* waits for its worker */
	free_triggers(p->storage, p->ntriggers);
	for (i = 0; p->labels && i < 2 * p->nlabels; i++)
		free(p->labels[i]);
	free(p->labels);
	free(p);
}

/* take_triggers - move the running capture's triggers into @p: their
 * strings live in the slots, so the copies point to @p's. */
static void take_triggers(struct trap *t, struct trap_pending *p)
{
	size_t i;

	for (i = 0; i < t->ntriggers; i++) {
		p->storage[i] = t->storage[i];
		p->triggers[i] = t->triggers[i];
		p->triggers[i].rule = p->storage[i].rule;
		p->triggers[i].signal = p->storage[i].signal;
		p->triggers[i].scope = p->storage[i].scope;
		t->storage[i].history_t = t->storage[i].history_v = NULL;
		t->storage[i].latency = NULL;
	}
	p->ntriggers = t->ntriggers;
	t->ntriggers = 0;
}

static int copy_labels(struct trap_pending *p, const struct rules *r)
{
	size_t i;

	p->labels = calloc(r->nlabels * 2 + 1, sizeof(*p->labels));
	if (!p->labels)
		return -ENOMEM;
	p->nlabels = r->nlabels;
	for (i = 0; i < r->nlabels; i++) {
		p->labels[2 * i] = strdup(r->labels[i].key);
		p->labels[2 * i + 1] = strdup(r->labels[i].value);
		if (!p->labels[2 * i] || !p->labels[2 * i + 1])
			return -ENOMEM;
	}
	return 0;
}

/* new_pending - the running capture's state moved into a pending one. */
static struct trap_pending *new_pending(struct trap *t, const struct rules *r, char *err,
					size_t errlen)
{
	struct trap_pending *p = calloc(1, sizeof(*p));
	int e;

	if (!p || copy_labels(p, r)) {
		snprintf(err, errlen, "out of memory");
		pending_free(p);
		return NULL;
	}
	e = spool_path(t, r, p->path, sizeof(p->path));
	if (e) {
		snprintf(err, errlen, "spool directory %s: %s", r->global.spool_dir, strerror(-e));
		pending_free(p);
		return NULL;
	}
	memcpy(p->id, t->id, sizeof(p->id));
	take_triggers(t, p);
	memcpy(p->info.id, t->id, sizeof(p->info.id));
	p->info.trigger = t->manual ? "manual" : "rule";
	p->info.triggers = p->triggers;
	p->info.ntriggers = p->ntriggers;
	p->info.labels = (const char *const *)p->labels;
	p->info.nlabels = p->nlabels;
	p->deadline = session__deadline(t->session);
	p->session = t->session;
	t->session = NULL;
	return p;
}

struct trap_pending *trap__finish(struct trap *t, const struct rules *r, char *err, size_t errlen)
{
	struct trap_pending *p, **tail;

	if (!t->session) {
		snprintf(err, errlen, "no capture runs");
		return NULL;
	}
	p = new_pending(t, r, err, errlen);
	if (p && session__finish_async(p->session, p->path, &p->info, err, errlen)) {
		pending_free(p);
		p = NULL;
	}
	if (!p) {
		t->failed++;
		reset_running(t);
		return NULL;
	}
	for (tail = &t->pending; *tail; tail = &(*tail)->next)
		;
	*tail = p;
	t->npending++;
	return p;
}

struct trap_pending *trap__pending_by_fd(struct trap *t, int fd)
{
	struct trap_pending *p;

	for (p = t->pending; p; p = p->next)
		if (session__fd(p->session) == fd)
			return p;
	return NULL;
}

/* unlink_pending - take @p off the list. */
static void unlink_pending(struct trap *t, struct trap_pending *p)
{
	struct trap_pending **pp;

	for (pp = &t->pending; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			t->npending--;
			return;
		}
	}
}

/* warn_budget - say so when symbolizing @p hit its budget: some frames
 * stayed addresses, and the sidecar's symbols.budget says which limit. */
static void warn_budget(const struct trap_pending *p)
{
	const struct symbudget *b = p->info.budget;
	char what[160];
	size_t off = 0;
	int i;

	if (!b || !symbudget__hit(b))
		return;
	what[0] = '\0';
	for (i = 0; i < SYMBUDGET_NR && off < sizeof(what); i++)
		if (b->refused[i])
			off += (size_t)snprintf(what + off, sizeof(what) - off, "%s%s %llu times",
						off ? ", " : "", symbudget__kind_name(i),
						(unsigned long long)b->refused[i]);
	log_warn("capture %s: the symbolization budget refused work (%s); those frames keep "
		 "their addresses",
		 p->id, what);
}

int trap__collect(struct trap *t, struct trap_pending *p, const struct rules *r, bool wait,
		  char *path, size_t pathlen, char *err, size_t errlen)
{
	int e;

	if (wait)
		session__wait(p->session);
	e = session__result(p->session, err, errlen);
	if (e == -EINPROGRESS)
		return e;
	unlink_pending(t, p);
	if (p->info.overhead) {
		t->capped += p->info.overhead->capped[0] != '\0';
		t->ended_early += p->info.overhead->over;
	}
	if (!e) {
		t->written++;
		snprintf(t->last_path, sizeof(t->last_path), "%s", p->path);
		snprintf(path, pathlen, "%s", p->path);
		t->last_real = clock_real_ns();
		log_info("capture %s written: %s (%llu samples, %s)", p->id, p->path,
			 (unsigned long long)p->info.samples_stored, p->info.end_reason);
		warn_budget(p);
		keep_in_bounds(t, r, p->path);
	} else {
		t->failed++;
	}
	pending_free(p);
	return e;
}

void trap__reset(struct trap *t)
{
	struct trap_pending *p;

	reset_running(t);
	while ((p = t->pending)) {
		t->pending = p->next;
		pending_free(p);
	}
	t->npending = 0;
}
