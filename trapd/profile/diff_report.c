// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* diff_report.c - the terminal and Markdown views of a profile_diff. */
#include "trapd/profile/diff_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "rules/units.h"
#include "trapd/profile/stacktree.h"

#define CHANGE_LEN 24
#define NAME_COLUMNS 40

static const char *fmt_change(double change, char *buf, size_t len)
{
	if (isinf(change))
		snprintf(buf, len, "new");
	else if (change <= -1.0)
		snprintf(buf, len, "gone");
	else
		snprintf(buf, len, "%+.1f %%", change * 100.0);
	return buf;
}

static const char *fmt_cpu(double ns, char *buf, size_t len)
{
	return units_format_duration_short(ns > 0 ? (uint64_t)llround(ns) : 0, buf, len);
}

static const char *verdict_word(enum profile_diff_change v)
{
	switch (v) {
	case PROFILE_DIFF_REGRESSED:
		return "REGRESSED";
	case PROFILE_DIFF_IMPROVED:
		return "improved";
	case PROFILE_DIFF_UNTESTED:
		return "small";
	default:
		return "";
	}
}

static double added(const struct profile_diff_function *f)
{
	return f->new_cpu_ns - f->base_cpu_ns;
}

/* The functions that grew are the first ones with added time > 0 (the
 * order of profile_diff's array), those that shrank the last ones, read
 * backwards: the most shrunk first. */
static size_t count_grew(const struct profile_diff *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nfuncs; i++)
		n += added(&d->funcs[i]) > 0;
	return n;
}

static size_t count_shrank(const struct profile_diff *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nfuncs; i++)
		n += added(&d->funcs[i]) < 0;
	return n;
}

static size_t limit(size_t n, size_t top)
{
	return top && top < n ? top : n;
}

/* time_name - what the counts weigh: "CPU time", or a time view's. */
static const char *time_name(const struct profile_diff *d)
{
	return d->opts.time_name ? d->opts.time_name : "CPU time";
}

/* headline - one sentence with the verdict. */
static void headline(FILE *out, const struct profile_diff *d, const char *before, const char *after)
{
	char chg[CHANGE_LEN];

	fmt_change(d->cpu_change, chg, sizeof(chg));
	if (d->opts.shares_only && !d->regressed)
		fprintf(out,
			"%sNo regression%s: no function's share grew significantly past +%.4g %%.\n",
			before, after, d->opts.max_regress_pct);
	else if (d->opts.shares_only)
		fprintf(out, "%sRegression%s: %zu function%s grew significantly past +%.4g %%.\n",
			before, after, d->nregressed, d->nregressed == 1 ? "'s share" : "s' shares",
			d->opts.max_regress_pct);
	else if (!d->regressed)
		fprintf(out,
			"%sNo regression%s: %s %s, no function grew significantly past "
			"+%.4g %%.\n",
			before, after, time_name(d), chg, d->opts.max_regress_pct);
	else if (d->cpu_verdict == PROFILE_DIFF_REGRESSED)
		fprintf(out,
			"%sRegression%s: %s %s (threshold +%.4g %%); %zu function%s "
			"regressed.\n",
			before, after, time_name(d), chg, d->opts.max_regress_pct, d->nregressed,
			d->nregressed == 1 ? "" : "s");
	else
		fprintf(out,
			"%sRegression%s: %zu function%s grew significantly past +%.4g %% "
			"(%s %s).\n",
			before, after, d->nregressed, d->nregressed == 1 ? "" : "s",
			d->opts.max_regress_pct, time_name(d), chg);
}

/* machine_words - the machine's factor as a change, into @buf. */
static const char *machine_words(const struct profile_diff *d, size_t len, char *buf)
{
	char chg[CHANGE_LEN];

	snprintf(buf, len, "%s", fmt_change(exp(d->machine_log) - 1.0, chg, sizeof(chg)));
	return buf;
}

/* method - how the verdict was reached. */
static void method(FILE *out, const struct profile_diff *d, const char *prefix)
{
	char words[CHANGE_LEN];

	fprintf(out,
		"%sA change is a regression when it is over +%.4g %% and significant: "
		"p < %.2g (alpha %.2g over the %zu functions with at least %.4g %% of a "
		"side's samples).",
		prefix, d->opts.max_regress_pct, d->p_threshold, d->opts.alpha, d->ntested,
		d->opts.min_share_pct);
	if (d->opts.shares_only) {
		fprintf(out, " Both sides are parts of one capture, each its own whole: a "
			     "function's test is of its share of its side's samples.\n");
		return;
	}
	if (d->machine_found)
		fprintf(out,
			" A function's change is its time's over the typical function's (%s): "
			"what moved them all alike, the machine's speed, is not its.",
			machine_words(d, sizeof(words), words));
	else
		fprintf(out,
			" A function's change is its time's: no yardstick in the functions "
			"(one holds half the samples, or there are too few), the %s as "
			"measured.",
			time_name(d));
	if (!d->opts.judge_cpu_time)
		fprintf(out, " The %s is shown, not judged (--judge-cpu-time).", time_name(d));
	else if (isnan(d->cpu_p_value))
		fprintf(out,
			" With one run a side the run-to-run noise of the %s is not "
			"measured: the threshold alone judges it (--runs N measures the noise).",
			time_name(d));
	else
		fprintf(out, " %s: Welch's t over %zu and %zu runs, p = %.2g.", time_name(d),
			d->base_runs, d->new_runs, d->cpu_p_value);
	if (d->opts.time_name)
		fprintf(out, " Times are tested in sampling periods, as samples are.");
	fprintf(out, "%s%s%s\n", d->cpu_measured ? "" : " ", d->cpu_measured ? "" : time_name(d),
		d->cpu_measured ? "" : " estimated from the samples.");
}

/* --- terminal ------------------------------------------------------------ */

static void text_row(FILE *out, const struct profile_diff_function *f)
{
	char chg[CHANGE_LEN];
	size_t len = strlen(f->name);

	fprintf(out, "  %9s %-9s %6.2f%% -> %6.2f%%  %7" PRId64 " -> %-7" PRId64 "  ",
		fmt_change(f->change, chg, sizeof(chg)), verdict_word(f->verdict),
		f->base_share * 100.0, f->new_share * 100.0, f->base_n, f->new_n);
	if (len > NAME_COLUMNS)
		fprintf(out, "%.*s...\n", NAME_COLUMNS - 3, f->name);
	else
		fprintf(out, "%s\n", f->name);
}

static void text_section(FILE *out, const struct profile_diff *d, const char *title, bool grew,
			 size_t top)
{
	size_t n = grew ? count_grew(d) : count_shrank(d), shown = limit(n, top), i;

	if (!n)
		return;
	fprintf(out, "\n%s (%s %s):\n", title, d->opts.by_total ? "total" : "self", time_name(d));
	fprintf(out, "  %9s %-9s %18s  %18s  %s\n", "CHANGE", "",
		d->opts.by_total ? "TOTAL SHARE" : "SELF SHARE",
		d->opts.time_name ? "NS" : "SAMPLES", "FUNCTION");
	for (i = 0; i < shown; i++)
		text_row(out, grew ? &d->funcs[i] : &d->funcs[d->nfuncs - 1 - i]);
	if (shown < n)
		fprintf(out, "  ... %zu more (--top 0 lists all)\n", n - shown);
}

int diff_report__text(FILE *out, const struct profile_diff *d, size_t top)
{
	char b[UNITS_DURATION_SHORT_LEN], n[UNITS_DURATION_SHORT_LEN], chg[CHANGE_LEN];

	headline(out, d, "", "");
	if (d->opts.shares_only)
		fprintf(out, "Shares of each side compared; %s %" PRId64 " -> %" PRId64 "\n",
			d->opts.time_name ? "ns" : "samples", d->base_samples, d->new_samples);
	else
		fprintf(out,
			"%s: %s -> %s (%s)%s, %zu -> %zu run%s; %s %" PRId64 " -> %" PRId64 "\n",
			time_name(d), fmt_cpu(d->base_cpu_ns, b, sizeof(b)),
			fmt_cpu(d->new_cpu_ns, n, sizeof(n)),
			fmt_change(d->cpu_change, chg, sizeof(chg)),
			d->cpu_measured ? "" : ", estimated from samples", d->base_runs,
			d->new_runs, d->new_runs == 1 ? "" : "s",
			d->opts.time_name ? "ns" : "samples", d->base_samples, d->new_samples);
	text_section(out, d, "Grew most", true, top);
	text_section(out, d, "Shrank most", false, top);
	fputc('\n', out);
	method(out, d, "");
	return ferror(out) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------ */

/* md_code - @s as a Markdown code span that survives a table cell: the
 * fence is one backtick longer than any run inside, and '|' is escaped
 * (GitHub's tables split on it even inside code). */
static void md_code(FILE *out, const char *s)
{
	char clean[STACKTREE_MAX_NAME];
	size_t run = 0, longest = 0, i, fence;
	const char *c;
	bool pad;

	stacktree__clean_name(clean, sizeof(clean), s);
	if (!clean[0]) {
		fputs("*(empty)*", out); /* `` is no code span */
		return;
	}
	for (c = clean; *c; c++) {
		run = *c == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest + 1;
	pad = clean[0] == '`' || (clean[0] && clean[strlen(clean) - 1] == '`');
	for (i = 0; i < fence; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (c = clean; *c; c++) {
		if (*c == '|')
			fputc('\\', out);
		fputc(*c, out);
	}
	if (pad)
		fputc(' ', out);
	for (i = 0; i < fence; i++)
		fputc('`', out);
}

static void md_row(FILE *out, const struct profile_diff_function *f)
{
	char chg[CHANGE_LEN];
	bool bold = f->verdict == PROFILE_DIFF_REGRESSED;

	fputs("| ", out);
	md_code(out, f->name);
	fprintf(out,
		" | %s%s%s | %.2f %% | %.2f %% | %.2f %% | %.2f %% | %" PRId64 " | %" PRId64
		" | %s |\n",
		bold ? "**" : "", fmt_change(f->change, chg, sizeof(chg)), bold ? "**" : "",
		f->base_self_share * 100.0, f->new_self_share * 100.0, f->base_total_share * 100.0,
		f->new_total_share * 100.0, f->base_n, f->new_n,
		f->verdict == PROFILE_DIFF_REGRESSED ? "**regressed**" : verdict_word(f->verdict));
}

static void md_section(FILE *out, const struct profile_diff *d, const char *title, bool grew,
		       size_t top)
{
	size_t n = grew ? count_grew(d) : count_shrank(d), shown = limit(n, top), i;

	if (!n)
		return;
	fprintf(out, "\n#### %s\n\n", title);
	fprintf(out,
		"| function | %s %s | self before | self after | total before | "
		"total after | %s before | %s after | verdict |\n",
		d->opts.by_total ? "total" : "self", time_name(d),
		d->opts.time_name ? "ns" : "samples", d->opts.time_name ? "ns" : "samples");
	fprintf(out, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
	for (i = 0; i < shown; i++)
		md_row(out, grew ? &d->funcs[i] : &d->funcs[d->nfuncs - 1 - i]);
	if (shown < n)
		fprintf(out, "\n%zu more not shown.\n", n - shown);
}

int diff_report__markdown(FILE *out, const struct profile_diff *d, const char *base_name,
			  const char *new_name, size_t top)
{
	char b[UNITS_DURATION_SHORT_LEN], n[UNITS_DURATION_SHORT_LEN], chg[CHANGE_LEN];
	bool bold = d->cpu_verdict == PROFILE_DIFF_REGRESSED;

	fputs("### trapd: ", out);
	headline(out, d, "**", "**");
	fputs("\n| | base: ", out);
	md_code(out, base_name ? base_name : "BASE");
	fputs(" | new: ", out);
	md_code(out, new_name ? new_name : "NEW");
	fputs(" | change |\n| --- | ---: | ---: | ---: |\n", out);
	if (!d->opts.shares_only)
		fprintf(out, "| %s%s | %s | %s | %s%s%s |\n", time_name(d),
			d->cpu_measured ? "" : " (from samples)",
			fmt_cpu(d->base_cpu_ns, b, sizeof(b)), fmt_cpu(d->new_cpu_ns, n, sizeof(n)),
			bold ? "**" : "", fmt_change(d->cpu_change, chg, sizeof(chg)),
			bold ? "**" : "");
	fprintf(out, "| %s | %" PRId64 " | %" PRId64 " | |\n", d->opts.time_name ? "ns" : "samples",
		d->base_samples, d->new_samples);
	if (!d->opts.shares_only)
		fprintf(out, "| runs | %zu | %zu | |\n", d->base_runs, d->new_runs);
	md_section(out, d, "Functions that grew", true, top);
	md_section(out, d, "Functions that shrank", false, top);
	fputc('\n', out);
	method(out, d, "");
	return ferror(out) ? -EIO : 0;
}
