// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* clock.c - monotonic and wall-clock time in ns (clock.h). */
#include "trapd/util/clock.h"

#include <time.h>

static int64_t read_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int64_t clock_mono_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

int64_t clock_real_ns(void)
{
	return read_clock(CLOCK_REALTIME);
}
