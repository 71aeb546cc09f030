// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_latency_json.c - a sidecar's latency window read back on arbitrary
 * JSON: no crash, no undefined behaviour, no leak; an accepted window has
 * events equal to the sum of its buckets, and written out again with
 * latency_report__json it reads back to the same buckets. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/latency/latency_report.h"
#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* round_trip - @h written and read again is @h (buckets, events, max). */
static void round_trip(const struct lat_hist *h, uint64_t span)
{
	struct lat_hist *again = malloc(sizeof(*again));
	struct json_value *root = NULL;
	struct json_writer w;
	char *buf = NULL, err[160];
	size_t len = 0;
	uint64_t span2;
	FILE *f = open_memstream(&buf, &len);

	check(f && again);
	json_init(&w, f);
	latency_report__json(&w, h, span);
	check(json_finish(&w) == 0);
	fclose(f);
	check(json_parse(buf, len, &root, err, sizeof(err)) == 0);
	check(latency_report__from_json(root, again, &span2, err, sizeof(err)) == 0);
	check(span2 == span && again->events == h->events);
	check(!memcmp(again->counts, h->counts, sizeof(h->counts)));
	json_free(root);
	free(buf);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value *root = NULL;
	struct lat_hist *h = malloc(sizeof(*h));
	uint64_t span = 0, sum = 0;
	char err[160];
	uint32_t b;

	check(h != NULL);
	if (json_parse((const char *)data, size, &root, err, sizeof(err)) == 0 &&
	    latency_report__from_json(root, h, &span, err, sizeof(err)) == 0) {
		for (b = 0; b < LAT_NBUCKETS; b++)
			sum += h->counts[b];
		check(sum == h->events);
		round_trip(h, span);
	}
	json_free(root);
	free(h);
	return 0;
}
