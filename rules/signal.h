/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* signal.h - the current value of a rule's signal, read from /proc and
 * the cgroup file systems (cgroup v2, v1 cpu/cpuacct, hybrid hosts).
 *
 * A source is made once per rule and read at every poll. Rates (CPU
 * usage, throttling, process CPU, PSI over a custom window) are the
 * change of a kernel counter between two reads, so the first read of
 * such a source has no value yet. Where files are found is configurable
 * (struct signal_env) so tests read fixture trees.
 *
 * Values are integers in the rule's base unit (rules.h), computed with
 * 128-bit products and truncated toward zero:
 *   cpu                 usage / wall, % of one CPU
 *   cpu.quota           usage / (wall x quota CPUs)
 *   cpu.throttled       throttled periods / periods (0 when no period ran)
 *   cpu.throttled_time  throttled time / wall
 *   cpu.throttled_rate  throttled periods per second, in thousandths
 *   psi.R.some|full     avg10/60/300 as the kernel wrote them, or the stall
 *                       share over the rule's window from the "total"
 *                       counter (no value until a reading a whole window
 *                       old is kept)
 *   process.cpu         (utime + stime) / CLK_TCK / wall
 *   process.rss         bytes; process.threads, process.fds: counts
 * Which cgroup file each counter comes from on v2, v1 and hybrid hosts is
 * in cgroup_stat.h.
 *
 * Scopes: a cgroup is a path relative to the hierarchies' roots, an
 * absolute directory in any of them (its counterparts in the others are
 * used too), or "/..." as /proc/PID/cgroup writes it. The system scope
 * of a cgroup signal is the root cgroup; of PSI, /proc/pressure. A
 * process name follows at most the first 1024 matching processes, and
 * only those that hold the rule's pins (process_user, process_exe,
 * process_cgroup; rules/proc_match.h).
 */
#ifndef TRAPD_SIGNAL_H
#define TRAPD_SIGNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/rules_model.h"

struct file_cache;

struct signal_env {
	const char *proc_root;	  /* "/proc" */
	const char *mountinfo;	  /* "/proc/self/mountinfo" */
	const char *fs_prefix;	  /* prepended to every mount point and to
				* /proc/pressure paths: "" on a live host, a
				* fixture tree in tests */
	struct file_cache *files; /* NULL: open and close each file a read
				   * (file_cache.h); else the caller ticks it */
};

#define SIGNAL_ENV_LIVE                                                                            \
	{                                                                                          \
		.proc_root = "/proc", .mountinfo = "/proc/self/mountinfo", .fs_prefix = ""         \
	}

struct signal_source;

/* signal_source__new - a source for @r's signal and scope. Nothing is
 * read yet (a cgroup or process that does not exist yet is not an error
 * here). Returns NULL with errno set on allocation failure. @r is
 * copied, strings too (a reload may free the rule); @env is copied, but
 * its strings must outlive the source. */
struct signal_source *signal_source__new(const struct rule *r, const struct signal_env *env);

/* signal_source__free - close and free @s and all it owns (its PSI
 * trigger's fd too); NULL is ignored. */
void signal_source__free(struct signal_source *s);

/* signal_source__read - sample the signal at @now_ns (CLOCK_MONOTONIC).
 * Returns 0 with the value in *value (the rule's base unit), or:
 *   -EAGAIN   a rate has no value yet: its first counter reading, no time
 *             since the last one, a counter that went backwards (cgroup
 *             recreated, pid reused) or moved to another hierarchy, a
 *             custom PSI window not yet covered; the next read may have one
 *   -ENOENT   the scope is gone (no such cgroup, pid or process name)
 *   -ENODATA  the host lacks the signal: no PSI (kernel, psi=0, a v1-only
 *             cgroup, no "full" line), no quota set for cpu.quota, no
 *             throttling counters (no cpu controller over the cgroup)
 *   -EINVAL   a malformed file, or a scope the signal cannot have
 *   another negative errno.
 * On failure @err says what and where, e.g.
 * "/sys/fs/cgroup/unified/x/cpu.stat: no 'usage_usec' line". */
int signal_source__read(struct signal_source *s, int64_t now_ns, int64_t *value, char *err,
			size_t errlen);

/* signal_source__pid - the process the last read was about: the pid of a
 * pid scope, or for a process name the matching process with the highest
 * value (the one a capture should sample). 0 when not a process signal or
 * nothing matched. */
pid_t signal_source__pid(const struct signal_source *s);

/* signal_sources__scan - the poll tick's one pass over @proc_root for
 * every source of @srcs (@n; NULL and sources that do not follow a
 * process name are skipped) that follows processes by name: each is
 * handed the pids of its name that hold its rule's pins, which its next
 * signal_source__read uses instead of scanning /proc itself. So N such
 * rules cost one directory listing and one comm read per process, not N;
 * with @comms (may be NULL), where the caller keeps between ticks the
 * comm files opened (created at the first scan that needs them; the
 * caller frees it with proc_comms__free), that read is one pread
 * (proc_comms.h).
 * Returns 0, or a negative errno with @err when @proc_root cannot be
 * read (each source then scans at its read, and says why it fails). */
struct proc_comms;
int signal_sources__scan(struct signal_source *const *srcs, size_t n, const char *proc_root,
			 struct proc_comms **comms, char *err, size_t errlen);

/* signal_sources__pinned_to_cgroups - whether one of @srcs follows a
 * name pinned to a cgroup (process_cgroup): no process event tells a
 * move to another cgroup, so its scans are renewed on a clock. */
bool signal_sources__pinned_to_cgroups(struct signal_source *const *srcs, size_t n);

/* signal_sources__follow_names - whether a source of @srcs follows
 * processes by name (and so wants the tick's scan). */
bool signal_sources__follow_names(struct signal_source *const *srcs, size_t n);

/* signal_sources__refeed - hand every source of @srcs that follows a
 * process name the pids the last signal_sources__scan gave it, for a tick
 * at which the caller knows no process was born, exec'd, renamed or ended
 * since (proc_events.h). Returns 0, or -EAGAIN when a source has no scan
 * of its own yet (a new rule): scan instead. */
int signal_sources__refeed(struct signal_source *const *srcs, size_t n);

/* signal_source__trigger_fd - for a PSI rule over a custom window: open a
 * kernel PSI trigger ("some|full STALL_US WINDOW_US" written to the
 * pressure file, STALL_US = threshold% of the window) that polls POLLPRI
 * when the stall share passes the rule's threshold within its window.
 * Returns the fd (owned by the source; the same fd on later calls),
 * -EOPNOTSUPP when the rule cannot use one (not PSI, not a custom window,
 * a `below` rule, or the file is not a kernel pressure file), -ENODATA or
 * -ENOENT as signal_source__read for the file, or the errno the kernel
 * gave (EINVAL: a window it does not take, which without
 * CAP_SYS_RESOURCE is any window that is not a multiple of 2s; EPERM on
 * older kernels) with @err filled. */
int signal_source__trigger_fd(struct signal_source *s, char *err, size_t errlen);

#endif
