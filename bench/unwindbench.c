// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwindbench.c - what one walk of the DWARF CFI unwinder costs on a
 * stack of about 20 frames built without frame pointers (this program's
 * own: a recursion, then main and libc's start code), captured as the
 * sampler captures a target's (ip, sp, bp and up to 16 KiB of stack).
 *
 * Usage: unwindbench [WALKS]   (default 200000)
 *
 *   cold  a new unwinder, one walk: the maps read, every file's CFI
 *         loaded, every rule run through libdw; repeated 20 times (the
 *         page cache warm), the median printed
 *   warm  WALKS walks of the same sample with one unwinder: every rule
 *         from the per-file cache
 * Prints "cold frames=N ns=..." and "warm frames=N walks=N ns_per_walk=...
 * walks_per_s=...".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trapd/symbolize/procmaps.h"
#include "trapd/symbolize/unwinder.h"

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))
#define COPY_MAX 16384
#define COLD_RUNS 20

static uint8_t copy[COPY_MAX];
static struct unwind_input sample;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t stack_end(uint64_t sp)
{
	struct procmaps m;
	uint64_t end = sp;
	size_t i;

	if (procmaps__read("/proc", getpid(), 0, &m))
		return sp;
	for (i = 0; i < m.n; i++) {
		if (m.entries[i].start <= sp && sp < m.entries[i].end)
			end = m.entries[i].end;
	}
	procmaps__free(&m);
	return end;
}

NOFP static void capture(void)
{
	uint64_t ip, sp, bp, len;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	len = stack_end(sp) - sp;
	if (len > COPY_MAX)
		len = COPY_MAX;
	memcpy(copy, (const void *)sp, len);
	sample = (struct unwind_input){ ip, sp, bp, copy, (uint32_t)len };
}

NOFP static int recurse(int n)
{
	volatile int pad[4] = { n, n, n, n };

	if (n <= 0)
		capture();
	else
		pad[1] += recurse(n - 1);
	return pad[1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long walks = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
	uint64_t cold[COLD_RUNS], t0, t1;
	struct unwind_result r;
	struct unwinder *u;
	int pid = getpid();
	long i;

	if (walks <= 0)
		walks = 1;
	recurse(16);
	for (i = 0; i < COLD_RUNS; i++) {
		u = unwinder__new(NULL, 0);
		t0 = now_ns();
		if (!u || unwinder__unwind(u, pid, &sample, &r))
			return 1;
		cold[i] = now_ns() - t0;
		unwinder__free(u);
	}
	qsort(cold, COLD_RUNS, sizeof(cold[0]), cmp_u64);
	printf("cold frames=%u end=%s ns=%llu\n", r.n, unwinder__end_name(r.end),
	       (unsigned long long)cold[COLD_RUNS / 2]);
	u = unwinder__new(NULL, 0);
	if (!u || unwinder__unwind(u, pid, &sample, &r))
		return 1;
	t0 = now_ns();
	for (i = 0; i < walks; i++)
		unwinder__unwind(u, pid, &sample, &r);
	t1 = now_ns();
	printf("warm frames=%u walks=%ld ns_per_walk=%.0f walks_per_s=%.0f\n", r.n, walks,
	       (double)(t1 - t0) / (double)walks, (double)walks * 1e9 / (double)(t1 - t0));
	unwinder__free(u);
	return 0;
}
