// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_leafcaller.c - the leaf's caller is inserted only when proven,
 * and every stack gets the right verdict.
 *
 * A fake address space: functions main at 0x1000, a at 0x2000, b at
 * 0x3000 and leaf at 0x4000, each 0x1000 long; 0x9000 up is unknown
 * (a PLT stub, say).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "trapd/capture/leafcaller.h"

#define MAIN 0x1000
#define A 0x2000
#define B 0x3000
#define LEAF 0x4000
#define PLT 0x9000

static int start_of(void *ctx, uint64_t addr, uint64_t *start)
{
	(void)ctx;
	if (addr < MAIN || addr >= 0x5000)
		return -ENOENT;
	*start = addr & ~0xfffull;
	return 0;
}

static enum leaf_verdict fix(const uint64_t *ips, uint32_t n, const struct sampler_leaf *hint,
			     uint64_t *out, uint32_t cap, uint32_t *out_n)
{
	return leafcaller_fix(ips, n, hint, start_of, NULL, out, cap, out_n);
}

/* main -> a -> leaf, leaf frameless: the walk gives leaf, main. The
 * return address into a is at the stack pointer, after "call leaf". */
static void test_frameless_leaf_gets_its_caller(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10, MAIN + 0x40 };
	const struct sampler_leaf hint = { .ret = A + 0x20,
					   .ret_target = LEAF,
					   .caller_target = A };
	uint64_t out[4];
	uint32_t n;

	(void)state;
	assert_int_equal(fix(ips, 2, &hint, out, 4, &n), LEAF_RECOVERED);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], LEAF + 0x10);
	assert_int_equal(out[1], A + 0x20);
	assert_int_equal(out[2], MAIN + 0x40);
}

/* With its frame set up the walk already has a; whatever the stack
 * holds, nothing is inserted. */
static void test_framed_leaf_is_intact(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10, A + 0x20, MAIN + 0x40 };
	const struct sampler_leaf stale = { .ret = B + 0x30,
					    .ret_target = LEAF,
					    .caller_target = LEAF };
	const struct sampler_leaf same = { .ret = A + 0x20, .ret_target = LEAF };
	uint64_t out[4];
	uint32_t n;

	(void)state;
	assert_int_equal(fix(ips, 3, &stale, out, 4, &n), LEAF_INTACT);
	assert_int_equal(n, 3);
	assert_int_equal(out[1], A + 0x20);
	/* the word found is the walk's own second frame */
	assert_int_equal(fix(ips, 3, &same, out, 4, &n), LEAF_INTACT);
	assert_int_equal(n, 3);
}

/* A return address whose call went elsewhere proves nothing. */
static void test_call_to_another_function_is_not_taken(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10, MAIN + 0x40 };
	const struct sampler_leaf hint = { .ret = A + 0x20, .ret_target = B, .caller_target = A };
	uint64_t out[4];
	uint32_t n;

	(void)state;
	/* main's call went to a, a known function that is not the leaf's */
	assert_int_equal(fix(ips, 2, &hint, out, 4, &n), LEAF_MISSING);
	assert_int_equal(n, 2);
	assert_int_equal(out[1], MAIN + 0x40);
}

static void test_indirect_and_plt_calls_are_unproven(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10, MAIN + 0x40 };
	const struct sampler_leaf indirect = { 0 };
	const struct sampler_leaf plt = { .ret = A + 0x20,
					  .ret_target = PLT,
					  .caller_target = PLT };
	uint64_t out[4];
	uint32_t n;

	(void)state;
	assert_int_equal(fix(ips, 2, &indirect, out, 4, &n), LEAF_UNPROVEN);
	assert_int_equal(fix(ips, 2, &plt, out, 4, &n), LEAF_UNPROVEN);
	assert_int_equal(n, 2);
	assert_int_equal(fix(ips, 2, NULL, out, 4, &n), LEAF_UNPROVEN);
	/* a leaf in no known function */
	{
		const uint64_t unknown[] = { PLT + 4, MAIN + 0x40 };

		assert_int_equal(fix(unknown, 2, &plt, out, 4, &n), LEAF_UNPROVEN);
	}
}

/* A word that once returned to the leaf from b, while the walk's second
 * frame (main) called a: the word is stale, nothing is inserted. */
static void test_stale_word_fails_the_second_link(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10, MAIN + 0x40 };
	const struct sampler_leaf hint = { .ret = B + 0x30,
					   .ret_target = LEAF,
					   .caller_target = A };
	const struct sampler_leaf indirect = { .ret = B + 0x30, .ret_target = LEAF };
	uint64_t out[4];
	uint32_t n;

	(void)state;
	assert_int_equal(fix(ips, 2, &hint, out, 4, &n), LEAF_MISSING);
	assert_int_equal(n, 2);
	/* main's call was indirect: one link is all there is to prove */
	assert_int_equal(fix(ips, 2, &indirect, out, 4, &n), LEAF_RECOVERED);
	assert_int_equal(out[1], B + 0x30);
}

/* A one-frame stack (the walk stopped at once) can get its caller too. */
static void test_single_frame(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10 };
	const struct sampler_leaf hint = { .ret = A + 0x20, .ret_target = LEAF };
	uint64_t out[4];
	uint32_t n;

	(void)state;
	assert_int_equal(fix(ips, 1, &hint, out, 4, &n), LEAF_RECOVERED);
	assert_int_equal(n, 2);
	assert_int_equal(out[1], A + 0x20);
	assert_int_equal(fix(ips, 0, &hint, out, 4, &n), LEAF_NO_STACK);
	assert_int_equal(n, 0);
}

/* At full depth the outermost frame makes room. */
static void test_full_stack_drops_the_outermost(void **state)
{
	const uint64_t ips[] = { LEAF + 0x10, MAIN + 0x40, MAIN + 0x50 };
	const struct sampler_leaf hint = { .ret = A + 0x20, .ret_target = LEAF };
	uint64_t out[3];
	uint32_t n;

	(void)state;
	assert_int_equal(fix(ips, 3, &hint, out, 3, &n), LEAF_RECOVERED);
	assert_int_equal(n, 3);
	assert_int_equal(out[1], A + 0x20);
	assert_int_equal(out[2], MAIN + 0x40);
}

static void test_stack_roots(void **state)
{
	(void)state;
	assert_int_equal(stack_root_of("__libc_start_call_main"), STACK_ROOTED);
	assert_int_equal(stack_root_of("_start"), STACK_ROOTED);
	assert_int_equal(stack_root_of("clone3"), STACK_ROOTED);
	assert_int_equal(stack_root_of("start_thread"), STACK_ROOTED);
	assert_int_equal(stack_root_of("main"), STACK_UNROOTED);
	assert_int_equal(stack_root_of("memcpy"), STACK_UNROOTED);
	assert_int_equal(stack_root_of(NULL), STACK_OUTER_UNNAMED);
	assert_string_equal(stack_root_name(STACK_OUTER_UNNAMED), "outermost_unnamed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frameless_leaf_gets_its_caller),
		cmocka_unit_test(test_framed_leaf_is_intact),
		cmocka_unit_test(test_call_to_another_function_is_not_taken),
		cmocka_unit_test(test_indirect_and_plt_calls_are_unproven),
		cmocka_unit_test(test_stale_word_fails_the_second_link),
		cmocka_unit_test(test_single_frame),
		cmocka_unit_test(test_full_stack_drops_the_outermost),
		cmocka_unit_test(test_stack_roots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
