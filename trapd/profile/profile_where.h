/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_where.h - keep the samples whose labels say so: what
 * `--where call=slow` of `trapd report` and `trapd diff` does.
 *
 * A condition is LABEL=VALUE. Conditions on one label are alternatives
 * (call=slow and call=unknown: either), conditions on different labels
 * must all hold (call=slow and comm=nginx: both). The labels are those of
 * a capture's samples (profile.h):
 *
 *	call    slow, fast, outside, unknown (samples split by call)
 *	state   sleeping, uninterruptible, runnable, other (off-CPU time)
 *	comm    the thread's name
 *	cgroup  the cgroup's path
 *	pid, tid, run    numbers
 *
 * A sample without the label (an on-CPU sample has no state) does not
 * match a condition on it.
 */
#ifndef TRAPD_PROFILE_WHERE_H
#define TRAPD_PROFILE_WHERE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/profile/profile.h"

#define PROFILE_WHERE_MAX 16 /* conditions of one filter */

enum profile_label {
	PROFILE_LABEL_CALL,
	PROFILE_LABEL_STATE,
	PROFILE_LABEL_COMM,
	PROFILE_LABEL_CGROUP,
	PROFILE_LABEL_PID,
	PROFILE_LABEL_TID,
	PROFILE_LABEL_RUN,
	PROFILE_LABEL_NR,
};

struct profile_where_cond {
	enum profile_label label;
	const char *value; /* as given (the caller's string) */
	int64_t num;	   /* pid, tid, run */
};

struct profile_where {
	struct profile_where_cond conds[PROFILE_WHERE_MAX];
	size_t n;
};

/* profile_where__add - add condition @text ("LABEL=VALUE", kept by
 * pointer). Returns 0, or -EINVAL (no '=', an unknown label, a number
 * that is not one, too many conditions) with @err saying which. */
int profile_where__add(struct profile_where *w, const char *text, char *err, size_t errlen);

/* profile_where__match - whether sample @s of @p meets @w (an empty
 * filter keeps everything). */
bool profile_where__match(const struct profile_where *w, const struct profile *p,
			  const struct profile_sample *s);

/* profile_where__apply - drop the samples of @p that do not meet @w, in
 * place. Returns how many samples are left. */
size_t profile_where__apply(struct profile *p, const struct profile_where *w);

/* profile_where__describe - @w as text, "call=slow comm=nginx", into
 * @buf; "" for an empty filter. Returns @buf. */
char *profile_where__describe(const struct profile_where *w, char *buf, size_t len);

/* profile_where__values - the distinct values of @label among @p's
 * samples, "fast, outside, slow" (sorted; "none" when no sample has it),
 * into @buf: what a filter that matched nothing could have asked for.
 * Returns @buf. */
char *profile_where__values(const struct profile *p, enum profile_label label, char *buf,
			    size_t len);

/* profile_label__name - "call", "state"... */
const char *profile_label__name(enum profile_label l);

#endif
