// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cgroup_stat.c - cgroup hierarchies from mountinfo (and libcgroup on the
 * live host), a cgroup's directories in them, and its CPU counters.
 *
 * Where libcgroup serves and where it does not (libcgroup 2.0.2, Debian
 * 12, checked on a hybrid host: v1 cpu and cpuacct apart, v2 at
 * /sys/fs/cgroup/unified):
 * - It serves for the v1 cpu and cpuacct mount points of the live host:
 *   cgroup_init() + cgroup_get_subsys_mount_point("cpu") gives
 *   /sys/fs/cgroup/cpu, "cpuacct" /sys/fs/cgroup/cpuacct (a co-mounted
 *   "cpu,cpuacct" hierarchy is one mount entry per controller in its
 *   table; not checked on such a host). v1_from_libcgroup uses it there.
 * - It does not serve for fixture trees: it reads the running system's
 *   /proc/mounts and /proc/cgroups, paths compiled in, with no call to
 *   point it at another mount table or a prefix. Tests therefore, and any
 *   caller with a non-live struct signal_env, go through mountinfo.
 * - It does not serve for the v2 tree on a hybrid host: it maps a cgroup2
 *   mount only under the controllers its cgroup.controllers lists (on the
 *   test host "hugetlb" -> /sys/fs/cgroup/unified), never as "the unified
 *   tree", and the unified tree there usually lists none of cpu, memory or
 *   io. The v2 tree holds usage and PSI on such hosts, so its mount point
 *   always comes from mountinfo.
 * - For the same reason, where the cpu controller is on v2 (a pure v2
 *   host) it answers "cpu" with the v2 mount; that is not a v1 hierarchy,
 *   so an answer equal to the v2 mount point is dropped.
 * - cgroup_init() keeps process-global state, and its header says the
 *   mount cache cannot be refreshed; in 2.0.2 calling it again does
 *   re-read the mount table (checked, no leak under ASan), which is what
 *   v1_from_libcgroup does each time mounts are looked up (a new source,
 *   or a cgroup that went missing). It is called from the one thread that
 *   reads signals, never concurrently.
 */
#include "rules/cgroup_stat.h"
#include "rules/errmsg.h"
#include "rules/file_cache.h"

#include <errno.h>
#include <libcgroup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rules/proc_stat.h"

#define MOUNTINFO_LINES_MAX 100000 /* a host with more mounts is not sane */
#define CGFILE_MAX 4096		   /* cpu.stat and friends are a few lines */

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* next_field - the space-separated field at *@p, with mountinfo's octal
 * escapes (\040 space, \011 tab, \012 newline, \134 backslash) undone,
 * into @out; *@p moves to the next field. */
static int next_field(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;

	if (!*s || *s == ' ')
		return -EINVAL;
	while (*s && *s != ' ') {
		char c = *s++;

		if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (n + 1 >= len)
			return -ENAMETOOLONG;
		out[n++] = c;
	}
	out[n] = '\0';
	while (*s == ' ')
		s++;
	*p = s;
	return 0;
}

/* has_option - whether the comma-separated @opts holds exactly @name. */
static bool has_option(const char *opts, const char *name)
{
	size_t nl = strlen(name);
	const char *o = opts;

	while (o) {
		if (!strncmp(o, name, nl) && (o[nl] == ',' || o[nl] == '\0'))
			return true;
		o = strchr(o, ',');
		o = o ? o + 1 : NULL;
	}
	return false;
}

/* mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] -
 * FSTYPE SOURCE SUPEROPTIONS */
void cgroup_stat_mount_line(const char *line, struct cgroup_stat_mounts *m)
{
	char mnt[PATH_MAX], field[PATH_MAX], fstype[32];
	const char *p = line;
	int i;

	for (i = 0; i < 5; i++)
		if (next_field(&p, i == 4 ? mnt : field, i == 4 ? sizeof(mnt) : sizeof(field)))
			return;
	do {
		if (next_field(&p, field, sizeof(field)))
			return;
	} while (strcmp(field, "-"));
	if (next_field(&p, fstype, sizeof(fstype)) || next_field(&p, field, sizeof(field)) ||
	    next_field(&p, field, sizeof(field)))
		return; /* the source is skipped; field holds the super options */
	if (!strcmp(fstype, "cgroup2")) {
		if (!m->v2[0])
			copy_str(m->v2, sizeof(m->v2), mnt);
		return;
	}
	/* v1: the super options name the controllers */
	if (strcmp(fstype, "cgroup"))
		return;
	if (!m->cpu[0] && has_option(field, "cpu"))
		copy_str(m->cpu, sizeof(m->cpu), mnt);
	if (!m->cpuacct[0] && has_option(field, "cpuacct"))
		copy_str(m->cpuacct, sizeof(m->cpuacct), mnt);
}

/* v1_from_libcgroup - the live host's v1 cpu and cpuacct mount points
 * from libcgroup (the header comment says where it does not serve). A
 * controller it does not know keeps what mountinfo said. */
static void v1_from_libcgroup(struct cgroup_stat_mounts *m)
{
	static const char *const ctl[] = { "cpu", "cpuacct" };
	char *dst[] = { m->cpu, m->cpuacct };
	size_t i;

	if (cgroup_init())
		return;
	for (i = 0; i < 2; i++) {
		char *mp = NULL;

		if (!cgroup_get_subsys_mount_point(ctl[i], &mp) && mp && strcmp(mp, m->v2) &&
		    strlen(mp) < PATH_MAX) {
			copy_str(dst[i], PATH_MAX, mp);
			m->libcgroup = true;
		}
		free(mp);
	}
}

/* read_mountinfo - apply every line of @f; a line too long for the buffer
 * is not a cgroup mount anyone uses and is skipped whole. */
static void read_mountinfo(FILE *f, struct cgroup_stat_mounts *m)
{
	char line[8192];
	size_t lines = 0, len;
	bool skipping = false;

	while (lines < MOUNTINFO_LINES_MAX && fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (len && line[len - 1] == '\n') {
			line[--len] = '\0';
			lines++;
			if (!skipping)
				cgroup_stat_mount_line(line, m);
			skipping = false;
		} else if (!feof(f)) {
			skipping = true;
		} else if (!skipping) {
			cgroup_stat_mount_line(line, m);
		}
	}
}

int cgroup_stat_find_mounts(const char *mountinfo, const char *fs_prefix,
			    struct cgroup_stat_mounts *m, char *err, size_t errlen)
{
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (strlen(fs_prefix) >= sizeof(m->prefix))
		return errmsg_fail(err, errlen, -ENAMETOOLONG, "%s: prefix too long", fs_prefix);
	copy_str(m->prefix, sizeof(m->prefix), fs_prefix);
	f = fopen(mountinfo, "re");
	if (!f)
		return errmsg_fail(err, errlen, -errno, "%s: %s", mountinfo, strerror(errno));
	read_mountinfo(f, m);
	fclose(f);
	if (!*fs_prefix && !strcmp(mountinfo, CGROUP_STAT_LIVE_MOUNTINFO))
		v1_from_libcgroup(m);
	if (!m->v2[0] && !m->cpu[0] && !m->cpuacct[0])
		return errmsg_fail(err, errlen, -ENOENT,
				   "%s: no cgroup2, cpu or cpuacct cgroup mount", mountinfo);
	return 0;
}

/* under - the length of @mnt when @path is @mnt or inside it, else 0. */
static size_t under(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);

	if (!n || strncmp(path, mnt, n))
		return 0;
	if (n == 1 && mnt[0] == '/')
		return path[0] == '/' ? 1 : 0;
	return path[n] == '/' || path[n] == '\0' ? n : 0;
}

/* normalise - @in as "/a/b": one slash between components, none at the
 * end, "." dropped; ".." is refused (a cgroup name must not climb out). */
static int normalise(const char *in, char *out, size_t len)
{
	size_t n = 0;

	while (*in) {
		const char *c;
		size_t cl;

		while (*in == '/')
			in++;
		for (c = in; *in && *in != '/'; in++)
			;
		cl = (size_t)(in - c);
		if (cl == 0 || (cl == 1 && c[0] == '.'))
			continue;
		if (cl == 2 && c[0] == '.' && c[1] == '.')
			return -EINVAL;
		if (n + 1 + cl >= len)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, c, cl);
		n += cl;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

/* relative_of_absolute - the path inside the hierarchies of the absolute
 * @name: the rest after the mount point it is under, by its spelling or
 * through realpath (a v1 "/sys/fs/cgroup/cpu" that links to
 * "cpu,cpuacct"). A name under no mount point is taken as relative to the
 * hierarchies' roots, as /proc/PID/cgroup writes cgroups
 * ("/system.slice/x.service"; "/" is the root). */
static int relative_of_absolute(const struct cgroup_stat_mounts *m, const char *name, char *rel,
				size_t len)
{
	const char *mnts[] = { m->v2, m->cpu, m->cpuacct };
	char full[PATH_MAX * 2], real[PATH_MAX], mreal[PATH_MAX];
	size_t i, n, best = 0;

	for (i = 0; i < 3; i++)
		if ((n = under(name, mnts[i])) > best)
			best = n;
	if (best)
		return normalise(name + best, rel, len);
	snprintf(full, sizeof(full), "%s%s", m->prefix, name);
	for (i = 0; i < 3 && realpath(full, real); i++) {
		snprintf(full, sizeof(full), "%s%s", m->prefix, mnts[i]);
		if (mnts[i][0] && realpath(full, mreal) && (n = under(real, mreal)))
			return normalise(real + n, rel, len);
		snprintf(full, sizeof(full), "%s%s", m->prefix, name);
	}
	return normalise(name, rel, len);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* place - @dst is the cgroup's directory under @mnt if there is one. */
static void place(const struct cgroup_stat_mounts *m, const char *mnt, const char *rel, char *dst)
{
	char path[PATH_MAX * 3];

	dst[0] = '\0';
	if (!mnt[0])
		return;
	snprintf(path, sizeof(path), "%s%s%s", m->prefix, mnt, strcmp(rel, "/") ? rel : "");
	if (strlen(path) < PATH_MAX && is_dir(path))
		copy_str(dst, PATH_MAX, path);
}

int cgroup_stat_locate(const struct cgroup_stat_mounts *m, const char *name,
		       struct cgroup_stat_dirs *d, char *err, size_t errlen)
{
	int ret;

	memset(d, 0, sizeof(*d));
	if (!name || !*name)
		return errmsg_fail(err, errlen, -EINVAL, "empty cgroup name");
	if (name[0] == '/')
		ret = relative_of_absolute(m, name, d->relative, sizeof(d->relative));
	else
		ret = normalise(name, d->relative, sizeof(d->relative));
	if (ret)
		return errmsg_fail(err, errlen, ret, "cgroup %s: %s", name,
				   ret == -EINVAL ? "a '..' component is not allowed"
						  : strerror(-ret));
	place(m, m->v2, d->relative, d->v2);
	place(m, m->cpu, d->relative, d->cpu);
	place(m, m->cpuacct, d->relative, d->cpuacct);
	if (!d->v2[0] && !d->cpu[0] && !d->cpuacct[0])
		return errmsg_fail(err, errlen, -ENOENT,
				   "cgroup %s: no such cgroup (looked for %s in v2 '%s', cpu '%s', "
				   "cpuacct '%s' under '%s')",
				   name, d->relative, m->v2, m->cpu, m->cpuacct, m->prefix);
	return 0;
}

int cgroup_stat_parse_keyed(const char *text, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	const char *line = text, *p;

	while (line && *line) {
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			p = line + kl + 1;
			if (proc_stat_parse_u64(&p, out) || (*p && *p != '\n'))
				return -EINVAL;
			return 0;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return -ENOENT;
}

/* at_end - only a newline, or nothing, is left at @p. */
static bool at_end(const char *p)
{
	return *p == '\0' || (*p == '\n' && p[1] == '\0');
}

int cgroup_stat_parse_number(const char *text, int64_t *out)
{
	const char *p = text;
	bool neg = *p == '-';
	uint64_t v;

	if (neg)
		p++;
	if (proc_stat_parse_u64(&p, &v) || v > INT64_MAX || !at_end(p))
		return -EINVAL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int cgroup_stat_parse_cpu_max(const char *text, bool *has_quota, uint64_t *quota_us,
			      uint64_t *period_us)
{
	const char *p = text;

	*has_quota = strncmp(p, "max", 3) != 0;
	*quota_us = 0;
	if (!*has_quota)
		p += 3;
	else if (proc_stat_parse_u64(&p, quota_us) || *quota_us == 0)
		return -EINVAL;
	if (*p++ != ' ' || proc_stat_parse_u64(&p, period_us) || *period_us == 0 || !at_end(p))
		return -EINVAL;
	return 0;
}

/* read_cg_file - @dir/@name into @buf, through @files when given; @path
 * gets the file name. */
static int read_cg_file(struct file_cache *files, const char *dir, const char *name, char *buf,
			char *path, size_t plen)
{
	if (snprintf(path, plen, "%s/%s", dir, name) >= (int)plen)
		return -ENAMETOOLONG;
	return file_cache__read(files, path, buf, CGFILE_MAX, NULL);
}

/* keyed - the value of @key in the cpu.stat text @buf read from @path,
 * times @mul (1000 for microseconds); a missing line is -ENOENT. */
static int keyed(const char *buf, const char *path, const char *key, uint64_t mul, uint64_t *out,
		 char *err, size_t errlen)
{
	int ret = cgroup_stat_parse_keyed(buf, key, out);

	if (ret == -ENOENT)
		return errmsg_fail(err, errlen, ret, "%s: no '%s' line", path, key);
	if (ret || __builtin_mul_overflow(*out, mul, out))
		return errmsg_fail(err, errlen, -EINVAL, "%s: '%s' is not a 64-bit count", path,
				   key);
	return 0;
}

/* file_error - the message for a failed read of @path: a file of a
 * cgroup that was found is missing because the cgroup went away. */
static int file_error(const char *path, int ret, char *err, size_t errlen)
{
	if (ret == -ENOENT || ret == -ENODEV)
		return errmsg_fail(err, errlen, -ENOENT, "%s: no such file (cgroup removed?)",
				   path);
	return errmsg_fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
}

/* read_v2 - usage, and throttling where v1 has none, from v2 cpu.stat. */
static int read_v2(const struct cgroup_stat_dirs *d, struct file_cache *f, unsigned int want,
		   struct cgroup_stat_counters *out, char *err, size_t errlen)
{
	char path[PATH_MAX * 2], buf[CGFILE_MAX];
	int ret;

	ret = read_cg_file(f, d->v2, "cpu.stat", buf, path, sizeof(path));
	if (ret)
		return file_error(path, ret, err, errlen);
	if (want & CGROUP_STAT_USAGE) {
		ret = keyed(buf, path, "usage_usec", 1000, &out->usage_ns, err, errlen);
		if (ret)
			return ret == -ENOENT ? -EINVAL : ret;
		out->usage_src = CGROUP_STAT_SRC_V2;
	}
	if (!(want & CGROUP_STAT_THROTTLE) || d->cpu[0] ||
	    cgroup_stat_parse_keyed(buf, "nr_periods", &out->nr_periods) == -ENOENT)
		return 0; /* no v2 cpu controller here: no throttling figures */
	ret = keyed(buf, path, "nr_periods", 1, &out->nr_periods, err, errlen);
	if (!ret)
		ret = keyed(buf, path, "nr_throttled", 1, &out->nr_throttled, err, errlen);
	if (!ret)
		ret = keyed(buf, path, "throttled_usec", 1000, &out->throttled_ns, err, errlen);
	if (ret)
		return ret == -ENOENT ? -EINVAL : ret;
	out->throttle_src = CGROUP_STAT_SRC_V2;
	return 0;
}

/* read_v1 - usage from cpuacct.usage (when v2 gave none), throttling from
 * the v1 cpu controller's cpu.stat. */
static int read_v1(const struct cgroup_stat_dirs *d, struct file_cache *f, unsigned int want,
		   struct cgroup_stat_counters *out, char *err, size_t errlen)
{
	char path[PATH_MAX * 2], buf[CGFILE_MAX];
	int64_t v;
	int ret;

	if ((want & CGROUP_STAT_USAGE) && out->usage_src == CGROUP_STAT_SRC_NONE && d->cpuacct[0]) {
		ret = read_cg_file(f, d->cpuacct, "cpuacct.usage", buf, path, sizeof(path));
		if (ret)
			return file_error(path, ret, err, errlen);
		if (cgroup_stat_parse_number(buf, &v) || v < 0)
			return errmsg_fail(err, errlen, -EINVAL, "%s: not a count of nanoseconds",
					   path);
		out->usage_ns = (uint64_t)v;
		out->usage_src = CGROUP_STAT_SRC_V1;
	}
	if (!(want & CGROUP_STAT_THROTTLE) || !d->cpu[0])
		return 0;
	ret = read_cg_file(f, d->cpu, "cpu.stat", buf, path, sizeof(path));
	if (ret)
		return file_error(path, ret, err, errlen);
	ret = keyed(buf, path, "nr_periods", 1, &out->nr_periods, err, errlen);
	if (!ret)
		ret = keyed(buf, path, "nr_throttled", 1, &out->nr_throttled, err, errlen);
	if (!ret)
		ret = keyed(buf, path, "throttled_time", 1, &out->throttled_ns, err, errlen);
	if (ret)
		return ret == -ENOENT ? -EINVAL : ret;
	out->throttle_src = CGROUP_STAT_SRC_V1;
	return 0;
}

/* read_v1_quota - cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us. */
static int read_v1_quota(const char *dir, struct file_cache *f, struct cgroup_stat_counters *out,
			 char *err, size_t errlen)
{
	char path[PATH_MAX * 2], buf[CGFILE_MAX];
	int64_t quota, period;
	int ret;

	ret = read_cg_file(f, dir, "cpu.cfs_quota_us", buf, path, sizeof(path));
	if (ret)
		return file_error(path, ret, err, errlen);
	if (cgroup_stat_parse_number(buf, &quota) || quota == 0)
		return errmsg_fail(err, errlen, -EINVAL, "%s: not -1 or a positive count", path);
	if (quota < 0)
		return 0;
	ret = read_cg_file(f, dir, "cpu.cfs_period_us", buf, path, sizeof(path));
	if (ret)
		return file_error(path, ret, err, errlen);
	if (cgroup_stat_parse_number(buf, &period) || period <= 0)
		return errmsg_fail(err, errlen, -EINVAL, "%s: not a positive count", path);
	out->has_quota = true;
	out->quota_us = (uint64_t)quota;
	out->period_us = (uint64_t)period;
	return 0;
}

/* read_quota - v1 quota where the cgroup is in a v1 cpu hierarchy, else
 * v2 cpu.max (missing on the v2 root and without the cpu controller). */
static int read_quota(const struct cgroup_stat_dirs *d, struct file_cache *f,
		      struct cgroup_stat_counters *out, char *err, size_t errlen)
{
	char path[PATH_MAX * 2], buf[CGFILE_MAX];
	unsigned __int128 mcpu;
	int ret;

	if (d->cpu[0]) {
		ret = read_v1_quota(d->cpu, f, out, err, errlen);
	} else if (d->v2[0]) {
		ret = read_cg_file(f, d->v2, "cpu.max", buf, path, sizeof(path));
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return file_error(path, ret, err, errlen);
		ret = cgroup_stat_parse_cpu_max(buf, &out->has_quota, &out->quota_us,
						&out->period_us);
		if (ret)
			return errmsg_fail(err, errlen, ret,
					   "%s: not 'max PERIOD' or 'QUOTA PERIOD'", path);
	} else {
		return 0;
	}
	if (ret || !out->has_quota)
		return ret;
	mcpu = (unsigned __int128)out->quota_us * 1000 / out->period_us;
	out->quota_mcpu = mcpu > UINT64_MAX ? UINT64_MAX : (uint64_t)mcpu;
	return 0;
}

int cgroup_stat_read(const struct cgroup_stat_dirs *d, unsigned int want,
		     struct cgroup_stat_counters *out, char *err, size_t errlen)
{
	return cgroup_stat_read_cached(d, NULL, want, out, err, errlen);
}

int cgroup_stat_read_cached(const struct cgroup_stat_dirs *d, struct file_cache *f,
			    unsigned int want, struct cgroup_stat_counters *out, char *err,
			    size_t errlen)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (d->v2[0] &&
	    ((want & CGROUP_STAT_USAGE) || ((want & CGROUP_STAT_THROTTLE) && !d->cpu[0])))
		ret = read_v2(d, f, want, out, err, errlen);
	if (!ret)
		ret = read_v1(d, f, want, out, err, errlen);
	if (!ret && (want & CGROUP_STAT_QUOTA))
		ret = read_quota(d, f, out, err, errlen);
	if (!ret && (want & CGROUP_STAT_USAGE) && out->usage_src == CGROUP_STAT_SRC_NONE)
		ret = errmsg_fail(
			err, errlen, -ENODATA,
			"cgroup %s: no CPU usage counter (not in the v2 tree, and no cpuacct "
			"hierarchy holds it)",
			d->relative);
	return ret;
}
