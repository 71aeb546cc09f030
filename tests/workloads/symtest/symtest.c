// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* symtest.c - a program the symbolizer tests read themselves through.
 *
 * It prints "name address" for a few of its functions (global, static,
 * and main) and "ready", then waits until its stdin is closed, so a test
 * can snapshot its /proc/PID/maps while it lives and symbolize the
 * addresses both before and after it exits. Built as PIE, non-PIE and a
 * stripped copy by tests/workloads/extra.mk.
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) unsigned long hot_function(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

__attribute__((noinline)) static unsigned long local_function(unsigned long n)
{
	return hot_function(n) ^ 0x5a5a;
}

__attribute__((noinline)) unsigned long cold_function(unsigned long n)
{
	return local_function(n) + 1;
}

int main(void)
{
	char c;

	printf("hot_function %p\n", (void *)hot_function);
	printf("local_function %p\n", (void *)local_function);
	printf("cold_function %p\n", (void *)cold_function);
	printf("main %p\n", (void *)main);
	printf("ready %lu\n", cold_function(10));
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	return 0;
}
