// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_flamegraph.c - the SVG flame graph: well-formed XML (xmllint),
 * frame geometry and shares, escaping, omitted small frames, colours; the
 * differential graph's shades, tooltips and legend; report mode output
 * kept byte for byte (golden standard.svg). */
#include "golden.h"
#include "profile_fixture.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "trapd/profile/flamegraph.h"

static char *svg_of(const struct profile *p, const struct flamegraph_options *o)
{
	struct stacktree *t = NULL;
	struct golden_buf b;

	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(flamegraph_write(golden_open(&b), t, o), 0);
	stacktree__free(t);
	return golden_text(&b);
}

/* xmllint_check - run `xmllint --noout` on @svg. Returns 1 when it passed,
 * 0 when xmllint is not installed (a failure under CI=true, where the
 * test dependencies must be complete). */
static int xmllint_check(const char *svg)
{
	const char *ci = getenv("CI");
	char path[] = "/tmp/test_flamegraph_XXXXXX.svg", cmd[128];
	int fd, rc;
	FILE *f;

	if (system("command -v xmllint >/dev/null 2>&1") != 0) {
		if (ci && !strcmp(ci, "true"))
			fail_msg("xmllint is missing (CI=true): install libxml2-utils");
		print_message("xmllint not installed: well-formedness not checked\n");
		return 0;
	}
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_true(fputs(svg, f) >= 0);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout --nonet %s", path);
	rc = system(cmd);
	if (rc != 0)
		print_error("xmllint rejected %s (kept for inspection)\n", path);
	else
		unlink(path);
	assert_int_equal(rc, 0);
	return 1;
}

/* frame_line - the <g> line of the frame whose <title> starts with
 * @title_start (already escaped), or NULL. */
static const char *frame_line(const char *svg, const char *title_start, char *buf, size_t len)
{
	char needle[256];
	const char *at, *start, *end;

	snprintf(needle, sizeof(needle), "<title>%s (", title_start);
	at = strstr(svg, needle);
	if (!at)
		return NULL;
	for (start = at; start > svg && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	assert_non_null(end);
	assert_true((size_t)(end - start) < len);
	memcpy(buf, start, (size_t)(end - start));
	buf[end - start] = '\0';
	return buf;
}

static void fill_of(const char *line, int rgb[3])
{
	const char *f = strstr(line, "fill=\"rgb(");

	assert_non_null(f);
	assert_int_equal(sscanf(f, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

static void test_svg_is_well_formed(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard();
	char *svg;

	o.title = "trapd: standard";
	o.subtitle = "135 samples over 10.00s at 99 Hz, 4 processes";
	svg = svg_of(p, &o);
	assert_true(!strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"", 36));
	assert_non_null(strstr(svg, "</svg>\n"));
	if (!xmllint_check(svg)) {
		free(svg);
		profile__free(p);
		skip();
	}
	free(svg);
	profile__free(p);
}

/* Geometry, worked out by hand: 1180 px across for 135 samples; six
 * levels (root .. depth 5) of 16 px between 40 px above and 30 below. */
static void test_frames_have_exact_widths_and_shares(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard();
	char buf[1024], *svg;

	o.min_pct = 0;
	svg = svg_of(p, &o);
	assert_non_null(strstr(svg, "width=\"1200\" height=\"166\" viewBox=\"0 0 1200 166\""));
	assert_non_null(frame_line(svg, "all", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "<g data-o=\"0\" data-v=\"135\" data-d=\"0\"><title>all (135 "
				    "samples, 100.00%)</title><rect x=\"10.00\" y=\"120\" "
				    "width=\"1180.00\" height=\"15\""));
	assert_non_null(frame_line(svg, "burn_60", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "<g data-o=\"30\" data-v=\"70\" data-d=\"3\"><title>burn_60 "
				    "(70 samples, 51.85%)</title><rect x=\"272.22\" y=\"72\" "
				    "width=\"611.85\" height=\"15\""));
	assert_non_null(strstr(buf, ">burn_60</text></g>"));
	assert_non_null(frame_line(svg, "operator&lt;&lt;", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "<g data-o=\"122\" data-v=\"7\" data-d=\"4\"><title>"
				    "operator&lt;&lt; (7 samples, 5.19%)</title><rect "
				    "x=\"1076.37\" y=\"56\" width=\"61.19\""));
	/* 61 px hold 7 characters: the label is cut. */
	assert_non_null(strstr(buf, "<text x=\"1079.37\" y=\"68\">opera..</text>"));
	assert_non_null(frame_line(svg, "ns;weird", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "data-o=\"132\" data-v=\"2\" data-d=\"3\""));
	assert_non_null(strstr(buf, "(2 samples, 1.48%)"));
	assert_non_null(frame_line(svg, "0xffffffff81abcdef_[k]", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "(4 samples, 2.96%)"));
	/* A frame too narrow for three characters has an empty label. */
	assert_non_null(frame_line(svg, "helper", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "width=\"26.22\""));
	assert_non_null(strstr(buf, "\"></text></g>"));
	free(svg);
	profile__free(p);
}

static void test_names_and_titles_are_escaped(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard();
	char buf[1024], *svg;

	fx_stack(p, "app", 100, 50, "main", "cmp<\"a\">", "it's", NULL);
	o.title = "<script>alert('x')</script> & \"more\"";
	o.subtitle = "a > b";
	svg = svg_of(p, &o);
	assert_null(strstr(svg, "operator<<"));
	assert_null(strstr(svg, "a&b"));
	assert_null(strstr(svg, "<script>alert"));
	assert_non_null(strstr(svg, "<title>a&amp;b (7 samples, "));
	assert_non_null(strstr(svg, ">a&amp;b</text>"));
	assert_non_null(frame_line(svg, "cmp&lt;&quot;a&quot;&gt;", buf, sizeof(buf)));
	assert_non_null(frame_line(svg, "it&#39;s", buf, sizeof(buf)));
	assert_non_null(strstr(svg, ">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; "
				    "&quot;more&quot;</text>"));
	assert_non_null(strstr(svg, ">a &gt; b</text>"));
	xmllint_check(svg);
	free(svg);
	profile__free(p);
}

static void test_hostile_names_stay_well_formed(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = profile__new();
	char *svg;

	fx_stack(p, "ev\x01il]]>", 1, 5, "]]><!--", "\xff\xfe<x/>\x7f", "\xef\xbf\xbe", NULL);
	fx_stack(p, "app", 1, 5, "caf\xc3\xa9", "\xe2\x80\xa8", NULL);
	o.title = "bad \xc0\xaf title\x1b";
	svg = svg_of(p, &o);
	/* Only the style and the script open CDATA sections. */
	assert_non_null(strstr(svg, "<title>]]&gt;&lt;!-- (5 samples"));
	assert_non_null(strstr(svg, "<title>??&lt;x/&gt;? (5 samples"));
	assert_non_null(strstr(svg, "<title>caf\xc3\xa9 (5 samples"));
	assert_non_null(strstr(svg, ">bad ?? title?</text>"));
	xmllint_check(svg);
	free(svg);
	profile__free(p);
}

static void test_small_frames_are_omitted(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = profile__new();
	char *svg;

	fx_stack(p, "app", 1, 9989, "main", "big", NULL);
	fx_stack(p, "app", 1, 10, "main", "just_enough", NULL);
	fx_stack(p, "app", 1, 1, "main", "tiny", "tinier", NULL);
	svg = svg_of(p, NULL);
	assert_non_null(strstr(svg, "<title>big (9989 samples"));
	assert_non_null(strstr(svg, "<title>just_enough (10 samples, 0.10%)"));
	assert_null(strstr(svg, "tiny"));
	assert_null(strstr(svg, "tinier"));
	free(svg);
	o.min_pct = 0;
	svg = svg_of(p, &o);
	assert_non_null(strstr(svg, "<title>tiny (1 sample, 0.01%)"));
	assert_non_null(strstr(svg, "<title>tinier (1 sample, 0.01%)"));
	free(svg);
	o.min_pct = 50;
	svg = svg_of(p, &o);
	assert_null(strstr(svg, "just_enough"));
	/* Three levels drawn: all, app, main, big. */
	assert_non_null(strstr(svg, "height=\"134\""));
	free(svg);
	profile__free(p);
}

static void test_colours_follow_kind_and_name(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard(), *q = profile__new();
	int user[3], kern[3], unres[3], fib1[3], fib2[3];
	char buf[1024], *svg, *svg2;

	o.min_pct = 0;
	svg = svg_of(p, &o);
	fill_of(frame_line(svg, "burn_60", buf, sizeof(buf)), user);
	fill_of(frame_line(svg, "do_syscall_64_[k]", buf, sizeof(buf)), kern);
	fill_of(frame_line(svg, "libc.so.6+0x1234", buf, sizeof(buf)), unres);
	assert_true(user[0] > 200 && user[2] < 80);
	assert_true(kern[2] > 200 && kern[0] < 140);
	assert_true(unres[0] == unres[1] && unres[2] == unres[0] - 10);
	/* The same function has the same colour in another graph. */
	fx_stack(q, "other", 5, 3, "x", "y", "fib", NULL);
	svg2 = svg_of(q, &o);
	fill_of(frame_line(svg, "fib", buf, sizeof(buf)), fib1);
	fill_of(frame_line(svg2, "fib", buf, sizeof(buf)), fib2);
	assert_memory_equal(fib1, fib2, sizeof(fib1));
	free(svg);
	free(svg2);
	profile__free(p);
	profile__free(q);
}

static void test_interactive_parts_are_present(void **state)
{
	struct profile *p = fx_standard();
	char *svg = svg_of(p, NULL);
	const char *s;
	int cdata = 0;

	assert_non_null(strstr(svg, "<text id=\"unzoom\" class=\"ctl hide\""));
	assert_non_null(strstr(svg, ">Reset Zoom</text>"));
	assert_non_null(strstr(svg, "<text id=\"search\" class=\"ctl\""));
	assert_non_null(strstr(svg, "<text id=\"details\""));
	assert_non_null(strstr(svg, "<text id=\"matched\""));
	assert_non_null(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA["));
	assert_non_null(strstr(svg,
			       "<text id=\"title\" x=\"600\" y=\"24\">" FLAMEGRAPH_DEFAULT_TITLE
			       "</text>"));
	for (s = svg; (s = strstr(s, "]]>")); s++)
		cdata++;
	assert_int_equal(cdata, 2);
	/* Self-contained: nothing is fetched. */
	assert_null(strstr(svg, "href"));
	assert_null(strstr(svg, "src="));
	free(svg);
	profile__free(p);
}

static void test_empty_profile_draws_the_root(void **state)
{
	struct profile *p = profile__new();
	char *svg = svg_of(p, NULL);

	assert_non_null(strstr(svg, "<title>all (0 samples, 0.00%)</title><rect x=\"10.00\""));
	assert_non_null(strstr(svg, "width=\"1180.00\""));
	xmllint_check(svg);
	free(svg);
	profile__free(p);
}

static void test_huge_counts_do_not_overflow(void **state)
{
	struct profile *p = profile__new();
	char *svg;

	fx_stack(p, "a", 1, INT64_MAX, "x", NULL);
	fx_stack(p, "b", 2, INT64_MAX, "y", NULL);
	fx_stack(p, "c", 3, INT64_MAX, "z", NULL);
	svg = svg_of(p, NULL);
	assert_non_null(strstr(svg, "<title>all (9223372036854775807 samples, 100.00%)"));
	xmllint_check(svg);
	free(svg);
	profile__free(p);
}

/* Report mode, byte for byte as before differential mode existed. */
static void test_report_mode_output_is_unchanged(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard(), *base = profile__new();
	struct stacktree *t = NULL;
	struct golden_buf b;
	char *svg, *two;

	assert_false(o.diff);
	o.title = "trapd: standard";
	o.subtitle = "135 samples over 10.00s at 99 Hz, 4 processes";
	svg = svg_of(p, &o);
	golden_check("standard.svg", svg);
	/* A base side changes nothing outside differential mode. */
	fx_stack(base, "app", 100, 500, "main", "burn_30", NULL);
	fx_stack(base, "gone", 300, 20, "only_in_base", NULL);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(stacktree__add_profile(t, base, STACKTREE_BASE), 0);
	assert_int_equal(flamegraph_write(golden_open(&b), t, &o), 0);
	two = golden_text(&b);
	assert_string_equal(two, svg);
	free(two);
	free(svg);
	stacktree__free(t);
	profile__free(base);
	profile__free(p);
}

static void assert_shade(double delta, double max, bool is_new, int r, int g, int b)
{
	unsigned char rgb[3] = { 1, 2, 3 };

	assert_int_equal(flamegraph_diff_shade(delta, max, is_new, rgb), 0);
	assert_int_equal(rgb[0], r);
	assert_int_equal(rgb[1], g);
	assert_int_equal(rgb[2], b);
}

static void test_diff_shade_colours(void **state)
{
	/* The largest change is full red or blue. */
	assert_shade(0.25, 0.25, false, 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
	assert_shade(-0.25, 0.25, false, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL, 255);
	/* In proportion: 255 - round(175 * 0.2) and 255 - round(175 * 0.8). */
	assert_shade(0.05, 0.25, false, 255, 220, 220);
	assert_shade(-0.2, 0.25, false, 115, 115, 255);
	/* Rounding to the nearest: 175 * 0.01 = 1.75 goes to 2. */
	assert_shade(0.001, 0.1, false, 255, 253, 253);
	/* No change is white, however large the others. */
	assert_shade(0, 0.5, false, 255, 255, 255);
	assert_shade(-0.0, 0.5, false, 255, 255, 255);
	assert_shade(0, 0, false, 255, 255, 255);
	/* A tiny change that is the largest is still full colour. */
	assert_shade(-1e-15, 1e-15, false, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL, 255);
	/* Beyond the maximum counts as the maximum. */
	assert_shade(0.5, 0.25, false, 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
	/* New frames are full red whatever their change. */
	assert_shade(0.001, 0.5, true, 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
	assert_shade(0, 0, true, 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
}

static void test_diff_shade_rejects_bad_input(void **state)
{
	unsigned char rgb[3] = { 1, 2, 3 };

	assert_int_equal(flamegraph_diff_shade(NAN, 0.5, false, rgb), -EINVAL);
	assert_int_equal(flamegraph_diff_shade(INFINITY, 0.5, true, rgb), -EINVAL);
	assert_int_equal(flamegraph_diff_shade(0.1, NAN, false, rgb), -EINVAL);
	assert_int_equal(flamegraph_diff_shade(0.1, INFINITY, false, rgb), -EINVAL);
	assert_int_equal(flamegraph_diff_shade(0.1, -0.5, false, rgb), -EINVAL);
	assert_int_equal(flamegraph_diff_shade(0.1, 0.5, false, NULL), -EINVAL);
	assert_int_equal(rgb[0], 1);
	assert_int_equal(rgb[1], 2);
	assert_int_equal(rgb[2], 3);
}

/* diff_svg_of - the differential SVG of @new_p (main side) against @base
 * added @base_times times to the base side. */
static char *diff_svg_of(const struct profile *new_p, const struct profile *base, int base_times,
			 const struct flamegraph_options *o)
{
	struct stacktree *t = NULL;
	struct golden_buf b;
	int i;

	assert_int_equal(stacktree__from_profile(new_p, &t), 0);
	for (i = 0; i < base_times; i++)
		assert_int_equal(stacktree__add_profile(t, base, STACKTREE_BASE), 0);
	assert_int_equal(flamegraph_write(golden_open(&b), t, o), 0);
	stacktree__free(t);
	return golden_text(&b);
}

/* BASE: 100 samples; NEW: 200. Shares of all samples, worked out by hand:
 *   parse   10 % -> 30 %  +20 pp
 *   render  70 % -> 45 %  -25 pp  (the largest change: full blue)
 *   io      10 % -> 15 %   +5 pp
 *   fresh    -   -> 10 %  new
 *   legacy  10 % ->  -    only in base: not drawn
 * all, app and main stay at 100 %. */
static void diff_profiles(struct profile **new_p, struct profile **base)
{
	*base = profile__new();
	*new_p = profile__new();
	assert_non_null(*base);
	assert_non_null(*new_p);
	fx_stack(*base, "app", 100, 10, "main", "parse", NULL);
	fx_stack(*base, "app", 100, 70, "main", "render", NULL);
	fx_stack(*base, "app", 100, 10, "main", "io", NULL);
	fx_stack(*base, "app", 100, 10, "main", "legacy", NULL);
	fx_stack(*new_p, "app", 100, 60, "main", "parse", NULL);
	fx_stack(*new_p, "app", 100, 90, "main", "render", NULL);
	fx_stack(*new_p, "app", 100, 30, "main", "io", NULL);
	fx_stack(*new_p, "app", 100, 20, "main", "fresh", NULL);
}

static void assert_fill(const char *svg, const char *name, int r, int g, int b)
{
	char buf[1024];
	int rgb[3];

	assert_non_null(frame_line(svg, name, buf, sizeof(buf)));
	fill_of(buf, rgb);
	assert_int_equal(rgb[0], r);
	assert_int_equal(rgb[1], g);
	assert_int_equal(rgb[2], b);
}

static void test_diff_svg_colours_and_tooltips(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *new_p, *base;
	char buf[1024], *svg;

	diff_profiles(&new_p, &base);
	o.diff = true;
	o.title = "trapd diff: base.pb.zst -> new.pb.zst";
	svg = diff_svg_of(new_p, base, 1, &o);
	xmllint_check(svg);
	assert_fill(svg, "parse", 255, 115, 115);
	assert_fill(svg, "render", FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL, 255);
	assert_fill(svg, "io", 255, 220, 220);
	assert_fill(svg, "fresh", 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
	assert_fill(svg, "main", 255, 255, 255);
	assert_fill(svg, "app", 255, 255, 255);
	assert_fill(svg, "all", 255, 255, 255);
	/* Widths are NEW's: 1180 px for 200 samples, parse 60 from x 10 + 20
	 * (fresh) + 30 (io), alphabetically. */
	assert_non_null(frame_line(svg, "parse", buf, sizeof(buf)));
	assert_non_null(strstr(buf,
			       "<g data-o=\"50\" data-v=\"60\" data-d=\"3\"><title>parse (60 "
			       "samples, 30.00%; was 10.00%, +20.00 pp)</title><rect x=\"305.00\" "
			       "y=\"58\" width=\"354.00\""));
	assert_non_null(strstr(svg, "<title>render (90 samples, 45.00%; was 70.00%, -25.00 pp)"
				    "</title>"));
	assert_non_null(
		strstr(svg, "<title>io (30 samples, 15.00%; was 10.00%, +5.00 pp)</title>"));
	assert_non_null(strstr(svg, "<title>fresh (20 samples, 10.00%; new, not in base)</title>"));
	assert_non_null(strstr(svg, "<title>all (200 samples, 100.00%; was 100.00%, +0.00 pp)"
				    "</title>"));
	assert_null(strstr(svg, "legacy"));
	/* A legend line under the title (no subtitle: where the subtitle
	 * would be), one more line of height: 40 + 18 + 4 * 16 + 30. */
	assert_non_null(strstr(svg, "<text id=\"legend\" x=\"600\" y=\"42\" "));
	assert_non_null(strstr(svg, ">red</tspan>: share of all samples grew from base, "));
	assert_non_null(strstr(svg, ">blue</tspan>: shrank;"));
	assert_non_null(strstr(svg, "width=\"1200\" height=\"152\" viewBox=\"0 0 1200 152\""));
	free(svg);
	/* Under a subtitle, the legend moves down a line. */
	o.subtitle = "200 samples";
	svg = diff_svg_of(new_p, base, 1, &o);
	assert_non_null(strstr(svg, "<text id=\"subtitle\" x=\"600\" y=\"42\">200 samples</text>"));
	assert_non_null(strstr(svg, "<text id=\"legend\" x=\"600\" y=\"60\" "));
	assert_non_null(strstr(svg, "height=\"170\""));
	xmllint_check(svg);
	free(svg);
	profile__free(new_p);
	profile__free(base);
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* By self: a frame is coloured by its function's self share over the
 * whole tree, so sides whose stacks were walked differently still
 * compare (the history's shallow frame-pointer stacks against a window's
 * DWARF ones). BASE: parse and render as leaves right under the process,
 * half each; NEW: both under main and lib, 75 and 25 %. By total, both
 * leaves are on paths the base lacks: new, full red. */
static void test_diff_by_self_compares_functions_across_paths(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *base = profile__new(), *new_p = profile__new();
	char *svg;

	assert_non_null(base);
	assert_non_null(new_p);
	fx_stack(base, "app", 100, 50, "parse", NULL);
	fx_stack(base, "app", 100, 50, "render", NULL);
	fx_stack(new_p, "app", 100, 75, "main", "lib", "parse", NULL);
	fx_stack(new_p, "app", 100, 25, "main", "lib", "render", NULL);
	o.diff = true;
	svg = diff_svg_of(new_p, base, 1, &o);
	assert_fill(svg, "render", 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
	free(svg);
	o.by_self = true;
	svg = diff_svg_of(new_p, base, 1, &o);
	xmllint_check(svg);
	assert_fill(svg, "parse", 255, FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL);
	assert_fill(svg, "render", FLAMEGRAPH_DIFF_FULL, FLAMEGRAPH_DIFF_FULL, 255);
	assert_fill(svg, "main", 255, 255, 255);
	assert_fill(svg, "lib", 255, 255, 255);
	assert_fill(svg, "app", 255, 255, 255);
	assert_non_null(
		strstr(svg,
		       "<title>parse (self 75 samples, 75.00%; was 50.00%, +25.00 pp)</title>"));
	assert_non_null(strstr(svg, "self share (samples as the leaf) grew"));
	assert_null(strstr(svg, "new, not in base"));
	free(svg);
	profile__free(base);
	profile__free(new_p);
}

/* A profile against itself, or against three copies of itself (same
 * shares, other counts): every frame white, every change +0.00 pp. */
static void test_diff_of_itself_is_neutral(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard();
	size_t frames;
	char *svg;
	int times;

	o.diff = true;
	o.min_pct = 0;
	for (times = 1; times <= 3; times += 2) {
		svg = diff_svg_of(p, p, times, &o);
		frames = count_of(svg, "<g data-o=");
		/* 23 nodes with samples: all, 3 processes, 19 frames. */
		assert_int_equal(frames, 23);
		assert_int_equal(count_of(svg, "fill=\"rgb("), frames);
		assert_int_equal(count_of(svg, "fill=\"rgb(255,255,255)\""), frames);
		assert_int_equal(count_of(svg, ", +0.00 pp)</title>"), frames);
		assert_null(strstr(svg, "new, not in base"));
		assert_non_null(
			strstr(svg, "<title>burn_60 (70 samples, 51.85%; was 51.85%, +0.00 pp)"));
		xmllint_check(svg);
		free(svg);
	}
	profile__free(p);
}

/* Search, zoom and hover read the same attributes and title shape; only
 * the search highlight changes colour. */
static void test_diff_keeps_the_interactive_parts(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *new_p, *base;
	const char *at, *end, *s;
	char *svg, *report;

	diff_profiles(&new_p, &base);
	report = svg_of(new_p, &o);
	o.diff = true;
	svg = diff_svg_of(new_p, base, 1, &o);
	assert_non_null(strstr(svg, "<text id=\"unzoom\" class=\"ctl hide\""));
	assert_non_null(strstr(svg, "<text id=\"search\" class=\"ctl\""));
	assert_non_null(strstr(svg, "<text id=\"details\""));
	assert_non_null(strstr(svg, "<text id=\"matched\""));
	assert_non_null(
		strstr(svg, "f.rect.setAttribute('fill', hit ? 'rgb(40,190,40)' : f.fill);"));
	assert_null(strstr(svg, "rgb(230,0,230)"));
	assert_non_null(
		strstr(report, "f.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);"));
	/* The rest of the script is the same. */
	at = strstr(svg, "<script");
	s = strstr(report, "<script");
	assert_non_null(at);
	assert_non_null(s);
	assert_int_equal(strlen(at), strlen(s));
	/* The script takes the name up to the title's last " (": a diff
	 * tail must hold no other. */
	for (s = svg; (at = strstr(s, "<title>")); s = end) {
		end = strstr(at, "</title>");
		assert_non_null(end);
		at = strstr(at, " (");
		assert_true(at && at < end);
		at = strstr(at + 2, " (");
		assert_true(!at || at > end);
	}
	assert_int_equal(count_of(svg, "<title>"), 7);
	assert_int_equal(count_of(svg, "]]>"), 2);
	assert_null(strstr(svg, "href"));
	free(report);
	free(svg);
	profile__free(new_p);
	profile__free(base);
}

static void test_bad_options_and_write_errors(void **state)
{
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	struct profile *p = fx_standard();
	struct stacktree *t = NULL;
	FILE *null = fopen("/dev/null", "w"), *full = fopen("/dev/full", "w");

	assert_non_null(null);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	o.width = 10;
	assert_int_equal(flamegraph_write(null, t, &o), -EINVAL);
	o.width = 800;
	o.min_pct = -1;
	assert_int_equal(flamegraph_write(null, t, &o), -EINVAL);
	o.min_pct = 101;
	assert_int_equal(flamegraph_write(null, t, &o), -EINVAL);
	o.min_pct = 1;
	assert_int_equal(flamegraph_write(null, t, &o), 0);
	if (full) {
		assert_int_equal(flamegraph_write(full, t, NULL), -EIO);
		fclose(full);
	}
	fclose(null);
	stacktree__free(t);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg_is_well_formed),
		cmocka_unit_test(test_frames_have_exact_widths_and_shares),
		cmocka_unit_test(test_names_and_titles_are_escaped),
		cmocka_unit_test(test_hostile_names_stay_well_formed),
		cmocka_unit_test(test_small_frames_are_omitted),
		cmocka_unit_test(test_colours_follow_kind_and_name),
		cmocka_unit_test(test_interactive_parts_are_present),
		cmocka_unit_test(test_empty_profile_draws_the_root),
		cmocka_unit_test(test_huge_counts_do_not_overflow),
		cmocka_unit_test(test_bad_options_and_write_errors),
		cmocka_unit_test(test_report_mode_output_is_unchanged),
		cmocka_unit_test(test_diff_shade_colours),
		cmocka_unit_test(test_diff_shade_rejects_bad_input),
		cmocka_unit_test(test_diff_svg_colours_and_tooltips),
		cmocka_unit_test(test_diff_of_itself_is_neutral),
		cmocka_unit_test(test_diff_by_self_compares_functions_across_paths),
		cmocka_unit_test(test_diff_keeps_the_interactive_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
