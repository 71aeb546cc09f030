/* test_flamegraph.c - the SVG flame graph: well-formed XML (xmllint),
 * frame geometry and shares, escaping, omitted small frames, colours. */
#include "profile_fixture.h"
#include "golden.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "trapd/flamegraph.h"

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
	assert_non_null(strstr(svg, "<text id=\"title\" x=\"600\" y=\"24\">"
				    FLAMEGRAPH_DEFAULT_TITLE "</text>"));
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
