/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_view.h - which time of a capture its views weigh: on-CPU
 * samples, time off the CPU, or both (wall-clock time).
 *
 * A capture that recorded off-CPU time holds two kinds of samples
 * (profile.h): on-CPU samples, each worth one sampling period of CPU
 * time, and off-CPU samples, each worth the nanoseconds a thread waited
 * with that stack. Every view (the table, folded stacks, flame graphs,
 * diffs) weighs a sample by its count; profile_view__apply turns the
 * chosen time into the counts:
 *
 *	cpu	on-CPU samples, counted as they are (the period unchanged)
 *	offcpu	off-CPU nanoseconds; on-CPU samples weigh 0
 *	wall	count x period + off-CPU nanoseconds: for one thread, every
 *		nanosecond of the window is either on or off a CPU, so this is
 *		where its wall-clock time went
 *
 * The time views leave a profile whose counts are nanoseconds and whose
 * period is 1 ns, so whatever computes time as count x period stays right.
 */
#ifndef TRAPD_PROFILE_VIEW_H
#define TRAPD_PROFILE_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "trapd/profile/profile.h"

enum profile_view {
	PROFILE_VIEW_CPU = 0,
	PROFILE_VIEW_OFFCPU,
	PROFILE_VIEW_WALL,
};

/* The states an off-CPU sample's "state" label takes. */
#define PROFILE_STATE_SLEEPING "sleeping"
#define PROFILE_STATE_UNINTERRUPTIBLE "uninterruptible"
#define PROFILE_STATE_RUNNABLE "runnable"
#define PROFILE_STATE_OTHER "other"

/* profile_view__parse - "cpu", "offcpu" (or "off-cpu") or "wall" into
 * *@v; -EINVAL for anything else. */
int profile_view__parse(const char *s, enum profile_view *v);

/* profile_view__name - "cpu", "offcpu" or "wall". */
const char *profile_view__name(enum profile_view v);

/* profile_view__what - what a view shows, for people: "on-CPU samples",
 * "off-CPU time", "wall-clock time (on + off CPU)". */
const char *profile_view__what(enum profile_view v);

/* profile_view__has_oncpu, __has_offcpu - whether @p holds samples of
 * each kind with a positive weight. */
bool profile_view__has_oncpu(const struct profile *p);
bool profile_view__has_offcpu(const struct profile *p);

/* profile_view__default - the view a reader gets unasked: cpu, unless the
 * profile holds off-CPU time only. */
enum profile_view profile_view__default(const struct profile *p);

/* profile_view__apply - make @p's counts the weights of view @v, in
 * place (see above), and record it in p->view. A profile already turned
 * into a time view is left as it is (-EALREADY). Returns 0. */
int profile_view__apply(struct profile *p, enum profile_view v);

/* profile_view__is_time - whether @p's counts are nanoseconds (a time
 * view was applied). */
static inline bool profile_view__is_time(const struct profile *p)
{
	return p->view != PROFILE_VIEW_CPU;
}

#endif
