/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sampler.h - control of the in-kernel stack sampler (bpf/sampler.bpf.c).
 *
 * Lifecycle: sampler__open loads the BPF program with maps sized for the
 * window and opens one cpu-clock perf event per online CPU, attached but
 * disarmed. sampler__start arms it (a store into mapped memory and one
 * ioctl per CPU, so sampling begins within microseconds of the decision);
 * sampler__stop disarms it. sampler__move takes the aggregated samples out
 * of the maps, during the window (when sampler__spill_due says they are
 * filling) and once it is closed. A daemon keeps one sampler open and arms
 * it for every capture.
 */
#ifndef TRAPD_SAMPLER_H
#define TRAPD_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/sampler.h"
#include "rules/rules_model.h"
#include "trapd/latency/latency_hist.h"
#include "trapd/latency/latency_probe.h"

struct sampler;

enum sampler_target {
	SAMPLER_TARGET_ALL,    /* every task on every CPU */
	SAMPLER_TARGET_PIDS,   /* thread groups added with sampler__add_pid */
	SAMPLER_TARGET_CGROUP, /* tasks in the cgroup v2 directory @cgroup_fd and below */
};

struct sampler_opts {
	uint64_t freq_hz;     /* samples per second per CPU */
	uint64_t window_ns;   /* expected window; sizes the maps */
	uint64_t max_samples; /* cap for one window; 0 = none (the maps are still
				 * sized from the window and count what they drop) */
	enum sampler_target target;
	int cgroup_fd;	   /* SAMPLER_TARGET_CGROUP: an open cgroup v2 directory */
	bool follow_forks; /* SAMPLER_TARGET_PIDS: children of watched pids too */
	/* DWARF mode: bytes of user stack each sample copies (with the user
	 * registers) for user space to unwind, at most SAMPLER_COPY_MAX; 0:
	 * frame pointers. At open it sizes the copies ring and is the most a
	 * retarget may ask for. */
	uint32_t stack_copy_bytes;
	/* What a window records: SAMPLER_RECORD_* bits; 0 means on-CPU
	 * samples only. Off-CPU time needs sampler__can_offcpu. */
	uint32_t record;
	/* At open: the sampler serves the window these opts describe and no
	 * other (a one-shot capture, the flight recorder), so the hooks it
	 * will not use are not loaded: the off-CPU hook unless @record asks
	 * for it, the call hooks unless @split_calls (their verification
	 * alone took 46 ms of a capture's start here). A kept sampler loads
	 * them all, to serve any rule. */
	bool one_window;
	bool split_calls;
	/* The kernel walk (bpf/sampler.h): at open, the rows its tables may
	 * hold (its memory bound, 8 bytes a row; 0: the sampler never walks);
	 * at open and retarget, non-zero has the window walk. Where the
	 * kernel cannot (sampler__can_walk false), stacks are walked by frame
	 * pointers, or copied (@stack_copy_bytes). */
	uint32_t walk_rows;
	/* ... or, at open, tables to share (unwind_tables.h: the sampler
	 * takes a reference), and with them the walk: @walk_rows is then
	 * not used for their size. */
	struct unwind_tables *walk_tables;
	/* Take no samples of trapd's own process (the flight recorder: the
	 * tables it builds and the stacks it names would otherwise be what it
	 * samples, and names, most on a quiet host). */
	bool skip_self;
};

/* What a window records (sampler_opts.record). */
enum sampler_record_what {
	SAMPLER_RECORD_CPU = 1,	   /* on-CPU samples at freq_hz */
	SAMPLER_RECORD_OFFCPU = 2, /* the time watched tasks spend off the CPU (sampler.h) */
};

/* What one window recorded and lost, summed over CPUs. */
struct sampler_stats {
	uint64_t v[SAMPLER_STAT_NR];
};

/* One aggregated sample handed to a sample_dump__for_each callback. Stacks are
 * leaf first; a NULL stack has length 0. */
struct sampler_record {
	const struct sampler_key *key;
	uint64_t count;
	const uint64_t *user_ips;
	uint32_t user_len;
	const struct sampler_leaf *user_leaf; /* the user stack's leaf hint */
	const uint64_t *kernel_ips;
	uint32_t kernel_len;
	const uint64_t *py; /* Python frames: struct sampler_py_frame words */
	uint32_t py_len;    /* ... how many words */
	bool unwound; /* the user stack was unwound from a copy, not walked by frame pointers */
};

typedef int (*sampler_record_fn)(const struct sampler_record *rec, void *ctx);
typedef void (*sampler_event_fn)(const struct sampler_event *ev, void *ctx);

/* sampler__can_walk - whether the sampler walks user stacks in the
 * kernel with tables (sampler_opts.walk_rows, and a kernel that can). */
bool sampler__can_walk(const struct sampler *s);

/* sampler__unwind_tables - the tables its kernel walk uses, NULL if it
 * cannot walk (a reference for another sampler to share: take it with
 * unwind_tables__get). */
struct unwind_tables *sampler__unwind_tables(const struct sampler *s);

/* sampler__walk_end_name - "entry", "no_table", ...: enum sampler_walk_end. */
const char *sampler__walk_end_name(int end);

/* sampler__walk_tables_stats - its tables' counters; zeros without. */
struct unwind_tables_stats;
void sampler__walk_tables_stats(const struct sampler *s, struct unwind_tables_stats *out);

/* sampler__check_freq - whether @freq_hz is a frequency the sampler takes
 * (1 Hz to 1 GHz: a cpu-clock period of at least 1 ns). Returns 0, or
 * -EINVAL with @err filled. */
int sampler__check_freq(uint64_t freq_hz, char *err, size_t errlen);

/* sampler__open - load and attach, disarmed. On failure returns NULL, sets
 * errno and writes what went wrong (and what to do) to @err. */
struct sampler *sampler__open(const struct sampler_opts *opts, char *err, size_t errlen);
void sampler__free(struct sampler *s);

/* sampler__retarget - point an open sampler elsewhere: the target (and
 * @cgroup_fd for SAMPLER_TARGET_CGROUP), follow_forks, max_samples and
 * freq_hz of @o; window_ns is fixed at open (the maps keep their size).
 * Between windows it readies a kept sampler for the next capture: a new
 * SAMPLER_TARGET_PIDS starts with no pid (add them after). While armed,
 * retargeting to SAMPLER_TARGET_ALL widens the running window from the
 * next sample on. Children are followed only if the sampler was opened
 * with follow_forks (the fork hook is loaded then). Returns 0 or a
 * negative errno with @err filled. */
int sampler__retarget(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen);

/* sampler__can_offcpu - whether @s loaded its scheduler hook, so a
 * window can record off-CPU time (it needs tracefs and the sched_switch
 * tracepoint). */
bool sampler__can_offcpu(const struct sampler *s);

/* sampler__add_waiting - a task of the target already off the CPU when
 * the window opened (waiting.h): its time counts from @since_mono_ns
 * under @key (its off-CPU state set; its stack ids are filled in here
 * from @kips[0..kn) and @uips[0..un), leaf first, stored as the program
 * stores stacks), as if the hook had seen it leave. While armed, from any
 * thread. Returns 0, -EEXIST when the hook has the task already (it ran
 * and left again since the window opened), or a negative errno. */
int sampler__add_waiting(struct sampler *s, struct sampler_key *key, const uint64_t *kips,
			 uint32_t kn, const uint64_t *uips, uint32_t un, uint64_t since_mono_ns);

/* sampler__forget_waiting - undo sampler__add_waiting of @tid when its
 * entry is still the one added at @since_mono_ns (the task ran meanwhile,
 * and would otherwise be counted as waiting while it runs). */
void sampler__forget_waiting(struct sampler *s, uint32_t tid, uint64_t since_mono_ns);

/* Calls whose samples a window tells apart (bpf/sampler.h): a user
 * function's or system calls'. */
struct sampler_calls {
	enum sampler_calls_kind kind;
	const char *binary; /* FUNC: the file the function is in */
	uint64_t offset;    /* FUNC: the function's file offset */
	int pid;	    /* FUNC: probe this process's mapping only; -1: every process */
	bool all_syscalls;  /* SYSCALL: every system call, else those in @syscalls */
	uint64_t syscalls[SAMPLER_CALL_SYSCALL_WORDS];
};

/* sampler_calls__of - the calls latency rule @r's probe measures, as
 * resolved on this host into @spec (a func or syscall probe), into @out,
 * and in words for a capture's metadata into @what ("func /path:symbol",
 * "syscall read,write"). Returns 0, or -EINVAL for another kind. */
int sampler_calls__of(const struct latency_probe_spec *spec, const struct rule *r,
		      struct sampler_calls *out, char *what, size_t len);

/* sampler__split_calls - before sampler__start: the next window numbers
 * the watched threads' calls @c (NULL or SAMPLER_CALLS_NONE: none), its
 * probes attached now and detached by sampler__stop. Returns 0 or a
 * negative errno with @err filled (no such binary or offset; no
 * raw_syscalls tracepoints: -ENOTSUP). */
int sampler__split_calls(struct sampler *s, const struct sampler_calls *c, char *err,
			 size_t errlen);

/* sampler__can_split_syscalls - whether @s loaded its system call hooks
 * (they need tracefs and raw_syscalls/sys_enter). */
bool sampler__can_split_syscalls(const struct sampler *s);

/* sampler__window_split_calls - after sampler__stop: whether the window
 * numbered calls (sampler__read_calls has them). */
bool sampler__window_split_calls(const struct sampler *s);

/* sampler_call_fn - one sampled call of the window: its number, its
 * duration in ns and whether it was still open at the stop (@ns is then
 * how long it had lasted). Returns 0 or a negative errno, which stops. */
typedef int (*sampler_call_fn)(uint64_t id, uint64_t ns, bool open, void *ctx);

/* sampler__read_calls - after sampler__stop: each call a sample or wait
 * fell in, to @fn, and the histogram of every call that returned in the
 * window into @all. Bounded by SAMPLER_CALL_TIMES + SAMPLER_CALL_TASKS.
 * Returns 0 or a negative errno. */
int sampler__read_calls(struct sampler *s, sampler_call_fn fn, void *ctx, struct lat_hist *all);

/* sampler__recopy_site - DWARF mode off the CPU: the copy of blocking
 * site @site did not unwind (its process had just exec'd, its maps were
 * not readable yet): the next wait there copies it again. */
void sampler__recopy_site(struct sampler *s, uint64_t site);

/* sampler__add_pid - watch thread group @pid (SAMPLER_TARGET_PIDS). */
int sampler__add_pid(struct sampler *s, int pid);

/* sampler__start - arm: samples count from now (and off-CPU time, when
 * the target asked for it: the scheduler hook is attached until
 * sampler__stop). Clears the previous window's data. Returns 0 or a
 * negative errno. */
int sampler__start(struct sampler *s);

/* sampler__dither - each CPU's next samples at a rate drawn anew,
 * uniformly within +-SAMPLER_DITHER of the frequency, its timer started
 * again from now; to be called about every SAMPLER_DITHER_PERIODS
 * periods while armed (sampler__dither_every_ns).
 *
 * A fixed period aliases with code that loops at a steady rate: when an
 * iteration takes about a whole number of periods, or a period about a
 * whole number of iterations, every sample falls at nearly the same point
 * of the iteration and one function takes the share of its neighbours
 * (measured: a 60/30/10 loop at 499 Hz, one run in 20 of the same binary
 * read 72.7 % for its 60 % function, a CI gate's false alarm). A new rate
 * and a restart every few periods move the samples across the iteration
 * whatever its length. A restart drops what had passed of the current
 * period (half of one, on average), so the rates drawn are raised by
 * 1 / (2 x SAMPLER_DITHER_PERIODS): the samples of a window still number
 * freq_hz a second on average, and each still weighs one period. Every
 * second call mirrors the one before (a rate of 1 - u after 1 + u), so the
 * count of a window's samples does not wander with the draws. Returns
 * 0 or the first negative errno (a CPU whose rate failed keeps its own). */
#define SAMPLER_DITHER 0.5
#define SAMPLER_DITHER_PERIODS 16
int sampler__dither(struct sampler *s);
uint64_t sampler__dither_every_ns(const struct sampler *s);

/* sampler__bound_offcpu - from the next sampler__start: each CPU takes
 * the stacks of at most @takes_per_sec tasks leaving it a second (0: no
 * bound); past it, waits are timed under the stacks their task last left
 * with (bpf/sampler.h, SAMPLER_STAT_OFFCPU_THROTTLED). */
void sampler__bound_offcpu(struct sampler *s, uint64_t takes_per_sec);

/* sampler__disarm - the window ends now: the program takes nothing more
 * (one store, so the decision is kept to the microsecond however busy
 * the host). Returns when it was (CLOCK_MONOTONIC ns), the first call's
 * time for a window disarmed already. */
uint64_t sampler__disarm(struct sampler *s);

/* sampler__stop - disarm (if sampler__disarm has not) and detach what the
 * window attached: no sample is taken after it returns. The time of tasks
 * still off the CPU is counted up to the disarm. */
int sampler__stop(struct sampler *s);

/* sampler__events_fd - an fd that polls readable when announcements are
 * waiting; sampler__drain_events hands them to @fn. */
int sampler__events_fd(const struct sampler *s);
int sampler__drain_events(struct sampler *s, sampler_event_fn fn, void *ctx);

/* sampler__lives_fd - the map of the lives of the processes the window
 * met (bpf/sampler.h: struct sampler_seen), counted from the window's
 * start until the next one's; dup it to read it after the sampler goes.
 *
 * sampler_lives__current - whether thread group @pid is in life @life
 * still, by that map: what /proc/PID says between two answers of yes is
 * that life's. From any thread. */
int sampler__lives_fd(const struct sampler *s);
bool sampler_lives__current(int lives_fd, uint32_t pid, uint32_t life);

/* A Python code object's announcement (struct sampler_py_code, @size
 * bytes), handed over by sampler__drain_events. */
typedef void (*sampler_py_code_fn)(const void *rec, size_t size, void *ctx);

/* sampler__on_py_code - where sampler__drain_events hands announcements
 * of code objects (NULL: dropped). */
void sampler__on_py_code(struct sampler *s, sampler_py_code_fn fn, void *ctx);

/* sampler__py_procs_fd - the map of the processes whose Python frames
 * are walked (pyframes__register writes it). */
int sampler__py_procs_fd(const struct sampler *s);

/* sampler__copies_fd - the copies ring buffer (struct sampler_copy
 * records, DWARF mode), -1 if the sampler was opened without it. */
int sampler__copies_fd(const struct sampler *s);

/* sampler__copy_max - the most stack a sample may copy (0: no copies). */
uint32_t sampler__copy_max(const struct sampler *s);

/* sampler__window_seq - the current arming's number, as the copies of
 * this window carry it (copies of an earlier window are stale). */
uint32_t sampler__window_seq(const struct sampler *s);

/* sampler_move_fn - takes one entry sampler__move took out of a map: for the
 * stacks map @key is its __u64 id and @value its struct sampler_stack, for
 * the counts map a struct sampler_key and its __u64 count. Returns 0 or a
 * negative errno, which stops the move (the entry is gone either way). */
typedef int (*sampler_move_fn)(const void *key, const void *value, void *ctx);

/* sampler__spill_due - whether the stacks or counts map is past its
 * high-water mark in this window, so its entries should be moved out
 * (a read of mapped memory: cheap enough for every tick). */
bool sampler__spill_due(const struct sampler *s);

/* sampler__move - take up to @max_stacks entries out of the stacks maps
 * (the spare one first, sampler.bpf.c) and then up to @max_counts out of
 * the counts maps, each handed to @stack_fn or @count_fn. While armed, the program adds entries again as it meets
 * them (a stack already moved comes back under the same id; a count comes
 * back as a new entry to be added to the old). The work is bounded by the
 * maps' sizes, which sampler__open chose. An increment racing with the
 * move of its count entry is lost: a window of a few instructions.
 * Returns 0 or a negative errno. */
int sampler__move(struct sampler *s, size_t max_stacks, size_t max_counts, sampler_move_fn stack_fn,
		  sampler_move_fn count_fn, void *ctx);

/* sampler__get_stats - the window's counters. */
int sampler__get_stats(struct sampler *s, struct sampler_stats *out);

/* sampler__samples_lost - samples dropped or stored without one of their
 * stacks: the counters that say the profile is missing something, as
 * opposed to those about stack depth or process announcements. */
uint64_t sampler__samples_lost(const struct sampler_stats *st);

/* sampler__stat_name - a short name for counter @i ("idle", "over_cap"..). */
const char *sampler__stat_name(int i);

/* sampler__offcpu_state_name - the label of off-CPU state @state (enum
 * sampler_offcpu_state) in profiles and sidecars: "sleeping",
 * "uninterruptible", "runnable", or "other" for any other value. */
const char *sampler__offcpu_state_name(uint32_t state);

/* sampler__ncpus - how many CPUs are being sampled. */
int sampler__ncpus(const struct sampler *s);

/* What @s's BPF programs cost since they were loaded, from the kernel's
 * run-time statistics (0 unless BPF_ENABLE_STATS is on: overhead.h). The
 * sampling program runs once a sampling interrupt, at the frequency
 * trapd chose (on an idle CPU too); the hooks (scheduler switches for
 * off-CPU time, system calls and probes for calls, process forks and
 * execs) run at every such event of every task on the host, before they
 * filter, so what they cost is the host's load, not trapd's choice. */
struct sampler_cost {
	uint64_t sample_ns, sample_runs;
	uint64_t hook_ns;
};

/* sampler__bpf_cost - @s's programs' cost so far into @out. */
void sampler__bpf_cost(const struct sampler *s, struct sampler_cost *out);

#endif
