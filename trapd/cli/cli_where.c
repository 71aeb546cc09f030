// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cli_where.c - the --where options (cli_where.h). */
#include "trapd/cli/cli_where.h"

#include <errno.h>
#include <stdbool.h>

#include "trapd/util/log.h"

int cli_parse_where(const char *option, const char *s, struct profile_where *w)
{
	char err[256];

	if (!profile_where__add(w, s, err, sizeof(err)))
		return 0;
	log_error("bad %s %s", option, err);
	return -EINVAL;
}

int cli_apply_where(struct profile *p, const struct profile_where *w, const char *file)
{
	bool said[PROFILE_LABEL_NR] = { false };
	char desc[512], values[512];
	size_t i;

	if (!w->n)
		return 0;
	for (i = 0; i < p->nsamples; i++)
		if (profile_where__match(w, p, &p->samples[i])) {
			profile_where__apply(p, w);
			return 0;
		}
	log_error("no sample of %s meets %s", file, profile_where__describe(w, desc, sizeof(desc)));
	for (i = 0; i < w->n; i++) {
		enum profile_label l = w->conds[i].label;

		if (said[l])
			continue;
		said[l] = true;
		log_error("  its %s labels: %s", profile_label__name(l),
			  profile_where__values(p, l, values, sizeof(values)));
	}
	return -ENOENT;
}
