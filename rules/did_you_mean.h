/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* did_you_mean.h - the word a user most likely meant, for "unknown key",
 * "unknown option" and "unknown command" messages: among the words
 * offered, the one closest to what was typed (edits: a letter added,
 * dropped, changed, or two swapped), when it is close enough to be a slip
 * (at most 1 edit for a word of up to 4 letters, 2 for longer) and no
 * other word is as close.
 *
 *	struct did_you_mean d;
 *	did_you_mean__init(&d, typed);
 *	for (...) did_you_mean__offer(&d, word);
 *	if (did_you_mean__best(&d)) ...
 */
#ifndef TRAPD_RULES_DID_YOU_MEAN_H
#define TRAPD_RULES_DID_YOU_MEAN_H

#include <stdbool.h>

#define DID_YOU_MEAN_MAX_LEN 64 /* longer words are never matched */

struct did_you_mean {
	const char *typed;
	const char *best; /* NULL: none yet, or a tie */
	unsigned best_dist;
	bool tie;
};

void did_you_mean__init(struct did_you_mean *d, const char *typed);
void did_you_mean__offer(struct did_you_mean *d, const char *word);

/* did_you_mean__best - the word meant, or NULL when none is close enough
 * or two are as close. */
const char *did_you_mean__best(const struct did_you_mean *d);

/* did_you_mean__distance - the edits between @a and @b (optimal string
 * alignment: insert, delete, substitute, swap two neighbours); words over
 * DID_YOU_MEAN_MAX_LEN bytes are DID_YOU_MEAN_MAX_LEN + 1 apart. */
unsigned did_you_mean__distance(const char *a, const char *b);

#endif
