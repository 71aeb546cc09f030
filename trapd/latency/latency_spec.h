/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_spec.h - what a latency rule asks the kernel to measure: its
 * kind, scope, system calls, disk and function, resolved on this host
 * into a latency_probe_spec (cgroup path to v2 id and depth, disk name to
 * device number, binary:symbol to a file offset, syscall names to
 * numbers).
 *
 * Resolution happens when the daemon starts watching the rule and again
 * whenever the scope stops being what was resolved (the cgroup was
 * recreated, the process exited, the binary was replaced), so a rule
 * follows its service across restarts and upgrades.
 */
#ifndef TRAPD_LATENCY_SPEC_H
#define TRAPD_LATENCY_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/rules.h"
#include "trapd/latency/latency_probe.h"

/* The host facts a resolved spec depends on, to notice when they change. */
struct latency_spec_file {
	char path[PATH_MAX]; /* "" if none */
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
};

struct latency_spec_anchor {
	struct latency_spec_file cgroup; /* its directory (inode = v2 id) */
	struct latency_spec_file binary; /* a func rule's, mtime included */
	pid_t pid;			 /* a pid scope: 0 if none */
};

/* latency_spec__resolve - fill @out (zeroed first) for rule @r, with
 * cgroups found through @mountinfo ("/proc/self/mountinfo" when NULL),
 * and @anchor with what it was resolved from. Returns 0, or with @err
 * filled: -ENOENT (no such cgroup, process, disk, binary or function),
 * -EINVAL (it exists but cannot be used: a v1-only cgroup, a partition,
 * not an ELF file), -E2BIG (a syscall number beyond the probe's bitmap). */
int latency_spec__resolve(const struct rule *r, const char *mountinfo,
			  struct latency_probe_spec *out, struct latency_spec_anchor *anchor,
			  char *err, size_t errlen);

/* latency_spec__changed - whether what @anchor was resolved from is gone
 * or replaced (writes why into @err). */
bool latency_spec__changed(const struct latency_spec_anchor *anchor, char *err, size_t errlen);

#endif
