// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* empty_hooks.bpf.c - the hooks trapd's latency rules attach, with empty
 * bodies: what the hooks being there costs the work, apart from what
 * trapd's programs do in them (bench/latency's "empty"). Loaded by
 * bench/hookload, which attaches only the programs it is given. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(empty_sys_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(empty_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(empty_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return 0;
}
