/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* backoff.h - how long the uploader waits before trying again: exponential
 * from a minimum to a maximum, with jitter so that a fleet whose backend
 * came back does not retry in lock step. */
#ifndef TRAPD_UPLOAD_BACKOFF_H
#define TRAPD_UPLOAD_BACKOFF_H

#include <stdint.h>

/* backoff_delay_ns - the wait after @failures transient failures in a row
 * (1 for the first): base = min(@max_ns, @min_ns * 2^(failures-1)), and
 * the wait is base/2 plus @random modulo (base/2 + 1) ("equal jitter": at
 * least half the base, at most the base). 0 failures: 0. */
uint64_t backoff_delay_ns(uint64_t min_ns, uint64_t max_ns, unsigned failures, uint64_t random);

/* backoff_random - a random 64-bit number (getrandom, or the clock when
 * that fails: jitter needs no cryptography). */
uint64_t backoff_random(void);

#endif
