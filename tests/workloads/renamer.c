// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* renamer.c - what any local user can do to a rule that trusts a process
 * name: rename itself (prctl(PR_SET_NAME), no privilege needed) to the
 * rule's comm, then hold memory and burn a little CPU so the rule's
 * signal breaches. The safety tests run it as nobody (the impostor) and
 * as the service's user (the real process).
 * Usage: renamer NAME MIB [SECONDS] (default: until killed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 5000000 };
	long mib, secs = -1;
	time_t end;
	char *mem;

	if (argc < 3) {
		fprintf(stderr, "usage: renamer NAME MIB [SECONDS]\n");
		return 2;
	}
	mib = strtol(argv[2], NULL, 10);
	if (argc > 3)
		secs = strtol(argv[3], NULL, 10);
	if (prctl(PR_SET_NAME, argv[1], 0, 0, 0)) {
		perror("prctl");
		return 1;
	}
	mem = malloc((size_t)mib << 20);
	if (!mem)
		return 1;
	memset(mem, 1, (size_t)mib << 20); /* resident, not just reserved */
	end = time(NULL) + secs;
	while (secs < 0 || time(NULL) < end) {
		for (volatile long i = 0; i < 200000; i++)
			;
		nanosleep(&nap, NULL);
	}
	free(mem);
	return 0;
}
