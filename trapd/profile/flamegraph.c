// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* flamegraph.c - the stacktree as an SVG flame graph with an inline
 * script for hover details, zoom and search; in differential mode the
 * colours show the change from the tree's base side. */
#include "trapd/profile/flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/profile/report.h"

#define FRAME_H 16
#define FONT_SIZE 12
/* Average glyph width of the label font as a share of its size; labels
 * are cut to fit with it (here and in the script, which must agree). */
#define FONT_WIDTH 0.59
#define XPAD 10
#define TOP_PAD 40
#define SUBTITLE_PAD 18
#define BOTTOM_PAD 30
#define SEARCH_FILL "rgb(230,0,230)"
/* Magenta sits between the red and the blue of a differential graph. */
#define DIFF_SEARCH_FILL "rgb(40,190,40)"

struct fg_ctx {
	FILE *out;
	int64_t total;
	double min_value; /* frames below this many samples are omitted */
	double scale;	  /* pixels per sample */
	double avail;	  /* pixels across, padding excluded */
	unsigned height;
	bool diff;
	bool by_self; /* diff by self share (flamegraph_options) */
	/* by self: each function's self samples over the whole tree, by
	 * name and kind, as trapd report lists them (a frame is coloured by
	 * its function's change, whatever path it is on) */
	struct report_row *funcs;
	size_t nfuncs;
	bool time_ns;	    /* counts are nanoseconds */
	int64_t base_total; /* the base side's root total */
	double max_delta;   /* the largest |delta| among the frames drawn */
};

/* xml_putn - @n bytes of @s as XML character data or attribute value.
 * Strings here come cleaned (stacktree__clean_name): valid UTF-8 without
 * control characters, so only markup needs escaping. */
static void xml_putn(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(s[i], out);
		}
	}
}

static void xml_put(FILE *out, const char *s)
{
	xml_putn(out, s, strlen(s));
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h ^ (h >> 15);
}

/* frame_fill - a colour for @n: hue by kind, shade by name. */
static void frame_fill(const struct stacktree_node *n, char *buf, size_t len)
{
	uint32_t h = name_hash(n->name);
	double a = (h & 0xff) / 255.0, b = ((h >> 8) & 0xff) / 255.0;
	double c = ((h >> 16) & 0xff) / 255.0;
	int r, g, bl;

	switch (n->kind) {
	case STACKTREE_KIND_USER:
		r = 205 + (int)(50 * c), g = 70 + (int)(140 * a), bl = 30 + (int)(40 * b);
		break;
	case STACKTREE_KIND_INLINED: /* aqua, as FlameGraph draws inlined frames */
		r = 50 + (int)(60 * b), g = 165 + (int)(55 * a), bl = 165 + (int)(55 * a);
		break;
	case STACKTREE_KIND_KERNEL:
		r = 70 + (int)(60 * b), g = 140 + (int)(70 * a), bl = 205 + (int)(50 * c);
		break;
	case STACKTREE_KIND_UNRESOLVED:
		r = g = 170 + (int)(40 * a), bl = r - 10;
		break;
	case STACKTREE_KIND_PROCESS:
		r = 170 + (int)(40 * a), g = 140 + (int)(30 * b), bl = 210 + (int)(40 * c);
		break;
	default:
		r = g = bl = 200;
	}
	snprintf(buf, len, "rgb(%d,%d,%d)", r, g, bl);
}

static int drawn(const struct fg_ctx *c, const struct stacktree_node *n)
{
	return n->depth == 0 || (n->total > 0 && (double)n->total >= c->min_value);
}

int flamegraph_diff_shade(double delta, double max_abs_delta, bool is_new, unsigned char rgb[3])
{
	double mag = fabs(delta);
	int v;

	if (!rgb || !isfinite(delta) || !isfinite(max_abs_delta) || max_abs_delta < 0)
		return -EINVAL;
	if (is_new) {
		rgb[0] = 255, rgb[1] = rgb[2] = FLAMEGRAPH_DIFF_FULL;
		return 0;
	}
	if (mag == 0 || max_abs_delta == 0) {
		rgb[0] = rgb[1] = rgb[2] = 255;
		return 0;
	}
	if (mag > max_abs_delta)
		mag = max_abs_delta;
	v = 255 - (int)((255 - FLAMEGRAPH_DIFF_FULL) * mag / max_abs_delta + 0.5);
	if (delta > 0)
		rgb[0] = 255, rgb[1] = rgb[2] = (unsigned char)v;
	else
		rgb[0] = rgb[1] = (unsigned char)v, rgb[2] = 255;
	return 0;
}

static double share_of(int64_t v, int64_t all)
{
	return all > 0 ? (double)v / (double)all : 0;
}

static int func_cmp(const void *x, const void *y)
{
	const struct report_row *a = x, *b = y;
	int d = strcmp(a->name, b->name);

	return d ? d : (int)a->kind - (int)b->kind;
}

/* func_of - the function row of frame @n, when the graph is by self. */
static const struct report_row *func_of(const struct fg_ctx *c, const struct stacktree_node *n)
{
	struct report_row key = { .name = n->name, .kind = n->kind };

	if (!c->nfuncs || n->depth < 2)
		return NULL;
	return bsearch(&key, c->funcs, c->nfuncs, sizeof(key), func_cmp);
}

/* What a frame's colour compares, base to new: the frame's total, or
 * when the graph is by self its function's self samples (one lookup). */
struct diff_counts {
	int64_t now, was;
};

static struct diff_counts diff_counts_of(const struct fg_ctx *c, const struct stacktree_node *n)
{
	const struct report_row *f;

	if (!c->by_self)
		return (struct diff_counts){ n->total, n->base_total };
	f = func_of(c, n);
	return f ? (struct diff_counts){ f->self, f->base_self }
		 : (struct diff_counts){ n->self, n->base_self };
}

/* diff_delta - the change of @d's share of all samples from base to new. */
static double diff_delta(const struct fg_ctx *c, struct diff_counts d)
{
	return share_of(d.now, c->total) - share_of(d.was, c->base_total);
}

static bool diff_is_new(struct diff_counts d)
{
	return d.now > 0 && d.was <= 0;
}

/* max_abs_delta - the largest |delta| of @n and the callees drawn. */
static double max_abs_delta(const struct fg_ctx *c, const struct stacktree_node *n)
{
	double m = fabs(diff_delta(c, diff_counts_of(c, n))), cm;
	uint32_t i;

	for (i = 0; i < n->nchildren; i++) {
		if (!drawn(c, n->children[i]))
			continue;
		cm = max_abs_delta(c, n->children[i]);
		if (cm > m)
			m = cm;
	}
	return m;
}

static void diff_fill(const struct fg_ctx *c, struct diff_counts d, char *buf, size_t len)
{
	/* The shade fails only for NaN or a negative maximum, which shares
	 * of counts cannot give; the frame would stay white. */
	unsigned char rgb[3] = { 255, 255, 255 };

	flamegraph_diff_shade(diff_delta(c, d), c->max_delta, diff_is_new(d), rgb);
	snprintf(buf, len, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
}

/* write_amount - "N samples", or the time of N nanoseconds. */
static void write_amount(const struct fg_ctx *c, int64_t n)
{
	if (!c->time_ns)
		fprintf(c->out, "%" PRId64 " sample%s", n, n == 1 ? "" : "s");
	else if (n >= 1000000000)
		fprintf(c->out, "%.3f s", (double)n / 1e9);
	else if (n >= 1000000)
		fprintf(c->out, "%.2f ms", (double)n / 1e6);
	else
		fprintf(c->out, "%.1f us", (double)n / 1e3);
}

/* write_diff_title - the tail of a frame's <title> in a differential
 * graph, from its counts @d: " (N samples, P%; was B%, +D pp)", or
 * "; new, not in base" when base has no samples of it. The script cuts
 * the name at the last " (". */
static void write_diff_title(const struct fg_ctx *c, struct diff_counts d)
{
	double pp = 100.0 * diff_delta(c, d);

	fputs(" (", c->out);
	if (c->by_self)
		fputs("self ", c->out);
	write_amount(c, d.now);
	fprintf(c->out, ", %.2f%%; ", 100.0 * share_of(d.now, c->total));
	if (diff_is_new(d)) {
		fputs("new, not in base)</title>", c->out);
		return;
	}
	/* No "-0.00 pp" for a change that rounds away. */
	if (pp > -0.005 && pp < 0.005)
		pp = 0.0;
	fprintf(c->out, "was %.2f%%, %+.2f pp)</title>", 100.0 * share_of(d.was, c->base_total),
		pp);
}

static unsigned drawn_depth(const struct fg_ctx *c, const struct stacktree_node *n)
{
	unsigned d = n->depth, cd;
	uint32_t i;

	for (i = 0; i < n->nchildren; i++) {
		if (!drawn(c, n->children[i]))
			continue;
		cd = drawn_depth(c, n->children[i]);
		if (cd > d)
			d = cd;
	}
	return d;
}

/* write_label - as much of @name as fits @w pixels, ".." marking a cut. */
static void write_label(FILE *out, const char *name, double w)
{
	long fit = (long)((w - 6) / (FONT_SIZE * FONT_WIDTH));
	size_t i, chars = 0, cut = 0;

	if (fit < 3)
		return;
	for (i = 0; name[i]; i++) {
		if (((unsigned char)name[i] & 0xc0) == 0x80)
			continue;
		if (chars == (size_t)fit - 2)
			cut = i;
		chars++;
	}
	if (chars <= (size_t)fit) {
		xml_put(out, name);
		return;
	}
	xml_putn(out, name, cut);
	fputs("..", out);
}

static void write_frame(struct fg_ctx *c, const struct stacktree_node *n, int64_t offset)
{
	double x = XPAD + (double)offset * c->scale;
	double w = c->total > 0 ? (double)n->total * c->scale : c->avail;
	double y = c->height - BOTTOM_PAD - (double)(n->depth + 1) * FRAME_H;
	double share = c->total > 0 ? 100.0 * (double)n->total / (double)c->total : 0;
	struct diff_counts d = c->diff ? diff_counts_of(c, n) : (struct diff_counts){ 0, 0 };
	char fill[48];

	if (c->diff)
		diff_fill(c, d, fill, sizeof(fill));
	else
		frame_fill(n, fill, sizeof(fill));
	fprintf(c->out, "<g data-o=\"%" PRId64 "\" data-v=\"%" PRId64 "\" data-d=\"%u\"><title>",
		offset, n->total, (unsigned)n->depth);
	xml_put(c->out, n->name);
	if (c->diff) {
		write_diff_title(c, d);
	} else {
		fputs(" (", c->out);
		write_amount(c, n->total);
		fprintf(c->out, ", %.2f%%)</title>", share);
	}
	fprintf(c->out,
		"<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>"
		"<text x=\"%.2f\" y=\"%.0f\">",
		x, y, w, FRAME_H - 1, fill, x + 3, y + FRAME_H - 4);
	write_label(c->out, n->name, w);
	fputs("</text></g>\n", c->out);
}

/* write_frames - @n at @offset samples from the left, then its callees
 * side by side from the same left edge (its self time is the gap on the
 * right). */
static void write_frames(struct fg_ctx *c, const struct stacktree_node *n, int64_t offset)
{
	uint32_t i;

	write_frame(c, n, offset);
	for (i = 0; i < n->nchildren; i++) {
		if (drawn(c, n->children[i]))
			write_frames(c, n->children[i], offset);
		/* Saturated counts (a hostile file) must not overflow. */
		offset = offset > INT64_MAX - n->children[i]->total
				 ? INT64_MAX
				 : offset + n->children[i]->total;
	}
}

static const char style[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#subtitle { fill: #555; text-anchor: middle; }\n"
	"#frames g { cursor: pointer; }\n"
	"#frames text { pointer-events: none; }\n"
	"#frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	".parent { opacity: 0.5; }\n"
	".ctl { cursor: pointer; fill: #1a4fa0; }\n"
	".ctl:hover { text-decoration: underline; }\n"
	".hide { display: none; }\n"
	"#matched { text-anchor: end; }\n";

/* The script reads each frame's samples (data-o offset, data-v width,
 * data-d depth) and name (its <title> without the " (N samples, P%)"
 * tail) once, then only moves rectangles and rewrites labels. It is
 * written as script_head, the search fill, script_tail. */
static const char script_head[] =
	"'use strict';\n"
	"var svg = document.documentElement, frames = [], W, XPAD = 10, FW = 12 * 0.59;\n"
	"var details, matched, unzoom, searchBtn, searching = false;\n"
	"function init() {\n"
	"  W = +svg.getAttribute('width');\n"
	"  details = document.getElementById('details');\n"
	"  matched = document.getElementById('matched');\n"
	"  unzoom = document.getElementById('unzoom');\n"
	"  searchBtn = document.getElementById('search');\n"
	"  var gs = document.getElementById('frames').children;\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    var g = gs[i], t = g.querySelector('title').textContent;\n"
	"    var r = g.querySelector('rect');\n"
	"    frames.push({ g: g, rect: r, text: g.querySelector('text'), info: t,\n"
	"      name: t.slice(0, t.lastIndexOf(' (')), fill: r.getAttribute('fill'),\n"
	"      o: +g.getAttribute('data-o'), v: +g.getAttribute('data-v'),\n"
	"      d: +g.getAttribute('data-d') });\n"
	"    g.fgIndex = i;\n"
	"  }\n"
	"  var fg = document.getElementById('frames');\n"
	"  fg.addEventListener('click', function (e) {\n"
	"    var f = frameOf(e.target); if (f) zoom(f); });\n"
	"  fg.addEventListener('mouseover', function (e) {\n"
	"    var f = frameOf(e.target); if (f) details.textContent = f.info; });\n"
	"  fg.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"  unzoom.addEventListener('click', function () { zoom(frames[0]); });\n"
	"  searchBtn.addEventListener('click', function () { searching ? search('') : ask(); });\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
	"    else if (e.key === 'Escape') search('');\n"
	"  });\n"
	"}\n"
	"function frameOf(el) {\n"
	"  for (; el && el !== svg; el = el.parentNode)\n"
	"    if (el.fgIndex !== undefined) return frames[el.fgIndex];\n"
	"  return null;\n"
	"}\n"
	"function label(name, w) {\n"
	"  var n = Math.floor((w - 6) / FW);\n"
	"  if (n < 3) return '';\n"
	"  return name.length <= n ? name : name.slice(0, n - 2) + '..';\n"
	"}\n"
	"function place(f, x, w) {\n"
	"  f.rect.setAttribute('x', x.toFixed(2));\n"
	"  f.rect.setAttribute('width', w.toFixed(2));\n"
	"  f.text.setAttribute('x', (x + 3).toFixed(2));\n"
	"  f.text.textContent = label(f.name, w);\n"
	"}\n"
	"// Ancestors of the zoomed frame span the width, faded; its callees\n"
	"// scale up; everything else hides.\n"
	"function zoom(z) {\n"
	"  if (!z.v) return;\n"
	"  var avail = W - 2 * XPAD, scale = avail / z.v, end = z.o + z.v;\n"
	"  frames.forEach(function (f) {\n"
	"    var inside = f.d >= z.d && f.o >= z.o && f.o + f.v <= end;\n"
	"    var above = f.d < z.d && f.o <= z.o && f.o + f.v >= end;\n"
	"    f.g.classList.toggle('hide', !inside && !above);\n"
	"    f.g.classList.toggle('parent', above);\n"
	"    if (inside) place(f, XPAD + (f.o - z.o) * scale, f.v * scale);\n"
	"    else if (above) place(f, XPAD, avail);\n"
	"  });\n"
	"  unzoom.classList.toggle('hide', z === frames[0]);\n"
	"}\n"
	"function ask() {\n"
	"  var s = prompt('Search frames (regular expression):', '');\n"
	"  if (s) search(s);\n"
	"}\n"
	"// Matches nest (a caller and its callee): count only the outermost.\n"
	"function search(s) {\n"
	"  var re = null, hits = [], sum = 0, end = -1;\n"
	"  if (s) {\n"
	"    try { re = new RegExp(s); }\n"
	"    catch (e) { alert('Not a regular expression: ' + e.message); return; }\n"
	"  }\n"
	"  frames.forEach(function (f) {\n"
	"    var hit = re !== null && re.test(f.name);\n"
	"    f.rect.setAttribute('fill', hit ? '";
static const char script_tail[] =
	"' : f.fill);\n"
	"    if (hit) hits.push(f);\n"
	"  });\n"
	"  searching = re !== null;\n"
	"  searchBtn.textContent = searching ? 'Reset Search' : 'Search';\n"
	"  if (!searching) { matched.textContent = ' '; return; }\n"
	"  hits.sort(function (a, b) { return a.o - b.o || b.v - a.v; });\n"
	"  hits.forEach(function (f) { if (f.o >= end) { sum += f.v; end = f.o + f.v; } });\n"
	"  var all = frames[0].v;\n"
	"  var share = all ? (100 * sum / all).toFixed(2) : '0.00';\n"
	"  matched.textContent = 'Matched: ' + share + '%';\n"
	"}\n"
	"init();\n";

/* The colours are the legend's words, darker so they read as text. */
static const char diff_legend[] =
	"<tspan style=\"fill: #c00000\">red</tspan>: share of all samples grew from base, "
	"<tspan style=\"fill: #0030c0\">blue</tspan>: shrank; widths are the new profile, "
	"frames only in base are not drawn";
static const char diff_self_legend[] =
	"<tspan style=\"fill: #c00000\">red</tspan>: self share (samples as the leaf) grew "
	"from base, <tspan style=\"fill: #0030c0\">blue</tspan>: shrank, white: no leaf; "
	"widths are the new profile";

static void write_head(struct fg_ctx *c, unsigned width, const struct flamegraph_options *o)
{
	char clean[STACKTREE_MAX_NAME];
	int y = 24;

	fprintf(c->out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\">\n"
		"<style type=\"text/css\"><![CDATA[\n%s]]></style>\n"
		"<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop offset=\"5%%\" stop-color=\"#f2f2f2\"/>"
		"<stop offset=\"95%%\" stop-color=\"#e4e8f0\"/></linearGradient></defs>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#bg)\"/>\n"
		"<text id=\"title\" x=\"%u\" y=\"24\">",
		width, c->height, width, c->height, style, width, c->height, width / 2);
	xml_put(c->out, stacktree__clean_name(clean, sizeof(clean),
					      o->title ? o->title : FLAMEGRAPH_DEFAULT_TITLE));
	fputs("</text>\n", c->out);
	if (o->subtitle) {
		y += SUBTITLE_PAD;
		fprintf(c->out, "<text id=\"subtitle\" x=\"%u\" y=\"%d\">", width / 2, y);
		xml_put(c->out, stacktree__clean_name(clean, sizeof(clean), o->subtitle));
		fputs("</text>\n", c->out);
	}
	if (c->diff)
		fprintf(c->out,
			"<text id=\"legend\" x=\"%u\" y=\"%d\" "
			"style=\"fill: #555; text-anchor: middle\">%s</text>\n",
			width / 2, y + SUBTITLE_PAD, c->by_self ? diff_self_legend : diff_legend);
	fprintf(c->out,
		"<text id=\"unzoom\" class=\"ctl hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%u\" y=\"24\" "
		"style=\"text-anchor: end\">Search</text>\n"
		"<g id=\"frames\">\n",
		XPAD, width - XPAD);
}

static void write_tail(struct fg_ctx *c, unsigned width)
{
	fprintf(c->out,
		"</g>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s%s%s]]></script>\n"
		"</svg>\n",
		XPAD, c->height - 10, width - XPAD, c->height - 10, script_head,
		c->diff ? DIFF_SEARCH_FILL : SEARCH_FILL, script_tail);
}

int flamegraph_write(FILE *out, const struct stacktree *t, const struct flamegraph_options *opt)
{
	static const struct flamegraph_options defaults = FLAMEGRAPH_OPTIONS_INIT;
	const struct flamegraph_options *o = opt ? opt : &defaults;
	struct fg_ctx c = { .out = out, .total = t->root->total, .time_ns = o->time_ns };
	unsigned depths, top_pad;

	if (o->width < FLAMEGRAPH_MIN_WIDTH || o->width > FLAMEGRAPH_MAX_WIDTH ||
	    !(o->min_pct >= 0 && o->min_pct <= 100))
		return -EINVAL;
	c.avail = o->width - 2 * XPAD;
	c.scale = c.total > 0 ? c.avail / (double)c.total : 0;
	c.min_value = (double)c.total * o->min_pct / 100.0;
	depths = drawn_depth(&c, t->root) + 1;
	top_pad = TOP_PAD + (o->subtitle ? SUBTITLE_PAD : 0) + (o->diff ? SUBTITLE_PAD : 0);
	c.height = top_pad + depths * FRAME_H + BOTTOM_PAD;
	if (o->diff) {
		c.diff = true;
		c.by_self = o->by_self;
		c.base_total = t->root->base_total;
		if (c.by_self && report_functions(t, &c.funcs, &c.nfuncs))
			return -ENOMEM;
		if (c.nfuncs)
			qsort(c.funcs, c.nfuncs, sizeof(*c.funcs), func_cmp);
		c.max_delta = max_abs_delta(&c, t->root);
	}
	write_head(&c, o->width, o);
	write_frames(&c, t->root, 0);
	write_tail(&c, o->width);
	free(c.funcs);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
