/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* session.h - one capture, from the decision to capture to its written
 * files: resolve and hold the target, arm the sampler, follow the window
 * (process announcements, the target's exit, the deadline, cgroup v1
 * members), then stop, symbolize and write CAPTURE.pb.zst and CAPTURE.json.
 *
 * A session runs inside its caller's event loop: `trapd capture` polls it
 * next to its signalfd, the daemon adds it to its epoll set. The loop
 * watches one fd, session__fd, which polls readable when the session has
 * something to handle. Whatever reads the targets' files (snapshots of
 * the processes that appear, then symbolizing) runs on the session's
 * worker thread (symwork.h) within a budget, so the loop never waits on
 * a target:
 *
 *	decided = clock_mono_ns();
 *	s = session__open(&opts, err, sizeof(err));
 *	session__start(s, decided);
 *	while (!session__tick(s, now = clock_mono_ns())) {
 *		wait for session__fd(s) at most session__timeout_ms(s, now);
 *		if it is readable: session__handle(s);
 *	}
 *	session__finish(s, path, &info, err, sizeof(err));
 *	session__free(s);
 *
 * A loop that must not wait for the symbolizer (the daemon's) finishes
 * in the background instead:
 *
 *	session__finish_async(s, path, &info, err, sizeof(err));
 *	(the sampler is free again: another session may arm it)
 *	until session__finished(s): wait for session__fd, session__handle(s);
 *	session__result(s, err, sizeof(err));
 *
 * Rules that fire while a capture runs join it: session__extend moves its
 * deadline, session__widen_to_system samples every task from then on.
 * All times are CLOCK_MONOTONIC nanoseconds (clock_mono_ns) except where
 * said. A sampler serves one session at a time.
 */
#ifndef TRAPD_SESSION_H
#define TRAPD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/capture/call_split.h"
#include "trapd/capture/capture.h"
#include "trapd/capture/run_cgroup.h"
#include "trapd/capture/sampler.h"
#include "trapd/capture/unwind_summary.h"
#include "trapd/util/clock.h"

/* DWARF mode: 16 KiB of stack covered every python3.11 stack measured
 * here where 4 KiB did not; perf copies 8 KiB by default. */
#define SESSION_STACK_COPY_DEFAULT (16u * 1024)
/* The kernel walk's tables, as [global] unwind_tables_memory's default. */
#define SESSION_UNWIND_TABLES_DEFAULT (16ull << 20)
/* AUTO takes DWARF mode up to this many bytes of stack copies per second
 * (freq x CPUs x copy size): 999 Hz on 4 CPUs with 16 KiB copies. */
#define SESSION_AUTO_COPY_RATE (64ull << 20)

struct session;
struct symcache;
struct symbudget;
struct history_slice;
struct overhead;

struct session_opts {
	/* What to sample: the kind, and the pid (PID) or argv (COMMAND;
	 * started by session__open, held until session__start). The cgroup
	 * of a CGROUP target is resolved from @cgroup_name. */
	struct capture_target target;
	const char *cgroup_name; /* a v2-relative name or an absolute v1/v2 path */
	uint64_t freq_hz;	 /* samples per second per CPU, 1 to 1e9 */
	uint64_t duration_ns;	 /* window length; 0 = no deadline (until a command exits) */
	uint64_t max_samples;	 /* cap on stored samples; 0 = none */
	/* How user stacks are walked: frame pointers, DWARF CFI over stack
	 * copies, or AUTO (DWARF when the sampler can and the copy rate
	 * freq x CPUs x @stack_copy_bytes stays within SESSION_AUTO_COPY_RATE;
	 * a borrowed sampler must have been opened with copies). */
	enum unwind_mode unwind;
	uint32_t stack_copy_bytes; /* per sample in DWARF mode; 0: SESSION_STACK_COPY_DEFAULT */
	/* UNWIND_MODE_KERNEL with a sampler of its own: what the tables may
	 * take (0: SESSION_UNWIND_TABLES_DEFAULT; unwind_tables.h). */
	uint64_t unwind_tables_bytes;
	/* Do not walk the frames of CPython interpreters (pyframes.h): the
	 * profile shows their native frames only. */
	bool no_python;
	/* What the window records: SAMPLER_RECORD_* bits (sampler.h); 0 is
	 * on-CPU samples only. */
	uint32_t record;
	/* An open, disarmed sampler to use, kept by the caller (the daemon's,
	 * loaded once so arming takes microseconds): the session retargets it
	 * and never frees it. NULL: the session opens one sized for its window
	 * and frees it. */
	struct sampler *sampler;
	/* Symbol tables kept by the caller across captures (the daemon's);
	 * NULL: the session loads its own and frees them. */
	struct symcache *symcache;
	/* The DWARF unwinder kept by the caller across captures (the
	 * daemon's: the CFI it read stays while it holds at most
	 * @keep_cfi_bytes); NULL: the session uses one of its own. */
	struct unwinder *unwinder;
	uint64_t keep_cfi_bytes;
	/* What symbolizing this capture may cost; NULL: the defaults. */
	const struct symbudget *budget;
	/* COMMAND: put the command in this cgroup before it execs and
	 * sample the cgroup (its children and their orphans included)
	 * rather than follow its forks (`trapd ci`). The caller owns it and
	 * removes it after the command. NULL: the command stays where trapd
	 * is. */
	struct run_cgroup *command_cgroup;
	/* Split the samples by the calls they fell in (call_split.h): the
	 * calls to number (kind SAMPLER_CALLS_NONE: no split), what they
	 * are in words for the capture's metadata ("func /usr/bin/x:f"),
	 * and where slow starts. */
	struct sampler_calls calls;
	const char *calls_what;
	struct call_threshold slow;
	/* The flight recorder's seconds before the decision (history.h),
	 * taken over by the session (freed by session__free, also on a
	 * failed open): the capture's "before" phase. NULL: none. */
	struct history_slice *before;
	/* The overhead budget (overhead.h): the window's frequency is chosen
	 * to fit @max_overhead_pct of the host by @overhead's measures, and
	 * the window ends early ("overhead budget") once its measured cost
	 * passes it. NULL or 0: none. */
	struct overhead *overhead;
	double max_overhead_pct;
	uint64_t overhead_bpf_hint_ns; /* what a sample's BPF cost elsewhere (0: unknown) */
};

/* session__open - check the target exists (a command target is started,
 * held at its gate), ready the sampler for it (disarmed) and start
 * following it. Returns the session, or NULL with errno set: EINVAL for a
 * bad target or option (usage-class: no such pid or cgroup, a frequency
 * out of range), any other errno for a runtime failure. @err then holds
 * the message, or is "" when it was already reported (a bad target). */
struct session *session__open(const struct session_opts *opts, char *err, size_t errlen);

/* session__start - arm the sampler (the window starts), record the start
 * and the time from @decided_mono_ns (when the decision to capture was
 * taken) to armed, and let a command target run. Returns 0; -ENOEXEC when
 * the command could not be run (reported; session__target's exit_status
 * is 126 or 127); another negative errno if arming failed. */
int session__start(struct session *s, int64_t decided_mono_ns);

/* session__fd - the one fd the caller's loop watches (an epoll fd over the
 * sampler's announcements and the target's pidfd): readable means call
 * session__handle. Owned by the session, valid until session__free; a
 * caller using epoll removes it before session__free. */
int session__fd(const struct session *s);

/* session__handle - snapshot the processes the sampler announced and
 * notice the target's exit (a pid: the window ends with "target exited",
 * unless the scope was widened; a command: it is reaped and the window
 * ends with "command exited"). Never blocks; harmless when nothing is
 * pending, so it may also be called on SIGCHLD. */
void session__handle(struct session *s);

/* session__tick - call after every wake-up of the loop: re-reads the
 * members of a cgroup v1 target when due and closes the window at its
 * deadline. Returns true once the window is over (deadline, the target's
 * exit, session__end): then call session__finish. */
bool session__tick(struct session *s, int64_t now);

/* session__timeout_ms - how long the loop may wait before the next
 * session__tick: up to the deadline, at most 100 ms while a cgroup v1
 * target's members are followed, 0 once the window is over, -1 when only
 * session__fd can end it. Rounded up to whole milliseconds. */
int session__timeout_ms(const struct session *s, int64_t now);

/* session__deadline - when the window closes (monotonic ns), 0 if it has
 * no deadline or has not started. */
int64_t session__deadline(const struct session *s);

/* session__extend - a later rule joins the running capture: its window
 * closes at @deadline_mono_ns if that is later (never earlier). The maps
 * keep the size they were opened with; what no longer fits is counted as
 * lost. Returns 0 (also when the window has no deadline, which covers any
 * extension); -EINVAL before session__start; -EALREADY once the window is
 * over. */
int session__extend(struct session *s, int64_t deadline_mono_ns);

/* session__widen_to_system - a rule with another scope joins: from the
 * next sample on, every task is sampled, and the capture records that it
 * was widened and @why (copied; the first reason is kept). A pid target's
 * exit no longer ends the window, and cgroup v1 members are no longer
 * re-read. No-op for a system target. Returns 0 or a negative errno
 * (logged; the capture goes on with its old scope). */
int session__widen_to_system(struct session *s, const char *why);

/* session__end - end the window now, for @reason ("interrupted", "daemon
 * stopping"; a string that outlives the session). The first reason given,
 * by this or by the session itself, is the one recorded. */
void session__end(struct session *s, const char *reason);

/* session__signal_command - pass @signo to a command target still running
 * (a kill of trapd alone must not orphan it). No-op for other targets. */
void session__signal_command(struct session *s, int signo);

/* session__wait_command - after the window, wait for a command target
 * that is still running to exit (the window only bounds the sampling);
 * its status is then session__target(s)->exit_status. No-op for other
 * targets or a command already reaped. */
void session__wait_command(struct session *s);

/* session__target - the target as resolved: the cgroup's path and version,
 * a command's pid and, once reaped, its exit status (-1 until then). */
const struct capture_target *session__target(const struct session *s);

/* session__close - stop the sampler (if the window is still open) and
 * copy the window out of its maps: a borrowed sampler is then free for
 * another session. session__finish_async and the others below call it.
 * Returns 0 or a negative errno with @err filled. */
int session__close(struct session *s, char *err, size_t errlen);

/* session__finish_async - session__close, then have the worker build the
 * symbolized profile and write @path (.pb.zst) and its sidecar; @path and
 * @info must stay valid until session__finished. Fills @info as
 * session__finish does (the session's parts at once, the counts when the
 * job runs). Returns 0 or a negative errno with @err filled. */
int session__finish_async(struct session *s, const char *path, struct capture_info *info, char *err,
			  size_t errlen);

/* session__finished - whether the background job is done (noticed by
 * session__handle when session__fd polls readable). */
bool session__finished(const struct session *s);

/* session__wait - block until the background job is done (a daemon
 * stopping: nothing is lost). */
void session__wait(struct session *s);

/* session__result - the background job's outcome: 0, or a negative errno
 * with @err filled; -EINPROGRESS before session__finished. */
int session__result(const struct session *s, char *err, size_t errlen);

/* session__build - what session__finish does short of writing: stop the
 * sampler and build the symbolized profile into *@out (free it with
 * profile__free), filling @info like session__finish. For a caller that
 * merges several windows into one capture (`trapd ci --runs`). Returns 0
 * or a negative errno with @err filled. */
int session__build(struct session *s, struct capture_info *info, struct profile **out, char *err,
		   size_t errlen);

/* session__finish - stop the sampler (if the window is still open), build
 * the symbolized profile and write @path (.pb.zst) and its .json sidecar
 * atomically. The caller fills @info's id, trigger, triggers and labels;
 * the session fills the rest (target, window, frequency, counts,
 * scope_widened, which points into the session: valid until session__free).
 * An unfinished window is recorded as ended by "duration". May be called
 * again (another path) after a failure. Returns 0 or a negative errno with
 * @err filled ("reading the capture: ..." or "writing the capture: ..."). */
int session__finish(struct session *s, const char *path, struct capture_info *info, char *err,
		    size_t errlen);

/* session__free - disarm if still armed, release the target (a command
 * never started is reaped; a running one is left running) and, unless it
 * was borrowed, the sampler. NULL is a no-op. */
void session__free(struct session *s);

#endif
