// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_tp.bpf.c - the latency histograms on classic tracepoints, for
 * kernels without BTF (no tp_btf, no task-local storage): start times in
 * hash maps keyed by thread id (or by disk and sector for block
 * requests), record fields at offsets user space read from tracefs.
 *
 * Without BTF a task other than the running one is known only by what
 * its tracepoint record says (a thread id and a name), so run-queue
 * latency can be filtered by process name only; the running task's
 * filters (system calls, functions) are the same as latency.bpf.c's.
 * Like the sampler, this object has no CO-RE relocation: libbpf never
 * needs the kernel's BTF to load it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/latency.h"
#include "bpf/latency_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TASK_RUNNING 0
#define MAX_WAITING 65536

/* Record layouts, from tracefs (set before load). */
const volatile __u32 off_wakeup_pid, off_wakeup_comm;
const volatile __u32 off_switch_prev_pid, off_switch_prev_state, off_switch_prev_comm;
const volatile __u32 off_switch_next_pid;
const volatile __u32 off_sys_id;
const volatile __u32 off_rq_dev, off_rq_sector;

struct rq_key {
	__u32 dev;
	__u32 pad;
	__u64 sector;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WAITING);
	__type(key, __u32); /* thread id */
	__type(value, __u64);
} tid_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct rq_key);
	__type(value, __u64);
} rq_start SEC(".maps");

static __always_inline __u32 field_u32(void *ctx, __u32 off)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), ctx + off);
	return v;
}

static __always_inline __u64 field_u64(void *ctx, __u32 off)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), ctx + off);
	return v;
}

/* comm_field_matches - a record's comm is the filter's (COMM filter). */
static __always_inline bool comm_field_matches(void *ctx, __u32 off)
{
	__u64 name[2] = {};

	bpf_probe_read_kernel(name, sizeof(name), ctx + off);
	return name[0] == filter_comm[0] && name[1] == filter_comm[1];
}

static __always_inline void start_tid(__u32 tid)
{
	__u64 ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&tid_start, &tid, &ts, BPF_ANY);
}

static __always_inline void finish_tid(__u32 tid)
{
	__u64 *ts = bpf_map_lookup_elem(&tid_start, &tid), t;

	if (!ts)
		return;
	t = *ts;
	bpf_map_delete_elem(&tid_start, &tid);
	record(bpf_ktime_get_ns() - t);
}

/* --- run-queue latency -------------------------------------------------- */

static __always_inline int runq_enqueue(void *ctx, __u32 pid_off, __u32 comm_off)
{
	__u32 pid = field_u32(ctx, pid_off);

	if (pid && (filter_kind != LAT_FILTER_COMM || comm_field_matches(ctx, comm_off)))
		start_tid(pid);
	return 0;
}

SEC("tracepoint/sched/sched_wakeup")
int tp_runq_wakeup(void *ctx)
{
	return runq_enqueue(ctx, off_wakeup_pid, off_wakeup_comm);
}

SEC("tracepoint/sched/sched_wakeup_new")
int tp_runq_wakeup_new(void *ctx)
{
	return runq_enqueue(ctx, off_wakeup_pid, off_wakeup_comm);
}

SEC("tracepoint/sched/sched_switch")
int tp_runq_switch(void *ctx)
{
	if (field_u64(ctx, off_switch_prev_state) == TASK_RUNNING)
		runq_enqueue(ctx, off_switch_prev_pid, off_switch_prev_comm);
	finish_tid(field_u32(ctx, off_switch_next_pid));
	return 0;
}

/* --- system call latency ------------------------------------------------ */

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_sys_enter(void *ctx)
{
	if (syscall_wanted((long)field_u64(ctx, off_sys_id)) && current_in_scope())
		start_tid((__u32)bpf_get_current_pid_tgid());
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int tp_sys_exit(void *ctx)
{
	if (filter_kind != LAT_FILTER_NONE && !current_in_scope())
		return 0;
	finish_tid((__u32)bpf_get_current_pid_tgid());
	return 0;
}

/* --- block I/O latency -------------------------------------------------- */

static __always_inline struct rq_key rq_key_of(void *ctx)
{
	struct rq_key k = {
		.dev = field_u32(ctx, off_rq_dev),
		.sector = field_u64(ctx, off_rq_sector),
	};

	return k;
}

SEC("tracepoint/block/block_rq_issue")
int tp_bio_issue(void *ctx)
{
	struct rq_key k = rq_key_of(ctx);
	__u64 ts;

	if (filter_dev && k.dev != filter_dev)
		return 0;
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&rq_start, &k, &ts, BPF_ANY);
	return 0;
}

SEC("tracepoint/block/block_rq_complete")
int tp_bio_complete(void *ctx)
{
	struct rq_key k = rq_key_of(ctx);
	__u64 *tsp = bpf_map_lookup_elem(&rq_start, &k), t;

	if (!tsp)
		return 0;
	t = *tsp;
	bpf_map_delete_elem(&rq_start, &k);
	record(bpf_ktime_get_ns() - t);
	return 0;
}

/* --- user function latency ---------------------------------------------- */

SEC("uprobe")
int BPF_KPROBE(tp_func_entry)
{
	if (current_in_scope())
		start_tid((__u32)bpf_get_current_pid_tgid());
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(tp_func_return)
{
	finish_tid((__u32)bpf_get_current_pid_tgid());
	return 0;
}
