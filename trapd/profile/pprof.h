/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pprof.h - encode and decode pprof's profile.proto (uncompressed bytes).
 *
 * The encoder writes every field of struct profile: sample types
 * [samples/count, cpu/nanoseconds] and, when a sample was off the CPU,
 * off_cpu/nanoseconds (the default sample type is then cpu, or off_cpu
 * when no sample was on the CPU), per-sample labels pid, tid, run
 * (numeric; run only when set), comm, cgroup and state (strings), mappings with build IDs, locations with a
 * Line per function of their inline chain (innermost first, with its
 * source line when known), functions (with their start line when known),
 * the string table, time, duration, period type
 * cpu/nanoseconds, period and comments. `go tool pprof` reads the result.
 *
 * The decoder reads any valid profile.proto (not only trapd's): the first
 * value is a sample's count, the one of the sample type named off_cpu its
 * off-CPU nanoseconds, others and unknown fields are skipped,
 * multi-line (inlined) locations keep every line (up to
 * PROFILE_MAX_INLINE_DEPTH; more is an error). The input
 * is untrusted: every length and index is checked, every table is capped
 * (profile.h), and a malformed buffer yields -EBADMSG with a message in
 * @err naming what was wrong and at which byte offset.
 */
#ifndef TRAPD_PPROF_H
#define TRAPD_PPROF_H

#include <stddef.h>

#include "trapd/profile/profile.h"

/* pprof_encode - serialise @p; on success *out is a malloc'd buffer of
 * *len bytes owned by the caller. Returns 0 or a negative errno. */
int pprof_encode(const struct profile *p, void **out, size_t *len);

/* pprof_decode - parse @len bytes at @buf into a new profile (*out, free
 * with profile__free). Returns 0, -EBADMSG (malformed; @err says why),
 * -E2BIG (a cap was hit) or -ENOMEM. */
int pprof_decode(const void *buf, size_t len, struct profile **out, char *err, size_t errlen);

#endif
