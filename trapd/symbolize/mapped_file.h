/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mapped_file.h - open the file behind a process's memory mapping, the
 * way a profiler must when the process lives in a container or its binary
 * was replaced: through the process's own root, then its map_files entry
 * (which reaches deleted files), then the host's path, and only if the
 * inode matches the mapping's.
 *
 * A target can plant anything at a path: symbolic links resolve inside
 * the target's root, never above it, and a device or FIFO is never opened
 * for reading.
 */
#ifndef TRAPD_MAPPED_FILE_H
#define TRAPD_MAPPED_FILE_H

#include "trapd/symbolize/procmaps.h"

/* mapped_file_open - a read-only fd of the regular file behind mapping @e
 * of @pid, with /proc at @proc_root. Returns the fd, -ESTALE when a
 * different file is at the path (upgraded binary, another container), or
 * another negative errno. */
int mapped_file_open(const char *proc_root, int pid, const struct procmaps_entry *e);

/* mapped_file_open_mapping - a read-only fd of the regular file mapped
 * at [@start, @end) in @pid, through its map_files entry (the mapped file
 * itself: no path is followed), if its inode is @ino. Returns the fd,
 * -ESTALE for another file or one that is not regular (never opened for
 * reading), or another negative errno. */
int mapped_file_open_mapping(const char *proc_root, int pid, uint64_t start, uint64_t end,
			     uint64_t ino);

/* mapped_file_open_in_root - a read-only fd of the regular file at @path
 * as @pid sees it, symbolic links resolved inside its root. Returns the
 * fd or a negative errno (-ESTALE: not a regular file). */
int mapped_file_open_in_root(const char *proc_root, int pid, const char *path);

/* mapped_file_open_host - a read-only fd of the regular file at @path as
 * trapd itself sees it; a device or FIFO there is never opened. Returns
 * the fd or a negative errno (-ESTALE: not a regular file). */
int mapped_file_open_host(const char *path);

#endif
