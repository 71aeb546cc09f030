// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* target.c - resolve, start and follow what a capture samples. */
#include "trapd/capture/target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rules/cgroup_path.h"
#include "trapd/util/log.h"

int target_parse_pid(const char *s, pid_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 4194304)
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* spawn_gated - fork a child that waits for the gate before exec'ing argv,
 * so sampling is armed before its first instruction. */
static int spawn_gated(struct capture_target *t, struct target_handle *h)
{
	int gate[2], report[2];
	pid_t pid;
	char c;

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(report, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int e;
		sigset_t none;

		close(gate[1]);
		close(report[0]);
		if (read(gate[0], &c, 1) != 1)
			_exit(127);
		/* The command gets the signal state a shell would give it. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		execvp(t->argv[0], t->argv);
		e = errno;
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(gate[0]);
	close(report[1]);
	t->pid = pid;
	h->gate_fd = gate[1];
	h->exec_err_fd = report[0];
	h->pidfd = pidfd_open(pid);
	return 0;
}

static int prepare_cgroup(struct capture_target *t, const char *name, struct sampler_opts *o,
			  struct target_handle *h)
{
	int err = cgroup_resolve(NULL, name, &t->cgroup);
	char v2[4096];

	if (err) {
		if (cgroup_v2_mount(NULL, v2, sizeof(v2)))
			snprintf(v2, sizeof(v2), "(no cgroup v2 mount)");
		log_error("no cgroup '%s': %s (a relative name is looked up under %s)", name,
			  err == -EINVAL ? "not a cgroup directory" : strerror(-err), v2);
		return -EINVAL;
	}
	if (t->cgroup.version == CGROUP_V1) {
		/* BPF can only test v2 membership; a v1 cgroup is followed
		 * through its member list and the fork hook instead. */
		o->target = SAMPLER_TARGET_PIDS;
		o->follow_forks = true;
		return 0;
	}
	h->cgroup_fd = open(t->cgroup.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->cgroup_fd < 0) {
		err = -errno;
		log_error("cannot open cgroup %s: %s", t->cgroup.path, strerror(-err));
		return err;
	}
	o->target = SAMPLER_TARGET_CGROUP;
	o->cgroup_fd = h->cgroup_fd;
	return 0;
}

int target_prepare(struct capture_target *t, const char *cgroup_name, struct sampler_opts *o,
		   struct target_handle *h)
{
	o->cgroup_fd = -1;
	switch (t->kind) {
	case CAPTURE_TARGET_PID:
		h->pidfd = pidfd_open(t->pid);
		if (h->pidfd < 0) {
			log_error("no process with pid %d", (int)t->pid);
			return -EINVAL;
		}
		o->target = SAMPLER_TARGET_PIDS;
		return 0;
	case CAPTURE_TARGET_CGROUP:
		return prepare_cgroup(t, cgroup_name, o, h);
	case CAPTURE_TARGET_COMMAND:
		o->target = SAMPLER_TARGET_PIDS;
		o->follow_forks = true;
		return spawn_gated(t, h);
	default:
		o->target = SAMPLER_TARGET_ALL;
		return 0;
	}
}

int target_command_into(struct capture_target *t, struct run_cgroup *cg, struct sampler_opts *o,
			struct target_handle *h, char *err, size_t errlen)
{
	int e;

	if (t->kind != CAPTURE_TARGET_COMMAND || t->pid <= 0) {
		snprintf(err, errlen, "only a command can be put in a cgroup of its own");
		return -EINVAL;
	}
	e = run_cgroup__attach(cg, t->pid, err, errlen);
	if (e)
		return e;
	if (!run_cgroup__id(cg))
		return 0; /* no v2 tree: follow the forks */
	h->cgroup_fd = open(run_cgroup__path(cg), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->cgroup_fd < 0) {
		e = -errno;
		snprintf(err, errlen, "opening %s: %s", run_cgroup__path(cg), strerror(-e));
		return e;
	}
	o->target = SAMPLER_TARGET_CGROUP;
	o->cgroup_fd = h->cgroup_fd;
	o->follow_forks = false;
	return 0;
}

bool target_follows_members(const struct capture_target *t)
{
	return t->kind == CAPTURE_TARGET_CGROUP && t->cgroup.version == CGROUP_V1;
}

static void watch_v1_members(const char *dir, struct sampler *s)
{
	char path[4200], line[32];
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (target_parse_pid(line, &pid) == 0)
			sampler__add_pid(s, pid);
	}
	fclose(f);
}

void target_watch(const struct capture_target *t, struct sampler *s)
{
	if (t->kind == CAPTURE_TARGET_PID || t->kind == CAPTURE_TARGET_COMMAND)
		sampler__add_pid(s, t->pid);
	else if (target_follows_members(t))
		watch_v1_members(t->cgroup.path, s);
}

int target_release(struct capture_target *t, struct target_handle *h)
{
	int e = 0;

	if (t->kind != CAPTURE_TARGET_COMMAND)
		return 0;
	if (write(h->gate_fd, "x", 1) != 1)
		return -errno;
	close(h->gate_fd);
	h->gate_fd = -1;
	/* The report pipe closes on a successful exec, or carries errno. */
	if (read(h->exec_err_fd, &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		log_error("cannot run '%s': %s", t->argv[0], strerror(e));
		target_reap(t, h, true);
		return -ENOEXEC;
	}
	return 0;
}

bool target_reap(struct capture_target *t, struct target_handle *h, bool wait)
{
	int status;
	pid_t got;

	if (t->kind != CAPTURE_TARGET_COMMAND || h->reaped || t->pid <= 0)
		return h->reaped;
	/* A command never released exits at once when its gate closes. */
	if (h->gate_fd >= 0) {
		close(h->gate_fd);
		h->gate_fd = -1;
	}
	do
		got = waitpid(t->pid, &status, wait ? 0 : WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got != t->pid)
		return false;
	h->reaped = true;
	t->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return true;
}

void target_close(struct target_handle *h)
{
	int *fds[] = { &h->pidfd, &h->gate_fd, &h->exec_err_fd, &h->cgroup_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
