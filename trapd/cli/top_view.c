// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* top_view.c - one screen of `trapd top` (see top_view.h). */
#include "trapd/cli/top_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapd/profile/report.h"
#include "trapd/profile/stacktree.h"

int top_by__parse(const char *s, enum top_by *out)
{
	if (!strcmp(s, "function"))
		*out = TOP_BY_FUNCTION;
	else if (!strcmp(s, "process"))
		*out = TOP_BY_PROCESS;
	else if (!strcmp(s, "cgroup"))
		*out = TOP_BY_CGROUP;
	else
		return -EINVAL;
	return 0;
}

/* cpu_pct - @count samples of @p as a share of one CPU over its span. */
static double cpu_pct(const struct profile *p, int64_t count)
{
	double span = p->duration_ns > 0 ? (double)p->duration_ns : 1e9;

	return (double)count * (double)p->period_ns / span * 100.0;
}

static int64_t total_samples(const struct profile *p)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		n += p->samples[i].count > 0 ? p->samples[i].count : 0;
	return n;
}

static void header(FILE *out, const struct profile *p)
{
	int64_t n = total_samples(p);
	char when[16] = "";
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(out,
		"trapd top - %s - the last %.0f s at %.0f Hz: %" PRId64
		" samples, %.2f CPUs busy\n\n",
		when, (double)p->duration_ns / 1e9, p->period_ns ? 1e9 / (double)p->period_ns : 0.0,
		n, cpu_pct(p, n) / 100.0);
}

/* clip - @s, which a process may have chosen (its name, a function's,
 * a cgroup's), cleaned as every table cleans names (stacktree__clean_name:
 * no byte of an escape sequence reaches the terminal) and cut to @width
 * columns (bytes; names are ASCII, mostly), in @buf. */
static const char *clip(const char *s, size_t width, char *buf, size_t len)
{
	char clean[STACKTREE_MAX_NAME];

	stacktree__clean_name(clean, sizeof(clean), s);
	if (strlen(clean) <= width)
		snprintf(buf, len, "%.*s", (int)(len - 1), clean);
	else
		snprintf(buf, len, "%.*s~", (int)(width ? width - 1 : 0), clean);
	return buf;
}

/* by_self_then_total - the hottest first: self, then total. */
static int by_self_then_total(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp(x->name, y->name);
}

static int write_functions(FILE *out, const struct profile *p, size_t rows, size_t width)
{
	struct stacktree *t = NULL;
	struct report_row *r = NULL;
	size_t n = 0, i, shown = 0;
	char buf[512];

	/* inlined code is the function's, as trapd report counts it */
	if (stacktree__from_profile(p, &t) || report_functions_outlined(t, &r, &n)) {
		stacktree__free(t);
		return -ENOMEM;
	}
	if (n)
		qsort(r, n, sizeof(*r), by_self_then_total);
	fprintf(out, "%7s %7s  %s\n", "SELF", "TOTAL", "FUNCTION");
	for (i = 0; i < n && shown < rows; i++, shown++)
		fprintf(out, "%6.1f%% %6.1f%%  %s\n", cpu_pct(p, r[i].self), cpu_pct(p, r[i].total),
			clip(r[i].name, width > 17 ? width - 17 : 8, buf, sizeof(buf)));
	free(r);
	stacktree__free(t);
	return 0;
}

/* One process or cgroup: its samples and its hottest leaf function. */
struct group {
	int64_t pid;   /* TOP_BY_PROCESS */
	uint32_t name; /* comm or cgroup: a string index */
	int64_t count;
	uint32_t hottest; /* a function id, 0: unnamed */
};

static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* A sample's group key: a process is its pid and its name, so a process
 * that exec'd in the last seconds is two rows (the shell that started a
 * program, and the program); a cgroup is its name. */
struct group_key {
	int64_t pid;
	uint32_t name;
};

static struct group_key key_of(const struct profile_sample *s, enum top_by by)
{
	if (by == TOP_BY_PROCESS)
		return (struct group_key){ s->pid, s->comm };
	return (struct group_key){ 0, s->cgroup };
}

struct order {
	const struct profile *p;
	enum top_by by;
};

static int by_key(const void *a, const void *b, void *arg)
{
	const struct order *o = arg;
	struct group_key x = key_of(&o->p->samples[*(const size_t *)a], o->by);
	struct group_key y = key_of(&o->p->samples[*(const size_t *)b], o->by);

	if (x.pid != y.pid)
		return x.pid < y.pid ? -1 : 1;
	return x.name < y.name ? -1 : x.name > y.name;
}

/* leaf_function - the function id of @s's leaf, 0 when unnamed. */
static uint32_t leaf_function(const struct profile *p, const struct profile_sample *s)
{
	const uint32_t *locs = profile__sample_locs(p, s);

	if (!s->nlocs || !locs[0] || locs[0] > p->nlocations)
		return 0;
	return p->locations[locs[0] - 1].function;
}

/* Scratch for the hottest leaf of one group: counts by function id, and
 * the ids touched, to clear them for the next group. */
struct leaf_counts {
	int64_t *counts;
	uint32_t *touched;
	size_t ntouched;
};

/* group_run - the samples idx[*i..] of one group, summed into @g (with
 * its hottest leaf); *@i moves past them. */
static void group_run(const struct profile *p, enum top_by by, const size_t *idx, size_t *i,
		      struct leaf_counts *lc, struct group *g)
{
	const struct profile_sample *s = &p->samples[idx[*i]];
	struct group_key k = key_of(s, by), ks;
	uint32_t f, best = 0;

	*g = (struct group){ .pid = k.pid, .name = k.name };
	for (; *i < p->nsamples; (*i)++) {
		s = &p->samples[idx[*i]];
		ks = key_of(s, by);
		if (ks.pid != k.pid || ks.name != k.name)
			break;
		g->count += s->count;
		f = leaf_function(p, s);
		if (!lc->counts[f])
			lc->touched[lc->ntouched++] = f;
		lc->counts[f] += s->count;
		if (lc->counts[f] > lc->counts[best] || (!best && f))
			best = f;
	}
	g->hottest = best;
	while (lc->ntouched)
		lc->counts[lc->touched[--lc->ntouched]] = 0;
}

/* make_groups - the samples grouped by process or cgroup, in one sort
 * and one pass, each with its hottest leaf. */
static int make_groups(const struct profile *p, enum top_by by, struct group **out, size_t *n)
{
	struct leaf_counts lc = { calloc(p->nfunctions + 1, sizeof(*lc.counts)),
				  calloc(p->nfunctions + 1, sizeof(*lc.touched)), 0 };
	size_t *idx = calloc(p->nsamples, sizeof(*idx)), i = 0;
	struct group *g = calloc(p->nsamples, sizeof(*g));
	struct order o = { p, by };
	int err = 0;

	*n = 0;
	if (!lc.counts || !lc.touched || !idx || !g) {
		free(g);
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nsamples; i++)
		idx[i] = i;
	qsort_r(idx, p->nsamples, sizeof(*idx), by_key, &o);
	for (i = 0; i < p->nsamples;)
		group_run(p, by, idx, &i, &lc, &g[(*n)++]);
	qsort(g, *n, sizeof(*g), by_count);
	*out = g;
out:
	free(idx);
	free(lc.counts);
	free(lc.touched);
	return err;
}

static int write_groups(FILE *out, const struct profile *p, enum top_by by, size_t rows,
			size_t width)
{
	char name[160], nbuf[64], fbuf[256];
	struct group *g = NULL;
	size_t n, i;
	int err;

	err = make_groups(p, by, &g, &n);
	if (err)
		return err;
	fprintf(out, "%7s  %-32s %s\n", "CPU", by == TOP_BY_PROCESS ? "PROCESS" : "CGROUP",
		"HOTTEST FUNCTION");
	for (i = 0; i < n && i < rows; i++) {
		if (by == TOP_BY_PROCESS)
			snprintf(name, sizeof(name), "%s[%" PRId64 "]", profile__str(p, g[i].name),
				 g[i].pid);
		else
			snprintf(name, sizeof(name), "%s",
				 g[i].name ? profile__str(p, g[i].name) : "[unknown]");
		fprintf(out, "%6.1f%%  %-32s %s\n", cpu_pct(p, g[i].count),
			clip(name, 32, nbuf, sizeof(nbuf)),
			clip(g[i].hottest ? profile__str(p, p->functions[g[i].hottest - 1].name)
					  : "[unknown]",
			     width > 42 ? width - 42 : 8, fbuf, sizeof(fbuf)));
	}
	free(g);
	return 0;
}

int top_view__write(FILE *out, const struct profile *p, enum top_by by, size_t rows, size_t width)
{
	header(out, p);
	if (!p->nsamples) {
		fprintf(out, "(no sample in these seconds: the host is idle, or the recorder "
			     "just started)\n");
		return 0;
	}
	return by == TOP_BY_FUNCTION ? write_functions(out, p, rows, width)
				     : write_groups(out, p, by, rows, width);
}
