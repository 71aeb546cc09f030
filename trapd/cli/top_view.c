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

/* clip - @s cut to @width columns (bytes; names are ASCII, mostly). */
static const char *clip(const char *s, size_t width, char *buf, size_t len)
{
	if (strlen(s) <= width)
		return s;
	snprintf(buf, len, "%.*s~", (int)(width ? width - 1 : 0), s);
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

	if (stacktree__from_profile(p, &t) || report_functions(t, &r, &n)) {
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
};

static int by_count(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* same_group - a process is its pid and its name: a process that exec'd
 * in the last seconds is two rows (the shell that started a program, and
 * the program). */
static bool same_group(const struct group *g, const struct profile_sample *s, enum top_by by)
{
	return by == TOP_BY_PROCESS ? g->pid == s->pid && g->name == s->comm : g->name == s->cgroup;
}

/* leaf_function - the function id of @s's leaf, 0 when unnamed. */
static uint32_t leaf_function(const struct profile *p, const struct profile_sample *s)
{
	const uint32_t *locs = profile__sample_locs(p, s);

	if (!s->nlocs || !locs[0] || locs[0] > p->nlocations)
		return 0;
	return p->locations[locs[0] - 1].function;
}

/* hottest - the name of @g's leaf function with the most samples. */
static const char *hottest(const struct profile *p, const struct group *g, enum top_by by,
			   int64_t *counts)
{
	uint32_t f, best = 0;
	size_t i;

	memset(counts, 0, (p->nfunctions + 1) * sizeof(*counts));
	for (i = 0; i < p->nsamples; i++) {
		if (!same_group(g, &p->samples[i], by))
			continue;
		f = leaf_function(p, &p->samples[i]);
		counts[f] += p->samples[i].count;
		if (counts[f] > counts[best] || (!best && f))
			best = f;
	}
	return best ? profile__str(p, p->functions[best - 1].name) : "[unknown]";
}

static int write_groups(FILE *out, const struct profile *p, enum top_by by, size_t rows,
			size_t width)
{
	struct group *g = NULL, *ng;
	int64_t *counts = calloc(p->nfunctions + 1, sizeof(*counts));
	size_t n = 0, cap = 0, i, j;
	char name[160], nbuf[64], fbuf[256];

	if (!counts)
		return -ENOMEM;
	for (i = 0; i < p->nsamples; i++) {
		for (j = 0; j < n && !same_group(&g[j], &p->samples[i], by); j++)
			;
		if (j == n) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				ng = realloc(g, cap * sizeof(*g));
				if (!ng) {
					free(g);
					free(counts);
					return -ENOMEM;
				}
				g = ng;
			}
			g[n].pid = p->samples[i].pid;
			g[n].name =
				by == TOP_BY_PROCESS ? p->samples[i].comm : p->samples[i].cgroup;
			g[n++].count = 0;
		}
		g[j].count += p->samples[i].count;
	}
	if (n)
		qsort(g, n, sizeof(*g), by_count);
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
			clip(hottest(p, &g[i], by, counts), width > 42 ? width - 42 : 8, fbuf,
			     sizeof(fbuf)));
	}
	free(g);
	free(counts);
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
