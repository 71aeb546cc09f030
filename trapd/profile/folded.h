/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* folded.h - folded stacks, the text format of FlameGraph's
 * stackcollapse scripts, which flamegraph.pl, speedscope, inferno and
 * many other tools read.
 *
 * One line per distinct stack with samples of its own:
 *
 *     comm;outermost;...;leaf COUNT
 *
 * Kernel frames end in "_[k]" (as the tree names them); a ';' inside a
 * name becomes ':' so it cannot split a frame. Lines come in tree order:
 * frame by frame, each level sorted by name, a stack before the stacks it
 * is a prefix of. The output is therefore deterministic and diffable.
 */
#ifndef TRAPD_FOLDED_H
#define TRAPD_FOLDED_H

#include <stdio.h>

#include "trapd/profile/stacktree.h"

/* folded_write - write the main side of @t to @out. Returns 0, or -EIO
 * when writing failed (@out is flushed). */
int folded_write(FILE *out, const struct stacktree *t);

#endif
