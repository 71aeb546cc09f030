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
	__u64 py_stack; /* Python frames (struct sampler_py_frame pairs), 0 if none */
	/* 0: on-CPU samples, counted. Else time off the CPU in nanoseconds,
	 * in this state (enum sampler_offcpu_state). */
	__u32 offcpu;
	/* Which life of @pid: 0 the first the window met, one more at each
	 * exec and at each exit of the whole process (its pid can then be
	 * another process's), so samples of two processes that held one pid,
	 * or of one process before and after an exec, are never mixed
	 * (struct sampler_seen). */
	__u32 life;
	/* The call (struct sampler_call) the thread was in: its number in
	 * the window, 0 when outside any or the window tracks none. */
	__u64 call;
};

/* Off-CPU time: while a window that asked for it is armed, the scheduler
 * hook takes a watched task's stacks when it leaves a CPU (keeping them in
 * the offcpu_tasks map, by thread) and, when it next runs, adds the time
 * it was away to the counts entry of those stacks and the state it left
 * in. Tasks still away when the window closes are counted up to the close
 * by user space (sampler__stop). */
enum sampler_offcpu_state {
	SAMPLER_ON_CPU = 0,
	SAMPLER_OFFCPU_SLEEPING = 1,	    /* S (and I): waiting for an event */
	SAMPLER_OFFCPU_UNINTERRUPTIBLE = 2, /* D: waiting for I/O, uninterruptibly */
	SAMPLER_OFFCPU_RUNNABLE = 3,	    /* R: preempted or yielded, waiting for a CPU */
	SAMPLER_OFFCPU_OTHER = 4,	    /* stopped, traced, dead */
	SAMPLER_OFFCPU_NR,
};

/* A watched task of the window (the offcpu_tasks map, by thread id): what
 * its wait is counted under, and since when (bpf_ktime_get_ns,
 * CLOCK_MONOTONIC; 0 while it runs). The entry stays while it runs, with
 * the user registers it last left with: a task that leaves again from the
 * same place (a server's threads wait at a few) takes the user stack it
 * had, instead of walking or copying it again. */
struct sampler_offcpu_start {
	struct sampler_key key;
	__u64 since;
	__u64 ip, sp, bp; /* user registers when it left; 0: none */
	__u64 ret;	  /* the word at bp + 8 then (a caller's return address) */
};

/* The switch hook runs at every context switch of the host, and a
 * watched task can leave a CPU hundreds of thousands of times a second
 * (two processes ping-ponging on a pipe): taking its stacks every time
 * would make the host's load, not the window's budget, decide what the
 * window costs. So each CPU takes at most offcpu_takes_max stacks in a
 * slot of SAMPLER_OFFCPU_SLOT_NS (set from the budget by user space);
 * past it, a wait is still timed, under the stacks its task last left
 * with (the same process's) or under none, and counted as throttled. */
#define SAMPLER_OFFCPU_SLOT_NS 100000000ull

/* Calls: a window can split its samples by the call they fell in, a
 * user function's (uprobe and uretprobe) or a system call's (the
 * raw_syscalls tracepoints). Each call of a watched thread is numbered at
 * entry (call_tasks, by thread id: the call it is in); samples and waits
 * in it carry the number in their key, and mark it sampled; at its
 * return its duration goes into the window's histogram of calls and, if
 * it was sampled, into call_times by number, so user space can say which
 * samples were inside slow calls. Nested entries (recursion) belong to
 * the outermost call. */
enum sampler_calls_kind {
	SAMPLER_CALLS_NONE = 0,
	SAMPLER_CALLS_FUNC = 1,	   /* a user function: the call_enter/call_return probes */
	SAMPLER_CALLS_SYSCALL = 2, /* system calls: call_sys_enter/call_sys_exit */
};

#define SAMPLER_CALL_TASKS 16384     /* threads in a call at once */
#define SAMPLER_CALL_TIMES 65536     /* sampled calls a window keeps the duration of */
#define SAMPLER_CALL_SYSCALL_WORDS 8 /* system calls 0..511 in a bitmap */

struct sampler_call {
	__u64 id;      /* the call's number in the window; 0: in none */
	__u64 start;   /* bpf_ktime_get_ns at its entry */
	__u32 depth;   /* entries not yet returned (recursion) */
	__u32 sampled; /* a sample or a wait counted in it */
	/* A function's call: the uretprobe replaced its return address on
	 * the stack (at @ret_slot) with the kernel's trampoline; @ret is the
	 * one it replaced, so user space can unwind the copies through it.
	 * 0: none (system calls). */
	__u64 ret_slot, ret;
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
	__u32 walked;		  /* 1: a user stack the kernel walk walked: no leaf to recover */
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
	/* Python (see sampler_py_proc): samples of a registered interpreter */
	SAMPLER_STAT_PY_WALKED,	    /* ... whose thread's frames were walked */
	SAMPLER_STAT_PY_NO_THREAD,  /* ... of a thread without a Python thread state */
	SAMPLER_STAT_PY_NO_FRAME,   /* ... whose thread ran no Python code */
	SAMPLER_STAT_PY_TRUNCATED,  /* ... deeper than SAMPLER_PY_MAX_FRAMES */
	SAMPLER_STAT_PY_BAD_READ,   /* ... whose frame chain could not be read */
	SAMPLER_STAT_PY_CODES_LOST, /* py_codes ring full: a code object unnamed */
	/* Off-CPU (struct sampler_offcpu_start) */
	SAMPLER_STAT_OFFCPU_SWITCHES,	/* a watched task left a CPU: its stacks taken */
	SAMPLER_STAT_OFFCPU_TASKS_FULL, /* ... but offcpu_tasks was full: its time lost */
	SAMPLER_STAT_OFFCPU_LOST,	/* its time could not be counted (counts map) */
	SAMPLER_STAT_OFFCPU_SITES,	/* DWARF mode: blocking sites copied */
	SAMPLER_STAT_OFFCPU_THROTTLED,	/* ... over the CPU's bound: its last stacks reused */
	/* Calls (struct sampler_call) */
	SAMPLER_STAT_CALLS,	      /* calls entered by watched threads */
	SAMPLER_STAT_CALLS_UNTRACKED, /* ... not numbered: call_tasks was full */
	SAMPLER_STAT_CALL_TIMES_FULL, /* a sampled call's duration lost: call_times full */
	/* The kernel walk (struct sampler_unwind_row): walks kept, by how
	 * they ended (enum sampler_walk_end, in order), frames stepped by the
	 * frame pointer instead of a table, files asked for, and walks handed
	 * to a stack copy instead (not among those kept) */
	SAMPLER_STAT_WALK_ENTRY,
	SAMPLER_STAT_WALK_NO_TABLE,
	SAMPLER_STAT_WALK_NO_CFI,
	SAMPLER_STAT_WALK_NOT_MAPPED,
	SAMPLER_STAT_WALK_BAD_READ,
	SAMPLER_STAT_WALK_BAD_FRAME,
	SAMPLER_STAT_WALK_DEPTH,
	SAMPLER_STAT_WALK_VMA_UNKNOWN,
	SAMPLER_STAT_WALK_FP_FRAMES,
	SAMPLER_STAT_WALK_FILES_ASKED,
	SAMPLER_STAT_WALK_COPIED, /* walks handed to a stack copy (a table not built yet) */
	SAMPLER_STAT_NR,
};

/* Announcements to user space, so it snapshots a process's memory map
 * while the process is alive. */
enum sampler_event_kind {
	SAMPLER_EVENT_NEW_PROCESS = 1, /* first sample of this thread group */
	SAMPLER_EVENT_EXEC = 2,	       /* a sampled process exec'd a new image */
	SAMPLER_EVENT_UNWIND_FILE = 3, /* struct sampler_unwind_want */
};

struct sampler_event {
	__u32 kind;
	__u32 pid;
	__u32 life; /* as sampler_key.life */
	__u32 pad;
};

/* A process the window met (the seen_pids map, by pid): the life its pid
 * is in, and whether that life was announced. The exec and exit hooks
 * move it to the next life, so user space can tell, before and after it
 * reads /proc/PID, that what it read is the life it was asked about. */
struct sampler_seen {
	__u32 life;
	__u32 announced;
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
	__u32 life; /* as sampler_key.life */
	__u32 pad;
	__u64 py_stack; /* id in the stacks map of its Python frames, 0 if none */
	/* Off-CPU (struct sampler_offcpu_start): not a sample but the stack
	 * of a blocking site, named @site in the counts keys that wait there
	 * (their user_stack); 0 for a sample. */
	__u64 site;
	__u64 call;		       /* as sampler_key.call */
	__u64 call_ret_slot, call_ret; /* as struct sampler_call's; 0: none */
};

/* DWARF mode off the CPU: a task leaving the CPU is not copied each time
 * (a busy service switches tens of thousands of times a second): its
 * blocking site is named by a hash of its process, its ip and sp, and
 * the words in the top SAMPLER_SITE_BYTES of its stack that could be
 * return addresses (sampler.bpf.c), and the stack is copied for user
 * space to unwind the first time a site is met in a window. Two waits at
 * the same ip and stack depth with the same return addresses near the
 * top of the stack are the same wait: a different caller further down
 * would have to leave the same innermost return addresses at the same
 * depth. Site ids have SAMPLER_SITE_BIT set. */
#define SAMPLER_SITE_BYTES 512
#define SAMPLER_SITE_BIT (1ull << 63)

/* The per-CPU buffer a copy is built in: larger than the ring's record so
 * the verifier can prove every chunk fits. */
struct sampler_copy_buf {
	struct sampler_copy hdr;
	__u8 stack[SAMPLER_COPY_MAX + SAMPLER_COPY_CHUNK];
	__u64 loop_addr, loop_got, loop_want; /* the copy loop's state */
};

/* The kernel walk: user stacks walked in the program itself, frame by
 * frame, with tables user space derives from each mapped file's call
 * frame information (.eh_frame): no frame pointers needed, no copy of the
 * stack, and no depth bound but the frames a stack holds
 * (SAMPLER_WALK_MAX_DEPTH). At each pc the program finds its mapping
 * (bpf_find_vma), the file's table by the file's device and inode (the
 * unwind_files map), and in it, by the pc's offset in the file, the row
 * that says where the caller's frame is. Keyed by file offset, a table
 * needs no load bias, so segments packed below a page (lld) are no
 * matter. A file without a table yet is asked for on the events ring
 * (struct sampler_unwind_want), and its frames are walked by the frame
 * pointer meanwhile; so is code without CFI (JIT code). Every read is
 * bpf_probe_read_user: a stack or table that makes no sense ends the
 * walk, with its reason counted (enum sampler_walk_end). */
#define SAMPLER_WALK_MAX_DEPTH SAMPLER_MAX_DEPTH

/* bpf_find_vma answers once per interrupt (it unlocks the memory map
 * from an irq_work, which one call holds), so a walk remembers each
 * process's last SAMPLER_WALK_VMAS mappings, each for SAMPLER_WALK_VMA_NS
 * (a library unmapped and another mapped in its place is then seen
 * within that), and a frame in a mapping not among them is walked by its
 * frame pointer (SAMPLER_WALK_VMA_UNKNOWN) after the sample's one look. */
#define SAMPLER_WALK_VMAS 8
#define SAMPLER_WALK_VMA_NS 2000000000ull

enum sampler_unwind_kind {
	SAMPLER_UNWIND_GAP = 0,	     /* no CFI here: the frame pointer, if it leads on */
	SAMPLER_UNWIND_CFA_SP,	     /* cfa = sp + cfa */
	SAMPLER_UNWIND_CFA_BP,	     /* cfa = bp + cfa */
	SAMPLER_UNWIND_CFA_BP_DEREF, /* cfa = *(bp + cfa) (a stack realigned) */
	SAMPLER_UNWIND_PLT,	     /* cfa = sp + 8, + 8 more when (pc & 15) >= cfa */
	SAMPLER_UNWIND_SIGNAL,	     /* a signal frame: the registers its ucontext saved */
	SAMPLER_UNWIND_ENTRY,	     /* no caller: a thread's or the process's entry */
	SAMPLER_UNWIND_INVALID,	     /* a rule the walk cannot run: the frame pointer */
	SAMPLER_UNWIND_KINDS,
};
#define SAMPLER_UNWIND_KIND_MASK 0x0f
#define SAMPLER_UNWIND_RBP_SAVED 0x10 /* the caller's rbp is at cfa + 8 * rbp */
#define SAMPLER_UNWIND_RBP_LOST 0x20  /* ... is not known (else: unchanged) */
#define SAMPLER_UNWIND_FOLD_POP 0x40  /* the fold (below) moves the CFA 8 nearer, not further */
#define SAMPLER_UNWIND_WIDE 0x80 /* @cfa indexes the far offsets, no fold: a frame past 16 KiB */

/* One row of a file's table: from file offset @off to the next row's,
 * this is how a frame finds its caller. On x86-64 the return address is
 * always at cfa - 8 (a row where it is not is SAMPLER_UNWIND_INVALID).
 *
 * @cfa, for the CFA_* kinds: bits 15-4 the offset added in words (signed),
 * bits 3-0 a fold: from that many bytes into the row on (0: none), the
 * offset is one word more (a push), or less with SAMPLER_UNWIND_FOLD_POP
 * (a pop). Prologues and epilogues push and pop a register every byte or
 * two, each a row of the CFI: folded, a table has a third fewer rows
 * (rustc's librustc_driver: 1.15 million, 770,000 folded). With
 * SAMPLER_UNWIND_WIDE, @cfa (unsigned) is the index of the offset in
 * bytes among the table's far offsets, which follow its rows in the
 * array, each in a row's @off (signed), and there is no fold. For
 * SAMPLER_UNWIND_PLT, @cfa is the bound of the pc's low four bits. */
struct sampler_unwind_row {
	__u32 off;
	__u8 kind; /* enum sampler_unwind_kind, with SAMPLER_UNWIND_RBP_* and _FOLD_POP bits */
	__s8 rbp;  /* SAMPLER_UNWIND_RBP_SAVED: in words from the cfa */
	__s16 cfa;
};
#define SAMPLER_UNWIND_CFA(words, fold) ((__s16)(((words) << 4) | ((fold)&15)))
#define SAMPLER_UNWIND_CFA_WORDS(cfa) ((cfa) >> 4)
#define SAMPLER_UNWIND_CFA_FOLD(cfa) ((cfa)&15)

/* A file, as the kernel names it: its super block's device (the kernel's
 * dev_t: major << 20 | minor) and its inode number. */
struct sampler_unwind_file_key {
	__u64 dev;
	__u64 ino;
};

/* Where its table is in the unwind_rows array: @count rows from @first,
 * then its far offsets; @count 0: it has none (no usable CFI, or it did
 * not fit): its frames are walked by the frame pointer, and it is not
 * asked for again. */
struct sampler_unwind_file {
	__u32 first;
	__u32 count;
};

/* A file met without a table: sent once (unwind_asked) for user space to
 * build one, which it opens through the process's map_files entry for
 * [start, end) and checks to be @dev and @ino. */
struct sampler_unwind_want {
	__u32 kind; /* SAMPLER_EVENT_UNWIND_FILE */
	__u32 pid;
	__u64 start, end;
	struct sampler_unwind_file_key file;
};

/* The maps of the kernel walk, created by user space (one set serves
 * every sampler of a process: unwind_tables.h) and sized here. */
#define SAMPLER_UNWIND_FILES 8192 /* files with a table (unwind_files) */
#define SAMPLER_UNWIND_ASKED 1024 /* files asked for, not answered yet (unwind_asked) */
#define SAMPLER_WALK_PIDS 16384	  /* processes whose mappings are remembered (walk_vmas) */

/* The mappings a process's walks met (SAMPLER_WALK_VMAS of them, in the
 * walk_vmas map by pid): bpf_find_vma answers once per interrupt, so the
 * other frames of a sample find their mappings here. The exec and exit
 * hooks drop a process's entry. */
struct sampler_walk_vma {
	__u64 start, end, off; /* [start, end) maps the file from off */
	struct sampler_unwind_file_key file;
	__u64 seen; /* bpf_ktime_get_ns when found */
};

struct sampler_walk_vmas {
	__u32 next; /* the slot the next one takes */
	__u32 pad;
	struct sampler_walk_vma e[SAMPLER_WALK_VMAS];
};

/* Why a kernel walk ended, counted per sample (SAMPLER_STAT_WALK_*). */
enum sampler_walk_end {
	SAMPLER_WALK_ENTRY = 0,	  /* reached an entry: complete */
	SAMPLER_WALK_NO_TABLE,	  /* a file without a table (yet), whose frame pointer ended */
	SAMPLER_WALK_NO_CFI,	  /* code without CFI, whose frame pointer ended */
	SAMPLER_WALK_NOT_MAPPED,  /* a pc outside any file mapping */
	SAMPLER_WALK_BAD_READ,	  /* a stack word could not be read */
	SAMPLER_WALK_BAD_FRAME,	  /* the stack pointer did not move up, or a pc made no sense */
	SAMPLER_WALK_DEPTH,	  /* SAMPLER_WALK_MAX_DEPTH frames */
	SAMPLER_WALK_VMA_UNKNOWN, /* a pc in a mapping not yet known (see SAMPLER_WALK_VMAS) */
	SAMPLER_WALK_NR,
};

/* Python: the interpreter's own frames, walked at the sample.
 *
 * CPython 3.11+ runs a Python call to a Python function without a C call:
 * thirty nested Python calls are one native _PyEval_EvalFrameDefault
 * frame. Its frames are _PyInterpreterFrame records chained from the
 * thread's state, reused as soon as a call returns, so the program walks
 * them when it samples: user space registers each process whose
 * interpreter it knows (struct sampler_py_proc, in the py_procs map), the
 * program finds the sampled thread's PyThreadState in the interpreter's
 * thread list (by the thread's id as its own pid namespace sees it, which
 * is what the interpreter recorded), and stores the chain, leaf first, as
 * a stack of the stacks map: two words per frame (struct
 * sampler_py_frame). The first sample of a code object in a window sends
 * what names it (struct sampler_py_code) on the py_codes ring, read while
 * the code object surely lives. Every read is bpf_probe_read_user: a
 * corrupt chain ends the walk (counted), never the program. */
#define SAMPLER_PY_MAX_FRAMES (SAMPLER_MAX_DEPTH / 2)
#define SAMPLER_PY_MAX_THREADS 64    /* thread states searched for a thread */
#define SAMPLER_PY_FRAME_READ 72     /* bytes of a frame read: its fields used are before */
#define SAMPLER_PY_NONE 0xffff	     /* an offset the version does not have */
#define SAMPLER_PY_OWNED_BY_CSTACK 3 /* 3.12+: an entry frame of a C call, skipped */

/* Where the program finds things in one process: addresses as the process
 * sees them, offsets in bytes into the interpreter's structures (they
 * change with every minor version: trapd/symbolize/pyruntime.c). */
struct sampler_py_proc {
	__u64 runtime;	 /* &_PyRuntime */
	__u64 pidns_dev; /* its pid namespace (stat of /proc/PID/ns/pid) */
	__u64 pidns_ino;
	__u32 window;	     /* the arming it was registered for (sampler's window_seq) */
	__u16 interp_head;   /* _PyRuntime.interpreters.head */
	__u16 threads_head;  /* PyInterpreterState.threads.head */
	__u16 ts_next;	     /* PyThreadState.next */
	__u16 ts_native_tid; /* PyThreadState.native_thread_id */
	__u16 ts_frame;	     /* PyThreadState.cframe (3.11, 3.12) or .current_frame */
	__u16 cframe_frame;  /* _PyCFrame.current_frame; SAMPLER_PY_NONE: 3.13+ */
	__u16 fr_code;	     /* _PyInterpreterFrame.f_code / f_executable */
	__u16 fr_previous;
	__u16 fr_instr; /* .prev_instr / .instr_ptr */
	__u16 fr_entry; /* .is_entry (3.11); SAMPLER_PY_NONE: see fr_owner */
	__u16 fr_owner; /* .owner */
	__u16 co_firstlineno;
	__u16 co_filename; /* co_name, co_qualname, co_linetable follow, 8 apart */
	__u16 co_qualname;
	__u16 str_state;	/* PyASCIIObject.state */
	__u16 str_ascii_data;	/* where a compact ASCII string's characters are */
	__u16 str_compact_data; /* ... a compact non-ASCII string's */
	__u16 bytes_data;	/* PyBytesObject.ob_sval (ob_size is at 16) */
	__u16 pad[4];
};

/* One Python frame in a stack: the code object and, in @info, the
 * instruction's byte offset from the code object's start (low 32 bits;
 * ~0u when unknown), a fingerprint of the code object (bits 32-62: its
 * first line and qualified name's address, so an address reused by
 * another code object is not taken for the first) and, in bit 63, that
 * the frame is the first of a C call of the interpreter (its native
 * _PyEval_EvalFrameDefault frame starts there). */
struct sampler_py_frame {
	__u64 code;
	__u64 info;
};
#define SAMPLER_PY_ENTRY (1ull << 63)
#define SAMPLER_PY_INSTR_UNKNOWN 0xffffffffu

/* The key of the py_seen map: a code object announced in a window. */
struct sampler_py_seen_key {
	__u64 code;
	__u32 pid;
	__u32 window;
	__u64 info; /* its fingerprint */
};

#define SAMPLER_PY_NAME_MAX 256	  /* bytes of a name or file name sent */
#define SAMPLER_PY_LINES_MAX 4096 /* bytes of a line table sent */

/* One Python string as read: its object's type and header, and up to
 * SAMPLER_PY_NAME_MAX bytes of its characters (kind bytes each). */
struct sampler_py_str {
	__u64 type;   /* ob_type */
	__u64 length; /* characters */
	__u32 state;  /* kind, compact, ascii bits */
	__u32 copied; /* bytes in @data */
	__u8 data[SAMPLER_PY_NAME_MAX];
};

/* What names one code object, sent at its first sample in a window. */
struct sampler_py_code {
	__u32 pid;
	__u32 window;
	__u64 code; /* its address */
	__u64 info; /* as in its frames, without the offset: the fingerprint */
	__u64 type; /* its ob_type */
	__s32 firstlineno;
	__u32 lines_copied; /* bytes in @lines */
	__u64 lines_type;   /* the line table's ob_type (bytes) */
	__u64 lines_size;   /* ... and its ob_size */
	struct sampler_py_str qualname;
	struct sampler_py_str filename;
	__u8 lines[SAMPLER_PY_LINES_MAX];
};

#ifndef __bpf__
_Static_assert(sizeof(struct sampler_copy) == 120, "sampler_copy layout");
_Static_assert(sizeof(struct sampler_key) == 72, "sampler_key layout");
_Static_assert(sizeof(struct sampler_offcpu_start) == 112, "sampler_offcpu_start layout");
_Static_assert(sizeof(struct sampler_call) == 40, "sampler_call layout");
_Static_assert(sizeof(struct sampler_py_proc) == 72, "sampler_py_proc layout");
_Static_assert(sizeof(struct sampler_py_frame) == 16, "sampler_py_frame layout");
_Static_assert(sizeof(struct sampler_py_code) == 56 + 2 * 280 + SAMPLER_PY_LINES_MAX,
	       "sampler_py_code layout");
_Static_assert(sizeof(struct sampler_stack) == 8 + 24 + 8 * SAMPLER_MAX_DEPTH,
	       "sampler_stack layout");
_Static_assert(sizeof(struct sampler_event) == 16, "sampler_event layout");
_Static_assert(sizeof(struct sampler_seen) == 8, "sampler_seen layout");
_Static_assert(sizeof(struct sampler_unwind_row) == 8, "sampler_unwind_row layout");
_Static_assert(sizeof(struct sampler_unwind_want) == 40, "sampler_unwind_want layout");
_Static_assert(SAMPLER_STAT_WALK_ENTRY + SAMPLER_WALK_NR == SAMPLER_STAT_WALK_FP_FRAMES,
	       "walk ends and their counters");
#endif

#endif
