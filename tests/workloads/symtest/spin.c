// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* spin.c - a process that spends its time in one function, for the
 * symbolizer's integration tests (tests/integration/test_symbolize.sh).
 *
 * Built twice by tests/workloads/extra.mk with a different name for that
 * function (-DHOT_NAME=spin_alpha_hot, -DHOT_NAME=spin_beta_hot): the two
 * binaries differ only there, so a capture that read the wrong file at a
 * path they share names the wrong function at the same address.
 *
 * Usage: spin [SECONDS] [COMM]   (default 20 s; COMM: the name the kernel
 * shows and a capture's stacks start with, default the file's name)
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#ifndef HOT_NAME
#error "build with -DHOT_NAME=the_hot_function"
#endif

static volatile unsigned long sink;

/* HOT_NAME - a loop the optimiser cannot remove, in a function of its own
 * (noinline): the leaf of nearly every sample. gcc gives a leaf that
 * uses no stack no frame pointer, so main is missing above it. */
__attribute__((noinline)) unsigned long HOT_NAME(unsigned long n)
{
	unsigned long x = sink;

	while (n--)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	/* Bounded, so a test that dies before killing it leaks no spinner. */
	double end = now() + (argc > 1 ? atof(argv[1]) : 20);

	if (argc > 2)
		prctl(PR_SET_NAME, argv[2]);
	while (now() < end)
		sink = HOT_NAME(1000000);
	return 0;
}
