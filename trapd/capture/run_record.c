// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* run_record.c - the sidecar's "ci" object, written and read back. */
#include "trapd/capture/run_record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void run_record__emit(struct json_writer *w, const struct run_record *r)
{
	size_t i;

	json_key(w, "ci");
	json_object_begin(w);
	json_key(w, "runs");
	json_array_begin(w);
	for (i = 0; i < r->nruns; i++) {
		json_object_begin(w);
		json_kv_i64(w, "wall_ns", r->runs[i].wall_ns);
		json_kv_i64(w, "cpu_ns", r->runs[i].cpu_ns);
		json_kv_i64(w, "exit_status", r->runs[i].exit_status);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

/* read_member - the non-negative integer @key of run @i, at most @max. */
static int read_member(const struct json_value *run, size_t i, const char *key, int64_t max,
		       int64_t *out, char *err, size_t errlen)
{
	const struct json_value *v = json_get(run, key);

	if (!v) {
		snprintf(err, errlen, "runs[%zu].%s: missing", i, key);
		return -EINVAL;
	}
	if (json_number_i64(v, out) || *out < 0 || *out > max) {
		snprintf(err, errlen, "runs[%zu].%s: expected an integer from 0 to %lld", i, key,
			 (long long)max);
		return -EINVAL;
	}
	return 0;
}

int run_record__from_json(const struct json_value *v, struct run_record *r, char *err,
			  size_t errlen)
{
	const struct json_value *runs = json_get(v, "runs");
	size_t i, n = json_len(runs);
	int64_t status;

	memset(r, 0, sizeof(*r));
	if (json_type(v) != JSON_OBJECT) {
		snprintf(err, errlen, "expected an object, found %s", json_type_name(json_type(v)));
		return -EINVAL;
	}
	if (json_type(runs) != JSON_ARRAY || n < 1 || n > RUN_RECORD_MAX_RUNS) {
		snprintf(err, errlen, "runs: expected an array of 1 to %d runs",
			 RUN_RECORD_MAX_RUNS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		const struct json_value *run = json_index(runs, i);

		if (json_type(run) != JSON_OBJECT) {
			snprintf(err, errlen, "runs[%zu]: expected an object, found %s", i,
				 json_type_name(json_type(run)));
			return -EINVAL;
		}
		if (read_member(run, i, "wall_ns", INT64_MAX, &r->runs[i].wall_ns, err, errlen) ||
		    read_member(run, i, "cpu_ns", INT64_MAX, &r->runs[i].cpu_ns, err, errlen) ||
		    read_member(run, i, "exit_status", 255, &status, err, errlen))
			return -EINVAL;
		r->runs[i].exit_status = (int)status;
	}
	r->nruns = n;
	return 0;
}

int64_t run_record__cpu_ns(const struct run_record *r)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < r->nruns; i++)
		sum = r->runs[i].cpu_ns > INT64_MAX - sum ? INT64_MAX : sum + r->runs[i].cpu_ns;
	return sum;
}
