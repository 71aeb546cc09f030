/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cgroup_stat.h - a cgroup's CPU counters on cgroup v2, v1 (cpu and
 * cpuacct controllers, apart or co-mounted) and hybrid hosts: where its
 * directories are, and one struct of counters read from them.
 *
 * Which file a counter comes from (the precedence):
 *   usage       v2 cpu.stat usage_usec when the cgroup is in the v2 tree
 *               (it is there on every kernel with v2, controller or not);
 *               otherwise v1 cpuacct.usage.
 *   throttling  v1 cpu.stat (nr_periods, nr_throttled, throttled_time)
 *               when the cgroup is in a v1 cpu hierarchy: on a hybrid
 *               host the cpu controller is bound to v1, and the v2 tree
 *               has no throttling figures. Otherwise v2 cpu.stat's
 *               nr_periods, nr_throttled and throttled_usec, present when
 *               the v2 cpu controller is enabled for the cgroup.
 *   quota       v1 cpu.cfs_quota_us / cpu.cfs_period_us under the same
 *               rule as throttling, otherwise v2 cpu.max. Only the
 *               cgroup's own quota: a parent's tighter quota is not seen.
 *
 * Paths: struct cgroup_stat_mounts holds mount points as the host sees
 * them ("/sys/fs/cgroup/unified") and a prefix put before each file name
 * ("" on a live host, a fixture tree in tests).
 */
#ifndef TRAPD_CGROUP_STAT_H
#define TRAPD_CGROUP_STAT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file_cache;

#define CGROUP_STAT_LIVE_MOUNTINFO "/proc/self/mountinfo"

/* The hierarchies that matter for CPU. A field is "" when there is none. */
struct cgroup_stat_mounts {
	char prefix[PATH_MAX];	/* put before every path below */
	char v2[PATH_MAX];	/* the unified (cgroup2) hierarchy */
	char cpu[PATH_MAX];	/* the v1 hierarchy holding the cpu controller */
	char cpuacct[PATH_MAX]; /* ... and cpuacct (the same one when co-mounted) */
	bool libcgroup;		/* cpu and cpuacct came from libcgroup */
};

/* One cgroup's directories, prefix included; "" where it is not. */
struct cgroup_stat_dirs {
	char relative[PATH_MAX]; /* the path inside every hierarchy, "/" for the root */
	char v2[PATH_MAX];
	char cpu[PATH_MAX];
	char cpuacct[PATH_MAX];
};

enum cgroup_stat_src {
	CGROUP_STAT_SRC_NONE,
	CGROUP_STAT_SRC_V2,
	CGROUP_STAT_SRC_V1,
};

/* What cgroup_stat_read reads. */
#define CGROUP_STAT_USAGE 1u
#define CGROUP_STAT_THROTTLE 2u
#define CGROUP_STAT_QUOTA 4u

struct cgroup_stat_counters {
	enum cgroup_stat_src usage_src;
	uint64_t usage_ns;
	enum cgroup_stat_src throttle_src; /* NONE: no cpu controller over the cgroup */
	uint64_t nr_periods;
	uint64_t nr_throttled;
	uint64_t throttled_ns;
	bool has_quota; /* false: no quota ("max", -1) or no cpu controller */
	uint64_t quota_us;
	uint64_t period_us;
	uint64_t quota_mcpu; /* quota in CPUs x 1000: 50000/100000 is 500 */
};

/* cgroup_stat_mount_line - apply one line of a mountinfo file to @m: the
 * first cgroup2 mount is the v2 tree, the first v1 "cgroup" mount whose
 * super options name the cpu (cpuacct) controller is that hierarchy. Mount
 * points are unescaped (\040 is a space). Malformed lines and other file
 * systems are ignored. @line is NUL-terminated, without its newline. */
void cgroup_stat_mount_line(const char *line, struct cgroup_stat_mounts *m);

/* cgroup_stat_find_mounts - the hierarchies of @mountinfo, with @fs_prefix
 * before every path. On the live host (@fs_prefix "" and @mountinfo
 * CGROUP_STAT_LIVE_MOUNTINFO) the v1 cpu and cpuacct mount points come
 * from libcgroup, the rest from mountinfo (see cgroup_stat.c for why).
 * Returns 0, -ENOENT when no hierarchy with CPU counters is mounted, or
 * the errno of reading @mountinfo; @err says what. */
int cgroup_stat_find_mounts(const char *mountinfo, const char *fs_prefix,
			    struct cgroup_stat_mounts *m, char *err, size_t errlen);

/* cgroup_stat_locate - the directories of cgroup @name: a path relative
 * to the hierarchies' roots ("system.slice/x.service", the same relative
 * path in each hierarchy; "." is the root), an absolute directory inside
 * one of them ("/sys/fs/cgroup/cpu/x", whose counterparts "x" in the
 * others are found where they exist), or an absolute path under no mount
 * point, taken as relative to the roots as /proc/PID/cgroup writes it
 * ("/system.slice/x.service", "/"). Returns 0 when the cgroup is in at
 * least one hierarchy, -ENOENT when in none, -EINVAL for an empty name or
 * one with a ".." component; @err says what. */
int cgroup_stat_locate(const struct cgroup_stat_mounts *m, const char *name,
		       struct cgroup_stat_dirs *d, char *err, size_t errlen);

/* cgroup_stat_read - the counters of the cgroup in @d that @want asks for
 * (CGROUP_STAT_* bits), by the precedence above; what is not asked for
 * or not available is left zero / NONE. Returns 0; -ENOENT when the
 * cgroup's files are gone (it was removed); -ENODATA when usage is asked
 * for and neither v2 nor cpuacct has it; -EINVAL for a malformed file;
 * another negative errno. @err names the file and the problem. */
int cgroup_stat_read(const struct cgroup_stat_dirs *d, unsigned int want,
		     struct cgroup_stat_counters *out, char *err, size_t errlen);

/* cgroup_stat_read_cached - cgroup_stat_read through the file cache @f
 * (file_cache.h): files kept open, each read once a tick. */
int cgroup_stat_read_cached(const struct cgroup_stat_dirs *d, struct file_cache *f,
			    unsigned int want, struct cgroup_stat_counters *out, char *err,
			    size_t errlen);

/* Parsers of one file's NUL-terminated text (fuzzed).
 * cgroup_stat_parse_keyed - the value of the "KEY VALUE" line of a
 * cpu.stat. Returns 0, -ENOENT (no such line) or -EINVAL (bad value).
 * cgroup_stat_parse_number - a file holding one decimal, optionally
 * negative ("-1" of cpu.cfs_quota_us), and a newline. 0 or -EINVAL.
 * cgroup_stat_parse_cpu_max - cpu.max: "max PERIOD" (no quota) or "QUOTA
 * PERIOD", PERIOD > 0. 0 or -EINVAL. */
int cgroup_stat_parse_keyed(const char *text, const char *key, uint64_t *out);
int cgroup_stat_parse_number(const char *text, int64_t *out);
int cgroup_stat_parse_cpu_max(const char *text, bool *has_quota, uint64_t *quota_us,
			      uint64_t *period_us);

#endif
