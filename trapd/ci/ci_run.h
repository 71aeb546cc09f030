/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ci_run.h - one run of `trapd ci`: the command started in a cgroup of
 * its own, sampled (children and their orphans included) from its first
 * instruction to its exit, its wall and CPU time measured, and the cgroup
 * removed, with whatever the command left running in it killed.
 */
#ifndef TRAPD_CI_RUN_H
#define TRAPD_CI_RUN_H

#include <stdint.h>

#include "trapd/capture/capture.h"
#include "trapd/capture/run_record.h"
#include "trapd/capture/unwind_summary.h"
#include "trapd/profile/profile.h"

struct ci_run_opts {
	char *const *argv;
	uint64_t freq_hz;
	const char *parent_cgroup; /* NULL: the cgroup trapd runs in */
	enum unwind_mode unwind;   /* how user stacks are walked (session_opts) */
	uint32_t stack_copy_bytes; /* per sample in DWARF mode; 0: the session's default */
	uint32_t record;	   /* SAMPLER_RECORD_* bits; 0: on-CPU samples */
};

/* ci_run__once - run @o->argv once; @sigfd is capture_loop's signalfd.
 * On success *@out is the run's symbolized profile (free it with
 * profile__free), @run its measurements and exit status, @info filled as
 * by session__finish. *@signo is the signal that interrupted the run, or
 * 0. Returns 0 (the command ran, whatever its exit status: see
 * run->exit_status; 127 when it could not be executed), -EINVAL for bad
 * input (reported), or another negative errno (reported). */
int ci_run__once(const struct ci_run_opts *o, int sigfd, struct capture_info *info,
		 struct profile **out, struct ci_run *run, int *signo);

#endif
