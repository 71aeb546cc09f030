/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cgroup_names.h - the path of a cgroup v2 id, as samples carry it: a
 * walk of the v2 hierarchy for the directory of that inode, remembered.
 *
 * A capture sees few cgroups; the flight recorder sees the same ones
 * second after second, so it keeps its names from one second to the
 * next instead of walking again. At most CGROUP_NAMES_MAX are kept (the
 * rest are walked each time); a walk reads at most CGROUP_NAMES_WALK_MAX
 * directories.
 */
#ifndef TRAPD_CGROUP_NAMES_H
#define TRAPD_CGROUP_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#define CGROUP_NAMES_MAX 256
#define CGROUP_NAMES_WALK_MAX 20000

struct cgroup_names {
	char v2_root[4096];
	bool have_root;
	uint64_t ids[CGROUP_NAMES_MAX];
	char *paths[CGROUP_NAMES_MAX];
	int n;
	char scratch[4096]; /* the path of an id past the cache */
};

/* cgroup_names__init - find the v2 hierarchy (once). */
void cgroup_names__init(struct cgroup_names *c);

/* cgroup_names__path - the path of cgroup @id below the v2 root, or
 * "cgroup-id:N" when it cannot be found; valid until the next call or
 * cgroup_names__release. */
const char *cgroup_names__path(struct cgroup_names *c, uint64_t id);

/* cgroup_names__release - forget every name (a cgroup's id may be
 * reused once it is removed: the recorder forgets them each window). */
void cgroup_names__release(struct cgroup_names *c);

#endif
