// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_overhead.c - the overhead budget's arithmetic (shares of the
 * host, the frequency that fits, a window's choice and its reason) and
 * the calibration of a sampling interrupt on this machine (needs perf
 * events: root, or perf_event_paranoid allowing it). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trapd/capture/overhead.h"

static void test_share_is_of_the_whole_host(void **state)
{
	(void)state;
	/* 20 ms a second on a 2-CPU host is 1 % of it */
	assert_true(overhead__share(20000000, 1000000000, 2) > 0.999);
	assert_true(overhead__share(20000000, 1000000000, 2) < 1.001);
	assert_true(overhead__share(1, 0, 2) == 0);
	assert_true(overhead__share(1, 1, 0) == 0);
}

static void test_cap_freq_keeps_the_share(void **state)
{
	uint64_t hz;

	(void)state;
	/* 32 us a sample on both of 2 CPUs: 100 kHz would be 320 % of the
	 * host; 8 % allows 2500 Hz */
	hz = overhead__cap_freq(100000, 2, 2, 32000, 8.0);
	assert_int_equal(hz, 2500);
	assert_int_equal(overhead__cap_freq(99, 2, 2, 32000, 8.0), 99);
	/* never below 1 Hz */
	assert_int_equal(overhead__cap_freq(1000, 2, 2, 32000, 0.0001), 1);
	/* no measure: as asked */
	assert_int_equal(overhead__cap_freq(1000, 2, 2, 0, 1), 1000);
}

static void test_window_choice_says_why(void **state)
{
	struct overhead o = { .stats_fd = -1, .irq_ns = 30000, .irq_measured = true, .ncpus = 2 };
	struct overhead_window w;
	uint64_t hz;

	(void)state;
	hz = overhead_window__choose(&w, &o, 10.0, NULL, 0, 100000);
	/* 38 us a sample (30 us + the default 8 us of BPF), 70 % of 10 % */
	assert_int_equal(hz, 1842);
	assert_int_equal(w.asked_hz, 100000);
	assert_int_equal(w.freq_hz, 1842);
	assert_non_null(strstr(w.capped, "100000 Hz would take about 380% of the host"));
	assert_non_null(strstr(w.capped, "1842 Hz keeps it within max_capture_overhead 10%"));
	/* a measured BPF cost larger than the default counts */
	hz = overhead_window__choose(&w, &o, 10.0, NULL, 50000, 100000);
	assert_int_equal(w.sample_ns, 80000);
	assert_int_equal(hz, 875);
	/* off-CPU stack takes of 50 us: 30 % of 10 % of a CPU is 600 a second */
	assert_int_equal(w.offcpu_takes_hz, 600);
	hz = overhead_window__choose(&w, &o, 10.0, NULL, 0, 999);
	assert_int_equal(hz, 999);
	assert_string_equal(w.capped, "");
	assert_int_equal(w.offcpu_takes_hz, 3750); /* at the default 8 us */
	/* no budget: no bound either */
	hz = overhead_window__choose(&w, NULL, 10.0, NULL, 0, 100000);
	assert_int_equal(hz, 100000);
	assert_null(w.o);
	assert_int_equal(w.offcpu_takes_hz, 0);
	hz = overhead_window__choose(&w, &o, 0, NULL, 0, 100000);
	assert_int_equal(hz, 100000);
	assert_int_equal(w.offcpu_takes_hz, 0);
	/* a tiny budget still takes one a second */
	assert_int_equal(overhead__offcpu_takes_hz(0.0000001, 8000), 1);
}

/* The calibration measures something of the right order: an interrupt
 * costs more than nothing and less than a millisecond, here a VM's tens
 * of microseconds, on bare metal one or two. */
static void test_calibrate_measures_an_interrupt(void **state)
{
	uint64_t ns = 0;
	int e;

	(void)state;
	e = overhead__calibrate(OVERHEAD_CALIBRATE_PERIOD_NS, 5, &ns);
	if (e == -EACCES || e == -EPERM) {
		if (getenv("CI"))
			fail_msg("perf events refused (%d): run as root", e);
		skip();
	}
	assert_int_equal(e, 0);
	assert_true(ns > 50);
	assert_true(ns < 1000000);
	assert_int_equal(overhead__calibrate(0, 5, &ns), -EINVAL);
	assert_int_equal(overhead__calibrate(OVERHEAD_CALIBRATE_PERIOD_NS, 0, &ns), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_is_of_the_whole_host),
		cmocka_unit_test(test_cap_freq_keeps_the_share),
		cmocka_unit_test(test_window_choice_says_why),
		cmocka_unit_test(test_calibrate_measures_an_interrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
