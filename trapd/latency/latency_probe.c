// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_probe.c - load, attach and read one latency histogram. */
#include "trapd/latency/latency_probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latency.skel.h"
#include "latency_tp.skel.h"
#include "trapd/util/tracefs.h"
#include "trapd/util/uprobe_pair.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#define HOOKS_ENV "TRAPD_LATENCY_HOOKS"

/* One of the two objects is loaded: BTF-typed tracepoints where the
 * kernel has BTF, classic tracepoints where it has not. */
struct latency_probe {
	struct latency_bpf *skel;
	struct latency_tp_bpf *tp;
	struct bpf_map *hist;
	volatile __u64 *epoch;
	struct lat_row *rows; /* one per possible CPU, read buffer */
	int nrows;
};

static const char *const kind_names[LAT_KIND_NR] = {
	[LAT_KIND_RUNQ] = "runqlat",
	[LAT_KIND_SYSCALL] = "syscall",
	[LAT_KIND_BIO] = "biolat",
	[LAT_KIND_FUNC] = "func",
};

const char *latency_kind__name(enum lat_kind k)
{
	return k < LAT_KIND_NR ? kind_names[k] : "?";
}

/* How run-queue latency is measured on BTF-typed tracepoints. */
enum runq_hooks {
	RUNQ_QUEUED, /* sched_switch alone, from sched_info.last_queued */
	RUNQ_WAKEUP, /* wakeups stamp the task, sched_switch records */
};

/* programs - the programs of @k, NULL-terminated, in @skel. */
static void programs(struct latency_bpf *skel, enum lat_kind k, enum runq_hooks rh,
		     struct bpf_program **out)
{
	int n = 0;

	switch (k) {
	case LAT_KIND_RUNQ:
		if (rh == RUNQ_QUEUED) {
			out[n++] = skel->progs.runq_switch_queued;
			break;
		}
		out[n++] = skel->progs.runq_wakeup;
		out[n++] = skel->progs.runq_wakeup_new;
		out[n++] = skel->progs.runq_switch;
		break;
	case LAT_KIND_SYSCALL:
		out[n++] = skel->progs.sys_enter;
		out[n++] = skel->progs.sys_exit;
		break;
	case LAT_KIND_BIO:
		out[n++] = skel->progs.bio_issue;
		out[n++] = skel->progs.bio_complete;
		break;
	default:
		out[n++] = skel->progs.func_entry;
		out[n++] = skel->progs.func_return;
		break;
	}
	out[n] = NULL;
}

/* Both objects' .rodata have the filter of latency_common.bpf.h. */
#define SET_FILTER(ro, s)                                                                          \
	do {                                                                                       \
		(ro)->filter_kind = (s)->filter;                                                   \
		(ro)->filter_tgid = (s)->tgid;                                                     \
		(ro)->filter_cgroup = (s)->cgroup_id;                                              \
		(ro)->filter_level = (s)->cgroup_level;                                            \
		memcpy((void *)(ro)->filter_comm, (s)->comm, sizeof((ro)->filter_comm));           \
		(ro)->all_syscalls = (s)->all_syscalls;                                            \
		memcpy((void *)(ro)->syscall_set, (s)->syscalls, sizeof((ro)->syscall_set));       \
		(ro)->filter_dev = (s)->dev;                                                       \
	} while (0)

/* autoload_only - load just the programs in @want (NULL-terminated). */
static void autoload_only(struct bpf_object *obj, struct bpf_program **want)
{
	struct bpf_program *prog;
	int i;

	bpf_object__for_each_program(prog, obj) bpf_program__set_autoload(prog, false);
	for (i = 0; want[i]; i++)
		bpf_program__set_autoload(want[i], true);
}

static void configure(struct latency_bpf *skel, const struct latency_probe_spec *s,
		      enum runq_hooks rh)
{
	struct bpf_program *want[4];

	programs(skel, s->kind, rh, want);
	autoload_only(skel->obj, want);
	SET_FILTER(skel->rodata, s);
	/* Only what this kind uses takes kernel memory. */
	if (s->kind != LAT_KIND_BIO)
		bpf_map__set_max_entries(skel->maps.rq_start, 1);
}

/* attach_uprobes - a func probe's entry and return programs on the
 * binary. The links go into *@entry_link and *@ret_link (the skeleton's,
 * destroyed with it). */
static int attach_uprobes(struct bpf_program *entry, struct bpf_program *ret,
			  struct bpf_link **entry_link, struct bpf_link **ret_link,
			  const struct latency_probe_spec *s, char *err, size_t errlen)
{
	struct bpf_link **links[2] = { entry_link, ret_link };

	return uprobe_pair_attach(entry, ret, links, s->attach_pid, s->binary, s->func_offset, err,
				  errlen);
}

static int attach_failed(int e, enum lat_kind k, char *err, size_t errlen)
{
	if (e)
		snprintf(err, errlen, "attaching the %s programs: %s", kind_names[k], strerror(-e));
	return e;
}

static int load_failed(int e, enum lat_kind k, const char *hooks, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "loading the %s programs on %s: %s (needs root%s; run with -vv for libbpf's "
		 "log)",
		 kind_names[k], hooks, strerror(-e), k == LAT_KIND_FUNC ? " and uprobes" : "");
	return e;
}

/* open_load_btf - open the BTF-typed object configured for @s into
 * p->skel and load it; 0 or a negative errno (p->skel kept for freeing). */
static int open_load_btf(struct latency_probe *p, const struct latency_probe_spec *s,
			 enum runq_hooks rh, char *err, size_t errlen)
{
	int e;

	p->skel = latency_bpf__open();
	if (!p->skel) {
		e = -errno;
		snprintf(err, errlen, "opening the latency programs: %s", strerror(-e));
		return e;
	}
	configure(p->skel, s, rh);
	e = latency_bpf__load(p->skel);
	/* libbpf parsed the kernel's BTF (megabytes) for the load and has
	 * freed it: give that memory back. */
	malloc_trim(0);
	return e;
}

/* load_btf - @rh picks the run-queue programs; RUNQ_QUEUED falls back to
 * RUNQ_WAKEUP on a kernel without sched_info or `runqueues` in its BTF. */
static int load_btf(struct latency_probe *p, const struct latency_probe_spec *s, enum runq_hooks rh,
		    char *err, size_t errlen)
{
	int e;

	e = open_load_btf(p, s, rh, err, errlen);
	if (e && p->skel && s->kind == LAT_KIND_RUNQ && rh == RUNQ_QUEUED) {
		latency_bpf__destroy(p->skel);
		p->skel = NULL;
		e = open_load_btf(p, s, RUNQ_WAKEUP, err, errlen);
	}
	if (e && !p->skel)
		return e;
	if (e)
		return load_failed(e, s->kind, "BTF-typed tracepoints", err, errlen);
	p->hist = p->skel->maps.hist;
	p->epoch = &p->skel->bss->epoch;
	if (s->kind == LAT_KIND_FUNC)
		return attach_uprobes(p->skel->progs.func_entry, p->skel->progs.func_return,
				      &p->skel->links.func_entry, &p->skel->links.func_return, s,
				      err, errlen);
	return attach_failed(latency_bpf__attach(p->skel), s->kind, err, errlen);
}

/* tp_offsets - the record layouts the classic tracepoints of @k need. */
static int tp_offsets(struct latency_tp_bpf__rodata *ro, enum lat_kind k, char *err, size_t errlen)
{
	static const struct {
		enum lat_kind kind;
		const char *event, *field;
		size_t off; /* in struct latency_tp_bpf__rodata */
	} fields[] = {
#define F(k, e, f, m) { k, e, f, offsetof(struct latency_tp_bpf__rodata, m) }
		F(LAT_KIND_RUNQ, "sched/sched_wakeup", "pid", off_wakeup_pid),
		F(LAT_KIND_RUNQ, "sched/sched_wakeup", "comm", off_wakeup_comm),
		F(LAT_KIND_RUNQ, "sched/sched_switch", "prev_pid", off_switch_prev_pid),
		F(LAT_KIND_RUNQ, "sched/sched_switch", "prev_state", off_switch_prev_state),
		F(LAT_KIND_RUNQ, "sched/sched_switch", "prev_comm", off_switch_prev_comm),
		F(LAT_KIND_RUNQ, "sched/sched_switch", "next_pid", off_switch_next_pid),
		F(LAT_KIND_SYSCALL, "raw_syscalls/sys_enter", "id", off_sys_id),
		F(LAT_KIND_BIO, "block/block_rq_issue", "dev", off_rq_dev),
		F(LAT_KIND_BIO, "block/block_rq_issue", "sector", off_rq_sector),
#undef F
	};
	const char *dir = tracefs_dir();
	size_t i;
	int off;

	if (!dir) {
		snprintf(err, errlen, "no tracefs (mount -t tracefs nodev /sys/kernel/tracing)");
		return -ENOENT;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (fields[i].kind != k)
			continue;
		off = tracefs_field_offset(dir, fields[i].event, fields[i].field, NULL);
		if (off < 0) {
			snprintf(err, errlen, "tracepoint %s has no field %s: %s", fields[i].event,
				 fields[i].field, strerror(-off));
			return off;
		}
		*(__u32 *)((char *)ro + fields[i].off) = (__u32)off;
	}
	return 0;
}

static void tp_programs(struct latency_tp_bpf *tp, enum lat_kind k, struct bpf_program **out)
{
	int n = 0;

	if (k == LAT_KIND_RUNQ) {
		out[n++] = tp->progs.tp_runq_wakeup;
		out[n++] = tp->progs.tp_runq_wakeup_new;
		out[n++] = tp->progs.tp_runq_switch;
	} else if (k == LAT_KIND_SYSCALL) {
		out[n++] = tp->progs.tp_sys_enter;
		out[n++] = tp->progs.tp_sys_exit;
	} else if (k == LAT_KIND_BIO) {
		out[n++] = tp->progs.tp_bio_issue;
		out[n++] = tp->progs.tp_bio_complete;
	} else {
		out[n++] = tp->progs.tp_func_entry;
		out[n++] = tp->progs.tp_func_return;
	}
	out[n] = NULL;
}

static int load_tp(struct latency_probe *p, const struct latency_probe_spec *s, char *err,
		   size_t errlen)
{
	struct bpf_program *want[4];
	int e;

	if (s->kind == LAT_KIND_RUNQ && s->filter != LAT_FILTER_NONE &&
	    s->filter != LAT_FILTER_COMM) {
		snprintf(err, errlen,
			 "run-queue latency of a pid or cgroup needs the kernel's BTF (%s), which "
			 "this kernel lacks: scope it with process = NAME, or not at all",
			 VMLINUX_BTF);
		return -EOPNOTSUPP;
	}
	p->tp = latency_tp_bpf__open();
	if (!p->tp) {
		e = -errno;
		snprintf(err, errlen, "opening the latency programs: %s", strerror(-e));
		return e;
	}
	tp_programs(p->tp, s->kind, want);
	autoload_only(p->tp->obj, want);
	SET_FILTER(p->tp->rodata, s);
	e = tp_offsets(p->tp->rodata, s->kind, err, errlen);
	if (e)
		return e;
	e = latency_tp_bpf__load(p->tp);
	if (e)
		return load_failed(e, s->kind, "classic tracepoints", err, errlen);
	p->hist = p->tp->maps.hist;
	p->epoch = &p->tp->bss->epoch;
	if (s->kind == LAT_KIND_FUNC)
		return attach_uprobes(p->tp->progs.tp_func_entry, p->tp->progs.tp_func_return,
				      &p->tp->links.tp_func_entry, &p->tp->links.tp_func_return, s,
				      err, errlen);
	return attach_failed(latency_tp_bpf__attach(p->tp), s->kind, err, errlen);
}

/* load - BTF-typed tracepoints where the kernel has BTF, else classic
 * ones. TRAPD_LATENCY_HOOKS picks a fallback so the tests can run it
 * here: "tracepoint" the classic tracepoints, "btf-wakeup" the run-queue
 * programs for kernels without sched_info; "btf" is the default. */
static int load(struct latency_probe *p, const struct latency_probe_spec *s, char *err,
		size_t errlen)
{
	const char *hooks = getenv(HOOKS_ENV);

	if (hooks && strcmp(hooks, "tracepoint") && strcmp(hooks, "btf") &&
	    strcmp(hooks, "btf-wakeup")) {
		snprintf(err, errlen, "%s=%s: expected tracepoint, btf or btf-wakeup", HOOKS_ENV,
			 hooks);
		return -EINVAL;
	}
	if (hooks ? !strcmp(hooks, "tracepoint") : access(VMLINUX_BTF, R_OK) != 0)
		return load_tp(p, s, err, errlen);
	return load_btf(p, s, hooks && !strcmp(hooks, "btf-wakeup") ? RUNQ_WAKEUP : RUNQ_QUEUED,
			err, errlen);
}

struct latency_probe *latency_probe__open(const struct latency_probe_spec *spec, char *err,
					  size_t errlen)
{
	struct latency_probe *p = calloc(1, sizeof(*p));
	int e;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	p->nrows = libbpf_num_possible_cpus();
	if (p->nrows <= 0) {
		e = p->nrows ? p->nrows : -EINVAL;
		snprintf(err, errlen, "cannot count the possible CPUs: %s", strerror(-e));
		goto fail;
	}
	p->rows = calloc((size_t)p->nrows, sizeof(*p->rows));
	if (!p->rows) {
		e = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	e = load(p, spec, err, errlen);
	if (!e)
		return p;
fail:
	latency_probe__free(p);
	errno = -e;
	return NULL;
}

void latency_probe__free(struct latency_probe *p)
{
	if (!p)
		return;
	latency_bpf__destroy(p->skel);
	latency_tp_bpf__destroy(p->tp);
	free(p->rows);
	free(p);
}

int latency_probe__read(struct latency_probe *p, struct lat_hist *out)
{
	__u32 zero = 0;
	uint64_t epoch = *p->epoch;

	if (bpf_map__lookup_elem(p->hist, &zero, sizeof(zero), p->rows,
				 sizeof(*p->rows) * (size_t)p->nrows, 0))
		return -errno;
	lat_hist__sum_rows(out, p->rows, (unsigned)p->nrows, epoch);
	/* Values from now on belong to the next read's max. */
	*p->epoch = epoch + 1;
	return 0;
}
