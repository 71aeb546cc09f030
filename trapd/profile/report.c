// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* report.c - per-function aggregation of a stacktree and the top table. */
#include "trapd/profile/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/profile/profile_phase.h"
#include "trapd/profile/profile_view.h"

#define MAX_COMMENT_LINES 16

/* An open-addressing table from name to row index; rows grow alongside.
 * Both are bounded by the tree's node count. */
struct agg {
	struct report_row *rows;
	uint32_t *on_path; /* per row: how many of its nodes are on the DFS path */
	size_t nrows, rows_cap;
	uint32_t *slots; /* row index + 1; 0 = empty */
	size_t nslots;	 /* power of two */
	bool outline;	 /* inlined functions' self time is their caller's */
	bool waits;	 /* kernel frames' self time is the user frame's below them */
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int agg_grow_slots(struct agg *a)
{
	size_t n = a->nslots ? a->nslots * 2 : 1024, i, s;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < a->nrows; i++) {
		s = hash_name(a->rows[i].name) & (n - 1);
		while (slots[s])
			s = (s + 1) & (n - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(a->slots);
	a->slots = slots;
	a->nslots = n;
	return 0;
}

static int agg_grow_rows(struct agg *a)
{
	size_t n = a->rows_cap ? a->rows_cap * 2 : 256;
	struct report_row *rows;
	uint32_t *on_path;

	rows = realloc(a->rows, n * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	a->rows = rows;
	on_path = realloc(a->on_path, n * sizeof(*on_path));
	if (!on_path)
		return -ENOMEM;
	a->on_path = on_path;
	a->rows_cap = n;
	return 0;
}

/* agg_row - the index of the row for @n's name, added if missing; or a
 * negative errno. */
static int64_t agg_row(struct agg *a, const struct stacktree_node *n)
{
	size_t s;
	int err;

	if ((a->nrows + 1) * 10 > a->nslots * 7) {
		err = agg_grow_slots(a);
		if (err)
			return err;
	}
	s = hash_name(n->name) & (a->nslots - 1);
	for (; a->slots[s]; s = (s + 1) & (a->nslots - 1))
		if (!strcmp(a->rows[a->slots[s] - 1].name, n->name))
			return a->slots[s] - 1;
	if (a->nrows == a->rows_cap) {
		err = agg_grow_rows(a);
		if (err)
			return err;
	}
	a->rows[a->nrows] = (struct report_row){ .name = n->name, .kind = n->kind };
	a->on_path[a->nrows] = 0;
	a->slots[s] = (uint32_t)++a->nrows;
	return a->nrows - 1;
}

/* aggregate - add @n and its subtree. A node's total counts only when no
 * ancestor has the same name: the outermost call of a recursion already
 * holds every sample below it. With @a->outline, an inlined function has
 * no row: its self time is @owner's, the row of the function it was
 * inlined into. */
static int aggregate(struct agg *a, const struct stacktree_node *n, int64_t owner,
		     int64_t user_owner)
{
	struct report_row *r;
	int64_t idx = -1;
	uint32_t i;
	int err;

	if (n->depth >= 2 && a->outline && n->kind == STACKTREE_KIND_INLINED && owner >= 0) {
		r = &a->rows[owner];
		r->self = sat_add(r->self, n->self);
		r->base_self = sat_add(r->base_self, n->base_self);
	} else if (n->depth >= 2) {
		idx = agg_row(a, n);
		if (idx < 0)
			return (int)idx;
		r = &a->rows[idx];
		if (a->waits && n->kind == STACKTREE_KIND_KERNEL && user_owner >= 0)
			r = &a->rows[user_owner];
		r->self = sat_add(r->self, n->self);
		r->base_self = sat_add(r->base_self, n->base_self);
		r = &a->rows[idx];
		if (!a->on_path[idx]) {
			r->total = sat_add(r->total, n->total);
			r->base_total = sat_add(r->base_total, n->base_total);
		}
		a->on_path[idx]++;
		owner = idx;
		if (n->kind != STACKTREE_KIND_KERNEL)
			user_owner = idx;
	}
	for (i = 0; i < n->nchildren; i++) {
		err = aggregate(a, n->children[i], owner, user_owner);
		if (err)
			return err;
	}
	if (idx >= 0)
		a->on_path[idx]--;
	return 0;
}

static int row_cmp(const void *x, const void *y)
{
	const struct report_row *a = x, *b = y;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int functions(const struct stacktree *t, bool outline, bool waits, struct report_row **rows,
		     size_t *nrows)
{
	struct agg a = { .outline = outline, .waits = waits };
	int err;

	*rows = NULL;
	*nrows = 0;
	err = aggregate(&a, t->root, -1, -1);
	free(a.slots);
	free(a.on_path);
	if (err) {
		free(a.rows);
		return err;
	}
	if (a.nrows)
		qsort(a.rows, a.nrows, sizeof(*a.rows), row_cmp);
	*rows = a.rows;
	*nrows = a.nrows;
	return 0;
}

int report_functions(const struct stacktree *t, struct report_row **rows, size_t *nrows)
{
	return functions(t, false, false, rows, nrows);
}

int report_functions_waiting(const struct stacktree *t, struct report_row **rows, size_t *nrows)
{
	return functions(t, false, true, rows, nrows);
}

int report_functions_outlined(const struct stacktree *t, struct report_row **rows, size_t *nrows)
{
	return functions(t, true, false, rows, nrows);
}

int report_functions_outlined_waiting(const struct stacktree *t, struct report_row **rows,
				      size_t *nrows)
{
	return functions(t, true, true, rows, nrows);
}

/* --- the summary line --- */

static int pid_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* count_processes - distinct pids among the counted samples; 0 when the
 * profile has no pid labels (not a trapd capture); or -ENOMEM. */
static int64_t count_processes(const struct profile *p)
{
	size_t i, n = 0, distinct = 0;
	bool labelled = false;
	int64_t *pids;

	pids = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	for (i = 0; i < p->nsamples; i++) {
		if (p->samples[i].count <= 0)
			continue;
		labelled |= p->samples[i].pid != 0;
		pids[n++] = p->samples[i].pid;
	}
	qsort(pids, n, sizeof(*pids), pid_cmp);
	for (i = 0; i < n; i++)
		distinct += !i || pids[i] != pids[i - 1];
	free(pids);
	return labelled ? (int64_t)distinct : 0;
}

/* format_ns - a time for a table cell or summary: "1.234s", "12.3ms",
 * "45us". */
static const char *format_ns(char *buf, size_t len, int64_t ns)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%" PRId64 "us", ns / 1000);
	return buf;
}

int report_summary(char *buf, size_t len, const struct profile *p, const struct stacktree *t)
{
	int64_t total = t->root->total, procs = count_processes(p);
	char when[32];
	double hz;
	size_t o;

	if (procs < 0)
		return (int)procs;
	if (!len)
		return 0;
	if (profile_view__is_time(p))
		snprintf(buf, len, "%s of %s", format_ns(when, sizeof(when), total),
			 profile_view__what((enum profile_view)p->view));
	else
		snprintf(buf, len, "%" PRId64 " sample%s", total, total == 1 ? "" : "s");
	o = strlen(buf);
	if (p->duration_ns > 0 && o < len)
		snprintf(buf + o, len - o, " over %.2fs", (double)p->duration_ns / 1e9);
	o = strlen(buf);
	if (p->period_ns > 0 && !profile_view__is_time(p) && o < len) {
		hz = 1e9 / (double)p->period_ns;
		snprintf(buf + o, len - o, hz >= 10 ? " at %.0f Hz" : " at %.3g Hz", hz);
	}
	o = strlen(buf);
	if (procs > 0 && o < len)
		snprintf(buf + o, len - o, ", %" PRId64 " process%s", procs,
			 procs == 1 ? "" : "es");
	return 0;
}

/* --- the table --- */

/* fit_name - @name cut to @cols characters (UTF-8 code points; the tree
 * guarantees valid UTF-8), ending in "..." when cut. */
static const char *fit_name(char *buf, size_t len, const char *name, size_t cols)
{
	size_t chars = 0, i, keep = 0;

	for (i = 0; name[i]; i++) {
		if (((unsigned char)name[i] & 0xc0) == 0x80)
			continue;
		if (chars == cols - 3)
			keep = i;
		chars++;
	}
	if (chars <= cols || keep + 4 > len)
		return name;
	memcpy(buf, name, keep);
	memcpy(buf + keep, "...", 4);
	return buf;
}

static void write_comments(FILE *out, const struct profile *p)
{
	char line[STACKTREE_MAX_NAME], clean[STACKTREE_MAX_NAME];
	unsigned shown = 0, hidden = 0;
	const char *c, *nl;
	uint32_t i;
	size_t n;

	for (i = 0; i < p->ncomments; i++) {
		/* One "# " line per line of the comment. */
		for (c = profile__str(p, p->comments[i]); *c; c = nl ? nl + 1 : c + n) {
			nl = strchr(c, '\n');
			n = nl ? (size_t)(nl - c) : strlen(c);
			if (shown == MAX_COMMENT_LINES) {
				hidden++;
				continue;
			}
			snprintf(line, sizeof(line), "%.*s", (int)n, c);
			/* the history's scalars are for programs: in words here */
			if (profile_phase__comment_words(line, clean, sizeof(clean)))
				snprintf(line, sizeof(line), "%s", clean);
			fprintf(out, "# %s\n", stacktree__clean_name(clean, sizeof(clean), line));
			shown++;
		}
	}
	if (hidden)
		fprintf(out, "# (%u more comment lines)\n", hidden);
}

/* inlined_self - whether a sample's leaf is in inlined code, below @n. */
static bool inlined_self(const struct stacktree_node *n)
{
	uint32_t i;

	if (n->kind == STACKTREE_KIND_INLINED && n->self)
		return true;
	for (i = 0; i < n->nchildren; i++)
		if (inlined_self(n->children[i]))
			return true;
	return false;
}

static void write_notes(FILE *out, const struct stacktree *t)
{
	if (t->truncated)
		fprintf(out,
			"Note: %" PRId64 " samples had stacks cut at %zu nodes or %d frames;"
			" they count at the deepest frame kept\n",
			t->truncated, t->max_nodes, PROFILE_MAX_DEPTH);
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* write_time_rows - the table of a time view: self and total as times. */
static void write_time_rows(FILE *out, const struct report_row *rows, size_t n, int64_t whole)
{
	char self[32], total[32], buf[STACKTREE_MAX_NAME];
	int cols = REPORT_COLUMNS - (7 + 1 + 9 + 1 + 7 + 1 + 9 + 2);
	size_t i;

	fprintf(out, "%7s %9s %7s %9s  %s\n", "self%", "self", "total%", "total", "function");
	for (i = 0; i < n; i++)
		fprintf(out, "%6.1f%% %9s %6.1f%% %9s  %s\n", pct(rows[i].self, whole),
			format_ns(self, sizeof(self), rows[i].self), pct(rows[i].total, whole),
			format_ns(total, sizeof(total), rows[i].total),
			fit_name(buf, sizeof(buf), rows[i].name, (size_t)cols));
}

static void write_rows(FILE *out, const struct report_row *rows, size_t n, int64_t whole)
{
	char num[24], buf[STACKTREE_MAX_NAME];
	size_t i;
	int w, cols;

	w = snprintf(num, sizeof(num), "%" PRId64, whole);
	if (w < 7)
		w = 7;
	/* "100.0% <count> 100.0% <count>  name" */
	cols = REPORT_COLUMNS - (7 + 1 + w + 1 + 7 + 1 + w + 2);
	if (cols < 24)
		cols = 24;
	fprintf(out, "%7s %*s %7s %*s  %s\n", "self%", w, "self", "total%", w, "total", "function");
	for (i = 0; i < n; i++)
		fprintf(out, "%6.1f%% %*" PRId64 " %6.1f%% %*" PRId64 "  %s\n",
			pct(rows[i].self, whole), w, rows[i].self, pct(rows[i].total, whole), w,
			rows[i].total, fit_name(buf, sizeof(buf), rows[i].name, (size_t)cols));
}

int report_write_top(FILE *out, const struct profile *p, const struct stacktree *t, size_t top)
{
	struct report_row *rows = NULL;
	char summary[256];
	size_t nrows, shown;
	int err;

	err = report_summary(summary, sizeof(summary), p, t);
	if (err)
		return err;
	/* Off the CPU every stack ends in the scheduler: the user function
	 * that waited is the news. Code inlined into a function is the
	 * function's, as perf counts self time and as trapd diff, ci and top
	 * compare it. */
	err = p->view == PROFILE_VIEW_OFFCPU ? report_functions_outlined_waiting(t, &rows, &nrows)
					     : report_functions_outlined(t, &rows, &nrows);
	if (err)
		return err;
	fprintf(out, "Total: %s\n", summary);
	write_comments(out, p);
	write_notes(out, t);
	if (inlined_self(t->root))
		fprintf(out, "# inlined code counts as the function it is inlined into (the flame "
			     "graph, folded stacks and pprof show it)\n");
	shown = top && top < nrows ? top : nrows;
	if (nrows && profile_view__is_time(p))
		write_time_rows(out, rows, shown, t->root->total);
	else if (nrows)
		write_rows(out, rows, shown, t->root->total);
	else
		fprintf(out, "No stack frames in this profile.\n");
	if (shown < nrows)
		fprintf(out, "(%zu more function%s; --top 0 lists all)\n", nrows - shown,
			nrows - shown == 1 ? "" : "s");
	free(rows);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
