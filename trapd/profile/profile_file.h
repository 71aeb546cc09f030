/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_file.h - the files a capture is stored in.
 *
 * A capture is a pprof profile compressed with zstd (CAPTURE.pb.zst) plus
 * a JSON metadata sidecar (CAPTURE.json, see metadata.h). Readers also
 * accept a gzip-compressed or plain pprof file, so `trapd report` works on
 * what `go tool pprof` and other profilers write.
 */
#ifndef TRAPD_PROFILE_FILE_H
#define TRAPD_PROFILE_FILE_H

#include <stddef.h>

#include "trapd/profile/profile.h"

/* Decompressed input larger than this is refused (a zstd bomb). */
#define PROFILE_FILE_MAX_BYTES (1ull << 30)

/* profile_file__write - encode @p, compress with zstd and write it to
 * @path atomically (temporary file, fsync, rename). Returns 0 or a
 * negative errno; @err says what failed. */
int profile_file__write(const char *path, const struct profile *p, char *err, size_t errlen);

/* profile_file__write_gzip - the same profile as gzip-compressed pprof
 * (what `go tool pprof` and most tools expect). */
int profile_file__write_gzip(const char *path, const struct profile *p, char *err, size_t errlen);

/* profile_file__read - read @path (zstd, gzip or plain pprof, told apart
 * by magic bytes) into a new profile (*out). Returns 0; -ENOENT/-EACCES
 * etc. when the file cannot be read; -EBADMSG when it is corrupt or
 * truncated; -E2BIG when it (or its decompressed content) is larger than
 * PROFILE_FILE_MAX_BYTES or a profile cap is hit (@err names the file and
 * the problem). */
int profile_file__read(const char *path, struct profile **out, char *err, size_t errlen);

/* profile_file__read_bounded - profile_file__read with at most
 * @max_bytes of file and of decompressed pprof (-E2BIG past them), for a
 * reader of many files that bounds what each may cost; *@bytes (when not
 * NULL) gets the bytes decompressed, also on failure. */
int profile_file__read_bounded(const char *path, size_t max_bytes, size_t *bytes,
			       struct profile **out, char *err, size_t errlen);

/* profile_file__decode - what profile_file__read does once the file is in
 * memory: decompress the @len bytes at @buf (zstd, gzip or none, by magic
 * bytes; at most @max_bytes of output, more is -E2BIG) and decode the
 * pprof profile into a new profile (*out). @name (a path, say) starts
 * every message in @err. Returns 0, -EBADMSG, -E2BIG or -ENOMEM. */
int profile_file__decode(const void *buf, size_t len, size_t max_bytes, const char *name,
			 struct profile **out, char *err, size_t errlen);

/* profile_file__sidecar_path - "x.pb.zst" -> "x.json" (any other name gets
 * ".json" appended). Returns 0, -ENAMETOOLONG, or -ENOENT for stdout
 * ("-", "/dev/stdout") and character devices, which have no sidecar. */
int profile_file__sidecar_path(const char *path, char *out, size_t len);

#endif
