/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sampler.h - types shared by the stack sampler's BPF program
 * (sampler.bpf.c) and its user-space control (trapd/capture/sampler.c).
 *
 * Plain fixed-width fields only, explicit padding, sizes pinned with
 * _Static_assert so both sides agree byte for byte.
 */
#ifndef TRAPD_BPF_SAMPLER_H
#define TRAPD_BPF_SAMPLER_H

/* The kernel's own limit for one stack (PERF_MAX_STACK_DEPTH). */
#define SAMPLER_MAX_DEPTH 127
#define SAMPLER_COMM_LEN 16

/* What the sampling program is restricted to; set at run time. */
enum sampler_filter {
	SAMPLER_FILTER_ALL = 0,	   /* every task but the idle ones */
	SAMPLER_FILTER_PIDS = 1,   /* thread groups listed in the pid_filter map */
	SAMPLER_FILTER_CGROUP = 2, /* tasks under the cgroup in cgroup_filter (v2) */
};

/* One aggregation bucket: samples of one thread with one pair of stacks.
 * A stack id of 0 means "no stack of that kind" (a kernel thread has no
 * user stack; a sample taken in user mode has no kernel stack). */
struct sampler_key {
	__u32 pid; /* thread group id, as the host sees it */
	__u32 tid;
	__u64 user_stack;
	__u64 kernel_stack;
	__u64 cgroup_id; /* cgroup v2 id (inode of its directory) */
	char comm[SAMPLER_COMM_LEN];
};

/* Stack words read at the user stack pointer, looking for the return
 * address of the leaf function (see struct sampler_leaf). */
#define SAMPLER_LEAF_SCAN_WORDS 8

/* What the frame-pointer walk cannot see: a leaf function that has not
 * set up its frame (gcc omits it in leaves) leaves the frame pointer at
 * its caller's frame, so the walk's second frame is the caller's caller
 * and the caller is lost. Its return address is still on the stack near
 * the stack pointer. The program records the first word there that
 * follows a direct call (e8 rel32) and where that call goes (through a
 * PLT stub: the address in its GOT slot); user space proves it (the call
 * goes to the start of the leaf's function) before inserting it.
 * Addresses are as the process sees them; 0 = none. */
struct sampler_leaf {
	__u64 ret;	     /* a return address found near the stack pointer */
	__u64 ret_target;    /* where the direct call before @ret went */
	__u64 caller_target; /* where the call before ips[1] went, if direct */
};

/* A stack as stored in the stacks map, keyed by a 64-bit hash of its
 * frames (and leaf hint). Leaf first. */
struct sampler_stack {
	__u32 len;
	__u32 pad;
	struct sampler_leaf leaf; /* user stacks only; zero for kernel stacks */
	__u64 ips[SAMPLER_MAX_DEPTH];
};

/* Counters, one slot each in the per-CPU stats map. Every sample either
 * lands in the counts map or increments one of the loss counters. */
enum sampler_stat {
	SAMPLER_STAT_SAMPLES = 0,	 /* samples of a watched task, stored */
	SAMPLER_STAT_IDLE,		 /* the CPU was idle */
	SAMPLER_STAT_OVER_CAP,		 /* dropped: the window's sample cap was reached */
	SAMPLER_STAT_USER_STACK_FAULT,	 /* user stack unreadable (kept without it) */
	SAMPLER_STAT_KERNEL_STACK_FAULT, /* kernel stack unreadable (kept without it) */
	SAMPLER_STAT_USER_TRUNCATED,	 /* user stack deeper than SAMPLER_MAX_DEPTH */
	SAMPLER_STAT_KERNEL_TRUNCATED,	 /* kernel stack deeper than SAMPLER_MAX_DEPTH */
	SAMPLER_STAT_STACKS_FULL,	 /* stacks map full (-E2BIG): kept without that stack */
	SAMPLER_STAT_STACK_COLLISION,	 /* two stacks hashed alike: kept without it */
	SAMPLER_STAT_COUNTS_FULL,	 /* dropped: counts map full (-E2BIG) */
	SAMPLER_STAT_PIDS_FULL,		 /* seen_pids map full: a process was not announced */
	SAMPLER_STAT_EVENTS_LOST,	 /* ring buffer full: an announcement was lost */
	SAMPLER_STAT_FILTER_FULL,	 /* pid_filter full: a child was not followed */
	SAMPLER_STAT_COPIES,		 /* user stacks copied for unwinding in user space */
	SAMPLER_STAT_COPIES_LOST,	 /* copies ring full: the frame-pointer walk instead */
	SAMPLER_STAT_COPY_NO_REGS,	 /* no user registers to copy from: frame pointers */
	/* The map had room but the insert failed: the BPF allocator's per-CPU
	 * cache was empty (-ENOMEM; it refills only after the interrupt the
	 * sample runs in returns) or the bucket was locked. Transient. */
	SAMPLER_STAT_STACKS_ALLOC_FAILED, /* kept without that stack */
	SAMPLER_STAT_COUNTS_ALLOC_FAILED, /* dropped */
	SAMPLER_STAT_NR,
};

/* Announcements to user space, so it snapshots a process's memory map
 * while the process is alive. */
enum sampler_event_kind {
	SAMPLER_EVENT_NEW_PROCESS = 1, /* first sample of this thread group */
	SAMPLER_EVENT_EXEC = 2,	       /* a sampled process exec'd a new image */
};

struct sampler_event {
	__u32 kind;
	__u32 pid;
};

/* DWARF mode: instead of walking the user stack by its frame pointers,
 * the program copies the user registers and the top of the user stack
 * into the copies ring buffer, and user space unwinds it with the
 * targets' call frame information. The copy is taken in chunks that never
 * cross a page, and stops at the first unreadable one (the top of the
 * stack mapping), so it holds every readable byte up to the size asked. */
#define SAMPLER_COPY_MAX (32 * 1024) /* bytes of user stack a sample can copy */
#define SAMPLER_COPY_CHUNK 1024

/* One stack copy: this header, then @len bytes read at @sp. */
struct sampler_copy {
	__u32 pid;
	__u32 tid;
	__u64 cgroup_id;
	char comm[SAMPLER_COMM_LEN];
	__u64 kernel_stack; /* id in the stacks map, 0 if none */
	__u64 ip, sp, bp;   /* user registers */
	__u32 window;	    /* the arming it belongs to (sampler's window_seq) */
	__u32 len;
};

/* The per-CPU buffer a copy is built in: larger than the ring's record so
 * the verifier can prove every chunk fits. */
struct sampler_copy_buf {
	struct sampler_copy hdr;
	__u8 stack[SAMPLER_COPY_MAX + SAMPLER_COPY_CHUNK];
	__u64 loop_addr, loop_got, loop_want; /* the copy loop's state */
};

#ifndef __bpf__
_Static_assert(sizeof(struct sampler_copy) == 72, "sampler_copy layout");
_Static_assert(sizeof(struct sampler_key) == 48, "sampler_key layout");
_Static_assert(sizeof(struct sampler_stack) == 8 + 24 + 8 * SAMPLER_MAX_DEPTH,
	       "sampler_stack layout");
_Static_assert(sizeof(struct sampler_event) == 8, "sampler_event layout");
#endif

#endif
