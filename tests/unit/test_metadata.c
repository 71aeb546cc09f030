// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_metadata.c - the capture's JSON sidecar, against golden files: a
 * manual capture (no triggers, no labels, scope kept) and a daemon capture
 * with two triggers (one joined), their signals' history, labels and a
 * widened scope. The version, host, kernel and arch vary by build and
 * machine and are masked before the comparison.
 */
#include "golden.h"

#include <errno.h>

#include "trapd/capture/capture.h"
#include "trapd/capture/metadata.h"

/* mask_host - blank the values of the machine-dependent members. */
static void mask_host(char *text)
{
	static const char *const keys[] = { "\n  \"trapd_version\": \"", "\n  \"host\": \"",
					    "\n  \"kernel\": \"", "\n  \"arch\": \"" };
	size_t i;
	char *p, *q;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		p = strstr(text, keys[i]);
		assert_non_null(p);
		p += strlen(keys[i]);
		q = strchr(p, '"');
		assert_true(q && q > p); /* a value to overwrite in place */
		memmove(p + 1, q, strlen(q) + 1);
		*p = 'X';
	}
}

static char *emit(const struct capture_info *info)
{
	struct golden_buf b;
	char *text;

	assert_int_equal(metadata_emit(golden_open(&b), info, "/var/spool/trapd/cap.pb.zst"), 0);
	text = golden_text(&b);
	mask_host(text);
	return text;
}

/* base_info - a finished pid capture with a loss or two. */
static const struct symbolizer_file_stats sym_files[] = {
	{ .path = "/usr/sbin/nginx",
	  .build_id = "5c1f0ad2",
	  .frames = 8,
	  .named = 8,
	  .source = "debug file",
	  .debug_file = "root:/usr/lib/debug/.build-id/5c/1f0ad2.debug" },
	{ .path = "//anon",
	  .build_id = "",
	  .frames = 2,
	  .named = 1,
	  .source = "no perf map",
	  .debug_file = "" },
};

static void base_info(struct capture_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->id, sizeof(info->id), "0123456789abcdef0123456789abcdef");
	info->target.kind = CAPTURE_TARGET_PID;
	info->target.pid = 4242;
	info->freq_hz = 99;
	info->period_ns = 10101010;
	info->start_ns = 1795327160698296842;
	info->duration_ns = 3000000000;
	info->end_reason = "duration";
	info->arm_ns = 51000;
	info->ncpus = 2;
	info->stats.v[SAMPLER_STAT_IDLE] = 7;
	info->stats.v[SAMPLER_STAT_OVER_CAP] = 3;
	info->samples_stored = 594;
	info->symbols.user_frames = 10;
	info->symbols.user_named = 9;
	info->sym_files = sym_files;
	info->nsym_files = 2;
	info->symbols.files_loaded = 3;
	info->symbols.files_cached = 5;
	info->symbols.snapshot_ns = 2400000;
	info->build_ns = 1800000;
	info->leaf[LEAF_INTACT] = 500;
	info->leaf[LEAF_RECOVERED] = 80;
	info->leaf[LEAF_UNPROVEN] = 14;
	info->roots[STACK_ROOTED] = 580;
	info->roots[STACK_UNROOTED] = 10;
	info->roots[STACK_OUTER_UNNAMED] = 4;
	info->user_stacks_cut = 3;
	info->stacks_distinct = 77;
	info->profile_bytes = 2811;
}

static void test_manual_capture_has_empty_context(void **state)
{
	struct capture_info info;
	char *text;

	base_info(&info);
	info.trigger = "manual";
	text = emit(&info);
	golden_check("metadata_manual.json", text);
	free(text);
}

/* A capture that recorded off-CPU time has an off_cpu section: the time
 * by state, the switches, what was lost, the threads already waiting. */
static void test_off_cpu_section(void **state)
{
	struct capture_info info;
	char *text;

	base_info(&info);
	info.trigger = "manual";
	info.record = SAMPLER_RECORD_CPU | SAMPLER_RECORD_OFFCPU;
	info.offcpu_ns[SAMPLER_OFFCPU_SLEEPING] = 8052430951;
	info.offcpu_ns[SAMPLER_OFFCPU_UNINTERRUPTIBLE] = 1583211;
	info.offcpu_ns[SAMPLER_OFFCPU_RUNNABLE] = 54051869;
	info.stats.v[SAMPLER_STAT_OFFCPU_SWITCHES] = 399017;
	info.stats.v[SAMPLER_STAT_OFFCPU_SITES] = 19;
	info.stats.v[SAMPLER_STAT_OFFCPU_LOST] = 2;
	info.waiting.threads = 6;
	info.waiting.waiting = 3;
	info.waiting.added = 2;
	text = emit(&info);
	golden_check("metadata_offcpu.json", text);
	assert_non_null(strstr(text, "\"on_cpu_samples\": true"));
	free(text);
	/* without it, no section: on-CPU captures read as before */
	info.record = SAMPLER_RECORD_CPU;
	text = emit(&info);
	assert_null(strstr(text, "off_cpu"));
	free(text);
}

/* A capture split by call has a calls section: what was split, where
 * slow started, the window's calls and the samples of each kind. */
static void test_calls_section(void **state)
{
	struct capture_info info;
	char *text;

	base_info(&info);
	info.trigger = "rule";
	info.record = SAMPLER_RECORD_CPU | SAMPLER_RECORD_OFFCPU;
	info.calls.what = "func /usr/bin/api:handle_request";
	info.calls.threshold.percentile = 99;
	info.calls.stats = (struct call_split_stats){ .calls = 1993,
						      .sampled = 1116,
						      .open = 1,
						      .slow = 100,
						      .fast = 1015,
						      .threshold_ns = 20780869,
						      .p50_ns = 1001946,
						      .p99_ns = 20780869,
						      .max_ns = 24778757 };
	info.calls.samples[CALL_OUTSIDE] = 11;
	info.calls.samples[CALL_FAST] = 944;
	info.calls.samples[CALL_SLOW] = 1016;
	info.calls.offcpu_ns[CALL_SLOW] = 32621955;
	info.stats.v[SAMPLER_STAT_CALL_TIMES_FULL] = 3;
	text = emit(&info);
	golden_check("metadata_calls.json", text);
	free(text);
	/* a fixed line, and a window without calls: threshold null */
	info.record = SAMPLER_RECORD_CPU;
	info.calls.threshold = (struct call_threshold){ .ns = 5000000 };
	info.calls.stats.threshold_ns = UINT64_MAX;
	text = emit(&info);
	assert_non_null(strstr(text, "\"slow_from_ns\": 5000000"));
	assert_non_null(strstr(text, "\"threshold_ns\": null"));
	assert_null(strstr(text, "off_cpu_ns"));
	free(text);
	/* not split: no section */
	info.calls.what = NULL;
	text = emit(&info);
	assert_null(strstr(text, "\"calls\""));
	free(text);
}

static const double cpu_t[] = { -60, -30, -10, -0.5 };
static const double cpu_v[] = { 12.5, 40, 87.25, 93.5 };
static const double psi_t[] = { -2, -1 };
static const double psi_v[] = { 20, 31.75 };

static const struct capture_trigger triggers[] = {
	{
		.rule = "web-cpu",
		.signal = "cpu",
		.scope = "cgroup system.slice/web.service",
		.unit = "%",
		.above = true,
		.threshold = 80,
		.value = 93.5,
		.at_ns = 1795327160500000000,
		.history_t = cpu_t,
		.history_v = cpu_v,
		.nhistory = 4,
	},
	{
		.rule = "host-pressure",
		.signal = "psi.cpu.some",
		.scope = "system",
		.unit = "%",
		.above = true,
		.joined = true,
		.threshold = 30,
		.value = 31.75,
		.at_ns = 1795327161250000000,
		.history_t = psi_t,
		.history_v = psi_v,
		.nhistory = 2,
	},
	{
		.rule = "idle-worker",
		.signal = "cpu",
		.scope = "pid 4242",
		.unit = "%",
		.above = false,
		.joined = true,
		.threshold = 5,
		.value = 0,
		.at_ns = 1795327161750000000,
	},
};

static const char *const labels[] = { "env", "prod", "team", "payments \"core\"" };

static void test_daemon_capture_records_triggers_history_and_labels(void **state)
{
	struct capture_info info;
	char *text;

	base_info(&info);
	info.trigger = "rule";
	info.triggers = triggers;
	info.ntriggers = 3;
	info.labels = labels;
	info.nlabels = 2;
	info.scope_widened = "rule host-pressure: scope system";
	/* a DWARF-mode capture: its walks and how they ended */
	info.unwind.mode = UNWIND_MODE_DWARF;
	info.unwind.copy_bytes = 16384;
	info.unwind.copies = 597;
	info.unwind.copy_bytes_sum = 597 * 9000;
	info.unwind.unwound = 596;
	info.unwind.frames = 7100;
	info.unwind.fp_steps = 3;
	info.unwind.ended[UNWIND_END_ENTRY] = 590;
	info.unwind.ended[UNWIND_END_STACK_SHORT] = 5;
	info.unwind.ended[UNWIND_END_NO_CFI] = 1;
	info.unwind.late = 1;
	info.unwind.unwind_ns = 4200000;
	snprintf(info.unwind.mappings[0].path, sizeof(info.unwind.mappings[0].path),
		 "/usr/bin/app");
	info.unwind.mappings[0].ended[UNWIND_END_ENTRY] = 590;
	snprintf(info.unwind.mappings[1].path, sizeof(info.unwind.mappings[1].path),
		 "/lib/libc.so.6");
	info.unwind.mappings[1].ended[UNWIND_END_STACK_SHORT] = 5;
	info.unwind.mappings[1].ended[UNWIND_END_NO_CFI] = 1;
	info.unwind.nmappings = 2;
	text = emit(&info);
	golden_check("metadata_daemon.json", text);
	free(text);
}

/* A history with no values, or counts without arrays, is written as an
 * empty list rather than read out of bounds. */
static void test_missing_history_is_an_empty_list(void **state)
{
	struct capture_trigger t = triggers[0];
	struct capture_info info;
	char *text;

	t.history_t = NULL;
	base_info(&info);
	info.triggers = &t;
	info.ntriggers = 1;
	text = emit(&info);
	assert_non_null(strstr(text, "\"history\": []"));
	assert_non_null(strstr(text, "\"trigger\": \"manual\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manual_capture_has_empty_context),
		cmocka_unit_test(test_off_cpu_section),
		cmocka_unit_test(test_calls_section),
		cmocka_unit_test(test_daemon_capture_records_triggers_history_and_labels),
		cmocka_unit_test(test_missing_history_is_an_empty_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
