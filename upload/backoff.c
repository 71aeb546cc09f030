// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backoff.c - retry delays (backoff.h). */
#include "upload/backoff.h"

#include <sys/random.h>
#include <time.h>

uint64_t backoff_delay_ns(uint64_t min_ns, uint64_t max_ns, unsigned failures, uint64_t random)
{
	uint64_t base = min_ns, half;
	unsigned i;

	if (!failures)
		return 0;
	if (max_ns < min_ns)
		max_ns = min_ns;
	for (i = 1; i < failures && base < max_ns; i++)
		base = base > max_ns / 2 ? max_ns : base * 2;
	if (base > max_ns)
		base = max_ns;
	half = base / 2;
	return half + random % (base - half + 1);
}

uint64_t backoff_random(void)
{
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
	return r;
}
