/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_phase.h - the parts of a capture in time: the seconds before
 * its trigger, from the daemon's flight recorder, and its window.
 *
 * A capture that holds its history has two phases, each sample labelled
 * with its own (profile.h):
 *
 *	before	sampled at the recorder's low rate for the seconds before the
 *		decision; each sample carries that period (a count of it is
 *		count x its period of CPU time)
 *	during	the window, at the capture's frequency: the profile's period
 *
 * A comment of the profile says what the history covers (when it began,
 * how long, at what period), so the phase can be read back alone with
 * its own time and rate, from the profile without its sidecar:
 *
 *	"phase before: time_ns=T duration_ns=D period_ns=P"
 *
 * Reports read one phase at a time (profile_phase__select): the counts
 * of one phase are of one period. "all" converts the history's counts to
 * the window's period, by time.
 */
#ifndef TRAPD_PROFILE_PHASE_H
#define TRAPD_PROFILE_PHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/profile/profile.h"

#define PROFILE_PHASE_BEFORE "before"
#define PROFILE_PHASE_DURING "during"
#define PROFILE_PHASE_ALL "all"

/* profile_phase__splice - make @before (the recorder's history: its own
 * period, time and duration) the "before" phase of capture @p, whose own
 * samples become "during". @p keeps its period, time and duration; the
 * history's are in the phase comment and on its samples. @before is read
 * only (its period is restored before return). Returns 0 or a negative
 * errno: @p then holds its own samples again, without phases (the phase
 * comment may stay). */
int profile_phase__splice(struct profile *p, struct profile *before);

/* profile_phase__has - whether a sample of @p has a phase. */
bool profile_phase__has(const struct profile *p);

/* profile_phase__check - whether @name is "before", "during" or "all";
 * -EINVAL otherwise. */
int profile_phase__check(const char *name);

/* profile_phase__select - keep the samples of phase @name of @p, in
 * place: "before" gives the profile the history's period, time and
 * duration (from its phase comment; the samples' own period when that is
 * missing); "during" the window's, as the profile has them; "all" keeps
 * every sample, the history's counts converted to the window's period
 * (remainders carried, so the time is kept within one period), over the
 * time from the history's start to the window's end. A profile
 * without phases is all "during": "before" leaves no sample. Returns 0,
 * -EINVAL for another name. */
int profile_phase__select(struct profile *p, const char *name);

/* profile_phase__samples - the on-CPU samples of phase @name in @p (for
 * a note saying what a report left out). */
int64_t profile_phase__samples(const struct profile *p, const char *name);

/* profile_phase__comment_words - @comment, when it is the phase comment
 * profile_phase__splice writes (nanoseconds, for programs), in words for
 * a person into @buf ("phase before: from 2026-11-29T10:00:00Z, 10.00s
 * at 19 Hz"); NULL for any other comment. */
const char *profile_phase__comment_words(const char *comment, char *buf, size_t len);

#endif
