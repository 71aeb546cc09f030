// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pylookalike.c - a program that looks like a CPython interpreter to
 * trapd's probe (it has a _PyRuntime and no Py_Version) and, linked with
 * extra.mk's script, holds 2,000,000 absolute symbols for the probe to
 * walk; it forks children that spin a while and exit, as a local user's
 * fork storm would: each is a new process of the same file.
 *
 * Usage: pylookalike FORKS_PER_SECOND SECONDS SPIN_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* what the probe looks for; used, so that the linker keeps it */
volatile long _PyRuntime[64] = { 1 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spin(double seconds)
{
	double until = now() + seconds;

	while (now() < until)
		_PyRuntime[1]++;
}

int main(int argc, char **argv)
{
	double rate, seconds, spin_s, start, next;
	long forked = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: pylookalike FORKS_PER_SECOND SECONDS SPIN_MS\n");
		return 2;
	}
	rate = atof(argv[1]);
	seconds = atof(argv[2]);
	spin_s = atof(argv[3]) / 1000;
	start = now();
	for (next = start; now() - start < seconds; next += 1 / rate) {
		pid_t pid;

		while (now() < next)
			usleep(200);
		pid = fork();
		if (pid == 0) {
			spin(spin_s);
			_exit(0);
		}
		forked += pid > 0;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	printf("%ld\n", forked);
	return 0;
}
