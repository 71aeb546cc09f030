// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* signal.c - a rule's signal as one integer in the rule's base unit:
 * cgroup CPU rates from cgroup_stat, PSI from psi, process figures from
 * proc_stat. Rates keep the previous counters in the source; every
 * product is taken in 128 bits, so nothing overflows before the final
 * saturation to INT64_MAX. Fractions are truncated toward zero.
 */
#include "rules/signal.h"
#include "rules/errmsg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/cgroup_stat.h"
#include "rules/proc_comms.h"
#include "rules/proc_match.h"
#include "rules/proc_stat.h"
#include "rules/psi.h"

#define SIGNAL_PROCS_MAX 1024 /* processes of one name followed for a rate */
#define SIGNAL_PROCS_MIN 4    /* room made at first: most names match a few */
#define NS_PER_SEC 1000000000ull
/* A located cgroup is looked for again this often: a hierarchy that gains
 * it is seen this late (one that loses it, at the next read). */
#define CGROUP_RELOCATE_NS (10 * (int64_t)NS_PER_SEC)
#define CENTI 10000ull /* hundredths of a percent in a whole */
#define PSI_FILE_MAX (PATH_MAX + 32)

/* A process's CPU ticks at the last read; a pid whose starttime changed
 * is another process. */
struct proc_prev {
	pid_t pid;
	uint64_t starttime;
	uint64_t ticks;
};

struct signal_source {
	/* the rule, copied: a reload may free the rule a source outlives */
	enum rule_signal signal;
	enum rule_psi_resource psi_resource;
	bool psi_full;
	enum rule_psi_window psi_window;
	uint64_t psi_window_ns;
	bool above;
	int64_t threshold;
	enum rule_scope_kind scope;
	char *name; /* cgroup ("." for the root) or comm */
	pid_t scope_pid;
	struct rule_pin pin; /* of a process name; strings copied */
	struct signal_env env;

	/* cgroup signals and cgroup PSI: 32 KiB of paths, only for those */
	bool have_mounts;
	struct cgroup_where {
		struct cgroup_stat_mounts mounts;
		struct cgroup_stat_dirs dirs;
		bool located; /* dirs are current */
		int64_t located_ns;
		/* the CPU quota: configuration, not a counter, so read when
		 * the cgroup is located, not at every poll */
		bool quota_read;
		struct cgroup_stat_counters quota;
	} * cg;
	bool have_prev;
	int64_t prev_ns;
	struct cgroup_stat_counters prev;

	/* PSI */
	char *psi_file; /* the pressure file: the host's, or composed at locate */
	struct psi_ring ring;
	int trigger_fd;

	/* process signals; the tables grow with the processes of the name,
	 * up to SIGNAL_PROCS_MAX */
	pid_t pid; /* the process of the last value */
	pid_t *pids;
	struct proc_prev *procs, *next_procs;
	size_t nprocs, cap;
	bool fed; /* pids holds this tick's scan (signal_sources__scan) */
	size_t nfed;
	bool scanned; /* pids holds a shared scan's result (signal_sources__refeed) */
	bool have_procs;
	int64_t procs_ns;
};

/* ratio - a * b / (c * d), truncated; INT64_MAX when it does not fit or
 * c * d is 0. Both products fit 128 bits. */
static int64_t ratio(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	unsigned __int128 den = (unsigned __int128)c * d, q;

	if (den == 0)
		return INT64_MAX;
	q = (unsigned __int128)a * b / den;
	return q > INT64_MAX ? INT64_MAX : (int64_t)q;
}

static bool is_cgroup_signal(enum rule_signal s)
{
	return s == RULE_SIGNAL_CPU || s == RULE_SIGNAL_CPU_QUOTA || s == RULE_SIGNAL_THROTTLED ||
	       s == RULE_SIGNAL_THROTTLED_TIME || s == RULE_SIGNAL_THROTTLED_RATE;
}

static bool is_process_signal(enum rule_signal s)
{
	return s == RULE_SIGNAL_PROC_CPU || s == RULE_SIGNAL_PROC_RSS ||
	       s == RULE_SIGNAL_PROC_THREADS || s == RULE_SIGNAL_PROC_FDS;
}

static void free_pin(struct rule_pin *p)
{
	free(p->user);
	free(p->exe);
	free(p->cgroup);
	memset(p, 0, sizeof(*p));
}

static int copy_pin(struct rule_pin *to, const struct rule_pin *from)
{
	*to = (struct rule_pin){ .uid = from->uid };
	if ((from->user && !(to->user = strdup(from->user))) ||
	    (from->exe && !(to->exe = strdup(from->exe))) ||
	    (from->cgroup && !(to->cgroup = strdup(from->cgroup)))) {
		free_pin(to);
		return -ENOMEM;
	}
	return 0;
}

/* grow_procs - room for @want processes in the pid and CPU tables (whose
 * entries are kept). Returns 0 or -ENOMEM. */
static int grow_procs(struct signal_source *s, size_t want)
{
	pid_t *pids;
	struct proc_prev *a, *b;

	if (want <= s->cap)
		return 0;
	pids = reallocarray(s->pids, want, sizeof(*pids));
	if (pids)
		s->pids = pids;
	a = pids ? reallocarray(s->procs, want, sizeof(*a)) : NULL;
	if (a)
		s->procs = a;
	b = a ? reallocarray(s->next_procs, want, sizeof(*b)) : NULL;
	if (!b)
		return -ENOMEM;
	s->next_procs = b;
	s->cap = want;
	return 0;
}

static const char *psi_resource_name(enum rule_psi_resource r)
{
	return r == RULE_PSI_CPU ? "cpu" : r == RULE_PSI_MEMORY ? "memory" : "io";
}

struct signal_source *signal_source__new(const struct rule *r, const struct signal_env *env)
{
	struct signal_source *s = calloc(1, sizeof(*s));
	const char *name = NULL;

	if (!s)
		return NULL;
	s->signal = r->signal;
	s->psi_resource = r->psi_resource;
	s->psi_full = r->psi_full;
	s->psi_window = r->psi_window;
	s->psi_window_ns = r->psi_window_ns;
	s->above = r->above;
	s->threshold = r->threshold;
	s->scope = r->scope.kind;
	s->scope_pid = r->scope.pid;
	s->env = *env;
	s->trigger_fd = -1;
	if (r->scope.kind == RULE_SCOPE_CGROUP)
		name = r->scope.cgroup;
	else if (r->scope.kind == RULE_SCOPE_PROCESS)
		name = r->scope.process;
	else if (r->scope.kind == RULE_SCOPE_SYSTEM && is_cgroup_signal(r->signal))
		name = "."; /* the root cgroup: the whole host */
	if (name && !(s->name = strdup(name)))
		goto fail;
	if (r->scope.kind == RULE_SCOPE_PROCESS && strlen(s->name) >= PROC_STAT_COMM_LEN)
		s->name[PROC_STAT_COMM_LEN - 1] = '\0'; /* compared as the kernel keeps it */
	if (r->scope.kind == RULE_SCOPE_PROCESS && copy_pin(&s->pin, &r->pin))
		goto fail;
	if ((is_cgroup_signal(r->signal) ||
	     (r->signal == RULE_SIGNAL_PSI && r->scope.kind == RULE_SCOPE_CGROUP)) &&
	    !(s->cg = calloc(1, sizeof(*s->cg))))
		goto fail;
	if (r->signal == RULE_SIGNAL_PSI && !(s->psi_file = calloc(1, PSI_FILE_MAX)))
		goto fail;
	if (r->signal == RULE_SIGNAL_PSI && r->scope.kind == RULE_SCOPE_SYSTEM)
		snprintf(s->psi_file, PSI_FILE_MAX, "%s/proc/pressure/%s", s->env.fs_prefix,
			 psi_resource_name(s->psi_resource));
	if (is_process_signal(r->signal) &&
	    grow_procs(s, r->scope.kind == RULE_SCOPE_PROCESS ? SIGNAL_PROCS_MIN : 1))
		goto fail;
	return s;
fail:
	signal_source__free(s);
	errno = ENOMEM;
	return NULL;
}

void signal_source__free(struct signal_source *s)
{
	if (!s)
		return;
	if (s->trigger_fd >= 0)
		close(s->trigger_fd);
	free(s->name);
	free_pin(&s->pin);
	free(s->cg);
	free(s->psi_file);
	free(s->pids);
	free(s->procs);
	free(s->next_procs);
	free(s);
}

pid_t signal_source__pid(const struct signal_source *s)
{
	return s->pid;
}

/* unlocate - forget where the cgroup is: the next read looks for it. */
static void unlocate(struct signal_source *s)
{
	s->cg->located = false;
}

/* locate - the cgroup's directories: found when not known (at first,
 * after a read failed) and again every CGROUP_RELOCATE_NS, or now when
 * @now is negative; between, its files are read where they were. The
 * mounts are read once, and again after the cgroup went missing. */
static int locate(struct signal_source *s, int64_t now, char *err, size_t errlen)
{
	struct cgroup_where *cg = s->cg;
	int ret;

	if (!s->name)
		return errmsg_fail(err, errlen, -EINVAL, "a cgroup signal needs a cgroup scope");
	if (cg->located && now >= cg->located_ns && now - cg->located_ns < CGROUP_RELOCATE_NS)
		return 0;
	if (!s->have_mounts) {
		ret = cgroup_stat_find_mounts(s->env.mountinfo, s->env.fs_prefix, &cg->mounts, err,
					      errlen);
		if (ret)
			return ret;
		s->have_mounts = true;
	}
	ret = cgroup_stat_locate(&cg->mounts, s->name, &cg->dirs, err, errlen);
	if (ret == -ENOENT)
		s->have_mounts = false;
	if (ret) {
		unlocate(s);
		return ret;
	}
	cg->located = true;
	cg->located_ns = now;
	cg->quota_read = false;
	if (s->psi_file && cg->dirs.v2[0])
		snprintf(s->psi_file, PSI_FILE_MAX, "%s/%s.pressure", cg->dirs.v2,
			 psi_resource_name(s->psi_resource));
	return 0;
}

static unsigned int wanted(enum rule_signal sig)
{
	if (sig == RULE_SIGNAL_CPU)
		return CGROUP_STAT_USAGE;
	if (sig == RULE_SIGNAL_CPU_QUOTA)
		return CGROUP_STAT_USAGE | CGROUP_STAT_QUOTA;
	return CGROUP_STAT_THROTTLE;
}

static void copy_quota(struct cgroup_stat_counters *to, const struct cgroup_stat_counters *from)
{
	to->has_quota = from->has_quota;
	to->quota_us = from->quota_us;
	to->period_us = from->period_us;
	to->quota_mcpu = from->quota_mcpu;
}

/* locate_and_read - the signal's counters where the cgroup is; its quota
 * as read when the cgroup was located. */
static int locate_and_read(struct signal_source *s, int64_t now, struct cgroup_stat_counters *c,
			   char *err, size_t errlen)
{
	struct cgroup_where *cg = s->cg;
	unsigned int want = wanted(s->signal);
	int ret = locate(s, now, err, errlen);

	if (ret)
		return ret;
	if (cg->quota_read)
		want &= ~CGROUP_STAT_QUOTA;
	ret = cgroup_stat_read_cached(&cg->dirs, s->env.files, want, c, err, errlen);
	if (ret || !(wanted(s->signal) & CGROUP_STAT_QUOTA))
		return ret;
	if (cg->quota_read) {
		copy_quota(c, &cg->quota);
	} else {
		copy_quota(&cg->quota, c);
		cg->quota_read = true;
	}
	return 0;
}

/* counters - the cgroup's counters now; -ENODATA when the signal's
 * counters are not kept for it. */
static int counters(struct signal_source *s, int64_t now, struct cgroup_stat_counters *c, char *err,
		    size_t errlen)
{
	bool was_located = s->cg->located;
	int ret = locate_and_read(s, now, c, err, errlen);

	if (ret == -ENOENT && was_located) { /* it left a hierarchy since: look again */
		unlocate(s);
		ret = locate_and_read(s, now, c, err, errlen);
	}
	if (ret) {
		unlocate(s);
		return ret;
	}
	if ((wanted(s->signal) & CGROUP_STAT_THROTTLE) && c->throttle_src == CGROUP_STAT_SRC_NONE)
		return errmsg_fail(
			err, errlen, -ENODATA,
			"cgroup %s: no throttling counters (in no v1 cpu hierarchy, and the v2 "
			"cpu controller is not enabled for it)",
			s->name);
	if (s->signal == RULE_SIGNAL_CPU_QUOTA && !c->has_quota)
		return errmsg_fail(err, errlen, -ENODATA, "cgroup %s: no CPU quota set", s->name);
	return 0;
}

/* went_back - the name of a counter that is lower than before, or NULL. */
static const char *went_back(const struct cgroup_stat_counters *o,
			     const struct cgroup_stat_counters *n)
{
	if (n->usage_ns < o->usage_ns)
		return "CPU usage";
	if (n->nr_periods < o->nr_periods || n->nr_throttled < o->nr_throttled)
		return "the throttling count";
	if (n->throttled_ns < o->throttled_ns)
		return "the throttled time";
	return NULL;
}

/* cgroup_value - the signal from two readings @dw ns apart. */
static int64_t cgroup_value(enum rule_signal sig, const struct cgroup_stat_counters *o,
			    const struct cgroup_stat_counters *n, uint64_t dw)
{
	uint64_t du = n->usage_ns - o->usage_ns, dthr = n->nr_throttled - o->nr_throttled;
	uint64_t dper = n->nr_periods - o->nr_periods;

	switch (sig) {
	case RULE_SIGNAL_CPU:
		return ratio(du, CENTI, dw, 1);
	case RULE_SIGNAL_CPU_QUOTA: /* usage / (wall * quota / period) */
		return ratio(du, CENTI * n->period_us, dw, n->quota_us);
	case RULE_SIGNAL_THROTTLED: /* no period ran: nothing was throttled */
		return dper ? ratio(dthr, CENTI, dper, 1) : 0;
	case RULE_SIGNAL_THROTTLED_TIME:
		return ratio(n->throttled_ns - o->throttled_ns, CENTI, dw, 1);
	default: /* RULE_SIGNAL_THROTTLED_RATE, thousandths per second */
		return ratio(dthr, 1000 * NS_PER_SEC, dw, 1);
	}
}

static int read_cgroup(struct signal_source *s, int64_t now, int64_t *value, char *err,
		       size_t errlen)
{
	struct cgroup_stat_counters c, o = s->prev;
	int64_t o_ns = s->prev_ns;
	bool had = s->have_prev;
	const char *back;
	int ret;

	ret = counters(s, now, &c, err, errlen);
	if (ret) {
		s->have_prev = false;
		return ret;
	}
	if (had && now == o_ns)
		return errmsg_fail(err, errlen, -EAGAIN,
				   "cgroup %s: no time since the last reading", s->name);
	s->prev = c;
	s->prev_ns = now;
	s->have_prev = true;
	if (!had || now < o_ns)
		return errmsg_fail(err, errlen, -EAGAIN, "cgroup %s: first reading of its counters",
				   s->name);
	if (o.usage_src != c.usage_src || o.throttle_src != c.throttle_src)
		return errmsg_fail(
			err, errlen, -EAGAIN,
			"cgroup %s: its counters moved to another hierarchy; rate restarts",
			s->name);
	back = went_back(&o, &c);
	if (back)
		return errmsg_fail(
			err, errlen, -EAGAIN,
			"cgroup %s: %s went backwards (cgroup recreated?); rate restarts", s->name,
			back);
	*value = cgroup_value(s->signal, &o, &c, (uint64_t)(now - o_ns));
	return 0;
}

/* psi_path - the pressure file: fs_prefix/proc/pressure/RES for the host,
 * the cgroup's v2 directory/RES.pressure for a cgroup (none on v1),
 * composed when the cgroup is located. */
static int psi_path(struct signal_source *s, int64_t now, const char **path, char *err,
		    size_t errlen)
{
	int ret;

	*path = s->psi_file;
	if (s->scope == RULE_SCOPE_SYSTEM)
		return 0;
	if (s->scope != RULE_SCOPE_CGROUP)
		return errmsg_fail(err, errlen, -EINVAL, "PSI is read for the system or a cgroup");
	ret = locate(s, now, err, errlen);
	if (ret)
		return ret;
	if (!s->cg->dirs.v2[0])
		return errmsg_fail(err, errlen, -ENODATA,
				   "cgroup %s: in no v2 tree (only cgroup v1, which has no PSI)",
				   s->name);
	return 0;
}

/* psi_line - read the pressure file's some or full line. */
static int psi_line(struct signal_source *s, int64_t now, struct psi_line *line, char *err,
		    size_t errlen)
{
	struct psi_stat st;
	const char *path;
	int ret;

	ret = psi_path(s, now, &path, err, errlen);
	if (ret)
		return ret;
	ret = psi_read_cached(s->env.files, path, &st, err, errlen);
	if (ret && s->scope == RULE_SCOPE_CGROUP)
		unlocate(s);
	if (ret == -ENOENT && s->scope == RULE_SCOPE_CGROUP && locate(s, -1, NULL, 0) == -ENOENT)
		return errmsg_fail(err, errlen, -ENOENT, "cgroup %s: gone", s->name);
	if (ret == -ENOENT || ret == -EOPNOTSUPP)
		return errmsg_fail(err, errlen, -ENODATA, "%s: %s (a kernel without PSI, or psi=0)",
				   path, ret == -ENOENT ? "no such file" : "not supported");
	if (ret)
		return ret;
	*line = s->psi_full ? st.full : st.some;
	if (!line->present)
		return errmsg_fail(err, errlen, -ENODATA, "%s: no '%s' line", path,
				   s->psi_full ? "full" : "some");
	return 0;
}

static int read_psi(struct signal_source *s, int64_t now, int64_t *value, char *err, size_t errlen)
{
	struct psi_line l = { 0 }; /* set when psi_line returns 0, which gcc cannot tell */
	int ret;

	ret = psi_line(s, now, &l, err, errlen);
	if (ret) {
		psi_ring_reset(&s->ring); /* a gap: the window starts again */
		return ret;
	}
	switch (s->psi_window) {
	case RULE_PSI_AVG10:
		*value = l.avg10;
		return 0;
	case RULE_PSI_AVG60:
		*value = l.avg60;
		return 0;
	case RULE_PSI_AVG300:
		*value = l.avg300;
		return 0;
	default:
		break;
	}
	ret = psi_ring_share(&s->ring, now, l.total_us, s->psi_window_ns, value);
	if (ret == -ESTALE)
		return errmsg_fail(
			err, errlen, -EAGAIN,
			"PSI %s total went backwards (cgroup recreated?); window restarts",
			psi_resource_name(s->psi_resource));
	if (ret == -EAGAIN)
		return errmsg_fail(err, errlen, -EAGAIN,
				   "PSI %s: no reading a whole window (%llu ms) old yet",
				   psi_resource_name(s->psi_resource),
				   (unsigned long long)(s->psi_window_ns / 1000000));
	return ret;
}

int signal_source__trigger_fd(struct signal_source *s, char *err, size_t errlen)
{
	uint64_t window_us = s->psi_window_ns / 1000;
	const char *path;
	int ret;

	if (s->trigger_fd >= 0)
		return s->trigger_fd;
	if (s->signal != RULE_SIGNAL_PSI || s->psi_window != RULE_PSI_CUSTOM || !s->above)
		return errmsg_fail(
			err, errlen, -EOPNOTSUPP,
			"only an 'above' PSI rule over a window of its own uses a trigger");
	if (s->threshold <= 0)
		return errmsg_fail(err, errlen, -EINVAL,
				   "a PSI trigger needs a threshold above 0%%");
	ret = psi_path(s, -1, &path, err, errlen);
	if (ret)
		return ret;
	/* threshold% of the window is the stall that fires it */
	ret = psi_trigger_open(path, s->psi_full,
			       (uint64_t)ratio((uint64_t)s->threshold, window_us, CENTI, 1),
			       window_us, err, errlen);
	if (ret >= 0)
		s->trigger_fd = ret;
	return ret;
}

/* find_prev - @pid's entry in the last scan's table, looked for from
 * *@hint on (scans list pids in the same order, so this is short). */
static const struct proc_prev *find_prev(const struct signal_source *s, pid_t pid, size_t *hint)
{
	size_t i, k;

	for (i = 0; i < s->nprocs; i++) {
		k = (*hint + i) % s->nprocs;
		if (s->procs[k].pid == pid) {
			*hint = k + 1;
			return &s->procs[k];
		}
	}
	return NULL;
}

/* proc_cpu - @pid's CPU share since the last scan; its ticks go into the
 * table being built (*@nnext entries). -EAGAIN when the last scan did not
 * see this process: new, or its pid reused (another starttime). */
static int proc_cpu(struct signal_source *s, pid_t pid, int64_t now, size_t *nnext, size_t *hint,
		    int64_t *v, char *err, size_t errlen)
{
	long tck = sysconf(_SC_CLK_TCK);
	const struct proc_prev *old;
	struct proc_stat_cpu st;
	uint64_t ticks;
	int ret;

	ret = proc_stat_read_cpu(s->env.proc_root, pid, s->env.files, &st, err, errlen);
	if (ret)
		return ret;
	if (__builtin_add_overflow(st.utime, st.stime, &ticks))
		return errmsg_fail(err, errlen, -EINVAL, "pid %d: utime + stime overflows",
				   (int)pid);
	if (*nnext < s->cap)
		s->next_procs[(*nnext)++] = (struct proc_prev){ pid, st.starttime, ticks };
	old = s->have_procs ? find_prev(s, pid, hint) : NULL;
	if (!old || old->starttime != st.starttime || ticks < old->ticks || tck <= 0)
		return -EAGAIN;
	*v = ratio(ticks - old->ticks, CENTI * NS_PER_SEC, (uint64_t)tck,
		   (uint64_t)(now - s->procs_ns));
	return 0;
}

/* proc_value - the signal for one process. */
static int proc_value(struct signal_source *s, pid_t pid, int64_t now, size_t *nnext, size_t *hint,
		      int64_t *v, char *err, size_t errlen)
{
	struct proc_stat_status st;
	uint64_t u = 0;
	int ret;

	switch (s->signal) {
	case RULE_SIGNAL_PROC_CPU:
		return proc_cpu(s, pid, now, nnext, hint, v, err, errlen);
	case RULE_SIGNAL_PROC_RSS:
		ret = proc_stat_rss(s->env.proc_root, pid, s->env.files, &u, err, errlen);
		break;
	case RULE_SIGNAL_PROC_THREADS:
		ret = proc_stat_read_status(s->env.proc_root, pid, s->env.files, &st, err, errlen);
		u = st.threads;
		break;
	default:
		ret = proc_stat_count_fds(s->env.proc_root, pid, &u, err, errlen);
		break;
	}
	*v = u > INT64_MAX ? INT64_MAX : (int64_t)u;
	return ret;
}

/* offer - a scan met @pid, of this source's name: keep it when it holds
 * the rule's pins. Returns nonzero once the tables are full (at
 * SIGNAL_PROCS_MAX, or out of memory: the rule sees the processes so far). */
static int offer(struct signal_source *s, pid_t pid)
{
	size_t want = s->cap * 2 < SIGNAL_PROCS_MAX ? s->cap * 2 : SIGNAL_PROCS_MAX;

	if (!proc_match_pin(s->env.proc_root, pid, &s->pin))
		return 0;
	if (s->nfed >= s->cap && (s->cap >= SIGNAL_PROCS_MAX || grow_procs(s, want)))
		return 1;
	s->pids[s->nfed++] = pid;
	return 0;
}

static int own_one(pid_t pid, const char *comm, void *ctx)
{
	struct signal_source *s = ctx;

	return strcmp(comm, s->name) ? 0 : offer(s, pid);
}

/* scope_pids - the processes the rule watches, into s->pids: those the
 * tick's shared scan handed over, else from a scan of its own. */
static int scope_pids(struct signal_source *s, size_t *n, char *err, size_t errlen)
{
	int ret = 0;

	if (s->scope == RULE_SCOPE_PID) {
		s->pids[0] = s->scope_pid;
		*n = 1;
		return 0;
	}
	if (s->scope != RULE_SCOPE_PROCESS)
		return errmsg_fail(err, errlen, -EINVAL,
				   "a process signal needs a pid or process scope");
	if (!s->fed) {
		s->nfed = 0;
		ret = proc_stat_scan(s->env.proc_root, own_one, s, err, errlen);
	}
	s->fed = false;
	*n = ret ? 0 : s->nfed;
	return ret;
}

static bool is_name_source(const struct signal_source *s)
{
	return s && is_process_signal(s->signal) && s->scope == RULE_SCOPE_PROCESS;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct signal_source *const *)a)->name,
		      (*(struct signal_source *const *)b)->name);
}

struct tick_scan {
	struct signal_source **by_name; /* sorted by name */
	size_t n;
};

/* tick_one - hand @pid to every source of its comm (found by bisection,
 * so a process costs log(rules) comparisons, not one per rule). */
static int tick_one(pid_t pid, const char *comm, void *ctx)
{
	struct tick_scan *t = ctx;
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(t->by_name[mid]->name, comm) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && !strcmp(t->by_name[lo]->name, comm); lo++)
		offer(t->by_name[lo], pid);
	return 0;
}

int signal_sources__scan(struct signal_source *const *srcs, size_t n, const char *proc_root,
			 struct proc_comms **comms, char *err, size_t errlen)
{
	struct tick_scan t = { 0 };
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		t.n += is_name_source(srcs[i]);
	if (!t.n)
		return 0;
	t.by_name = calloc(t.n, sizeof(*t.by_name));
	if (!t.by_name)
		return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
	for (i = 0, t.n = 0; i < n; i++) {
		if (!is_name_source(srcs[i]))
			continue;
		srcs[i]->fed = false;
		srcs[i]->nfed = 0;
		t.by_name[t.n++] = srcs[i];
	}
	qsort(t.by_name, t.n, sizeof(*t.by_name), cmp_name);
	if (comms && !*comms)
		*comms = proc_comms__new(); /* NULL: read the plain way */
	ret = comms && *comms ? proc_comms__scan(*comms, proc_root, tick_one, &t, err, errlen)
			      : proc_stat_scan(proc_root, tick_one, &t, err, errlen);
	for (i = 0; i < t.n; i++)
		t.by_name[i]->fed = t.by_name[i]->scanned = !ret;
	free(t.by_name);
	return ret;
}

bool signal_sources__pinned_to_cgroups(struct signal_source *const *srcs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is_name_source(srcs[i]) && srcs[i]->pin.cgroup)
			return true;
	return false;
}

bool signal_sources__follow_names(struct signal_source *const *srcs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is_name_source(srcs[i]))
			return true;
	return false;
}

int signal_sources__refeed(struct signal_source *const *srcs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is_name_source(srcs[i]) && !srcs[i]->scanned)
			return -EAGAIN;
	for (i = 0; i < n; i++)
		if (is_name_source(srcs[i]))
			srcs[i]->fed = true; /* nfed and pids are the last scan's */
	return 0;
}

/* read_process - the value of the pid, or the highest of the processes
 * of the name (whose pid signal_source__pid then gives). */
static int read_process(struct signal_source *s, int64_t now, int64_t *value, char *err,
			size_t errlen)
{
	bool rate = s->signal == RULE_SIGNAL_PROC_CPU, any = false, waiting = false;
	size_t n = 0, i, nnext = 0, hint = 0;
	struct proc_prev *swap;
	int ret, hard = 0;
	int64_t v = 0;

	s->pid = 0;
	ret = scope_pids(s, &n, err, errlen);
	if (ret)
		return ret;
	if (rate && s->have_procs && now <= s->procs_ns)
		return errmsg_fail(err, errlen, -EAGAIN, "no time since the last reading");
	for (i = 0; i < n; i++) {
		ret = proc_value(s, s->pids[i], now, &nnext, &hint, &v, err, errlen);
		if (ret == -EAGAIN)
			waiting = true;
		else if (ret && ret != -ENOENT)
			hard = ret;
		if (ret || (any && v <= *value))
			continue;
		*value = v;
		s->pid = s->pids[i];
		any = true;
	}
	if (rate) {
		swap = s->procs;
		s->procs = s->next_procs;
		s->next_procs = swap;
		s->nprocs = nnext;
		s->procs_ns = now;
		s->have_procs = true;
	}
	if (any)
		return 0;
	if (waiting && s->scope == RULE_SCOPE_PID)
		return errmsg_fail(err, errlen, -EAGAIN, "pid %d: first reading of its CPU ticks",
				   (int)s->scope_pid);
	if (waiting)
		return errmsg_fail(err, errlen, -EAGAIN,
				   "process %s: first reading of its CPU ticks", s->name);
	if (hard)
		return hard; /* @err says which file */
	if (s->scope == RULE_SCOPE_PID)
		return errmsg_fail(err, errlen, -ENOENT, "pid %d: no such process",
				   (int)s->scope_pid);
	return errmsg_fail(err, errlen, -ENOENT,
			   "process %s: none running (no %s/PID/comm matches%s)", s->name,
			   s->env.proc_root,
			   proc_match_pinned(&s->pin) ? " with its process_user, process_exe "
							"and process_cgroup"
						      : "");
}

int signal_source__read(struct signal_source *s, int64_t now_ns, int64_t *value, char *err,
			size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (is_cgroup_signal(s->signal))
		return read_cgroup(s, now_ns, value, err, errlen);
	if (s->signal == RULE_SIGNAL_PSI)
		return read_psi(s, now_ns, value, err, errlen);
	if (is_process_signal(s->signal))
		return read_process(s, now_ns, value, err, errlen);
	return errmsg_fail(err, errlen, -EINVAL, "unknown signal %d", (int)s->signal);
}
