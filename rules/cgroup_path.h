/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cgroup_path.h - find cgroup hierarchies and resolve what users write
 * ("system.slice/nginx.service", "/sys/fs/cgroup/unified/x",
 * "/sys/fs/cgroup/cpu/x") to a directory, on pure v2, hybrid and v1 hosts.
 *
 * Mounts are read from /proc/self/mountinfo (libcgroup's mount table has
 * no notion of the hybrid layout's "unified" v2 tree in the Debian 12
 * version, so the v2 mount is found here directly).
 */
#ifndef TRAPD_CGROUP_PATH_H
#define TRAPD_CGROUP_PATH_H

#include <stddef.h>
#include <stdint.h>

enum cgroup_version {
	CGROUP_V1 = 1,
	CGROUP_V2 = 2,
};

struct cgroup_ref {
	enum cgroup_version version;
	char path[4096];     /* absolute directory path */
	char relative[4096]; /* path inside its hierarchy, "/" for the root */
	uint64_t id;	     /* v2: cgroup id (directory inode), else 0 */
};

/* cgroup_v2_mount - the mount point of the unified (v2) hierarchy, from
 * @mountinfo ("/proc/self/mountinfo" unless a test passes a fixture).
 * Returns 0, or -ENOENT when there is none. */
int cgroup_v2_mount(const char *mountinfo, char *out, size_t len);

/* cgroup_resolve - resolve @name: an absolute path to a cgroup directory
 * (v1 or v2), or a path relative to the v2 hierarchy (with or without a
 * leading slash, as /proc/PID/cgroup writes it: "/" is the v2 root). Returns 0, -ENOENT
 * (no such cgroup), -ENOTDIR or -EINVAL (the path is not in a cgroup
 * file system). */
int cgroup_resolve(const char *mountinfo, const char *name, struct cgroup_ref *out);

/* cgroup_path_of_id - the path (relative to the v2 root, "/" for the root)
 * of the v2 cgroup with id @id, found by walking @v2_root (at most
 * @max_dirs directories). Returns 0 or -ENOENT. */
int cgroup_path_of_id(const char *v2_root, uint64_t id, size_t max_dirs, char *out, size_t len);

#endif
