// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency.bpf.c - latency histograms measured in the kernel: run-queue
 * latency, system call latency, block I/O latency and a user function's
 * latency. One loaded object is one histogram: user space enables the
 * programs of its kind (bpf_program__set_autoload) and writes its filter
 * into .rodata before load, so a filter costs nothing it does not use.
 *
 * Every event adds its latency to this CPU's row of the `hist` per-CPU
 * array (bpf/latency.h); user space sums the rows. Start times live in
 * task-local storage (one u64 on the task, no hash map contention), or
 * for block requests in a hash map keyed by the request.
 *
 * The filter decides at the start of an interval, so a task outside the
 * scope costs the hook and one comparison:
 *   tgid    the thread group (a process)
 *   cgroup  the cgroup v2 subtree with this id at this level
 *   comm    every task whose name is this
 * For run-queue latency the task is the one woken (not the waker); for
 * system calls and functions, the current task.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/latency.h"
#include "bpf/latency_common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TASK_RUNNING 0

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* struct request * */
	__type(value, __u64);
} rq_start SEC(".maps");

/* Before 6.2 a cgroup kept its ancestors' ids, not pointers. */
struct cgroup___old {
	int level;
	__u64 ancestor_ids[];
} __attribute__((preserve_access_index));

struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

/* Before 6.15 a kernfs node's parent was `parent`. */
struct kernfs_node___old {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

/* How many levels cgroup_matches walks up with plain loads; a task deeper
 * below the filter's cgroup is tested with cgroup_ancestor_id. */
#define CGROUP_WALK_MAX 8

static __always_inline struct kernfs_node *kernfs_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(kn->__parent))
		return kn->__parent;
	return ((struct kernfs_node___old *)kn)->parent;
}

/* cgroup_ancestor_id - the id of @cg's ancestor at @level, with helper
 * reads: the ancestor array is a flexible array the verifier will not
 * index through a BTF pointer. */
static __always_inline __u64 cgroup_ancestor_id(struct cgroup *cg, __u32 level)
{
	struct cgroup *anc = NULL;

	if (bpf_core_field_exists(cg->ancestors)) {
		bpf_probe_read_kernel(&anc, sizeof(anc), &cg->ancestors[level]);
		return anc ? BPF_CORE_READ(anc, kn, id) : 0;
	} else {
		struct cgroup___old *old = (void *)cg;
		__u64 id = 0;

		bpf_probe_read_kernel(&id, sizeof(id), &old->ancestor_ids[level]);
		return id;
	}
}

/* cgroup_matches - whether @p's v2 cgroup is the filter's or below it.
 * This runs at every wakeup, so it walks up the cgroup's kernfs nodes
 * (a cgroup's depth is its node's) with plain loads through BTF
 * pointers, not helper calls. */
static __always_inline bool cgroup_matches(struct task_struct *p)
{
	struct cgroup *cg = p->cgroups->dfl_cgrp;
	struct kernfs_node *kn;
	int up;

	if (!cg)
		return false;
	up = cg->level - (int)filter_level;
	if (up < 0)
		return false;
	if (up > CGROUP_WALK_MAX)
		return cgroup_ancestor_id(cg, filter_level) == filter_cgroup;
	kn = cg->kn;
	for (int i = 0; i < CGROUP_WALK_MAX && i < up && kn; i++)
		kn = kernfs_parent(kn);
	return kn && kn->id == filter_cgroup;
}

static __always_inline bool comm_matches(const char *comm)
{
	__u64 name[2] = {};

	bpf_probe_read_kernel(name, sizeof(name), comm);
	return name[0] == filter_comm[0] && name[1] == filter_comm[1];
}

/* task_in_scope - whether @p (any task) is watched; current_in_scope
 * (latency_common.bpf.h) is the cheaper test for the running task. */
static __always_inline bool task_in_scope(struct task_struct *p)
{
	switch (filter_kind) {
	case LAT_FILTER_TGID:
		return p->tgid == (int)filter_tgid;
	case LAT_FILTER_CGROUP:
		return cgroup_matches(p);
	case LAT_FILTER_COMM:
		return comm_matches(p->comm);
	default:
		return true;
	}
}

static __always_inline void stamp(struct task_struct *p)
{
	__u64 *ts = bpf_task_storage_get(&start, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (ts)
		*ts = bpf_ktime_get_ns();
}

/* finish - the interval @p started ends now: record it. @irqs_off: the
 * caller runs with interrupts disabled (record_irqs_off). */
static __always_inline void finish(struct task_struct *p, bool irqs_off)
{
	__u64 *ts = bpf_task_storage_get(&start, p, 0, 0);
	__u64 t;

	if (!ts || !*ts)
		return;
	t = *ts;
	*ts = 0;
	t = bpf_ktime_get_ns() - t;
	if (irqs_off)
		record_irqs_off(t);
	else
		record(t);
}

/* --- run-queue latency -------------------------------------------------- */

static __always_inline int runq_enqueue(struct task_struct *p)
{
	/* The idle task "runs" whenever nothing else does: it never waits. */
	if (p->pid && task_in_scope(p))
		stamp(p);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(runq_wakeup, struct task_struct *p)
{
	return runq_enqueue(p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(runq_wakeup_new, struct task_struct *p)
{
	return runq_enqueue(p);
}

/* task_state - read straight through the BTF-typed pointer: a load, not
 * a helper call, on the hottest hook. */
static __always_inline long task_state(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return p->__state;
	return ((struct task_struct___old *)p)->state;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(runq_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* A task switched out while still runnable waits in the queue again. */
	if (task_state(prev) == TASK_RUNNING)
		runq_enqueue(prev);
	finish(next, true);
	return 0;
}

/* runq_switch_queued - run-queue latency from the scheduler's own
 * bookkeeping, with one hook: with CONFIG_SCHED_INFO the kernel stamps
 * sched_info.last_queued (rq clock) when a task is queued, woken or
 * preempted, and clears it when the task runs, just after this
 * tracepoint. Its wait is the rq clock (updated before the switch) minus
 * that stamp: the very delta the kernel adds to the task's run_delay
 * (/proc/PID/schedstat). No wakeup hooks, no stored start times, and
 * tasks outside the scope cost nothing at wakeup.
 *
 * The rq is reached through the task's CFS run queue (every task has one
 * with CONFIG_FAIR_GROUP_SCHED, whatever its class), not the `runqueues`
 * per-CPU symbol, which kernels without CONFIG_KALLSYMS_ALL cannot
 * resolve. Kernels without sched_info or group scheduling fail to load
 * this program; user space then loads the wakeup-stamping ones above. */
SEC("tp_btf/sched_switch")
int BPF_PROG(runq_switch_queued, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 queued = next->sched_info.last_queued, now;
	struct cfs_rq *cfs = next->se.cfs_rq;
	struct rq *rq;

	if (!queued || !cfs || !task_in_scope(next))
		return 0;
	rq = cfs->rq;
	if (!rq)
		return 0;
	now = rq->clock;
	if (now >= queued)
		record_irqs_off(now - queued);
	return 0;
}

/* --- system call latency ------------------------------------------------ */

/* Every system call of every task on the host runs both hooks, so a task
 * outside the scope must cost as little as can be: the scope is tested
 * with plain loads through the task's BTF pointers (task_in_scope, as the
 * scheduler's hooks do), not the helpers of current_in_scope
 * (bpf_get_current_ancestor_cgroup_id, bpf_get_current_comm), and the
 * exit hook of a scoped rule looks up no storage for such a task. */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *p;

	if (!syscall_wanted(id))
		return 0;
	p = bpf_get_current_task_btf();
	if (task_in_scope(p))
		stamp(p);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *p = bpf_get_current_task_btf();

	if (filter_kind != LAT_FILTER_NONE && !task_in_scope(p))
		return 0;
	finish(p, false);
	return 0;
}

/* --- block I/O latency -------------------------------------------------- */

static __always_inline __u32 rq_disk_dev(struct request *rq)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);

	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(bio_issue, struct request *rq)
{
	__u64 key = (__u64)rq, ts;

	if (filter_dev && rq_disk_dev(rq) != filter_dev)
		return 0;
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&rq_start, &key, &ts, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(bio_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, *tsp, t;

	tsp = bpf_map_lookup_elem(&rq_start, &key);
	if (!tsp)
		return 0;
	t = *tsp;
	bpf_map_delete_elem(&rq_start, &key);
	record(bpf_ktime_get_ns() - t);
	return 0;
}

/* --- user function latency ---------------------------------------------- */

SEC("uprobe")
int BPF_KPROBE(func_entry)
{
	if (current_in_scope())
		stamp(bpf_get_current_task_btf());
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(func_return)
{
	finish(bpf_get_current_task_btf(), false);
	return 0;
}
