// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cgroup_path.c - cgroup mounts and name resolution. */
#include "rules/cgroup_path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

/* mountinfo fields: id parent major:minor root mountpoint options... -
 * fstype source superoptions. Returns the mount point of the first
 * cgroup2 mount. */
int cgroup_v2_mount(const char *mountinfo, char *out, size_t len)
{
	char line[4096];
	int found = -ENOENT;
	FILE *f;

	f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - "), *mnt, *sp;
		int field;

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
			continue;
		/* the mount point is the fifth field */
		for (mnt = line, field = 0; field < 4 && mnt; field++) {
			mnt = strchr(mnt, ' ');
			mnt = mnt ? mnt + 1 : NULL;
		}
		if (!mnt || !(sp = strchr(mnt, ' ')) || (size_t)(sp - mnt) >= len)
			continue;
		memcpy(out, mnt, sp - mnt);
		out[sp - mnt] = '\0';
		found = 0;
	}
	fclose(f);
	return found;
}

/* hierarchy_root - walk up from @path while the parent is still on a
 * cgroup file system of the same device: that is the hierarchy's root. */
static int hierarchy_root(const char *path, char *root, size_t len)
{
	struct stat st, pst;
	char cur[PATH_MAX], parent[PATH_MAX + 4];

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur) || stat(cur, &st))
		return -ENAMETOOLONG;
	for (;;) {
		struct statfs fs;
		char *slash;

		snprintf(parent, sizeof(parent), "%s/..", cur);
		if (stat(parent, &pst) || pst.st_dev != st.st_dev || statfs(parent, &fs) ||
		    (fs.f_type != CGROUP2_SUPER_MAGIC && fs.f_type != CGROUP_SUPER_MAGIC))
			break;
		slash = strrchr(cur, '/');
		if (!slash || slash == cur)
			break;
		*slash = '\0';
	}
	if (strlen(cur) >= len)
		return -ENAMETOOLONG;
	memcpy(root, cur, strlen(cur) + 1);
	return 0;
}

static int fill_ref(const char *abs, struct cgroup_ref *out)
{
	char real[PATH_MAX], root[PATH_MAX];
	struct statfs fs;
	struct stat st;
	size_t rl;
	int err;

	if (!realpath(abs, real))
		return -errno;
	if (stat(real, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statfs(real, &fs))
		return -errno;
	if (fs.f_type == CGROUP2_SUPER_MAGIC)
		out->version = CGROUP_V2;
	else if (fs.f_type == CGROUP_SUPER_MAGIC)
		out->version = CGROUP_V1;
	else
		return -EINVAL;
	err = hierarchy_root(real, root, sizeof(root));
	if (err)
		return err;
	rl = strlen(root);
	snprintf(out->path, sizeof(out->path), "%s", real);
	snprintf(out->relative, sizeof(out->relative), "%s", real[rl] ? real + rl : "/");
	out->id = out->version == CGROUP_V2 ? (uint64_t)st.st_ino : 0;
	return 0;
}

int cgroup_resolve(const char *mountinfo, const char *name, struct cgroup_ref *out)
{
	char v2[PATH_MAX], path[PATH_MAX * 2];
	int err;

	if (!name || !*name)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* An absolute path is a cgroup directory, or else a path inside the
	 * v2 hierarchy as /proc/PID/cgroup writes it ("/", "/system.slice"). */
	if (name[0] == '/' && access(name, F_OK) == 0) {
		err = fill_ref(name, out);
		if (err != -EINVAL)
			return err;
		memset(out, 0, sizeof(*out));
	}
	err = cgroup_v2_mount(mountinfo, v2, sizeof(v2));
	if (err)
		return name[0] == '/' ? -ENOENT : err;
	snprintf(path, sizeof(path), "%s/%s", v2, name[0] == '/' ? name + 1 : name);
	if (access(path, F_OK))
		return -ENOENT;
	return fill_ref(path, out);
}

struct walk {
	uint64_t id;
	size_t left;
	size_t root_len;
	char *out;
	size_t len;
};

static int walk_dir(struct walk *w, char *path, size_t plen)
{
	struct dirent *de;
	int found = -ENOENT;
	DIR *d;

	if (w->left == 0)
		return -ENOENT;
	w->left--;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while (found && (de = readdir(d))) {
		size_t nl = strlen(de->d_name);

		if (de->d_type != DT_DIR || de->d_name[0] == '.' || plen + 1 + nl >= PATH_MAX)
			continue;
		path[plen] = '/';
		memcpy(path + plen + 1, de->d_name, nl + 1);
		if (de->d_ino == w->id) {
			snprintf(w->out, w->len, "%s", path + w->root_len);
			found = 0;
		} else {
			found = walk_dir(w, path, plen + 1 + nl);
		}
		path[plen] = '\0';
	}
	closedir(d);
	return found;
}

int cgroup_path_of_id(const char *v2_root, uint64_t id, size_t max_dirs, char *out, size_t len)
{
	struct walk w = { id, max_dirs, strlen(v2_root), out, len };
	char path[PATH_MAX];
	struct stat st;

	if (w.root_len >= sizeof(path) || stat(v2_root, &st))
		return -ENOENT;
	if ((uint64_t)st.st_ino == id) {
		snprintf(out, len, "/");
		return 0;
	}
	memcpy(path, v2_root, w.root_len + 1);
	return walk_dir(&w, path, w.root_len);
}
