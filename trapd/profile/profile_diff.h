/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_diff.h - compare two CPU profiles of the same work: did it get
 * slower, and which functions did it?
 *
 * The inputs are a stacktree holding BASE on its base side and NEW on its
 * main side (stacktree__add_profile), and what each side's runs cost in
 * CPU time. Two things are judged, each against --max-regress:
 *
 *   the whole run   its CPU time, NEW against BASE. Measured (cgroup
 *                   cpu.stat) when the captures say so, otherwise
 *                   estimated from the samples (count x period).
 *   each function   its self CPU time: its share of the side's samples
 *                   times the side's CPU time. A function that became 30 %
 *                   slower shows as +30 % whatever else changed.
 *
 * A change is a regression only when it is both larger than the threshold
 * and significant: a sample count is a binomial draw from the run, so a
 * function's share carries sampling error, and a small function's +40 %
 * can be chance. Functions below min_share of both sides' samples are
 * shown but not tested: they cannot move the run, and each test spends
 * alpha. The tests are at a family-wise level alpha over the functions
 * tested (Bonferroni).
 *
 * A function is judged by its time (its share of the samples times the
 * run's CPU time) over the machine's factor: the median of the tested
 * functions' time ratios, weighted by their samples, which stands for
 * the functions that did not change while they hold most of the samples.
 * What moves every function alike cancels: the machine's speed, where
 * the same binary's CPU time moves by tens of percent between runs on a
 * shared host (measured on a VM: Debian's xz, 1.43 to 2.13 s in 25 runs;
 * three runs took 4.1 s, then 4.6 to 6.5 s in the next minutes), and
 * interrupts that dilute one side's samples (a baseline with 7 % of them
 * in softirqs). A function made 20 % slower shows +20 %; a change that
 * slows every function alike is not seen by the functions' tests. A
 * function holding half the samples or more is left out of the median
 * (it would be its own yardstick) and judged against the others; with
 * fewer than two others the CPU time is taken as measured. So it is too
 * for total times (a function's callers grow with it) and time views
 * (time waited is not the machine's speed). The test is
 * one-sided on the log of the ratio, with the delta-method errors of the
 * function's share, of the median (pi / 2 times that of the others'
 * precision-weighted mean) and of their covariance.
 *
 * The whole run's CPU time is measured (cgroup cpu.stat) or estimated
 * from the samples (count x period), and always shown; it is judged only
 * when asked (judge_cpu_time: on a machine whose speed holds). With
 * several runs a side (struct profile_diff_side.runs) its test is Welch's
 * t on the runs' CPU times; with one run a side the threshold alone.
 */
#ifndef TRAPD_PROFILE_DIFF_H
#define TRAPD_PROFILE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/profile/stacktree.h"

#define PROFILE_DIFF_DEFAULT_MAX_REGRESS 10.0 /* % */
#define PROFILE_DIFF_DEFAULT_MIN_SHARE 1.0    /* % of a side's samples */
#define PROFILE_DIFF_DEFAULT_ALPHA 0.01
#define PROFILE_DIFF_MAX_RUNS 1000

struct profile_diff_options {
	double max_regress_pct; /* > 0: growth allowed before it is a regression */
	double min_share_pct;	/* 0 .. 100: functions tested */
	double alpha;		/* 0 .. 0.5: family-wise false alarm rate */
	/* judge each function's total time (itself and what it calls), not
	 * its self time: what makes one side's calls slower than the
	 * other's, whether the function or its callees do the work */
	bool by_total;
	/* What the counts weigh, for people: NULL is "CPU time" (samples);
	 * a time view's counts are nanoseconds ("off-CPU time") */
	const char *time_name;
	/* a kernel frame's self time is the user function's below it (the
	 * code that waited: report_functions_waiting), for views of time
	 * off the CPU, whose every stack ends in the scheduler */
	bool waits;
	/* both sides are parts of one capture (its phases, or its samples
	 * under conditions): each is its own whole and only shares compare;
	 * the reports say so and show no time change between the sides */
	bool shares_only;
	/* also judge the whole run's CPU time against the threshold: for a
	 * machine whose speed holds from one run to the next (otherwise
	 * shown, and UNTESTED) */
	bool judge_cpu_time;
};

#define PROFILE_DIFF_OPTIONS_INIT                                                                  \
	{                                                                                          \
		.max_regress_pct = PROFILE_DIFF_DEFAULT_MAX_REGRESS,                               \
		.min_share_pct = PROFILE_DIFF_DEFAULT_MIN_SHARE,                                   \
		.alpha = PROFILE_DIFF_DEFAULT_ALPHA                                                \
	}

/* What one side's runs cost. */
struct profile_diff_side {
	double cpu_ns;		  /* CPU time of all its runs; <= 0: estimate from samples */
	int64_t period_ns;	  /* sampling period, for the estimate; 0: unknown */
	const double *run_cpu_ns; /* each run's CPU time, or NULL */
	size_t nruns;		  /* entries in run_cpu_ns (0 or 1: one run) */
	/* Counts worth one sample in the tests: 0 or 1 for samples; for a
	 * time view's nanoseconds, the sampling period they replace, so a
	 * period's worth of waiting weighs in the test as a sample does */
	double quantum;
};

enum profile_diff_change {
	PROFILE_DIFF_SAME,	/* within the threshold, or not significant */
	PROFILE_DIFF_REGRESSED, /* grew past the threshold, significantly */
	PROFILE_DIFF_IMPROVED,	/* shrank past the threshold, significantly */
	PROFILE_DIFF_UNTESTED,	/* under min_share on both sides */
};

struct profile_diff_function {
	const char *name; /* the tree's: valid while the tree lives */
	enum stacktree_kind kind;
	int64_t base_self, base_total, new_self, new_total; /* samples */
	double base_self_share, new_self_share;		    /* of the side's samples, 0 .. 1 */
	double base_total_share, new_total_share;
	int64_t base_n, new_n;	      /* what is judged: self, or total (by_total) */
	double base_share, new_share; /* ... as a share of the side's samples */
	/* self (or total) CPU time, estimated; NEW's at BASE's machine speed
	 * (the machine's factor taken out, profile_diff.c's machine_factor) */
	double base_cpu_ns, new_cpu_ns;
	/* the time's ratio over the machine's factor, - 1: what the
	 * function's time grew by beside the others; INFINITY when new */
	double change;
	double p_value; /* one-sided, of the change's direction; 1 untested */
	enum profile_diff_change verdict;
};

struct profile_diff {
	/* The whole run. */
	int64_t base_samples, new_samples;
	double bq, nq; /* counts worth one sample in the tests (quantum) */
	/* the log of the time ratio that moved every function alike (the
	 * machine's speed): 0 where none is told apart (profile_diff.c's
	 * machine_factor), and its variance */
	double machine_log, machine_var;
	bool machine_found; /* machine_log is the functions' (else the CPU time's, 0) */
	double run_var;	    /* of the log of the runs' mean CPU time ratio (Welch); 0: one run */
	double run_log;	    /* log of the run's CPU time ratio, new / base */
	double base_cpu_ns, new_cpu_ns;
	bool cpu_measured;  /* both sides' CPU time was measured, not estimated */
	double cpu_change;  /* new / base - 1 */
	double cpu_p_value; /* Welch's t with runs on both sides; else NAN (not testable) */
	size_t base_runs, new_runs;
	enum profile_diff_change cpu_verdict; /* UNTESTED unless opts.judge_cpu_time */

	/* Every function, regressions first (largest added CPU time first),
	 * then the rest by added CPU time, largest growth first. */
	struct profile_diff_function *funcs;
	size_t nfuncs;
	size_t ntested;	    /* functions tested (over min_share) */
	double p_threshold; /* alpha / ntested: a function's p must be below it */
	size_t nregressed;  /* functions REGRESSED */
	bool regressed;	    /* the whole run or any function regressed */
	struct profile_diff_options opts;
};

/* profile_diff__compare - judge NEW (main side of @t) against BASE (base
 * side) into @out (release with profile_diff__free). @opts NULL means
 * PROFILE_DIFF_OPTIONS_INIT. Returns 0, -EINVAL for options out of range,
 * a side without samples, or runs beyond PROFILE_DIFF_MAX_RUNS, or
 * -ENOMEM. */
int profile_diff__compare(const struct stacktree *t, const struct profile_diff_side *base,
			  const struct profile_diff_side *new_side,
			  const struct profile_diff_options *opts, struct profile_diff *out);

void profile_diff__free(struct profile_diff *d);

/* profile_diff__norm_sf - P(Z > z) for a standard normal Z. */
double profile_diff__norm_sf(double z);

/* profile_diff__t_sf - P(T > t) for Student's t with @df degrees of
 * freedom (df > 0, not necessarily whole: Welch's). */
double profile_diff__t_sf(double t, double df);

#endif
