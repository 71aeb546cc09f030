/* latency_probe.c - load, attach and read one latency histogram. */
#include "trapd/latency_probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latency.skel.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct latency_probe {
	struct latency_bpf *skel;
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

/* programs - the programs of @k, NULL-terminated, in @skel. */
static void programs(struct latency_bpf *skel, enum lat_kind k, struct bpf_program **out)
{
	int n = 0;

	switch (k) {
	case LAT_KIND_RUNQ:
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

static void configure(struct latency_bpf *skel, const struct latency_probe_spec *s)
{
	struct latency_bpf__rodata *ro = skel->rodata;
	struct bpf_program *prog, *want[4];
	int i;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	programs(skel, s->kind, want);
	for (i = 0; want[i]; i++)
		bpf_program__set_autoload(want[i], true);

	ro->filter_kind = s->filter;
	ro->filter_tgid = s->tgid;
	ro->filter_cgroup = s->cgroup_id;
	ro->filter_level = s->cgroup_level;
	memcpy((void *)ro->filter_comm, s->comm, sizeof(ro->filter_comm));
	ro->all_syscalls = s->all_syscalls;
	memcpy((void *)ro->syscall_set, s->syscalls, sizeof(ro->syscall_set));
	ro->filter_dev = s->dev;

	/* Only what this kind uses takes kernel memory. */
	if (s->kind != LAT_KIND_BIO)
		bpf_map__set_max_entries(skel->maps.rq_start, 1);
}

static int attach(struct latency_probe *p, const struct latency_probe_spec *s, char *err,
		  size_t errlen)
{
	struct bpf_program *want[4];
	struct bpf_link *link;
	int i, e;

	if (s->kind != LAT_KIND_FUNC) {
		e = latency_bpf__attach(p->skel);
		if (e)
			snprintf(err, errlen, "attaching the %s programs: %s", kind_names[s->kind],
				 strerror(-e));
		return e;
	}
	programs(p->skel, s->kind, want);
	for (i = 0; want[i]; i++) {
		bool ret = want[i] == p->skel->progs.func_return;

		link = bpf_program__attach_uprobe(want[i], ret, s->attach_pid, s->binary,
						  s->func_offset);
		if (!link) {
			e = -errno;
			snprintf(err, errlen, "attaching a %s to %s at offset 0x%llx: %s",
				 ret ? "uretprobe" : "uprobe", s->binary,
				 (unsigned long long)s->func_offset, strerror(-e));
			return e;
		}
		if (ret)
			p->skel->links.func_return = link;
		else
			p->skel->links.func_entry = link;
	}
	return 0;
}

static int load(struct latency_probe *p, const struct latency_probe_spec *s, char *err,
		size_t errlen)
{
	int e;

	if (access(VMLINUX_BTF, R_OK)) {
		snprintf(err, errlen,
			 "latency histograms need the kernel's BTF (%s: %s); a kernel built "
			 "with CONFIG_DEBUG_INFO_BTF=y has it",
			 VMLINUX_BTF, strerror(errno));
		return -EOPNOTSUPP;
	}
	p->skel = latency_bpf__open();
	if (!p->skel) {
		e = -errno;
		snprintf(err, errlen, "opening the latency programs: %s", strerror(-e));
		return e;
	}
	configure(p->skel, s);
	e = latency_bpf__load(p->skel);
	/* libbpf parsed the kernel's BTF (megabytes) for the load and has
	 * freed it: give that memory back. */
	malloc_trim(0);
	if (e) {
		snprintf(err, errlen,
			 "loading the %s programs: %s (needs root and a kernel with BTF-typed "
			 "tracepoints%s; run with -vv for libbpf's log)",
			 kind_names[s->kind], strerror(-e),
			 s->kind == LAT_KIND_FUNC ? " and uprobes" : "");
		return e;
	}
	return attach(p, s, err, errlen);
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
	free(p->rows);
	free(p);
}

int latency_probe__read(struct latency_probe *p, struct lat_hist *out)
{
	__u32 zero = 0;
	uint64_t epoch = p->skel->bss->epoch;

	if (bpf_map__lookup_elem(p->skel->maps.hist, &zero, sizeof(zero), p->rows,
				 sizeof(*p->rows) * (size_t)p->nrows, 0))
		return -errno;
	lat_hist__sum_rows(out, p->rows, (unsigned)p->nrows, epoch);
	/* Values from now on belong to the next read's max. */
	p->skel->bss->epoch = epoch + 1;
	return 0;
}
