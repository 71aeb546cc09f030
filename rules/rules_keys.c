// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_keys.c - the key tables of [global] and [rule NAME] (that of
 * [upload] is in rules_upload.c), and parsing, printing and comparing one
 * value of each type (redis config.c style: a row per key, code per
 * type). */
#include "rules/rules_keys.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "rules/did_you_mean.h"
#include "rules/evaluator.h" /* EVAL_FIRES_MAX */
#include "rules/rule_words.h"
#include "rules/units.h"

#define G(f) offsetof(struct rules_global, f)
#define R(f) offsetof(struct rule, f)
#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC
#define MIN NSEC_PER_MIN
#define HOUR NSEC_PER_HOUR
#define DAY (24 * HOUR)
#define FREQ_MAX 100000
#define SUN_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

const struct rules_key rules_global_keys[GK_NR] = {
	[GK_POLL_INTERVAL] = { "poll_interval", KEY_DURATION, G(poll_interval_ns), 100 * MS, HOUR,
			       "1s" },
	[GK_SPOOL_DIR] = { "spool_dir", KEY_PATH, G(spool_dir), 0, PATH_MAX_BYTES,
			   "/var/lib/trapd/spool" },
	[GK_SPOOL_MAX_SIZE] = { "spool_max_size", KEY_SIZE, G(spool_max_bytes), 1 << 20, 1ull << 50,
				"1GiB" },
	[GK_SPOOL_MAX_FILES] = { "spool_max_files", KEY_COUNT, G(spool_max_files), 1, 1000000,
				 "1000" },
	[GK_MAX_PER_HOUR] = { "max_captures_per_hour", KEY_COUNT, G(max_per_hour), 0,
			      EVAL_FIRES_MAX, "12" },
	[GK_MAX_PER_DAY] = { "max_captures_per_day", KEY_COUNT, G(max_per_day), 0, EVAL_FIRES_MAX,
			     "100" },
	[GK_MAX_WINDOW] = { "max_window", KEY_DURATION, G(max_window_ns), 100 * MS, HOUR, "2m" },
	[GK_HISTORY] = { "history", KEY_DURATION, G(history_ns), SEC, DAY, "60s" },
	[GK_DRY_RUN] = { "dry_run", KEY_BOOL, G(dry_run), 0, 0, "false" },
	[GK_CONTROL_SOCKET] = { "control_socket", KEY_PATH, G(control_socket), 0, SUN_PATH_MAX,
				"/run/trapd/control.sock" },
	[GK_CONTROL_GROUP] = { "control_group", KEY_GROUP, G(control_group), 0, 0, "none" },
	[GK_MANUAL_DURATION] = { "manual_duration", KEY_DURATION, G(manual_window_ns), 100 * MS,
				 HOUR, "10s" },
	[GK_MANUAL_FREQUENCY] = { "manual_frequency", KEY_FREQ, G(manual_freq_hz), 1, FREQ_MAX,
				  "99Hz" },
	[GK_MANUAL_SAMPLE] = { "manual_sample", KEY_SCOPE, G(manual_sample), 0, 0, "system" },
	[GK_MANUAL_UNWIND] = { "manual_unwind", KEY_UNWIND, G(manual_unwind), 0, 0, "auto" },
	[GK_MANUAL_STACK_COPY] = { "manual_stack_copy", KEY_SIZE, G(manual_stack_copy_bytes),
				   RULE_STACK_COPY_MIN, RULE_STACK_COPY_MAX, "16KiB" },
	[GK_MANUAL_PYTHON] = { "manual_python", KEY_BOOL, G(manual_python), 0, 0, "true" },
	[GK_MANUAL_CAPTURE] = { "manual_capture", KEY_RECORD, G(manual_record), 0, 0, "cpu" },
	[GK_SYMBOL_CACHE] = { "symbol_cache", KEY_SIZE, G(symbol_cache_bytes), 0, 1ull << 40,
			      "16MiB" },
	/* The defaults are trapd/symbolize/symbudget.h's SYMBUDGET_DEFAULT_*. */
	[GK_SYMBOLIZE_BYTES] = { "symbolize_max_read", KEY_SIZE, G(symbolize_bytes), 1 << 20,
				 1ull << 40, "512MiB" },
	[GK_SYMBOLIZE_SYMBOLS] = { "symbolize_max_symbols", KEY_COUNT, G(symbolize_symbols), 1024,
				   1u << 30, "4194304" },
	[GK_SYMBOLIZE_PERF_MAPS] = { "symbolize_max_perf_maps", KEY_SIZE,
				     G(symbolize_perf_map_bytes), 1 << 20, 1ull << 40, "64MiB" },
	[GK_SYMBOLIZE_TIME] = { "symbolize_timeout", KEY_DURATION, G(symbolize_time_ns), SEC, HOUR,
				"30s" },
	/* The flight recorder (trapd/capture/history.h); 0Hz: off. */
	[GK_HISTORY_FREQUENCY] = { "history_frequency", KEY_FREQ, G(history_freq_hz), 0, 999,
				   "off" },
	[GK_HISTORY_WINDOW] = { "history_window", KEY_DURATION, G(history_window_ns), 2 * SEC,
				10 * MIN, "30s" },
	[GK_HISTORY_MEMORY] = { "history_max_memory", KEY_SIZE, G(history_max_bytes), 1 << 20,
				1ull << 32, "16MiB" },
	/* The kernel walk's tables (trapd/capture/unwind_tables.h), 8 bytes
	 * a row: libc needs 20,000 rows, python3.11 44,000. */
	[GK_UNWIND_TABLES_MEMORY] = { "unwind_tables_memory", KEY_SIZE, G(unwind_tables_bytes),
				      1 << 20, 1ull << 32, "16MiB" },
	/* The overhead budget (trapd/capture/overhead.h), in hundredths of
	 * a percent of the host. */
	[GK_MAX_OVERHEAD] = { "max_overhead", KEY_PERCENT, G(max_overhead_centi), 1, 10000, "1%" },
	[GK_MAX_CAPTURE_OVERHEAD] = { "max_capture_overhead", KEY_PERCENT,
				      G(max_capture_overhead_centi), 1, 10000, "10%" },
};

const struct rules_key rules_rule_keys[RK_NR] = {
	[RK_SIGNAL] = { "signal", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_SYSCALLS] = { "syscalls", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_DEVICE] = { "device", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_FUNCTION] = { "function", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_CGROUP] = { "cgroup", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_PID] = { "pid", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_PROCESS] = { "process", KEY_SPECIAL, 0, 0, 0, NULL },
	/* pins of a process name, checked in rules_pin.c */
	[RK_PROCESS_USER] = { "process_user", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_PROCESS_EXE] = { "process_exe", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_PROCESS_CGROUP] = { "process_cgroup", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_WINDOW] = { "window", KEY_SPECIAL, 0, 0, 0, NULL },
	/* latency signals only; its row with the range is in rules_latency.c */
	[RK_MIN_COUNT] = { "min_count", KEY_SPECIAL, 0, 0, 0, NULL },
	/* func and syscall signals; checked in rules_latency.c */
	[RK_SLOW_CALLS] = { "slow_calls", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_ABOVE] = { "above", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_BELOW] = { "below", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_CLEAR] = { "clear", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_FOR] = { "for", KEY_DURATION0, R(for_ns), 0, DAY, "0" },
	[RK_CLEAR_FOR] = { "clear_for", KEY_DURATION0, R(clear_for_ns), 0, DAY, "0" },
	[RK_DURATION] = { "duration", KEY_DURATION, R(window_ns), 100 * MS, HOUR, "10s" },
	[RK_FREQUENCY] = { "frequency", KEY_FREQ, R(freq_hz), 1, FREQ_MAX, "99Hz" },
	[RK_SAMPLE] = { "sample", KEY_SPECIAL, 0, 0, 0, NULL },
	[RK_UNWIND] = { "unwind", KEY_UNWIND, R(unwind), 0, 0, "auto" },
	[RK_STACK_COPY] = { "stack_copy", KEY_SIZE, R(stack_copy_bytes), RULE_STACK_COPY_MIN,
			    RULE_STACK_COPY_MAX, "16KiB" },
	[RK_PYTHON] = { "python", KEY_BOOL, R(python), 0, 0, "true" },
	/* default: from the rule's signal and scope, once it is all read */
	[RK_CAPTURE] = { "capture", KEY_RECORD, R(record), 0, 0, NULL },
	[RK_COOLDOWN] = { "cooldown", KEY_DURATION0, R(cooldown_ns), 0, 7 * DAY, "5m" },
	[RK_MAX_PER_HOUR] = { "max_per_hour", KEY_COUNT, R(max_per_hour), 0, EVAL_FIRES_MAX, "0" },
	[RK_MAX_PER_DAY] = { "max_per_day", KEY_COUNT, R(max_per_day), 0, EVAL_FIRES_MAX, "0" },
	/* default: [global] dry_run, filled in once the whole file is read */
	[RK_DRY_RUN] = { "dry_run", KEY_BOOL, R(dry_run), 0, 0, NULL },
};

int rules_keys__find(const struct rules_key *keys, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(keys[i].name, name))
			return i;
	return -1;
}

const char *rules_keys__list(const struct rules_key *keys, int n, char *buf, size_t len)
{
	char more[48];
	size_t used = 0, need;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		/* whole names only, with room left to say how many did not fit */
		need = strlen(keys[i].name) + (i ? 2 : 0);
		if (used + need + sizeof(more) >= len)
			break;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 keys[i].name);
	}
	if (i < n) {
		snprintf(more, sizeof(more), " and %d more (docs/rules.md)", n - i);
		snprintf(buf + used, len - used, "%s", more);
	}
	return buf;
}

const char *rules_keys__meant(const struct rules_key *keys, int n, const char *typed)
{
	struct did_you_mean d;
	int i;

	did_you_mean__init(&d, typed);
	for (i = 0; i < n; i++)
		did_you_mean__offer(&d, keys[i].name);
	return did_you_mean__best(&d);
}

/* --- values -------------------------------------------------------------- */

int rules_value__count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return -ERANGE;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* A duration, or 0 however written: the number is all zeros and the
 * same text with a 1 for it is a duration. */
int rules_value__duration0(const char *s, uint64_t *out)
{
	size_t n = strspn(s, "0."), points = 0, i;
	char one[32];

	if (units_parse_duration(s, out) == 0)
		return 0;
	for (i = 0; i < n; i++)
		points += s[i] == '.';
	if (n == 0 || points > 1 || n == points)
		return -EINVAL;
	if (snprintf(one, sizeof(one), "1%s", s + n) >= (int)sizeof(one) ||
	    units_parse_duration(one, out))
		return -EINVAL;
	*out = 0;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* group_exists - whether getgrnam_r finds @name (growing its buffer up
 * to 1 MiB for groups with many members). */
static bool group_exists(const char *name)
{
	struct group grp, *found = NULL;
	size_t len = 4096;
	char *buf = NULL, *bigger;
	int err;

	do {
		bigger = realloc(buf, len);
		if (!bigger)
			break;
		buf = bigger;
		err = getgrnam_r(name, &grp, buf, len, &found);
		len *= 2;
	} while (err == ERANGE && len <= (1 << 20));
	free(buf);
	return found != NULL;
}

bool rules_value__cgroup(const char *s)
{
	size_t len = strlen(s), n;
	const char *p = s;

	if (len == 0 || len > PATH_MAX_BYTES)
		return false;
	while (*p) {
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		p += *p == '/';
	}
	return true;
}

static int dup_into(char **to, const char *s)
{
	char *copy = strdup(s);

	if (!copy)
		return -ENOMEM;
	free(*to);
	*to = copy;
	return 0;
}

int rules_value__scope(const char *s, struct rule_scope *out, char *msg, size_t len)
{
	struct rule_scope sc = { .kind = RULE_SCOPE_SYSTEM };
	uint64_t pid;
	int err = 0;

	if (!strcmp(s, "system")) {
	} else if (!strncmp(s, "cgroup:", 7)) {
		if (!rules_value__cgroup(s + 7)) {
			snprintf(msg, len,
				 "expected cgroup:PATH with a cgroup path like "
				 "system.slice/nginx.service, without '.' or '..'");
			return -EINVAL;
		}
		sc.kind = RULE_SCOPE_CGROUP;
		err = dup_into(&sc.cgroup, s + 7);
	} else if (!strncmp(s, "pid:", 4)) {
		if (rules_value__count(s + 4, PID_MAX, &pid) || pid == 0) {
			snprintf(msg, len, "expected pid:N with a process id from 1 to %d",
				 PID_MAX);
			return -EINVAL;
		}
		sc.kind = RULE_SCOPE_PID;
		sc.pid = (pid_t)pid;
	} else if (!strncmp(s, "process:", 8)) {
		if (!s[8] || strlen(s + 8) > COMM_MAX) {
			snprintf(msg, len,
				 "expected process:NAME with a process name of 1 to %d "
				 "bytes",
				 COMM_MAX);
			return -EINVAL;
		}
		sc.kind = RULE_SCOPE_PROCESS;
		err = dup_into(&sc.process, s + 8);
	} else {
		snprintf(msg, len, "expected system, cgroup:PATH, pid:N or process:NAME");
		return -EINVAL;
	}
	if (err)
		return err;
	rule_scope__clear(out);
	*out = sc;
	return 0;
}

const char *rules_value__quote(const char *v, char *buf, size_t len)
{
	size_t n = strlen(v), cut = n;

	if (n > 60) {
		cut = 60;
		while (cut > 0 && ((unsigned char)v[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 character */
	}
	snprintf(buf, len, "%.*s%s", (int)cut, v, cut < n ? "..." : "");
	return buf;
}

static bool needs_quotes(const char *v)
{
	size_t n = strlen(v);

	return n == 0 || v[0] == ' ' || v[0] == '\t' || v[0] == '"' || v[n - 1] == ' ' ||
	       v[n - 1] == '\t' || strpbrk(v, "#;");
}

void rules_value__print(FILE *out, const char *key, const char *v)
{
	if (!needs_quotes(v)) {
		fprintf(out, "%s = %s\n", key, v);
		return;
	}
	fprintf(out, "%s = \"", key);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', out);
		fputc(*v, out);
	}
	fputs("\"\n", out);
}

/* --- scopes -------------------------------------------------------------- */

void rule_scope__clear(struct rule_scope *s)
{
	free(s->cgroup);
	free(s->process);
	memset(s, 0, sizeof(*s));
	s->kind = RULE_SCOPE_SYSTEM;
}

int rule_scope__copy(struct rule_scope *to, const struct rule_scope *from)
{
	struct rule_scope c = *from;

	c.cgroup = NULL;
	c.process = NULL;
	if ((from->cgroup && !(c.cgroup = strdup(from->cgroup))) ||
	    (from->process && !(c.process = strdup(from->process)))) {
		rule_scope__clear(&c);
		return -ENOMEM;
	}
	rule_scope__clear(to);
	*to = c;
	return 0;
}

bool rules_value__equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool rule_scope__equal(const struct rule_scope *a, const struct rule_scope *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case RULE_SCOPE_CGROUP:
		return rules_value__equal(a->cgroup, b->cgroup);
	case RULE_SCOPE_PID:
		return a->pid == b->pid;
	case RULE_SCOPE_PROCESS:
		return rules_value__equal(a->process, b->process);
	default:
		return true;
	}
}

/* --- typed keys ---------------------------------------------------------- */

/* bad_number - the message for @k's number @v that is malformed
 * (@range false) or out of @k's range. */
static int bad_number(const struct rules_key *k, bool range, char *msg, size_t len)
{
	char lo[32], hi[32];

	switch (k->type) {
	case KEY_DURATION:
		if (!range)
			return snprintf(msg, len, "expected a duration like 500ms, 30s or 5m");
		return snprintf(msg, len, "expected a duration from %s to %s",
				units_format_duration(k->min, lo, sizeof(lo)),
				units_format_duration(k->max, hi, sizeof(hi)));
	case KEY_DURATION0:
		if (!range)
			return snprintf(msg, len, "expected 0 or a duration like 500ms, 30s or 5m");
		return snprintf(msg, len, "expected 0 or a duration of at most %s",
				units_format_duration(k->max, hi, sizeof(hi)));
	case KEY_FREQ:
		if (!range && !k->min)
			return snprintf(msg, len, "expected a frequency like 19Hz, or off");
		if (!range)
			return snprintf(msg, len, "expected a frequency like 99Hz or 999Hz");
		return snprintf(msg, len, "expected a frequency from %lluHz to %lluHz%s",
				(unsigned long long)(k->min ? k->min : 1),
				(unsigned long long)k->max, k->min ? "" : ", or off");
	case KEY_PERCENT:
		return snprintf(msg, len, "expected a share from %g%% to %g%%, like 1%% or 0.5%%",
				(double)k->min / 100, (double)k->max / 100);
	case KEY_SIZE:
		if (!range)
			return snprintf(msg, len, "expected a size like 512MiB or 1GiB");
		return snprintf(msg, len, "expected a size from %s to %s",
				units_format_size(k->min, lo, sizeof(lo)),
				units_format_size(k->max, hi, sizeof(hi)));
	default:
		return snprintf(msg, len, "expected a whole number from %llu to %llu",
				(unsigned long long)k->min, (unsigned long long)k->max);
	}
}

/* parse_number - the number types, into their uint64_t or uint32_t. */
static int parse_number(const struct rules_key *k, void *f, const char *v, char *msg, size_t len)
{
	uint64_t u = 0;
	int err;

	switch (k->type) {
	case KEY_DURATION:
		err = units_parse_duration(v, &u);
		break;
	case KEY_DURATION0:
		err = rules_value__duration0(v, &u);
		break;
	case KEY_FREQ:
		/* a frequency that may be 0 is off at 0 */
		if (!k->min && (!strcmp(v, "off") || !strcmp(v, "0")))
			err = 0;
		else
			err = units_parse_frequency(v, UINT64_MAX, &u);
		break;
	case KEY_SIZE:
		err = units_parse_size(v, &u);
		break;
	case KEY_PERCENT:
		err = units_parse_percent(v, &u);
		break;
	default:
		err = rules_value__count(v, UINT64_MAX, &u);
	}
	if (!err && (u < k->min || u > k->max))
		err = -ERANGE;
	if (err) {
		bad_number(k, err == -ERANGE, msg, len);
		return -EINVAL;
	}
	if (k->type == KEY_COUNT)
		*(uint32_t *)f = (uint32_t)u;
	else
		*(uint64_t *)f = u;
	return 0;
}

static int parse_path(const struct rules_key *k, char **f, const char *v, char *msg, size_t len)
{
	if (v[0] != '/' || strlen(v) > k->max) {
		snprintf(msg, len,
			 "expected an absolute path (starting with '/') of at most %llu "
			 "bytes",
			 (unsigned long long)k->max);
		return -EINVAL;
	}
	return dup_into(f, v);
}

/* parse_text - KEY_TEXT: a URL, a region, a word: printable ASCII, no
 * spaces. */
static int parse_text(const struct rules_key *k, char **f, const char *v, char *msg, size_t len)
{
	const char *c;

	for (c = v; *c; c++)
		if (*c <= ' ' || *c >= 0x7f)
			break;
	if (!*v || *c || strlen(v) > k->max) {
		snprintf(msg, len, "expected 1 to %llu printable characters without spaces",
			 (unsigned long long)k->max);
		return -EINVAL;
	}
	return dup_into(f, v);
}

/* parse_env - KEY_ENV: letters, digits and '_', not starting with a digit. */
static int parse_env(char **f, const char *v, char *msg, size_t len)
{
	size_t n = strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

	if (!*v || v[n] || isdigit((unsigned char)*v) || n > 255) {
		snprintf(msg, len,
			 "expected the name of an environment variable (letters, digits and '_')");
		return -EINVAL;
	}
	return dup_into(f, v);
}

static int parse_group(char **f, const char *v, char *msg, size_t len)
{
	if (!strcmp(v, "none")) {
		free(*f);
		*f = NULL;
		return 0;
	}
	if (!*v || strlen(v) > 256 || !group_exists(v)) {
		snprintf(msg, len,
			 "no such group; expected the name of an existing group, or "
			 "none (root only)");
		return -EINVAL;
	}
	return dup_into(f, v);
}

int rules_key__parse(const struct rules_key *k, void *base, const char *v, char *msg, size_t len)
{
	void *f = (char *)base + k->off;

	switch (k->type) {
	case KEY_BOOL:
		if (parse_bool(v, f)) {
			snprintf(msg, len, "expected true or false (or yes/no, on/off, 1/0)");
			return -EINVAL;
		}
		return 0;
	case KEY_PATH:
		return parse_path(k, f, v, msg, len);
	case KEY_TEXT:
		return parse_text(k, f, v, msg, len);
	case KEY_ENV:
		return parse_env(f, v, msg, len);
	case KEY_GROUP:
		return parse_group(f, v, msg, len);
	case KEY_SCOPE:
		return rules_value__scope(v, f, msg, len);
	case KEY_UNWIND:
		if (rule_unwind__parse(v, f)) {
			snprintf(msg, len, "expected auto, dwarf or fp");
			return -EINVAL;
		}
		return 0;
	case KEY_RECORD:
		if (rule_record__parse(v, f)) {
			snprintf(msg, len, "expected cpu, offcpu or cpu+offcpu");
			return -EINVAL;
		}
		return 0;
	case KEY_SPECIAL:
		snprintf(msg, len, "not a plain key");
		return -EINVAL;
	default:
		return parse_number(k, f, v, msg, len);
	}
}

void rules_key__print(const struct rules_key *k, const void *base, FILE *out)
{
	const void *f = (const char *)base + k->off;
	char buf[PATH_MAX_BYTES + 16];
	uint64_t u = 0;

	if (k->type <= KEY_PERCENT)
		u = *(const uint64_t *)f;

	switch (k->type) {
	case KEY_DURATION0:
		if (!u) {
			fprintf(out, "%s = 0\n", k->name);
			break;
		}
		/* fall through */
	case KEY_DURATION:
		fprintf(out, "%s = %s\n", k->name, units_format_duration(u, buf, sizeof(buf)));
		break;
	case KEY_FREQ:
		if (!u)
			fprintf(out, "%s = off\n", k->name);
		else
			fprintf(out, "%s = %lluHz\n", k->name, (unsigned long long)u);
		break;
	case KEY_SIZE:
		fprintf(out, "%s = %s\n", k->name, units_format_size(u, buf, sizeof(buf)));
		break;
	case KEY_PERCENT:
		fprintf(out, "%s = %g%%\n", k->name, (double)u / 100);
		break;
	case KEY_COUNT:
		fprintf(out, "%s = %u\n", k->name, *(const uint32_t *)f);
		break;
	case KEY_BOOL:
		fprintf(out, "%s = %s\n", k->name, *(const bool *)f ? "true" : "false");
		break;
	case KEY_PATH:
	case KEY_GROUP:
		rules_value__print(out, k->name, *(char *const *)f ? *(char *const *)f : "none");
		break;
	case KEY_TEXT:
	case KEY_ENV: /* not set: left out */
		if (*(char *const *)f)
			rules_value__print(out, k->name, *(char *const *)f);
		break;
	case KEY_SCOPE:
		rules_value__print(out, k->name, rule_scope__value(f, buf, sizeof(buf)));
		break;
	case KEY_UNWIND:
		fprintf(out, "%s = %s\n", k->name, rule_unwind__name(*(const enum rule_unwind *)f));
		break;
	case KEY_RECORD:
		fprintf(out, "%s = %s\n", k->name, rule_record__name(*(const enum rule_record *)f));
		break;
	default:
		break;
	}
}

bool rules_key__equal(const struct rules_key *k, const void *a, const void *b)
{
	const void *fa = (const char *)a + k->off, *fb = (const char *)b + k->off;

	switch (k->type) {
	case KEY_COUNT:
		return *(const uint32_t *)fa == *(const uint32_t *)fb;
	case KEY_BOOL:
		return *(const bool *)fa == *(const bool *)fb;
	case KEY_PATH:
	case KEY_TEXT:
	case KEY_ENV:
	case KEY_GROUP:
		return rules_value__equal(*(char *const *)fa, *(char *const *)fb);
	case KEY_SCOPE:
		return rule_scope__equal(fa, fb);
	case KEY_UNWIND:
		return *(const enum rule_unwind *)fa == *(const enum rule_unwind *)fb;
	case KEY_RECORD:
		return *(const enum rule_record *)fa == *(const enum rule_record *)fb;
	case KEY_SPECIAL:
		return true;
	default:
		return *(const uint64_t *)fa == *(const uint64_t *)fb;
	}
}

void rules_key__free(const struct rules_key *k, void *base)
{
	void *f = (char *)base + k->off;

	switch (k->type) {
	case KEY_PATH:
	case KEY_TEXT:
	case KEY_ENV:
	case KEY_GROUP:
		free(*(char **)f);
		*(char **)f = NULL;
		break;
	case KEY_SCOPE:
		rule_scope__clear(f);
		break;
	default:
		break;
	}
}
