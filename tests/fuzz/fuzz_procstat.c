// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_procstat.c - libFuzzer harness for the text parsers of /proc and
 * cgroup files, which read whatever the kernel (or a container runtime's
 * fake /proc) gives them. The first byte picks the parser, the rest is
 * the file's text (6 runs every parser, the pin parsers of proc_match.h
 * among them). Parsing must never crash, read out of bounds or
 * overflow, and what it returns must hold the parser's promises. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/cgroup_stat.h"
#include "rules/proc_match.h"
#include "rules/proc_stat.h"
#include "rules/psi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AVG_MAX 100000099u /* psi.c: at most 1000000.99% */

static void check_psi_line(const struct psi_line *l)
{
	if (l->present && (l->avg10 > AVG_MAX || l->avg60 > AVG_MAX || l->avg300 > AVG_MAX))
		__builtin_trap();
	if (!l->present && (l->avg10 || l->avg60 || l->avg300 || l->total_us))
		__builtin_trap();
}

static void fuzz_psi(const char *text)
{
	struct psi_stat st;

	if (psi_parse(text, &st) == 0) {
		if (!st.some.present && !st.full.present)
			__builtin_trap();
		check_psi_line(&st.some);
		check_psi_line(&st.full);
	}
}

static void fuzz_cpu_stat(const char *text)
{
	static const char *const keys[] = { "usage_usec",     "nr_periods",	"nr_throttled",
					    "throttled_usec", "throttled_time", "" };
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int ret = cgroup_stat_parse_keyed(text, keys[i], &v);

		if (ret && ret != -ENOENT && ret != -EINVAL)
			__builtin_trap();
	}
}

static void fuzz_cpu_max(const char *text)
{
	uint64_t quota, period;
	bool has;
	int64_t n;

	if (cgroup_stat_parse_cpu_max(text, &has, &quota, &period) == 0 &&
	    (period == 0 || (has && quota == 0) || (!has && quota)))
		__builtin_trap();
	if (cgroup_stat_parse_number(text, &n) == 0 && n == INT64_MIN)
		__builtin_trap();
}

static void fuzz_stat(const char *text)
{
	struct proc_stat_cpu st;

	if (proc_stat_parse_stat(text, &st) == 0 &&
	    (memchr(st.comm, '\0', sizeof(st.comm)) == NULL || !strchr(text, ')')))
		__builtin_trap();
}

static void fuzz_status(const char *text)
{
	struct proc_stat_status st;
	uint64_t pages;

	if (proc_stat_parse_status(text, &st) == 0 &&
	    ((st.has_rss && st.rss_bytes % 1024) || (!st.has_rss && st.rss_bytes)))
		__builtin_trap();
	(void)proc_stat_parse_statm(text, &pages);
}

/* the pin parsers: a uid pair of a status text, a cgroup file against a
 * few pins (a match must contain the pin as a whole path component), an
 * exe link against its own prefix */
static void fuzz_pins(const char *text)
{
	static const char *const want[] = { "system.slice", "a/b", "x" };
	uid_t r, e;
	bool deleted;
	size_t i;

	if (proc_match_parse_uids(text, &r, &e) == 0 && (r == (uid_t)-1 || e == (uid_t)-1))
		__builtin_trap();
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (proc_match_cgroup(text, want[i]) && !strstr(text, want[i]))
			__builtin_trap();
	if (proc_match_exe_text(text, "/usr/bin/x", &deleted) && strncmp(text, "/usr/bin/x", 10))
		__builtin_trap();
}

static void fuzz_mountinfo(const char *text)
{
	static struct cgroup_stat_mounts m;
	char line[8192];
	const char *p = text;

	memset(&m, 0, sizeof(m));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		cgroup_stat_mount_line(line, &m);
		if (!memchr(m.v2, '\0', sizeof(m.v2)) || !memchr(m.cpu, '\0', sizeof(m.cpu)) ||
		    !memchr(m.cpuacct, '\0', sizeof(m.cpuacct)))
			__builtin_trap();
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/* the custom-window ring: the input is a sequence of (time step, total
 * step, window) bytes; the share is never negative, the ring bounded */
static void fuzz_ring(const uint8_t *d, size_t n)
{
	static struct psi_ring ring;
	int64_t t = 0, share;
	uint64_t total = 0;
	size_t i;

	psi_ring_reset(&ring);
	for (i = 0; i + 3 <= n; i += 3) {
		int ret;

		t += (int64_t)(int8_t)d[i] * 10000000; /* may go back */
		total += (uint64_t)d[i + 1] * 1000;
		if (d[i + 1] == 0xff)
			total = d[i + 2]; /* recreated */
		share = -1;
		ret = psi_ring_share(&ring, t, total, (uint64_t)d[i + 2] * 50000000 + 1, &share);
		if ((ret == 0 && share < 0) || ring.n > PSI_RING_MAX || ring.n == 0 ||
		    (ret && ret != -EAGAIN && ret != -ESTALE))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1 || size > PROC_STAT_FILE_MAX)
		return 0;
	if (data[0] % 8 == 7) {
		fuzz_ring(data + 1, size - 1);
		return 0;
	}
	/* the readers hand parsers a NUL-terminated file */
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 8) {
	case 0:
		fuzz_psi(text);
		break;
	case 1:
		fuzz_cpu_stat(text);
		break;
	case 2:
		fuzz_cpu_max(text);
		break;
	case 3:
		fuzz_stat(text);
		break;
	case 4:
		fuzz_status(text);
		break;
	case 5:
		fuzz_mountinfo(text);
		break;
	default: /* 6: every parser on the same text */
		fuzz_pins(text);
		fuzz_psi(text);
		fuzz_cpu_stat(text);
		fuzz_cpu_max(text);
		fuzz_stat(text);
		fuzz_status(text);
		break;
	}
	free(text);
	return 0;
}
