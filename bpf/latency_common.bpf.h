/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_common.bpf.h - what both latency objects share: the filter
 * set before load, the histogram and how an event is added to it, and the
 * scope test for the running task. latency.bpf.c (BTF-typed tracepoints,
 * task-local storage) and latency_tp.bpf.c (classic tracepoints and hash
 * maps, for kernels without BTF) include it once each.
 *
 * Nothing here reads a kernel structure, so it adds no CO-RE relocation:
 * latency_tp.bpf.c must load where the kernel has no BTF.
 */
#ifndef TRAPD_BPF_LATENCY_COMMON_H
#define TRAPD_BPF_LATENCY_COMMON_H

/* Set before load. */
const volatile __u32 filter_kind;    /* enum lat_filter */
const volatile __u32 filter_tgid;    /* LAT_FILTER_TGID */
const volatile __u64 filter_cgroup;  /* LAT_FILTER_CGROUP: the v2 cgroup id... */
const volatile __u32 filter_level;   /* ...and its depth below the v2 root */
const volatile __u64 filter_comm[2]; /* LAT_FILTER_COMM: 16 bytes, NUL-padded */
const volatile __u32 all_syscalls = 1;
const volatile __u64 syscall_set[LAT_SYSCALL_WORDS];
const volatile __u32 filter_dev; /* block: MKDEV(major, first_minor) of the disk; 0: any */

/* Advanced by user space after each read (through the mmap'ed .bss). */
volatile __u64 epoch;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_row);
} hist SEC(".maps");

/* add_to_row - add one latency to this CPU's row. @exclusive: the caller
 * runs with interrupts off (the scheduler's hooks), so nothing else on this
 * CPU writes the row meanwhile and plain adds are enough. System call and
 * uprobe programs may be preempted by another program of the same object
 * on the same CPU, so theirs are atomic. */
static __always_inline void add_to_row(__u64 delta, bool exclusive)
{
	__u32 zero = 0, b = lat_bucket_of(delta);
	struct lat_row *row = bpf_map_lookup_elem(&hist, &zero);
	__u64 ep = epoch;

	if (!row || b >= LAT_NBUCKETS)
		return;
	if (exclusive) {
		row->counts[b]++;
		row->events++;
		row->sum_ns += delta;
	} else {
		__sync_fetch_and_add(&row->counts[b], 1);
		__sync_fetch_and_add(&row->events, 1);
		__sync_fetch_and_add(&row->sum_ns, delta);
	}
	if (row->max_epoch != ep) {
		row->max_epoch = ep;
		row->max_ns = delta;
	} else if (delta > row->max_ns) {
		row->max_ns = delta;
	}
}

static __always_inline void record(__u64 delta)
{
	add_to_row(delta, false);
}

/* record_irqs_off - record() for callers with interrupts disabled. */
static __always_inline void record_irqs_off(__u64 delta)
{
	add_to_row(delta, true);
}

static __always_inline bool syscall_wanted(long id)
{
	if (all_syscalls)
		return true;
	if (id < 0 || id >= LAT_SYSCALL_WORDS * 64)
		return false;
	return syscall_set[id >> 6] & (1ull << (id & 63));
}

/* current_in_scope - whether the running task is watched, with helpers
 * that need no BTF. */
static __always_inline bool current_in_scope(void)
{
	switch (filter_kind) {
	case LAT_FILTER_TGID:
		return (bpf_get_current_pid_tgid() >> 32) == filter_tgid;
	case LAT_FILTER_CGROUP:
		return bpf_get_current_ancestor_cgroup_id(filter_level) == filter_cgroup;
	case LAT_FILTER_COMM: {
		__u64 name[2] = {};

		bpf_get_current_comm(name, sizeof(name));
		return name[0] == filter_comm[0] && name[1] == filter_comm[1];
	}
	default:
		return true;
	}
}

#endif
