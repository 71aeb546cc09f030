/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
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
 * Colours (outside differential mode) tell frame types apart: user
 * frames warm (red to yellow), kernel frames blue, unresolved frames
 * grey, processes violet; the shade is derived from the name, so a
 * function has the same colour in every graph. Frames covering less than
 * min_pct of all samples are left out (with their callees) to keep the
 * file small; search only sees the frames drawn, so its matched share can
 * fall short by what was left out (min_pct 0 draws everything).
 *
 * Differential mode (diff = true, for `trapd diff BASE NEW`: NEW on the
 * main side of the tree, BASE on the base side) keeps the layout (widths
 * are NEW's; frames found only in BASE have no width and are not drawn)
 * and colours each frame by how its share of all samples changed:
 *   delta = total / root.total - base_total / root.base_total
 * red for growth, blue for shrinkage, white for none, saturation in
 * proportion to |delta| over the largest |delta| among the frames drawn
 * (flamegraph_diff_shade). A frame with no BASE samples is "new": full
 * red, and its tooltip says so. A legend line under the title says what
 * the colours mean, and search highlights in green so hits do not look
 * like growth or shrinkage.
 *
 * The colour follows the total (inclusive) share, not the self share
 * that Brendan Gregg's difffolded.pl + flamegraph.pl colour by. Total is
 * the quantity the width and the tooltip show, so colour, width and text
 * tell one story; growth spread over many small callees, or in callees
 * left out by min_pct, still shows on the frames drawn, where by self
 * share it would stay white and vanish from the graph; and interior
 * frames, whose self share is mostly zero, carry information. The price:
 * callers take the colour of a change below them (unless other changes
 * cancel it), so a change colours a column; where it started is the top
 * of the column, where the colour stops or splits among the callees.
 */
#ifndef TRAPD_FLAMEGRAPH_H
#define TRAPD_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "trapd/profile/stacktree.h"

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
	bool diff;	      /* colour by the change from the base side */
	bool time_ns;	      /* counts are nanoseconds (a time view): tooltips say times */
	/* with @diff: colour a frame by the change of its self share (its
	 * samples as the leaf), not its total: for sides whose stacks were
	 * walked differently, where only leaves compare; a frame that is no
	 * leaf on either side is white */
	bool by_self;
};

#define FLAMEGRAPH_OPTIONS_INIT                                                                    \
	{                                                                                          \
		.title = NULL, .subtitle = NULL, .width = FLAMEGRAPH_DEFAULT_WIDTH,                \
		.min_pct = FLAMEGRAPH_DEFAULT_MIN_PCT, .diff = false, .time_ns = false,            \
		.by_self = false                                                                   \
	}

/* The other two channels of a fully saturated red or blue: not 0, so the
 * black labels stay readable. */
#define FLAMEGRAPH_DIFF_FULL 80

/* flamegraph_write - write the SVG for the main side of @t to @out, in
 * differential mode when @opt->diff (see above; @t's base side is then the
 * baseline). @opt NULL means FLAMEGRAPH_OPTIONS_INIT; titles may hold any
 * bytes (they are cleaned and escaped). Returns 0, -EINVAL for a width or
 * min_pct out of range, or -EIO when writing failed (@out is flushed). */
int flamegraph_write(FILE *out, const struct stacktree *t, const struct flamegraph_options *opt);

/* flamegraph_diff_shade - the fill of a frame in a differential graph
 * into @rgb (red, green, blue). @delta is the change of the frame's share
 * of all samples from base to new (a fraction, not percent),
 * @max_abs_delta the largest |delta| among the frames drawn (a larger
 * |delta| counts as @max_abs_delta), @is_new whether the frame has no base
 * samples. Growth is red (255, v, v), shrinkage blue (v, v, 255), where
 * v = 255 - round((255 - FLAMEGRAPH_DIFF_FULL) * |delta| / @max_abs_delta);
 * @delta 0 (or @max_abs_delta 0) is no change, white. Equal shares give
 * exactly 0 (each is correctly rounded), so no tolerance is needed. A new
 * frame is full red whatever @delta. Returns 0, or -EINVAL
 * (@rgb untouched) when @rgb is NULL, @delta is not finite, or
 * @max_abs_delta is negative or not finite. */
int flamegraph_diff_shade(double delta, double max_abs_delta, bool is_new, unsigned char rgb[3]);

#endif
