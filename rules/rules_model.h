/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rules_model.h - the rules file as data: what a loaded struct rules
 * holds (rules, their signals, scopes and thresholds, [global], [labels],
 * [upload]), the limits a file is held to, and the few questions about
 * that data that need nothing but the data itself. Every other file of
 * rules/ builds on this one; it includes none of them.
 *
 * rules.h is the header users include: it brings this one with the
 * loading and printing of the file. A loaded struct rules is valid (every
 * value was checked when the file was read, docs/rules.md), so the
 * daemon never meets a bad rule at run time.
 *
 * Values of a signal are integers in the rule's base unit (rule__unit,
 * rule_words.h): hundredths of a percent, bytes, a count, thousandths
 * per second, or nanoseconds. Thresholds are parsed exactly into that
 * unit.
 */
#ifndef TRAPD_RULES_MODEL_H
#define TRAPD_RULES_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RULE_NAME_MAX 64 /* bytes of a rule's name, NUL included */
/* Rules one file may hold. Each costs the daemon memory, a share of every
 * poll and, for a PSI rule over a window of its own, a file descriptor:
 * a file cannot make the daemon's loop or memory unbounded. */
#define RULES_RULES_MAX 256

/* What a rule watches. Spelled in the file as rule__signal_name
 * (rule_words.h) spells it. */
enum rule_signal {
	RULE_SIGNAL_CPU,	    /* "cpu": cgroup CPU usage, % of one CPU */
	RULE_SIGNAL_CPU_QUOTA,	    /* "cpu.quota": cgroup CPU usage, % of its quota */
	RULE_SIGNAL_THROTTLED,	    /* "cpu.throttled": % of enforcement periods throttled */
	RULE_SIGNAL_THROTTLED_TIME, /* "cpu.throttled_time": throttled time, % of wall time */
	RULE_SIGNAL_THROTTLED_RATE, /* "cpu.throttled_rate": throttling events per second */
	RULE_SIGNAL_PSI,	    /* "psi.RESOURCE.some|full": stall share, % */
	RULE_SIGNAL_PROC_CPU,	    /* "process.cpu": % of one CPU */
	RULE_SIGNAL_PROC_RSS,	    /* "process.rss": bytes */
	RULE_SIGNAL_PROC_THREADS,   /* "process.threads": count */
	RULE_SIGNAL_PROC_FDS,	    /* "process.fds": open file descriptors */
	RULE_SIGNAL_LATENCY,	    /* "runqlat|syscall|biolat|func.STAT": a latency histogram */
	RULE_SIGNAL_NR,
};

/* The base unit a signal's values and thresholds are expressed in. */
enum rule_unit {
	RULE_UNIT_CENTI_PERCENT, /* 8050 = 80.5% */
	RULE_UNIT_BYTES,
	RULE_UNIT_COUNT,
	RULE_UNIT_MILLI_PER_SEC, /* 2500 = 2.5 per second */
	RULE_UNIT_NSEC,		 /* a duration: 5000000 = 5ms */
};

/* Which latency histogram a RULE_SIGNAL_LATENCY rule watches (the word
 * before the dot), measured in the kernel by bpf/latency.bpf.c. */
enum rule_latency_kind {
	RULE_LAT_RUNQ,	  /* "runqlat": wakeup or preemption to running */
	RULE_LAT_SYSCALL, /* "syscall": system call entry to exit */
	RULE_LAT_BIO,	  /* "biolat": block request issue to completion */
	RULE_LAT_FUNC,	  /* "func": a user function's entry to return */
};

/* ...and which figure of the window's distribution (the word after). */
enum rule_latency_stat {
	RULE_LAT_P50,	/* "p50" */
	RULE_LAT_P90,	/* "p90" */
	RULE_LAT_P99,	/* "p99" */
	RULE_LAT_P999,	/* "p99.9" */
	RULE_LAT_MAX,	/* "max" */
	RULE_LAT_COUNT, /* "count": events in the window */
	RULE_LAT_RATE,	/* "rate": events per second */
};

/* A syscall.* rule's syscalls = names are numbered below this: the
 * kernel side keeps them in a bitmap of this many bits (bpf/latency.h,
 * LAT_SYSCALL_WORDS * 64). */
#define RULE_LAT_SYSCALL_NR 512

enum rule_psi_resource {
	RULE_PSI_CPU,
	RULE_PSI_MEMORY,
	RULE_PSI_IO,
};

/* Which PSI figure: the kernel's running averages, or the stall share over
 * a window of the rule's own (psi_window_ns), computed from the "total"
 * counter or, where the kernel supports the window, by a PSI trigger. */
enum rule_psi_window {
	RULE_PSI_AVG10,
	RULE_PSI_AVG60,
	RULE_PSI_AVG300,
	RULE_PSI_CUSTOM,
};

/* Where a signal is read, and what a capture samples. */
enum rule_scope_kind {
	RULE_SCOPE_SYSTEM,  /* the whole host (PSI: /proc/pressure) */
	RULE_SCOPE_CGROUP,  /* cgroup: a v2-relative path or an absolute v1/v2 directory */
	RULE_SCOPE_PID,	    /* pid */
	RULE_SCOPE_PROCESS, /* process: every process whose comm is this name */
	RULE_SCOPE_RUN,	    /* the command `trapd ci -c` runs: its cgroup, once made
			     * (rules__resolve_run); only in a file read RULES_FOR_CI */
};

/* How a capture walks user stacks (unwind =): as `trapd capture
 * --unwind` does, the daemon maps it onto the capture's own mode. */
enum rule_unwind {
	RULE_UNWIND_AUTO,   /* "auto": DWARF when the sampler can and the copy rate allows */
	RULE_UNWIND_DWARF,  /* "dwarf": stack copies unwound with the programs' CFI */
	RULE_UNWIND_FP,	    /* "fp": frame pointers, walked by the kernel */
	RULE_UNWIND_KERNEL, /* "kernel": tables of the programs' CFI, walked in the BPF program */
};

/* What a capture records (capture =): bits, as the sampler's
 * SAMPLER_RECORD_* (trapd/guard asserts they agree). */
enum rule_record {
	RULE_RECORD_CPU = 1,	/* "cpu": on-CPU samples */
	RULE_RECORD_OFFCPU = 2, /* "offcpu": the time the target's threads wait off the CPU */
	RULE_RECORD_BOTH = 3,	/* "cpu+offcpu" */
};

/* Bytes of user stack a sample copies in DWARF mode (stack_copy =).
 * The most is the sampler's SAMPLER_COPY_MAX (bpf/sampler.h), the
 * default the capture's SESSION_STACK_COPY_DEFAULT: rules/ includes
 * neither, trapd/guard asserts they agree. */
#define RULE_STACK_COPY_MIN 1024
#define RULE_STACK_COPY_MAX (32 * 1024)
#define RULE_STACK_COPY_DEFAULT (16 * 1024)

struct rule_scope {
	enum rule_scope_kind kind;
	char *cgroup;  /* RULE_SCOPE_CGROUP, as written */
	pid_t pid;     /* RULE_SCOPE_PID */
	char *process; /* RULE_SCOPE_PROCESS: a comm, at most 15 bytes */
};

/* What a process found by its name (process = NAME, sample =
 * process:NAME) must also be: a comm is whatever its owner says (any
 * user can name a process "postgres"), these are not. Every one set must
 * hold; none set: the name alone decides. */
struct rule_pin {
	char *user;   /* process_user as written (a name or a uid); NULL: any */
	uid_t uid;    /* ...resolved when the file is loaded: real and effective uid */
	char *exe;    /* process_exe: an absolute path; NULL: any */
	char *cgroup; /* process_cgroup: "system.slice/x.service", in it or below */
};

struct rule {
	char name[RULE_NAME_MAX];
	int line; /* line of its [rule NAME] header */

	/* what is watched */
	enum rule_signal signal;
	enum rule_psi_resource psi_resource; /* RULE_SIGNAL_PSI */
	bool psi_full;			     /* "full" rather than "some" */
	enum rule_psi_window psi_window;
	uint64_t psi_window_ns;		 /* RULE_PSI_CUSTOM */
	enum rule_latency_kind lat_kind; /* RULE_SIGNAL_LATENCY */
	enum rule_latency_stat lat_stat;
	uint64_t lat_window_ns; /* window = DURATION; 0: one poll interval */
	uint32_t lat_min_count; /* percentiles need this many events in the window */
	char *lat_syscalls;	/* syscall: "read,write" (normalised); NULL: all */
	char *lat_device;	/* biolat: "sda" or "8:0"; NULL: every device */
	char *lat_function;	/* func: "/abs/path:symbol" (required) */
	struct rule_scope scope;
	struct rule_pin pin; /* of scope and sample process names */

	/* when it fires */
	bool above;	       /* "above = X" (true) or "below = X" (false) */
	int64_t threshold;     /* base unit */
	int64_t clear;	       /* re-armed once the value is back past this level
			    * (default: the threshold) */
	uint64_t for_ns;       /* the breach must hold this long (0: at once) */
	uint64_t clear_for_ns; /* ...and the clear level must hold this long */

	/* what it captures */
	uint64_t window_ns;
	uint64_t freq_hz;
	struct rule_scope sample; /* defaults to the signal's scope (system
				   * for host-wide PSI) */
	enum rule_unwind unwind;
	uint64_t stack_copy_bytes; /* DWARF mode (not fp) */
	bool python;		   /* walk CPython interpreters' frames (python =) */
	/* what the capture records (capture =); unset: both for a rule that
	 * fires on waiting (below, PSI, throttling, latency) with a sample
	 * scope narrower than the host, else on-CPU only (rules__record_default) */
	enum rule_record record;
	/* func and syscall rules: split the capture's samples by the call
	 * they fell in (slow_calls =, rules__slow_default): slow from
	 * @slow_ns, or when 0 from the @slow_pct percentile of the
	 * window's calls; @split_calls false: "off". */
	bool split_calls;
	uint64_t slow_ns;
	double slow_pct;

	/* how often it may */
	uint64_t cooldown_ns;
	uint32_t max_per_hour; /* 0: no limit of its own */
	uint32_t max_per_day;
	bool dry_run; /* log decisions, never capture (or inherit [global]) */
};

struct rules_global {
	uint64_t poll_interval_ns;
	char *spool_dir;
	uint64_t spool_max_bytes;
	uint32_t spool_max_files;
	uint32_t max_per_hour; /* all rules together; 0: no limit */
	uint32_t max_per_day;
	uint64_t max_window_ns; /* a capture extended by later rules stops here */
	uint64_t history_ns;	/* signal history kept for a capture's metadata */
	bool dry_run;
	char *control_socket;
	char *control_group; /* NULL: root only */
	/* what SIGUSR1 and `trapd arm` without a rule capture */
	uint64_t manual_window_ns;
	uint64_t manual_freq_hz;
	struct rule_scope manual_sample;
	enum rule_unwind manual_unwind;
	uint64_t manual_stack_copy_bytes;
	bool manual_python;
	enum rule_record manual_record;
	uint64_t symbol_cache_bytes; /* symbol tables kept between captures */
	/* what symbolizing one capture may cost (trapd/symbolize/symbudget.h) */
	uint64_t symbolize_bytes;	   /* symbol tables read, debug files hashed */
	uint32_t symbolize_symbols;	   /* symbols kept */
	uint64_t symbolize_perf_map_bytes; /* perf maps, all processes */
	uint64_t symbolize_time_ns;	   /* wall time from the window's close */
	/* the flight recorder: stacks of the seconds before a trigger */
	uint64_t history_freq_hz;   /* 0: off */
	uint64_t history_window_ns; /* kept, and put into each capture */
	uint64_t history_max_bytes; /* the most its seconds may hold */
	/* the kernel walk's tables (bpf/sampler.h), in BPF maps */
	uint64_t unwind_tables_bytes;
	/* the overhead budget, in hundredths of a percent of the host */
	uint64_t max_overhead_centi;	     /* what runs always (the recorder) */
	uint64_t max_capture_overhead_centi; /* a capture's window */
};

/* Where captures go after the spool: the [upload] section. Without one,
 * captures stay in the spool. The URL is split into its parts when the
 * file is loaded. */
enum rules_upload_scheme {
	RULES_UPLOAD_NONE,
	RULES_UPLOAD_FILE,   /* file:///DIR */
	RULES_UPLOAD_HTTP,   /* http(s)://HOST[:PORT]/PATH */
	RULES_UPLOAD_S3,     /* s3://BUCKET[/PREFIX] */
	RULES_UPLOAD_AZBLOB, /* azblob://ACCOUNT/CONTAINER[/PREFIX] */
};

struct rules_upload {
	int line; /* of the [upload] header; 0: no section */
	char *url;
	/* from the url */
	enum rules_upload_scheme scheme;
	char *dir;	 /* file */
	char *base;	 /* http: the url, ending in '/' for PUT */
	char *bucket;	 /* s3 */
	char *account;	 /* azblob */
	char *container; /* azblob */
	char *prefix;	 /* s3, azblob: "" or "a/b/" */
	/* the other keys */
	char *method; /* http: "put" or "post" */
	bool post;    /* method = post */
	char *endpoint;
	char *region;
	bool path_style;
	char *access_key_id_file, *access_key_id_env;
	char *secret_access_key_file, *secret_access_key_env;
	char *session_token_file, *session_token_env;
	char *sas_token_file, *sas_token_env;
	char *auth_header_file, *auth_header_env;
	char *ca_file;
	bool tls_verify;
	bool allow_insecure_credentials; /* credentials over http:// are not an error */
	uint64_t connect_timeout_ns;
	uint64_t stall_timeout_ns;
	uint64_t timeout_ns;
	uint64_t retry_min_ns;
	uint64_t retry_max_ns;
};

/* rules_upload__insecure - whether @u sends credentials (a bearer header,
 * a SAS token, S3 keys) over plain http://: an error in a rules file
 * unless allow_insecure_credentials is set, and then worth a warning. */
bool rules_upload__insecure(const struct rules_upload *u);

struct rules_label {
	char *key;
	char *value;
};

/* What a rules file is read for. The daemon's rules name their scopes;
 * in a file for `trapd ci -c` a rule that names none watches the run
 * (RULE_SCOPE_RUN) rather than the host, and `sample = run` is allowed. */
enum rules_use {
	RULES_FOR_DAEMON,
	RULES_FOR_CI,
};

struct rules {
	char *path; /* as given to rules__load */
	enum rules_use use;
	struct rules_global global;
	struct rules_upload upload;
	struct rules_label *labels;
	size_t nlabels;
	struct rule *rules;
	size_t nrules;
};

/* Every problem found in a file, each "file:line: [section] key: message"
 * (without a newline), in file order: at most RULES_ERRORS_MAX of them,
 * then one "file: too many errors" line. */
#define RULES_ERRORS_MAX 100

struct rules_errors {
	char **msgs;
	size_t n;
};

/* rules__find - the rule of @r named @name, or NULL. */
const struct rule *rules__find(const struct rules *r, const char *name);

/* rules__record_default - what @r captures when capture = is not given:
 * on-CPU samples and off-CPU time when it fires on waiting (a below rule,
 * PSI, CPU throttling, a latency histogram), on-CPU samples only when it
 * fires on use (above on CPU, memory, threads, fds), and on-CPU samples
 * only when it samples the whole host, whose every context switch the
 * off-CPU hook would pay for. */
enum rule_record rules__record_default(const struct rule *r);

/* rules__slow_default - where slow calls start for a func or syscall
 * rule without slow_calls =: its own threshold when it watches a call's
 * duration from above (a percentile or the max: `func.p99 above 50ms`
 * splits at 50ms), else the window's p99. Sets split_calls, slow_ns and
 * slow_pct; other rules split nothing. */
void rules__slow_default(struct rule *r);

/* rules__splits_calls - whether @r's signal can split calls (func and
 * syscall latency). */
bool rules__splits_calls(const struct rule *r);

/* rule__pinned_by_name_only - whether @r finds a process by its name
 * (its signal's scope or its sample) with no process_user, process_exe
 * or process_cgroup: any local user can then stand in for it. A latency
 * rule's own process scope is not counted: pins cannot apply to it. */
bool rule__pinned_by_name_only(const struct rule *r);

#endif
