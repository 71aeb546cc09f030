/* watch.c - read, evaluate and log the daemon's rules. */
#include "trapd/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/units.h"
#include "trapd/log.h"

static void watched_init(struct watched_rule *wr, const struct rule *r)
{
	wr->rule = r;
	rule_eval__init(&wr->eval);
	wr->trigger_fd = -1;
	wr->logged = RULE_STATE_NO_DATA;
	wr->err[0] = '\0';
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
		watched_init(&w->w[i], &rules->rules[i]);
		if (watched_open(w, &w->w[i])) {
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
		signal_source__free(w->w[i].src); /* owns the trigger fd */
		latency_source__free(w->w[i].lat); /* releases its probe */
	}
	free(w->w);
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
		nw->eval = ow->eval;
		nw->logged = ow->logged;
		memcpy(nw->err, ow->err, sizeof(nw->err));
		kept++;
	}
	return kept;
}

void watch__open_triggers(struct watch *w)
{
	char err[256], d[32];
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct watched_rule *wr = &w->w[i];
		int fd;

		if (wr->trigger_fd >= 0 || wr->rule->signal != RULE_SIGNAL_PSI ||
		    wr->rule->psi_window != RULE_PSI_CUSTOM)
			continue;
		fd = signal_source__trigger_fd(wr->src, err, sizeof(err));
		if (fd >= 0) {
			wr->trigger_fd = fd;
			log_info("rule %s: watched by a kernel PSI trigger (window %s)",
				 wr->rule->name,
				 units_format_duration(wr->rule->psi_window_ns, d, sizeof(d)));
		} else if (fd != -EOPNOTSUPP) {
			log_info("rule %s: no kernel PSI trigger (%s); polled instead",
				 wr->rule->name, err);
		}
	}
}

/* log_change - say what a rule is doing when that changes: every fire,
 * every change of state, every new read error. */
static void log_change(struct watched_rule *wr, enum eval_verdict v, const char *old_err)
{
	const struct rule *r = wr->rule;

	if (v == EVAL_FIRE)
		log_info("rule %s fired: %s", r->name, wr->eval.why + strlen("fired: "));
	else if (v == EVAL_DRY_RUN)
		log_info("rule %s fired (dry run, not capturing): %s", r->name,
			 wr->eval.why + strlen("fired: "));
	else if (wr->err[0] && strcmp(wr->err, old_err))
		log_warn("rule %s: %s", r->name, wr->err);
	else if (wr->eval.state != wr->logged && wr->eval.state == RULE_STATE_LIMITED)
		log_warn("rule %s: not capturing: %s", r->name, wr->eval.why);
	else if (wr->eval.state != wr->logged && wr->eval.state != RULE_STATE_NO_DATA)
		log_debug("rule %s: %s: %s", r->name, rule_state__name(wr->eval.state),
			  wr->eval.why);
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
			snprintf(wr->eval.why, sizeof(wr->eval.why), "waiting: %s", wr->err);
		wr->err[0] = '\0';
		return;
	}
	if (!e)
		wr->err[0] = '\0';
	v = evaluator__observe(&wr->eval, wr->rule, &w->rules->global, &w->global_fires, now, e,
			       value);
	if (e)
		snprintf(wr->eval.why, sizeof(wr->eval.why), "no value: %s", wr->err);
	log_change(wr, v, old_err);
	if (v != EVAL_NONE && fn)
		fn(wr, v, now, ctx);
}

void watch__observe_all(struct watch *w, int64_t now, watch_fire_fn fn, void *ctx)
{
	size_t i;

	if (w->latency)
		latency_set__tick(w->latency, now);
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
