/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* run_cgroup.h - one transient cgroup for one `trapd ci` run: made with a
 * fresh name, the command put in it before it execs (its children follow
 * by themselves), its CPU time read, and at the end everything still in
 * it killed and the cgroup removed.
 *
 * Where it lives: in the v2 tree when there is one (the sampler filters
 * by v2 cgroup id, and v2 cpu.stat counts CPU time with no controller
 * enabled); a twin in the v1 cpuacct hierarchy is made only where CPU
 * time cannot be read from v2: no v2 tree (v1-only hosts) or a v2
 * cpu.stat without usage_usec (kernels before 4.15), or when asked.
 *
 * Under which parent: the one the caller names, else the cgroup trapd
 * itself runs in (per hierarchy, from /proc/self/cgroup). Not the v2 root:
 * on a systemd host the root and the slices belong to systemd, and a user
 * without root may only move a process between cgroups whose common
 * ancestor it may write to, which its own cgroup is when it was delegated
 * to it (Delegate=yes; `systemd-run --user --scope -p Delegate=yes trapd
 * ci ...`). A child of trapd's own cgroup keeps the move inside that
 * subtree, and when trapd's unit stops systemd cleans it up with it. The
 * new cgroup enables no controller, so v2's "no internal processes" rule
 * does not stop trapd staying in the parent.
 *
 * How (see run_cgroup.c for what libcgroup could and could not do): the v2
 * directory is made with mkdir(2), the v1 twin through libcgroup.
 */
#ifndef TRAPD_RUN_CGROUP_H
#define TRAPD_RUN_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RUN_CGROUP_NAME_PREFIX "trapd-ci-" /* then "<pid>-<8 hex digits>" */
#define RUN_CGROUP_TIMEOUT_MS 5000	   /* default bound of run_cgroup__destroy */

struct run_cgroup;

struct run_cgroup_opts {
	/* NULL: the cgroup trapd runs in. Else a path relative to the
	 * hierarchies' roots ("ci", "/ci"; "/" is the root) or an absolute
	 * cgroup directory; it must exist in the v2 tree (and in cpuacct when
	 * a twin is made there). */
	const char *parent;
	bool v1_twin;		 /* also make the cpuacct twin where v2 counts CPU */
	unsigned int timeout_ms; /* 0: RUN_CGROUP_TIMEOUT_MS */
};

/* run_cgroup__create - make a new, uniquely named cgroup under @opts'
 * parent (@opts may be NULL: all defaults). Needs root or a delegated
 * parent. Returns the cgroup, or NULL with errno set and @err saying what
 * failed: ENOENT (no usable hierarchy, or no such parent), EINVAL (a
 * parent with a ".." component), ENODATA (nowhere to read CPU time from),
 * EACCES/EPERM, or another errno. Nothing is left behind on failure.
 * Release with run_cgroup__free. */
struct run_cgroup *run_cgroup__create(const struct run_cgroup_opts *opts, char *err, size_t errlen);

/* run_cgroup__attach - move process @pid (every thread of it) into @cg in
 * every hierarchy it was made in. Meant for the command, forked and held
 * before exec; what it forks later is in @cg by inheritance. Returns 0;
 * -EINVAL for a pid <= 0 or trapd's own (run_cgroup__destroy would kill
 * it); -ENOENT once @cg was destroyed; -ESRCH for no such process;
 * another negative errno. On failure @pid may be in some of the
 * hierarchies: run_cgroup__destroy still kills it there. */
int run_cgroup__attach(struct run_cgroup *cg, pid_t pid, char *err, size_t errlen);

/* run_cgroup__cpu_ns - the CPU time (user + system, in nanoseconds) used
 * by every process that has been in @cg, those that exited included, into
 * *@ns (v2 cpu.stat usage_usec, else v1 cpuacct.usage: rules/cgroup_stat).
 * Returns 0, -ENOENT once @cg was destroyed, or another negative errno. */
int run_cgroup__cpu_ns(const struct run_cgroup *cg, uint64_t *ns, char *err, size_t errlen);

/* run_cgroup__v2_name - the cgroup's path relative to the v2 root
 * ("/trapd-ci-123-0badf00d", "/parent/trapd-ci-..."), as /proc/PID/cgroup
 * writes it; "" on a host without a v2 tree. Owned by @cg. */
const char *run_cgroup__v2_name(const struct run_cgroup *cg);

/* run_cgroup__id - the v2 cgroup id (the inode number of its directory,
 * what bpf_get_current_cgroup_id() reports for its tasks); 0 without a
 * v2 tree. */
uint64_t run_cgroup__id(const struct run_cgroup *cg);

/* run_cgroup__path - the absolute directory for messages: the v2 one, or
 * the cpuacct one without a v2 tree. run_cgroup__v1_path - the cpuacct
 * twin's absolute directory, "" when there is none (a caller without v2
 * follows the members in its cgroup.procs). Owned by @cg. */
const char *run_cgroup__path(const struct run_cgroup *cg);
const char *run_cgroup__v1_path(const struct run_cgroup *cg);

/* run_cgroup__destroy - kill every process still in @cg (the command, its
 * children, orphans they left; cgroup.kill where v2 has it, else SIGKILL
 * to each member until none is left), wait until it is empty, and remove
 * it and anything made below it, in every hierarchy, within the
 * options' timeout. The caller reaps its own child. Idempotent: what was
 * removed stays removed, what failed is tried again by the next call;
 * NULL is fine. Returns 0, -ETIMEDOUT (processes still there: stuck in
 * the kernel), or another negative errno, with @err saying what. @cg
 * itself stays valid until run_cgroup__free. */
int run_cgroup__destroy(struct run_cgroup *cg, char *err, size_t errlen);

/* run_cgroup__free - destroy @cg if that was not done (its errors are not
 * reported: call run_cgroup__destroy first to see them) and release it.
 * NULL is fine. */
void run_cgroup__free(struct run_cgroup *cg);

#endif
