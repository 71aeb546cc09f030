// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* slowcall.c - a request handler that is slow in 5 % of its calls because
 * it takes a different path: every twentieth call of handle_request goes
 * through slow_path (SLOW_MS of CPU work), the others through fast_path
 * (FAST_MS). Both paths share parse_request, so a profile of all calls
 * mixes them; only the split by call tells the slow path apart.
 *
 * With -s the paths sleep (nanosleep) for their time instead of working:
 * the slow calls are slow off the CPU.
 *
 * With -n the program handles SECONDS requests instead of running for
 * SECONDS seconds: a benchmark of fixed work, for `trapd ci`.
 *
 * Usage: slowcall [-s] [-n] [SECONDS [FAST_MS [SLOW_MS]]]   (defaults 6, 1, 20)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static bool sleeping; /* -s: the paths sleep instead of working */
static bool counted;  /* -n: a number of requests, not of seconds */

/* after_call - keeps the call before it a call, not a tail jump, and
 * each function's body its own (the compiler folds identical ones): the
 * stacks name the path taken. */
#define after_call(tag) (sink += (tag))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* burn - about @ms of CPU time (or of sleep, with -s). */
static __attribute__((noinline)) void burn(double ms)
{
	double end = now_s() + ms / 1000.0;
	unsigned long x = sink;
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
			       .tv_nsec =
				       (long)((ms - 1000.0 * (double)(time_t)(ms / 1000)) * 1e6) };

	if (sleeping) {
		nanosleep(&ts, NULL);
		return;
	}
	while (now_s() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static __attribute__((noinline)) void parse_request(double ms)
{
	burn(ms);
	after_call(1);
}

static __attribute__((noinline)) void fast_path(double ms)
{
	burn(ms);
	after_call(2);
}

static __attribute__((noinline)) void slow_path(double ms)
{
	burn(ms);
	after_call(3);
}

__attribute__((noinline)) void handle_request(unsigned long n, double fast_ms, double slow_ms)
{
	parse_request(fast_ms / 2);
	if (n % 20 == 0)
		slow_path(slow_ms);
	else
		fast_path(fast_ms / 2);
	after_call(4);
}

int main(int argc, char **argv)
{
	while (argc > 1 && (!strcmp(argv[1], "-s") || !strcmp(argv[1], "-n"))) {
		if (argv[1][1] == 's')
			sleeping = true;
		else
			counted = true;
		argv++;
		argc--;
	}
	double seconds = argc > 1 ? atof(argv[1]) : 6;
	double fast_ms = argc > 2 ? atof(argv[2]) : 1;
	double slow_ms = argc > 3 ? atof(argv[3]) : 20;
	double end = now_s() + seconds;
	unsigned long n = 0;

	while (counted ? n < (unsigned long)seconds : now_s() < end)
		handle_request(++n, fast_ms, slow_ms);
	printf("%lu requests\n", n);
	return 0;
}
