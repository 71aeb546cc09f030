/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* capture.h - a capture's id, turning a window copied out of the sampler
 * into a symbolized profile, and writing the capture's files
 * (CAPTURE.pb.zst and CAPTURE.json). What a capture is, as data, is
 * capture_info.h.
 *
 * Used by `trapd capture` and, for every trigger, by the daemon.
 */
#ifndef TRAPD_CAPTURE_H
#define TRAPD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trapd/capture/capture_info.h"
#include "trapd/capture/cgroup_names.h"
#include "trapd/capture/pyframes.h"
#include "trapd/capture/sample_dump.h"
#include "trapd/profile/profile.h"
#include "trapd/symbolize/symbolizer.h"

/* capture_new_id - fill @info->id with a fresh random id. */
int capture_new_id(struct capture_info *info);

/* capture_build_profile - symbolize the closed window copied into @d with
 * @sym (and the Python code objects the window announced, in @py: NULL
 * when none) and return a new profile in *out (period, time, duration, labels and
 * a summary in its comments, from @info). Sets info->samples_stored and
 * info->symbols and info->sym_files (valid while @sym lives). Returns 0 or
 * a negative errno. */
int capture_build_profile(const struct sample_dump *d, struct symbolizer *sym, struct pyframes *py,
			  struct capture_info *info, struct profile **out);

/* capture_add_samples - symbolize every sample of @d with @sym into @p,
 * labelled as a capture's are (cgroup paths from @names, kept by the
 * caller), with the Python frames of @py (NULL: none; names are added to
 * @p: see pyframes__new_profile), without calls or summary (the flight
 * recorder's seconds: history.h). Kernel names come from whatever @sym
 * was told to use. Returns the on-CPU samples added (>= 0) or a negative
 * errno. */
int64_t capture_add_samples(const struct sample_dump *d, struct symbolizer *sym,
			    struct pyframes *py, struct profile *p, struct cgroup_names *names);

/* capture_write - write @p to @path (.pb.zst) and the metadata sidecar
 * next to it (the same name with .json instead of .pb.zst), both or
 * neither: a profile whose sidecar could not be written (a full disk) is
 * removed. Both go through atomic_file (never written through a link or
 * FIFO at either name; both names checked before either is written).
 * @path "-", "/dev/stdout" or a character device: the profile alone. Sets
 * info->profile_bytes. Returns 0 or a negative errno with @err filled. */
int capture_write(const char *path, const struct profile *p, struct capture_info *info, char *err,
		  size_t errlen);

#endif
