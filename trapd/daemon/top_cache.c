// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* top_cache.c - `trapd top`'s answers, kept a moment (top_cache.h). */
#include "trapd/daemon/top_cache.h"

#include <stdlib.h>

const struct top_answer *top_cache__get(struct top_cache *c, uint32_t seconds, int64_t now)
{
	const struct top_answer *a;

	if (seconds > CONTROL_TOP_MAX_SECONDS)
		return NULL;
	a = &c->by_seconds[seconds];
	if (!a->built || now - a->built >= TOP_CACHE_NS || now < a->built)
		return NULL;
	c->asked++;
	return a;
}

void top_cache__put(struct top_cache *c, uint32_t seconds, int64_t now, void *buf, size_t len)
{
	struct top_answer *a;

	c->asked++;
	c->built++;
	if (seconds > CONTROL_TOP_MAX_SECONDS) {
		free(buf);
		return;
	}
	a = &c->by_seconds[seconds];
	free(a->buf);
	a->buf = buf;
	a->len = len;
	a->built = now;
}

void top_cache__free(struct top_cache *c)
{
	size_t i;

	for (i = 0; i <= CONTROL_TOP_MAX_SECONDS; i++)
		free(c->by_seconds[i].buf);
}
