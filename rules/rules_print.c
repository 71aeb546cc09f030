// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_print.c - the rules as text again (rules_print.h): the
 * normalised file `trapd check` prints, which reads back to equal rules;
 * and when two rules, [global] or [upload] sections are equal. The
 * words it prints values, signals and scopes in are rule_words.c's. */
#include "rules/rules_print.h"

#include <errno.h>
#include <string.h>

#include "rules/rule_words.h"
#include "rules/rules_keys.h"
#include "rules/rules_upload.h"
#include "rules/units.h"

/* level_text - a threshold or clear level as the file takes it back:
 * durations exactly. */
static const char *level_text(const struct rule *r, int64_t v, char *buf, size_t len)
{
	if (rule__unit(r) != RULE_UNIT_NSEC || v <= 0)
		return rule__format_value(r, v, buf, len);
	return units_format_duration((uint64_t)v, buf, (int)len);
}

/* print_latency - the keys of latency signals; nothing for a key the
 * rule's signal does not take, nor for window when it is the poll
 * interval (0). */
static void print_latency(const struct rule *r, enum rule_key k, FILE *out)
{
	char buf[32];

	if (r->signal != RULE_SIGNAL_LATENCY)
		return;
	switch (k) {
	case RK_SYSCALLS:
		if (r->lat_syscalls)
			rules_value__print(out, "syscalls", r->lat_syscalls);
		break;
	case RK_DEVICE:
		if (r->lat_device)
			rules_value__print(out, "device", r->lat_device);
		break;
	case RK_FUNCTION:
		if (r->lat_function)
			rules_value__print(out, "function", r->lat_function);
		break;
	case RK_WINDOW:
		if (r->lat_window_ns)
			fprintf(out, "window = %s\n",
				units_format_duration(r->lat_window_ns, buf, sizeof(buf)));
		break;
	case RK_MIN_COUNT:
		fprintf(out, "min_count = %u\n", r->lat_min_count);
		break;
	case RK_SLOW_CALLS:
		if (!rules__splits_calls(r))
			break;
		if (!r->split_calls)
			fprintf(out, "slow_calls = off\n");
		else if (r->slow_ns)
			fprintf(out, "slow_calls = %s\n",
				units_format_duration(r->slow_ns, buf, sizeof(buf)));
		else
			fprintf(out, "slow_calls = p%.15g\n", r->slow_pct);
		break;
	default:
		break;
	}
}

/* print_pin - the pins of a process name, each when set; after the
 * last, a comment when a process is found by its name alone. */
static void print_pin(const struct rule *r, enum rule_key k, FILE *out)
{
	const struct rule_pin *p = &r->pin;

	if (k == RK_PROCESS_USER && p->user)
		rules_value__print(out, "process_user", p->user);
	if (k == RK_PROCESS_EXE && p->exe)
		rules_value__print(out, "process_exe", p->exe);
	if (k == RK_PROCESS_CGROUP && p->cgroup)
		rules_value__print(out, "process_cgroup", p->cgroup);
	if (k == RK_PROCESS_CGROUP && rule__pinned_by_name_only(r))
		fputs("# warning: a process found by its name alone: any local user can name a "
		      "process so;\n# pin it with process_user, process_exe or process_cgroup\n",
		      out);
}

/* print_special - the keys whose spelling depends on the signal; nothing
 * for a key the rule's signal does not take. */
static void print_special(const struct rule *r, enum rule_key k, FILE *out)
{
	static const char *const avgs[] = { "avg10", "avg60", "avg300" };
	char buf[4200];

	switch (k) {
	case RK_SIGNAL:
		fprintf(out, "signal = %s\n", rule__signal_name(r, buf, sizeof(buf)));
		break;
	case RK_CGROUP:
		if (r->scope.kind == RULE_SCOPE_CGROUP)
			rules_value__print(out, "cgroup", r->scope.cgroup);
		else if (r->scope.kind == RULE_SCOPE_RUN)
			fputs("# no cgroup, pid or process: it watches the run of trapd ci\n", out);
		break;
	case RK_PID:
		if (r->scope.kind == RULE_SCOPE_PID)
			fprintf(out, "pid = %d\n", (int)r->scope.pid);
		break;
	case RK_PROCESS:
		if (r->scope.kind == RULE_SCOPE_PROCESS)
			rules_value__print(out, "process", r->scope.process);
		break;
	case RK_SYSCALLS:
	case RK_DEVICE:
	case RK_FUNCTION:
	case RK_MIN_COUNT:
	case RK_SLOW_CALLS:
		print_latency(r, k, out);
		break;
	case RK_PROCESS_USER:
	case RK_PROCESS_EXE:
	case RK_PROCESS_CGROUP:
		print_pin(r, k, out);
		break;
	case RK_WINDOW:
		if (r->signal == RULE_SIGNAL_LATENCY)
			print_latency(r, k, out);
		if (r->signal != RULE_SIGNAL_PSI)
			break;
		fprintf(out, "window = %s\n",
			r->psi_window == RULE_PSI_CUSTOM
				? units_format_duration(r->psi_window_ns, buf, sizeof(buf))
				: avgs[r->psi_window]);
		break;
	case RK_ABOVE:
	case RK_BELOW:
		if (r->above == (k == RK_ABOVE))
			fprintf(out, "%s = %s\n", rules_rule_keys[k].name,
				level_text(r, r->threshold, buf, sizeof(buf)));
		break;
	case RK_CLEAR:
		fprintf(out, "clear = %s\n", level_text(r, r->clear, buf, sizeof(buf)));
		break;
	case RK_SAMPLE:
		rules_value__print(out, "sample", rule_scope__value(&r->sample, buf, sizeof(buf)));
		break;
	default:
		break;
	}
}

static void print_rule(const struct rule *r, FILE *out)
{
	int k;

	fprintf(out, "\n[rule %s]\n", r->name);
	for (k = 0; k < RK_NR; k++) {
		if (rules_rule_keys[k].type == KEY_SPECIAL)
			print_special(r, k, out);
		else
			rules_key__print(&rules_rule_keys[k], r, out);
	}
}

int rules__print(const struct rules *r, FILE *out)
{
	size_t i;
	int k;

	fputs("[global]\n", out);
	for (k = 0; k < GK_NR; k++)
		rules_key__print(&rules_global_keys[k], &r->global, out);
	fputs("\n[labels]\n", out);
	for (i = 0; i < r->nlabels; i++)
		rules_value__print(out, r->labels[i].key, r->labels[i].value);
	rules_upload__print(&r->upload, out);
	for (i = 0; i < r->nrules; i++)
		print_rule(&r->rules[i], out);
	return ferror(out) ? -EIO : 0;
}

/* latency_equal - the fields of latency signals (all zero for others). */
static bool latency_equal(const struct rule *a, const struct rule *b)
{
	return a->lat_kind == b->lat_kind && a->lat_stat == b->lat_stat &&
	       a->lat_window_ns == b->lat_window_ns && a->lat_min_count == b->lat_min_count &&
	       rules_value__equal(a->lat_syscalls, b->lat_syscalls) &&
	       rules_value__equal(a->lat_device, b->lat_device) &&
	       rules_value__equal(a->lat_function, b->lat_function) &&
	       a->split_calls == b->split_calls && a->slow_ns == b->slow_ns &&
	       a->slow_pct == b->slow_pct;
}

bool rule__equal(const struct rule *a, const struct rule *b)
{
	int k;

	if (strcmp(a->name, b->name) || a->signal != b->signal || !latency_equal(a, b) ||
	    a->psi_resource != b->psi_resource || a->psi_full != b->psi_full ||
	    a->psi_window != b->psi_window || a->psi_window_ns != b->psi_window_ns ||
	    !rule_scope__equal(&a->scope, &b->scope) || a->above != b->above ||
	    a->threshold != b->threshold || a->clear != b->clear ||
	    !rule_scope__equal(&a->sample, &b->sample) ||
	    !rules_value__equal(a->pin.user, b->pin.user) || a->pin.uid != b->pin.uid ||
	    !rules_value__equal(a->pin.exe, b->pin.exe) ||
	    !rules_value__equal(a->pin.cgroup, b->pin.cgroup))
		return false;
	for (k = 0; k < RK_NR; k++)
		if (!rules_key__equal(&rules_rule_keys[k], a, b))
			return false;
	return true;
}

bool rules_global__equal(const struct rules_global *a, const struct rules_global *b)
{
	int k;

	for (k = 0; k < GK_NR; k++)
		if (!rules_key__equal(&rules_global_keys[k], a, b))
			return false;
	return true;
}

bool rules_upload__equal(const struct rules_upload *a, const struct rules_upload *b)
{
	int k;

	for (k = 0; k < UK_NR; k++)
		if (!rules_key__equal(&rules_upload_keys[k], a, b))
			return false;
	return true;
}
