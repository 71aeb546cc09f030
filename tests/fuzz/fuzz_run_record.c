// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_run_record.c - a sidecar's "ci" object read back on arbitrary JSON:
 * no crash, no undefined behaviour, no leak; both the document itself
 * and its "ci" member are tried. An accepted record holds 1 to
 * RUN_RECORD_MAX_RUNS runs within their ranges, and written out again with
 * run_record__emit it reads back to the same runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/capture/run_record.h"
#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* round_trip - @r written as a sidecar's "ci" and read again is @r. */
static void round_trip(const struct run_record *r)
{
	struct run_record *again = malloc(sizeof(*again));
	struct json_value *root = NULL;
	struct json_writer w;
	char *buf = NULL, err[160];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	check(f && again);
	json_init(&w, f);
	json_object_begin(&w);
	run_record__emit(&w, r);
	json_object_end(&w);
	check(json_finish(&w) == 0);
	fclose(f);
	check(json_parse(buf, len, &root, err, sizeof(err)) == 0);
	check(run_record__from_json(json_get(root, "ci"), again, err, sizeof(err)) == 0);
	check(again->nruns == r->nruns);
	check(!memcmp(again->runs, r->runs, r->nruns * sizeof(r->runs[0])));
	json_free(root);
	free(buf);
	free(again);
}

/* try - read @v; when accepted, check the record and its round trip. */
static void try(const struct json_value *v, struct run_record *r)
{
	char err[160];
	size_t i;

	err[0] = '\0';
	if (run_record__from_json(v, r, err, sizeof(err))) {
		check(r->nruns == 0 && err[0] && memchr(err, '\0', sizeof(err)));
		return;
	}
	check(r->nruns >= 1 && r->nruns <= RUN_RECORD_MAX_RUNS);
	for (i = 0; i < r->nruns; i++)
		check(r->runs[i].wall_ns >= 0 && r->runs[i].cpu_ns >= 0 &&
		      r->runs[i].exit_status >= 0 && r->runs[i].exit_status <= 255);
	check(run_record__cpu_ns(r) >= 0);
	round_trip(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value *root = NULL;
	struct run_record *r = malloc(sizeof(*r));
	char err[160];

	check(r != NULL);
	if (json_parse((const char *)data, size, &root, err, sizeof(err)) == 0) {
		try(root, r);
		if (json_get(root, "ci"))
			try(json_get(root, "ci"), r);
	}
	json_free(root);
	free(r);
	return 0;
}
