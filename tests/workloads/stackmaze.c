// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* stackmaze.c - a CPU-bound workload whose every sample has a stack of
 * its own: each round walks a random path, 20 to 40 calls deep, through
 * sixteen functions that call each other, and spins at the bottom. With
 * 16^20 paths, the distinct stacks a capture sees grow with its samples,
 * which is what fills a profiler's stack table.
 *
 * Usage: stackmaze [SECONDS] [THREADS]   (default 5 s, 1 thread)
 * Prints its pid on stdout first, so a test can attach to it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NFUNCS 16

static volatile unsigned long sink;
static double seconds = 5;

typedef unsigned long (*step_fn)(unsigned long rng, int depth);
static step_fn steps[NFUNCS];

static unsigned long next(unsigned long x)
{
	return x * 6364136223846793005ul + 1442695040888963407ul;
}

/* step - one level of the walk: go one deeper through a random function,
 * or spin at the bottom. The work after the call keeps it off a tail
 * call, so every level keeps its frame. */
static inline __attribute__((always_inline)) unsigned long step(unsigned long rng, int depth)
{
	unsigned long x;

	if (depth == 0) {
		x = rng;
		for (int i = 0; i < 1000; i++)
			x = next(x);
		sink = x;
		return x;
	}
	rng = next(rng);
	x = steps[(rng >> 33) % NFUNCS](rng, depth - 1);
	sink += depth;
	return x ^ depth;
}

#define STEP(n)                                                                                    \
	__attribute__((noinline)) unsigned long step_##n(unsigned long rng, int depth)             \
	{                                                                                          \
		return step(rng, depth);                                                           \
	}
STEP(0)
STEP(1)
STEP(2)
STEP(3)
STEP(4)
STEP(5)
STEP(6)
STEP(7)
STEP(8)
STEP(9)
STEP(10)
STEP(11)
STEP(12)
STEP(13)
STEP(14)
STEP(15)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* mix - splitmix64's finalizer: each round's walk from a seed of its own
 * (walking on from the last round's generator would retrace its path one
 * level shifted, and repeat its stacks). */
static unsigned long mix(unsigned long x)
{
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ul;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebul;
	return x ^ (x >> 32);
}

static void *run(void *arg)
{
	unsigned long round = (unsigned long)arg << 48, rng;
	double end = now() + seconds;

	while (seconds == 0 || now() < end) {
		rng = mix(++round * 0x9e3779b97f4a7c15ul);
		step_0(rng, 20 + (int)((rng >> 40) % 21));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	step_fn all[NFUNCS] = {
		step_0, step_1, step_2,	 step_3,  step_4,  step_5,  step_6,  step_7,
		step_8, step_9, step_10, step_11, step_12, step_13, step_14, step_15
	};
	pthread_t t[64];
	int n = 1, i;

	if (argc > 1)
		seconds = strtod(argv[1], NULL);
	if (argc > 2)
		n = (int)strtol(argv[2], NULL, 10);
	if (n < 1 || n > 64)
		n = 1;
	for (i = 0; i < NFUNCS; i++)
		steps[i] = all[i];
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (i = 1; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	run((void *)0L);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
