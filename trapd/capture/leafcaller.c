// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* leafcaller.c - prove and insert the caller of a frameless leaf. */
#include "trapd/capture/leafcaller.h"

#include <stddef.h>
#include <string.h>

/* is_function_start - @addr is where a known function begins. */
static int is_function_start(leaf_function_start_fn start_of, void *ctx, uint64_t addr)
{
	uint64_t start;

	return addr && start_of(ctx, addr, &start) == 0 && start == addr;
}

/* verdict - what the hint proves about the stack @ips[0..n) whose leaf's
 * function starts at @leaf_start. */
static enum leaf_verdict verdict(const uint64_t *ips, uint32_t n, const struct sampler_leaf *hint,
				 uint64_t leaf_start, leaf_function_start_fn start_of, void *ctx)
{
	uint64_t caller_start;

	if (n >= 2 && hint->caller_target == leaf_start)
		return LEAF_INTACT;
	if (hint->ret && hint->ret_target == leaf_start) {
		if (n >= 2 && hint->ret == ips[1])
			return LEAF_INTACT;
		/* The second link: the walk's second frame called the function
		 * found, when its call says where it went. A stale word that
		 * once returned to the leaf from elsewhere fails here. */
		if (n >= 2 && is_function_start(start_of, ctx, hint->caller_target) &&
		    (start_of(ctx, hint->ret - 1, &caller_start) ||
		     caller_start != hint->caller_target))
			return LEAF_MISSING;
		return LEAF_RECOVERED;
	}
	/* The second frame's call went to a known function other than the
	 * leaf's: something in between is not in the stack. */
	if (n >= 2 && is_function_start(start_of, ctx, hint->caller_target))
		return LEAF_MISSING;
	return LEAF_UNPROVEN;
}

enum leaf_verdict leafcaller_fix(const uint64_t *ips, uint32_t n, const struct sampler_leaf *hint,
				 leaf_function_start_fn start_of, void *ctx, uint64_t *out,
				 uint32_t cap, uint32_t *out_n)
{
	enum leaf_verdict v = LEAF_NO_STACK;
	uint64_t leaf_start;
	uint32_t rest;

	if (n > cap)
		n = cap;
	*out_n = n;
	if (!n) /* no stack: @ips may be NULL, which memcpy must not get */
		return v;
	memcpy(out, ips, n * sizeof(*out));
	if (!hint || start_of(ctx, ips[0], &leaf_start))
		return LEAF_UNPROVEN;
	v = verdict(ips, n, hint, leaf_start, start_of, ctx);
	if (v != LEAF_RECOVERED || cap < 2)
		return v == LEAF_RECOVERED ? LEAF_UNPROVEN : v;
	rest = n - 1 < cap - 2 ? n - 1 : cap - 2;
	out[1] = hint->ret;
	memcpy(out + 2, ips + 1, rest * sizeof(*out));
	*out_n = 2 + rest;
	return v;
}

const char *leafcaller_verdict_name(enum leaf_verdict v)
{
	static const char *const names[LEAF_NR] = {
		[LEAF_NO_STACK] = "no_stack",	[LEAF_INTACT] = "intact",
		[LEAF_RECOVERED] = "recovered", [LEAF_MISSING] = "missing",
		[LEAF_UNPROVEN] = "unproven",
	};

	return v < LEAF_NR ? names[v] : "?";
}

enum stack_root stack_root_of(const char *outermost)
{
	/* glibc's and musl's process and thread entry points, and the
	 * clone wrappers a thread's first frame returns into. */
	static const char *const roots[] = {
		"_start",
		"__libc_start_main",
		"__libc_start_call_main",
		"start_thread",
		"clone",
		"clone3",
		"__clone",
		"__clone3",
		"thread_start",
		"__libc_start_main_impl",
		/* Go: goroutines start at goexit's return address, the main
		 * thread at rt0_go, the others at mstart (assembly, named with
		 * their ABI since Go 1.17) */
		"runtime.goexit",
		"runtime.goexit.abi0",
		"runtime.rt0_go",
		"runtime.rt0_go.abi0",
		"runtime.mstart",
		"runtime.mstart.abi0",
	};
	size_t i;

	if (!outermost)
		return STACK_OUTER_UNNAMED;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(outermost, roots[i]))
			return STACK_ROOTED;
	return STACK_UNROOTED;
}

const char *stack_root_name(enum stack_root r)
{
	static const char *const names[STACK_ROOT_NR] = {
		[STACK_ROOTED] = "rooted",
		[STACK_UNROOTED] = "unrooted",
		[STACK_OUTER_UNNAMED] = "outermost_unnamed",
	};

	return r < STACK_ROOT_NR ? names[r] : "?";
}
