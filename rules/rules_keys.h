/* rules_keys.h - inside rules/ only: the keys of each section of the rules
 * file as tables (name, type, field, range, default), how one value is
 * parsed, printed and compared, and the loader's state shared by
 * rules.c, rules_sections.c, rules_rule.c and rules_latency.c.
 *
 * Adding a plain key to [global] or [rule NAME] is one table row in
 * rules_keys.c (and one enum value here); keys whose meaning depends on
 * other keys (signal, scope, threshold, sample) are KEY_SPECIAL and
 * handled in rules_rule.c, those of the latency signals (syscalls,
 * device, function, min_count) in rules_latency.c.
 */
#ifndef TRAPD_RULES_KEYS_H
#define TRAPD_RULES_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/ini.h"
#include "rules/rules.h"

#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_MIN (60 * NSEC_PER_SEC)
#define NSEC_PER_HOUR (60 * NSEC_PER_MIN)
#define PATH_MAX_BYTES 4095 /* a path in the rules file */
#define PID_MAX 4194304	    /* the kernel's PID_MAX_LIMIT */
#define COMM_MAX 15	    /* bytes of a process name, as in /proc/PID/comm */
#define LABEL_KEY_MAX 63
#define LABEL_VALUE_MAX 256
#define MSG_MAX 512 /* one error message, before the file name and line */

/* KEY_DURATION to KEY_SIZE are the uint64_t fields: keep them first. */
enum key_type {
	KEY_DURATION,  /* uint64_t ns in min..max */
	KEY_DURATION0, /* the same, and 0 (written "0") */
	KEY_FREQ,      /* uint64_t Hz in min..max */
	KEY_SIZE,      /* uint64_t bytes in min..max */
	KEY_COUNT,     /* uint32_t in min..max */
	KEY_BOOL,      /* bool */
	KEY_PATH,      /* char *: an absolute path of at most max bytes */
	KEY_TEXT,      /* char *: printable ASCII without spaces, 1 to max bytes */
	KEY_ENV,       /* char *: the name of an environment variable */
	KEY_GROUP,     /* char *: an existing group; NULL ("none") */
	KEY_SCOPE,     /* struct rule_scope: system, cgroup:, pid:, process: */
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
	GK_SYMBOL_CACHE,
	GK_SYMBOLIZE_BYTES,
	GK_SYMBOLIZE_SYMBOLS,
	GK_SYMBOLIZE_PERF_MAPS,
	GK_SYMBOLIZE_TIME,
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
	RK_ABOVE,
	RK_BELOW,
	RK_CLEAR,
	RK_FOR,
	RK_CLEAR_FOR,
	RK_DURATION,
	RK_FREQUENCY,
	RK_SAMPLE,
	RK_COOLDOWN,
	RK_MAX_PER_HOUR,
	RK_MAX_PER_DAY,
	RK_DRY_RUN,
	RK_NR,
};

extern const struct rules_key rules_global_keys[GK_NR];
extern const struct rules_key rules_rule_keys[RK_NR];
extern const struct rules_key rules_upload_keys[UK_NR];

/* rules_keys__find - the index of @name in @keys (@n of them), or -1. */
int rules_keys__find(const struct rules_key *keys, int n, const char *name);

/* rules_keys__list - "a, b, c": the names of @keys, for "expected one
 * of" messages. Returns @buf. */
const char *rules_keys__list(const struct rules_key *keys, int n, char *buf, size_t len);

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

/* rules_value__size - "512MiB" when exact in KiB..TiB, else bytes. */
const char *rules_value__size(uint64_t b, char *buf, size_t len);

/* rule_scope__clear - free @s's strings; it becomes a system scope. */
void rule_scope__clear(struct rule_scope *s);

/* rule_scope__copy - a deep copy of @from into @to (cleared first).
 * Returns 0 or -ENOMEM. */
int rule_scope__copy(struct rule_scope *to, const struct rule_scope *from);

/* rule_scope__equal - the same kind and the same cgroup, pid or name. */
bool rule_scope__equal(const struct rule_scope *a, const struct rule_scope *b);

/* rule_scope__value - "system", "cgroup:PATH", "pid:42", "process:NAME":
 * the scope as a sample = value. Returns @buf. */
const char *rule_scope__value(const struct rule_scope *s, char *buf, size_t len);

/* A [rule NAME] section as read: each key's value and line (0: not
 * set), checked as a whole when the section ends. */
struct rules_raw_rule {
	int line;		  /* of the header */
	char name[RULE_NAME_MAX]; /* "" when the header's is not a good name */
	char section[96];	  /* "[rule NAME]" for messages */
	char *val[RK_NR];
	int vline[RK_NR];
};

/* What the end-of-file checks need to know about a rule. */
struct rules_rule_meta {
	int line;	   /* of the header */
	int duration_line; /* 0: the default */
	bool duration_ok;  /* window_ns holds a parsed value */
	bool dry_run_set;
};

enum section {
	SECT_NONE, /* before the first header */
	SECT_GLOBAL,
	SECT_LABELS,
	SECT_UPLOAD,
	SECT_RULE,
	SECT_SKIP, /* an unknown or malformed header: its keys are not checked */
};

struct rules_error {
	int line;
	bool keyed; /* about a key: after the section's own errors of the line */
	char *msg;
};

/* The state of one load. */
struct rules_parser {
	const char *name; /* the file, in messages */
	struct rules *r;
	struct rules_error errs[RULES_ERRORS_MAX]; /* the first ones, by line */
	size_t nerrs;
	size_t dropped;
	bool nomem;
	bool too_many; /* more than RULES_RULES_MAX rules: reported */

	enum section sect;
	char section[96]; /* "[global]", "[rule web]" */
	int global_line, labels_line, upload_line;
	int gline[GK_NR]; /* where each [global] key is set; 0: not */
	bool gbad[GK_NR];
	int uline[UK_NR]; /* likewise for [upload] */
	bool ubad[UK_NR];
	struct rules_raw_rule raw;    /* the [rule NAME] being read */
	struct rules_rule_meta *meta; /* one per r->rules */
	size_t rules_cap;
	int *label_lines; /* one per r->labels */
	size_t labels_cap;
};

/* The lexer's callbacks: sections and keys into a struct rules_parser. */
extern const struct ini_handler rules_sections__handler;

/* rules_sections__end - after the last line: check the last rule and
 * what needs the whole file. */
void rules_sections__end(struct rules_parser *p);

/* rules_parser__error - record "FILE:LINE: SECTION KEY: message" (parts
 * left out when NULL; LINE when > 0). Allocation failures are kept and
 * make the load fail with -ENOMEM. */
void rules_parser__error(struct rules_parser *p, int line, const char *section, const char *key,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* rules_parser__nomem - an allocation failed: the load fails with
 * -ENOMEM. */
void rules_parser__nomem(struct rules_parser *p);

/* rules_rule__check - check the whole of @raw into @r (zeroed by the
 * caller), reporting every problem. Fills @meta. */
void rules_rule__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
		       struct rules_rule_meta *meta);

/* rules_rule__check_pin - process_user, process_exe and process_cgroup
 * of @raw into @r->pin, once @r's scope and sample are known: only where
 * a process is found by its name. */
void rules_rule__check_pin(struct rules_parser *p, const struct rules_raw_rule *raw,
			   struct rule *r);

/* rules_rule__free - free what @r owns (not @r). */
void rules_rule__free(struct rule *r);

/* rules_rule__bad - "[rule NAME] KEY: bad value 'V': @msg" at the line
 * of @raw's key @k. */
void rules_rule__bad(struct rules_parser *p, const struct rules_raw_rule *raw, enum rule_key k,
		     const char *msg);

/* rules_rule__not_allowed - "[rule NAME] KEY: not allowed with signal
 * SIGNAL; @why" at the line of @raw's key @k. */
void rules_rule__not_allowed(struct rules_parser *p, const struct rules_raw_rule *raw,
			     const struct rule *r, enum rule_key k, const char *why);

/* --- rules_latency.c: the latency signals (KIND.STAT) and their keys --- */

/* rules_latency__parse_signal - @v as KIND.STAT ("runqlat.p99") into
 * @r's signal, lat_kind and lat_stat. Returns 0; -ENOENT when @v is no
 * latency signal at all; -EINVAL when KIND is one but STAT is not, with
 * "expected ..." in @msg. */
int rules_latency__parse_signal(const char *v, struct rule *r, char *msg, size_t len);

/* rules_latency__signal_name - "syscall.p99.9" for @r. Returns @buf. */
const char *rules_latency__signal_name(const struct rule *r, char *buf, size_t len);

/* rules_latency__check_window - window = DURATION (1s to 10m) of a
 * latency rule into lat_window_ns; unset: 0, one poll interval. */
void rules_latency__check_window(struct rules_parser *p, const struct rules_raw_rule *raw,
				 struct rule *r);

/* rules_latency__scope - which of @cg, @pid, @proc (the values of
 * cgroup, pid and process, already checked) a latency rule watches: at
 * most one, none for biolat. Returns it; when none is set, the run's
 * scope in a file for trapd ci (biolat aside), else the system's; or
 * NULL after reporting a conflict. */
const struct rule_scope *rules_latency__scope(struct rules_parser *p,
					      const struct rules_raw_rule *raw,
					      const struct rule *r, const struct rule_scope *cg,
					      const struct rule_scope *pid,
					      const struct rule_scope *proc);

/* rules_latency__check - min_count, syscalls, device and function of any
 * rule with a signal: each refused where @r's signal does not take it,
 * checked into @r where it does; function required for func.*. */
void rules_latency__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r);

/* rules_upload__defaults - every [upload] key with a default, from its
 * text. Returns 0 or -ENOMEM. */
int rules_upload__defaults(struct rules_upload *u);

/* rules_upload__check - after the last line: split the url, and check
 * that the keys set fit its scheme and each other. */
void rules_upload__check(struct rules_parser *p);

/* rules_upload__print - the [upload] section (nothing without one). */
void rules_upload__print(const struct rules_upload *u, FILE *out);

/* rules_upload__free - free what @u owns (not @u). */
void rules_upload__free(struct rules_upload *u);

#endif
