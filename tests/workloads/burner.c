// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* burner.c - a CPU-bound workload with a known profile: three functions
 * burn 60 %, 30 % and 10 % of the work, called from one loop.
 *
 * Usage: burner [SECONDS] [THREADS]   (default 5 s, 1 thread; 0 s = forever)
 * Prints its pid on stdout first, so a test can attach to it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds = 5;

/* spin - a fixed amount of work the optimiser cannot remove; inlined so
 * each burn_ function owns its own self time. */
static inline __attribute__((always_inline)) void spin(unsigned long n)
{
	unsigned long x = sink;

	while (n--)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

__attribute__((noinline)) void burn_60(void)
{
	for (int i = 0; i < 6; i++)
		spin(100000);
}

__attribute__((noinline)) void burn_30(void)
{
	for (int i = 0; i < 3; i++)
		spin(100000);
}

__attribute__((noinline)) void burn_10(void)
{
	spin(100000);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	double end = now() + seconds;

	(void)arg;
	while (seconds == 0 || now() < end) {
		burn_60();
		burn_30();
		burn_10();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 1, i;
	pthread_t tids[64];

	if (argc > 1)
		seconds = atof(argv[1]);
	if (threads < 1 || threads > 64)
		threads = 1;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (i = 1; i < threads; i++)
		pthread_create(&tids[i], NULL, work, NULL);
	work(NULL);
	for (i = 1; i < threads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
