// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_comms.c - comm files kept open between scans (proc_comms.h). */
#include "rules/proc_comms.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct comm_file {
	pid_t pid; /* 0: an empty slot */
	int fd;
	uint32_t scan; /* the last scan that listed its pid */
};

struct proc_comms {
	struct comm_file *files, *spare; /* open addressing on pid; the spare for sweeps */
	size_t cap, n, max;
	uint32_t scan;
	char root[PATH_MAX]; /* the proc_root the files are under */
};

struct proc_comms *proc_comms__new(void)
{
	struct proc_comms *c = calloc(1, sizeof(*c));
	struct rlimit rl;

	if (!c)
		return NULL;
	c->max = PROC_COMMS_MAX;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < c->max)
		c->max = rl.rlim_cur / 2;
	/* a table at most half full: twice the files it may keep */
	for (c->cap = 64; c->cap < 2 * c->max; c->cap *= 2)
		;
	c->files = calloc(c->cap, sizeof(*c->files));
	c->spare = calloc(c->cap, sizeof(*c->spare));
	if (!c->files || !c->spare) {
		proc_comms__free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

static void close_all(struct proc_comms *c)
{
	size_t i;

	for (i = 0; i < c->cap; i++)
		if (c->files[i].pid)
			close(c->files[i].fd);
	memset(c->files, 0, c->cap * sizeof(*c->files));
	c->n = 0;
}

void proc_comms__free(struct proc_comms *c)
{
	if (!c)
		return;
	if (c->files)
		close_all(c);
	free(c->files);
	free(c->spare);
	free(c);
}

static size_t slot_of(pid_t pid, size_t cap)
{
	return (size_t)(((uint32_t)pid * 0x9e3779b1u) >> 7) & (cap - 1);
}

static struct comm_file *find(struct proc_comms *c, pid_t pid)
{
	size_t j;

	for (j = slot_of(pid, c->cap); c->files[j].pid; j = (j + 1) & (c->cap - 1))
		if (c->files[j].pid == pid)
			return &c->files[j];
	return &c->files[j];
}

/* read_open - the comm in open file @fd; false when the task is gone. */
static bool read_open(int fd, char comm[PROC_STAT_COMM_LEN])
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	proc_stat_comm_text(buf, comm);
	return true;
}

static int read_comm(void *rctx, const char *proc_root, pid_t pid, char comm[PROC_STAT_COMM_LEN])
{
	struct proc_comms *c = rctx;
	struct comm_file *f = find(c, pid);
	char path[PATH_MAX];
	int fd;

	if (f->pid) {
		f->scan = c->scan;
		if (read_open(f->fd, comm))
			return 0;
		/* its task is gone: the pid may be another's now */
		close(f->fd);
		f->fd = -1;
	}
	if (snprintf(path, sizeof(path), "%s/%d/comm", proc_root, (int)pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	if (!read_open(fd, comm)) {
		close(fd);
		if (f->pid) /* an entry whose file could not be replaced: swept */
			f->scan = c->scan - 1;
		return -ENOENT;
	}
	if (f->pid) {
		f->fd = fd;
	} else if (c->n < c->max) {
		*f = (struct comm_file){ .pid = pid, .fd = fd, .scan = c->scan };
		c->n++;
	} else {
		close(fd);
	}
	return 0;
}

/* sweep - close the files of the pids this scan did not list, and lay the
 * others out again without the holes (into the spare table: no
 * allocation). */
static void sweep(struct proc_comms *c)
{
	struct comm_file *t;
	size_t i, j;

	memset(c->spare, 0, c->cap * sizeof(*c->spare));
	c->n = 0;
	for (i = 0; i < c->cap; i++) {
		if (!c->files[i].pid)
			continue;
		if (c->files[i].scan != c->scan || c->files[i].fd < 0) {
			if (c->files[i].fd >= 0)
				close(c->files[i].fd);
			continue;
		}
		for (j = slot_of(c->files[i].pid, c->cap); c->spare[j].pid;
		     j = (j + 1) & (c->cap - 1))
			;
		c->spare[j] = c->files[i];
		c->n++;
	}
	t = c->files;
	c->files = c->spare;
	c->spare = t;
}

int proc_comms__scan(struct proc_comms *c, const char *proc_root, proc_stat_scan_fn fn, void *ctx,
		     char *err, size_t errlen)
{
	int ret;

	if (strcmp(c->root, proc_root)) {
		close_all(c);
		snprintf(c->root, sizeof(c->root), "%s", proc_root);
	}
	c->scan++;
	ret = proc_stat_scan_with(proc_root, read_comm, c, fn, ctx, err, errlen);
	sweep(c);
	return ret;
}

size_t proc_comms__kept(const struct proc_comms *c)
{
	return c->n;
}
