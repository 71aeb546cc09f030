// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_latency_report.c - a latency window as JSON (status, sidecars) and
 * read back from a sidecar: round trips, and every malformed bucket
 * refused with a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/latency/latency_report.h"

/* to_json - @h over @span as latency_report__json writes it (malloc'd). */
static char *to_json(const struct lat_hist *h, uint64_t span)
{
	struct json_writer w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	json_init(&w, f);
	latency_report__json(&w, h, span);
	assert_int_equal(json_finish(&w), 0);
	fclose(f);
	return buf;
}

/* from_text - latency_report__from_json on @text; returns its result. */
static int from_text(const char *text, struct lat_hist *h, uint64_t *span, char *err, size_t len)
{
	struct json_value *root = NULL;
	int e;

	assert_int_equal(json_parse(text, strlen(text), &root, err, len), 0);
	e = latency_report__from_json(root, h, span, err, len);
	json_free(root);
	return e;
}

static void add(struct lat_hist *h, uint64_t ns, uint64_t n)
{
	h->counts[lat_bucket_of(ns)] += n;
	h->events += n;
	h->sum_ns += ns * n;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static void test_json_round_trip(void **state)
{
	struct lat_hist *h = calloc(1, sizeof(*h)), *back = calloc(1, sizeof(*back));
	uint64_t span = 0;
	char err[160], *text;

	(void)state;
	add(h, 0, 1);
	add(h, 15, 2);
	add(h, 5000000, 300);
	add(h, 5100000, 200);
	add(h, 1ull << 45, 1); /* the open-ended last bucket */
	text = to_json(h, 2000000000);
	assert_int_equal(from_text(text, back, &span, err, sizeof(err)), 0);
	assert_int_equal(span, 2000000000);
	assert_int_equal(back->events, h->events);
	assert_int_equal(back->max_ns, h->max_ns);
	assert_memory_equal(back->counts, h->counts, sizeof(h->counts));
	assert_non_null(strstr(text, "\"p50_ns\": "));
	free(text);
	free(h);
	free(back);
}

static void test_json_refuses_bad_buckets(void **state)
{
	static const struct {
		const char *json;
		const char *msg;
	} bad[] = {
		{ "{}", "no \"buckets\" array" },
		{ "{\"buckets\": {}}", "no \"buckets\" array" },
		{ "{\"buckets\": [[16, 17]]}", "buckets[0]: expected [LO_NS, HI_NS, COUNT]" },
		{ "{\"buckets\": [[16, 17, -1]]}", "buckets[0]: expected [LO_NS, HI_NS, COUNT]" },
		{ "{\"buckets\": [[16, 17, 1], [17, 19, 1]]}",
		  "buckets[1]: [17, 19) is not a bucket" },
		{ "{\"buckets\": [[16, 17, 1], [16, 17, 2]]}", "buckets[1]: named twice" },
		{ "{\"buckets\": [[16, 17, 0]]}", "buckets[0]: count 0" },
		{ "{\"buckets\": [[16, 17, 18446744073709551615], [17, 18, 1]]}",
		  "buckets[1]: counts overflow" },
	};
	struct lat_hist *h = calloc(1, sizeof(*h));
	uint64_t span;
	char err[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(from_text(bad[i].json, h, &span, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, bad[i].msg);
	}
	free(h);
}

static void test_text_has_percentiles_and_rows(void **state)
{
	struct lat_hist *h = calloc(1, sizeof(*h));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	add(h, 5000000, 99);
	add(h, 40000000, 1);
	latency_report__text(f, h, 10000000000ull, "  ");
	fclose(f);
	assert_non_null(strstr(buf, "  p50 "));
	assert_non_null(strstr(buf, "max 40ms  (100 events in 10s)\n"));
	assert_non_null(strstr(buf, "|  99\n"));
	assert_non_null(strstr(buf, "|   1\n"));
	free(buf);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_refuses_bad_buckets),
		cmocka_unit_test(test_text_has_percentiles_and_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
