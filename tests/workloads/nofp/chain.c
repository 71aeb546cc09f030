// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* chain.c - a call chain built as distributions build code: -O2 and no
 * frame pointers (tests/workloads/extra.mk). main calls dispatch, which
 * calls outer, which calls leaf, where the time goes; a frame-pointer walk
 * loses main and dispatch, a DWARF unwind must find them all.
 *
 * Usage: chain SECONDS [THREADS]  (threads run the same chain from
 * start_thread, so thread stacks are tested too)
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 200000; i++)
		acc = acc * 6364136223846793005ul + i;
	return acc;
}

__attribute__((noinline)) static unsigned long outer(unsigned long n)
{
	/* a frame of its own that the CFI must describe */
	volatile char pad[64];

	pad[n & 63] = (char)n;
	return leaf(n + pad[0]) + 1;
}

__attribute__((noinline)) static unsigned long dispatch(unsigned long n)
{
	return outer(n * 3) ^ n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double seconds = 3;

static void *run(void *arg)
{
	double end = now() + seconds;
	unsigned long n = (unsigned long)arg;

	while (now() < end)
		sink += dispatch(n++);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0;
	pthread_t tids[16];
	int i;

	if (argc > 1)
		seconds = strtod(argv[1], NULL);
	if (threads > 16)
		threads = 16;
	for (i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, run, (void *)(unsigned long)i);
	run(NULL);
	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
