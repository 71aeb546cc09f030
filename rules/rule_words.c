// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rule_words.c - a rule as words (rule_words.h): the table of signal
 * names, read and written from it; the base units of signals; values,
 * thresholds and scopes as text. */
#include "rules/rule_words.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rules/units.h"

static const struct signal_name {
	const char *name;
	enum rule_signal signal;
	enum rule_psi_resource psi;
	bool full;
} signal_names[] = {
	{ "cpu", RULE_SIGNAL_CPU, 0, false },
	{ "cpu.quota", RULE_SIGNAL_CPU_QUOTA, 0, false },
	{ "cpu.throttled", RULE_SIGNAL_THROTTLED, 0, false },
	{ "cpu.throttled_time", RULE_SIGNAL_THROTTLED_TIME, 0, false },
	{ "cpu.throttled_rate", RULE_SIGNAL_THROTTLED_RATE, 0, false },
	{ "psi.cpu.some", RULE_SIGNAL_PSI, RULE_PSI_CPU, false },
	{ "psi.cpu.full", RULE_SIGNAL_PSI, RULE_PSI_CPU, true },
	{ "psi.memory.some", RULE_SIGNAL_PSI, RULE_PSI_MEMORY, false },
	{ "psi.memory.full", RULE_SIGNAL_PSI, RULE_PSI_MEMORY, true },
	{ "psi.io.some", RULE_SIGNAL_PSI, RULE_PSI_IO, false },
	{ "psi.io.full", RULE_SIGNAL_PSI, RULE_PSI_IO, true },
	{ "process.cpu", RULE_SIGNAL_PROC_CPU, 0, false },
	{ "process.rss", RULE_SIGNAL_PROC_RSS, 0, false },
	{ "process.threads", RULE_SIGNAL_PROC_THREADS, 0, false },
	{ "process.fds", RULE_SIGNAL_PROC_FDS, 0, false },
};

#define NSIGNALS (sizeof(signal_names) / sizeof(signal_names[0]))

/* The latency signals are KIND.STAT: which histogram, which figure of it. */
static const char *const kind_names[] = {
	[RULE_LAT_RUNQ] = "runqlat",
	[RULE_LAT_SYSCALL] = "syscall",
	[RULE_LAT_BIO] = "biolat",
	[RULE_LAT_FUNC] = "func",
};

static const char *const stat_names[] = {
	[RULE_LAT_P50] = "p50",	   [RULE_LAT_P90] = "p90", [RULE_LAT_P99] = "p99",
	[RULE_LAT_P999] = "p99.9", [RULE_LAT_MAX] = "max", [RULE_LAT_COUNT] = "count",
	[RULE_LAT_RATE] = "rate",
};

#define NKINDS (int)(sizeof(kind_names) / sizeof(kind_names[0]))
#define NSTATS (int)(sizeof(stat_names) / sizeof(stat_names[0]))
#define STAT_LIST "p50, p90, p99, p99.9, max, count or rate"

/* --- signal names ---------------------------------------------------------- */

/* find - the index of the @n bytes at @s in @names, or -1. */
static int find(const char *const *names, int nnames, const char *s, size_t n)
{
	int i;

	for (i = 0; i < nnames; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], s, n))
			return i;
	return -1;
}

/* parse_latency - @v as KIND.STAT ("runqlat.p99"). Returns 0; -ENOENT
 * when @v is no latency signal at all; -EINVAL when KIND is one but STAT
 * is not, with "expected ..." in @msg. */
static int parse_latency(const char *v, struct rule *r, char *msg, size_t len)
{
	const char *dot = strchr(v, '.');
	size_t n = dot ? (size_t)(dot - v) : strlen(v);
	int kind = find(kind_names, NKINDS, v, n), stat;

	if (kind < 0)
		return -ENOENT;
	stat = dot ? find(stat_names, NSTATS, dot + 1, strlen(dot + 1)) : -1;
	if (stat < 0) {
		snprintf(msg, len, "expected %s.STAT with STAT one of " STAT_LIST,
			 kind_names[kind]);
		return -EINVAL;
	}
	r->signal = RULE_SIGNAL_LATENCY;
	r->lat_kind = (enum rule_latency_kind)kind;
	r->lat_stat = (enum rule_latency_stat)stat;
	return 0;
}

int rule_signal__parse(const char *name, struct rule *r, char *msg, size_t len)
{
	size_t i;
	int err;

	for (i = 0; i < NSIGNALS; i++) {
		if (!strcmp(name, signal_names[i].name)) {
			r->signal = signal_names[i].signal;
			r->psi_resource = signal_names[i].psi;
			r->psi_full = signal_names[i].full;
			return 0;
		}
	}
	err = parse_latency(name, r, msg, len);
	if (err == -ENOENT)
		snprintf(msg, len, "expected one of " RULE_SIGNAL_LIST);
	return err ? -EINVAL : 0;
}

/* latency_name - "syscall.p99.9" for @r. Returns @buf. */
static const char *latency_name(const struct rule *r, char *buf, size_t len)
{
	if ((int)r->lat_kind < 0 || r->lat_kind >= NKINDS || (int)r->lat_stat < 0 ||
	    r->lat_stat >= NSTATS)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s.%s", kind_names[r->lat_kind], stat_names[r->lat_stat]);
	return buf;
}

const char *rule__signal_name(const struct rule *r, char *buf, size_t len)
{
	size_t i;

	if (r->signal == RULE_SIGNAL_LATENCY)
		return latency_name(r, buf, len);
	for (i = 0; i < NSIGNALS; i++) {
		const struct signal_name *n = &signal_names[i];

		if (n->signal == r->signal &&
		    (r->signal != RULE_SIGNAL_PSI ||
		     (n->psi == r->psi_resource && n->full == r->psi_full))) {
			snprintf(buf, len, "%s", n->name);
			return buf;
		}
	}
	snprintf(buf, len, "unknown");
	return buf;
}

/* --- units ----------------------------------------------------------------- */

enum rule_unit rule_signal__unit(enum rule_signal s)
{
	switch (s) {
	case RULE_SIGNAL_PROC_RSS:
		return RULE_UNIT_BYTES;
	case RULE_SIGNAL_PROC_THREADS:
	case RULE_SIGNAL_PROC_FDS:
		return RULE_UNIT_COUNT;
	case RULE_SIGNAL_THROTTLED_RATE:
		return RULE_UNIT_MILLI_PER_SEC;
	case RULE_SIGNAL_LATENCY:
		return RULE_UNIT_NSEC;
	default:
		return RULE_UNIT_CENTI_PERCENT;
	}
}

enum rule_unit rule__unit(const struct rule *r)
{
	if (r->signal != RULE_SIGNAL_LATENCY)
		return rule_signal__unit(r->signal);
	switch (r->lat_stat) {
	case RULE_LAT_COUNT:
		return RULE_UNIT_COUNT;
	case RULE_LAT_RATE:
		return RULE_UNIT_MILLI_PER_SEC;
	default:
		return RULE_UNIT_NSEC;
	}
}

double rule_unit__to_double(enum rule_unit u, int64_t v)
{
	switch (u) {
	case RULE_UNIT_CENTI_PERCENT:
		return (double)v / 100.0;
	case RULE_UNIT_MILLI_PER_SEC:
		return (double)v / 1000.0;
	default:
		return (double)v;
	}
}

/* --- values ---------------------------------------------------------------- */

/* fraction - @mag / @scale with up to @digits decimals, trailing zeros
 * dropped: 8050 / 100 -> "80.5". */
static void fraction(char *buf, size_t len, const char *sign, uint64_t mag, uint64_t scale,
		     int digits, const char *suffix)
{
	uint64_t whole = mag / scale, frac = mag % scale;

	if (!frac) {
		snprintf(buf, len, "%s%llu%s", sign, (unsigned long long)whole, suffix);
		return;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, len, "%s%llu.%0*llu%s", sign, (unsigned long long)whole, digits,
		 (unsigned long long)frac, suffix);
}

/* short_duration - @ns exactly when units_format_duration spells it in
 * at most 4 significant digits ("5ms", "2.5ms"), else rounded to 3
 * ("2.08ms", "197ms"). */
static const char *short_duration(uint64_t ns, char *buf, size_t len)
{
	size_t digits = 0;
	const char *p;

	units_format_duration(ns, buf, (int)len);
	for (p = buf; *p; p++)
		digits += *p >= '0' && *p <= '9';
	if (digits <= 4)
		return buf;
	return units_format_duration_short(ns, buf, len);
}

const char *rule__format_value(const struct rule *r, int64_t v, char *buf, size_t len)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	const char *sign = v < 0 ? "-" : "";
	char size[32];

	switch (rule__unit(r)) {
	case RULE_UNIT_CENTI_PERCENT:
		fraction(buf, len, sign, mag, 100, 2, "%");
		break;
	case RULE_UNIT_BYTES:
		snprintf(buf, len, "%s%s", sign, units_format_size(mag, size, sizeof(size)));
		break;
	case RULE_UNIT_MILLI_PER_SEC:
		fraction(buf, len, sign, mag, 1000, 3, "/s");
		break;
	case RULE_UNIT_NSEC: /* 0 as the thresholds take it, not "0ns" */
		if (!mag)
			snprintf(buf, len, "0");
		else
			snprintf(buf, len, "%s%s", sign, short_duration(mag, size, sizeof(size)));
		break;
	default:
		snprintf(buf, len, "%s%llu", sign, (unsigned long long)mag);
	}
	return buf;
}

const char *rule__format_threshold(const struct rule *r, char *buf, size_t len)
{
	char v[48];

	snprintf(buf, len, "%s %s", r->above ? "above" : "below",
		 rule__format_value(r, r->threshold, v, sizeof(v)));
	return buf;
}

/* --- scopes ---------------------------------------------------------------- */

const char *rule_scope__format(const struct rule_scope *s, char *buf, size_t len)
{
	switch (s->kind) {
	case RULE_SCOPE_CGROUP:
		snprintf(buf, len, "cgroup %s", s->cgroup ? s->cgroup : "");
		break;
	case RULE_SCOPE_PID:
		snprintf(buf, len, "pid %d", (int)s->pid);
		break;
	case RULE_SCOPE_PROCESS:
		snprintf(buf, len, "process %s", s->process ? s->process : "");
		break;
	case RULE_SCOPE_RUN:
		snprintf(buf, len, "the run");
		break;
	default:
		snprintf(buf, len, "system");
	}
	return buf;
}

const char *rule_scope__value(const struct rule_scope *s, char *buf, size_t len)
{
	switch (s->kind) {
	case RULE_SCOPE_CGROUP:
		snprintf(buf, len, "cgroup:%s", s->cgroup ? s->cgroup : "");
		break;
	case RULE_SCOPE_PID:
		snprintf(buf, len, "pid:%d", (int)s->pid);
		break;
	case RULE_SCOPE_PROCESS:
		snprintf(buf, len, "process:%s", s->process ? s->process : "");
		break;
	case RULE_SCOPE_RUN:
		snprintf(buf, len, "run");
		break;
	default:
		snprintf(buf, len, "system");
	}
	return buf;
}

const char *rule_record__name(enum rule_record r)
{
	switch (r) {
	case RULE_RECORD_OFFCPU:
		return "offcpu";
	case RULE_RECORD_BOTH:
		return "cpu+offcpu";
	default:
		return "cpu";
	}
}

int rule_record__parse(const char *s, enum rule_record *out)
{
	static const struct {
		const char *name;
		enum rule_record r;
	} words[] = {
		{ "cpu", RULE_RECORD_CPU },	     { "offcpu", RULE_RECORD_OFFCPU },
		{ "off-cpu", RULE_RECORD_OFFCPU },   { "cpu+offcpu", RULE_RECORD_BOTH },
		{ "cpu+off-cpu", RULE_RECORD_BOTH },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(s, words[i].name)) {
			*out = words[i].r;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const unwind_names[] = {
	[RULE_UNWIND_AUTO] = "auto",
	[RULE_UNWIND_DWARF] = "dwarf",
	[RULE_UNWIND_FP] = "fp",
	[RULE_UNWIND_KERNEL] = "kernel",
};

const char *rule_unwind__name(enum rule_unwind u)
{
	return (size_t)u < sizeof(unwind_names) / sizeof(unwind_names[0]) ? unwind_names[u]
									  : "auto";
}

int rule_unwind__parse(const char *s, enum rule_unwind *out)
{
	size_t i;

	for (i = 0; i < sizeof(unwind_names) / sizeof(unwind_names[0]); i++) {
		if (!strcmp(s, unwind_names[i])) {
			*out = (enum rule_unwind)i;
			return 0;
		}
	}
	return -EINVAL;
}
