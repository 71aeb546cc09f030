/* flamegraph.h - an interactive SVG flame graph, self-contained.
 *
 * The SVG draws the main side of a stacktree, root ("all") at the bottom,
 * processes above it, then each stack from the outermost frame up to the
 * leaf; a frame's width is its share of all samples. Its inline script
 * and style (no external files, no network) add: the name, samples and
 * share of the frame under the mouse in a details line (and a <title>
 * tooltip), click to zoom into a frame with a "Reset Zoom" control,
 * "Search" (or Ctrl-F) prompting for a regular expression that highlights
 * matching frames and shows the share of samples they cover, Escape to
 * clear it. Without scripts (an <img>, an image viewer) it still renders.
 *
 * Colours tell frame types apart: user frames warm (red to yellow),
 * kernel frames blue, unresolved frames grey, processes violet; the shade
 * is derived from the name, so a function has the same colour in every
 * graph. Frames covering less than min_pct of all samples are left out
 * (with their callees) to keep the file small; search only sees the
 * frames drawn, so its matched share can fall short by what was left out
 * (min_pct 0 draws everything).
 */
#ifndef TRAPD_FLAMEGRAPH_H
#define TRAPD_FLAMEGRAPH_H

#include <stdio.h>

#include "trapd/stacktree.h"

#define FLAMEGRAPH_DEFAULT_TITLE "Flame Graph"
#define FLAMEGRAPH_DEFAULT_WIDTH 1200
#define FLAMEGRAPH_DEFAULT_MIN_PCT 0.1
#define FLAMEGRAPH_MIN_WIDTH 200
#define FLAMEGRAPH_MAX_WIDTH 65536

struct flamegraph_options {
	const char *title;    /* NULL: FLAMEGRAPH_DEFAULT_TITLE */
	const char *subtitle; /* a line under the title; NULL: none */
	unsigned width;	      /* pixels, FLAMEGRAPH_MIN_WIDTH .. MAX_WIDTH */
	double min_pct;	      /* omit frames under this % of all samples, 0 .. 100 */
};

#define FLAMEGRAPH_OPTIONS_INIT                                                          \
	{                                                                                \
		.title = NULL, .subtitle = NULL, .width = FLAMEGRAPH_DEFAULT_WIDTH,      \
		.min_pct = FLAMEGRAPH_DEFAULT_MIN_PCT                                    \
	}

/* flamegraph_write - write the SVG for the main side of @t to @out.
 * @opt NULL means FLAMEGRAPH_OPTIONS_INIT; titles may hold any bytes (they
 * are cleaned and escaped). Returns 0, -EINVAL for a width or min_pct out
 * of range, or -EIO when writing failed (@out is flushed). */
int flamegraph_write(FILE *out, const struct stacktree *t, const struct flamegraph_options *opt);

#endif
