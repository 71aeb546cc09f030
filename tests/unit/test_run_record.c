// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_run_record.c - the sidecar's "ci" object: written and read back
 * unchanged, every malformed run refused with a message naming the
 * field, and the runs' CPU time summed without overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/capture/run_record.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* emit - @r as run_record__emit writes it into a sidecar object
 * (malloc'd). */
static char *emit(const struct run_record *r)
{
	struct json_writer w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	json_init(&w, f);
	json_object_begin(&w);
	run_record__emit(&w, r);
	json_object_end(&w);
	assert_int_equal(json_finish(&w), 0);
	fclose(f);
	return buf;
}

/* parse_ci - run_record__from_json on @text's "ci" member, or on the
 * whole document when @member is false. */
static int parse_ci(const char *text, bool member, struct run_record *r, char *err, size_t len)
{
	struct json_value *root = NULL;
	char perr[160];
	int e;

	if (json_parse(text, strlen(text), &root, perr, sizeof(perr)))
		fail_msg("json_parse(%s): %s", text, perr);
	e = run_record__from_json(member ? json_get(root, "ci") : root, r, err, len);
	json_free(root);
	return e;
}

static void test_round_trip(void **state)
{
	struct run_record *r = calloc(1, sizeof(*r)), *back = calloc(1, sizeof(*back));
	char err[160] = "", *text;

	assert_non_null(r);
	assert_non_null(back);
	r->runs[0] = (struct ci_run){ .wall_ns = 2031000000, .cpu_ns = 1987000000 };
	r->runs[1] = (struct ci_run){ .wall_ns = INT64_MAX, .cpu_ns = 0, .exit_status = 255 };
	r->runs[2] = (struct ci_run){ .wall_ns = 0, .cpu_ns = INT64_MAX, .exit_status = 137 };
	r->nruns = 3;
	text = emit(r);
	assert_int_equal(parse_ci(text, true, back, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(back->nruns, 3);
	assert_memory_equal(back->runs, r->runs, 3 * sizeof(r->runs[0]));
	free(text);
	free(r);
	free(back);
}

static void test_emit_exact_text(void **state)
{
	static const char want[] = "{\n"
				   "  \"ci\": {\n"
				   "    \"runs\": [\n"
				   "      {\n"
				   "        \"wall_ns\": 2031000000,\n"
				   "        \"cpu_ns\": 1987000000,\n"
				   "        \"exit_status\": 1\n"
				   "      }\n"
				   "    ]\n"
				   "  }\n"
				   "}\n";
	struct run_record *r = calloc(1, sizeof(*r));
	char *text;

	assert_non_null(r);
	r->runs[0] =
		(struct ci_run){ .wall_ns = 2031000000, .cpu_ns = 1987000000, .exit_status = 1 };
	r->nruns = 1;
	text = emit(r);
	assert_string_equal(text, want);
	free(text);
	free(r);
}

/* runs_json - {"runs": [ @n copies of a valid run ]} (malloc'd). */
static char *runs_json(size_t n)
{
	static const char run[] = "{\"wall_ns\": 2, \"cpu_ns\": 1, \"exit_status\": 0}";
	size_t len = 16 + n * sizeof(run), i;
	char *s = malloc(len), *p = s;

	assert_non_null(s);
	p += snprintf(p, len, "{\"runs\": [");
	for (i = 0; i < n; i++)
		p += snprintf(p, len - (size_t)(p - s), "%s%s", i ? "," : "", run);
	snprintf(p, len - (size_t)(p - s), "]}");
	return s;
}

static void test_run_count_bounds(void **state)
{
	struct run_record *r = calloc(1, sizeof(*r));
	char err[160], *text;

	assert_non_null(r);
	text = runs_json(RUN_RECORD_MAX_RUNS);
	assert_int_equal(parse_ci(text, false, r, err, sizeof(err)), 0);
	assert_int_equal(r->nruns, RUN_RECORD_MAX_RUNS);
	assert_int_equal(r->runs[99].wall_ns, 2);
	assert_int_equal(run_record__cpu_ns(r), 100);
	free(text);

	text = runs_json(RUN_RECORD_MAX_RUNS + 1);
	assert_int_equal(parse_ci(text, false, r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "runs: expected an array of 1 to 100 runs");
	assert_int_equal(r->nruns, 0);
	free(text);
	free(r);
}

static void test_refuses_malformed(void **state)
{
	static const struct {
		const char *json;
		const char *msg;
	} bad[] = {
		{ "[]", "expected an object, found an array" },
		{ "7", "expected an object, found a number" },
		{ "{}", "runs: expected an array of 1 to 100 runs" },
		{ "{\"runs\": []}", "runs: expected an array of 1 to 100 runs" },
		{ "{\"runs\": {}}", "runs: expected an array of 1 to 100 runs" },
		{ "{\"runs\": null}", "runs: expected an array of 1 to 100 runs" },
		{ "{\"runs\": [1]}", "runs[0]: expected an object, found a number" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": 1, \"exit_status\": 0}, []]}",
		  "runs[1]: expected an object, found an array" },
		{ "{\"runs\": [{\"cpu_ns\": 1, \"exit_status\": 0}]}", "runs[0].wall_ns: missing" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": 1, \"exit_status\": 0},"
		  " {\"wall_ns\": 1, \"exit_status\": 0}]}",
		  "runs[1].cpu_ns: missing" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": 1}]}", "runs[0].exit_status: missing" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": -1, \"exit_status\": 0}]}",
		  "runs[0].cpu_ns: expected an integer from 0 to 9223372036854775807" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": 9223372036854775808, \"exit_status\": 0}]}",
		  "runs[0].cpu_ns: expected an integer from 0 to 9223372036854775807" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": 1, \"exit_status\": 256}]}",
		  "runs[0].exit_status: expected an integer from 0 to 255" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": 1, \"exit_status\": -1}]}",
		  "runs[0].exit_status: expected an integer from 0 to 255" },
		{ "{\"runs\": [{\"wall_ns\": 1.5, \"cpu_ns\": 1, \"exit_status\": 0}]}",
		  "runs[0].wall_ns: expected an integer from 0 to 9223372036854775807" },
		{ "{\"runs\": [{\"wall_ns\": 1.0, \"cpu_ns\": 1, \"exit_status\": 0}]}",
		  "runs[0].wall_ns: expected an integer from 0 to 9223372036854775807" },
		{ "{\"runs\": [{\"wall_ns\": 1e3, \"cpu_ns\": 1, \"exit_status\": 0}]}",
		  "runs[0].wall_ns: expected an integer from 0 to 9223372036854775807" },
		{ "{\"runs\": [{\"wall_ns\": \"1\", \"cpu_ns\": 1, \"exit_status\": 0}]}",
		  "runs[0].wall_ns: expected an integer from 0 to 9223372036854775807" },
		{ "{\"runs\": [{\"wall_ns\": 1, \"cpu_ns\": true, \"exit_status\": 0}]}",
		  "runs[0].cpu_ns: expected an integer from 0 to 9223372036854775807" },
	};
	struct run_record *r = calloc(1, sizeof(*r));
	char err[160];
	size_t i;

	assert_non_null(r);
	for (i = 0; i < N_OF(bad); i++) {
		r->nruns = 7;
		snprintf(err, sizeof(err), "(not set)");
		if (parse_ci(bad[i].json, false, r, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted: %s", bad[i].json);
		if (strcmp(err, bad[i].msg))
			fail_msg("%s: said \"%s\", want \"%s\"", bad[i].json, err, bad[i].msg);
		assert_int_equal(r->nruns, 0);
	}
	free(r);
}

static void test_absent_ci_refused(void **state)
{
	struct run_record *r = calloc(1, sizeof(*r));
	char err[160];

	assert_non_null(r);
	assert_int_equal(run_record__from_json(NULL, r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "expected an object, found nothing");
	free(r);
}

static void test_unknown_members_ignored(void **state)
{
	struct run_record *r = calloc(1, sizeof(*r));
	char err[160];

	assert_non_null(r);
	assert_int_equal(parse_ci("{\"runs\": [{\"wall_ns\": 5, \"cpu_ns\": 4, \"exit_status\": 3,"
				  " \"rusage\": {}}], \"version\": 2}",
				  false, r, err, sizeof(err)),
			 0);
	assert_int_equal(r->nruns, 1);
	assert_int_equal(r->runs[0].wall_ns, 5);
	assert_int_equal(r->runs[0].cpu_ns, 4);
	assert_int_equal(r->runs[0].exit_status, 3);
	free(r);
}

static void test_cpu_ns_sums_and_saturates(void **state)
{
	static const struct {
		int64_t cpu[3];
		size_t n;
		int64_t want;
	} cases[] = {
		{ { 0 }, 0, 0 },
		{ { 1, 2, 3 }, 3, 6 },
		{ { INT64_MAX - 1, 1 }, 2, INT64_MAX },
		{ { INT64_MAX - 1, 2 }, 2, INT64_MAX },
		{ { INT64_MAX / 2 + 1, INT64_MAX / 2 + 1, 0 }, 3, INT64_MAX },
		{ { INT64_MAX, 5, 7 }, 3, INT64_MAX },
		{ { 5, INT64_MAX, 0 }, 3, INT64_MAX },
	};
	struct run_record *r = calloc(1, sizeof(*r));
	size_t i, k;

	assert_non_null(r);
	for (i = 0; i < N_OF(cases); i++) {
		memset(r, 0, sizeof(*r));
		for (k = 0; k < cases[i].n; k++)
			r->runs[k].cpu_ns = cases[i].cpu[k];
		r->nruns = cases[i].n;
		assert_int_equal(run_record__cpu_ns(r), cases[i].want);
	}
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_emit_exact_text),
		cmocka_unit_test(test_run_count_bounds),
		cmocka_unit_test(test_refuses_malformed),
		cmocka_unit_test(test_absent_ci_refused),
		cmocka_unit_test(test_unknown_members_ignored),
		cmocka_unit_test(test_cpu_ns_sums_and_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
