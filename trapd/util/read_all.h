/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* read_all - the whole of an open file, with a cap on what it may cost.
 *
 * Files trapd reads whole (a capture to report on, a sidecar, a process's
 * maps) can be any size, and some (procfs, pipes) say none in advance;
 * one loop reads them all: from 4 KiB, doubling, never past the cap.
 */
#ifndef TRAPD_READ_ALL_H
#define TRAPD_READ_ALL_H

#include <stdbool.h>
#include <stddef.h>

/* read_all - read @fd to its end into a malloc'd buffer *@out (@*len
 * bytes, and a NUL after them that *@len does not count; the caller
 * frees it). At most @max bytes: with @truncated NULL, a file holding
 * more is an error (-EFBIG, nothing returned); otherwise the first @max
 * bytes are returned and *@truncated says whether more were there.
 * Returns 0 or a negative errno (EINTR is retried). */
int read_all(int fd, size_t max, char **out, size_t *len, bool *truncated);

#endif
