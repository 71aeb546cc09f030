/* ci_rules_report.c - what fired during a `trapd ci -c` run, as a
 * terminal table and as Markdown (ci_rules_report.h). */
#include "trapd/ci_rules_report.h"

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
			   const char *capture, const char *err)
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
	f->dry_run = rep->rules[i].rule->dry_run;
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

static const char *threshold_text(const struct rule *r, char *buf, size_t len)
{
	char v[32];

	snprintf(buf, len, "%s %s", r->above ? "above" : "below",
		 rule__format_value(r, r->threshold, v, sizeof(v)));
	return buf;
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

/* The cells of one fire's row and of one rule's row. */
enum { FIRE_AT, FIRE_RULE, FIRE_SIGNAL, FIRE_VALUE, FIRE_THRESHOLD, FIRE_CAPTURE, FIRE_NCOLS };
enum { RULE_NAME, RULE_SIGNAL, RULE_THRESHOLD, RULE_PEAK, RULE_FIRES, RULE_NCOLS };

static const char *const fire_heads[FIRE_NCOLS] = { "at",    "rule",      "signal",
						    "value", "threshold", "capture" };
static const char *const rule_heads[RULE_NCOLS] = { "rule", "signal", "threshold", "extreme",
						    "fires" };

static void fire_cells(const struct ci_rules_report *rep, const struct ci_report_fire *f,
		       char cells[FIRE_NCOLS][CELL_MAX])
{
	const struct rule *r = find_rule(rep, f->rule);

	units_format_duration_short((uint64_t)f->at_ns, cells[FIRE_AT], CELL_MAX);
	snprintf(cells[FIRE_RULE], CELL_MAX, "%s", f->rule);
	rule__signal_name(r, cells[FIRE_SIGNAL], CELL_MAX);
	rule__format_value(r, f->value, cells[FIRE_VALUE], CELL_MAX);
	threshold_text(r, cells[FIRE_THRESHOLD], CELL_MAX);
	capture_text(rep, f, cells[FIRE_CAPTURE], CELL_MAX);
}

static void rule_cells(const struct ci_report_rule *rr, char cells[RULE_NCOLS][CELL_MAX])
{
	snprintf(cells[RULE_NAME], CELL_MAX, "%s", rr->rule->name);
	rule__signal_name(rr->rule, cells[RULE_SIGNAL], CELL_MAX);
	threshold_text(rr->rule, cells[RULE_THRESHOLD], CELL_MAX);
	if (rr->have_peak)
		rule__format_value(rr->rule, rr->peak, cells[RULE_PEAK], CELL_MAX);
	else
		snprintf(cells[RULE_PEAK], CELL_MAX, "no data");
	snprintf(cells[RULE_FIRES], CELL_MAX, "%llu", (unsigned long long)rr->fires);
}

/* --- terminal ---------------------------------------------------------- */

static void widen(size_t *w, char cells[][CELL_MAX], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(cells[i]) > w[i])
			w[i] = strlen(cells[i]);
}

static void text_row(FILE *f, const size_t *w, char cells[][CELL_MAX], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "  %-*s", i + 1 < n ? (int)w[i] : 0, cells[i]);
	fputc('\n', f);
}

static void heads(char out[][CELL_MAX], const char *const *names, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; names[i][j] && j + 1 < CELL_MAX; j++)
			out[i][j] = (char)toupper((unsigned char)names[i][j]);
		out[i][j] = '\0';
	}
}

static void text_fires(const struct ci_rules_report *rep, FILE *f)
{
	char cells[FIRE_NCOLS][CELL_MAX], head[FIRE_NCOLS][CELL_MAX];
	size_t w[FIRE_NCOLS] = { 0 }, i;

	heads(head, fire_heads, FIRE_NCOLS);
	widen(w, head, FIRE_NCOLS);
	for (i = 0; i < rep->nfires; i++) {
		fire_cells(rep, &rep->fires[i], cells);
		widen(w, cells, FIRE_NCOLS);
	}
	text_row(f, w, head, FIRE_NCOLS);
	for (i = 0; i < rep->nfires; i++) {
		fire_cells(rep, &rep->fires[i], cells);
		text_row(f, w, cells, FIRE_NCOLS);
	}
	if (rep->fires_total > rep->nfires)
		fprintf(f, "  ... and %llu more fires\n",
			(unsigned long long)(rep->fires_total - rep->nfires));
}

static void text_rules(const struct ci_rules_report *rep, FILE *f)
{
	char cells[RULE_NCOLS][CELL_MAX], head[RULE_NCOLS][CELL_MAX];
	size_t w[RULE_NCOLS] = { 0 }, i;

	heads(head, rule_heads, RULE_NCOLS);
	widen(w, head, RULE_NCOLS);
	for (i = 0; i < rep->nrules; i++) {
		rule_cells(&rep->rules[i], cells);
		widen(w, cells, RULE_NCOLS);
	}
	text_row(f, w, head, RULE_NCOLS);
	for (i = 0; i < rep->nrules; i++) {
		rule_cells(&rep->rules[i], cells);
		text_row(f, w, cells, RULE_NCOLS);
	}
}

int ci_rules_report__text(const struct ci_rules_report *rep, FILE *f)
{
	char line[256], cmd[CMDLINE_MAX], ran[160];

	fprintf(f, "trapd ci: %s\n", headline(rep, line, sizeof(line)));
	fprintf(f, "%s %s\n", command_line(rep->argv, cmd, sizeof(cmd)),
		how_it_ran(rep, ran, sizeof(ran)));
	if (rep->fires_total) {
		fputs("\nfires:\n", f);
		text_fires(rep, f);
	}
	fprintf(f, "\nrules of %s (extreme: the highest reading of an above rule, the lowest "
		   "of a below one):\n",
		rep->rules_path);
	text_rules(rep, f);
	return ferror(f) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------ */

/* md_cell - @s in a table cell: '|' escaped, line breaks as blanks. */
static void md_cell(FILE *f, const char *s, bool code)
{
	fputs(code ? " `" : " ", f);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else if (*s == '`' && code)
			fputc('\'', f);
		else
			fputc(*s, f);
	}
	fputs(code ? "` |" : " |", f);
}

static void md_head(FILE *f, const char *const *names, const char *align, size_t n)
{
	size_t i;

	fputc('|', f);
	for (i = 0; i < n; i++)
		fprintf(f, " %s |", names[i]);
	fputs("\n|", f);
	for (i = 0; i < n; i++)
		fputs(align[i] == 'r' ? " ---: |" : " --- |", f);
	fputc('\n', f);
}

int ci_rules_report__markdown(const struct ci_rules_report *rep, FILE *f)
{
	char line[256], cmd[CMDLINE_MAX], ran[160], cells[FIRE_NCOLS][CELL_MAX];
	char rcells[RULE_NCOLS][CELL_MAX];
	size_t i, c;

	fprintf(f, "### trapd: %s\n\n", headline(rep, line, sizeof(line)));
	fputc('`', f);
	for (c = 0, command_line(rep->argv, cmd, sizeof(cmd)); cmd[c]; c++)
		fputc(cmd[c] == '`' ? '\'' : cmd[c], f);
	fprintf(f, "` %s. Rules: `%s`.\n\n", how_it_ran(rep, ran, sizeof(ran)), rep->rules_path);
	if (rep->fires_total) {
		md_head(f, fire_heads, "rllrll", FIRE_NCOLS);
		for (i = 0; i < rep->nfires; i++) {
			fire_cells(rep, &rep->fires[i], cells);
			fputc('|', f);
			for (c = 0; c < FIRE_NCOLS; c++)
				md_cell(f, cells[c], c == FIRE_CAPTURE && rep->fires[i].capture[0] &&
							     !strchr(cells[c], ' '));
			fputc('\n', f);
		}
		if (rep->fires_total > rep->nfires)
			fprintf(f, "\n... and %llu more fires.\n",
				(unsigned long long)(rep->fires_total - rep->nfires));
		fputs("\nEach capture sits next to this summary with its `.json` sidecar; "
		      "`trapd report FILE` shows its top functions and `--svg OUT` draws its "
		      "flame graph.\n\n",
		      f);
	}
	md_head(f, rule_heads, "lllrr", RULE_NCOLS);
	for (i = 0; i < rep->nrules; i++) {
		rule_cells(&rep->rules[i], rcells);
		fputc('|', f);
		for (c = 0; c < RULE_NCOLS; c++)
			md_cell(f, rcells[c], false);
		fputc('\n', f);
	}
	fputs("\nextreme: the highest reading of an `above` rule, the lowest of a `below` one.\n",
	      f);
	return ferror(f) ? -EIO : 0;
}
