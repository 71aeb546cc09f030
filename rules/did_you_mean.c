// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* did_you_mean.c - the word a user most likely meant (did_you_mean.h). */
#include "rules/did_you_mean.h"

#include <string.h>

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned did_you_mean__distance(const char *a, const char *b)
{
	unsigned d[DID_YOU_MEAN_MAX_LEN + 1][DID_YOU_MEAN_MAX_LEN + 1];
	size_t n = strlen(a), m = strlen(b), i, j;

	if (n > DID_YOU_MEAN_MAX_LEN || m > DID_YOU_MEAN_MAX_LEN)
		return DID_YOU_MEAN_MAX_LEN + 1;
	for (i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (i = 1; i <= n; i++) {
		for (j = 1; j <= m; j++) {
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[n][m];
}

void did_you_mean__init(struct did_you_mean *d, const char *typed)
{
	d->typed = typed;
	d->best = NULL;
	d->best_dist = 0;
	d->tie = false;
}

void did_you_mean__offer(struct did_you_mean *d, const char *word)
{
	unsigned dist = did_you_mean__distance(d->typed, word);
	unsigned most = strlen(d->typed) <= 4 ? 1 : 2;

	if (!dist || dist > most)
		return;
	if (!d->best || dist < d->best_dist) {
		d->best = word;
		d->best_dist = dist;
		d->tie = false;
	} else if (dist == d->best_dist && strcmp(word, d->best)) {
		d->tie = true;
	}
}

const char *did_you_mean__best(const struct did_you_mean *d)
{
	return d->tie ? NULL : d->best;
}
