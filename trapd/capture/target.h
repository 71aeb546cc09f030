/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* target.h - what a capture samples, made real: check that a pid or
 * cgroup exists, start a command held at a gate until sampling is armed,
 * tell the sampler which tasks to watch (and keep telling it, for cgroup
 * v1 members), and notice when the target is gone.
 *
 * Used by `trapd capture`; the daemon's rule scopes resolve through it too.
 */
#ifndef TRAPD_TARGET_H
#define TRAPD_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "trapd/capture/capture.h"
#include "trapd/capture/run_cgroup.h"
#include "trapd/capture/sampler.h"

/* The resources that follow a target while it is sampled. */
struct target_handle {
	int pidfd;	 /* pid and command: polls readable when the process exits */
	int gate_fd;	 /* command: writing to it lets the child exec */
	int exec_err_fd; /* command: carries errno if exec failed */
	int cgroup_fd;	 /* cgroup v2: the directory, for the sampler's filter */
	bool reaped;	 /* command: its exit status is in target->exit_status */
};

/* target_parse_pid - a positive decimal pid, the whole string. 0 or -EINVAL. */
int target_parse_pid(const char *s, pid_t *out);

/* target_prepare - check @t exists (resolving @cgroup_name for a cgroup
 * target), start a command target held at its gate, and fill the target
 * part of @o. Returns 0; -EINVAL for bad input (reported: no such pid or
 * cgroup); another negative errno for a runtime failure. Release @h with
 * target_close whatever the result. */
int target_prepare(struct capture_target *t, const char *cgroup_name, struct sampler_opts *o,
		   struct target_handle *h);

/* target_command_into - after target_prepare of a COMMAND target: move
 * the held command into @cg and sample that cgroup (children and orphans
 * included) instead of following forks; where @cg has no v2 directory
 * the forks are still followed. Returns 0 or a negative errno with @err
 * filled. */
int target_command_into(struct capture_target *t, struct run_cgroup *cg, struct sampler_opts *o,
			struct target_handle *h, char *err, size_t errlen);

/* target_watch - tell @s which thread groups to sample (pid, command,
 * cgroup v1 members); call again to pick up new cgroup v1 members. */
void target_watch(const struct capture_target *t, struct sampler *s);

/* target_follows_members - whether target_watch must be called again as
 * time passes (a cgroup v1 target). */
bool target_follows_members(const struct capture_target *t);

/* target_release - let a command target exec. Returns 0, or -ENOEXEC when
 * it could not run (reported; its status is then 126 or 127). */
int target_release(struct capture_target *t, struct target_handle *h);

/* target_reap - for a command target: collect its exit status if it has
 * exited (or, with @wait, once it exits). Returns true once reaped;
 * t->exit_status is its status, or 128 + signal. */
bool target_reap(struct capture_target *t, struct target_handle *h, bool wait);

/* target_close - release everything @h holds. */
void target_close(struct target_handle *h);

#define TARGET_HANDLE_INIT                                                                         \
	{                                                                                          \
		.pidfd = -1, .gate_fd = -1, .exec_err_fd = -1, .cgroup_fd = -1                     \
	}

#endif
