/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency.h - shared by the latency histogram programs (latency.bpf.c)
 * and their user-space side (trapd/latency/latency_probe.c, trapd/latency/latency_hist.c):
 * the bucket layout, the per-CPU histogram row and the probe kinds.
 *
 * Buckets are log-linear over nanoseconds: values below LAT_SUBS have a
 * bucket each; above, every power of two [2^e, 2^(e+1)) is cut into
 * LAT_SUBS equal sub-buckets. A bucket is then at most 1/LAT_SUBS of its
 * lower bound wide (6.25 %), so a percentile read from the buckets is
 * within that of the exact one. Values of 2^LAT_MAX_EXP ns (about 18
 * minutes) and more share the last bucket; the row's max stays exact.
 *
 * lat_bucket_of is the one definition of the mapping: the BPF programs
 * and user space compile the same code.
 */
#ifndef TRAPD_BPF_LATENCY_H
#define TRAPD_BPF_LATENCY_H

#define LAT_SUB_BITS 4
#define LAT_SUBS (1u << LAT_SUB_BITS) /* sub-buckets per power of two */
#define LAT_MAX_EXP 40		      /* 2^40 ns and above: the last bucket */
#define LAT_NBUCKETS ((LAT_MAX_EXP - LAT_SUB_BITS + 1) * LAT_SUBS)
#define LAT_COMM_LEN 16
#define LAT_SYSCALL_WORDS 8 /* syscall numbers 0..511 in a bitmap */

/* What one probe measures. */
enum lat_kind {
	LAT_KIND_RUNQ = 0,    /* wakeup or preemption to running again */
	LAT_KIND_SYSCALL = 1, /* sys_enter to sys_exit */
	LAT_KIND_BIO = 2,     /* block request issued to completed */
	LAT_KIND_FUNC = 3,    /* a user function's entry to its return */
	LAT_KIND_NR,
};

/* Which tasks a probe counts (for block I/O: filter_dev instead). */
enum lat_filter {
	LAT_FILTER_NONE = 0,   /* all */
	LAT_FILTER_TGID = 1,   /* one thread group */
	LAT_FILTER_CGROUP = 2, /* a cgroup v2 subtree */
	LAT_FILTER_COMM = 3,   /* tasks with this name */
};

/* One CPU's histogram. The row is a per-CPU array value, so each CPU
 * writes only its own; user space sums the rows. counts, events and sum
 * only grow (user space takes differences); max is the largest value
 * seen while max_epoch equalled the program's epoch, which user space
 * advances after each read, so it is the largest of one read interval. */
struct lat_row {
	__u64 counts[LAT_NBUCKETS];
	__u64 events;
	__u64 sum_ns;
	__u64 max_ns;
	__u64 max_epoch;
};

_Static_assert(sizeof(struct lat_row) == (LAT_NBUCKETS + 4) * 8, "lat_row has no padding");

/* lat_log2 - floor(log2(v)) for v > 0, without a count-leading-zeros
 * instruction (BPF has none). */
static inline __u32 lat_log2(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffull) << 5;
	v >>= shift;
	r |= shift;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (__u32)(v >> 1);
	return r;
}

/* lat_bucket_of - the bucket of @ns: always below LAT_NBUCKETS. */
static inline __u32 lat_bucket_of(__u64 ns)
{
	__u32 e;

	if (ns < LAT_SUBS)
		return (__u32)ns;
	if (ns >= (1ull << LAT_MAX_EXP))
		return LAT_NBUCKETS - 1;
	e = lat_log2(ns);
	return (e - LAT_SUB_BITS + 1) * LAT_SUBS +
	       (__u32)((ns >> (e - LAT_SUB_BITS)) & (LAT_SUBS - 1));
}

#endif
