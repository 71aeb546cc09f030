// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_latency.c - the latency signals of a [rule NAME] section
 * (rules_latency.h): their window, the scope they take, and their own
 * keys: min_count for all of them, syscalls for syscall.*, device for
 * biolat.*, function for func.*. Their names (KIND.STAT, "runqlat.p99")
 * are read and written by rule_words.c. Values are checked for form
 * only; whether a binary or a device exists is the daemon's business
 * when it attaches the probe. */
#include "rules/rules_latency.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rule_words.h"
#include "rules/rules_keys.h"
#include "rules/syscall_table.h"
#include "rules/units.h"

#define WINDOW_MIN NSEC_PER_SEC
#define WINDOW_MAX (10 * NSEC_PER_MIN)
#define MIN_COUNT_MAX 1000000
#define DEVICE_NAME_MAX 31
#define DEVICE_MAJOR_MAX 4095	 /* the kernel's MAJOR: 12 bits */
#define DEVICE_MINOR_MAX 1048575 /* MINOR: 20 bits */
#define SYMBOL_MAX 255
#define DEVICE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
#define SYMBOL_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$@"
#define FUNCTION_LIKE "like /usr/local/bin/api:handle_request"

/* min_count as a plain key: the range and default in one place. */
static const struct rules_key min_count_key = {
	"min_count", KEY_COUNT, offsetof(struct rule, lat_min_count), 1, MIN_COUNT_MAX, "1",
};

void rules_latency__check_window(struct rules_parser *p, const struct rules_raw_rule *raw,
				 struct rule *r)
{
	const char *v = raw->val[RK_WINDOW];
	uint64_t ns;

	r->lat_window_ns = 0;
	if (!v)
		return;
	if (!strncmp(v, "avg", 3)) {
		rules_parser__bad(
			p, raw, RK_WINDOW,
			"avg10, avg60 and avg300 are windows of psi.* signals; expected a "
			"duration from 1s to 10m");
		return;
	}
	if (units_parse_duration(v, &ns) || ns < WINDOW_MIN || ns > WINDOW_MAX) {
		rules_parser__bad(p, raw, RK_WINDOW, "expected a duration from 1s to 10m");
		return;
	}
	r->lat_window_ns = ns;
}

/* conflict - the scope key @k is set after @first: a latency rule
 * watches one of them. */
static void conflict(struct rules_parser *p, const struct rules_raw_rule *raw, enum rule_key k,
		     enum rule_key first)
{
	rules_parser__error(p, raw->vline[k], raw->section, rules_rule_keys[k].name,
			    "%s is set too (line %d); a latency signal watches one of cgroup = "
			    "PATH, pid = N or process = NAME, or without them the whole system",
			    rules_rule_keys[first].name, raw->vline[first]);
}

const struct rule_scope *rules_latency__scope(struct rules_parser *p,
					      const struct rules_raw_rule *raw,
					      const struct rule *r, const struct rule_scope *cg,
					      const struct rule_scope *pid,
					      const struct rule_scope *proc)
{
	static const struct rule_scope sys = { .kind = RULE_SCOPE_SYSTEM };
	static const struct rule_scope run = { .kind = RULE_SCOPE_RUN };
	static const enum rule_key keys[] = { RK_CGROUP, RK_PID, RK_PROCESS };
	const struct rule_scope *vals[] = { cg, pid, proc };
	int i, first = -1;
	bool ok = true;

	for (i = 0; i < 3; i++) {
		if (!raw->val[keys[i]])
			continue;
		if (r->lat_kind == RULE_LAT_BIO) {
			rules_parser__not_allowed(
				p, raw, r, keys[i],
				"biolat is measured per device; use device = NAME");
			ok = false;
		} else if (first < 0 || raw->vline[keys[i]] < raw->vline[keys[first]]) {
			first = i;
		}
	}
	for (i = 0; i < 3 && first >= 0; i++) {
		if (i != first && raw->val[keys[i]]) {
			conflict(p, raw, keys[i], keys[first]);
			ok = false;
		}
	}
	if (!ok)
		return NULL;
	if (first >= 0)
		return vals[first];
	return p->r->use == RULES_FOR_CI && r->lat_kind != RULE_LAT_BIO ? &run : &sys;
}

/* is_syscall - the @n bytes at @s name a system call we can watch: its
 * number into *nr. Returns 0, or -EINVAL with the message in @msg. */
static int is_syscall(const char *s, size_t n, int *nr, char *msg, size_t len)
{
	char *name = strndup(s, n), q[96];

	if (!name)
		return -ENOMEM;
	*nr = syscall_table__number(name);
	if (*nr < 0)
		snprintf(msg, len, "no system call '%s' on %s (see syscalls(2))",
			 rules_value__quote(name, q, sizeof(q)), syscall_table__arch());
	else if (*nr >= RULE_LAT_SYSCALL_NR)
		snprintf(msg, len,
			 "system call '%s' is number %d on %s; only those numbered below %d "
			 "can be watched",
			 name, *nr, syscall_table__arch(), RULE_LAT_SYSCALL_NR);
	free(name);
	return *nr < 0 || *nr >= RULE_LAT_SYSCALL_NR ? -EINVAL : 0;
}

/* parse_syscalls - NAME[,NAME...] into "a,b,c": blanks around names
 * dropped, a name written twice (or an alias of one before) kept once,
 * in the order written. */
static int parse_syscalls(const char *v, char **out, char *msg, size_t len)
{
	uint64_t seen[RULE_LAT_SYSCALL_NR / 64] = { 0 };
	char *list = malloc(strlen(v) + 1); /* the result is never longer */
	size_t used = 0, n, end;
	int i, nr, err = 0;

	if (!list)
		return -ENOMEM;
	for (i = 1;; i++) {
		v += strspn(v, " \t");
		n = strcspn(v, ",");
		for (end = n; end > 0 && (v[end - 1] == ' ' || v[end - 1] == '\t'); end--)
			;
		if (end == 0 && i == 1 && !v[n]) {
			snprintf(msg, len,
				 "expected system call names, NAME[,NAME...] like read,write");
			err = -EINVAL;
		} else if (end == 0) {
			snprintf(msg, len,
				 "name %d is empty; expected NAME[,NAME...] like read,write", i);
			err = -EINVAL;
		} else {
			err = is_syscall(v, end, &nr, msg, len);
		}
		if (err)
			break;
		if (!(seen[nr / 64] & (1ull << (nr % 64)))) {
			seen[nr / 64] |= 1ull << (nr % 64);
			if (used)
				list[used++] = ',';
			memcpy(list + used, v, end);
			used += end;
		}
		if (!v[n])
			break;
		v += n + 1;
	}
	if (err) {
		free(list);
		return err;
	}
	list[used] = '\0';
	free(*out);
	*out = list;
	return 0;
}

/* parse_device - NAME ("sda", "dm-0") or MAJOR:MINOR ("8:0"), as written. */
static int parse_device(const char *v, char **out, char *msg, size_t len)
{
	const char *colon = strchr(v, ':');
	uint64_t major, minor;
	char num[16];
	bool ok;

	if (colon) {
		ok = (size_t)(colon - v) < sizeof(num);
		if (ok) {
			memcpy(num, v, (size_t)(colon - v));
			num[colon - v] = '\0';
		}
		ok = ok && !rules_value__count(num, DEVICE_MAJOR_MAX, &major) &&
		     !rules_value__count(colon + 1, DEVICE_MINOR_MAX, &minor);
	} else {
		/* "." and ".." would name directories, not a device */
		ok = *v && strlen(v) <= DEVICE_NAME_MAX && strspn(v, DEVICE_CHARS) == strlen(v) &&
		     strcmp(v, ".") && strcmp(v, "..");
	}
	if (!ok) {
		snprintf(msg, len,
			 "expected a block device name like sda or nvme0n1 (1 to %d letters, "
			 "digits, '_', '.' or '-') or MAJOR:MINOR like 8:0 (major below %d, minor "
			 "below %d)",
			 DEVICE_NAME_MAX, DEVICE_MAJOR_MAX + 1, DEVICE_MINOR_MAX + 1);
		return -EINVAL;
	}
	free(*out);
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

/* function_problem - what is wrong with /PATH:SYMBOL @v, or NULL. */
static const char *function_problem(const char *v)
{
	const char *colon = strrchr(v, ':'), *c;
	size_t sym;

	if (!colon || v[0] != '/')
		return "expected /ABS/PATH:SYMBOL, " FUNCTION_LIKE;
	if ((size_t)(colon - v) > PATH_MAX_BYTES)
		return "the path is longer than 4095 bytes; expected /ABS/PATH:SYMBOL";
	for (c = v; c < colon; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return "the path has a blank or a control character; expected "
			       "/ABS/PATH:SYMBOL, " FUNCTION_LIKE;
	if (colon[-1] == ':')
		return "a demangled C++ name (ns::f) is not a symbol; expected the name the "
		       "binary's symbol table has, like _ZN2ns1fEv";
	sym = strlen(colon + 1);
	if (sym == 0 || sym > SYMBOL_MAX || strspn(colon + 1, SYMBOL_CHARS) != sym)
		return "expected a symbol of 1 to 255 letters, digits, '_', '.', '$' or '@' "
		       "after the last ':', " FUNCTION_LIKE;
	return NULL;
}

/* parse_function - /ABS/PATH:SYMBOL, split at the last ':', as written. */
static int parse_function(const char *v, char **out, char *msg, size_t len)
{
	const char *problem = function_problem(v);

	if (problem) {
		snprintf(msg, len, "%s", problem);
		return -EINVAL;
	}
	free(*out);
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

/* The keys of one latency kind each: the field, and the words for a rule
 * that may not have the key. */
static const struct kind_key {
	enum rule_key key;
	enum rule_latency_kind kind;
	size_t off; /* of the char * in struct rule */
	int (*parse)(const char *v, char **out, char *msg, size_t len);
	const char *why;
} kind_keys[] = {
	{ RK_SYSCALLS, RULE_LAT_SYSCALL, offsetof(struct rule, lat_syscalls), parse_syscalls,
	  "only syscall.* signals take syscalls" },
	{ RK_DEVICE, RULE_LAT_BIO, offsetof(struct rule, lat_device), parse_device,
	  "only biolat.* signals take a device" },
	{ RK_FUNCTION, RULE_LAT_FUNC, offsetof(struct rule, lat_function), parse_function,
	  "only func.* signals take a function" },
};

#define NKIND_KEYS (sizeof(kind_keys) / sizeof(kind_keys[0]))

/* check_kind_key - @k of a rule with any signal: refused, or parsed. */
static void check_kind_key(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
			   const struct kind_key *k)
{
	const char *v = raw->val[k->key];
	char msg[MSG_MAX], sig[32];
	int err;

	if (!v) {
		if (r->signal == RULE_SIGNAL_LATENCY && r->lat_kind == k->kind &&
		    k->kind == RULE_LAT_FUNC) /* the one key that is required */
			rules_parser__error(
				p, raw->line, raw->section, rules_rule_keys[k->key].name,
				"missing; signal %s needs function = /ABS/PATH:SYMBOL, " FUNCTION_LIKE,
				rule__signal_name(r, sig, sizeof(sig)));
		return;
	}
	if (r->signal != RULE_SIGNAL_LATENCY || r->lat_kind != k->kind) {
		rules_parser__not_allowed(p, raw, r, k->key, k->why);
		return;
	}
	err = k->parse(v, (char **)((char *)r + k->off), msg, sizeof(msg));
	if (err == -EINVAL)
		rules_parser__bad(p, raw, k->key, msg);
	else if (err)
		rules_parser__nomem(p);
}

void rules_latency__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r)
{
	const char *v = raw->val[RK_MIN_COUNT];
	char msg[MSG_MAX];
	size_t i;

	for (i = 0; i < NKIND_KEYS; i++)
		check_kind_key(p, raw, r, &kind_keys[i]);
	if (r->signal != RULE_SIGNAL_LATENCY) {
		if (v)
			rules_parser__not_allowed(p, raw, r, RK_MIN_COUNT,
						  "only runqlat.*, syscall.*, biolat.* and func.* "
						  "signals take min_count");
		return;
	}
	if (rules_key__parse(&min_count_key, r, v ? v : min_count_key.dflt, msg, sizeof(msg)))
		rules_parser__bad(p, raw, RK_MIN_COUNT, msg);
}

/* parse_percentile - "p99", "p99.9": a percentile strictly between 0
 * and 100. */
static int parse_percentile(const char *v, double *out)
{
	char *end;
	double q;

	if (v[0] != 'p' || !isdigit((unsigned char)v[1]))
		return -EINVAL;
	errno = 0;
	q = strtod(v + 1, &end);
	if (errno || *end || !(q > 0 && q < 100))
		return -EINVAL;
	*out = q;
	return 0;
}

bool rules_latency__check_slow_calls(struct rules_parser *p, const struct rules_raw_rule *raw,
				     struct rule *r)
{
	const char *v = raw->val[RK_SLOW_CALLS];

	if (!v)
		return false;
	if (!rules__splits_calls(r)) {
		rules_parser__not_allowed(p, raw, r, RK_SLOW_CALLS,
					  "only func.* and syscall.* signals split calls");
		return false;
	}
	r->split_calls = strcmp(v, "off") != 0;
	r->slow_ns = 0;
	r->slow_pct = 0;
	if (!r->split_calls)
		return true;
	if (!parse_percentile(v, &r->slow_pct))
		return true;
	if (!units_parse_duration(v, &r->slow_ns) && r->slow_ns > 0 &&
	    r->slow_ns <= 24 * 60 * NSEC_PER_MIN)
		return true;
	r->slow_ns = 0;
	rules_parser__bad(p, raw, RK_SLOW_CALLS,
			  "expected off, a duration from 1ns to 1d (like 20ms) or a percentile of "
			  "the window's calls (like p99 or p99.9)");
	return false;
}
