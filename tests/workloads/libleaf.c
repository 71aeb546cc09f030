// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* libleaf.c - a hot libc leaf reached through the PLT: measure() calls
 * strlen (glibc's __strlen_avx2 or the like, chosen by an IFUNC), which
 * sets up no frame, as glibc is built without frame pointers. The
 * frame-pointer walk alone hangs strlen off main; the stack word at the
 * stack pointer, after "call strlen@plt", names measure.
 *
 * Usage: libleaf [SECONDS]   (default 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char text[1 << 16];

/* measure - many strlen calls; noipa keeps it a frame of its own, under
 * its own name (no inlining, no constprop clone). */
__attribute__((noipa)) static size_t measure(int n)
{
	size_t total = 0;
	int i;

	for (i = 0; i < n; i++)
		total += strlen(text + (i & 7));
	return total;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5, end = now() + seconds;
	size_t total = 0;

	memset(text, 'a', sizeof(text) - 1);
	while (now() < end)
		total += measure(1000);
	printf("%zu\n", total);
	return 0;
}
