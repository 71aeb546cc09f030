// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* watch.c - read, evaluate and log the daemon's rules.
 *
 * What a rules file can make the daemon do is bounded here and in the
 * loader: at most RULES_RULES_MAX rules, each with a history sized by
 * [global] history rather than the most it could be, one scan of /proc
 * per poll for every rule that follows a process by name, and at most
 * WATCH_TRIGGERS_MAX PSI trigger fds (never more than a quarter of the
 * soft RLIMIT_NOFILE): the rules beyond are polled, which costs a read
 * per poll instead of an fd. */
#include "trapd/guard/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rules/file_cache.h"
#include "rules/proc_comms.h"
#include "rules/proc_events.h"
#include "rules/units.h"
#include "trapd/util/log.h"

static int watched_init(struct watched_rule *wr, const struct rule *r, const struct rules_global *g)
{
	wr->rule = r;
	rule_eval__init(&wr->eval);
	wr->trigger_fd = -1;
	wr->logged = RULE_STATE_NO_DATA;
	wr->err[0] = '\0';
	return rule_eval__size_history(&wr->eval, rule_eval__history_points(g));
}

/* warn_name_only - a rule that finds its process by name alone can be
 * fired, or hidden from, by any local user; say so once per load. */
static void warn_name_only(const struct rule *r)
{
	if (rule__pinned_by_name_only(r))
		log_warn("rule %s: finds its process by name alone, which any local user can "
			 "take; pin it with process_user, process_exe or process_cgroup",
			 r->name);
}

static int watched_open(struct watch *w, struct watched_rule *wr)
{
	const struct rule *r = wr->rule;

	if (r->signal == RULE_SIGNAL_LATENCY)
		wr->lat = latency_source__new(r, w->latency, w->env.mountinfo,
					      w->rules->global.poll_interval_ns);
	else
		wr->src = signal_source__new(r, &w->env);
	return wr->lat || wr->src ? 0 : -ENOMEM;
}

struct watch *watch__new(struct rules *rules, const struct signal_env *env,
			 struct latency_set *latency)
{
	struct watch *w = calloc(1, sizeof(*w));
	size_t i;

	if (!w || (rules->nrules && !(w->w = calloc(rules->nrules, sizeof(*w->w))))) {
		free(w);
		rules__free(rules);
		errno = ENOMEM;
		return NULL;
	}
	w->rules = rules;
	w->env = *env;
	w->latency = latency;
	w->n = rules->nrules;
	for (i = 0; i < w->n; i++) {
		warn_name_only(&rules->rules[i]);
		if (watched_init(&w->w[i], &rules->rules[i], &rules->global) ||
		    watched_open(w, &w->w[i])) {
			watch__free(w);
			errno = ENOMEM;
			return NULL;
		}
	}
	return w;
}

void watch__free(struct watch *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++) {
		signal_source__free(w->w[i].src);  /* owns the trigger fd */
		latency_source__free(w->w[i].lat); /* releases its probe */
		rule_eval__free(&w->w[i].eval);
	}
	free(w->w);
	free(w->srcs);
	proc_comms__free(w->comms);
	proc_events__close(w->events);
	rules__free(w->rules);
	free(w);
}

size_t watch__adopt(struct watch *w, struct watch *old)
{
	size_t i, kept = 0;

	w->global_fires = old->global_fires;
	for (i = 0; i < w->n; i++) {
		struct watched_rule *nw = &w->w[i], *ow = watch__find(old, nw->rule->name);
		struct signal_source *swap;
		struct latency_source *lswap;
		struct rule_eval eswap;

		if (!ow || !rule__equal(nw->rule, ow->rule))
			continue;
		/* Trade sources, so the old watch frees the unused new one. */
		swap = nw->src;
		nw->src = ow->src;
		ow->src = swap;
		lswap = nw->lat;
		nw->lat = ow->lat;
		ow->lat = lswap;
		nw->trigger_fd = ow->trigger_fd;
		ow->trigger_fd = -1;
		/* Trade evaluations too: each owns its history. The kept one is
		 * resized if [global] history or poll_interval changed (on no
		 * memory it keeps its old size). */
		eswap = nw->eval;
		nw->eval = ow->eval;
		ow->eval = eswap;
		rule_eval__size_history(&nw->eval, rule_eval__history_points(&w->rules->global));
		nw->logged = ow->logged;
		memcpy(nw->err, ow->err, sizeof(nw->err));
		kept++;
	}
	return kept;
}

/* trigger_budget - the PSI trigger fds a watch may hold: WATCH_TRIGGERS_MAX,
 * and no more than a quarter of the soft RLIMIT_NOFILE, whose rest the
 * sampler's maps, control clients and captures need. */
static size_t trigger_budget(rlim_t *soft)
{
	struct rlimit rl;
	size_t max = WATCH_TRIGGERS_MAX;

	*soft = RLIM_INFINITY;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		*soft = rl.rlim_cur;
		if (rl.rlim_cur / 4 < max)
			max = (size_t)(rl.rlim_cur / 4);
	}
	return max;
}

static bool wants_trigger(const struct watched_rule *wr)
{
	return wr->trigger_fd < 0 && wr->src && wr->rule->signal == RULE_SIGNAL_PSI &&
	       wr->rule->psi_window == RULE_PSI_CUSTOM && wr->rule->above;
}

void watch__open_triggers(struct watch *w)
{
	size_t i, open = 0, polled = 0, budget;
	char err[256], d[32];
	rlim_t soft;

	budget = trigger_budget(&soft);
	for (i = 0; i < w->n; i++)
		open += w->w[i].trigger_fd >= 0;
	for (i = 0; i < w->n; i++) {
		struct watched_rule *wr = &w->w[i];
		int fd;

		if (!wants_trigger(wr))
			continue;
		if (open >= budget) {
			polled++;
			continue;
		}
		fd = signal_source__trigger_fd(wr->src, err, sizeof(err));
		if (fd >= 0) {
			wr->trigger_fd = fd;
			open++;
			log_info("rule %s: watched by a kernel PSI trigger (window %s)",
				 wr->rule->name,
				 units_format_duration(wr->rule->psi_window_ns, d, sizeof(d)));
		} else if (fd != -EOPNOTSUPP) {
			log_info("rule %s: no kernel PSI trigger (%s); polled instead",
				 wr->rule->name, err);
		}
	}
	if (polled)
		log_warn("%zu PSI rules polled instead of watched by a kernel trigger: at most %zu "
			 "trigger fds (%d, and a quarter of the open-file limit %llu)",
			 polled, budget, WATCH_TRIGGERS_MAX,
			 soft == RLIM_INFINITY ? 0ull : (unsigned long long)soft);
}

/* log_change - say what a rule is doing when that changes: every fire,
 * every change of state, every new read error. */
static void log_change(struct watched_rule *wr, enum eval_verdict v, const char *old_err)
{
	const struct rule *r = wr->rule;
	char why[EVAL_WHY_LEN];

	if (v == EVAL_FIRE)
		log_info("rule %s fired: %s", r->name, wr->eval.why + strlen("fired: "));
	else if (v == EVAL_DRY_RUN)
		log_info("rule %s fired (dry run, not capturing): %s", r->name,
			 wr->eval.why + strlen("fired: "));
	else if (wr->err[0] && strcmp(wr->err, old_err))
		log_warn("rule %s: %s", r->name, wr->err);
	else if (wr->eval.state != wr->logged && wr->eval.state == RULE_STATE_LIMITED)
		log_warn("rule %s: not capturing: %s", r->name,
			 rule_eval__why(&wr->eval, r, why, sizeof(why)));
	else if (wr->eval.state != wr->logged && wr->eval.state != RULE_STATE_NO_DATA)
		log_debug("rule %s: %s: %s", r->name, rule_state__name(wr->eval.state),
			  rule_eval__why(&wr->eval, r, why, sizeof(why)));
	wr->logged = wr->eval.state;
}

void watch__observe(struct watch *w, struct watched_rule *wr, int64_t now, watch_fire_fn fn,
		    void *ctx)
{
	char old_err[sizeof(wr->err)];
	enum eval_verdict v;
	int64_t value = 0;
	int e;

	memcpy(old_err, wr->err, sizeof(old_err));
	if (wr->lat)
		e = latency_source__read(wr->lat, now, &value, wr->err, sizeof(wr->err));
	else
		e = signal_source__read(wr->src, now, &value, wr->err, sizeof(wr->err));
	if (e == -EAGAIN) { /* a rate's first reading, a window too thin: nothing to judge */
		if (wr->err[0])
			rule_eval__say(&wr->eval, "waiting: %s", wr->err);
		wr->err[0] = '\0';
		return;
	}
	if (!e)
		wr->err[0] = '\0';
	v = evaluator__observe(&wr->eval, wr->rule, &w->rules->global, &w->global_fires, now, e,
			       value);
	if (e)
		rule_eval__say(&wr->eval, "no value: %s", wr->err);
	log_change(wr, v, old_err);
	if (v != EVAL_NONE && fn)
		fn(wr, v, now, ctx);
}

/* scan_needed - whether this tick must list /proc: the kernel's process
 * events (opened at the first scan of a watch that follows a name, on
 * the real /proc only) say something changed, or there are no events to
 * tell, or a rule pins its name to a cgroup and the last scan is
 * WATCH_RESCAN_NS old (no event tells a move to another cgroup). */
static bool scan_needed(struct watch *w, int64_t now)
{
	bool changed;
	int ret;

	if (!w->events_tried && w->scanned_ns && !strcmp(w->env.proc_root, "/proc") &&
	    !*w->env.fs_prefix) {
		w->events_tried = true;
		ret = proc_events__open(&w->events);
		if (ret)
			log_debug("process events: %s: every tick scans /proc", strerror(-ret));
		return true; /* what happened before they were opened is unknown */
	}
	if (!w->events)
		return true;
	changed = proc_events__changed(w->events); /* drained at every tick */
	return changed ||
	       (now - w->scanned_ns >= WATCH_RESCAN_NS &&
		signal_sources__pinned_to_cgroups(w->srcs, w->n)) ||
	       signal_sources__refeed(w->srcs, w->n);
}

/* scan_processes - one pass over /proc for every rule that follows a
 * process by name (rather than one per rule), when one is needed. When
 * /proc cannot be read, each rule tries on its own and says why in its
 * error. */
static void scan_processes(struct watch *w, int64_t now)
{
	char err[256];
	size_t i;

	if (w->nsrcs != w->n) { /* the sources, in a row, made once */
		free(w->srcs);
		w->srcs = calloc(w->n ? w->n : 1, sizeof(*w->srcs));
		w->nsrcs = w->srcs ? w->n : 0;
	}
	if (!w->srcs)
		return;
	for (i = 0; i < w->n; i++)
		w->srcs[i] = w->w[i].src;
	if (!signal_sources__follow_names(w->srcs, w->n))
		return;
	if (!scan_needed(w, now)) {
		w->scans_skipped++;
		return;
	}
	w->scans++;
	w->scanned_ns = now;
	if (signal_sources__scan(w->srcs, w->n, w->env.proc_root, &w->comms, err, sizeof(err)))
		log_debug("process scan: %s", err);
}

void watch__observe_all(struct watch *w, int64_t now, watch_fire_fn fn, void *ctx)
{
	size_t i;

	if (w->latency)
		latency_set__tick(w->latency, now);
	file_cache__tick(w->env.files); /* one read a file this tick */
	scan_processes(w, now);
	for (i = 0; i < w->n; i++)
		watch__observe(w, &w->w[i], now, fn, ctx);
}

struct watched_rule *watch__find(struct watch *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->w[i].rule->name, name))
			return &w->w[i];
	return NULL;
}

struct watched_rule *watch__by_trigger(struct watch *w, int fd)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->w[i].trigger_fd == fd)
			return &w->w[i];
	return NULL;
}
