// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* mapped_file.c - open mapped files through the target's eyes. */
#include "trapd/symbolize/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* open_checked - turn the O_PATH descriptor @pfd (closed here) into a
 * readable one if it is a regular file with inode @ino (0: any). Opening
 * through O_PATH first means a device or FIFO planted at the path is
 * never opened for reading. Returns an fd, -ESTALE for another file, or a
 * negative errno. */
static int open_checked(int pfd, uint64_t ino)
{
	char self[64];
	struct stat st;
	int fd, err;

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0) {
		err = -errno;
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode) || (ino && (uint64_t)st.st_ino != ino)) {
		err = -ESTALE;
		goto cleanup;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : fd;
cleanup:
	close(pfd);
	return err;
}

/* open_in_root - @path inside the root directory of @pid, resolving
 * symbolic links within that root, never above it. */
static int open_in_root(const char *proc_root, int pid, const char *path, uint64_t ino)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[PATH_MAX];
	int rfd, pfd, n;

	n = snprintf(root, sizeof(root), "%s/%d/root", proc_root, pid);
	if (n < 0 || (size_t)n >= sizeof(root))
		return -ENAMETOOLONG;
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	pfd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	n = open_checked(pfd, ino);
	close(rfd);
	return n;
}

static int open_map_files(const char *proc_root, int pid, const struct procmaps_entry *e)
{
	char p[PATH_MAX];
	int n;

	n = snprintf(p, sizeof(p), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, proc_root, pid, e->start,
		     e->end);
	if (n < 0 || (size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	return open_checked(open(p, O_PATH | O_CLOEXEC), e->inode);
}

int mapped_file_open_mapping(const char *proc_root, int pid, uint64_t start, uint64_t end,
			     uint64_t ino)
{
	struct procmaps_entry e = { .start = start, .end = end, .inode = ino };

	return open_map_files(proc_root, pid, &e);
}

int mapped_file_open_in_root(const char *proc_root, int pid, const char *path)
{
	return open_in_root(proc_root, pid, path, 0);
}

int mapped_file_open_host(const char *path)
{
	return open_checked(open(path, O_PATH | O_CLOEXEC), 0);
}

int mapped_file_open(const char *proc_root, int pid, const struct procmaps_entry *e)
{
	bool stale = false;
	int fd;

	if (!e->deleted) {
		fd = open_in_root(proc_root, pid, e->path, e->inode);
		if (fd >= 0)
			return fd;
		stale = fd == -ESTALE;
	}
	fd = open_map_files(proc_root, pid, e);
	if (fd >= 0)
		return fd;
	stale = stale || fd == -ESTALE;
	fd = open_checked(open(e->path, O_PATH | O_CLOEXEC), e->inode);
	if (fd >= 0)
		return fd;
	/* A different file at the path says more than a missing one. */
	return stale ? -ESTALE : fd;
}
