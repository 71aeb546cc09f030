// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_psi.c - pressure files parsed exactly (averages as hundredths of a
 * percent from their text), malformed ones refused, the custom-window
 * ring on a simulated clock, and kernel PSI triggers on the live host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/psi.h"

#define SEC 1000000000ll

static char data[512];

static int setup(void **state)
{
	const char *d = getenv("TRAPD_TESTDATA");

	snprintf(data, sizeof(data), "%s/sys", d ? d : "tests/data");
	return 0;
}

static void test_parse_system_file(void **state)
{
	struct psi_stat st;

	assert_int_equal(psi_parse("some avg10=0.01 avg60=0.26 avg300=0.31 total=702159418\n"
				   "full avg10=12.34 avg60=100.00 avg300=7.50 total=0\n",
				   &st),
			 0);
	assert_true(st.some.present && st.full.present);
	assert_int_equal(st.some.avg10, 1);
	assert_int_equal(st.some.avg60, 26);
	assert_int_equal(st.some.avg300, 31);
	assert_int_equal(st.some.total_us, 702159418);
	assert_int_equal(st.full.avg10, 1234);
	assert_int_equal(st.full.avg60, 10000);
	assert_int_equal(st.full.avg300, 750);
	assert_int_equal(st.full.total_us, 0);
}

static void test_parse_variants(void **state)
{
	struct psi_stat st;

	/* /proc/pressure/cpu before 5.13: "some" only */
	assert_int_equal(psi_parse("some avg10=1.33 avg60=0.33 avg300=0.20 total=5\n", &st), 0);
	assert_true(st.some.present);
	assert_false(st.full.present);
	/* fewer decimals, no newline at the end, a key added by a later kernel */
	assert_int_equal(psi_parse("some avg10=7 avg60=0.5 avg300=2.25 total=9 avg900=1.00", &st),
			 0);
	assert_int_equal(st.some.avg10, 700);
	assert_int_equal(st.some.avg60, 50);
	assert_int_equal(st.some.avg300, 225);
	assert_int_equal(st.some.total_us, 9);
	/* blank lines between */
	assert_int_equal(psi_parse("\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=1\n\n"
				   "full avg10=0.00 avg60=0.00 avg300=0.00 total=2\n",
				   &st),
			 0);
	assert_int_equal(st.full.total_us, 2);
}

static void test_parse_refuses_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00\n",	     /* no total */
		"some avg10=0.00 avg60=0.00 total=1\n",		     /* no avg300 */
		"some avg10=x avg60=0.00 avg300=0.00 total=1\n",     /* not a number */
		"some avg10=1.234 avg60=0.00 avg300=0.00 total=1\n", /* three decimals */
		"some avg10=1. avg60=0.00 avg300=0.00 total=1\n",    /* no decimals */
		"some avg10=-1.00 avg60=0.00 avg300=0.00 total=1\n", /* negative */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1x\n", /* junk */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1 \n", /* trailing blank */
		"some  avg10=0.00 avg60=0.00 avg300=0.00 total=1\n", /* two blanks */
		"half avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",  /* unknown line */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n",
		"some avg10=99999999.00 avg60=0.00 avg300=0.00 total=1\n", /* absurd */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=2\n", /* twice */
		"some avg10 avg60=0.00 avg300=0.00 total=1\n",
		"some\n",
	};
	struct psi_stat st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (psi_parse(bad[i], &st) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
	}
}

static void test_read_fixture_files(void **state)
{
	char path[600], err[256];
	struct psi_stat st;

	snprintf(path, sizeof(path), "%s/hybrid/proc/pressure/io", data);
	assert_int_equal(psi_read(path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.some.avg10, 1234);
	assert_int_equal(st.some.avg60, 850);
	assert_int_equal(st.some.avg300, 307);
	assert_int_equal(st.some.total_us, 48220117);
	assert_int_equal(st.full.avg10, 1001);
	snprintf(path, sizeof(path), "%s/v2/sys/fs/cgroup/system.slice/web.service/io.pressure",
		 data);
	assert_int_equal(psi_read(path, &st, err, sizeof(err)), 0);
	assert_int_equal(st.full.avg60, 999);
	snprintf(path, sizeof(path), "%s/v1/proc/pressure/cpu", data);
	assert_int_equal(psi_read(path, &st, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/v1/proc/pressure/cpu: no such file"));
	snprintf(path, sizeof(path), "%s/hybrid/mountinfo", data);
	assert_int_equal(psi_read(path, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "mountinfo: not a pressure file"));
}

/* the ring on a simulated clock: 10% stall, a 10s window polled every 1s */
static void test_ring_share_over_window(void **state)
{
	struct psi_ring ring;
	int64_t share = -1;
	int i;

	psi_ring_reset(&ring);
	for (i = 0; i < 10; i++)
		assert_int_equal(psi_ring_share(&ring, 100 * SEC + i * SEC, 5000000 + i * 100000ull,
						10 * SEC, &share),
				 -EAGAIN);
	assert_int_equal(psi_ring_share(&ring, 110 * SEC, 6000000, 10 * SEC, &share), 0);
	assert_int_equal(share, 1000);
	/* a burst: 3s of stall in the last second; the window's share is 39% */
	assert_int_equal(psi_ring_share(&ring, 111 * SEC, 9000000, 10 * SEC, &share), 0);
	assert_int_equal(share, 3900);
	/* polled less often than the window: the share over the poll interval */
	assert_int_equal(psi_ring_share(&ring, 141 * SEC, 9000000 + 3000000, 10 * SEC, &share), 0);
	assert_int_equal(share, 1000);
}

static void test_ring_restarts_when_counter_goes_back(void **state)
{
	struct psi_ring ring;
	int64_t share;

	psi_ring_reset(&ring);
	assert_int_equal(psi_ring_share(&ring, 1 * SEC, 1000, SEC, &share), -EAGAIN);
	assert_int_equal(psi_ring_share(&ring, 2 * SEC, 500, SEC, &share), -ESTALE);
	assert_int_equal(ring.n, 1);
	assert_int_equal(psi_ring_share(&ring, 3 * SEC, 250500, SEC, &share), 0);
	assert_int_equal(share, 2500);
	/* the clock going back counts as a restart too */
	assert_int_equal(psi_ring_share(&ring, 2 * SEC, 260000, SEC, &share), -ESTALE);
}

/* polled every millisecond for a 1s window: the ring stays bounded and
 * still spans the window */
static void test_ring_is_bounded(void **state)
{
	struct psi_ring ring;
	int64_t share = 0, t;
	int last = 0;

	psi_ring_reset(&ring);
	for (t = 0; t <= 5 * SEC; t += SEC / 1000) {
		last = psi_ring_share(&ring, t, (uint64_t)(t / 1000) / 4, SEC, &share);
		assert_true(ring.n <= PSI_RING_MAX);
	}
	assert_int_equal(last, 0);
	assert_int_equal(share, 2500); /* a quarter of the time stalled */
	assert_int_equal(ring.n, PSI_RING_MAX);
}

static void test_trigger_on_live_host(void **state)
{
	struct pollfd pfd;
	char err[512];
	int fd;

	if (access("/proc/pressure/cpu", R_OK)) {
		skip(); /* a kernel without PSI */
		return;
	}
	fd = psi_trigger_open("/proc/pressure/cpu", false, 150000, 2000000, err, sizeof(err));
	if (fd == -EACCES || fd == -EPERM) {
		skip(); /* not root: the file is not writable */
		return;
	}
	assert_true(fd >= 0);
	pfd.fd = fd;
	pfd.events = POLLPRI;
	assert_true(poll(&pfd, 1, 0) >= 0);
	assert_false(pfd.revents & (POLLERR | POLLNVAL));
	close(fd);
	/* 1s: fine with CAP_SYS_RESOURCE, refused (and explained) without */
	fd = psi_trigger_open("/proc/pressure/cpu", false, 100000, 1000000, err, sizeof(err));
	if (fd >= 0) {
		close(fd);
	} else {
		assert_true(fd == -EINVAL || fd == -EPERM);
		assert_non_null(strstr(err, "'some 100000 1000000'"));
		assert_non_null(strstr(err, "CAP_SYS_RESOURCE"));
	}
	/* a stall longer than the window: refused by every kernel */
	assert_int_equal(psi_trigger_open("/proc/pressure/cpu", true, 3000000, 2000000, err,
					  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'full 3000000 2000000'"));
}

static void test_trigger_refuses_copies(void **state)
{
	char path[] = "/tmp/trapd-psi-XXXXXX", err[512];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(psi_trigger_open(path, false, 1, 2, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "not a kernel pressure file"));
	unlink(path);
	assert_int_equal(psi_trigger_open("/nonexistent/cpu", false, 1, 2, err, sizeof(err)),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_system_file),
		cmocka_unit_test(test_parse_variants),
		cmocka_unit_test(test_parse_refuses_malformed),
		cmocka_unit_test(test_read_fixture_files),
		cmocka_unit_test(test_ring_share_over_window),
		cmocka_unit_test(test_ring_restarts_when_counter_goes_back),
		cmocka_unit_test(test_ring_is_bounded),
		cmocka_unit_test(test_trigger_on_live_host),
		cmocka_unit_test(test_trigger_refuses_copies),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
