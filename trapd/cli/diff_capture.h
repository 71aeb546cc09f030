/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* diff_capture.h - two captures compared, from their files to the
 * outputs: what `trapd diff` does, and what `trapd ci` does after its
 * runs. A capture is its profile plus, when its sidecar has one, the "ci"
 * record of the runs it holds (measured CPU times).
 */
#ifndef TRAPD_DIFF_CAPTURE_H
#define TRAPD_DIFF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "trapd/capture/run_record.h"
#include "trapd/profile/profile.h"
#include "trapd/profile/profile_diff.h"

struct diff_capture {
	const char *path;
	struct profile *profile;
	struct run_record *ci; /* NULL: no sidecar, or one without "ci" */
	double run_cpu_ns[RUN_RECORD_MAX_RUNS];
	/* > 0: the side's CPU time as the caller has it (both sides from one
	 * capture: the same, so functions compare by share); else the ci
	 * record's, or the samples' */
	double cpu_ns;
	double quantum; /* its counts per sample in the tests (a time view's period) */
};

/* What to write, and where ("-" is stdout; NULL: not asked for). */
struct diff_outputs {
	bool text;			    /* the terminal table on stdout */
	const char *markdown;		    /* Markdown summary */
	const char *svg;		    /* differential flame graph */
	size_t top;			    /* functions listed each way; 0: all */
	const char *base_label, *new_label; /* NULL: the files' base names */
};

/* diff_capture__read - read @path (and its sidecar, when there is one)
 * into @c. Returns an exit status (TRAPD_EXIT_OK, _USAGE for a file that
 * is not a profile or a malformed "ci" record, _FAILURE), reported. */
int diff_capture__read(struct diff_capture *c, const char *path);

/* diff_capture__compare - judge @new_cap against @base with @opts and
 * write @outs. Returns TRAPD_EXIT_OK, TRAPD_EXIT_REGRESSION, or an error
 * status (reported): _USAGE for a capture without samples, _FAILURE when
 * an output cannot be written. */
int diff_capture__compare(const struct diff_capture *base, const struct diff_capture *new_cap,
			  const struct profile_diff_options *opts, const struct diff_outputs *outs);

/* diff_capture__where - keep the samples of @c that meet @w (an empty
 * filter keeps all). Its "ci" record no longer describes what is left:
 * dropped. Returns TRAPD_EXIT_OK, or _USAGE when no sample meets @w
 * (reported). */
struct profile_where;
int diff_capture__where(struct diff_capture *c, const struct profile_where *w);

/* diff_capture__phase - keep the samples of phase @phase of @c
 * (profile_phase.h: "before", "during", "all"); NULL: the window of a
 * capture that holds its history too (each side then counts samples of
 * one period). Its "ci" record is dropped when a phase other than the
 * window is kept. Returns TRAPD_EXIT_OK, or _USAGE when the phase asked
 * for has no sample (reported). */
int diff_capture__phase(struct diff_capture *c, const char *phase);

/* diff_capture__view - weigh @c's samples by view @v (profile_view.h):
 * a time view's counts are nanoseconds, tested in units of the sampling
 * period they replace; its "ci" record (CPU time) no longer applies. */
void diff_capture__view(struct diff_capture *c, int v);

/* diff_capture__parse_view - --view V of `trapd diff` and `trapd ci` into
 * *@v (an enum profile_view), and what it changes in comparison options
 * @o: the time's name, and self time off the CPU going to the code that
 * waited. Returns 0 or -EINVAL (reported). */
int diff_capture__parse_view(const char *s, void *v, struct profile_diff_options *o);

/* diff_capture__release - free what @c holds (not @c). */
void diff_capture__release(struct diff_capture *c);

#endif
