// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* inl.c - hot code the compiler inlined, built -O2 -g without frame
 * pointers (tests/workloads/extra.mk): main calls inl_caller (noinline),
 * into which inl_hot_inline (always_inline) is inlined, and inl_hot_inline
 * is where the time goes. The symbol table names only inl_caller; the
 * DWARF knows inl_hot_inline was inlined there, at the line marked CALL.
 *
 * Usage: inl SECONDS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long inl_hot_inline(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 400000; i++)
		acc = acc * 6364136223846793005ul + (i ^ (acc >> 7)); /* HOT */
	return acc;
}

__attribute__((noinline)) static unsigned long inl_caller(unsigned long n)
{
	unsigned long r = inl_hot_inline(n); /* CALL */

	sink = r;
	return r + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0, end = now() + secs;
	unsigned long n = 1;

	while (now() < end)
		n = inl_caller(n);
	/* the result is kept (the loop is not dead code), not an exit status:
	 * trapd capture and perf record exit with the workload's */
	sink += n;
	return 0;
}
