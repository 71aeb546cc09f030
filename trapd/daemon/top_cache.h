/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* top_cache.h - the answers to `trapd top` the daemon built last, by the
 * seconds asked for, kept TOP_CACHE_NS: a live view redraws every second,
 * so however many clients ask and however fast, the loop merges and
 * encodes the recorder's seconds at most once per TOP_CACHE_NS for each
 * of the CONTROL_TOP_MAX_SECONDS lengths a request may ask. */
#ifndef TRAPD_TOP_CACHE_H
#define TRAPD_TOP_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/daemon/control.h"

#define TOP_CACHE_NS 250000000ll

struct top_cache {
	struct top_answer {
		int64_t built; /* CLOCK_MONOTONIC ns; 0: none */
		void *buf;     /* the pprof answer */
		size_t len;
	} by_seconds[CONTROL_TOP_MAX_SECONDS + 1];
	uint64_t asked; /* requests answered */
	uint64_t built; /* ...of which built anew */
};

/* top_cache__get - the answer for @seconds built within TOP_CACHE_NS of
 * @now (counted as asked), or NULL. */
const struct top_answer *top_cache__get(struct top_cache *c, uint32_t seconds, int64_t now);

/* top_cache__put - keep @buf (@len bytes, taken over) as the answer for
 * @seconds built at @now (counted as asked and built). */
void top_cache__put(struct top_cache *c, uint32_t seconds, int64_t now, void *buf, size_t len);

void top_cache__free(struct top_cache *c);

#endif
