// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_waiting.c - the parsers of the survey of threads already waiting
 * when an off-CPU window opens: /proc/PID/task/TID/stack and syscall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "trapd/capture/waiting.h"

static void test_stack_frames_innermost_first(void **state)
{
	static const char text[] = "[<0>] hrtimer_nanosleep+0xb5/0x130\n"
				   "[<0>] common_nsleep+0x30/0x60\n"
				   "[<0>] __x64_sys_clock_nanosleep+0xde/0x150\n"
				   "[<0>] do_syscall_64+0x71/0x290\n"
				   "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";
	struct waiting_frame f[WAITING_MAX_DEPTH];

	assert_int_equal(waiting_parse_stack(text, f, WAITING_MAX_DEPTH), 5);
	assert_string_equal(f[0].name, "hrtimer_nanosleep");
	assert_int_equal(f[0].offset, 0xb5);
	assert_string_equal(f[4].name, "entry_SYSCALL_64_after_hwframe");
	assert_int_equal(f[4].offset, 0x76);
}

static void test_stack_bad_lines_are_skipped_and_bounded(void **state)
{
	static const char text[] = "garbage\n"
				   "[<0>] no_offset\n"
				   "[<0>] bad_hex+0xzz/0x10\n"
				   "[<0>] +0x10/0x20\n"
				   "[<0>] a+b+0x10/0x20\n"
				   "[<0>] fine+0x1/0x2";
	struct waiting_frame f[2];

	assert_int_equal(waiting_parse_stack(text, f, 2), 2);
	/* the last '+' splits: a name may hold one */
	assert_string_equal(f[0].name, "a+b");
	assert_string_equal(f[1].name, "fine");
	assert_int_equal(waiting_parse_stack(text, f, 1), 1);
	assert_int_equal(waiting_parse_stack("", f, 2), 0);
}

static void test_syscall_sp_and_pc(void **state)
{
	uint64_t sp = 0, pc = 0;

	assert_int_equal(waiting_parse_syscall("230 0x0 0x0 0x7ffcd4077930 0x7ffcd4077970 0x0 0x0 "
					       "0x7ffcd4077918 0x7fa1844ca503\n",
					       &sp, &pc),
			 0);
	assert_int_equal(sp, 0x7ffcd4077918ull);
	assert_int_equal(pc, 0x7fa1844ca503ull);
	assert_int_equal(waiting_parse_syscall("-1 0x7ffd00001000 0x401000\n", &sp, &pc), 0);
	assert_int_equal(sp, 0x7ffd00001000ull);
	assert_int_equal(pc, 0x401000ull);
}

static void test_syscall_refusals(void **state)
{
	uint64_t sp = 7, pc = 7;

	assert_int_equal(waiting_parse_syscall("running\n", &sp, &pc), -EINVAL);
	assert_int_equal(waiting_parse_syscall("230 0x0 0x0\n", &sp, &pc), -EINVAL);
	assert_int_equal(waiting_parse_syscall("-1 0x1\n", &sp, &pc), -EINVAL);
	assert_int_equal(waiting_parse_syscall("-2 0x1 0x2\n", &sp, &pc), -EINVAL);
	assert_int_equal(waiting_parse_syscall("-1 0x11111111111111111 0x2\n", &sp, &pc), -EINVAL);
	assert_int_equal(waiting_parse_syscall("-1 0x1 0x2 extra\n", &sp, &pc), -EINVAL);
	assert_int_equal(waiting_parse_syscall("", &sp, &pc), -EINVAL);
	assert_int_equal(sp, 7);
	assert_int_equal(pc, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_frames_innermost_first),
		cmocka_unit_test(test_stack_bad_lines_are_skipped_and_bounded),
		cmocka_unit_test(test_syscall_sp_and_pc),
		cmocka_unit_test(test_syscall_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
