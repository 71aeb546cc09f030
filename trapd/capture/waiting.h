/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* waiting.h - the target's threads already waiting when a window that
 * records off-CPU time opens.
 *
 * The scheduler hook sees a thread when it leaves a CPU during the window.
 * A thread that was already blocked (a deadlock, a lock held for minutes,
 * a read that never returns: what a `below` rule fires on) never leaves a
 * CPU again and would not be in the capture at all. So when the window
 * opens, a survey lists the target's threads (a process's, or the
 * processes of a cgroup and its descendants), and for each one blocked
 * (state S or D in /proc/PID/task/TID/stat; or stopped, T or t) reads
 * where the kernel has it
 * (/proc/PID/task/TID/stack, names resolved to addresses through
 * /proc/kallsyms) and the user address it blocked at
 * (/proc/PID/task/TID/syscall), and tells the sampler it is off the CPU
 * since the window's start (sampler__add_waiting): its time counts as any
 * wait's, until it runs again or the window closes.
 *
 * Its user stack is that one address: the rest is in the thread's memory,
 * which only the thread itself exposes to the sampler when it runs (trapd
 * reads no process's memory: a target could make such a read block). Its
 * Python frames, for the same reason, are not known.
 *
 * The survey runs on a thread of its own (reading kallsyms takes tens of
 * milliseconds), bounded: WAITING_MAX_PROCS processes, WAITING_MAX_THREADS
 * threads looked at, WAITING_MAX_BLOCKED kept; what is past the bounds is
 * counted.
 */
#ifndef TRAPD_WAITING_H
#define TRAPD_WAITING_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/capture/capture_info.h"
#include "trapd/capture/sampler.h"

#define WAITING_MAX_PROCS 4096
#define WAITING_MAX_THREADS 16384 /* threads looked at */
#define WAITING_MAX_BLOCKED 4096  /* blocked threads kept */
#define WAITING_MAX_DEPTH 32	  /* kernel frames kept of one thread */
#define WAITING_MAX_CGROUPS 4096  /* directories of a cgroup target walked */

struct waiting;

/* waiting__start - survey @t's threads (a PID or CGROUP target; others
 * have nothing to survey: NULL, errno 0) on a thread of its own, telling
 * @s about each blocked one as off the CPU since @since_mono_ns.
 * @proc_root is "/proc" (a fixture tree in tests). NULL and errno on
 * failure to start. */
struct waiting *waiting__start(struct sampler *s, const struct capture_target *t,
			       const char *proc_root, uint64_t since_mono_ns);

/* waiting__finish - wait for the survey (it stops at the next thread if
 * still running), fill @st and the pids of the processes it found blocked
 * threads in (for their memory maps) into @pids[0..*npids), at most
 * @max, and free it. NULL is a no-op (zero stats). */
void waiting__finish(struct waiting *w, struct waiting_stats *st, int *pids, size_t max,
		     size_t *npids);

/* One kernel frame of /proc/PID/task/TID/stack: "[<0>] name+0xoff/0xsize". */
struct waiting_frame {
	char name[96]; /* longer names are not kernel functions a stack shows */
	uint64_t offset;
};

/* waiting_parse_stack - the frames of a /proc/PID/task/TID/stack text
 * into @out (at most @max, innermost first); returns how many. Lines that
 * are not frames are skipped. */
size_t waiting_parse_stack(const char *text, struct waiting_frame *out, size_t max);

/* waiting_parse_syscall - the user stack pointer and program counter of
 * a /proc/PID/task/TID/syscall text ("NR ARGS... SP PC", or "-1 SP PC"
 * when blocked outside a system call). Returns 0, or -EINVAL ("running",
 * or malformed). */
int waiting_parse_syscall(const char *text, uint64_t *sp, uint64_t *pc);

#endif
