// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* lockstep.c - a loop that keeps step with a sampler's clock: the worst
 * case of aliasing, for the tests of the sampler's dither.
 *
 * Usage: lockstep HZ SECONDS FIRST_PCT
 * Each iteration lasts exactly 1/HZ s of CLOCK_MONOTONIC (the clock of
 * the kernel's cpu-clock timer): step_first spins for its first FIRST_PCT
 * percent, step_rest for the rest. A sampler firing every 1/HZ s finds
 * the loop at the same point at every sample, and names one function for
 * all of them; a sampler that moves its samples across the iteration
 * finds FIRST_PCT percent in step_first. Prints its pid, then spins for
 * SECONDS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* spin_until - work until @t; a function of its own in each caller, so a
 * sample names the step it is in. */
static inline __attribute__((always_inline)) void spin_until(int64_t t)
{
	unsigned long x = sink;

	while (now_ns() < t)
		for (int i = 0; i < 64; i++) /* mostly here, not in the vDSO */
			x = x * 6364136223846793005ul + 1;
	sink = x;
}

__attribute__((noinline)) void step_first(int64_t until)
{
	spin_until(until);
}

__attribute__((noinline)) void step_rest(int64_t until)
{
	spin_until(until);
}

int main(int argc, char **argv)
{
	long hz, pct;
	double seconds;
	int64_t period, first, start, end, t;

	if (argc != 4 || (hz = strtol(argv[1], NULL, 10)) <= 0 || hz > 100000 ||
	    (seconds = strtod(argv[2], NULL)) <= 0 || (pct = strtol(argv[3], NULL, 10)) <= 0 ||
	    pct >= 100) {
		fprintf(stderr, "usage: lockstep HZ SECONDS FIRST_PCT\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	period = 1000000000 / hz;
	first = period * pct / 100;
	start = now_ns() / period * period + period;
	end = start + (int64_t)(seconds * 1e9);
	spin_until(start);
	for (t = start; t < end; t += period) {
		step_first(t + first);
		step_rest(t + period);
	}
	return 0;
}
