/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_keys.h - inside rules/ only: the keys of each section of the rules
 * file as tables (name, type, field, range, default), how one value is
 * parsed, printed and compared, and the limits values are held to.
 * Knows nothing of the parser's state: rules_parse.h builds on it.
 *
 * Adding a plain key to [global] or [rule NAME] is one table row in
 * rules_keys.c (and one enum value here), to [upload] one row in
 * rules_upload.c; keys whose meaning depends on other keys (signal,
 * scope, threshold, sample) are KEY_SPECIAL and handled in rules_rule.c,
 * those of the latency signals (syscalls, device, function, min_count) in
 * rules_latency.c, the pins of a process name in rules_pin.c.
 */
#ifndef TRAPD_RULES_KEYS_H
#define TRAPD_RULES_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/rules_model.h"

#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_MIN (60 * NSEC_PER_SEC)
#define NSEC_PER_HOUR (60 * NSEC_PER_MIN)
#define PATH_MAX_BYTES 4095 /* a path in the rules file */
#define PID_MAX 4194304	    /* the kernel's PID_MAX_LIMIT */
#define COMM_MAX 15	    /* bytes of a process name, as in /proc/PID/comm */
#define LABEL_KEY_MAX 63
#define LABEL_VALUE_MAX 256

/* KEY_DURATION to KEY_SIZE are the uint64_t fields: keep them first. */
enum key_type {
	KEY_DURATION,  /* uint64_t ns in min..max */
	KEY_DURATION0, /* the same, and 0 (written "0") */
	KEY_FREQ,      /* uint64_t Hz in min..max */
	KEY_SIZE,      /* uint64_t bytes in min..max */
	KEY_PERCENT,   /* uint64_t hundredths of a percent in min..max ("1.5%") */
	KEY_COUNT,     /* uint32_t in min..max */
	KEY_BOOL,      /* bool */
	KEY_PATH,      /* char *: an absolute path of at most max bytes */
	KEY_TEXT,      /* char *: printable ASCII without spaces, 1 to max bytes */
	KEY_ENV,       /* char *: the name of an environment variable */
	KEY_GROUP,     /* char *: an existing group; NULL ("none") */
	KEY_SCOPE,     /* struct rule_scope: system, cgroup:, pid:, process: */
	KEY_UNWIND,    /* enum rule_unwind: auto, dwarf, fp */
	KEY_RECORD,    /* enum rule_record: cpu, offcpu, cpu+offcpu */
	KEY_SPECIAL,   /* checked by rules_rule.c */
};

struct rules_key {
	const char *name;
	enum key_type type;
	size_t off; /* of the field in struct rules_global or struct rule */
	uint64_t min, max;
	const char *dflt; /* the default as written in a file; NULL: none */
};

enum global_key {
	GK_POLL_INTERVAL,
	GK_SPOOL_DIR,
	GK_SPOOL_MAX_SIZE,
	GK_SPOOL_MAX_FILES,
	GK_MAX_PER_HOUR,
	GK_MAX_PER_DAY,
	GK_MAX_WINDOW,
	GK_HISTORY,
	GK_DRY_RUN,
	GK_CONTROL_SOCKET,
	GK_CONTROL_GROUP,
	GK_MANUAL_DURATION,
	GK_MANUAL_FREQUENCY,
	GK_MANUAL_SAMPLE,
	GK_MANUAL_UNWIND,
	GK_MANUAL_STACK_COPY,
	GK_MANUAL_PYTHON,
	GK_MANUAL_CAPTURE,
	GK_SYMBOL_CACHE,
	GK_SYMBOLIZE_BYTES,
	GK_SYMBOLIZE_SYMBOLS,
	GK_SYMBOLIZE_PERF_MAPS,
	GK_SYMBOLIZE_TIME,
	GK_HISTORY_FREQUENCY,
	GK_HISTORY_WINDOW,
	GK_HISTORY_MEMORY,
	GK_UNWIND_TABLES_MEMORY,
	GK_MAX_OVERHEAD,
	GK_MAX_CAPTURE_OVERHEAD,
	GK_NR,
};

/* [upload], in the order rules__print writes them. */
enum upload_key {
	UK_URL,
	UK_METHOD,
	UK_ENDPOINT,
	UK_REGION,
	UK_PATH_STYLE,
	UK_ACCESS_KEY_ID_FILE,
	UK_ACCESS_KEY_ID_ENV,
	UK_SECRET_ACCESS_KEY_FILE,
	UK_SECRET_ACCESS_KEY_ENV,
	UK_SESSION_TOKEN_FILE,
	UK_SESSION_TOKEN_ENV,
	UK_SAS_TOKEN_FILE,
	UK_SAS_TOKEN_ENV,
	UK_AUTH_HEADER_FILE,
	UK_AUTH_HEADER_ENV,
	UK_CA_FILE,
	UK_TLS_VERIFY,
	UK_ALLOW_INSECURE_CREDENTIALS,
	UK_CONNECT_TIMEOUT,
	UK_STALL_TIMEOUT,
	UK_TIMEOUT,
	UK_RETRY_MIN,
	UK_RETRY_MAX,
	UK_NR,
};

/* In the order rules__print writes them. */
enum rule_key {
	RK_SIGNAL,
	RK_SYSCALLS,
	RK_DEVICE,
	RK_FUNCTION,
	RK_CGROUP,
	RK_PID,
	RK_PROCESS,
	RK_PROCESS_USER,
	RK_PROCESS_EXE,
	RK_PROCESS_CGROUP,
	RK_WINDOW,
	RK_MIN_COUNT,
	RK_SLOW_CALLS,
	RK_ABOVE,
	RK_BELOW,
	RK_CLEAR,
	RK_FOR,
	RK_CLEAR_FOR,
	RK_DURATION,
	RK_FREQUENCY,
	RK_SAMPLE,
	RK_UNWIND,
	RK_STACK_COPY,
	RK_PYTHON,
	RK_CAPTURE,
	RK_COOLDOWN,
	RK_MAX_PER_HOUR,
	RK_MAX_PER_DAY,
	RK_DRY_RUN,
	RK_NR,
};

extern const struct rules_key rules_global_keys[GK_NR];
extern const struct rules_key rules_rule_keys[RK_NR];

/* rules_keys__find - the index of @name in @keys (@n of them), or -1. */
int rules_keys__find(const struct rules_key *keys, int n, const char *name);

/* rules_keys__list - "a, b, c": the names of @keys that fit in @len
 * whole, then " and N more" for the rest, for "expected one of"
 * messages. Returns @buf. */
const char *rules_keys__list(const struct rules_key *keys, int n, char *buf, size_t len);

/* rules_keys__meant - the key of @keys that @typed most likely meant
 * (did_you_mean.h), or NULL. */
const char *rules_keys__meant(const struct rules_key *keys, int n, const char *typed);

/* rules_key__parse - parse @v into @k's field of @base (replacing and
 * freeing what was there). Returns 0, -ENOMEM, or -EINVAL with the rest
 * of "bad value 'V': ..." in @msg ("expected a duration like 30s"). */
int rules_key__parse(const struct rules_key *k, void *base, const char *v, char *msg, size_t len);

/* rules_key__print - "name = value\n" for @k's field of @base. */
void rules_key__print(const struct rules_key *k, const void *base, FILE *out);

/* rules_key__equal - whether @k's fields of @a and @b are equal. */
bool rules_key__equal(const struct rules_key *k, const void *a, const void *b);

/* rules_key__free - free what @k's field of @base owns; NULL it. */
void rules_key__free(const struct rules_key *k, void *base);

/* rules_value__count - a plain decimal count from 0 to @max. */
int rules_value__count(const char *s, uint64_t max, uint64_t *out);

/* rules_value__duration0 - a duration (units_parse_duration), or 0
 * however written ("0", "0s", "0.0ms"). Returns 0 or -EINVAL. */
int rules_value__duration0(const char *s, uint64_t *out);

/* rules_value__equal - whether two strings are equal, NULL equal only to
 * NULL. */
bool rules_value__equal(const char *a, const char *b);

/* rules_value__cgroup - whether @s is a cgroup path we accept: 1 to 4095
 * bytes, no "." or ".." component. */
bool rules_value__cgroup(const char *s);

/* rules_value__scope - "system", "cgroup:PATH", "pid:N", "process:NAME"
 * into @out (whose strings the caller frees with rule_scope__clear).
 * Returns 0, -ENOMEM, or -EINVAL with "expected ..." in @msg. */
int rules_value__scope(const char *s, struct rule_scope *out, char *msg, size_t len);

/* rules_value__quote - @v for a message: at most ~60 bytes (cut at a
 * character boundary, "..." added). Returns @buf. */
const char *rules_value__quote(const char *v, char *buf, size_t len);

/* rules_value__print - "key = value\n", the value double-quoted (with \"
 * and \\ escapes) when the lexer would otherwise change it. */
void rules_value__print(FILE *out, const char *key, const char *v);

/* rule_scope__clear - free @s's strings; it becomes a system scope. */
void rule_scope__clear(struct rule_scope *s);

/* rule_scope__copy - a deep copy of @from into @to (cleared first).
 * Returns 0 or -ENOMEM. */
int rule_scope__copy(struct rule_scope *to, const struct rule_scope *from);

/* rule_scope__equal - the same kind and the same cgroup, pid or name. */
bool rule_scope__equal(const struct rule_scope *a, const struct rule_scope *b);

#endif
