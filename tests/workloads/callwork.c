// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* callwork.c - a function called in a tight loop, for what probing its
 * calls costs each one (bench/calls): `tagged` does nothing, so the time
 * per call is the probes'.
 *
 * Usage: callwork CALLS [WARMUP_SECONDS]
 * Calls tagged() for WARMUP_SECONDS first (so a rule counting its calls
 * fires and its capture is armed), then CALLS times, timed; prints
 * "NS ns/call".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void tagged(unsigned long i)
{
	asm volatile("" : : "r"(i) : "memory");
}

int main(int argc, char **argv)
{
	unsigned long calls = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000, i;
	double warmup = argc > 2 ? atof(argv[2]) : 0, t0;

	for (t0 = now_s(), i = 0; now_s() - t0 < warmup; i++)
		tagged(i);
	t0 = now_s();
	for (i = 0; i < calls; i++)
		tagged(i);
	printf("%.1f ns/call\n", (now_s() - t0) * 1e9 / (double)calls);
	return 0;
}
