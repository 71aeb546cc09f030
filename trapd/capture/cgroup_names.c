// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cgroup_names.c - cgroup v2 ids to paths, remembered (cgroup_names.h). */
#include "trapd/capture/cgroup_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/cgroup_path.h"

void cgroup_names__init(struct cgroup_names *c)
{
	memset(c, 0, sizeof(*c));
	c->have_root = cgroup_v2_mount(NULL, c->v2_root, sizeof(c->v2_root)) == 0;
}

const char *cgroup_names__path(struct cgroup_names *c, uint64_t id)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->ids[i] == id)
			return c->paths[i];
	if (!c->have_root || cgroup_path_of_id(c->v2_root, id, CGROUP_NAMES_WALK_MAX, c->scratch,
					       sizeof(c->scratch)))
		snprintf(c->scratch, sizeof(c->scratch), "cgroup-id:%" PRIu64, id);
	if (c->n < CGROUP_NAMES_MAX) {
		c->paths[c->n] = strdup(c->scratch);
		if (c->paths[c->n]) {
			c->ids[c->n] = id;
			return c->paths[c->n++];
		}
	}
	return c->scratch;
}

void cgroup_names__release(struct cgroup_names *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		free(c->paths[i]);
	c->n = 0;
}
