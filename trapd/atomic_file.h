/* atomic_file.h - write a whole file or nothing.
 *
 * Every file trapd writes (captures, sidecars, reports) goes through here,
 * so a crash, a full disk or a killed process never leaves a truncated
 * file that looks complete.
 */
#ifndef TRAPD_ATOMIC_FILE_H
#define TRAPD_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the content into @f; returns 0 or a negative errno. */
typedef int (*atomic_file_fill)(FILE *f, void *ctx);

/* atomic_file_write - @fill writes the content into a temporary file next
 * to @path (mode 0644 less the umask), which is flushed, fsync'd, renamed
 * over @path, and the directory fsync'd. On failure no temporary file is
 * left and an existing @path is untouched.
 *
 * A @path that exists and is not a regular file (a device, a FIFO, a
 * symlink such as /dev/stdout) is written in place instead: replacing
 * /dev/null with a regular file as root would be a disaster.
 *
 * Returns 0 or a negative errno; @err names the path and the step that
 * failed, and says "disk full" for ENOSPC. */
int atomic_file_write(const char *path, atomic_file_fill fill, void *ctx, char *err,
		      size_t errlen);

/* atomic_file_write_or_stdout - atomic_file_write, except that @path "-"
 * means stdout: @fill writes there directly and stdout is flushed (the
 * views a command can print instead of writing a file). */
int atomic_file_write_or_stdout(const char *path, atomic_file_fill fill, void *ctx, char *err,
				size_t errlen);

/* atomic_file_write_bytes - the same for @len bytes at @data. */
int atomic_file_write_bytes(const char *path, const void *data, size_t len, char *err,
			    size_t errlen);

#endif
