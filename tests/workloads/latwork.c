// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latwork.c - workloads of known latency for the latency histogram tests.
 *
 * Usage: latwork MODE MS COUNT
 *   func   call slow_call(), which sleeps MS milliseconds, COUNT times
 *   sleep  nanosleep MS milliseconds, COUNT times
 *   poll   poll() on nothing with an MS millisecond timeout, COUNT times
 *   spin   getppid() COUNT times, MS ignored (system calls that take ~no time)
 * COUNT 0 is forever. Prints its pid on stdout first, so a test can scope
 * a rule to it.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

/* slow_call - the function a uprobe times: MS milliseconds each call. */
__attribute__((noinline)) void slow_call(long ms)
{
	sleep_ms(ms);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long ms, count, i;

	if (argc != 4) {
		fprintf(stderr, "usage: latwork func|sleep|poll|spin MS COUNT\n");
		return 2;
	}
	ms = strtol(argv[2], NULL, 10);
	count = strtol(argv[3], NULL, 10);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; !count || i < count; i++) {
		if (!strcmp(argv[1], "func"))
			slow_call(ms);
		else if (!strcmp(argv[1], "sleep"))
			sleep_ms(ms);
		else if (!strcmp(argv[1], "poll"))
			poll(NULL, 0, (int)ms);
		else if (!strcmp(argv[1], "spin"))
			getppid();
		else
			return 2;
	}
	return 0;
}
