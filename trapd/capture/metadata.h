/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* metadata.h - the JSON sidecar of a capture (CAPTURE.json).
 *
 * It says what the capture is without opening it: id, host, kernel,
 * trapd version, labels, trigger and the rules that fired it (with their
 * signals' recent history), target, window, frequency, samples, losses and
 * symbolization coverage. Its format is documented in
 * docs/capture-format.md; "format": "trapd-capture/1" names its version.
 */
#ifndef TRAPD_METADATA_H
#define TRAPD_METADATA_H

#include <stddef.h>
#include <stdio.h>

#include "trapd/capture/capture_info.h"

#define METADATA_FORMAT "trapd-capture/1"
#define METADATA_MAX_SYM_FILES 64 /* objects listed under symbols.mappings */

/* metadata_emit - write the sidecar's JSON for @info to @out; @profile_path
 * is the capture file it describes (its base name is recorded). Returns 0
 * or a negative errno. */
int metadata_emit(FILE *out, const struct capture_info *info, const char *profile_path);

/* metadata_kernel_walk - "kernel_walk": the kernel walk's walks (those
 * kept, by how they ended: @ends[SAMPLER_WALK_NR], and the @copied ones
 * handed to a stack copy), the frames it stepped by frame pointer and
 * its tables, as the sidecar's unwind and trapd status write them. */
struct json_writer;
struct unwind_tables_stats;
void metadata_kernel_walk(struct json_writer *w, const uint64_t *ends, uint64_t fp_frames,
			  uint64_t copied, const struct unwind_tables_stats *t);

/* metadata_write - the same into @path, atomically (temporary file, fsync,
 * rename). Returns 0 or a negative errno with @err filled. */
int metadata_write(const char *path, const struct capture_info *info, const char *profile_path,
		   char *err, size_t errlen);

#endif
