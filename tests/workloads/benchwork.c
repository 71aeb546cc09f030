// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* benchwork.c - a fixed amount of CPU-bound work for overhead benchmarks.
 *
 * Usage: benchwork ITERATIONS
 * Does ITERATIONS rounds of the burner's 60/30/10 loop, then prints
 * "wall_ns cpu_ns" of the work alone on stdout, so a profiler's start-up
 * and shut-down are not counted as slowdown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) void spin(unsigned long n)
{
	unsigned long x = sink;

	while (n--)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

__attribute__((noinline)) void burn_60(void)
{
	spin(600000);
}
__attribute__((noinline)) void burn_30(void)
{
	spin(300000);
}
__attribute__((noinline)) void burn_10(void)
{
	spin(100000);
}

static long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long long w0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_PROCESS_CPUTIME_ID);

	for (long i = 0; i < iterations; i++) {
		burn_60();
		burn_30();
		burn_10();
	}
	printf("%lld %lld\n", ns(CLOCK_MONOTONIC) - w0, ns(CLOCK_PROCESS_CPUTIME_ID) - c0);
	return 0;
}
