// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sampler.bpf.c - the stack sampler: a perf_event program run on every CPU
 * at the sampling frequency (software cpu-clock).
 *
 * Each sample takes the user and kernel stacks with bpf_get_stack, stores
 * each stack once in a hash map keyed by a 64-bit hash of its frames (so
 * unlike bpf_get_stackid's fixed buckets, different stacks never evict or
 * drop each other), and counts the sample under (pid, tid, stacks, cgroup,
 * comm). Nothing leaves the kernel per sample: user space reads the maps
 * once the window closes. Every sample that cannot be stored whole is
 * counted in the stats map.
 *
 * The first sample of each process is announced on a ring buffer so user
 * space can snapshot its memory map while it lives.
 *
 * The object has no CO-RE relocations and no BTF-typed hooks on purpose:
 * libbpf then never parses the kernel's BTF, which would take ~11 MiB of
 * trapd's memory for a few field offsets. What it needs of the kernel's
 * layout (one tracepoint field) user space reads from tracefs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/latency.h"
#include "bpf/sampler.h"

/* errno values are not in vmlinux.h */
#define EEXIST 17
#define E2BIG 7
#define EBUSY 16

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Run-time controls, written by user space through the mmap'ed .bss. */
volatile __u32 armed;	     /* 0: samples are ignored (window closed) */
volatile __u32 filter_mode;  /* enum sampler_filter */
volatile __u32 follow_forks; /* children of watched pids are watched too */
volatile __u64 max_samples;  /* cap per window; 0 = none */
volatile __u64 taken;	     /* samples taken in this window (against the cap) */
volatile __u32 copy_bytes;   /* DWARF mode: user stack bytes to copy; 0 = frame pointers */
volatile __u32 window_seq;   /* which arming this is, stamped on every copy */
volatile __u32 offcpu;	     /* the switch hook records off-CPU time (sampler.h) */
/* Stacks the switch hook takes on one CPU in one SAMPLER_OFFCPU_SLOT_NS;
 * 0: no bound (sampler.h, at SAMPLER_OFFCPU_SLOT_NS) */
volatile __u32 offcpu_takes_max;
volatile __u32 calls;	 /* enum sampler_calls_kind: the calls this window numbers */
volatile __u64 call_seq; /* calls numbered in this window */
/* SAMPLER_CALLS_SYSCALL: which system calls; all of them when call_all */
volatile __u32 call_all;
volatile __u64 call_syscalls[SAMPLER_CALL_SYSCALL_WORDS];
/* Entries added to stacks and counts in this window: user space, which
 * moves entries out (sampler__move), tells from them how full they are. */
volatile __u64 stacks_added;
volatile __u64 counts_added;
volatile __u64 spares_added; /* ...and to the spare maps */

/* Set before load from tracefs: where sched_process_fork's child_pid is in
 * its record (it moved when the comms became dynamic strings). 0: the
 * fork hook does nothing. */
const volatile __u32 fork_child_pid_offset;

/* Set before load from tracefs: where sched_process_exit's record says
 * whether the whole process dies (its group_dead, Linux 6.16+). 0: the
 * exit of the thread group's leader is taken for it. */
const volatile __u32 exit_group_dead_offset;

/* Set before load from tracefs: where sched_switch's record keeps the
 * state the previous task left in and the next task's pid. 0: the switch
 * hook is not loaded. */
const volatile __u32 switch_prev_state_offset;
const volatile __u32 switch_next_pid_offset;

/* Set before load from tracefs: where raw_syscalls/sys_enter's record
 * keeps the system call's number. 0: the system call hooks are not
 * loaded. */
const volatile __u32 sys_enter_id_offset;

/* Set before load: bpf_task_pt_regs and bpf_get_current_task_btf exist
 * (5.15+, with BTF). When false the verifier never sees them called. */
const volatile bool have_task_pt_regs;

/* Set before load: bpf_loop exists (5.17+); DWARF mode needs it. */
const volatile bool have_bpf_loop;

/* Set before load: the kernel walk (sampler.h) can run: bpf_find_vma and
 * bpf_loop exist, and user space found in the kernel's BTF where these
 * fields are (the object carries no CO-RE relocations: see the top). */
const volatile bool have_walk;
const volatile __u32 vma_start_off, vma_end_off, vma_pgoff_off, vma_file_off;
const volatile __u32 file_inode_off, inode_ino_off, inode_sb_off, sb_dev_off;

/* The kernel walk instead of bpf_get_stack's frame pointers (have_walk). */
volatile __u32 walk_tables;

/* A process whose samples are not taken (0: none): the flight recorder's
 * own, whose table builds and symbolization would otherwise feed on
 * themselves. */
volatile __u32 skip_pid;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384); /* resized from the window before load */
	__type(key, struct sampler_key);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384); /* resized from the window before load */
	__type(key, __u64);
	__type(value, struct sampler_stack);
} stacks SEC(".maps");

/* The spares: when the BPF allocator's per-CPU cache is empty (it refills
 * only once interrupts are on again, and the scheduler hook runs with
 * them off), an insert into stacks or counts fails; these small
 * preallocated maps take the entry instead, so a burst of new stacks (a
 * service's threads blocking at once) costs nothing. User space moves
 * them with the others. */
#define SPARE_STACKS 256
#define SPARE_COUNTS 1024

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPARE_STACKS);
	__type(key, __u64);
	__type(value, struct sampler_stack);
} stacks_spare SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPARE_COUNTS);
	__type(key, struct sampler_key);
	__type(value, __u64);
} counts_spare SEC(".maps");

/* The state of one Python walk (py_step), in the scratch value. */
struct py_walk {
	__u64 frame; /* the next frame to read */
	__u32 pid;
	__u32 n;   /* frames stored */
	__u32 bad; /* a frame could not be read */
	__u32 pad;
	__u8 buf[SAMPLER_PY_FRAME_READ]; /* the frame being read */
};

/* The state of one kernel walk (walk_step), in the scratch value. */
struct user_walk {
	__u64 ip, sp, bp; /* the frame being stepped from */
	__u32 exact; /* ip is where the frame is (the leaf, or after a signal), not a return address */
	__u32 end; /* enum sampler_walk_end + 1 once the walk ended */
	__u32 pid;
	__u32 fp_reason; /* enum sampler_walk_end a frame-pointer step would end with */
	/* the mapping of the last pc: [vstart, vend), file offset of vstart */
	__u64 vstart, vend, voff;
	struct sampler_unwind_file_key file; /* ino 0: no file (anonymous) */
	struct sampler_unwind_file table;    /* count 0: none */
	__u32 looked;	   /* bpf_find_vma was called in this walk (it answers once) */
	__u32 by_chain;	   /* bp was read from the frame-pointer chain */
	__u32 table_known; /* the file's table was answered (@table.count 0: it has none) */
	__u32 leaf_by_fp;  /* the leaf was stepped by its frame pointer */
};

/* Three stacks per CPU: too large for the 512-byte BPF stack. */
struct scratch {
	struct sampler_stack user;
	struct sampler_stack kernel;
	struct sampler_stack py;
	struct py_walk walk;
	struct user_walk uw;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SAMPLER_STAT_NR);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Not preallocated, as seen_pids: 8192 preallocated elements cost every
 * start of trapd 3 ms of the kernel's time, for a filter that holds a few
 * pids. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} pid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct sampler_seen);
} seen_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Python: the processes whose interpreter user space knows (sampler.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sampler_py_proc);
} py_procs SEC(".maps");

/* Python: the thread state found for a thread (by host tid), checked at
 * each use, so a thread's samples search the thread list once. Not LRU
 * maps, here and below: those are preallocated, which would cost every
 * start of trapd megabytes of the kernel's memory; user space empties
 * them at each window's start instead (a full map only costs a search). */
struct py_thread {
	__u32 pid;
	__u32 pad;
	__u64 tstate;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct py_thread);
} py_threads SEC(".maps");

/* Python: the code objects announced on py_codes in this window (when it
 * is full, new ones are not announced: counted as lost). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct sampler_py_seen_key);
	__type(value, __u8);
} py_seen SEC(".maps");

/* A code object's announcement is 4.7 KiB: 55 fit, drained as they come
 * (each wakes the event loop). The daemon keeps it mapped: its size is
 * twice the daemon's resident memory. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} py_codes SEC(".maps");

/* Off-CPU: the watched tasks away from a CPU, by thread id (sampler.h).
 * Not preallocated: it holds the tasks of one target. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sampler_offcpu_start);
} offcpu_tasks SEC(".maps");

/* Off-CPU: this CPU's stack takes in the current slot (offcpu_may_take). */
struct offcpu_rate {
	__u64 slot; /* bpf_ktime_get_ns / SAMPLER_OFFCPU_SLOT_NS */
	__u64 takes;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_rate);
} offcpu_rates SEC(".maps");

/* DWARF mode off the CPU: the blocking sites copied in this window. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} offcpu_sites SEC(".maps");

/* Calls (sampler.h): the call each watched thread is in, by thread id.
 * Entries stay (depth 0) between calls, so a call costs no allocation;
 * user space empties the map at each window's start. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SAMPLER_CALL_TASKS);
	__type(key, __u32);
	__type(value, struct sampler_call);
} call_tasks SEC(".maps");

/* ...and the durations of the sampled calls that returned, by number. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SAMPLER_CALL_TIMES);
	__type(key, __u64);
	__type(value, __u64);
} call_times SEC(".maps");

/* ...and the durations of all of them, as a latency histogram (per CPU,
 * summed by user space): what "slower than p99" means in this window. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lat_row);
} call_hist SEC(".maps");

/* DWARF mode: the stack copies, sized from the window before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} copies SEC(".maps");

/* One copy buffer per CPU, indexed by CPU: a per-CPU array's values are
 * limited to 32 KiB. A perf_event program does not nest on its CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* the possible CPUs, set before load */
	__type(key, __u32);
	__type(value, struct sampler_copy_buf);
} copy_bufs SEC(".maps");

/* The kernel walk's tables (sampler.h): every file's rows, one after
 * another (user space allocates the array, sized at load), and where each
 * file's are. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* the rows the memory bound allows, set before load */
	__type(key, __u32);
	__type(value, struct sampler_unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SAMPLER_UNWIND_FILES);
	__type(key, struct sampler_unwind_file_key);
	__type(value, struct sampler_unwind_file);
} unwind_files SEC(".maps");

/* Files asked for and not yet answered, so each is asked once; user
 * space removes an entry when it answers (or gives up). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SAMPLER_UNWIND_ASKED);
	__type(key, struct sampler_unwind_file_key);
	__type(value, __u64);
} unwind_asked SEC(".maps");

/* The mappings each process's walks met (sampler.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SAMPLER_WALK_PIDS);
	__type(key, __u32);
	__type(value, struct sampler_walk_vmas);
} walk_vmas SEC(".maps");

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += 1;
}

static __always_inline bool watched(__u32 pid)
{
	switch (filter_mode) {
	case SAMPLER_FILTER_PIDS:
		return bpf_map_lookup_elem(&pid_filter, &pid) != NULL;
	case SAMPLER_FILTER_CGROUP:
		return bpf_current_task_under_cgroup(&cgroup_filter, 0) == 1;
	default:
		return true;
	}
}

static __always_inline void announce(__u32 kind, __u32 pid, __u32 life)
{
	struct sampler_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(SAMPLER_STAT_EVENTS_LOST);
		return;
	}
	e->kind = kind;
	e->pid = pid;
	e->life = life;
	e->pad = 0;
	bpf_ringbuf_submit(e, 0);
}

/* process_life - the life thread group @pid is in (struct sampler_seen),
 * announced to user space first when @with_user_code (only a process
 * with user code has a memory map worth a snapshot); *@first says it was
 * announced now. */
static __always_inline __u32 process_life(__u32 pid, bool with_user_code, bool *first)
{
	struct sampler_seen fresh = { .life = 0, .announced = 1 }, *e;
	long err;

	*first = false;
	e = bpf_map_lookup_elem(&seen_pids, &pid);
	if (e) {
		if (with_user_code && !e->announced) {
			e->announced = 1;
			*first = true;
			announce(SAMPLER_EVENT_NEW_PROCESS, pid, e->life);
		}
		return e->life;
	}
	if (!with_user_code)
		return 0;
	err = bpf_map_update_elem(&seen_pids, &pid, &fresh, BPF_NOEXIST);
	if (err == 0) {
		*first = true;
		announce(SAMPLER_EVENT_NEW_PROCESS, pid, 0);
	} else if (err != -EEXIST) {
		stat_inc(SAMPLER_STAT_PIDS_FULL);
	}
	return 0;
}

/* What a sample or a wait takes of the call its thread is in: its number
 * (for the key) and the return address its uretprobe hid (for a copy's
 * header); all 0 when in none. */
struct call_where {
	__u64 id, ret_slot, ret;
};

/* call_in - the call thread @tid is in, into @w, marked sampled so its
 * duration is kept (one lookup serves the key and the copy). The call's
 * probes cannot run on this CPU meanwhile: BPF programs of tracing kinds
 * do not nest. */
static __always_inline void call_in(__u32 tid, struct call_where *w)
{
	struct sampler_call *c;

	w->id = w->ret_slot = w->ret = 0;
	if (!calls)
		return;
	c = bpf_map_lookup_elem(&call_tasks, &tid);
	if (!c || !c->depth)
		return;
	c->sampled = 1;
	w->id = c->id;
	w->ret_slot = c->ret_slot;
	w->ret = c->ret;
}

/* call_ret_into - the return address @w's uretprobe hid, into copy
 * header @h (zero when none). */
static __always_inline void call_ret_into(struct sampler_copy *h, const struct call_where *w)
{
	h->call_ret_slot = w->ret_slot;
	h->call_ret = w->ret;
}

/* hash_stack - FNV-1a over whole frames with a final mix; never 0, which
 * means "no stack", and never with SAMPLER_SITE_BIT, which names a
 * blocking site. The leaf hint is part of it: one frame-pointer walk can
 * hide different callers of the leaf. */
static __always_inline __u64 hash_stack(const struct sampler_stack *st)
{
	__u64 h = 0xcbf29ce484222325ull;

	h ^= st->leaf.ret;
	h *= 0x100000001b3ull;
	h ^= st->leaf.ret_target;
	h *= 0x100000001b3ull;

	for (int i = 0; i < SAMPLER_MAX_DEPTH; i++) {
		if (i >= st->len)
			break;
		h ^= st->ips[i];
		h *= 0x100000001b3ull;
		h ^= h >> 32;
	}
	h ^= st->len;
	h &= ~SAMPLER_SITE_BIT;
	return h ? h : 1;
}

#if defined(__TARGET_ARCH_x86)
/* The x86-64 user registers (struct pt_regs, a stable ABI: it is what
 * perf_event programs see as their context), declared here so reading
 * them needs no CO-RE relocation. */
struct user_regs_x86 {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
	__u64 orig_ax, ip, cs, flags, sp, ss;
};

/* ctx_word - the 64-bit word at byte @off of the context, loaded straight
 * from the context register: the verifier rewrites only such loads, and
 * refuses one through a pointer the compiler moved. */
#define ctx_word(ctx, off)                                                                         \
	({                                                                                         \
		__u64 __v;                                                                         \
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(__v) : "r"(ctx), "i"(off));           \
		__v;                                                                               \
	})

/* saved_user_sp - the user stack pointer saved when the current task
 * entered the kernel; 0 if unknown. */
static __always_inline __u64 saved_user_sp(void)
{
	struct user_regs_x86 *saved;
	__u64 sp = 0;

	if (!have_task_pt_regs)
		return 0;
	saved = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (saved)
		bpf_probe_read_kernel(&sp, sizeof(sp), &saved->sp);
	return sp;
}

/* user_sp - the user stack pointer of the interrupted task: from the
 * sample's registers when it was in user mode, else from the registers
 * saved when it entered the kernel. 0 if unknown. */
static __always_inline __u64 user_sp(struct bpf_perf_event_data *ctx)
{
	if ((ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, cs)) & 3) == 3)
		return ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, sp));
	return saved_user_sp();
}

/* call_target - where the direct call (e8 rel32) that returns to @ret
 * goes; 0 when the five bytes before @ret are not one or unreadable. */
static __always_inline __u64 call_target(__u64 ret)
{
	unsigned char code[5];
	__s32 rel;

	if (ret < 5 || bpf_probe_read_user(code, sizeof(code), (void *)(ret - 5)) ||
	    code[0] != 0xe8)
		return 0;
	__builtin_memcpy(&rel, code + 1, sizeof(rel));
	return ret + (__s64)rel;
}

/* through_plt - where a call to @target ends up when @target is a PLT
 * stub (jmp *SLOT(%rip), after an endbr64 and with a bnd prefix in
 * .plt.sec): the address in its GOT slot. @target itself otherwise, or
 * when the slot is unreadable. A call into a library goes through one. */
static __always_inline __u64 through_plt(__u64 target)
{
	unsigned char c[12];
	__u64 slot, dest;
	__s32 rel;

	if (!target || bpf_probe_read_user(c, sizeof(c), (void *)target))
		return target;
	if (c[0] == 0xff && c[1] == 0x25) {
		__builtin_memcpy(&rel, c + 2, sizeof(rel));
		slot = target + 6 + (__s64)rel;
	} else if (c[0] == 0xf2 && c[1] == 0xff && c[2] == 0x25) {
		__builtin_memcpy(&rel, c + 3, sizeof(rel));
		slot = target + 7 + (__s64)rel;
	} else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa && c[4] == 0xf2 &&
		   c[5] == 0xff && c[6] == 0x25) {
		__builtin_memcpy(&rel, c + 7, sizeof(rel));
		slot = target + 11 + (__s64)rel;
	} else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa && c[4] == 0xff &&
		   c[5] == 0x25) {
		__builtin_memcpy(&rel, c + 6, sizeof(rel));
		slot = target + 10 + (__s64)rel;
	} else {
		return target;
	}
	if (bpf_probe_read_user(&dest, sizeof(dest), (void *)slot))
		return target;
	return dest;
}

/* find_leaf - fill st->leaf for the user stack @st, whose stack pointer
 * is @sp (0: unknown) (see sampler.h). */
static __always_inline void find_leaf(__u64 sp, struct sampler_stack *st)
{
	__u64 w, target;

	if (st->len >= 2)
		st->leaf.caller_target = through_plt(call_target(st->ips[1]));
	if (!sp)
		return;
#pragma unroll
	for (int i = 0; i < SAMPLER_LEAF_SCAN_WORDS; i++) {
		if (bpf_probe_read_user(&w, sizeof(w), (void *)(sp + 8 * i)))
			return;
		target = w ? call_target(w) : 0;
		if (target) {
			st->leaf.ret = w;
			st->leaf.ret_target = through_plt(target);
			return;
		}
	}
}
#else
static __always_inline __u64 saved_user_sp(void)
{
	return 0;
}

static __always_inline __u64 user_sp(struct bpf_perf_event_data *ctx)
{
	return 0;
}

static __always_inline void find_leaf(__u64 sp, struct sampler_stack *st)
{
}
#endif

/* The user registers a walk or a copy starts from. */
struct uregs {
	__u64 ip, sp, bp;
};

#if defined(__TARGET_ARCH_x86)
/* saved_user_regs - the current task's user ip, sp and bp as saved when
 * it entered the kernel. False when there are none. */
static __always_inline bool saved_user_regs(struct uregs *r)
{
	struct user_regs_x86 *saved;
	__u64 cs = 0;

	if (!have_task_pt_regs)
		return false;
	saved = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!saved || bpf_probe_read_kernel(&cs, sizeof(cs), &saved->cs) || (cs & 3) != 3)
		return false;
	if (bpf_probe_read_kernel(&r->ip, sizeof(r->ip), &saved->ip) ||
	    bpf_probe_read_kernel(&r->sp, sizeof(r->sp), &saved->sp) ||
	    bpf_probe_read_kernel(&r->bp, sizeof(r->bp), &saved->bp))
		return false;
	return true;
}

/* user_regs - the interrupted task's user ip, sp and bp: the sample's own
 * registers in user mode, those saved at kernel entry otherwise. False
 * when there are none (a kernel thread, or no bpf_task_pt_regs). */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, struct uregs *r)
{
	if ((ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, cs)) & 3) == 3) {
		r->ip = ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, ip));
		r->sp = ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, sp));
		r->bp = ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, bp));
		return true;
	}
	return saved_user_regs(r);
}
#else
static __always_inline bool saved_user_regs(struct uregs *r)
{
	return false;
}

static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, struct uregs *r)
{
	return false;
}
#endif

/* copy_chunk - a bpf_loop step of copy_stack: read up to the next
 * SAMPLER_COPY_CHUNK boundary. The loop's state lives in the map value,
 * not on the stack: the verifier then knows nothing of its values and
 * checks the body once, where on the stack each iteration's ranges would
 * be new states to explore, past its limit. */
static long copy_chunk(__u32 i, void *arg)
{
	struct sampler_copy_buf *b = *(struct sampler_copy_buf **)arg;
	__u64 got = b->loop_got, n;

	if (got >= b->loop_want || got > SAMPLER_COPY_MAX)
		return 1;
	n = SAMPLER_COPY_CHUNK - (b->loop_addr & (SAMPLER_COPY_CHUNK - 1));
	if (n > b->loop_want - got)
		n = b->loop_want - got;
	/* keep the compiler from folding the bound the verifier needs */
	asm volatile("" : "+r"(n));
	if (n > SAMPLER_COPY_CHUNK)
		return 1;
	if (bpf_probe_read_user(&b->stack[got], n, (void *)b->loop_addr))
		return 1;
	b->loop_got = got + n;
	b->loop_addr += n;
	return 0;
}

/* copy_stack - read up to @want bytes of user stack at @sp into @b, in
 * chunks that never cross a page; returns the bytes read, stopping at the
 * first unreadable chunk (past the top of the stack). */
static __always_inline __u32 copy_stack(struct sampler_copy_buf *b, __u64 sp, __u32 want)
{
	__u64 got;

	b->loop_addr = sp;
	b->loop_got = 0;
	b->loop_want = want;
	/* bpf_loop takes a stack pointer: the buffer's address goes there */
	bpf_loop(SAMPLER_COPY_MAX / SAMPLER_COPY_CHUNK + 1, copy_chunk, &b, 0);
	got = b->loop_got;
	return got <= SAMPLER_COPY_MAX ? (__u32)got : 0;
}

/* keep_stack - store @st (filled) in the stacks map; returns its id or 0
 * when it could not be stored (the reason is counted). */
static __always_inline __u64 keep_stack(struct sampler_stack *st)
{
	struct sampler_stack *old;
	__u64 id = hash_stack(st);
	long n;

	old = bpf_map_lookup_elem(&stacks, &id);
	if (old) {
		/* Same hash: a different stack only if the frames differ. Checking
		 * the length and both ends catches it without a full compare. */
		if (old->len != st->len || old->ips[0] != st->ips[0] ||
		    old->leaf.ret != st->leaf.ret) {
			stat_inc(SAMPLER_STAT_STACK_COLLISION);
			return 0;
		}
		return id;
	}
	n = bpf_map_update_elem(&stacks, &id, st, BPF_NOEXIST);
	if (n == 0)
		__sync_fetch_and_add(&stacks_added, 1);
	else if (n == -E2BIG) {
		stat_inc(SAMPLER_STAT_STACKS_FULL);
		return 0;
	} else if (n != -EEXIST) {
		/* the allocator's cache was empty: the spare map */
		n = bpf_map_update_elem(&stacks_spare, &id, st, BPF_NOEXIST);
		if (n && n != -EEXIST) {
			stat_inc(SAMPLER_STAT_STACKS_ALLOC_FAILED);
			return 0;
		}
		if (!n)
			__sync_fetch_and_add(&spares_added, 1);
	}
	return id;
}

/* store_stack - fetch one stack into @st and store it; returns its id or 0
 * when there is none or it could not be stored (the reason is counted).
 * @sp is the user stack pointer for a user stack's leaf hint (0: none). */
static __always_inline __u64 store_stack(void *ctx, struct sampler_stack *st, __u64 flags,
					 __u32 fault_stat, __u32 trunc_stat, __u64 sp)
{
	long n;

	n = bpf_get_stack(ctx, st->ips, sizeof(st->ips), flags);
	if (n < 0) {
		stat_inc(fault_stat);
		return 0;
	}
	if (n == 0)
		return 0;
	st->len = n / sizeof(__u64);
	st->walked = 0;
	if (st->len >= SAMPLER_MAX_DEPTH)
		stat_inc(trunc_stat);
	st->leaf.ret = st->leaf.ret_target = st->leaf.caller_target = 0;
	if (flags & BPF_F_USER_STACK)
		find_leaf(sp, st);
	return keep_stack(st);
}

/* --- Python (sampler.h) --------------------------------------------- */

static __always_inline __u64 read_word(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* struct bpf_pidns_info (a stable UAPI layout), declared here: vmlinux.h's
 * would make reading it a CO-RE relocation, and libbpf would then parse
 * the kernel's BTF (see the top of this file). */
struct pidns_info {
	__u32 pid;
	__u32 tgid;
};

/* py_tid - the sampled thread's id as its own pid namespace sees it: what
 * the interpreter recorded as its native_thread_id. 0 if unknown. */
static __always_inline __u32 py_tid(const struct sampler_py_proc *proc)
{
	struct pidns_info ns = {};

	if (bpf_get_ns_current_pid_tgid(proc->pidns_dev, proc->pidns_ino, (void *)&ns, sizeof(ns)))
		return 0;
	return ns.pid;
}

/* py_thread_state - the PyThreadState of the sampled thread (host @tid,
 * @nstid in its namespace) of process @pid; 0 if none is found. */
static __always_inline __u64 py_thread_state(const struct sampler_py_proc *proc, __u32 pid,
					     __u32 tid, __u32 nstid)
{
	struct py_thread *cached, fresh = { .pid = pid };
	__u64 ts, interp;

	cached = bpf_map_lookup_elem(&py_threads, &tid);
	if (cached && cached->pid == pid && cached->tstate &&
	    read_word(cached->tstate + proc->ts_native_tid) == nstid)
		return cached->tstate;
	interp = read_word(proc->runtime + proc->interp_head);
	ts = interp ? read_word(interp + proc->threads_head) : 0;
	for (int i = 0; i < SAMPLER_PY_MAX_THREADS && ts; i++) {
		if (read_word(ts + proc->ts_native_tid) == nstid) {
			fresh.tstate = ts;
			bpf_map_update_elem(&py_threads, &tid, &fresh, BPF_ANY);
			return ts;
		}
		ts = read_word(ts + proc->ts_next);
	}
	return 0;
}

/* py_read_str - what names a Python string at @obj: its header, and the
 * characters of a compact one (every name and file name of a code
 * object), cut at SAMPLER_PY_NAME_MAX bytes. User space checks it. */
static __always_inline void py_read_str(struct sampler_py_str *out, __u64 obj,
					const struct sampler_py_proc *proc)
{
	__u64 n, data;

	out->copied = 0;
	out->state = 0;
	out->type = read_word(obj + 8);
	out->length = read_word(obj + 16);
	if (!obj ||
	    bpf_probe_read_user(&out->state, sizeof(out->state), (void *)(obj + proc->str_state)))
		return;
	if (!(out->state & (1u << 5))) /* not compact: no characters to read */
		return;
	n = out->length > SAMPLER_PY_NAME_MAX ? SAMPLER_PY_NAME_MAX
					      : out->length * ((out->state >> 2) & 7);
	if (n > SAMPLER_PY_NAME_MAX)
		n = SAMPLER_PY_NAME_MAX;
	data = obj + (out->state & (1u << 6) ? proc->str_ascii_data : proc->str_compact_data);
	asm volatile("" : "+r"(n));
	if (n > SAMPLER_PY_NAME_MAX)
		return;
	if (!bpf_probe_read_user(out->data, n, (void *)data))
		out->copied = n;
}

/* py_announce - send what names code object @code of @pid on py_codes.
 * False when the ring is full (counted): a later sample tries again. */
static __noinline bool py_announce(const struct sampler_py_proc *proc, __u32 pid, __u64 code,
				   __u64 fingerprint, __s32 firstlineno)
{
	struct sampler_py_code *r;
	__u64 ptrs[4] = {}, n;

	r = bpf_ringbuf_reserve(&py_codes, sizeof(*r), 0);
	if (!r) {
		stat_inc(SAMPLER_STAT_PY_CODES_LOST);
		return false;
	}
	r->pid = pid;
	r->window = window_seq;
	r->code = code;
	r->info = fingerprint;
	r->type = read_word(code + 8);
	r->firstlineno = firstlineno;
	/* co_filename, co_name, co_qualname, co_linetable */
	if (bpf_probe_read_user(ptrs, sizeof(ptrs), (void *)(code + proc->co_filename)))
		ptrs[0] = ptrs[2] = ptrs[3] = 0;
	py_read_str(&r->qualname, ptrs[2], proc);
	py_read_str(&r->filename, ptrs[0], proc);
	r->lines_copied = 0;
	r->lines_type = ptrs[3] ? read_word(ptrs[3] + 8) : 0;
	r->lines_size = ptrs[3] ? read_word(ptrs[3] + 16) : 0;
	n = r->lines_size < SAMPLER_PY_LINES_MAX ? r->lines_size : SAMPLER_PY_LINES_MAX;
	asm volatile("" : "+r"(n));
	if (ptrs[3] && n <= SAMPLER_PY_LINES_MAX &&
	    !bpf_probe_read_user(r->lines, n, (void *)(ptrs[3] + proc->bytes_data)))
		r->lines_copied = n;
	bpf_ringbuf_submit(r, 0);
	return true;
}

static __always_inline __u64 frame_field(const __u8 *buf, __u32 off)
{
	__u64 v;

	if (off > SAMPLER_PY_FRAME_READ - sizeof(v))
		return 0;
	__builtin_memcpy(&v, buf + off, sizeof(v));
	return v;
}

static __always_inline __u8 frame_byte(const __u8 *buf, __u32 off)
{
	return off < SAMPLER_PY_FRAME_READ ? buf[off] : 0;
}

struct py_ctx {
	struct scratch *sc;
	const struct sampler_py_proc *proc;
};

/* py_step - a bpf_loop step of py_stack: read one frame and store it (or
 * mark the frame before it as the first of its C call, for an entry
 * frame of 3.12+). Its state lives in the scratch value (see copy_chunk). */
static long py_step(__u32 i, void *arg)
{
	struct py_ctx *c = arg;
	struct scratch *sc = c->sc;
	const struct sampler_py_proc *proc = c->proc;
	struct py_walk *w = &sc->walk;
	struct sampler_py_seen_key seen = {};
	__u64 code, instr, info, qualname = 0;
	__s32 firstlineno = 0;
	__u32 n = w->n, slot;
	__u8 one = 1;

	if (!w->frame || n >= SAMPLER_PY_MAX_FRAMES)
		return 1;
	if (bpf_probe_read_user(w->buf, sizeof(w->buf), (void *)w->frame)) {
		w->bad = 1;
		return 1;
	}
	w->frame = frame_field(w->buf, proc->fr_previous);
	if (proc->fr_entry == SAMPLER_PY_NONE &&
	    frame_byte(w->buf, proc->fr_owner) == SAMPLER_PY_OWNED_BY_CSTACK) {
		slot = 2 * n - 1;
		if (n && slot < SAMPLER_MAX_DEPTH)
			sc->py.ips[slot] |= SAMPLER_PY_ENTRY;
		return 0;
	}
	code = frame_field(w->buf, proc->fr_code);
	instr = frame_field(w->buf, proc->fr_instr);
	bpf_probe_read_user(&firstlineno, sizeof(firstlineno),
			    (void *)(code + proc->co_firstlineno));
	bpf_probe_read_user(&qualname, sizeof(qualname), (void *)(code + proc->co_qualname));
	info = (__u64)(((__u32)firstlineno * 0x9e3779b1u ^ (__u32)(qualname >> 3)) & 0x7fffffffu)
	       << 32;
	seen.code = code;
	seen.pid = w->pid;
	seen.window = window_seq;
	seen.info = info;
	if (!bpf_map_lookup_elem(&py_seen, &seen) &&
	    py_announce(proc, w->pid, code, info, firstlineno) &&
	    bpf_map_update_elem(&py_seen, &seen, &one, BPF_ANY))
		stat_inc(SAMPLER_STAT_PY_CODES_LOST); /* announced again at the next sample */
	info |= instr >= code && instr - code < SAMPLER_PY_INSTR_UNKNOWN ? instr - code
									 : SAMPLER_PY_INSTR_UNKNOWN;
	if (proc->fr_entry != SAMPLER_PY_NONE && frame_byte(w->buf, proc->fr_entry))
		info |= SAMPLER_PY_ENTRY;
	slot = 2 * n;
	if (slot + 1 >= SAMPLER_MAX_DEPTH)
		return 1;
	sc->py.ips[slot] = code;
	sc->py.ips[slot + 1] = info;
	w->n = n + 1;
	return 0;
}

/* py_stack - the Python frames of the sampled thread of @pid (host @tid)
 * stored as a stack; its id, or 0 when the process is not a registered
 * interpreter or the thread runs no Python code (counted). */
static __always_inline __u64 py_stack(struct scratch *sc, __u32 pid, __u32 tid)
{
	const struct sampler_py_proc *proc = bpf_map_lookup_elem(&py_procs, &pid);
	struct py_ctx c = { .sc = sc, .proc = proc };
	__u64 ts, frame;
	__u32 nstid;

	if (!proc || proc->window != window_seq || !have_bpf_loop)
		return 0;
	nstid = py_tid(proc);
	ts = nstid ? py_thread_state(proc, pid, tid, nstid) : 0;
	if (!ts) {
		stat_inc(SAMPLER_STAT_PY_NO_THREAD);
		return 0;
	}
	frame = read_word(ts + proc->ts_frame);
	if (proc->cframe_frame != SAMPLER_PY_NONE && frame)
		frame = read_word(frame + proc->cframe_frame);
	sc->walk.frame = frame;
	sc->walk.pid = pid;
	sc->walk.n = 0;
	sc->walk.bad = 0;
	bpf_loop(SAMPLER_PY_MAX_FRAMES + 16, py_step, &c, 0);
	if (sc->walk.bad)
		stat_inc(SAMPLER_STAT_PY_BAD_READ);
	else if (sc->walk.frame)
		stat_inc(SAMPLER_STAT_PY_TRUNCATED);
	else if (!sc->walk.n)
		stat_inc(SAMPLER_STAT_PY_NO_FRAME);
	if (!sc->walk.n || sc->walk.n > SAMPLER_PY_MAX_FRAMES)
		return 0;
	stat_inc(SAMPLER_STAT_PY_WALKED);
	sc->py.len = 2 * sc->walk.n;
	sc->py.leaf.ret = sc->py.leaf.ret_target = sc->py.leaf.caller_target = 0;
	return keep_stack(&sc->py);
}

/* add_to - add @n to the value of @key in @map (counts or its spare),
 * inserting the key if need be: 1 when it was inserted, 0 when added to,
 * or the insert's error (-EEXIST: it was there, but moved out since). */
static __always_inline long add_to(void *map, struct sampler_key *key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, key);
	long err;

	if (!v) {
		err = bpf_map_update_elem(map, key, &n, BPF_NOEXIST);
		if (err != -EEXIST)
			return err ? err : 1;
		v = bpf_map_lookup_elem(map, key);
		if (!v)
			return -EEXIST;
	}
	__sync_fetch_and_add(v, n);
	return 0;
}

/* count_add - add @n to the count of @key; false when it could not be
 * stored (counted: under @full_stat or @alloc_stat). */
static __always_inline bool count_add(struct sampler_key *key, __u64 n, __u32 full_stat,
				      __u32 alloc_stat)
{
	long err = add_to(&counts, key, n);

	if (err == 1)
		__sync_fetch_and_add(&counts_added, 1);
	if (err >= 0)
		return true;
	if (err == -EEXIST)
		return false;
	if (err == -E2BIG) {
		stat_inc(full_stat);
		return false;
	}
	/* the allocator's cache was empty: the spare map */
	err = add_to(&counts_spare, key, n);
	if (err == 1)
		__sync_fetch_and_add(&spares_added, 1);
	if (err >= 0)
		return true;
	stat_inc(alloc_stat);
	return false;
}

static __always_inline void count_sample(struct sampler_key *key)
{
	count_add(key, 1, SAMPLER_STAT_COUNTS_FULL, SAMPLER_STAT_COUNTS_ALLOC_FAILED);
}

/* copy_wakeup - the flags of a copy's submission. Waking the drain thread
 * for each copy costs the sampled CPU a wake-up (an IPI: a VM exit on a
 * virtual machine) per sample; the thread polls every 50 ms anyway. It is
 * woken for a process's first copy (@first: announced with it; its memory
 * map is best read while it lives) and when the ring is a quarter full (a
 * burst must not fill it). */
static __always_inline __u64 copy_wakeup(bool first)
{
	if (first)
		return BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_query(&copies, BPF_RB_AVAIL_DATA) >=
	    bpf_ringbuf_query(&copies, BPF_RB_RING_SIZE) / 4)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* send_copy - DWARF mode: send the registers and stack top of the sample
 * described by @key (its kernel stack stored already) for user space to
 * unwind. False when it could not: the caller takes the frame-pointer
 * walk instead, and the reason is counted. */
static __always_inline bool send_copy(struct bpf_perf_event_data *ctx, struct sampler_key *key,
				      const struct call_where *call, bool first)
{
	__u32 cpu = bpf_get_smp_processor_id(), want = copy_bytes, len;
	struct sampler_copy_buf *b;
	struct uregs r;

	b = bpf_map_lookup_elem(&copy_bufs, &cpu);
	if (!b)
		return false;
	if (!user_regs(ctx, &r)) {
		stat_inc(SAMPLER_STAT_COPY_NO_REGS);
		return false;
	}
	b->hdr.ip = r.ip;
	b->hdr.sp = r.sp;
	b->hdr.bp = r.bp;
	if (want > SAMPLER_COPY_MAX)
		want = SAMPLER_COPY_MAX;
	len = copy_stack(b, b->hdr.sp, want);
	if (len > SAMPLER_COPY_MAX)
		return false;
	b->hdr.pid = key->pid;
	b->hdr.tid = key->tid;
	b->hdr.cgroup_id = key->cgroup_id;
	__builtin_memcpy(b->hdr.comm, key->comm, sizeof(b->hdr.comm));
	b->hdr.kernel_stack = key->kernel_stack;
	b->hdr.window = window_seq;
	b->hdr.len = len;
	b->hdr.life = key->life;
	b->hdr.pad = 0;
	b->hdr.py_stack = key->py_stack;
	b->hdr.site = 0;
	b->hdr.call = key->call;
	call_ret_into(&b->hdr, call);
	if (bpf_ringbuf_output(&copies, b, sizeof(b->hdr) + len, copy_wakeup(first))) {
		stat_inc(SAMPLER_STAT_COPIES_LOST);
		return false;
	}
	stat_inc(SAMPLER_STAT_COPIES);
	return true;
}

/* --- the kernel walk (sampler.h) ------------------------------------ */

#define WALK_SEARCH_STEPS 24 /* rows of one file: at most 2^24 */
#define WALK_USER_MAX 0x00007fffffffffffull

static __always_inline __u64 kernel_word(const void *base, __u32 off)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (const char *)base + off);
	return v;
}

/* What bpf_find_vma's callback found (on the stack: the helper wants its
 * context there). */
struct walk_vma_found {
	__u64 start, end, off;
	struct sampler_unwind_file_key file;
	__u64 found;
};

/* walk_vma - bpf_find_vma's callback: the mapping's range, where it is
 * in its file, and the file's device and inode. */
static long walk_vma(struct task_struct *task, struct vm_area_struct *vma, void *arg)
{
	struct walk_vma_found *f = arg;
	__u64 file, inode, sb;
	__u32 dev = 0;

	f->found = 1;
	f->start = kernel_word(vma, vma_start_off);
	f->end = kernel_word(vma, vma_end_off);
	f->off = kernel_word(vma, vma_pgoff_off) << 12;
	file = kernel_word(vma, vma_file_off);
	if (!file)
		return 0;
	inode = kernel_word((void *)file, file_inode_off);
	if (!inode)
		return 0;
	sb = kernel_word((void *)inode, inode_sb_off);
	if (sb)
		bpf_probe_read_kernel(&dev, sizeof(dev), (const char *)sb + sb_dev_off);
	f->file.dev = dev;
	f->file.ino = kernel_word((void *)inode, inode_ino_off);
	return 0;
}

/* walk_ask - tell user space that @w's file has no table yet, once. */
static __always_inline void walk_ask(struct user_walk *w)
{
	struct sampler_unwind_want *e;
	__u64 now = bpf_ktime_get_ns();

	if (bpf_map_update_elem(&unwind_asked, &w->file, &now, BPF_NOEXIST))
		return; /* asked already, or too many pending */
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		bpf_map_delete_elem(&unwind_asked, &w->file);
		stat_inc(SAMPLER_STAT_EVENTS_LOST);
		return;
	}
	e->kind = SAMPLER_EVENT_UNWIND_FILE;
	e->pid = w->pid;
	e->start = w->vstart;
	e->end = w->vend;
	e->file = w->file;
	bpf_ringbuf_submit(e, 0);
	stat_inc(SAMPLER_STAT_WALK_FILES_ASKED);
}

/* walk_known - the mapping of @pc among those @pid's walks met, fresh;
 * into @w. */
static __always_inline bool walk_known(struct user_walk *w, struct sampler_walk_vmas *v, __u64 pc,
				       __u64 now)
{
	for (int i = 0; i < SAMPLER_WALK_VMAS; i++) {
		struct sampler_walk_vma *e = &v->e[i];

		if (pc >= e->start && pc < e->end && now - e->seen < SAMPLER_WALK_VMA_NS) {
			w->vstart = e->start;
			w->vend = e->end;
			w->voff = e->off;
			w->file = e->file;
			return true;
		}
	}
	return false;
}

/* walk_look - bpf_find_vma for @pc, kept in @v (NULL: no room); false
 * when it has no mapping (or cannot look: w->end says which). */
static __always_inline bool walk_look(struct user_walk *w, struct sampler_walk_vmas *v, __u64 pc,
				      __u64 now)
{
	struct walk_vma_found f = {};
	struct sampler_walk_vma *e;
	__u32 slot;
	long err;

	if (w->looked) {
		w->end = SAMPLER_WALK_VMA_UNKNOWN + 1;
		return false;
	}
	w->looked = 1;
	err = bpf_find_vma(bpf_get_current_task_btf(), pc, walk_vma, &f, 0);
	if (err || !f.found || pc < f.start || pc >= f.end) {
		w->end = (err == -EBUSY ? SAMPLER_WALK_VMA_UNKNOWN : SAMPLER_WALK_NOT_MAPPED) + 1;
		return false;
	}
	w->vstart = f.start;
	w->vend = f.end;
	w->voff = f.off;
	w->file = f.file;
	if (!v)
		return true;
	slot = v->next % SAMPLER_WALK_VMAS;
	v->next = slot + 1;
	e = &v->e[slot];
	e->start = f.start;
	e->end = f.end;
	e->off = f.off;
	e->file = f.file;
	e->seen = now;
	return true;
}

/* walk_mapping - make @w's mapping the one of @pc: false when there is
 * none, or it is not known yet (w->end says why). */
static __always_inline bool walk_mapping(struct user_walk *w, __u64 pc)
{
	static const struct sampler_walk_vmas empty = {};
	struct sampler_unwind_file *t;
	struct sampler_walk_vmas *v;
	__u64 now;

	if (pc >= w->vstart && pc < w->vend)
		return true;
	now = bpf_ktime_get_ns();
	v = bpf_map_lookup_elem(&walk_vmas, &w->pid);
	if (!v) {
		bpf_map_update_elem(&walk_vmas, &w->pid, &empty, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&walk_vmas, &w->pid);
	}
	w->vstart = w->vend = 0;
	if (!(v && walk_known(w, v, pc, now)) && !walk_look(w, v, pc, now))
		return false;
	w->table.first = w->table.count = 0;
	w->table_known = 0;
	if (!w->file.ino)
		return true;
	t = bpf_map_lookup_elem(&unwind_files, &w->file);
	if (t) {
		w->table = *t;
		w->table_known = 1;
	} else {
		walk_ask(w);
	}
	return true;
}

/* walk_row - the row of file offset @off in @w's table; NULL: none. */
static __always_inline struct sampler_unwind_row *walk_row(const struct user_walk *w, __u32 off)
{
	__u32 lo = w->table.first, hi = w->table.first + w->table.count, mid;
	struct sampler_unwind_row *r;

	for (int i = 0; i < WALK_SEARCH_STEPS && lo < hi; i++) {
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(&unwind_rows, &mid);
		if (!r)
			return NULL;
		if (r->off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == w->table.first)
		return NULL;
	lo -= 1;
	return bpf_map_lookup_elem(&unwind_rows, &lo);
}

/* walk_by_frame_pointer - step @w to its caller through rbp (code with
 * no row); false when the chain ends there: at an entry (w->end set)
 * when the rbp it ends on was read from the chain itself (the ABI's
 * outermost frame has rbp 0: _start, a thread's start, Go's goexit). */
static __always_inline bool walk_by_frame_pointer(struct user_walk *w)
{
	__u64 fp[2];

	stat_inc(SAMPLER_STAT_WALK_FP_FRAMES);
	if (w->exact && !w->by_chain)
		w->leaf_by_fp = 1;
	if (!w->bp && w->by_chain) {
		w->end = SAMPLER_WALK_ENTRY + 1;
		return false;
	}
	if (!w->bp || w->bp < w->sp || bpf_probe_read_user(fp, sizeof(fp), (void *)w->bp))
		return false;
	w->sp = w->bp + 16;
	w->bp = fp[0];
	w->ip = fp[1];
	w->exact = 0;
	w->by_chain = 1;
	return true;
}

/* walk_signal - step @w over a signal frame: the registers the kernel
 * saved in its ucontext (x86-64: uc_mcontext at sp + 40; rbp, rsp and
 * rip at 80, 120 and 128 in it). The pc found is exact. */
static __always_inline bool walk_signal(struct user_walk *w)
{
	__u64 mc = w->sp + 40, bp, sp, ip;

	if (bpf_probe_read_user(&bp, sizeof(bp), (void *)(mc + 80)) ||
	    bpf_probe_read_user(&sp, sizeof(sp), (void *)(mc + 120)) ||
	    bpf_probe_read_user(&ip, sizeof(ip), (void *)(mc + 128)))
		return false;
	w->bp = bp;
	w->sp = sp;
	w->ip = ip;
	w->exact = 1;
	w->by_chain = 0;
	return true;
}

/* row_cfa_offset - the bytes row @r of @w's table adds to the CFA's base
 * at file offset @off: its words, and its fold once @off is past it, or
 * its far offset. */
static __always_inline __s64 row_cfa_offset(const struct user_walk *w,
					    const struct sampler_unwind_row *r, __u32 off)
{
	__s64 words = SAMPLER_UNWIND_CFA_WORDS(r->cfa);
	__u32 fold = SAMPLER_UNWIND_CFA_FOLD(r->cfa), far;
	struct sampler_unwind_row *f;

	if (r->kind & SAMPLER_UNWIND_WIDE) {
		far = w->table.first + w->table.count + (__u16)r->cfa;
		f = bpf_map_lookup_elem(&unwind_rows, &far);
		return f ? (__s64)(__s32)f->off : 0;
	}
	if (fold && off - r->off >= fold)
		words += r->kind & SAMPLER_UNWIND_FOLD_POP ? -1 : 1;
	return words * 8;
}

/* walk_by_row - step @w to its caller with row @r, the row of file
 * offset @off; false when the walk ends (w->end says why). */
static __always_inline bool walk_by_row(struct user_walk *w, const struct sampler_unwind_row *r,
					__u32 off)
{
	__u32 kind = r->kind & SAMPLER_UNWIND_KIND_MASK;
	__u64 cfa, ra, bp = w->bp;

	switch (kind) {
	case SAMPLER_UNWIND_ENTRY:
		w->end = SAMPLER_WALK_ENTRY + 1;
		return false;
	case SAMPLER_UNWIND_SIGNAL:
		if (walk_signal(w))
			return true;
		w->end = SAMPLER_WALK_BAD_READ + 1;
		return false;
	case SAMPLER_UNWIND_CFA_SP:
		cfa = w->sp + row_cfa_offset(w, r, off);
		break;
	case SAMPLER_UNWIND_CFA_BP:
		cfa = w->bp + row_cfa_offset(w, r, off);
		break;
	case SAMPLER_UNWIND_CFA_BP_DEREF:
		if (bpf_probe_read_user(&cfa, sizeof(cfa),
					(void *)(w->bp + row_cfa_offset(w, r, off)))) {
			w->end = SAMPLER_WALK_BAD_READ + 1;
			return false;
		}
		break;
	case SAMPLER_UNWIND_PLT:
		cfa = w->sp + 8 + ((__s64)(w->ip & 15) >= r->cfa ? 8 : 0);
		break;
	default: /* a gap, or a rule the walk cannot run */
		w->fp_reason = SAMPLER_WALK_NO_CFI;
		if (walk_by_frame_pointer(w))
			return true;
		if (!w->end)
			w->end = SAMPLER_WALK_NO_CFI + 1;
		return false;
	}
	if (cfa <= w->sp || bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8))) {
		w->end = (cfa <= w->sp ? SAMPLER_WALK_BAD_FRAME : SAMPLER_WALK_BAD_READ) + 1;
		return false;
	}
	if (r->kind & SAMPLER_UNWIND_RBP_SAVED) {
		if (bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + 8 * (__s64)r->rbp))) {
			w->end = SAMPLER_WALK_BAD_READ + 1;
			return false;
		}
	} else if (r->kind & SAMPLER_UNWIND_RBP_LOST) {
		bp = 0;
	}
	w->sp = cfa;
	w->bp = bp;
	w->ip = ra;
	w->exact = 0;
	w->by_chain = 0;
	return true;
}

/* walk_step - a bpf_loop step of walk_user: record the frame at w->ip
 * and step to its caller. Its state is in the scratch value (see
 * copy_chunk). */
static long walk_step(__u32 i, void *arg)
{
	struct scratch *sc = *(struct scratch **)arg;
	struct user_walk *w = &sc->uw;
	struct sampler_unwind_row *r;
	__u32 n = sc->user.len, off;
	__u64 pc;

	if (n >= SAMPLER_WALK_MAX_DEPTH) {
		w->end = SAMPLER_WALK_DEPTH + 1;
		return 1;
	}
	if (!w->ip || w->ip > WALK_USER_MAX) {
		w->end = (n ? SAMPLER_WALK_BAD_FRAME : SAMPLER_WALK_NOT_MAPPED) + 1;
		return 1;
	}
	sc->user.ips[n] = w->ip;
	sc->user.len = n + 1;
	pc = w->ip - (w->exact ? 0 : 1); /* a call's return address is past it */
	if (!walk_mapping(w, pc)) {
		/* anonymous or unmapped: JIT code keeps frame pointers */
		w->fp_reason = w->end - 1;
		w->end = 0;
		if (walk_by_frame_pointer(w))
			return 0;
		if (!w->end)
			w->end = w->fp_reason + 1;
		return 1;
	}
	if (!w->table.count) {
		/* a file asked for (a copy would do better), or one without CFI */
		w->fp_reason = w->file.ino && !w->table_known ? SAMPLER_WALK_NO_TABLE
							      : SAMPLER_WALK_NO_CFI;
		if (walk_by_frame_pointer(w))
			return 0;
		if (!w->end)
			w->end = w->fp_reason + 1;
		return 1;
	}
	off = (__u32)(pc - w->vstart + w->voff);
	r = walk_row(w, off);
	if (!r) {
		w->fp_reason = SAMPLER_WALK_NO_CFI;
		if (walk_by_frame_pointer(w))
			return 0;
		if (!w->end)
			w->end = SAMPLER_WALK_NO_CFI + 1;
		return 1;
	}
	return walk_by_row(w, r, off) ? 0 : 1;
}

/* walk_user - the kernel walk of the sampled task's user stack into
 * sc->user; 0 frames when it has no user registers (a kernel thread).
 * Returns how it ended (enum sampler_walk_end; SAMPLER_WALK_NR: no walk). */
static __always_inline __u32 walk_user(struct bpf_perf_event_data *ctx, struct scratch *sc,
				       __u32 pid)
{
	struct user_walk *w = &sc->uw;
	struct uregs r;
	__u32 end;

	sc->user.len = 0;
	sc->user.walked = 1;
	sc->user.leaf.ret = sc->user.leaf.ret_target = sc->user.leaf.caller_target = 0;
	if (!user_regs(ctx, &r))
		return SAMPLER_WALK_NR;
	w->ip = r.ip;
	w->sp = r.sp;
	w->bp = r.bp;
	w->exact = 1;
	w->end = 0;
	w->pid = pid;
	w->vstart = w->vend = 0;
	w->looked = 0;
	w->by_chain = 0;
	w->leaf_by_fp = 0;
	bpf_loop(SAMPLER_WALK_MAX_DEPTH + 1, walk_step, &sc, 0);
	/* a leaf with no CFI may not have set up its frame (gcc's and Go's
	 * leaves): its caller is recovered in user space, as a frame-pointer
	 * walk's is (struct sampler_leaf) */
	if (w->leaf_by_fp && sc->user.len) {
		sc->user.walked = 0;
		find_leaf(r.sp, &sc->user);
	}
	return w->end ? w->end - 1 : SAMPLER_WALK_DEPTH;
}

/* walk_wants_copy - whether a walk that ended with @end would be more
 * complete from a stack copy (DWARF mode's): it met a file whose table
 * is not built yet, or a mapping not yet known. */
static __always_inline bool walk_wants_copy(__u32 end)
{
	return copy_bytes && have_bpf_loop &&
	       (end == SAMPLER_WALK_NO_TABLE || end == SAMPLER_WALK_VMA_UNKNOWN);
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sampler_key key = {};
	struct call_where call;
	bool first = false;
	struct scratch *sc;
	__u32 zero = 0;

	if (!armed)
		return 0;
	key.pid = id >> 32;
	key.tid = (__u32)id;
	if (key.tid == 0) {
		stat_inc(SAMPLER_STAT_IDLE);
		return 0;
	}
	if (!watched(key.pid) || (skip_pid && key.pid == skip_pid))
		return 0;
	if (max_samples && __sync_fetch_and_add(&taken, 1) >= max_samples) {
		stat_inc(SAMPLER_STAT_OVER_CAP);
		return 0;
	}
	sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!sc)
		return 0;

	key.kernel_stack = store_stack(ctx, &sc->kernel, 0, SAMPLER_STAT_KERNEL_STACK_FAULT,
				       SAMPLER_STAT_KERNEL_TRUNCATED, 0);
	key.cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	key.py_stack = py_stack(sc, key.pid, key.tid);
	call_in(key.tid, &call);
	key.call = call.id;
	if (walk_tables && have_walk) {
		/* until a file's table is built, its stacks are copied for
		 * user space to unwind, when the window copies */
		__u32 end = walk_user(ctx, sc, key.pid);

		if (walk_wants_copy(end)) {
			key.life = process_life(key.pid, true, &first);
			if (send_copy(ctx, &key, &call, first)) {
				stat_inc(SAMPLER_STAT_WALK_COPIED);
				stat_inc(SAMPLER_STAT_SAMPLES);
				return 0;
			}
		}
		if (end < SAMPLER_WALK_NR)
			stat_inc(SAMPLER_STAT_WALK_ENTRY + end);
		key.user_stack = sc->user.len ? keep_stack(&sc->user) : 0;
		key.life = process_life(key.pid, key.user_stack != 0, &first);
		count_sample(&key);
		stat_inc(SAMPLER_STAT_SAMPLES);
		return 0;
	}
	if (copy_bytes && have_bpf_loop) {
		key.life = process_life(key.pid, true, &first);
		if (send_copy(ctx, &key, &call, first)) {
			stat_inc(SAMPLER_STAT_SAMPLES);
			return 0;
		}
	}
	/* A kernel thread has no user stack: bpf_get_stack returns 0 frames
	 * for it, which is no loss. */
	key.user_stack =
		store_stack(ctx, &sc->user, BPF_F_USER_STACK, SAMPLER_STAT_USER_STACK_FAULT,
			    SAMPLER_STAT_USER_TRUNCATED, user_sp(ctx));
	key.life = process_life(key.pid, key.user_stack != 0, &first);
	count_sample(&key);
	stat_inc(SAMPLER_STAT_SAMPLES);
	return 0;
}

/* A watched process's children are watched too (capture -- CMD, cgroup v1
 * targets). The hook runs in the parent. Its record also reports new
 * threads, whose ids land in the filter harmlessly (their samples carry
 * the parent's tgid); a full filter is counted. */
SEC("tracepoint/sched/sched_process_fork")
int on_fork(void *ctx)
{
	__u32 ppid = bpf_get_current_pid_tgid() >> 32, cpid;
	__u8 one = 1;

	if (!fork_child_pid_offset || !follow_forks || filter_mode != SAMPLER_FILTER_PIDS)
		return 0;
	if (!bpf_map_lookup_elem(&pid_filter, &ppid))
		return 0;
	/* The verifier refuses loads through a moved ctx pointer; the record
	 * is plain kernel memory, so read it as such. */
	if (bpf_probe_read_kernel(&cpid, sizeof(cpid), (char *)ctx + fork_child_pid_offset))
		return 0;
	if (cpid != ppid && bpf_map_update_elem(&pid_filter, &cpid, &one, BPF_ANY))
		stat_inc(SAMPLER_STAT_FILTER_FULL);
	return 0;
}

/* next_life - thread group @pid, met in this window, is another process
 * (or image) from now on: its next life, not announced yet. NULL when
 * the window never met it. Counted after the window too, while user
 * space still reads the processes it met (until the next window empties
 * the map). */
static __always_inline struct sampler_seen *next_life(__u32 pid)
{
	struct sampler_seen *e = bpf_map_lookup_elem(&seen_pids, &pid);

	if (e) {
		e->life++;
		e->announced = 0;
	}
	return e;
}

/* An exec replaces the memory map: the process's next life, announced so
 * user space snapshots it. The hook runs in the process that exec'd. */
SEC("tracepoint/sched/sched_process_exec")
int on_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct sampler_seen *e;

	/* its interpreter, if it had one, is gone */
	bpf_map_delete_elem(&py_procs, &pid);
	bpf_map_delete_elem(&walk_vmas, &pid);
	e = next_life(pid);
	if (e && armed) {
		e->announced = 1;
		announce(SAMPLER_EVENT_EXEC, pid, e->life);
	}
	return 0;
}

/* A process dies: its pid may be another's from now on, so what follows
 * under it is the next life, announced by its first sample. The hook
 * runs in the thread that exits; without the record's group_dead, the
 * leader's exit is taken for the process's (a process whose leader exits
 * first gets a new life while it still runs, which costs a snapshot). */
SEC("tracepoint/sched/sched_process_exit")
int on_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	bool dead = false;

	if (exit_group_dead_offset)
		bpf_probe_read_kernel(&dead, sizeof(dead), (char *)ctx + exit_group_dead_offset);
	else
		dead = (__u32)id == pid;
	if (!dead)
		return 0;
	bpf_map_delete_elem(&py_procs, &pid);
	bpf_map_delete_elem(&walk_vmas, &pid);
	next_life(pid);
	return 0;
}

/* --- off-CPU time (sampler.h) --------------------------------------- */

/* offcpu_state - what the classic record's prev_state says: one bit of
 * the state the task left in (S 1, D 2, T 4, t 8, X 16, Z 32, P 64, I
 * 128), 0 for a runnable task that yielded, 256 for one preempted. A
 * task that exits leaves for good (X, Z): SAMPLER_ON_CPU, not counted. */
static __always_inline __u32 offcpu_state(__s64 state)
{
	if (state & (16 | 32))
		return SAMPLER_ON_CPU;
	if (!(state & 0xff))
		return SAMPLER_OFFCPU_RUNNABLE;
	if (state & (1 | 128))
		return SAMPLER_OFFCPU_SLEEPING;
	if (state & 2)
		return SAMPLER_OFFCPU_UNINTERRUPTIBLE;
	return SAMPLER_OFFCPU_OTHER;
}

/* offcpu_end - the task of entry @st runs again at @now: count the time
 * it was away under the stacks it left with. */
static __always_inline void offcpu_end(struct sampler_offcpu_start *st, __u64 now)
{
	struct sampler_key key;
	__u64 since;

	if (!st || !st->since)
		return;
	/* the task runs on this CPU: nothing else touches its entry now */
	__builtin_memcpy(&key, &st->key, sizeof(key));
	since = st->since;
	st->since = 0; /* kept: it may leave from the same place again */
	if (now > since)
		count_add(&key, now - since, SAMPLER_STAT_OFFCPU_LOST, SAMPLER_STAT_OFFCPU_LOST);
}

/* could_be_code - whether stack word @w could be a return address: in
 * the range where a 64-bit process maps its programs and libraries, and
 * not a pointer into its own stack (within 64 MiB of @sp). Counters,
 * times, sizes and floating-point values fail it, so a wait's locals,
 * which change at every wait, do not make it a new site. */
static __always_inline bool could_be_code(__u64 w, __u64 sp)
{
	return w >= (1ull << 40) && w < (1ull << 47) &&
	       (w > sp + (64ull << 20) || w + (64ull << 20) < sp);
}

/* site_hash - the name of a blocking site: @pid, its ip and sp in @b's
 * header, and the words of the first @len bytes of stack copied into it
 * that could be return addresses. */
static __always_inline __u64 site_hash(const struct sampler_copy_buf *b, __u32 pid, __u32 len)
{
	__u64 h = 0xcbf29ce484222325ull, w, sp = b->hdr.sp;

	h = (h ^ pid) * 0x100000001b3ull;
	h = (h ^ b->hdr.ip) * 0x100000001b3ull;
	h = (h ^ sp) * 0x100000001b3ull;
	for (int i = 0; i < SAMPLER_SITE_BYTES / 8; i++) {
		if (8 * i + 8 > len)
			break;
		__builtin_memcpy(&w, &b->stack[8 * i], sizeof(w));
		if (!could_be_code(w, sp))
			continue;
		h ^= w;
		h *= 0x100000001b3ull;
		h ^= h >> 32;
	}
	return h | SAMPLER_SITE_BIT;
}

/* offcpu_site - DWARF mode: the blocking site of the current task, whose
 * user registers are @regs (NULL: none) (its stack copied for user space
 * the first time this window meets it, waking the drain when @first: its
 * process was announced now); 0
 * when it cannot be named or copied (the reason is counted): the caller
 * walks frame pointers instead. */
static __always_inline __u64 offcpu_site(const struct sampler_key *key, const struct uregs *regs,
					 const struct call_where *call, bool first)
{
	__u32 cpu = bpf_get_smp_processor_id(), want = copy_bytes, len;
	struct sampler_copy_buf *b;
	__u64 site;
	__u8 one = 1;

	if (!regs) {
		stat_inc(SAMPLER_STAT_COPY_NO_REGS);
		return 0;
	}
	b = bpf_map_lookup_elem(&copy_bufs, &cpu);
	if (!b)
		return 0;
	b->hdr.ip = regs->ip;
	b->hdr.sp = regs->sp;
	b->hdr.bp = regs->bp;
	len = copy_stack(b, b->hdr.sp, SAMPLER_SITE_BYTES);
	site = site_hash(b, key->pid, len);
	if (bpf_map_lookup_elem(&offcpu_sites, &site))
		return site;
	if (want > SAMPLER_COPY_MAX)
		want = SAMPLER_COPY_MAX;
	len = copy_stack(b, b->hdr.sp, want);
	if (len > SAMPLER_COPY_MAX)
		return 0;
	b->hdr.pid = key->pid;
	b->hdr.tid = key->tid;
	b->hdr.cgroup_id = key->cgroup_id;
	__builtin_memcpy(b->hdr.comm, key->comm, sizeof(b->hdr.comm));
	b->hdr.kernel_stack = key->kernel_stack;
	b->hdr.window = window_seq;
	b->hdr.len = len;
	b->hdr.life = key->life;
	b->hdr.pad = 0;
	b->hdr.py_stack = key->py_stack;
	b->hdr.site = site;
	b->hdr.call = 0;
	call_ret_into(&b->hdr, call);
	if (bpf_ringbuf_output(&copies, b, sizeof(b->hdr) + len, copy_wakeup(first))) {
		stat_inc(SAMPLER_STAT_COPIES_LOST);
		return 0;
	}
	stat_inc(SAMPLER_STAT_OFFCPU_SITES);
	/* full: the site is copied again next time, which costs, not loses */
	bpf_map_update_elem(&offcpu_sites, &site, &one, BPF_ANY);
	return site;
}

/* still_copied - whether user stack @id can be reused: a walked stack,
 * or a blocking site user space has not asked for again
 * (sampler__recopy_site: its copy did not unwind). */
static __always_inline bool still_copied(__u64 id)
{
	return !(id & SAMPLER_SITE_BIT) || bpf_map_lookup_elem(&offcpu_sites, &id);
}

/* offcpu_may_take - whether this CPU may take one more task's stacks
 * now (offcpu_takes_max in this slot): counted as a take when it may. */
static __always_inline bool offcpu_may_take(__u64 now)
{
	__u64 slot = now / SAMPLER_OFFCPU_SLOT_NS;
	struct offcpu_rate *r;
	__u32 zero = 0;

	if (!offcpu_takes_max)
		return true;
	r = bpf_map_lookup_elem(&offcpu_rates, &zero);
	if (!r)
		return true;
	if (r->slot != slot) {
		r->slot = slot;
		r->takes = 0;
	}
	if (r->takes >= offcpu_takes_max)
		return false;
	r->takes++;
	return true;
}

/* offcpu_keep - @start is what thread @tid left with: into its entry
 * @old (in place: no allocation at every switch) or a new one. */
static __always_inline void offcpu_keep(struct sampler_offcpu_start *old, __u32 tid,
					const struct sampler_offcpu_start *start)
{
	if (old) {
		__builtin_memcpy(old, start, sizeof(*start));
	} else if (bpf_map_update_elem(&offcpu_tasks, &tid, start, BPF_NOEXIST)) {
		stat_inc(SAMPLER_STAT_OFFCPU_TASKS_FULL);
		return;
	}
	stat_inc(SAMPLER_STAT_OFFCPU_SWITCHES);
}

/* offcpu_throttled - the current task leaves the CPU in @state over this
 * CPU's bound: its wait is counted under the stacks it last left with
 * (@old's, when it is of the same process), or under none; no walk, no
 * copy, no Python frames. */
static __always_inline void offcpu_throttled(struct sampler_offcpu_start *old, __u32 pid, __u32 tid,
					     __u32 state, __u64 now)
{
	struct sampler_offcpu_start start = {};
	bool first;
	__u32 life = process_life(pid, false, &first);
	struct call_where call;

	stat_inc(SAMPLER_STAT_OFFCPU_THROTTLED);
	call_in(tid, &call);
	if (old && old->key.pid == pid && old->key.life == life) {
		old->key.offcpu = state;
		old->key.call = call.id;
		old->since = now;
		stat_inc(SAMPLER_STAT_OFFCPU_SWITCHES);
		return;
	}
	start.key.pid = pid;
	start.key.tid = tid;
	start.key.offcpu = state;
	start.key.life = life;
	start.key.call = call.id;
	start.key.cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(start.key.comm, sizeof(start.key.comm));
	start.since = now;
	offcpu_keep(old, tid, &start);
}

/* offcpu_begin - the current task (watched, thread group @pid, thread
 * @tid) leaves the CPU in @state: take its stacks, as a sample would,
 * within this CPU's bound. */
static __always_inline void offcpu_begin(void *ctx, __u32 pid, __u32 tid, __u32 state, __u64 now)
{
	struct sampler_offcpu_start start = {}, *old;
	struct sampler_key *key = &start.key;
	struct uregs regs;
	struct call_where call;
	bool have_regs, first;
	struct scratch *sc;
	__u32 zero = 0;

	old = bpf_map_lookup_elem(&offcpu_tasks, &tid);
	if (!offcpu_may_take(now)) {
		offcpu_throttled(old, pid, tid, state, now);
		return;
	}
	sc = bpf_map_lookup_elem(&scratch_map, &zero);
	if (!sc)
		return;
	have_regs = saved_user_regs(&regs);
	if (have_regs) {
		start.ip = regs.ip;
		start.sp = regs.sp;
		start.bp = regs.bp;
		start.ret = read_word(regs.bp + 8);
	}
	key->pid = pid;
	key->tid = tid;
	key->offcpu = state;
	/* a task with user registers has user code worth a snapshot */
	key->life = process_life(pid, have_regs, &first);
	key->kernel_stack = store_stack(ctx, &sc->kernel, 0, SAMPLER_STAT_KERNEL_STACK_FAULT,
					SAMPLER_STAT_KERNEL_TRUNCATED, 0);
	key->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(key->comm, sizeof(key->comm));
	key->py_stack = py_stack(sc, pid, tid);
	call_in(tid, &call);
	key->call = call.id;
	/* from the same place as last time: the same user stack (a walk or
	 * a copy costs microseconds, and a busy thread leaves often), unless
	 * it is a blocking site user space asked for again */
	if (old && start.ip && old->ip == start.ip && old->sp == start.sp && old->bp == start.bp &&
	    old->ret == start.ret && old->key.pid == pid && old->key.life == key->life &&
	    still_copied(old->key.user_stack))
		key->user_stack = old->key.user_stack;
	if (!key->user_stack && copy_bytes && have_bpf_loop)
		key->user_stack = offcpu_site(key, have_regs ? &regs : NULL, &call, first);
	if (!key->user_stack)
		key->user_stack =
			store_stack(ctx, &sc->user, BPF_F_USER_STACK, SAMPLER_STAT_USER_STACK_FAULT,
				    SAMPLER_STAT_USER_TRUNCATED, start.sp);
	start.since = now;
	offcpu_keep(old, tid, &start);
}

/* The scheduler switches from the current task to the next one. A
 * classic tracepoint, its fields found in tracefs: a BTF-typed hook would
 * have libbpf parse the kernel's BTF (see the top of this file). The hook
 * is attached only for windows that record off-CPU time. */
SEC("tracepoint/sched/sched_switch")
int on_switch(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	__u32 next = 0, tid = (__u32)id;
	struct sampler_offcpu_start *back = NULL;
	__u32 waits;
	__s64 state = 0;
	bool leaves;

	if (!armed || !offcpu)
		return 0;
	if (!bpf_probe_read_kernel(&next, sizeof(next), (char *)ctx + switch_next_pid_offset) &&
	    next)
		back = bpf_map_lookup_elem(&offcpu_tasks, &next);
	leaves = tid && watched(id >> 32);
	/* most switches of a host are neither: the clock is read only when
	 * a watched task comes back or leaves */
	if (!(back && back->since) && !leaves)
		return 0;
	now = bpf_ktime_get_ns();
	offcpu_end(back, now);
	if (!leaves)
		return 0;
	if (bpf_probe_read_kernel(&state, sizeof(state), (char *)ctx + switch_prev_state_offset))
		return 0;
	waits = offcpu_state(state);
	if (waits == SAMPLER_ON_CPU) {
		/* it exits: its entry goes with it */
		bpf_map_delete_elem(&offcpu_tasks, &tid);
		return 0;
	}
	offcpu_begin(ctx, id >> 32, tid, waits, now);
	return 0;
}

/* --- calls (sampler.h) ------------------------------------------------ */

/* call_begin - the current thread enters a call: numbered, unless it is
 * in one already (a recursive function's inner entries). @sp: a
 * function's stack pointer at its entry, where its return address is
 * (0 for a system call). */
static __always_inline void call_begin(__u64 sp)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sampler_call fresh = {}, *c;
	__u32 tid = (__u32)id;

	if (!armed || !calls || !tid || !watched(id >> 32))
		return;
	c = bpf_map_lookup_elem(&call_tasks, &tid);
	if (c && c->depth) {
		c->depth++;
		return;
	}
	fresh.id = __sync_fetch_and_add(&call_seq, 1) + 1;
	fresh.start = bpf_ktime_get_ns();
	fresh.depth = 1;
	if (sp && !bpf_probe_read_user(&fresh.ret, sizeof(fresh.ret), (void *)sp))
		fresh.ret_slot = sp;
	stat_inc(SAMPLER_STAT_CALLS);
	if (c) {
		__builtin_memcpy(c, &fresh, sizeof(fresh));
		return;
	}
	if (bpf_map_update_elem(&call_tasks, &tid, &fresh, BPF_NOEXIST))
		stat_inc(SAMPLER_STAT_CALLS_UNTRACKED);
}

/* call_hist_add - one call of @ns into this CPU's row of call_hist. */
static __always_inline void call_hist_add(__u64 ns)
{
	__u32 zero = 0, b = lat_bucket_of(ns);
	struct lat_row *row = bpf_map_lookup_elem(&call_hist, &zero);

	if (!row || b >= LAT_NBUCKETS)
		return;
	__sync_fetch_and_add(&row->counts[b], 1);
	__sync_fetch_and_add(&row->events, 1);
	__sync_fetch_and_add(&row->sum_ns, ns);
	if (ns > row->max_ns)
		row->max_ns = ns;
}

/* call_end - the current thread returns from a call: its duration into
 * the histogram, and by number into call_times if a sample fell in it. */
static __always_inline void call_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sampler_call *c;
	__u64 ns, num;
	__u32 sampled;

	if (!calls)
		return;
	c = bpf_map_lookup_elem(&call_tasks, &tid);
	if (!c || !c->depth)
		return;
	if (--c->depth)
		return;
	ns = bpf_ktime_get_ns() - c->start;
	num = c->id;
	sampled = c->sampled;
	c->id = 0;
	c->sampled = 0;
	call_hist_add(ns);
	if (sampled && bpf_map_update_elem(&call_times, &num, &ns, BPF_NOEXIST) == -E2BIG)
		stat_inc(SAMPLER_STAT_CALL_TIMES_FULL);
}

SEC("uprobe")
int call_enter(void *ctx)
{
#if defined(__TARGET_ARCH_x86)
	/* at a function's first instruction, sp points at its return address */
	call_begin(ctx_word(ctx, __builtin_offsetof(struct user_regs_x86, sp)));
#else
	call_begin(0);
#endif
	return 0;
}

SEC("uretprobe")
int call_return(void *ctx)
{
	call_end();
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int call_sys_enter(void *ctx)
{
	__s64 nr = -1;

	if (!armed || calls != SAMPLER_CALLS_SYSCALL)
		return 0;
	if (!call_all) {
		if (bpf_probe_read_kernel(&nr, sizeof(nr), (char *)ctx + sys_enter_id_offset) ||
		    nr < 0 || nr >= SAMPLER_CALL_SYSCALL_WORDS * 64)
			return 0;
		if (!(call_syscalls[(nr >> 6) & (SAMPLER_CALL_SYSCALL_WORDS - 1)] &
		      (1ull << (nr & 63))))
			return 0;
	}
	call_begin(0);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int call_sys_exit(void *ctx)
{
	if (calls == SAMPLER_CALLS_SYSCALL)
		call_end();
	return 0;
}
