// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ci_run.c - one run of the CI trap: cgroup, session, measurements. */
#include "trapd/ci/ci_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trapd/capture/capture_loop.h"
#include "trapd/capture/run_cgroup.h"
#include "trapd/capture/session.h"
#include "trapd/util/clock.h"
#include "trapd/util/log.h"

static struct session *open_session(const struct ci_run_opts *o, struct run_cgroup *cg)
{
	struct session_opts so = {
		.target = { .kind = CAPTURE_TARGET_COMMAND, .argv = o->argv },
		.freq_hz = o->freq_hz,
		.unwind = o->unwind,
		.stack_copy_bytes = o->stack_copy_bytes,
		.record = o->record,
		.command_cgroup = cg,
	};
	struct session *s;
	char err[512];

	s = session__open(&so, err, sizeof(err));
	if (!s && err[0])
		log_error("%s", err);
	return s;
}

/* finish - after the window: measurements, then the profile. */
static int finish(struct session *s, struct run_cgroup *cg, int64_t started, struct ci_run *run,
		  struct capture_info *info, struct profile **out)
{
	uint64_t cpu_ns = 0;
	char err[512];
	int e;

	session__wait_command(s);
	run->wall_ns = clock_mono_ns() - started;
	run->exit_status = session__target(s)->exit_status;
	e = run_cgroup__cpu_ns(cg, &cpu_ns, err, sizeof(err));
	if (e) {
		log_error("reading the run's CPU time: %s", err);
		return e;
	}
	run->cpu_ns = cpu_ns > INT64_MAX ? INT64_MAX : (int64_t)cpu_ns;
	e = session__build(s, info, out, err, sizeof(err));
	if (e)
		log_error("%s", err);
	return e;
}

int ci_run__once(const struct ci_run_opts *o, int sigfd, struct capture_info *info,
		 struct profile **out, struct ci_run *run, int *signo)
{
	struct run_cgroup_opts co = { .parent = o->parent_cgroup };
	struct run_cgroup *cg = NULL;
	struct session *s = NULL;
	int64_t started;
	char err[512];
	int e;

	*out = NULL;
	*signo = 0;
	memset(run, 0, sizeof(*run));
	cg = run_cgroup__create(&co, err, sizeof(err));
	if (!cg) {
		e = -errno;
		log_error("creating the run's cgroup: %s", err);
		return e == -EINVAL ? -EIO : e;
	}
	s = open_session(o, cg);
	if (!s) {
		e = errno == EINVAL ? -EINVAL : -(errno ? errno : EIO);
		goto out;
	}
	started = clock_mono_ns();
	e = session__start(s, started);
	if (e == -ENOEXEC) {
		run->exit_status = session__target(s)->exit_status;
		e = 0;
		goto out;
	}
	if (e) {
		log_error("starting the sampler: %s", strerror(-e));
		goto out;
	}
	*signo = capture_loop__run(s, sigfd);
	e = finish(s, cg, started, run, info, out);
	/* They point into the session's symbolizer and worker, freed below. */
	info->sym_files = NULL;
	info->nsym_files = 0;
	info->budget = NULL;
out:
	session__free(s);
	if (run_cgroup__destroy(cg, err, sizeof(err)))
		log_warn("removing the run's cgroup: %s", err);
	run_cgroup__free(cg);
	return e;
}
