/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_probe.h - one in-kernel latency histogram (bpf/latency.bpf.c):
 * load the programs of one kind with one filter, attach them, read the
 * histogram.
 *
 * A probe counts from the moment it is attached. Reads return the
 * cumulative histogram summed over CPUs, with the largest value seen
 * since the previous read as its max, so the caller takes differences
 * between reads (lat_hist__delta) to get the distribution of an interval.
 *
 * Where the kernel has BTF (/sys/kernel/btf/vmlinux) the programs are
 * BTF-typed (tp_btf, start times in task-local storage: the cheapest);
 * libbpf parses the BTF for the load and frees it after, and the memory
 * is handed back to the system so an idle daemon stays small. Without
 * BTF they fall back to classic tracepoints and hash maps
 * (bpf/latency_tp.bpf.c), which cost more per event and can scope
 * run-queue latency by process name only. TRAPD_LATENCY_HOOKS=tracepoint
 * (or =btf) forces the choice, for tests and diagnosis.
 */
#ifndef TRAPD_LATENCY_PROBE_H
#define TRAPD_LATENCY_PROBE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/latency.h"
#include "trapd/latency/latency_hist.h"

/* What to measure and whose. Zero it before filling it in: probes are
 * told apart by comparing specs byte for byte. */
struct latency_probe_spec {
	enum lat_kind kind;
	enum lat_filter filter;
	uint32_t tgid;		 /* LAT_FILTER_TGID */
	uint32_t cgroup_level;	 /* LAT_FILTER_CGROUP: depth below the v2 root */
	uint64_t cgroup_id;	 /* LAT_FILTER_CGROUP: the v2 cgroup's id */
	char comm[LAT_COMM_LEN]; /* LAT_FILTER_COMM, NUL-padded */
	bool all_syscalls;	 /* LAT_KIND_SYSCALL: every call, else those in the set */
	uint64_t syscalls[LAT_SYSCALL_WORDS];
	uint32_t dev;	       /* LAT_KIND_BIO: the disk, MKDEV as the kernel encodes
				  * it (major << 20 | minor); 0: every disk */
	int32_t attach_pid;    /* LAT_KIND_FUNC: the one process to probe, -1: all */
	uint64_t func_offset;  /* LAT_KIND_FUNC: file offset of the function */
	char binary[PATH_MAX]; /* LAT_KIND_FUNC: the file it is in */
};

struct latency_probe;

/* latency_probe__open - load and attach the programs @spec needs.
 * Returns NULL with errno set and @err saying what failed and what to do
 * (no kernel BTF, not root, no such binary or offset). */
struct latency_probe *latency_probe__open(const struct latency_probe_spec *spec, char *err,
					  size_t errlen);

/* latency_probe__free - detach and unload (NULL is fine). */
void latency_probe__free(struct latency_probe *p);

/* latency_probe__read - the cumulative histogram into @out, its max_ns
 * the largest value since the previous read. Returns 0 or a negative
 * errno. */
int latency_probe__read(struct latency_probe *p, struct lat_hist *out);

/* latency_kind__name - "runqlat", "syscall", "biolat", "func". */
const char *latency_kind__name(enum lat_kind k);

#endif
