// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_rule.c - one [rule NAME] section, checked as a whole once it has
 * been read: its signal decides which scope keys it takes, the unit of
 * its threshold and what `sample = rule` means. The latency signals' own
 * keys are in rules_latency.c, the pins of a process name in
 * rules_pin.c; the names of signals and their units in rule_words.c. */
#include "rules/rules_rule.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule_words.h"
#include "rules/rules_keys.h"
#include "rules/rules_latency.h"
#include "rules/rules_pin.h"
#include "rules/units.h"

static bool is_cgroup_signal(enum rule_signal s)
{
	return s <= RULE_SIGNAL_THROTTLED_RATE;
}

static bool is_process_signal(enum rule_signal s)
{
	return s >= RULE_SIGNAL_PROC_CPU && s <= RULE_SIGNAL_PROC_FDS;
}

/* threshold_max - the largest threshold @r takes, in its base unit. */
static int64_t threshold_max(const struct rule *r)
{
	if (r->signal == RULE_SIGNAL_LATENCY) {
		switch (rule__unit(r)) {
		case RULE_UNIT_COUNT:
			return 1000000000000; /* events in a window of at most 10m */
		case RULE_UNIT_MILLI_PER_SEC:
			return 1000000000000; /* a billion per second */
		default:
			return (int64_t)NSEC_PER_HOUR;
		}
	}
	switch (r->signal) {
	case RULE_SIGNAL_CPU:
	case RULE_SIGNAL_CPU_QUOTA:
	case RULE_SIGNAL_PROC_CPU:
		return 100000000; /* 1000000%: ten thousand CPUs busy */
	case RULE_SIGNAL_PROC_RSS:
		return 1ll << 50;
	case RULE_SIGNAL_PROC_THREADS:
	case RULE_SIGNAL_PROC_FDS:
		return INT32_MAX;
	case RULE_SIGNAL_THROTTLED_RATE:
		return 1000000000; /* a million per second */
	default:
		return 10000; /* shares: 100% */
	}
}

/* check_plain - the table-driven keys, defaults included. */
static void check_plain(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
			struct rules_rule_meta *meta)
{
	char msg[MSG_MAX];
	int k, err;

	for (k = 0; k < RK_NR; k++) {
		const struct rules_key *key = &rules_rule_keys[k];
		const char *v = raw->val[k] ? raw->val[k] : key->dflt;

		if (key->type == KEY_SPECIAL || !v)
			continue;
		err = rules_key__parse(key, r, v, msg, sizeof(msg));
		if (err == -EINVAL)
			rules_parser__bad(p, raw, k, msg);
		else if (err)
			rules_parser__nomem(p);
		if (k == RK_DURATION) {
			meta->duration_line = raw->vline[k];
			meta->duration_ok = !err;
		}
		if (k == RK_DRY_RUN)
			meta->dry_run_set = !err;
		if (k == RK_CAPTURE)
			meta->record_set = !err;
	}
}

/* check_signal - signal = NAME. Returns whether @r has a signal. */
static bool check_signal(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r)
{
	const char *v = raw->val[RK_SIGNAL];
	char msg[MSG_MAX];

	if (!v) {
		rules_parser__error(p, raw->line, raw->section, "signal",
				    "missing; a rule needs signal = one of " RULE_SIGNAL_LIST);
		return false;
	}
	if (!rule_signal__parse(v, r, msg, sizeof(msg)))
		return true;
	rules_parser__bad(p, raw, RK_SIGNAL, msg);
	return false;
}

/* scope_values - the values of cgroup, pid and process on their own.
 * Returns false if one is bad (reported). */
static bool scope_values(struct rules_parser *p, const struct rules_raw_rule *raw,
			 struct rule_scope *cg, struct rule_scope *pid, struct rule_scope *proc)
{
	const char *v;
	uint64_t n;
	bool ok = true;
	char msg[96];

	if ((v = raw->val[RK_CGROUP]) && !rules_value__cgroup(v)) {
		rules_parser__bad(p, raw, RK_CGROUP,
				  "expected a cgroup path like system.slice/nginx.service or "
				  "/sys/fs/cgroup/cpu/x, without '.' or '..' components");
		ok = false;
	} else if (v) {
		cg->kind = RULE_SCOPE_CGROUP;
		cg->cgroup = (char *)v;
	}
	if ((v = raw->val[RK_PID]) && (rules_value__count(v, PID_MAX, &n) || n == 0)) {
		snprintf(msg, sizeof(msg), "expected a process id from 1 to %d", PID_MAX);
		rules_parser__bad(p, raw, RK_PID, msg);
		ok = false;
	} else if (v) {
		pid->kind = RULE_SCOPE_PID;
		pid->pid = (pid_t)n;
	}
	if ((v = raw->val[RK_PROCESS]) && (!*v || strlen(v) > COMM_MAX)) {
		snprintf(msg, sizeof(msg), "expected a process name (its comm) of 1 to %d bytes",
			 COMM_MAX);
		rules_parser__bad(p, raw, RK_PROCESS, msg);
		ok = false;
	} else if (v) {
		proc->kind = RULE_SCOPE_PROCESS;
		proc->process = (char *)v;
	}
	return ok;
}

#define WATCH_PROCESS "only process.* and latency signals watch a process"

/* process_scope - pid or process, exactly one, for a process signal. */
static const struct rule_scope *process_scope(struct rules_parser *p,
					      const struct rules_raw_rule *raw,
					      const struct rule *r, const struct rule_scope *pid,
					      const struct rule_scope *proc)
{
	char sig[32];

	if (raw->val[RK_PID] && raw->val[RK_PROCESS]) {
		enum rule_key later =
			raw->vline[RK_PID] > raw->vline[RK_PROCESS] ? RK_PID : RK_PROCESS;
		enum rule_key first = later == RK_PID ? RK_PROCESS : RK_PID;

		rules_parser__error(p, raw->vline[later], raw->section, rules_rule_keys[later].name,
				    "%s is set too (line %d); a process signal watches pid = N or "
				    "process = NAME, not both",
				    rules_rule_keys[first].name, raw->vline[first]);
		return NULL;
	}
	if (!raw->val[RK_PID] && !raw->val[RK_PROCESS]) {
		rules_parser__error(p, raw->line, raw->section, "pid",
				    "missing; signal %s needs pid = N or process = NAME",
				    rule__signal_name(r, sig, sizeof(sig)));
		return NULL;
	}
	return raw->val[RK_PID] ? pid : proc;
}

/* check_scope - where the signal is read: cgroup for cpu.* (required)
 * and psi.* (optional), pid or process for process.*, at most one of the
 * three for latency signals. In a file for trapd ci, a cpu.*, psi.* or
 * latency rule without one watches the run. */
static void check_scope(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
			bool have_signal)
{
	static const struct rule_scope run = { .kind = RULE_SCOPE_RUN };
	struct rule_scope cg = { 0 }, pid = { 0 }, proc = { 0 }, sys = { 0 };
	const struct rule_scope *use = &sys;
	char sig[32];

	if (!scope_values(p, raw, &cg, &pid, &proc) || !have_signal)
		return;
	if (is_process_signal(r->signal)) {
		if (raw->val[RK_CGROUP])
			rules_parser__not_allowed(
				p, raw, r, RK_CGROUP,
				"a process signal watches pid = N or process = NAME");
		use = process_scope(p, raw, r, &pid, &proc);
	} else if (r->signal == RULE_SIGNAL_LATENCY) {
		use = rules_latency__scope(p, raw, r, &cg, &pid, &proc);
	} else {
		if (raw->val[RK_PID])
			rules_parser__not_allowed(p, raw, r, RK_PID, WATCH_PROCESS);
		if (raw->val[RK_PROCESS])
			rules_parser__not_allowed(p, raw, r, RK_PROCESS, WATCH_PROCESS);
		if (raw->val[RK_CGROUP])
			use = &cg;
		else if (p->r->use == RULES_FOR_CI)
			use = &run;
		else if (is_cgroup_signal(r->signal))
			rules_parser__error(
				p, raw->line, raw->section, "cgroup",
				"missing; signal %s reads a cgroup: cgroup = PATH, like "
				"system.slice/nginx.service",
				rule__signal_name(r, sig, sizeof(sig)));
	}
	if (use && rule_scope__copy(&r->scope, use))
		rules_parser__nomem(p);
}

/* check_window - avg10 | avg60 | avg300 | DURATION for psi.*, a
 * DURATION for latency signals. */
static void check_window(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r)
{
	static const char *const avgs[] = { "avg10", "avg60", "avg300" };
	const char *v = raw->val[RK_WINDOW];
	uint64_t ns;
	int i;

	r->psi_window = RULE_PSI_AVG10;
	if (r->signal == RULE_SIGNAL_LATENCY) {
		rules_latency__check_window(p, raw, r);
		return;
	}
	if (!v)
		return;
	if (r->signal != RULE_SIGNAL_PSI) {
		rules_parser__not_allowed(p, raw, r, RK_WINDOW,
					  "only psi.* and latency signals have a window");
		return;
	}
	for (i = 0; i < 3; i++) {
		if (!strcmp(v, avgs[i])) {
			r->psi_window = (enum rule_psi_window)i;
			return;
		}
	}
	if (units_parse_duration(v, &ns) || ns < 500 * NSEC_PER_MSEC || ns > 600 * NSEC_PER_SEC) {
		rules_parser__bad(p, raw, RK_WINDOW,
				  "expected avg10, avg60, avg300 or a duration from 500ms to 10m");
		return;
	}
	r->psi_window = RULE_PSI_CUSTOM;
	r->psi_window_ns = ns;
}

/* parse_level - a threshold or clear level in @r's unit. Returns false
 * after reporting a bad one. */
static bool parse_level(struct rules_parser *p, const struct rules_raw_rule *raw,
			const struct rule *r, enum rule_key k, int64_t *out)
{
	static const char *const what[] = {
		[RULE_UNIT_CENTI_PERCENT] = "a percentage",
		[RULE_UNIT_BYTES] = "a size",
		[RULE_UNIT_COUNT] = "a whole number",
		[RULE_UNIT_MILLI_PER_SEC] = "a rate",
		[RULE_UNIT_NSEC] = "a duration",
	};
	static const char *const like[] = {
		[RULE_UNIT_CENTI_PERCENT] = "like 80% or 12.5%",
		[RULE_UNIT_BYTES] = "like 512MiB or 2GiB",
		[RULE_UNIT_COUNT] = "like 1000",
		[RULE_UNIT_MILLI_PER_SEC] = "like 5/s or 0.5/s",
		[RULE_UNIT_NSEC] = "like 5ms or 250us",
	};
	enum rule_unit u = rule__unit(r);
	const char *v = raw->val[k];
	char msg[160], lo[32], hi[32];
	uint64_t n = 0;
	int err;

	if (u == RULE_UNIT_CENTI_PERCENT)
		err = units_parse_percent(v, &n);
	else if (u == RULE_UNIT_BYTES)
		err = units_parse_size(v, &n);
	else if (u == RULE_UNIT_COUNT)
		err = rules_value__count(v, UINT64_MAX, &n);
	else if (u == RULE_UNIT_NSEC)
		err = rules_value__duration0(v, &n);
	else
		err = units_parse_rate(v, &n);
	if (!err && n > (uint64_t)threshold_max(r))
		err = -ERANGE;
	if (err == -ERANGE)
		snprintf(msg, sizeof(msg), "expected %s from %s to %s", what[u],
			 rule__format_value(r, 0, lo, sizeof(lo)),
			 rule__format_value(r, threshold_max(r), hi, sizeof(hi)));
	else if (err)
		snprintf(msg, sizeof(msg), "expected %s %s", what[u], like[u]);
	if (err) {
		rules_parser__bad(p, raw, k, msg);
		return false;
	}
	*out = (int64_t)n;
	return true;
}

/* check_clear - clear = X: on the quiet side of the threshold. */
static void check_clear(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
			bool threshold_ok)
{
	char c[32], t[32];

	r->clear = r->threshold;
	if (!raw->val[RK_CLEAR] || !parse_level(p, raw, r, RK_CLEAR, &r->clear) || !threshold_ok)
		return;
	if (r->above && r->clear > r->threshold)
		rules_parser__error(p, raw->vline[RK_CLEAR], raw->section, "clear",
				    "%s is above the threshold; expected at most %s, the level an "
				    "above rule falls back to before it fires again",
				    rule__format_value(r, r->clear, c, sizeof(c)),
				    rule__format_value(r, r->threshold, t, sizeof(t)));
	else if (!r->above && r->clear < r->threshold)
		rules_parser__error(p, raw->vline[RK_CLEAR], raw->section, "clear",
				    "%s is below the threshold; expected at least %s, the level a "
				    "below rule climbs back to before it fires again",
				    rule__format_value(r, r->clear, c, sizeof(c)),
				    rule__format_value(r, r->threshold, t, sizeof(t)));
}

/* check_threshold - exactly one of above = X and below = X, then clear. */
static void check_threshold(struct rules_parser *p, const struct rules_raw_rule *raw,
			    struct rule *r)
{
	const char *above = raw->val[RK_ABOVE], *below = raw->val[RK_BELOW];
	enum rule_key k = above ? RK_ABOVE : RK_BELOW;
	bool ok;

	if (above && below) {
		enum rule_key later =
			raw->vline[RK_ABOVE] > raw->vline[RK_BELOW] ? RK_ABOVE : RK_BELOW;

		rules_parser__error(p, raw->vline[later], raw->section, rules_rule_keys[later].name,
				    "%s is set too (line %d); a rule needs one of above = X or "
				    "below = X",
				    later == RK_ABOVE ? "below" : "above",
				    raw->vline[later == RK_ABOVE ? RK_BELOW : RK_ABOVE]);
		return;
	}
	if (!above && !below) {
		rules_parser__error(p, raw->line, raw->section, "above",
				    "missing; a rule needs above = X or below = X");
		return;
	}
	r->above = above != NULL;
	ok = parse_level(p, raw, r, k, &r->threshold);
	if (ok && !r->above && r->threshold == 0) {
		rules_parser__error(p, raw->vline[k], raw->section, "below",
				    "0 never fires, as no value is below 0; expected more than 0");
		ok = false;
	}
	check_clear(p, raw, r, ok);
}

/* check_sample - rule (the signal's scope) | system | cgroup:PATH |
 * pid:N | process:NAME | run (trapd ci). */
static void check_sample(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
			 bool have_signal)
{
	const char *v = raw->val[RK_SAMPLE];
	char msg[MSG_MAX];
	int err = 0;

	if (v && !strcmp(v, "run")) {
		if (p->r->use != RULES_FOR_CI) {
			rules_parser__bad(p, raw, RK_SAMPLE,
					  "run is the command trapd ci runs: only in a rules file "
					  "for trapd ci -c");
			return;
		}
		rule_scope__clear(&r->sample);
		r->sample.kind = RULE_SCOPE_RUN;
	} else if (v && strcmp(v, "rule")) {
		err = rules_value__scope(v, &r->sample, msg, sizeof(msg));
		if (err == -EINVAL) {
			/* the scope parser's own words, unless it did not recognise the
			 * kind at all: then name "rule" too */
			if (!strncmp(msg, "expected system", 15))
				snprintf(msg, sizeof(msg),
					 "expected rule, system, cgroup:PATH, "
					 "pid:N or process:NAME%s",
					 p->r->use == RULES_FOR_CI ? " or run" : "");
			rules_parser__bad(p, raw, RK_SAMPLE, msg);
			return;
		}
	} else if (have_signal) {
		err = rule_scope__copy(&r->sample, &r->scope);
	}
	if (err)
		rules_parser__nomem(p);
}

void rules_rule__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
		       struct rules_rule_meta *meta)
{
	bool have_signal;

	memset(meta, 0, sizeof(*meta));
	meta->line = raw->line;
	r->line = raw->line;
	check_plain(p, raw, r, meta);
	have_signal = check_signal(p, raw, r);
	check_scope(p, raw, r, have_signal);
	if (have_signal) {
		check_window(p, raw, r);
		rules_latency__check(p, raw, r);
		check_threshold(p, raw, r);
		meta->slow_set = rules_latency__check_slow_calls(p, raw, r);
	}
	check_sample(p, raw, r, have_signal);
	if (have_signal)
		rules_pin__check(p, raw, r);
}

void rules_rule__free(struct rule *r)
{
	rule_scope__clear(&r->scope);
	rule_scope__clear(&r->sample);
	free(r->lat_syscalls);
	free(r->lat_device);
	free(r->lat_function);
	r->lat_syscalls = r->lat_device = r->lat_function = NULL;
	free(r->pin.user);
	free(r->pin.exe);
	free(r->pin.cgroup);
	memset(&r->pin, 0, sizeof(r->pin));
}
