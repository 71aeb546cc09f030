/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* leafcaller.h - give back the caller that a frame-pointer walk loses
 * when the sample hits a function that has not set up its frame.
 *
 * gcc omits the frame of a leaf function even with -fno-omit-frame-pointer
 * (and -mno-omit-leaf-frame-pointer does not help in gcc 12): the frame
 * pointer still points at the caller's frame, so the walk's second frame
 * is the caller's caller and the leaf hangs off the wrong function. The
 * same happens at the first instructions of any function, before its
 * prologue, and in code built without frame pointers.
 *
 * The sampler records a hint (struct sampler_leaf): a return address found
 * a few words above the stack pointer whose call instruction is a direct
 * call, and where that call goes; and where the call before the walk's
 * second frame goes. A caller is inserted only when it is proven: its
 * call goes to the very start of the leaf's function. Every stack gets a
 * verdict, so a capture can say how many stacks may still lack a frame.
 */
#ifndef TRAPD_LEAFCALLER_H
#define TRAPD_LEAFCALLER_H

#include <stdint.h>

#include <linux/types.h>

#include "bpf/sampler.h"

enum leaf_verdict {
	LEAF_NO_STACK,	/* no user frames */
	LEAF_INTACT,	/* the walk's second frame called the leaf's function */
	LEAF_RECOVERED, /* its caller was missing and is inserted */
	LEAF_MISSING,	/* the second frame called another function: a frame is lost */
	LEAF_UNPROVEN,	/* neither (indirect call, PLT, unknown function): unknown */
	LEAF_NR,
};

/* The start address of the function containing @addr in the process,
 * as the process sees it: 0, or a negative errno when unknown. */
typedef int (*leaf_function_start_fn)(void *ctx, uint64_t addr, uint64_t *start);

/* leafcaller_fix - the user stack @ips[0..n) (leaf first) with the leaf's
 * caller inserted when @hint proves it, into @out (room for @cap frames;
 * the outermost frame is dropped if the stack is already @cap deep), its
 * length in *@out_n. @start_of says where functions start. */
enum leaf_verdict leafcaller_fix(const uint64_t *ips, uint32_t n, const struct sampler_leaf *hint,
				 leaf_function_start_fn start_of, void *ctx, uint64_t *out,
				 uint32_t cap, uint32_t *out_n);

/* leafcaller_verdict_name - "intact", "recovered", ... for metadata. */
const char *leafcaller_verdict_name(enum leaf_verdict v);

/* The other end of a stack. A walk that reaches the code that starts a
 * process or thread (_start, __libc_start_call_main, start_thread,
 * clone3...) is whole; one that stops at another function was cut short,
 * most often by a library built without frame pointers in between. */
enum stack_root {
	STACK_ROOTED,	     /* the outermost frame starts a process or thread */
	STACK_UNROOTED,	     /* it is a named function that does not */
	STACK_OUTER_UNNAMED, /* it has no name: cannot be told */
	STACK_ROOT_NR,
};

/* stack_root_of - the verdict for a stack whose outermost frame is named
 * @outermost (NULL: unnamed). */
enum stack_root stack_root_of(const char *outermost);

/* stack_root_name - "rooted", "unrooted", "outermost_unnamed". */
const char *stack_root_name(enum stack_root r);

#endif
