// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* deep.c - a stack of a chosen depth, built as distributions build code
 * (-O2, no frame pointers): main calls descend, which calls itself until
 * DEPTH frames are on the stack, then spins in leaf. For the unwinding
 * benchmarks' cost by stack depth, and for tests of walks deeper than a
 * stack copy holds (each frame keeps FRAME_BYTES of its own).
 *
 * Usage: deep SECONDS DEPTH [FRAME_BYTES]
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double seconds;
static unsigned long frame_bytes = 64;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void leaf(void)
{
	double end = now() + seconds;
	unsigned long acc = sink;

	while (now() < end)
		for (unsigned long i = 0; i < 100000; i++)
			acc = acc * 6364136223846793005ul + i;
	sink = acc;
}

__attribute__((noinline)) static unsigned long descend(unsigned long left)
{
	/* a frame of its own, which the CFI must describe */
	volatile char *pad = __builtin_alloca(frame_bytes);

	pad[left % frame_bytes] = (char)left;
	if (left <= 1)
		leaf();
	else
		sink += descend(left - 1);
	return pad[0] + left;
}

int main(int argc, char **argv)
{
	unsigned long depth;

	if (argc < 3)
		return 2;
	seconds = strtod(argv[1], NULL);
	depth = strtoul(argv[2], NULL, 10);
	if (argc > 3)
		frame_bytes = strtoul(argv[3], NULL, 10);
	if (!depth || !frame_bytes)
		return 2;
	/* main, then DEPTH - 3 descend frames, leaf: with _start and
	 * __libc_start_* the stack holds about DEPTH + 2 frames */
	sink += descend(depth > 3 ? depth - 3 : 1);
	return 0;
}
