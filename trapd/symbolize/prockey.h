/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* prockey.h - a process as a capture window knows it: its pid and which
 * life of that pid it is (bpf/sampler.h, sampler_key.life: one more at
 * each exec and each death of the process, after which the pid can be
 * another process's), in one int, the key of the symbolizer's and the
 * unwinder's tables. A pid's first life is the pid itself, so a table
 * that never meets a second is keyed by pids; /proc is read with
 * prockey_pid.
 *
 * PID_MAX_LIMIT is 2^22: nine bits are left for the life. A life past
 * PROCKEY_MAX_LIFE (a process that exec'd 511 times in one window) has no
 * key: its samples keep their addresses and are counted as a process
 * never read, never named from another life's maps.
 */
#ifndef TRAPD_PROCKEY_H
#define TRAPD_PROCKEY_H

#include <stdbool.h>
#include <stdint.h>

#define PROCKEY_PID_BITS 22
#define PROCKEY_PID_MASK ((1u << PROCKEY_PID_BITS) - 1)
#define PROCKEY_MAX_LIFE ((1u << (31 - PROCKEY_PID_BITS)) - 1)
#define PROCKEY_NONE (-1) /* no key: a life past PROCKEY_MAX_LIFE, a pid past the limit */

/* prockey_make - the key of life @life of pid @pid, PROCKEY_NONE if none. */
static inline int prockey_make(uint32_t pid, uint32_t life)
{
	if (pid > PROCKEY_PID_MASK || life > PROCKEY_MAX_LIFE)
		return PROCKEY_NONE;
	return (int)(life << PROCKEY_PID_BITS | pid);
}

/* prockey_pid - the pid of @key, as /proc names it. */
static inline int prockey_pid(int key)
{
	return (int)((uint32_t)key & PROCKEY_PID_MASK);
}

/* prockey_life - the life of @key. */
static inline uint32_t prockey_life(int key)
{
	return (uint32_t)key >> PROCKEY_PID_BITS;
}

/* A way to ask whether life @life of @pid is the pid's life still: what
 * /proc/PID said between two answers of yes is that life's. NULL: no
 * such way (a capture without lives): every read is taken as the life's. */
typedef bool (*prockey_current_fn)(int pid, uint32_t life, void *ctx);

/* prockey_lasts - whether /proc/PID is still the life of @key, by @fn
 * (with @ctx); true when there is no @fn to say otherwise. */
static inline bool prockey_lasts(prockey_current_fn fn, void *ctx, int key)
{
	return !fn || fn(prockey_pid(key), prockey_life(key), ctx);
}

#endif
