// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile_diff.c - the statistics of `trapd diff` and `trapd ci`: what
 * changed between two profiles, and whether it is more than noise. */
#include "trapd/profile/profile_diff.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/profile/report.h"

/* --- distributions ------------------------------------------------------- */

double profile_diff__norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/* beta_cf - the continued fraction of the regularized incomplete beta
 * function I_x(a, b), evaluated with the modified Lentz method; converges
 * fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), f;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	f = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, delta;

		/* The even step, then the odd step, of the fraction. */
		num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		if (fabs(c) < tiny)
			c = tiny;
		f *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		if (fabs(c) < tiny)
			c = tiny;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1.0) < eps)
			break;
	}
	return f;
}

/* beta_reg - I_x(a, b), the regularized incomplete beta function. */
static double beta_reg(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double profile_diff__t_sf(double t, double df)
{
	double tail;

	if (!(df > 0.0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 0.0 : 1.0;
	/* P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2). */
	tail = 0.5 * beta_reg(df / 2.0, 0.5, df / (df + t * t));
	return t > 0 ? tail : 1.0 - tail;
}

/* --- the whole run ------------------------------------------------------- */

/* side_cpu_ns - a side's CPU time: measured, or samples x period. */
static double side_cpu_ns(const struct profile_diff_side *s, int64_t samples, bool *measured)
{
	if (s->cpu_ns > 0) {
		*measured = true;
		return s->cpu_ns;
	}
	*measured = false;
	return (double)samples * (double)(s->period_ns > 0 ? s->period_ns : 1);
}

/* log_mean_var - mean and sample variance of the logs of @n > 1 values. */
static void log_mean_var(const double *v, size_t n, double *mean, double *var)
{
	double sum = 0.0, ss = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += log(v[i]);
	*mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (log(v[i]) - *mean) * (log(v[i]) - *mean);
	*var = ss / (double)(n - 1);
}

static bool runs_usable(const struct profile_diff_side *s)
{
	size_t i;

	if (!s->run_cpu_ns || s->nruns < 2)
		return false;
	for (i = 0; i < s->nruns; i++)
		if (!(s->run_cpu_ns[i] > 0))
			return false;
	return true;
}

/* welch - Welch's t on the logs of both sides' run CPU times: the
 * one-sided p of the observed direction into *p, and the variance of the
 * difference of the mean logs into *var (what the function tests add
 * when they take the CPU time as it is). Returns false when a side has
 * fewer than two usable runs. */
static bool welch(const struct profile_diff_side *b, const struct profile_diff_side *n, double *p,
		  double *var)
{
	double m1, v1, m2, v2, s1, s2, se2, t, df;

	if (!runs_usable(b) || !runs_usable(n))
		return false;
	log_mean_var(b->run_cpu_ns, b->nruns, &m1, &v1);
	log_mean_var(n->run_cpu_ns, n->nruns, &m2, &v2);
	s1 = v1 / (double)b->nruns;
	s2 = v2 / (double)n->nruns;
	se2 = s1 + s2;
	*var = se2;
	if (se2 <= 0.0) {
		/* Identical runs on each side: any difference is certain. */
		*p = m1 == m2 ? 0.5 : 0.0;
		return true;
	}
	t = fabs(m2 - m1) / sqrt(se2);
	df = se2 * se2 /
	     ((s1 > 0 ? s1 * s1 / (double)(b->nruns - 1) : 0) +
	      (s2 > 0 ? s2 * s2 / (double)(n->nruns - 1) : 0));
	*p = profile_diff__t_sf(t, df);
	return true;
}

static enum profile_diff_change judge(double change, double p, double p_max, double thr)
{
	if (p >= p_max)
		return PROFILE_DIFF_SAME;
	if (change > thr)
		return PROFILE_DIFF_REGRESSED;
	/* Shrinking by the threshold's reciprocal: -9.1 % undoes +10 %. */
	if (change < 1.0 / (1.0 + thr) - 1.0)
		return PROFILE_DIFF_IMPROVED;
	return PROFILE_DIFF_SAME;
}

/* --- functions ----------------------------------------------------------- */

/* log_share_ratio - the log of a function's share ratio, new / base,
 * from its counts @c1 of @n1 and @c2 of @n2 samples, and into *var its
 * variance (delta method). Counts get half a sample each so a function
 * absent on one side has a finite ratio. */
static double log_share_ratio(double c1, double n1, double c2, double n2, double *var)
{
	double a = c1 + 0.5, b = c2 + 0.5;
	double p1 = a / (n1 + 0.5), p2 = b / (n2 + 0.5);

	*var = (1.0 - p1) / a + (1.0 - p2) / b;
	return log(p2 / p1);
}

static void fill_function(struct profile_diff_function *f, const struct report_row *r,
			  const struct profile_diff *d)
{
	f->name = r->name;
	f->kind = r->kind;
	f->base_self = r->base_self;
	f->base_total = r->base_total;
	f->new_self = r->self;
	f->new_total = r->total;
	f->base_self_share = (double)r->base_self / (double)d->base_samples;
	f->new_self_share = (double)r->self / (double)d->new_samples;
	f->base_total_share = (double)r->base_total / (double)d->base_samples;
	f->new_total_share = (double)r->total / (double)d->new_samples;
	f->base_n = d->opts.by_total ? f->base_total : f->base_self;
	f->new_n = d->opts.by_total ? f->new_total : f->new_self;
	f->base_share = d->opts.by_total ? f->base_total_share : f->base_self_share;
	f->new_share = d->opts.by_total ? f->new_total_share : f->new_self_share;
	f->base_cpu_ns = f->base_share * d->base_cpu_ns;
	f->new_cpu_ns = f->new_share * d->new_cpu_ns;
	f->p_value = 1.0;
	f->verdict = PROFILE_DIFF_UNTESTED;
}

/* by_added_time - regressions first, then by added self CPU time, the
 * largest growth first; ties by name so the order is stable. */
static int by_added_time(const void *x, const void *y)
{
	const struct profile_diff_function *a = x, *b = y;
	double da = a->new_cpu_ns - a->base_cpu_ns, db = b->new_cpu_ns - b->base_cpu_ns;
	int ra = a->verdict == PROFILE_DIFF_REGRESSED, rb = b->verdict == PROFILE_DIFF_REGRESSED;

	if (ra != rb)
		return rb - ra;
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

static bool shown(const struct report_row *r, bool by_total)
{
	if (by_total)
		return r->total > 0 || r->base_total > 0;
	return r->self > 0 || r->base_self > 0;
}

/* One function's log time ratio, its variance and its weight (its share
 * of both sides' samples), for machine_factor. */
struct time_ratio {
	double log, var, weight;
};

static int by_log(const void *x, const void *y)
{
	const struct time_ratio *a = x, *b = y;

	return a->log < b->log ? -1 : a->log > b->log;
}

/* is_dominant - @r holds the @dominant weight (0: none does). */
static bool is_dominant(const struct time_ratio *r, double dominant)
{
	return dominant > 0 && r->weight >= dominant;
}

/* machine_factor - what moved every function alike, the machine's speed
 * or interrupts that diluted one side: the median of the tested
 * functions' log time ratios @r, weighted by their shares (sorts @r),
 * into d->machine_log and its variance into d->machine_var. The median
 * stands for the functions that did not change while they hold most of
 * the samples. A function holding half of them or more would be its own
 * yardstick: it is left out, and judged against the others. With fewer
 * than two others there is no telling the machine from a function:
 * nothing is set, and the measured CPU time is taken as it is. */
#define MACHINE_MIN_FUNCTIONS 2
static void machine_factor(struct profile_diff *d, struct time_ratio *r, size_t n)
{
	double total = 0.0, sum = 0.0, dominant = 0.0, precision = 0.0;
	const struct time_ratio *median = NULL;
	size_t i, others = 0;

	for (i = 0; i < n; i++)
		total += r[i].weight;
	for (i = 0; i < n; i++) {
		if (r[i].weight >= 0.5 * total)
			dominant = r[i].weight;
		else
			others++;
	}
	if (others < MACHINE_MIN_FUNCTIONS)
		return;
	total -= dominant;
	qsort(r, n, sizeof(*r), by_log);
	for (i = 0; i < n; i++) {
		if (is_dominant(&r[i], dominant))
			continue;
		median = &r[i];
		sum += r[i].weight;
		if (sum >= 0.5 * total)
			break;
	}
	d->machine_found = true;
	d->machine_log = median->log;
	/* The median's variance: pi / 2 times that of the mean the same
	 * functions' ratios would give, weighted by their precision. */
	for (i = 0; i < n; i++)
		if (!is_dominant(&r[i], dominant) && r[i].var > 0)
			precision += 1.0 / r[i].var;
	d->machine_var = precision > 0 ? M_PI_2 / precision : median->var;
}

/* test_function - @f, of log time ratio @l with variance @v, once the
 * machine's factor is taken out. */
static void test_function(struct profile_diff *d, struct profile_diff_function *f, double l,
			  double v)
{
	double thr = d->opts.max_regress_pct / 100.0, se;

	l -= d->machine_log;
	v += d->machine_var;
	/* Two shares of one side's samples move against each other: the
	 * covariance of their logs, -1 / n a side, adds to the difference. */
	if (d->machine_found)
		v += 2.0 * d->bq / (double)d->base_samples + 2.0 * d->nq / (double)d->new_samples;
	if (f->base_n <= 0) {
		f->change = f->new_n > 0 ? INFINITY : 0.0;
		f->new_cpu_ns /= exp(d->machine_log);
	} else {
		f->change = f->new_n > 0 ? exp(l) - 1.0 : -1.0;
		f->new_cpu_ns = f->base_cpu_ns * (1.0 + f->change);
	}
	if (f->verdict == PROFILE_DIFF_UNTESTED)
		return;
	/* No yardstick and one run a side: the run's change may be the
	 * machine's by an amount nobody measured; the test is of the share
	 * alone (the change beyond the whole run's), the change shown and
	 * thresholded stays the time's. */
	if (!d->machine_found && !(d->run_var > 0))
		l -= d->run_log;
	se = sqrt(v);
	f->p_value = se > 0 ? profile_diff__norm_sf(fabs(l) / se) : (l == 0 ? 0.5 : 0.0);
	f->verdict = judge(f->change, f->p_value, d->p_threshold, thr);
	d->nregressed += f->verdict == PROFILE_DIFF_REGRESSED;
}

/* judge_functions - every function with self samples on either side (or
 * total, by_total): its time ratio (its share's ratio times the run's
 * CPU time's) over the machine's factor (machine_factor), tested against
 * the threshold. Counts are tested in units of d->bq and d->nq. */
static int judge_functions(const struct stacktree *t, struct profile_diff *d)
{
	const struct profile_diff_options *o = &d->opts;
	double nb = (double)d->base_samples / d->bq, nn = (double)d->new_samples / d->nq;
	double min_share = o->min_share_pct / 100.0, *logs, *vars;
	double run_log = o->shares_only ? 0.0 : log(d->new_cpu_ns / d->base_cpu_ns);
	struct report_row *rows = NULL;
	struct time_ratio *tested;
	size_t nrows, i, n = 0, k = 0;
	int err;

	d->run_log = run_log;

	err = o->waits ? report_functions_outlined_waiting(t, &rows, &nrows)
		       : report_functions_outlined(t, &rows, &nrows);
	if (err)
		return err;
	d->funcs = calloc(nrows ? nrows : 1, sizeof(*d->funcs));
	tested = calloc(nrows ? nrows : 1, sizeof(*tested));
	logs = calloc(nrows ? nrows : 1, 2 * sizeof(*logs));
	if (!d->funcs || !tested || !logs) {
		free(logs);
		free(tested);
		free(rows);
		return -ENOMEM;
	}
	vars = logs + nrows;
	for (i = 0; i < nrows; i++) {
		struct profile_diff_function *f = &d->funcs[n];
		double fb, fn;

		if (!shown(&rows[i], o->by_total))
			continue;
		fill_function(f, &rows[i], d);
		fb = (double)f->base_n / d->bq;
		fn = (double)f->new_n / d->nq;
		logs[n] = log_share_ratio(fb, nb, fn, nn, &vars[n]) + run_log;
		/* Tested: judged below, from SAME. */
		if (f->base_share >= min_share || f->new_share >= min_share) {
			f->verdict = PROFILE_DIFF_SAME;
			tested[k++] =
				(struct time_ratio){ logs[n], vars[n], (fb + fn) / (nb + nn) };
		}
		n++;
	}
	d->nfuncs = n;
	d->ntested = k;
	d->p_threshold = k ? o->alpha / (double)k : o->alpha;
	/* Without a machine's factor the CPU time is taken as measured, with
	 * the runs' spread. Only for on-CPU self time: totals overlap (a
	 * function's callers grow with it) and time waited is not the
	 * machine's speed. */
	d->machine_var = d->run_var;
	if (!o->shares_only && !o->by_total && !o->time_name && !o->waits)
		machine_factor(d, tested, k);
	for (i = 0; i < n; i++)
		test_function(d, &d->funcs[i], logs[i], vars[i]);
	qsort(d->funcs, n ? n : 1, sizeof(*d->funcs), by_added_time);
	free(logs);
	free(tested);
	free(rows);
	return 0;
}

static bool options_valid(const struct profile_diff_options *o)
{
	return o->max_regress_pct > 0 && o->max_regress_pct <= 1e6 && o->min_share_pct >= 0 &&
	       o->min_share_pct <= 100 && o->alpha > 0 && o->alpha <= 0.5;
}

int profile_diff__compare(const struct stacktree *t, const struct profile_diff_side *base,
			  const struct profile_diff_side *new_side,
			  const struct profile_diff_options *opts, struct profile_diff *out)
{
	static const struct profile_diff_options defaults = PROFILE_DIFF_OPTIONS_INIT;
	bool base_measured, new_measured;
	double p;
	int err;

	memset(out, 0, sizeof(*out));
	out->opts = opts ? *opts : defaults;
	if (!options_valid(&out->opts) || base->nruns > PROFILE_DIFF_MAX_RUNS ||
	    new_side->nruns > PROFILE_DIFF_MAX_RUNS)
		return -EINVAL;
	out->base_samples = t->root->base_total;
	out->new_samples = t->root->total;
	if (out->base_samples <= 0 || out->new_samples <= 0)
		return -EINVAL;
	out->base_cpu_ns = side_cpu_ns(base, out->base_samples, &base_measured);
	out->new_cpu_ns = side_cpu_ns(new_side, out->new_samples, &new_measured);
	out->cpu_measured = base_measured && new_measured;
	out->cpu_change = out->new_cpu_ns / out->base_cpu_ns - 1.0;
	out->base_runs = base->nruns > 1 ? base->nruns : 1;
	out->new_runs = new_side->nruns > 1 ? new_side->nruns : 1;
	if (welch(base, new_side, &p, &out->run_var)) {
		out->cpu_p_value = p;
		out->cpu_verdict = judge(out->cpu_change, p, out->opts.alpha,
					 out->opts.max_regress_pct / 100.0);
	} else {
		/* One run a side: its noise is unknown; the threshold decides. */
		out->cpu_p_value = NAN;
		out->cpu_verdict =
			judge(out->cpu_change, 0.0, 1.0, out->opts.max_regress_pct / 100.0);
	}
	if (!out->opts.judge_cpu_time)
		out->cpu_verdict = PROFILE_DIFF_UNTESTED;
	out->bq = base->quantum > 1 ? base->quantum : 1;
	out->nq = new_side->quantum > 1 ? new_side->quantum : 1;
	err = judge_functions(t, out);
	if (err) {
		profile_diff__free(out);
		return err;
	}
	out->regressed = out->cpu_verdict == PROFILE_DIFF_REGRESSED || out->nregressed > 0;
	return 0;
}

void profile_diff__free(struct profile_diff *d)
{
	if (!d)
		return;
	free(d->funcs);
	d->funcs = NULL;
	d->nfuncs = 0;
}
