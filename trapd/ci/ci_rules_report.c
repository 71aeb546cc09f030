// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ci_rules_report.c - what fired during a `trapd ci -c` run, as a
 * terminal table and as Markdown (ci_rules_report.h). */
#include "trapd/ci/ci_rules_report.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "rules/units.h"

#define CMDLINE_MAX 160 /* of the command line shown */
#define CELL_MAX 200

int ci_rules_report__init(struct ci_rules_report *rep, const struct rules *r)
{
	size_t i;

	memset(rep, 0, sizeof(*rep));
	rep->cpu_ns = -1;
	rep->rules_path = r->path;
	rep->rules = calloc(r->nrules ? r->nrules : 1, sizeof(*rep->rules));
	if (!rep->rules)
		return -ENOMEM;
	rep->nrules = r->nrules;
	for (i = 0; i < r->nrules; i++)
		rep->rules[i].rule = &r->rules[i];
	return 0;
}

void ci_rules_report__release(struct ci_rules_report *rep)
{
	free(rep->rules);
	rep->rules = NULL;
	rep->nrules = 0;
}

void ci_rules_report__reading(struct ci_rules_report *rep, size_t i, int64_t value)
{
	struct ci_report_rule *rr = &rep->rules[i];

	if (!rr->have_peak || (rr->rule->above ? value > rr->peak : value < rr->peak)) {
		rr->peak = value;
		rr->have_peak = true;
	}
}

void ci_rules_report__fire(struct ci_rules_report *rep, size_t i, int64_t at_ns, int64_t value,
			   bool dry_run, const char *capture, const char *err)
{
	struct ci_report_fire *f;

	rep->rules[i].fires++;
	rep->fires_total++;
	ci_rules_report__reading(rep, i, value);
	if (rep->nfires == CI_REPORT_FIRES_MAX)
		return;
	f = &rep->fires[rep->nfires++];
	memset(f, 0, sizeof(*f));
	snprintf(f->rule, sizeof(f->rule), "%s", rep->rules[i].rule->name);
	f->at_ns = at_ns;
	f->value = value;
	f->dry_run = dry_run;
	snprintf(f->capture, sizeof(f->capture), "%s", capture ? capture : "");
	snprintf(f->err, sizeof(f->err), "%s", err ? err : "");
}

void ci_rules_report__capture(struct ci_rules_report *rep, const char *id, const char *path,
			      const char *err)
{
	struct ci_report_capture *c;

	rep->captures_total++;
	if (rep->ncaptures == CI_REPORT_CAPTURES_MAX)
		return;
	c = &rep->captures[rep->ncaptures++];
	snprintf(c->id, sizeof(c->id), "%s", id);
	snprintf(c->path, sizeof(c->path), "%s", path ? path : "");
	snprintf(c->err, sizeof(c->err), "%s", path || !err ? "" : err);
}

/* --- the words both forms share ---------------------------------------- */

static const struct rule *find_rule(const struct ci_rules_report *rep, const char *name)
{
	size_t i;

	for (i = 0; i < rep->nrules; i++)
		if (!strcmp(rep->rules[i].rule->name, name))
			return rep->rules[i].rule;
	return NULL;
}

/* capture_text - what became of a fire: the capture's file name, "dry
 * run", "not captured: why", or "capture lost: why". */
static const char *capture_text(const struct ci_rules_report *rep, const struct ci_report_fire *f,
				char *buf, size_t len)
{
	size_t i;

	if (f->dry_run) {
		snprintf(buf, len, "dry run: not captured");
		return buf;
	}
	if (!f->capture[0]) {
		snprintf(buf, len, "not captured: %s", f->err[0] ? f->err : "no capture");
		return buf;
	}
	for (i = 0; i < rep->ncaptures; i++) {
		const struct ci_report_capture *c = &rep->captures[i];
		char copy[PATH_MAX];

		if (strcmp(c->id, f->capture))
			continue;
		if (!c->path[0]) {
			snprintf(buf, len, "capture lost: %s", c->err);
			return buf;
		}
		snprintf(copy, sizeof(copy), "%s", c->path);
		snprintf(buf, len, "%s", basename(copy));
		return buf;
	}
	snprintf(buf, len, "capture %.8s", f->capture);
	return buf;
}

static size_t rules_fired(const struct ci_rules_report *rep)
{
	size_t i, n = 0;

	for (i = 0; i < rep->nrules; i++)
		n += rep->rules[i].fires > 0;
	return n;
}

/* headline - "2 of 3 rules fired during the run (5 times)" or "no rule
 * fired during the run". */
static const char *headline(const struct ci_rules_report *rep, char *buf, size_t len)
{
	size_t fired = rules_fired(rep);

	if (!fired)
		snprintf(buf, len, "no rule fired during the run");
	else
		snprintf(buf, len, "%zu of %zu rule%s fired during the run (%llu time%s)", fired,
			 rep->nrules, rep->nrules == 1 ? "" : "s",
			 (unsigned long long)rep->fires_total, rep->fires_total == 1 ? "" : "s");
	return buf;
}

static const char *command_line(char *const *argv, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; *argv && used < len; argv++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", *argv);
	if (used >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

/* how_it_ran - "ran for 5.2s (CPU 4.9s) and exited with status 0". */
static const char *how_it_ran(const struct ci_rules_report *rep, char *buf, size_t len)
{
	char wall[UNITS_DURATION_SHORT_LEN], cpu[UNITS_DURATION_SHORT_LEN + 8] = "";
	char cpu_ns[UNITS_DURATION_SHORT_LEN];

	units_format_duration_short((uint64_t)rep->wall_ns, wall, sizeof(wall));
	if (rep->cpu_ns >= 0)
		snprintf(cpu, sizeof(cpu), " (CPU %s)",
			 units_format_duration_short((uint64_t)rep->cpu_ns, cpu_ns,
						     sizeof(cpu_ns)));
	if (rep->signo)
		snprintf(buf, len, "ran for %s%s and was stopped by %s%s", wall, cpu,
			 sigabbrev_np(rep->signo) ? "SIG" : "signal ",
			 sigabbrev_np(rep->signo) ? sigabbrev_np(rep->signo) : "?");
	else
		snprintf(buf, len, "ran for %s%s and exited with status %d", wall, cpu,
			 rep->exit_status);
	return buf;
}

/* --- the two tables: fires and rules ---------------------------------------- */

#define MAX_COLS 6

/* A table: its columns and a function that fills row @row's cells and
 * returns the column to set as code in Markdown (a file name), or -1. */
struct table {
	const char *const *heads;
	const char *align; /* per column: 'l' or 'r' */
	size_t ncols;
	size_t nrows;
	int (*row)(const struct ci_rules_report *rep, size_t row, char cells[][CELL_MAX]);
};

enum { FIRE_AT, FIRE_RULE, FIRE_SIGNAL, FIRE_VALUE, FIRE_THRESHOLD, FIRE_CAPTURE, FIRE_NCOLS };
enum { RULE_NAME, RULE_SIGNAL, RULE_THRESHOLD, RULE_PEAK, RULE_FIRES, RULE_NCOLS };

static const char *const fire_heads[FIRE_NCOLS] = { "at",    "rule",	  "signal",
						    "value", "threshold", "capture" };
static const char *const rule_heads[RULE_NCOLS] = { "rule", "signal", "threshold", "extreme",
						    "fires" };

/* fire_row - at, rule, signal, value, threshold, capture. */
static int fire_row(const struct ci_rules_report *rep, size_t row, char cells[][CELL_MAX])
{
	const struct ci_report_fire *f = &rep->fires[row];
	const struct rule *r = find_rule(rep, f->rule);

	units_format_duration_short((uint64_t)f->at_ns, cells[FIRE_AT], CELL_MAX);
	snprintf(cells[FIRE_RULE], CELL_MAX, "%s", f->rule);
	rule__signal_name(r, cells[FIRE_SIGNAL], CELL_MAX);
	rule__format_value(r, f->value, cells[FIRE_VALUE], CELL_MAX);
	rule__format_threshold(r, cells[FIRE_THRESHOLD], CELL_MAX);
	capture_text(rep, f, cells[FIRE_CAPTURE], CELL_MAX);
	/* a file name, not a sentence about why there is none */
	return f->capture[0] && !strchr(cells[FIRE_CAPTURE], ' ') ? FIRE_CAPTURE : -1;
}

/* rule_row - rule, signal, threshold, extreme reading, fires. */
static int rule_row(const struct ci_rules_report *rep, size_t row, char cells[][CELL_MAX])
{
	const struct ci_report_rule *rr = &rep->rules[row];

	snprintf(cells[RULE_NAME], CELL_MAX, "%s", rr->rule->name);
	rule__signal_name(rr->rule, cells[RULE_SIGNAL], CELL_MAX);
	rule__format_threshold(rr->rule, cells[RULE_THRESHOLD], CELL_MAX);
	if (rr->have_peak)
		rule__format_value(rr->rule, rr->peak, cells[RULE_PEAK], CELL_MAX);
	else
		snprintf(cells[RULE_PEAK], CELL_MAX, "no data");
	snprintf(cells[RULE_FIRES], CELL_MAX, "%llu", (unsigned long long)rr->fires);
	return -1;
}

static struct table fires_table(const struct ci_rules_report *rep)
{
	return (struct table){ fire_heads, "rllrll", FIRE_NCOLS, rep->nfires, fire_row };
}

static struct table rules_table(const struct ci_rules_report *rep)
{
	return (struct table){ rule_heads, "lllrr", RULE_NCOLS, rep->nrules, rule_row };
}

/* --- terminal ---------------------------------------------------------------- */

static void text_row(FILE *f, const size_t *w, char cells[][CELL_MAX], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "  %-*s", i + 1 < n ? (int)w[i] : 0, cells[i]);
	fputc('\n', f);
}

/* text_table - heads in capitals, columns as wide as their widest cell. */
static void text_table(FILE *f, const struct ci_rules_report *rep, const struct table *t)
{
	char cells[MAX_COLS][CELL_MAX], head[MAX_COLS][CELL_MAX];
	size_t w[MAX_COLS] = { 0 }, r, c, j;

	for (c = 0; c < t->ncols; c++) {
		for (j = 0; t->heads[c][j] && j + 1 < CELL_MAX; j++)
			head[c][j] = (char)toupper((unsigned char)t->heads[c][j]);
		head[c][j] = '\0';
		w[c] = j;
	}
	for (r = 0; r < t->nrows; r++) {
		t->row(rep, r, cells);
		for (c = 0; c < t->ncols; c++)
			if (strlen(cells[c]) > w[c])
				w[c] = strlen(cells[c]);
	}
	text_row(f, w, head, t->ncols);
	for (r = 0; r < t->nrows; r++) {
		t->row(rep, r, cells);
		text_row(f, w, cells, t->ncols);
	}
}

int ci_rules_report__text(const struct ci_rules_report *rep, FILE *f)
{
	struct table fires = fires_table(rep), rules = rules_table(rep);
	char line[256], cmd[CMDLINE_MAX], ran[160];

	fprintf(f, "trapd ci: %s\n", headline(rep, line, sizeof(line)));
	fprintf(f, "%s %s\n", command_line(rep->argv, cmd, sizeof(cmd)),
		how_it_ran(rep, ran, sizeof(ran)));
	if (rep->fires_total) {
		fputs("\nfires:\n", f);
		text_table(f, rep, &fires);
		if (rep->fires_total > rep->nfires)
			fprintf(f, "  ... and %llu more fires\n",
				(unsigned long long)(rep->fires_total - rep->nfires));
	}
	fprintf(f,
		"\nrules of %s (extreme: the highest reading of an above rule, the lowest "
		"of a below one):\n",
		rep->rules_path);
	text_table(f, rep, &rules);
	return ferror(f) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------ */

/* md_text - @s inside a table cell (@in_table: '|' escaped) or inline
 * code (@code: a backtick would end it, so it becomes a quote); line
 * breaks as blanks. */
static void md_text(FILE *f, const char *s, bool in_table, bool code)
{
	for (; *s; s++) {
		if (*s == '|' && in_table)
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else if (*s == '`' && code)
			fputc('\'', f);
		else
			fputc(*s, f);
	}
}

/* md_table - a GitHub-flavoured Markdown table. */
static void md_table(FILE *f, const struct ci_rules_report *rep, const struct table *t)
{
	char cells[MAX_COLS][CELL_MAX];
	size_t r, c;
	int code;

	fputc('|', f);
	for (c = 0; c < t->ncols; c++)
		fprintf(f, " %s |", t->heads[c]);
	fputs("\n|", f);
	for (c = 0; c < t->ncols; c++)
		fputs(t->align[c] == 'r' ? " ---: |" : " --- |", f);
	fputc('\n', f);
	for (r = 0; r < t->nrows; r++) {
		code = t->row(rep, r, cells);
		fputc('|', f);
		for (c = 0; c < t->ncols; c++) {
			fputs((int)c == code ? " `" : " ", f);
			md_text(f, cells[c], true, (int)c == code);
			fputs((int)c == code ? "` |" : " |", f);
		}
		fputc('\n', f);
	}
}

int ci_rules_report__markdown(const struct ci_rules_report *rep, FILE *f)
{
	struct table fires = fires_table(rep), rules = rules_table(rep);
	char line[256], cmd[CMDLINE_MAX], ran[160];

	fprintf(f, "### trapd: %s\n\n`", headline(rep, line, sizeof(line)));
	md_text(f, command_line(rep->argv, cmd, sizeof(cmd)), false, true);
	fprintf(f, "` %s. Rules: `", how_it_ran(rep, ran, sizeof(ran)));
	md_text(f, rep->rules_path, false, true);
	fputs("`.\n\n", f);
	if (rep->fires_total) {
		md_table(f, rep, &fires);
		if (rep->fires_total > rep->nfires)
			fprintf(f, "\n... and %llu more fires.\n",
				(unsigned long long)(rep->fires_total - rep->nfires));
		fputs("\nEach capture sits next to this summary with its `.json` sidecar; "
		      "`trapd report FILE` shows its top functions and `--svg OUT` draws its "
		      "flame graph.\n\n",
		      f);
	}
	md_table(f, rep, &rules);
	fputs("\nextreme: the highest reading of an `above` rule, the lowest of a `below` one.\n",
	      f);
	return ferror(f) ? -EIO : 0;
}
