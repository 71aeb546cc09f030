/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* atomic_file.h - write a whole file or nothing, and never through
 * something planted at its name.
 *
 * Every file trapd writes (captures, sidecars, reports) goes through here,
 * so a crash, a full disk or a killed process never leaves a truncated
 * file that looks complete, and trapd, running as root, never writes
 * through a symbolic link, a FIFO or a device another user put where the
 * file goes:
 *
 *   - the content goes to a new temporary file (O_CREAT|O_EXCL|O_NOFOLLOW,
 *     a random name) in the destination's directory, opened once, and is
 *     renamed over the destination: rename replaces a symbolic link, it
 *     does not follow it;
 *   - a character device at the destination (/dev/null, /dev/full) is
 *     written in place, never replaced (as root a rename would turn
 *     /dev/null into a regular file); only root can make a device node,
 *     so none is another user's plant;
 *   - anything else that is not a regular file or a symbolic link (a
 *     FIFO, a socket, a block device, a directory) is refused, never
 *     opened;
 *   - in a sticky directory (/tmp), an entry that belongs to another user
 *     (not us, not the directory's owner) is refused, not replaced: the
 *     rule the kernel applies with fs.protected_regular, applied to root
 *     too;
 *   - "-" and "/dev/stdout" mean stdout, written directly: the one way to
 *     write to a stream, and the caller's explicit choice.
 */
#ifndef TRAPD_ATOMIC_FILE_H
#define TRAPD_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the content into @f; returns 0 or a negative errno. */
typedef int (*atomic_file_fill)(FILE *f, void *ctx);

/* atomic_file_is_stdout - @path is "-" or "/dev/stdout". */
bool atomic_file_is_stdout(const char *path);

/* atomic_file_is_stream - @path is stdout or a character device: where
 * a capture goes without a sidecar next to it. */
bool atomic_file_is_stream(const char *path);

/* atomic_file_check - whether atomic_file_write may write @path, without
 * writing anything: 0, or -EEXIST (something not a regular file is
 * there that may not be), -EPERM (another user's entry in a sticky
 * directory), -ENOENT
 * (no such directory) or another negative errno, @err saying what and
 * what to do. Lets a command refuse a destination before its work. */
int atomic_file_check(const char *path, char *err, size_t errlen);

/* atomic_file_write - @fill writes the content into a temporary file in
 * @path's directory (mode 0644 less the umask), which is flushed,
 * fsync'd, renamed over @path, and the directory fsync'd. On failure no
 * temporary file is left and an existing @path is untouched. Stdout for
 * "-" and "/dev/stdout" (see above).
 *
 * Returns 0 or a negative errno (atomic_file_check's refusals included);
 * @err names the path and the step that failed, and says "disk full" for
 * ENOSPC. */
int atomic_file_write(const char *path, atomic_file_fill fill, void *ctx, char *err, size_t errlen);

/* atomic_file_write_or_stdout - atomic_file_write (which takes "-" for
 * stdout too); kept for the views a command can print instead of writing
 * a file. */
int atomic_file_write_or_stdout(const char *path, atomic_file_fill fill, void *ctx, char *err,
				size_t errlen);

/* atomic_file_write_bytes - the same for @len bytes at @data. */
int atomic_file_write_bytes(const char *path, const void *data, size_t len, char *err,
			    size_t errlen);

#endif
