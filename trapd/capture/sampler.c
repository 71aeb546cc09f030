// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sampler.c - load, size, arm and read the BPF stack sampler. */
#include "trapd/capture/sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampler.skel.h"
#include "trapd/capture/unwind_tables.h"
#include "trapd/profile/profile_view.h"
#include "trapd/util/clock.h"
#include "trapd/util/cpus.h"
#include "trapd/util/kernel_btf.h"
#include "trapd/util/log.h"
#include "trapd/util/tracefs.h"
#include "trapd/util/uprobe_pair.h"

#define MAX_CPUS 4096
/* Bounds for the aggregation maps: at least this many entries so short
 * windows still have room, at most this many so a long window at a high
 * frequency cannot pin unbounded kernel memory. The maps are not
 * preallocated, so only what is used is allocated: a stack entry takes a
 * 2 KiB unit of the BPF allocator (1,104 bytes rounded up to its size
 * class), a count entry 128 bytes, so at most 128 + 32 MiB. A window
 * that sees more than that does not hit the bound: user space moves the
 * entries out (sampler__move) once a map is past 1/SPILL_AT full. */
#define MIN_ENTRIES 1024u
#define MAX_COUNT_ENTRIES (256u * 1024)
#define MAX_STACK_ENTRIES (64u * 1024)
#define SPILL_AT 4
#define MOVE_BATCH 256u

struct sampler {
	struct sampler_bpf *skel;
	struct bpf_link **links; /* one per sampled CPU */
	int *pfds;		 /* perf event fds, one per sampled CPU */
	int ncpus;		 /* CPUs sampled */
	int npossible;		 /* for per-CPU map values */
	uint64_t freq_hz;	 /* the perf events' frequency (sampler__retarget changes it) */
	uint64_t dither_state;	 /* sampler__dither's generator; 0 until its first draw */
	double *dither_u;	 /* per CPU: the last draw, which the next call mirrors */
	bool dither_mirror;	 /* the next call uses -dither_u */
	uint32_t record;	 /* SAMPLER_RECORD_* of the next window */
	uint32_t copy_max;	 /* stack copy bytes the copies ring was sized for; 0: none */
	struct ring_buffer *rb;
	sampler_event_fn event_fn;
	void *event_ctx;
	sampler_py_code_fn py_code_fn;
	void *py_code_ctx;
	struct sampler_calls calls;	/* what the next window numbers (binary not kept) */
	struct bpf_link *call_links[2]; /* the calls' entry and return probes, while armed */
	uint64_t calls_stopped_ns;	/* when they were detached */
	uint64_t offcpu_takes_hz;	/* sampler__bound_offcpu */
	uint64_t disarmed_ns;		/* sampler__disarm: when; 0 while armed */
	uint64_t stacks_moved;		/* entries sampler__move took out this window */
	uint64_t counts_moved;
	uint64_t spares_moved;
	struct unwind_tables *tables; /* the kernel walk's; NULL: no kernel walk */
	uint32_t walk_rows;
};

static const char *const stat_names[SAMPLER_STAT_NR] = {
	[SAMPLER_STAT_SAMPLES] = "samples",
	[SAMPLER_STAT_IDLE] = "idle",
	[SAMPLER_STAT_OVER_CAP] = "over_cap",
	[SAMPLER_STAT_USER_STACK_FAULT] = "user_stack_fault",
	[SAMPLER_STAT_KERNEL_STACK_FAULT] = "kernel_stack_fault",
	[SAMPLER_STAT_USER_TRUNCATED] = "user_stack_truncated",
	[SAMPLER_STAT_KERNEL_TRUNCATED] = "kernel_stack_truncated",
	[SAMPLER_STAT_STACKS_FULL] = "stacks_full",
	[SAMPLER_STAT_STACK_COLLISION] = "stack_hash_collision",
	[SAMPLER_STAT_COUNTS_FULL] = "counts_map_full",
	[SAMPLER_STAT_PIDS_FULL] = "pids_map_full",
	[SAMPLER_STAT_EVENTS_LOST] = "events_lost",
	[SAMPLER_STAT_FILTER_FULL] = "filter_full",
	[SAMPLER_STAT_COPIES] = "stack_copies",
	[SAMPLER_STAT_COPIES_LOST] = "stack_copies_lost",
	[SAMPLER_STAT_COPY_NO_REGS] = "stack_copy_no_regs",
	[SAMPLER_STAT_STACKS_ALLOC_FAILED] = "stacks_alloc_failed",
	[SAMPLER_STAT_COUNTS_ALLOC_FAILED] = "counts_alloc_failed",
	[SAMPLER_STAT_PY_WALKED] = "python_walked",
	[SAMPLER_STAT_PY_NO_THREAD] = "python_no_thread",
	[SAMPLER_STAT_PY_NO_FRAME] = "python_no_frame",
	[SAMPLER_STAT_PY_TRUNCATED] = "python_truncated",
	[SAMPLER_STAT_PY_BAD_READ] = "python_bad_read",
	[SAMPLER_STAT_PY_CODES_LOST] = "python_codes_lost",
	[SAMPLER_STAT_OFFCPU_SWITCHES] = "offcpu_switches",
	[SAMPLER_STAT_OFFCPU_TASKS_FULL] = "offcpu_tasks_full",
	[SAMPLER_STAT_OFFCPU_LOST] = "offcpu_lost",
	[SAMPLER_STAT_OFFCPU_SITES] = "offcpu_sites",
	[SAMPLER_STAT_OFFCPU_THROTTLED] = "offcpu_throttled",
	[SAMPLER_STAT_CALLS] = "calls",
	[SAMPLER_STAT_CALLS_UNTRACKED] = "calls_untracked",
	[SAMPLER_STAT_CALL_TIMES_FULL] = "call_times_full",
	[SAMPLER_STAT_WALK_ENTRY] = "walk_entry",
	[SAMPLER_STAT_WALK_NO_TABLE] = "walk_no_table",
	[SAMPLER_STAT_WALK_NO_CFI] = "walk_no_cfi",
	[SAMPLER_STAT_WALK_NOT_MAPPED] = "walk_not_mapped",
	[SAMPLER_STAT_WALK_BAD_READ] = "walk_bad_read",
	[SAMPLER_STAT_WALK_BAD_FRAME] = "walk_bad_frame",
	[SAMPLER_STAT_WALK_DEPTH] = "walk_depth",
	[SAMPLER_STAT_WALK_VMA_UNKNOWN] = "walk_vma_unknown",
	[SAMPLER_STAT_WALK_FP_FRAMES] = "walk_fp_frames",
	[SAMPLER_STAT_WALK_FILES_ASKED] = "walk_files_asked",
	[SAMPLER_STAT_WALK_COPIED] = "walk_copied",
};

uint64_t sampler__samples_lost(const struct sampler_stats *st)
{
	static const int lost[] = {
		SAMPLER_STAT_OVER_CAP,
		SAMPLER_STAT_USER_STACK_FAULT,
		SAMPLER_STAT_KERNEL_STACK_FAULT,
		SAMPLER_STAT_STACKS_FULL,
		SAMPLER_STAT_STACK_COLLISION,
		SAMPLER_STAT_COUNTS_FULL,
		SAMPLER_STAT_STACKS_ALLOC_FAILED,
		SAMPLER_STAT_COUNTS_ALLOC_FAILED,
	};
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		n += st->v[lost[i]];
	return n;
}

const char *sampler__offcpu_state_name(uint32_t state)
{
	switch (state) {
	case SAMPLER_OFFCPU_SLEEPING:
		return PROFILE_STATE_SLEEPING;
	case SAMPLER_OFFCPU_UNINTERRUPTIBLE:
		return PROFILE_STATE_UNINTERRUPTIBLE;
	case SAMPLER_OFFCPU_RUNNABLE:
		return PROFILE_STATE_RUNNABLE;
	default:
		return PROFILE_STATE_OTHER;
	}
}

const char *sampler__stat_name(int i)
{
	return i >= 0 && i < SAMPLER_STAT_NR ? stat_names[i] : "?";
}

static uint32_t clamp_u32(uint64_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

static int open_cpu_clock(int cpu, uint64_t freq_hz)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		/* cpu-clock counts nanoseconds: a fixed period gives the exact
		 * frequency and an exact weight per sample. */
		.sample_period = 1000000000ull / freq_hz,
		.disabled = 1,
	};

	return (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Bounds of the copies ring: it absorbs what user space has not unwound
 * yet, about 125 ms of copies (a copy is on average half the size asked
 * for: the stack's top is often nearer). Its pages count in trapd's
 * memory; a full ring costs completeness, not samples (that sample's
 * stack is walked by frame pointers, counted). */
#define MIN_COPIES_RING (1u << 20)
#define MAX_COPIES_RING (64u << 20)

/* copies_ring_size - a power of two holding ~125 ms of copies of @bytes
 * at @freq_hz on @ncpus CPUs, within the bounds above. */
static uint32_t copies_ring_size(uint64_t freq_hz, uint32_t bytes, int ncpus)
{
	uint64_t want = freq_hz * (uint64_t)ncpus * (bytes / 2 + sizeof(struct sampler_copy)) / 8;
	uint32_t size = MIN_COPIES_RING;

	while (size < want && size < MAX_COPIES_RING)
		size *= 2;
	return size;
}

static int size_copies(struct sampler *s, const struct sampler_opts *o, int ncpus)
{
	int err;

	if (!o->stack_copy_bytes)
		return 0; /* the placeholders: one page, one buffer */
	s->copy_max = o->stack_copy_bytes;
	err = bpf_map__set_max_entries(s->skel->maps.copies,
				       copies_ring_size(o->freq_hz, s->copy_max, ncpus));
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.copy_bufs, (__u32)ncpus);
	return err;
}

static int size_maps(struct sampler *s, const struct sampler_opts *o, int ncpus)
{
	uint64_t expected = o->window_ns / 1000000ull * o->freq_hz / 1000 * (uint64_t)ncpus;
	int err;

	if (o->stack_copy_bytes > SAMPLER_COPY_MAX)
		return -EINVAL;
	err = size_copies(s, o, ncpus);
	if (err)
		return err;

	err = bpf_map__set_max_entries(s->skel->maps.counts,
				       clamp_u32(expected, MIN_ENTRIES, MAX_COUNT_ENTRIES));
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.stacks,
					       clamp_u32(expected * 2, MIN_ENTRIES,
							 MAX_STACK_ENTRIES));
	return err;
}

static int attach_cpus(struct sampler *s, uint64_t freq_hz, char *err, size_t errlen)
{
	int cpus[MAX_CPUS], n, i;

	n = cpus_online(cpus, MAX_CPUS);
	if (n <= 0) {
		snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(n ? -n : EINVAL));
		return n ? n : -EINVAL;
	}
	s->pfds = calloc(n, sizeof(*s->pfds));
	s->links = calloc(n, sizeof(*s->links));
	s->dither_u = calloc(n, sizeof(*s->dither_u));
	if (!s->pfds || !s->links || !s->dither_u)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int fd = open_cpu_clock(cpus[i], freq_hz), e;

		if (fd < 0) {
			e = -errno;
			if (e == -ENODEV) /* went offline meanwhile */
				continue;
			snprintf(err, errlen, "perf_event_open(cpu-clock, cpu %d): %s%s", cpus[i],
				 strerror(-e),
				 e == -EACCES || e == -EPERM ? " (run as root, or lower "
							       "kernel.perf_event_paranoid)"
							     : "");
			return e;
		}
		s->pfds[s->ncpus] = fd;
		s->links[s->ncpus] = bpf_program__attach_perf_event(s->skel->progs.sample, fd);
		if (!s->links[s->ncpus]) {
			e = -errno;
			close(fd);
			snprintf(err, errlen, "attaching the sampler to cpu %d: %s", cpus[i],
				 strerror(-e));
			return e;
		}
		/* libbpf enables the event on attach; it stays disarmed (the
		 * program returns at once) until sampler__start, and is switched
		 * off here so an idle sampler costs no interrupts. */
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		s->ncpus++;
	}
	return 0;
}

static int on_ring_event(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct sampler_event *ev = data;

	if (size >= sizeof(struct sampler_unwind_want) && ev->kind == SAMPLER_EVENT_UNWIND_FILE) {
		if (s->tables)
			unwind_tables__want(s->tables, data);
		return 0;
	}
	if (size >= sizeof(struct sampler_event) && s->event_fn)
		s->event_fn(data, s->event_ctx);
	return 0;
}

static int on_py_code(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;

	if (s->py_code_fn)
		s->py_code_fn(data, size, s->py_code_ctx);
	return 0;
}

void sampler__on_py_code(struct sampler *s, sampler_py_code_fn fn, void *ctx)
{
	s->py_code_fn = fn;
	s->py_code_ctx = ctx;
}

int sampler__py_procs_fd(const struct sampler *s)
{
	return bpf_map__fd(s->skel->maps.py_procs);
}

/* setup_switch_hook - the off-CPU hook reads sched_switch's record: find
 * its fields, or leave it unloaded (no window can record off-CPU time);
 * unloaded too when not @wanted. */
static void setup_switch_hook(struct sampler *s, const char *dir, bool wanted)
{
	int state = -ENOENT, next = -ENOENT, state_size = 0, next_size = 0;

	if (!wanted) {
		bpf_program__set_autoload(s->skel->progs.on_switch, false);
		return;
	}
	if (dir) {
		state = tracefs_field_offset(dir, "sched/sched_switch", "prev_state", &state_size);
		next = tracefs_field_offset(dir, "sched/sched_switch", "next_pid", &next_size);
	}
	if (state < 0 || next < 0 || state_size != 8 || next_size != 4) {
		log_debug("no off-CPU time: tracefs %s",
			  dir ? "has no usable sched_switch" : "is not mounted");
		bpf_program__set_autoload(s->skel->progs.on_switch, false);
		return;
	}
	s->skel->rodata->switch_prev_state_offset = (__u32)state;
	s->skel->rodata->switch_next_pid_offset = (__u32)next;
}

/* setup_call_hooks - the system call hooks of calls read sys_enter's
 * record: find its number, or leave them unloaded (no window can split
 * by system calls); unloaded too, with the function call hooks, when not
 * @wanted. */
static void setup_call_hooks(struct sampler *s, const char *dir, bool wanted)
{
	int id = -ENOENT, size = 0;

	if (!wanted) {
		bpf_program__set_autoload(s->skel->progs.call_enter, false);
		bpf_program__set_autoload(s->skel->progs.call_return, false);
	}
	if (dir && wanted)
		id = tracefs_field_offset(dir, "raw_syscalls/sys_enter", "id", &size);
	if (id <= 0 || size != 8) {
		if (wanted)
			log_debug("no samples by system call: tracefs %s",
				  dir ? "has no usable raw_syscalls/sys_enter" : "is not mounted");
		bpf_program__set_autoload(s->skel->progs.call_sys_enter, false);
		bpf_program__set_autoload(s->skel->progs.call_sys_exit, false);
		return;
	}
	s->skel->rodata->sys_enter_id_offset = (__u32)id;
}

/* setup_exit_hook - where sched_process_exit's record says the whole
 * process died (group_dead, Linux 6.16+); without it the hook takes the
 * leader's exit for the process's. */
static void setup_exit_hook(struct sampler *s, const char *dir)
{
	int size = 0,
	    off = tracefs_field_offset(dir, "sched/sched_process_exit", "group_dead", &size);

	if (off > 0 && size == 1)
		s->skel->rodata->exit_group_dead_offset = (__u32)off;
}

/* setup_fork_hook - the fork and exec hooks are classic tracepoints; find
 * where the fork record keeps the child's pid. Without tracefs they stay
 * unloaded: sampling works, children are not followed. */
static void setup_walk(struct sampler *s, const struct sampler_opts *o);

static void setup_hooks(struct sampler *s, const struct sampler_opts *o)
{
	bool want_fork = o->target == SAMPLER_TARGET_PIDS && o->follow_forks;
	const char *dir = tracefs_dir();
	int off = -ENOENT, size = 0;

	if (dir)
		off = tracefs_field_offset(dir, "sched/sched_process_fork", "child_pid", &size);
	if (want_fork && (off < 0 || size != 4)) {
		log_warn("cannot follow forks (tracefs %s): children of the target are not "
			 "sampled",
			 dir ? "has no sched_process_fork.child_pid" : "is not mounted");
		want_fork = false;
	}
	if (want_fork)
		s->skel->rodata->fork_child_pid_offset = (__u32)off;
	bpf_program__set_autoload(s->skel->progs.on_fork, want_fork);
	if (!dir) {
		log_warn("tracefs is not mounted: a process that execs during the window may "
			 "be symbolized from its old image, and one whose pid is reused from "
			 "the new process's");
		bpf_program__set_autoload(s->skel->progs.on_exec, false);
		bpf_program__set_autoload(s->skel->progs.on_exit, false);
	} else {
		setup_exit_hook(s, dir);
	}
	setup_switch_hook(s, dir, !o->one_window || (o->record & SAMPLER_RECORD_OFFCPU));
	setup_call_hooks(s, dir, !o->one_window || o->split_calls);
	/* Linux 5.15+ with BTF: the user stack pointer of a sample taken in
	 * the kernel, for leaf hints; without it only samples in user mode
	 * get them (the verifier drops the branch that would call it). */
	s->skel->rodata->have_task_pt_regs =
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) >
			0 &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_current_task_btf,
					NULL) > 0;
	s->skel->rodata->have_bpf_loop =
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL) > 0;
	if (!s->skel->rodata->have_task_pt_regs)
		log_debug("no bpf_task_pt_regs: leaf callers only for samples in user mode");
	if (o->walk_rows || o->walk_tables)
		setup_walk(s, o);
}

/* setup_walk - the kernel walk, if the kernel can run it: the tables
 * @o shares, or tables of the sampler's own; their maps are the
 * program's, and where the fields it reads are in this kernel. */
static void setup_walk(struct sampler *s, const struct sampler_opts *o)
{
	const struct unwind_tables_maps *m;
	const struct unwind_tables_layout *l;
	char err[256];

	if (!s->skel->rodata->have_bpf_loop || !s->skel->rodata->have_task_pt_regs ||
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_find_vma, NULL) <= 0) {
		log_info("the kernel cannot walk user stacks (it needs bpf_find_vma, bpf_loop and "
			 "bpf_task_pt_regs, Linux 5.17+): frame pointers instead");
		return;
	}
	s->tables = o->walk_tables ? unwind_tables__get(o->walk_tables)
				   : unwind_tables__new(o->walk_rows, "/proc", err, sizeof(err));
	if (!s->tables) {
		log_info("the kernel cannot walk user stacks (%s): frame pointers instead", err);
		return;
	}
	m = unwind_tables__maps(s->tables);
	if (bpf_map__reuse_fd(s->skel->maps.unwind_rows, m->rows) ||
	    bpf_map__reuse_fd(s->skel->maps.unwind_files, m->files) ||
	    bpf_map__reuse_fd(s->skel->maps.unwind_asked, m->asked) ||
	    bpf_map__reuse_fd(s->skel->maps.walk_vmas, m->vmas)) {
		log_info("the kernel walk's maps: %s; frame pointers instead", strerror(errno));
		unwind_tables__put(s->tables);
		s->tables = NULL;
		return;
	}
	l = unwind_tables__layout(s->tables);
	s->skel->rodata->vma_start_off = l->vma_start;
	s->skel->rodata->vma_end_off = l->vma_end;
	s->skel->rodata->vma_pgoff_off = l->vma_pgoff;
	s->skel->rodata->vma_file_off = l->vma_file;
	s->skel->rodata->file_inode_off = l->file_inode;
	s->skel->rodata->inode_ino_off = l->inode_ino;
	s->skel->rodata->inode_sb_off = l->inode_sb;
	s->skel->rodata->sb_dev_off = l->sb_dev;
	s->skel->rodata->have_walk = true;
}

/* attach_hook - attach @prog (the tracepoint @tp), if loaded, for good
 * into *@link; when it cannot be, say that trapd cannot @what, and
 * @then, and go on without it. */
static void attach_hook(struct bpf_program *prog, struct bpf_link **link, const char *what,
			const char *tp, const char *then)
{
	if (!bpf_program__autoload(prog))
		return;
	*link = bpf_program__attach(prog);
	if (!*link)
		log_warn("cannot %s (%s: %s); %s", what, tp, strerror(errno), then);
}

static int load(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	int e;

	s->skel = sampler_bpf__open();
	if (!s->skel) {
		e = -errno;
		snprintf(err, errlen, "opening the BPF sampler: %s", strerror(-e));
		return e;
	}
	e = size_maps(s, o, libbpf_num_possible_cpus());
	if (e) {
		snprintf(err, errlen, "sizing the sampler's maps: %s", strerror(-e));
		return e;
	}
	setup_hooks(s, o);
	e = sampler_bpf__load(s->skel);
	if (e) {
		snprintf(err, errlen,
			 "loading the BPF sampler: %s (needs root and a kernel with BPF "
			 "perf_event support; run with -vv for libbpf's log)",
			 strerror(-e));
		return e;
	}
	return 0;
}

static void stop_offcpu(struct sampler *s, uint64_t end);

static int set_target(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	__u32 zero = 0;
	int fd = o->cgroup_fd, e;

	s->skel->bss->filter_mode = o->target == SAMPLER_TARGET_PIDS	 ? SAMPLER_FILTER_PIDS
				    : o->target == SAMPLER_TARGET_CGROUP ? SAMPLER_FILTER_CGROUP
									 : SAMPLER_FILTER_ALL;
	s->skel->bss->follow_forks = o->follow_forks;
	s->skel->bss->max_samples = o->max_samples;
	if (o->stack_copy_bytes > s->copy_max) {
		snprintf(err, errlen,
			 "copying %u bytes of user stack: this sampler was loaded for at most %u",
			 o->stack_copy_bytes, s->copy_max);
		return -EINVAL;
	}
	s->skel->bss->copy_bytes = o->stack_copy_bytes;
	s->skel->bss->walk_tables = (o->walk_rows || o->walk_tables) && s->tables;
	s->skel->bss->skip_pid = o->skip_self ? (__u32)getpid() : 0;
	if ((o->record & SAMPLER_RECORD_OFFCPU) && !sampler__can_offcpu(s)) {
		snprintf(err, errlen,
			 "off-CPU time needs the sched_switch tracepoint in tracefs, which this "
			 "system does not offer (see -vv)");
		return -ENOTSUP;
	}
	s->record = o->record ? o->record : SAMPLER_RECORD_CPU;
	if (s->skel->bss->armed && s->skel->bss->offcpu && !(s->record & SAMPLER_RECORD_OFFCPU))
		stop_offcpu(s, (uint64_t)clock_mono_ns());
	if (o->target != SAMPLER_TARGET_CGROUP)
		return 0;
	e = bpf_map_update_elem(bpf_map__fd(s->skel->maps.cgroup_filter), &zero, &fd, BPF_ANY);
	if (e) {
		e = -errno;
		snprintf(err, errlen,
			 "setting the cgroup filter: %s (is it a cgroup v2 directory?)",
			 strerror(-e));
	}
	return e;
}

const char *sampler__walk_end_name(int end)
{
	static const char *const names[SAMPLER_WALK_NR] = {
		[SAMPLER_WALK_ENTRY] = "entry",	      [SAMPLER_WALK_NO_TABLE] = "no_table",
		[SAMPLER_WALK_NO_CFI] = "no_cfi",     [SAMPLER_WALK_NOT_MAPPED] = "not_mapped",
		[SAMPLER_WALK_BAD_READ] = "bad_read", [SAMPLER_WALK_BAD_FRAME] = "bad_frame",
		[SAMPLER_WALK_DEPTH] = "depth",	      [SAMPLER_WALK_VMA_UNKNOWN] = "vma_unknown",
	};

	return end >= 0 && end < SAMPLER_WALK_NR ? names[end] : "?";
}

bool sampler__can_walk(const struct sampler *s)
{
	return s->tables != NULL;
}

struct unwind_tables *sampler__unwind_tables(const struct sampler *s)
{
	return s->tables;
}

void sampler__walk_tables_stats(const struct sampler *s, struct unwind_tables_stats *out)
{
	if (s->tables)
		unwind_tables__get_stats(s->tables, out);
	else
		memset(out, 0, sizeof(*out));
}

int sampler__check_freq(uint64_t freq_hz, char *err, size_t errlen)
{
	if (freq_hz && freq_hz <= 1000000000ull)
		return 0;
	snprintf(err, errlen, "frequency out of range: %llu Hz", (unsigned long long)freq_hz);
	return -EINVAL;
}

struct sampler *sampler__open(const struct sampler_opts *o, char *err, size_t errlen)
{
	struct sampler *s;
	int e;

	if (sampler__check_freq(o->freq_hz, err, errlen)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->npossible = libbpf_num_possible_cpus();
	e = load(s, o, err, errlen);
	if (!e)
		e = set_target(s, o, err, errlen);
	if (!e) {
		attach_hook(s->skel->progs.on_fork, &s->skel->links.on_fork, "follow forks",
			    "sched_process_fork", "children of the target are not sampled");
		attach_hook(s->skel->progs.on_exec, &s->skel->links.on_exec, "see execs",
			    "sched_process_exec",
			    "a process that execs may be symbolized from its old image");
		attach_hook(s->skel->progs.on_exit, &s->skel->links.on_exit, "see exits",
			    "sched_process_exit",
			    "a process whose pid is reused in a window may be symbolized from "
			    "the new one");
	}
	if (!e) {
		s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_ring_event, s, NULL);
		if (!s->rb ||
		    ring_buffer__add(s->rb, bpf_map__fd(s->skel->maps.py_codes), on_py_code, s)) {
			e = -errno;
			snprintf(err, errlen, "creating the event ring buffer: %s", strerror(-e));
		}
	}
	if (!e)
		e = attach_cpus(s, o->freq_hz, err, errlen);
	s->freq_hz = o->freq_hz;
	if (e) {
		sampler__free(s);
		errno = -e;
		return NULL;
	}
	return s;
}

void sampler__free(struct sampler *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->ncpus; i++) {
		bpf_link__destroy(s->links[i]);
		close(s->pfds[i]);
	}
	free(s->links);
	free(s->pfds);
	free(s->dither_u);
	for (i = 0; i < 2; i++)
		bpf_link__destroy(s->call_links[i]);
	ring_buffer__free(s->rb);
	unwind_tables__put(s->tables);
	sampler_bpf__destroy(s->skel);
	free(s);
}

static void clear_map(int fd, size_t key_size)
{
	char key[128], next[128];

	/* Deleting the key just returned restarts the walk at the first key,
	 * which is what we want: the map empties. */
	while (key_size <= sizeof(key) && bpf_map_get_next_key(fd, NULL, next) == 0) {
		memcpy(key, next, key_size);
		if (bpf_map_delete_elem(fd, key))
			break;
	}
}

/* set_period - the perf events sample every 1e9/@freq_hz ns from now on. */
static int set_period(struct sampler *s, uint64_t freq_hz, char *err, size_t errlen)
{
	__u64 period = 1000000000ull / freq_hz;
	int i, e;

	for (i = 0; i < s->ncpus; i++) {
		if (ioctl(s->pfds[i], PERF_EVENT_IOC_PERIOD, &period)) {
			e = -errno;
			snprintf(err, errlen, "setting the sampling period to %llu ns: %s",
				 (unsigned long long)period, strerror(-e));
			return e;
		}
	}
	s->freq_hz = freq_hz;
	return 0;
}

/* next_dither_draw - a uniform draw in [0, 1) from xorshift64*, seeded
 * from the kernel's random bytes (the clock where they are not to be had):
 * the draws need to be unrelated to what is sampled, not secret. */
static double next_dither_draw(struct sampler *s)
{
	uint64_t x = s->dither_state;

	if (!x) {
		if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != (ssize_t)sizeof(x) || !x)
			x = (uint64_t)clock_mono_ns() | 1;
	}
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->dither_state = x;
	return (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

int sampler__dither(struct sampler *s)
{
	int i, err = 0;

	if (!(s->record & SAMPLER_RECORD_CPU))
		return 0;
	for (i = 0; i < s->ncpus; i++) {
		/* A rate drawn uniformly around the frequency keeps the mean
		 * rate the frequency (sampler.h says why it is raised). */
		double u = s->dither_mirror ? -s->dither_u[i]
					    : (2.0 * next_dither_draw(s) - 1.0) * SAMPLER_DITHER;
		double rate = (double)s->freq_hz * (1.0 + u) * (1.0 + 0.5 / SAMPLER_DITHER_PERIODS);
		__u64 period = (__u64)(1e9 / rate);

		s->dither_u[i] = u;
		if (ioctl(s->pfds[i], PERF_EVENT_IOC_PERIOD, &period) && !err)
			err = -errno;
	}
	s->dither_mirror = !s->dither_mirror;
	return err;
}

uint64_t sampler__dither_every_ns(const struct sampler *s)
{
	return SAMPLER_DITHER_PERIODS * (1000000000ull / s->freq_hz);
}

int sampler__retarget(struct sampler *s, const struct sampler_opts *o, char *err, size_t errlen)
{
	int e;

	if (sampler__check_freq(o->freq_hz, err, errlen))
		return -EINVAL;
	if (o->freq_hz != s->freq_hz) {
		e = set_period(s, o->freq_hz, err, errlen);
		if (e)
			return e;
	}
	/* A new set of thread groups starts empty; widening to every task
	 * leaves the set alone (it costs nothing and is not consulted). */
	if (o->target == SAMPLER_TARGET_PIDS)
		clear_map(bpf_map__fd(s->skel->maps.pid_filter), sizeof(__u32));
	if (o->follow_forks && !s->skel->links.on_fork)
		log_debug("retarget: the fork hook is not loaded; children are not followed");
	return set_target(s, o, err, errlen);
}

bool sampler__can_offcpu(const struct sampler *s)
{
	return bpf_program__autoload(s->skel->progs.on_switch);
}

/* stack_hash - what the program's hash_stack gives a stack without a leaf
 * hint, so a stack stored from here and from there is one entry. */
static __u64 stack_hash(const uint64_t *ips, uint32_t n)
{
	__u64 h = 0xcbf29ce484222325ull;
	uint32_t i;

	h *= 0x100000001b3ull; /* leaf.ret, 0 */
	h *= 0x100000001b3ull; /* leaf.ret_target, 0 */
	for (i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 0x100000001b3ull;
		h ^= h >> 32;
	}
	h ^= n;
	h &= ~SAMPLER_SITE_BIT;
	return h ? h : 1;
}

/* store_stack - @ips[0..n) into the stacks map; its id, 0 for none. */
static __u64 store_stack(struct sampler *s, const uint64_t *ips, uint32_t n)
{
	struct sampler_stack st = { 0 };
	__u64 id;

	if (!n)
		return 0;
	if (n > SAMPLER_MAX_DEPTH)
		n = SAMPLER_MAX_DEPTH;
	st.len = n;
	memcpy(st.ips, ips, n * sizeof(*ips));
	id = stack_hash(ips, n);
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.stacks), &id, &st, BPF_NOEXIST) &&
	    errno != EEXIST)
		return 0;
	return id;
}

int sampler__add_waiting(struct sampler *s, struct sampler_key *key, const uint64_t *kips,
			 uint32_t kn, const uint64_t *uips, uint32_t un, uint64_t since_mono_ns)
{
	struct sampler_offcpu_start st = { .since = since_mono_ns };

	key->kernel_stack = store_stack(s, kips, kn);
	key->user_stack = store_stack(s, uips, un);
	st.key = *key;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.offcpu_tasks), &key->tid, &st,
				BPF_NOEXIST))
		return -errno;
	return 0;
}

void sampler__forget_waiting(struct sampler *s, uint32_t tid, uint64_t since_mono_ns)
{
	int fd = bpf_map__fd(s->skel->maps.offcpu_tasks);
	struct sampler_offcpu_start st;

	if (!bpf_map_lookup_elem(fd, &tid, &st) && st.since == since_mono_ns)
		bpf_map_delete_elem(fd, &tid);
}

int sampler__add_pid(struct sampler *s, int pid)
{
	__u32 key = (__u32)pid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.pid_filter), &key, &one, BPF_ANY))
		return -errno;
	return 0;
}

static void clear_call_hist(struct sampler *s)
{
	struct lat_row *rows = calloc((size_t)s->npossible, sizeof(*rows));
	__u32 zero = 0;

	if (rows)
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.call_hist), &zero, rows, BPF_ANY);
	free(rows);
}

static void clear_window(struct sampler *s)
{
	size_t nvals = (size_t)s->npossible;
	__u64 *zeros = calloc(nvals, sizeof(__u64));
	__u32 i;

	clear_map(bpf_map__fd(s->skel->maps.counts), sizeof(struct sampler_key));
	clear_map(bpf_map__fd(s->skel->maps.stacks), sizeof(__u64));
	clear_map(bpf_map__fd(s->skel->maps.stacks_spare), sizeof(__u64));
	clear_map(bpf_map__fd(s->skel->maps.counts_spare), sizeof(struct sampler_key));
	clear_map(bpf_map__fd(s->skel->maps.seen_pids), sizeof(__u32));
	clear_map(bpf_map__fd(s->skel->maps.py_threads), sizeof(__u32));
	clear_map(bpf_map__fd(s->skel->maps.py_seen), sizeof(struct sampler_py_seen_key));
	clear_map(bpf_map__fd(s->skel->maps.offcpu_tasks), sizeof(__u32));
	clear_map(bpf_map__fd(s->skel->maps.offcpu_sites), sizeof(__u64));
	clear_map(bpf_map__fd(s->skel->maps.call_tasks), sizeof(__u32));
	clear_map(bpf_map__fd(s->skel->maps.call_times), sizeof(__u64));
	clear_call_hist(s);
	for (i = 0; zeros && i < SAMPLER_STAT_NR; i++)
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.stats), &i, zeros, BPF_ANY);
	free(zeros);
	s->skel->bss->taken = 0;
	s->skel->bss->stacks_added = 0;
	s->skel->bss->counts_added = 0;
	s->skel->bss->spares_added = 0;
	s->stacks_moved = s->counts_moved = s->spares_moved = 0;
}

/* offcpu_takes_per_slot - the program's bound for @hz takes a second:
 * per SAMPLER_OFFCPU_SLOT_NS, at least 1; 0: none. */
static __u32 offcpu_takes_per_slot(uint64_t hz)
{
	uint64_t n = hz * SAMPLER_OFFCPU_SLOT_NS / 1000000000ull;

	if (!hz)
		return 0;
	return n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : (__u32)n;
}

void sampler__bound_offcpu(struct sampler *s, uint64_t takes_per_sec)
{
	s->offcpu_takes_hz = takes_per_sec;
}

/* attach_switch - the off-CPU hook, for this window only: attached, it
 * runs at every context switch of the host. */
static int attach_switch(struct sampler *s)
{
	s->skel->links.on_switch = bpf_program__attach(s->skel->progs.on_switch);
	if (!s->skel->links.on_switch)
		return -errno;
	return 0;
}

int sampler__start(struct sampler *s)
{
	bool offcpu = s->record & SAMPLER_RECORD_OFFCPU;
	int i, e;

	clear_window(s);
	s->skel->bss->window_seq++;
	s->skel->bss->offcpu = offcpu;
	s->skel->bss->offcpu_takes_max = offcpu_takes_per_slot(s->offcpu_takes_hz);
	s->disarmed_ns = 0;
	if (offcpu && !s->skel->links.on_switch) {
		e = attach_switch(s);
		if (e)
			return e;
	}
	s->skel->bss->call_seq = 0;
	s->skel->bss->calls = s->calls.kind;
	s->calls_stopped_ns = 0;
	__atomic_store_n(&s->skel->bss->armed, 1, __ATOMIC_SEQ_CST);
	if (!(s->record & SAMPLER_RECORD_CPU))
		return 0;
	for (i = 0; i < s->ncpus; i++)
		if (ioctl(s->pfds[i], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	return 0;
}

/* add_offcpu - add @ns to the count of @key (user space's side of the
 * program's count_add, for the window's close). */
static void add_offcpu(struct sampler *s, const struct sampler_key *key, __u64 ns)
{
	int fd = bpf_map__fd(s->skel->maps.counts);
	__u64 v = 0;

	if (!bpf_map_lookup_elem(fd, key, &v)) {
		v += ns;
		bpf_map_update_elem(fd, key, &v, BPF_EXIST);
		return;
	}
	if (bpf_map_update_elem(fd, key, &ns, BPF_NOEXIST))
		log_debug("off-CPU time of thread %u lost at the close: %s", key->tid,
			  strerror(errno));
	else
		s->skel->bss->counts_added++;
}

/* close_offcpu - after the hook stopped: the tasks still off the CPU are
 * counted up to @end. Bounded by the size of offcpu_tasks. */
static void close_offcpu(struct sampler *s, uint64_t end)
{
	int fd = bpf_map__fd(s->skel->maps.offcpu_tasks);
	struct sampler_offcpu_start st;
	__u32 tid;

	while (bpf_map_get_next_key(fd, NULL, &tid) == 0) {
		/* since 0: it runs */
		if (!bpf_map_lookup_elem(fd, &tid, &st) && st.since && end > st.since)
			add_offcpu(s, &st.key, end - st.since);
		if (bpf_map_delete_elem(fd, &tid))
			break;
	}
}

/* stop_offcpu - detach the off-CPU hook (on a busy host the kernel's
 * wait for the hook's last runs can take long) and count the tasks still
 * away up to @end, the disarm (bpf_ktime_get_ns is CLOCK_MONOTONIC, as
 * clock_mono_ns). */
static void stop_offcpu(struct sampler *s, uint64_t end)
{
	s->skel->bss->offcpu = 0;
	if (!s->skel->links.on_switch)
		return;
	bpf_link__destroy(s->skel->links.on_switch);
	s->skel->links.on_switch = NULL;
	close_offcpu(s, end);
}

/* stop_calls - detach the calls' probes: the window numbers no more. */
static void stop_calls(struct sampler *s)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		bpf_link__destroy(s->call_links[i]);
		s->call_links[i] = NULL;
	}
	if (s->calls.kind)
		s->calls_stopped_ns = (uint64_t)clock_mono_ns();
	s->skel->bss->calls = SAMPLER_CALLS_NONE;
	s->calls.kind = SAMPLER_CALLS_NONE;
}

uint64_t sampler__disarm(struct sampler *s)
{
	if (!s->disarmed_ns) {
		__atomic_store_n(&s->skel->bss->armed, 0, __ATOMIC_SEQ_CST);
		s->disarmed_ns = (uint64_t)clock_mono_ns();
	}
	return s->disarmed_ns;
}

int sampler__stop(struct sampler *s)
{
	uint64_t end = sampler__disarm(s);
	int i, err = 0;

	for (i = 0; i < s->ncpus; i++)
		if (ioctl(s->pfds[i], PERF_EVENT_IOC_DISABLE, 0) && !err)
			err = -errno;
	stop_offcpu(s, end);
	stop_calls(s);
	return err;
}

bool sampler__window_split_calls(const struct sampler *s)
{
	return s->calls_stopped_ns != 0;
}

bool sampler__can_split_syscalls(const struct sampler *s)
{
	return bpf_program__autoload(s->skel->progs.call_sys_enter);
}

/* attach_func_calls - the entry and return probes on @c's function. */
static int attach_func_calls(struct sampler *s, const struct sampler_calls *c, char *err,
			     size_t errlen)
{
	struct bpf_link **links[2] = { &s->call_links[0], &s->call_links[1] };

	return uprobe_pair_attach(s->skel->progs.call_enter, s->skel->progs.call_return, links,
				  c->pid, c->binary, c->offset, err, errlen);
}

static int attach_syscall_calls(struct sampler *s, const struct sampler_calls *c, char *err,
				size_t errlen)
{
	struct bpf_program *progs[2] = { s->skel->progs.call_sys_enter,
					 s->skel->progs.call_sys_exit };
	size_t i;
	int e;

	if (!sampler__can_split_syscalls(s)) {
		snprintf(err, errlen,
			 "splitting samples by system call needs raw_syscalls/sys_enter in "
			 "tracefs, which this system does not offer (see -vv)");
		return -ENOTSUP;
	}
	s->skel->bss->call_all = c->all_syscalls;
	memcpy((void *)s->skel->bss->call_syscalls, c->syscalls, sizeof(c->syscalls));
	for (i = 0; i < 2; i++) {
		s->call_links[i] = bpf_program__attach(progs[i]);
		if (!s->call_links[i]) {
			e = -errno;
			snprintf(err, errlen, "attaching raw_syscalls/%s: %s",
				 i ? "sys_exit" : "sys_enter", strerror(-e));
			return e;
		}
	}
	return 0;
}

int sampler_calls__of(const struct latency_probe_spec *spec, const struct rule *r,
		      struct sampler_calls *out, char *what, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (spec->kind == LAT_KIND_FUNC) {
		out->kind = SAMPLER_CALLS_FUNC;
		out->binary = spec->binary;
		out->offset = spec->func_offset;
		out->pid = spec->attach_pid;
		snprintf(what, len, "func %s", r->lat_function);
		return 0;
	}
	if (spec->kind != LAT_KIND_SYSCALL)
		return -EINVAL;
	out->kind = SAMPLER_CALLS_SYSCALL;
	out->all_syscalls = spec->all_syscalls;
	_Static_assert(sizeof(out->syscalls) == sizeof(spec->syscalls), "one system call bitmap");
	memcpy(out->syscalls, spec->syscalls, sizeof(out->syscalls));
	snprintf(what, len, "syscall %s", r->lat_syscalls ? r->lat_syscalls : "(all)");
	return 0;
}

int sampler__split_calls(struct sampler *s, const struct sampler_calls *c, char *err, size_t errlen)
{
	int e;

	if (s->skel->bss->armed) {
		snprintf(err, errlen, "the window is armed already: calls are chosen before");
		return -EBUSY;
	}
	stop_calls(s);
	s->calls_stopped_ns = 0;
	if (!c || c->kind == SAMPLER_CALLS_NONE)
		return 0;
	if (c->kind == SAMPLER_CALLS_FUNC)
		e = attach_func_calls(s, c, err, errlen);
	else if (c->kind == SAMPLER_CALLS_SYSCALL)
		e = attach_syscall_calls(s, c, err, errlen);
	else
		e = -EINVAL;
	if (e) {
		stop_calls(s);
		return e;
	}
	s->calls = *c;
	s->calls.binary = NULL;
	return 0;
}

int sampler__read_calls(struct sampler *s, sampler_call_fn fn, void *ctx, struct lat_hist *all)
{
	int times = bpf_map__fd(s->skel->maps.call_times);
	int tasks = bpf_map__fd(s->skel->maps.call_tasks);
	struct lat_row *rows = calloc((size_t)s->npossible, sizeof(*rows));
	struct sampler_call c;
	__u64 id, next, ns;
	__u32 tid, ntid;
	__u32 zero = 0;
	bool first;
	int e = 0;

	if (!rows)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.call_hist), &zero, rows))
		e = -errno;
	else
		lat_hist__sum_rows(all, rows, (unsigned)s->npossible, 0);
	free(rows);
	for (first = true; !e; first = false) {
		if (bpf_map_get_next_key(times, first ? NULL : &id, &next))
			break;
		id = next;
		if (!bpf_map_lookup_elem(times, &id, &ns))
			e = fn(id, ns, false, ctx);
	}
	/* the calls still open when the probes were detached: at least
	 * that long */
	for (first = true; !e; first = false) {
		if (bpf_map_get_next_key(tasks, first ? NULL : &tid, &ntid))
			break;
		tid = ntid;
		if (!bpf_map_lookup_elem(tasks, &tid, &c) && c.depth && c.id && c.sampled)
			e = fn(c.id,
			       s->calls_stopped_ns > c.start ? s->calls_stopped_ns - c.start : 0,
			       true, ctx);
	}
	return e;
}

int sampler__events_fd(const struct sampler *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

int sampler__lives_fd(const struct sampler *s)
{
	return bpf_map__fd(s->skel->maps.seen_pids);
}

bool sampler_lives__current(int lives_fd, uint32_t pid, uint32_t life)
{
	struct sampler_seen seen;

	if (bpf_map_lookup_elem(lives_fd, &pid, &seen))
		return life == 0; /* not met yet, or the map was full: its first */
	return seen.life == life;
}

int sampler__drain_events(struct sampler *s, sampler_event_fn fn, void *ctx)
{
	int n;

	s->event_fn = fn;
	s->event_ctx = ctx;
	n = ring_buffer__consume(s->rb);
	s->event_fn = NULL;
	return n < 0 ? n : 0;
}

int sampler__copies_fd(const struct sampler *s)
{
	return s->copy_max ? bpf_map__fd(s->skel->maps.copies) : -1;
}

uint32_t sampler__copy_max(const struct sampler *s)
{
	return s->copy_max;
}

uint32_t sampler__window_seq(const struct sampler *s)
{
	return s->skel->bss->window_seq;
}

/* move_map - take up to @max entries out of map @fd (@key_size and
 * @value_size bytes each), MOVE_BATCH at a time, handing each to @fn; sets
 * @moved to how many. Stops, returning 0, when the map is empty or @max
 * is reached (entries then stay in the map). */
static int move_map(int fd, size_t key_size, size_t value_size, size_t max, sampler_move_fn fn,
		    void *ctx, size_t *moved)
{
	__u32 in = 0, out = 0, n, i;
	char *keys = NULL, *vals = NULL;
	bool first = true, last = false;
	int err = 0;

	*moved = 0;
	keys = malloc(MOVE_BATCH * key_size);
	vals = malloc(MOVE_BATCH * value_size);
	if (!keys || !vals) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (!last && *moved < max) {
		n = (__u32)(max - *moved < MOVE_BATCH ? max - *moved : MOVE_BATCH);
		if (bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out, keys, vals, &n,
						    NULL)) {
			/* ENOENT: the last batch, n holds its size. ENOSPC: a
			 * bucket holds more than is left of @max, nothing taken. */
			last = true;
			if (errno != ENOENT) {
				err = errno == ENOSPC ? 0 : -errno;
				n = 0;
			}
		}
		for (i = 0; i < n && !err; i++)
			err = fn(keys + i * key_size, vals + i * value_size, ctx);
		*moved += n;
		if (err)
			break;
		in = out;
		first = false;
	}
cleanup:
	free(keys);
	free(vals);
	return err;
}

bool sampler__spill_due(const struct sampler *s)
{
	uint64_t stacks = s->skel->bss->stacks_added - s->stacks_moved;
	uint64_t counts = s->skel->bss->counts_added - s->counts_moved;

	uint64_t spares = s->skel->bss->spares_added - s->spares_moved;

	return stacks > bpf_map__max_entries(s->skel->maps.stacks) / SPILL_AT ||
	       counts > bpf_map__max_entries(s->skel->maps.counts) / SPILL_AT ||
	       spares > bpf_map__max_entries(s->skel->maps.stacks_spare) / 2;
}

int sampler__move(struct sampler *s, size_t max_stacks, size_t max_counts, sampler_move_fn stack_fn,
		  sampler_move_fn count_fn, void *ctx)
{
	size_t moved = 0, spared = 0;
	int err;

	/* the spares first: they are small, and a stack must not be lost */
	err = move_map(bpf_map__fd(s->skel->maps.stacks_spare), sizeof(__u64),
		       sizeof(struct sampler_stack), max_stacks, stack_fn, ctx, &spared);
	s->spares_moved += spared;
	max_stacks -= spared;
	if (!err)
		err = move_map(bpf_map__fd(s->skel->maps.stacks), sizeof(__u64),
			       sizeof(struct sampler_stack), max_stacks, stack_fn, ctx, &moved);
	s->stacks_moved += moved;
	if (err)
		return err;
	err = move_map(bpf_map__fd(s->skel->maps.counts_spare), sizeof(struct sampler_key),
		       sizeof(__u64), max_counts, count_fn, ctx, &spared);
	s->spares_moved += spared;
	max_counts -= spared;
	if (!err)
		err = move_map(bpf_map__fd(s->skel->maps.counts), sizeof(struct sampler_key),
			       sizeof(__u64), max_counts, count_fn, ctx, &moved);
	s->counts_moved += moved;
	return err;
}

int sampler__get_stats(struct sampler *s, struct sampler_stats *out)
{
	__u64 *vals = calloc((size_t)s->npossible, sizeof(__u64));
	int fd = bpf_map__fd(s->skel->maps.stats), c;
	__u32 i;

	if (!vals)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < SAMPLER_STAT_NR; i++) {
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (c = 0; c < s->npossible; c++)
			out->v[i] += vals[c];
	}
	free(vals);
	return 0;
}

int sampler__ncpus(const struct sampler *s)
{
	return s->ncpus;
}

void sampler__bpf_cost(const struct sampler *s, struct sampler_cost *out)
{
	struct bpf_prog_info info;
	struct bpf_program *prog;
	__u32 len;
	int fd;

	memset(out, 0, sizeof(*out));
	bpf_object__for_each_program(prog, s->skel->obj)
	{
		fd = bpf_program__fd(prog);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		if (bpf_program__type(prog) == BPF_PROG_TYPE_PERF_EVENT) {
			out->sample_ns += info.run_time_ns;
			if (prog == s->skel->progs.sample)
				out->sample_runs += info.run_cnt;
		} else {
			out->hook_ns += info.run_time_ns;
		}
	}
}

void sampler__recopy_site(struct sampler *s, uint64_t site)
{
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.offcpu_sites), &site);
}
