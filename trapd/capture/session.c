// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* session.c - one capture window, from the decision to the written files. */
#include "trapd/capture/session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "trapd/capture/history.h"
#include "trapd/capture/overhead.h"
#include "trapd/capture/sample_dump.h"
#include "trapd/capture/unwind_drain.h"
#include "trapd/capture/waiting.h"
#include "trapd/capture/target.h"
#include "trapd/profile/profile_phase.h"
#include "trapd/symbolize/symwork.h"
#include "trapd/util/clock.h"
#include "trapd/util/cpus.h"
#include "trapd/util/log.h"

#define NSEC_PER_SEC 1000000000ll
#define NSEC_PER_MSEC 1000000ll
/* cgroup v1 targets are followed by their member list, re-read this often. */
#define V1_REFRESH_NS (100 * NSEC_PER_MSEC)
/* A window without a deadline sizes the maps as for this long. */
#define OPEN_WINDOW_NS (60ull * NSEC_PER_SEC)
#define WIDENED_MAX 256
#define CALLS_WHAT_MAX (PATH_MAX + 320) /* "func PATH:SYMBOL" or "syscall NAMES" */
/* A process is snapshotted at its first sample and when it execs, either
 * of which can come before its dynamic loader has mapped its libraries
 * (a command's first sample often does); it is snapshotted again this
 * much later (a new snapshot adds to the old), for up to RESNAP_MAX
 * processes at a time. */
#define RESNAP_NS (50 * NSEC_PER_MSEC)
#define RESNAP_MAX 64
/* How often an armed window checks whether the sampler's maps need
 * emptying (sample_dump__spill): a map past its high-water mark (1/4)
 * must not fill before the next check, at 999 Hz on 64 CPUs. */
#define SPILL_CHECK_NS (100 * NSEC_PER_MSEC)

struct resnap {
	int pid;
	int64_t due; /* clock_mono_ns */
};

struct session {
	struct capture_target target;
	struct target_handle handle;
	struct sampler_opts sopts;     /* as the sampler was last set */
	struct sampler *sampler;       /* NULL once the window is copied out (borrowed) */
	bool own_sampler;	       /* opened here, freed here */
	struct symwork *work;	       /* the symbolizer's thread */
	struct history_slice *before;  /* the recorder's seconds before the decision */
	struct overhead_window budget; /* the window's frequency and measured cost */
	int epfd;     /* session__fd: announcements, the target's pidfd, the worker */
	int lives_fd; /* the window's lives of processes (sampler__lives_fd); -1 */
	bool events_watched;
	bool pidfd_watched;
	uint64_t duration_ns;
	bool started; /* armed at least once: stop before freeing */
	bool stopped;
	int64_t start_ns; /* realtime, ns since the epoch */
	int64_t start_mono;
	int64_t arm_ns;
	int64_t window_ns;    /* from the arming to the disarm (sampler__disarm) */
	int64_t deadline;     /* 0 = none */
	int64_t late_ns;      /* how long after the deadline the window closed */
	int64_t next_refresh; /* next re-read of cgroup v1 members */
	int64_t next_spill;   /* next sample_dump__spill */
	int64_t next_dither;  /* next sampler__dither */
	const char *end_reason;
	bool widened;
	char widened_why[WIDENED_MAX];
	struct resnap resnap[RESNAP_MAX]; /* exec'd processes to snapshot again */
	unsigned nresnap;
	struct unwind_summary unwind; /* the mode chosen; filled in DWARF mode */
	struct unwind_drain *drain;   /* DWARF mode, while the window runs */
	struct unwinder *unwinder;    /* the caller's, or NULL */
	uint64_t keep_cfi_bytes;
	struct pyframes *py;	  /* Python interpreters found, code objects announced */
	struct sample_dump *dump; /* the samples moved out of the maps */
	struct waiting *waiting;  /* off-CPU: the survey of threads already waiting */
	struct waiting_stats waiting_st;
	char calls_what[CALLS_WHAT_MAX]; /* the calls split by; "" if none */
	struct call_threshold slow;	 /* where slow calls start */
	bool collected;			 /* ...all of them: the window is closed */
	/* after the window */
	int ncpus;
	bool finishing;		   /* the worker has the final job */
	bool finished;		   /* ...and has done it */
	const char *path;	   /* where the job writes; NULL: build only */
	struct capture_info *info; /* the caller's, filled by the job */
	struct profile *profile;   /* build only: the result */
	int result;		   /* the job's: 0 or a negative errno */
	char result_msg[600];	   /* ...and what went wrong */
};

/* snapshot - have the worker snapshot @pid (it loads the files there). */
static void snapshot(struct session *s, int pid)
{
	int err = symwork__snapshot(s->work, pid);

	if (err == -ENOSPC)
		log_debug("snapshot of pid %d: the worker's queue is full", pid);
}

/* snapshot_again - on the unwinding thread: a process mapped new code
 * (dlopen); the worker's queue is thread-safe. */
static void snapshot_again(int pid, void *work)
{
	symwork__snapshot(work, pid);
}

/* life_is_current - on the worker or the unwinding thread: whether
 * @pid's life @life is the one it lives (symbolizer__check_lives). */
static bool life_is_current(int pid, uint32_t life, void *lives_fd)
{
	return sampler_lives__current(*(int *)lives_fd, (uint32_t)pid, life);
}

/* python_found - on the worker: a snapshot found an interpreter. */
static void python_found(int pid, const struct pyruntime *rt, void *py)
{
	pyframes__found(py, pid, rt);
}

/* on_py_code - on the loop: a code object's first sample in the window. */
static void on_py_code(const void *rec, size_t size, void *ctx)
{
	struct session *s = ctx;

	if (pyframes__add_code(s->py, rec, size, sampler__window_seq(s->sampler)) == -E2BIG)
		log_debug("python: more code objects than a capture keeps");
}

static void on_event(const struct sampler_event *ev, void *ctx)
{
	struct session *s = ctx;

	/* each life of a pid (an exec, a process that took a dead one's pid)
	 * has its own maps: nothing of the last life is forgotten */
	int key = prockey_make(ev->pid, ev->life);

	if (key == PROCKEY_NONE)
		return;
	snapshot(s, key);
	if (s->nresnap < RESNAP_MAX)
		s->resnap[s->nresnap++] = (struct resnap){ key, clock_mono_ns() + RESNAP_NS };
}

/* resnap_due - snapshot again the exec'd processes due by @now (all of
 * them when @now is INT64_MAX). */
static void resnap_due(struct session *s, int64_t now)
{
	unsigned i = 0;

	while (i < s->nresnap) {
		if (s->resnap[i].due > now) {
			i++;
			continue;
		}
		snapshot(s, s->resnap[i].pid);
		s->resnap[i] = s->resnap[--s->nresnap];
	}
}

/* resnap_wait - ns until the next re-snapshot is due, or -1. */
/* sooner - @wait (ns from @now, < 0: nothing due) or the wait until @due
 * (0 once it has passed), whichever ends first. */
static int64_t sooner(int64_t wait, int64_t due, int64_t now)
{
	int64_t w = due > now ? due - now : 0;

	return wait < 0 || w < wait ? w : wait;
}

static int64_t resnap_wait(const struct session *s, int64_t now)
{
	int64_t wait = -1;
	unsigned i;

	for (i = 0; i < s->nresnap; i++)
		wait = sooner(wait, s->resnap[i].due, now);
	return wait;
}

static bool follows_members(const struct session *s)
{
	return !s->widened && target_follows_members(&s->target);
}

/* walk_rows - the rows @o lets the kernel walk's tables hold. */
static uint32_t walk_rows(const struct session_opts *o)
{
	uint64_t bytes =
		o->unwind_tables_bytes ? o->unwind_tables_bytes : SESSION_UNWIND_TABLES_DEFAULT;
	uint64_t rows = bytes / sizeof(struct sampler_unwind_row);

	return rows > UINT32_MAX ? UINT32_MAX : (uint32_t)rows;
}

/* choose_unwind - the mode of this capture's user stacks (AUTO resolved)
 * into s->unwind and s->sopts.stack_copy_bytes. */
static int choose_unwind(struct session *s, const struct session_opts *o, char *err, size_t errlen)
{
	uint32_t bytes = o->stack_copy_bytes ? o->stack_copy_bytes : SESSION_STACK_COPY_DEFAULT;
	uint64_t ncpus = (uint64_t)cpus_online_count();
	const char *no = NULL;

	s->unwind.mode = UNWIND_MODE_FP;
	if (o->unwind == UNWIND_MODE_FP)
		return 0;
	if (bytes > SAMPLER_COPY_MAX) {
		snprintf(err, errlen, "stack copy of %u bytes: at most %u", bytes,
			 SAMPLER_COPY_MAX);
		return -EINVAL;
	}
	if (!unwinder__supported())
		no = "this build cannot unwind DWARF CFI (x86-64 only)";
	else if (o->sampler && sampler__copy_max(o->sampler) < bytes)
		no = "the sampler was loaded without stack copies";
	else if (o->unwind == UNWIND_MODE_AUTO &&
		 o->freq_hz * (ncpus ? ncpus : 1) * bytes > SESSION_AUTO_COPY_RATE)
		no = "frequency x CPUs x copy size is over the copy rate auto allows";
	/* a borrowed sampler with tables (the daemon's, when its recorder or
	 * a rule walks in the kernel) has them for every capture: auto walks
	 * there */
	if (o->unwind == UNWIND_MODE_KERNEL ||
	    (o->unwind == UNWIND_MODE_AUTO && o->sampler && sampler__can_walk(o->sampler))) {
		/* stacks through a file whose table is not built yet are copied
		 * for the DWARF unwinder, when it can */
		s->unwind.mode = UNWIND_MODE_KERNEL;
		s->sopts.walk_rows = walk_rows(o);
		s->unwind.copy_bytes = no ? 0 : bytes;
		s->sopts.stack_copy_bytes = s->unwind.copy_bytes;
		return 0;
	}
	if (no && o->unwind == UNWIND_MODE_DWARF) {
		snprintf(err, errlen, "--unwind dwarf: %s", no);
		return -ENOTSUP;
	}
	if (no) {
		s->unwind.why = no;
		return 0;
	}
	s->unwind.mode = UNWIND_MODE_DWARF;
	s->unwind.copy_bytes = bytes;
	s->sopts.stack_copy_bytes = bytes;
	return 0;
}

/* split_calls - number the calls @o asks for in the window, or none.
 * A capture that cannot split is still a capture: said, and taken. */
static void split_calls(struct session *s, const struct session_opts *o)
{
	char err[512];

	s->calls_what[0] = '\0';
	if (sampler__split_calls(s->sampler, o->calls.kind ? &o->calls : NULL, err, sizeof(err))) {
		log_warn("samples not split by call: %s", err);
		return;
	}
	if (!o->calls.kind)
		return;
	snprintf(s->calls_what, sizeof(s->calls_what), "%s", o->calls_what ? o->calls_what : "");
	s->slow = o->slow;
}

/* open_sampler - a sampler for the target target_prepare described in
 * s->sopts: the caller's, retargeted, or a new one. */
static int open_sampler(struct session *s, const struct session_opts *o, char *err, size_t errlen)
{
	struct symbolizer *sym;
	int e = 0;

	s->sopts.freq_hz = o->freq_hz;
	s->sopts.record = o->record ? o->record : SAMPLER_RECORD_CPU;
	s->sopts.window_ns = o->duration_ns ? o->duration_ns : OPEN_WINDOW_NS;
	s->sopts.max_samples = o->max_samples;
	e = choose_unwind(s, o, err, errlen);
	if (e)
		return e;
	s->unwinder = o->unwinder;
	s->keep_cfi_bytes = o->keep_cfi_bytes;
	if (o->sampler) {
		s->sampler = o->sampler;
		e = sampler__retarget(s->sampler, &s->sopts, err, errlen);
	} else {
		s->own_sampler = true;
		s->sopts.one_window = true;
		s->sopts.split_calls = o->calls.kind != 0;
		s->sampler = sampler__open(&s->sopts, err, errlen);
		if (!s->sampler)
			e = -errno;
	}
	if (!e && s->unwind.mode == UNWIND_MODE_KERNEL && !sampler__can_walk(s->sampler)) {
		snprintf(
			err, errlen,
			"--unwind kernel: %s cannot walk user stacks (it needs bpf_find_vma, "
			"bpf_loop and bpf_task_pt_regs, Linux 5.17+, and the kernel's BTF; see -vv)",
			o->sampler ? "the daemon's sampler" : "this kernel");
		e = -ENOTSUP;
	}
	if (e)
		return e;
	split_calls(s, o);
	s->py = pyframes__new();
	if (!s->py || (e = pyframes__watch(s->py, sampler__py_procs_fd(s->sampler)))) {
		e = s->py ? e : -ENOMEM;
		snprintf(err, errlen, "setting up Python frames: %s", strerror(-e));
		return e;
	}
	sampler__on_py_code(s->sampler, on_py_code, s);
	sym = symbolizer__new("/proc");
	if (sym && o->symcache)
		symbolizer__use_cache(sym, o->symcache);
	if (sym && !o->no_python)
		symbolizer__on_python(sym, python_found, s->py);
	/* the window's map of lives, kept open as long as the worker may read
	 * /proc: it outlives a borrowed sampler's next window's start */
	s->lives_fd = fcntl(sampler__lives_fd(s->sampler), F_DUPFD_CLOEXEC, 0);
	if (sym && s->lives_fd >= 0)
		symbolizer__check_lives(sym, life_is_current, &s->lives_fd);
	s->work = sym ? symwork__start(sym, o->budget) : NULL;
	if (!s->work) {
		e = -errno;
		snprintf(err, errlen, "creating the symbolizer: %s", strerror(-e));
		return e;
	}
	target_watch(&s->target, s->sampler);
	return 0;
}

static int watch_fds(struct session *s, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int e;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		goto cleanup;
	ev.data.fd = sampler__events_fd(s->sampler);
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto cleanup;
	s->events_watched = true;
	ev.data.fd = symwork__fd(s->work);
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto cleanup;
	if (s->handle.pidfd < 0)
		return 0;
	ev.data.fd = s->handle.pidfd;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto cleanup;
	s->pidfd_watched = true;
	return 0;
cleanup:
	e = -errno;
	snprintf(err, errlen, "watching the capture's events: %s", strerror(-e));
	return e;
}

struct session *session__open(const struct session_opts *opts, char *err, size_t errlen)
{
	struct session_opts chosen = *opts, *o = &chosen;
	struct session *s;
	bool bad_input;
	int e;

	err[0] = '\0';
	if (sampler__check_freq(o->freq_hz, err, errlen)) {
		history_slice__free(o->before);
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		history_slice__free(o->before);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->before = o->before;
	o->freq_hz = overhead_window__choose(&s->budget, o->overhead, o->max_overhead_pct,
					     o->sampler, o->overhead_bpf_hint_ns, o->freq_hz);
	if (s->budget.capped[0])
		log_warn("sampling at %llu Hz, not %llu: %s", (unsigned long long)o->freq_hz,
			 (unsigned long long)s->budget.asked_hz, s->budget.capped);
	s->target = o->target;
	s->target.exit_status = -1;
	s->handle = (struct target_handle)TARGET_HANDLE_INIT;
	s->epfd = -1;
	s->lives_fd = -1;
	s->duration_ns = o->duration_ns;
	/* target_prepare reports bad input itself and says so with -EINVAL,
	 * the one EINVAL session__open returns: a runtime EINVAL (a verifier
	 * refusing the program) must not read as bad usage. */
	e = target_prepare(&s->target, o->cgroup_name, &s->sopts, &s->handle);
	bad_input = e == -EINVAL;
	if (e && !bad_input)
		snprintf(err, errlen, "setting up the target: %s", strerror(-e));
	if (!e && o->command_cgroup)
		e = target_command_into(&s->target, o->command_cgroup, &s->sopts, &s->handle, err,
					errlen);
	if (!e)
		e = open_sampler(s, o, err, errlen);
	if (!e)
		e = watch_fds(s, err, errlen);
	if (!e && s->target.kind == CAPTURE_TARGET_PID)
		snapshot(s, s->target.pid);
	if (e) {
		session__free(s);
		errno = bad_input ? EINVAL : e == -EINVAL ? EIO : -e;
		return NULL;
	}
	return s;
}

int session__start(struct session *s, int64_t decided_mono_ns)
{
	int64_t now;
	int e;

	if (s->started)
		return -EALREADY;
	s->dump = sample_dump__new();
	if (!s->dump)
		return -ENOMEM;
	s->start_ns = clock_real_ns();
	s->start_mono = clock_mono_ns();
	sampler__bound_offcpu(s->sampler, s->budget.offcpu_takes_hz);
	e = sampler__start(s->sampler);
	pyframes__window(s->py, sampler__window_seq(s->sampler));
	if (!e && (s->sopts.record & SAMPLER_RECORD_OFFCPU)) {
		s->waiting =
			waiting__start(s->sampler, &s->target, "/proc", (uint64_t)clock_mono_ns());
		if (!s->waiting && errno)
			log_warn("cannot look for threads already waiting: %s", strerror(errno));
	}
	s->arm_ns = clock_mono_ns() - decided_mono_ns;
	s->started = true; /* partly armed is armed: session__free stops it */
	overhead_window__start(&s->budget, s->sampler, clock_mono_ns());
	if (!e && s->unwind.copy_bytes) {
		s->drain = unwind_drain__start(s->sampler, s->unwind.copy_bytes, s->unwinder,
					       s->keep_cfi_bytes, snapshot_again, s->work,
					       s->lives_fd >= 0 ? life_is_current : NULL,
					       &s->lives_fd);
		if (!s->drain)
			e = -errno;
	}
	if (!e)
		e = target_release(&s->target, &s->handle);
	if (e)
		return e;
	now = clock_mono_ns();
	s->deadline = s->duration_ns ? now + (int64_t)s->duration_ns : 0;
	s->next_refresh = now + V1_REFRESH_NS;
	s->next_spill = now + SPILL_CHECK_NS;
	s->next_dither = now;
	return 0;
}

int session__fd(const struct session *s)
{
	return s->epfd;
}

static void unwatch_pidfd(struct session *s)
{
	if (s->pidfd_watched)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->handle.pidfd, NULL);
	s->pidfd_watched = false;
}

/* target_exited - the target's pidfd is readable: it has exited. */
static void target_exited(struct session *s)
{
	if (s->target.kind == CAPTURE_TARGET_COMMAND) {
		if (!target_reap(&s->target, &s->handle, false))
			return;
		session__end(s, "command exited");
	} else if (s->widened) {
		log_info("pid %d exited; the capture goes on with every task", (int)s->target.pid);
	} else {
		session__end(s, "target exited");
		log_info("pid %d exited; the capture covers its life until then",
			 (int)s->target.pid);
	}
	unwatch_pidfd(s);
}

void session__handle(struct session *s)
{
	struct epoll_event evs[4];
	int n, i;

	n = epoll_wait(s->epfd, evs, 4, 0);
	for (i = 0; i < n; i++) {
		if (s->events_watched && evs[i].data.fd == sampler__events_fd(s->sampler))
			sampler__drain_events(s->sampler, on_event, s);
		else if (s->pidfd_watched && evs[i].data.fd == s->handle.pidfd)
			target_exited(s);
		else if (evs[i].data.fd == symwork__fd(s->work) && s->finishing)
			s->finished = symwork__done(s->work);
	}
	/* Without a pidfd, a command's exit is only seen here, on SIGCHLD. */
	if (s->target.kind == CAPTURE_TARGET_COMMAND && s->handle.pidfd < 0 && s->started &&
	    target_reap(&s->target, &s->handle, false))
		session__end(s, "command exited");
}

/* late - whether the window closed so long after its deadline that its
 * length misleads: more than a tenth of it, and over 100 ms. */
static bool late(const struct session *s)
{
	return s->late_ns > 100 * NSEC_PER_MSEC && s->late_ns > (int64_t)s->duration_ns / 10;
}

bool session__tick(struct session *s, int64_t now)
{
	if (s->end_reason)
		return true;
	if (!s->started)
		return false;
	if (s->deadline && now >= s->deadline) {
		s->late_ns = now - s->deadline;
		session__end(s, late(s) ? "duration, closed late" : "duration");
		return true;
	}
	if (!s->stopped && overhead_window__check(&s->budget, s->sampler, now, false)) {
		log_warn("the capture took %.1f%% of the host, over max_capture_overhead %g%%: "
			 "ending it early",
			 s->budget.share_pct, s->budget.max_pct);
		session__end(s, "overhead budget");
		return true;
	}
	resnap_due(s, now);
	if (!s->stopped && now >= s->next_spill) {
		int e = sample_dump__spill(s->dump, s->sampler);
		int64_t took = clock_mono_ns() - now;

		if (took > NSEC_PER_MSEC)
			log_debug("moved samples out of the kernel maps in %lld ms",
				  (long long)(took / NSEC_PER_MSEC));
		if (e)
			log_warn("moving samples out of the kernel maps: %s (some are lost)",
				 strerror(-e));
		s->next_spill = now + SPILL_CHECK_NS;
	}
	if (!s->stopped && now >= s->next_dither) {
		int e = sampler__dither(s->sampler);

		if (e)
			log_debug("drawing the sampling periods anew: %s", strerror(-e));
		s->next_dither = now + (int64_t)sampler__dither_every_ns(s->sampler);
	}
	if (follows_members(s) && now >= s->next_refresh) {
		target_watch(&s->target, s->sampler);
		s->next_refresh = now + V1_REFRESH_NS;
	}
	return false;
}

int session__timeout_ms(const struct session *s, int64_t now)
{
	int64_t wait = -1, resnap;

	if (s->end_reason)
		return 0;
	if (s->deadline)
		wait = sooner(wait, s->deadline, now);
	resnap = resnap_wait(s, now);
	if (resnap >= 0)
		wait = sooner(wait, now + resnap, now);
	if (s->started && !s->stopped) {
		wait = sooner(wait, s->next_spill, now);
		wait = sooner(wait, s->next_dither, now);
	}
	if (s->started && follows_members(s))
		wait = sooner(wait, s->next_refresh, now);
	if (wait < 0)
		return -1;
	wait = (wait + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
	return wait > INT_MAX ? INT_MAX : (int)wait;
}

int64_t session__deadline(const struct session *s)
{
	return s->deadline;
}

int session__extend(struct session *s, int64_t deadline_mono_ns)
{
	if (!s->started)
		return -EINVAL;
	if (s->end_reason)
		return -EALREADY;
	if (s->deadline && deadline_mono_ns > s->deadline)
		s->deadline = deadline_mono_ns;
	return 0;
}

int session__widen_to_system(struct session *s, const char *why)
{
	struct sampler_opts o = s->sopts;
	char err[256];
	int e;

	if (s->target.kind == CAPTURE_TARGET_SYSTEM || s->widened)
		return 0;
	o.target = SAMPLER_TARGET_ALL;
	/* Off-CPU time of every task of the host would cost every context
	 * switch: the waits recorded so far stay, none are added. */
	if (o.record & SAMPLER_RECORD_OFFCPU)
		o.record = (o.record & ~(uint32_t)SAMPLER_RECORD_OFFCPU) | SAMPLER_RECORD_CPU;
	e = sampler__retarget(s->sampler, &o, err, sizeof(err));
	if (e) {
		log_warn("cannot widen the capture to every task: %s", err);
		return e;
	}
	s->sopts = o;
	s->widened = true;
	snprintf(s->widened_why, sizeof(s->widened_why), "%s", why ? why : "");
	return 0;
}

void session__end(struct session *s, const char *reason)
{
	if (s->end_reason)
		return;
	s->end_reason = reason;
	/* the window ends at the decision, whatever closing it then costs
	 * on a busy host (detaching hooks waits for their last runs):
	 * close_window measures it from this disarm */
	if (s->started && !s->stopped && s->sampler)
		sampler__disarm(s->sampler);
}

void session__signal_command(struct session *s, int signo)
{
	if (s->target.kind == CAPTURE_TARGET_COMMAND && !s->handle.reaped && s->target.pid > 0)
		kill(s->target.pid, signo);
}

void session__wait_command(struct session *s)
{
	if (s->target.kind != CAPTURE_TARGET_COMMAND || s->handle.reaped || s->target.pid <= 0)
		return;
	if (s->handle.gate_fd < 0)
		log_info("window closed; waiting for '%s' (pid %d) to exit", s->target.argv[0],
			 (int)s->target.pid);
	target_reap(&s->target, &s->handle, true);
}

const struct capture_target *session__target(const struct session *s)
{
	return &s->target;
}

/* finish_waiting - the survey of threads already waiting when the window
 * opened is over (stopped if need be): snapshot the processes it found,
 * which the sampler never announced if none of their threads ran. */
static void finish_waiting(struct session *s)
{
	int pids[64];
	size_t n, i;

	if (!s->waiting)
		return;
	waiting__finish(s->waiting, &s->waiting_st, pids, sizeof(pids) / sizeof(pids[0]), &n);
	s->waiting = NULL;
	for (i = 0; i < n; i++)
		snapshot(s, pids[i]);
}

/* close_window - disarm (once) and take in what was announced until then. */
static void close_window(struct session *s)
{
	finish_waiting(s);
	if (!s->stopped) {
		int64_t end = (int64_t)sampler__disarm(s->sampler);

		if (s->started)
			overhead_window__check(&s->budget, s->sampler, end, true);
		overhead_window__end(&s->budget);
		sampler__stop(s->sampler);
		s->stopped = true;
		s->window_ns = end - s->start_mono;
	}
	sampler__drain_events(s->sampler, on_event, s);
	resnap_due(s, INT64_MAX);
	unwind_drain__stop(s->drain);
}

/* release_sampler - the window is copied out: a borrowed sampler goes
 * back to its owner, free for the next capture, and its announcements no
 * longer wake this session. */
static void release_sampler(struct session *s)
{
	if (s->events_watched)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, sampler__events_fd(s->sampler), NULL);
	s->events_watched = false;
	s->ncpus = sampler__ncpus(s->sampler);
	sampler__on_py_code(s->sampler, NULL, NULL);
	if (s->own_sampler)
		sampler__free(s->sampler);
	s->sampler = NULL;
}

/* kernel_walks - the window's kernel walks into s->unwind. */
static void kernel_walks(struct session *s)
{
	const struct sampler_stats *st = sample_dump__stats(s->dump);
	int i;

	s->unwind.mode = UNWIND_MODE_KERNEL;
	s->unwind.walk_copied = st->v[SAMPLER_STAT_WALK_COPIED];
	for (i = 0; i < SAMPLER_WALK_NR; i++)
		s->unwind.walk_ends[i] = st->v[SAMPLER_STAT_WALK_ENTRY + i];
	s->unwind.walk_fp_frames = st->v[SAMPLER_STAT_WALK_FP_FRAMES];
	sampler__walk_tables_stats(s->sampler, &s->unwind.tables);
}

int session__close(struct session *s, char *err, size_t errlen)
{
	int e;

	if (!s->started) {
		snprintf(err, errlen, "the capture was never started");
		return -EINVAL;
	}
	if (s->collected)
		return 0;
	close_window(s);
	e = sample_dump__collect(s->dump, s->sampler);
	if (!e && s->drain) {
		enum unwind_mode mode = s->unwind.mode;

		s->unwind = *unwind_drain__summary(s->drain);
		if (mode == UNWIND_MODE_KERNEL)
			kernel_walks(s);
		e = sample_dump__merge_unwound(s->dump, unwind_drain__samples(s->drain),
					       &s->unwind);
	} else if (!e) {
		if (s->unwind.mode == UNWIND_MODE_KERNEL)
			kernel_walks(s);
		sample_dump__set_unwind(s->dump, &s->unwind);
	}
	unwind_drain__free(s->drain);
	s->drain = NULL;
	if (e) {
		snprintf(err, errlen, "reading the capture: %s", strerror(-e));
		return e;
	}
	s->collected = true;
	release_sampler(s);
	return 0;
}

static void fill_info(const struct session *s, struct capture_info *info)
{
	info->target = s->target;
	info->freq_hz = s->sopts.freq_hz;
	info->record = s->sopts.record;
	info->waiting = s->waiting_st;
	info->period_ns = 1000000000ull / s->sopts.freq_hz;
	info->start_ns = s->start_ns;
	info->duration_ns = s->window_ns;
	info->end_reason = s->end_reason ? s->end_reason : "duration";
	info->late_ns = s->late_ns;
	info->arm_ns = s->arm_ns;
	info->ncpus = s->ncpus;
	info->scope_widened = s->widened ? s->widened_why : NULL;
	info->calls.what = s->calls_what[0] ? s->calls_what : NULL;
	info->calls.threshold = s->slow;
	info->overhead = s->budget.o ? &s->budget : NULL;
}

/* add_history - the recorder's seconds before the decision as @p's
 * "before" phase; a history that cannot be added is said in the sidecar,
 * and the capture is written without it. */
static void add_history(struct session *s, struct profile *p)
{
	struct capture_history *ch = &s->info->history;
	struct profile *before = NULL;
	struct history_stats st;
	int e;

	ch->present = true;
	history_slice__stats(s->before, &st);
	snprintf(ch->lowered, sizeof(ch->lowered), "%s", st.decision);
	e = history_slice__build(s->before, &before);
	if (!e && !before) {
		ch->missing = "no second of history was recorded before the decision";
		return;
	}
	if (!e)
		e = profile_phase__splice(p, before);
	if (e) {
		log_warn("capture %s: its history is left out: %s", s->info->id, strerror(-e));
		ch->missing = "the history could not be added (see the daemon's log)";
	} else {
		ch->freq_hz = before->period_ns ? 1000000000ull / (uint64_t)before->period_ns : 0;
		ch->start_ns = before->time_ns;
		ch->duration_ns = before->duration_ns;
		ch->samples = (uint64_t)profile_phase__samples(p, PROFILE_PHASE_BEFORE);
	}
	profile__free(before);
}

/* finish_job - on the worker: symbolize the copied window, then write it
 * when the session was given a path. */
static void finish_job(struct symbolizer *sym, struct symbudget *budget, void *ctx)
{
	struct session *s = ctx;
	struct profile *p = NULL;
	char why[512];
	int e;

	symbolizer__refresh_jit(sym);
	e = capture_build_profile(s->dump, sym, s->py, s->info, &p);
	if (!e && s->before)
		add_history(s, p);
	symbudget__stop_clock(budget);
	s->info->budget = budget;
	s->info->snapshots_dropped = symwork__snapshots_dropped(s->work);
	if (e) {
		snprintf(s->result_msg, sizeof(s->result_msg), "reading the capture: %s",
			 strerror(-e));
	} else if (s->path) {
		e = capture_write(s->path, p, s->info, why, sizeof(why));
		if (e)
			snprintf(s->result_msg, sizeof(s->result_msg), "writing the capture: %s",
				 why);
		profile__free(p);
	} else {
		s->profile = p;
	}
	s->result = e;
}

int session__finish_async(struct session *s, const char *path, struct capture_info *info, char *err,
			  size_t errlen)
{
	int e;

	if (s->finishing) {
		snprintf(err, errlen, "the capture is being written already");
		return -EALREADY;
	}
	e = session__close(s, err, errlen);
	if (e)
		return e;
	fill_info(s, info);
	s->path = path;
	s->info = info;
	e = symwork__finish(s->work, finish_job, s);
	if (e) {
		snprintf(err, errlen, "symbolizing the capture: %s", strerror(-e));
		return e;
	}
	s->finishing = true;
	return 0;
}

bool session__finished(const struct session *s)
{
	return s->finished;
}

void session__wait(struct session *s)
{
	if (s->finishing && !s->finished) {
		symwork__wait(s->work);
		s->finished = true;
	}
}

int session__result(const struct session *s, char *err, size_t errlen)
{
	if (!s->finished) {
		snprintf(err, errlen, "the capture is still being written");
		return -EINPROGRESS;
	}
	if (s->result)
		snprintf(err, errlen, "%s", s->result_msg);
	return s->result;
}

/* finish_now - session__finish_async and wait for it. */
static int finish_now(struct session *s, const char *path, struct capture_info *info, char *err,
		      size_t errlen)
{
	int e = session__finish_async(s, path, info, err, errlen);

	if (e)
		return e;
	session__wait(s);
	return session__result(s, err, errlen);
}

int session__build(struct session *s, struct capture_info *info, struct profile **out, char *err,
		   size_t errlen)
{
	int e = finish_now(s, NULL, info, err, errlen);

	if (!e) {
		*out = s->profile;
		s->profile = NULL;
	}
	return e;
}

int session__finish(struct session *s, const char *path, struct capture_info *info, char *err,
		    size_t errlen)
{
	return finish_now(s, path, info, err, errlen);
}

void session__free(struct session *s)
{
	if (!s)
		return;
	finish_waiting(s);
	overhead_window__end(&s->budget);
	if (s->sampler && s->started && !s->stopped)
		sampler__stop(s->sampler);
	else if (s->sampler && !s->started && s->calls_what[0])
		/* a kept sampler: its calls' probes go with the session */
		sampler__split_calls(s->sampler, NULL, NULL, 0);
	unwind_drain__free(s->drain);
	s->drain = NULL;
	if (s->own_sampler)
		sampler__free(s->sampler);
	else if (s->sampler)
		sampler__on_py_code(s->sampler, NULL, NULL);
	symwork__free(s->work); /* waits for a job under way: it uses @s */
	if (s->lives_fd >= 0)
		close(s->lives_fd); /* after the worker, which reads it */
	pyframes__free(s->py);	    /* after the worker, which registers with it */
	sample_dump__free(s->dump);
	profile__free(s->profile);
	history_slice__free(s->before);
	if (s->epfd >= 0)
		close(s->epfd);
	/* A command never released exits as soon as its gate closes. */
	if (s->target.kind == CAPTURE_TARGET_COMMAND && s->handle.gate_fd >= 0)
		target_reap(&s->target, &s->handle, true);
	target_close(&s->handle);
	free(s);
}
