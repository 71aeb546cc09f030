/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* psi.h - pressure stall information: parsing a pressure file
 * (/proc/pressure/RES or a v2 cgroup's RES.pressure), opening a kernel
 * PSI trigger, and the stall share over a window of the rule's own,
 * computed from the "total" counter.
 *
 * A pressure file holds one or two lines:
 *   some avg10=0.01 avg60=0.26 avg300=0.31 total=702159418
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * The averages are percentages with two decimals; they are kept exactly
 * as hundredths of a percent (the rules' unit). "total" is stall time in
 * microseconds since boot (or since the cgroup was made).
 */
#ifndef TRAPD_PSI_H
#define TRAPD_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_cache;

#define PSI_RING_MAX 128 /* readings kept for a custom window */
/* A reading is kept only PSI_RING_STEP_DIV-th of the window after the
 * last one kept, so the ring spans about two windows whatever the poll
 * interval. */
#define PSI_RING_STEP_DIV 64

struct psi_line {
	bool present;
	uint32_t avg10; /* hundredths of a percent: "12.34" is 1234 */
	uint32_t avg60;
	uint32_t avg300;
	uint64_t total_us;
};

struct psi_stat {
	struct psi_line some;
	struct psi_line full; /* absent from /proc/pressure/cpu before 5.13 */
};

/* psi_parse - parse the NUL-terminated text of a pressure file. A line
 * must be "some" or "full" followed by avg10=, avg60=, avg300= and total=
 * (other key=value fields are skipped; averages take at most two
 * decimals); blank lines are skipped. Returns 0 when at least one line was
 * read and every line was well formed, -EINVAL otherwise. */
int psi_parse(const char *text, struct psi_stat *out);

/* psi_read - read and parse the pressure file @path. Returns 0, the
 * negative errno of the read (-ENOENT: no such file; -EOPNOTSUPP: PSI
 * disabled at boot), or -EINVAL; @err names the file and the problem. */
int psi_read(const char *path, struct psi_stat *out, char *err, size_t errlen);

/* psi_read_cached - psi_read through the file cache @files (file_cache.h):
 * kept open, read once a tick. @files NULL is psi_read. */
int psi_read_cached(struct file_cache *files, const char *path, struct psi_stat *out, char *err,
		    size_t errlen);

/* psi_trigger_open - open a kernel PSI trigger on the pressure file @path:
 * POLLPRI when "some" (or "full") stall passes @stall_us within any
 * @window_us. Returns the fd (the caller closes it) or a negative errno
 * with @err: the kernel takes windows of 500ms..10s, a stall of at most
 * the window, and from a process without CAP_SYS_RESOURCE only windows
 * that are whole multiples of 2s (EINVAL otherwise; EPERM on older
 * kernels), or -EOPNOTSUPP when @path is not on procfs or cgroup2 (a
 * copy of a pressure file would take the write). */
int psi_trigger_open(const char *path, bool full, uint64_t stall_us, uint64_t window_us, char *err,
		     size_t errlen);

struct psi_reading {
	int64_t t_ns;
	uint64_t total_us;
};

/* The recent readings of one "total" counter, oldest first. */
struct psi_ring {
	struct psi_reading r[PSI_RING_MAX];
	size_t head; /* index of the oldest */
	size_t n;
};

/* psi_ring_reset - forget every reading of @ring (after a gap in the
 * readings, so no share spans it). */
void psi_ring_reset(struct psi_ring *ring);

/* psi_ring_share - add the reading (@now_ns, @total_us) and put in *share
 * the stall share, in hundredths of a percent, between it and the newest
 * kept reading at least @window_ns older: the share over a span of at
 * least the window (longer by up to a poll interval plus 1/64 of the
 * window). Returns 0; -EAGAIN while no reading is that old yet; -ESTALE
 * when the counter or the clock went backwards (the counter was recreated:
 * the ring restarts from this reading). */
int psi_ring_share(struct psi_ring *ring, int64_t now_ns, uint64_t total_us, uint64_t window_ns,
		   int64_t *share);

#endif
