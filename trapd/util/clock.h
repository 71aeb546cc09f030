/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* clock.h - the two clocks trapd reads: CLOCK_MONOTONIC for every
 * deadline, window and interval, CLOCK_REALTIME only for the times a
 * capture's metadata records (the wall clock can step; intervals must
 * not). Both in nanoseconds.
 */
#ifndef TRAPD_CLOCK_H
#define TRAPD_CLOCK_H

#include <stdint.h>

/* clock_mono_ns - CLOCK_MONOTONIC now, in ns. */
int64_t clock_mono_ns(void);

/* clock_real_ns - CLOCK_REALTIME now, in ns since the epoch. */
int64_t clock_real_ns(void);

#endif
