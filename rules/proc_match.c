// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_match.c - a process's uid, binary and cgroup against a rule's
 * pins (proc_match.h).
 *
 * The binary is compared by identity, not only by name: a user can make
 * /proc/PID/exe read any path from a mount namespace of their own (bind
 * their binary over /usr/sbin/postgres there), so the link's text must
 * name @exe and the file it points at must be the file @exe is in our
 * namespace (same device and inode). A binary upgraded under a running
 * process reads "PATH (deleted)" and has no file left to compare: it is
 * taken only from a process of our own mount namespace, where no user can
 * have put anything at PATH. */
#include "rules/proc_match.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/proc_stat.h"

#define DELETED " (deleted)"

bool proc_match_pinned(const struct rule_pin *pin)
{
	return pin && (pin->user || pin->exe || pin->cgroup);
}

int proc_match_parse_uids(const char *text, uid_t *real, uid_t *effective)
{
	const char *p = text;
	uint64_t r, e;

	while (p && strncmp(p, "Uid:", 4)) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return -EINVAL;
	p += 4;
	p += strspn(p, " \t");
	if (proc_stat_parse_u64(&p, &r) || (*p != '\t' && *p != ' '))
		return -EINVAL;
	p += strspn(p, " \t");
	if (proc_stat_parse_u64(&p, &e) || r > UINT32_MAX - 1 || e > UINT32_MAX - 1)
		return -EINVAL;
	*real = (uid_t)r;
	*effective = (uid_t)e;
	return 0;
}

/* path_within - whether @path ("/a/b") is @want ("a") or below it. */
static bool path_within(const char *path, size_t len, const char *want)
{
	size_t wl = strlen(want);

	while (len && *path == '/') {
		path++;
		len--;
	}
	return wl && len >= wl && !memcmp(path, want, wl) && (len == wl || path[wl] == '/');
}

bool proc_match_cgroup(const char *text, const char *want)
{
	const char *line = text, *nl, *path;

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		path = strchr(line, ':'); /* after "ID:" */
		path = path && (!nl || path < nl) ? strchr(path + 1, ':') : NULL;
		if (!path || (nl && path > nl))
			continue;
		path++;
		if (path_within(path, nl ? (size_t)(nl - path) : strlen(path), want))
			return true;
	}
	return false;
}

bool proc_match_exe_text(const char *link, const char *want, bool *deleted)
{
	size_t ll = strlen(link), wl = strlen(want), dl = strlen(DELETED);

	*deleted = false;
	if (ll == wl + dl && !memcmp(link, want, wl) && !strcmp(link + wl, DELETED)) {
		*deleted = true;
		return true;
	}
	return !strcmp(link, want);
}

static bool user_matches(const char *proc_root, pid_t pid, uid_t uid)
{
	char path[PATH_MAX], buf[8192];
	uid_t real, eff;

	if (snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid) >= (int)sizeof(path))
		return false;
	return !proc_stat_read_text(path, buf, sizeof(buf), NULL) &&
	       !proc_match_parse_uids(buf, &real, &eff) && real == uid && eff == uid;
}

/* link_text - the target of @proc_root/@pid/@name. */
static bool link_text(const char *proc_root, const char *pid, const char *name, char *buf,
		      size_t size)
{
	char path[PATH_MAX];
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/%s/%s", proc_root, pid, name) >= (int)sizeof(path))
		return false;
	n = readlink(path, buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1) /* a cut target names something else */
		return false;
	buf[n] = '\0';
	return true;
}

static bool exe_matches(const char *proc_root, pid_t pid, const char *exe)
{
	char pidname[16], link[PATH_MAX + 16], ours[64], theirs[64], path[PATH_MAX];
	struct stat a, b;
	bool deleted;

	snprintf(pidname, sizeof(pidname), "%d", (int)pid);
	if (!link_text(proc_root, pidname, "exe", link, sizeof(link)) ||
	    !proc_match_exe_text(link, exe, &deleted))
		return false;
	if (deleted)
		return link_text(proc_root, pidname, "ns/mnt", theirs, sizeof(theirs)) &&
		       link_text(proc_root, "self", "ns/mnt", ours, sizeof(ours)) &&
		       !strcmp(theirs, ours);
	if (snprintf(path, sizeof(path), "%s/%d/exe", proc_root, (int)pid) >= (int)sizeof(path))
		return false;
	return !stat(path, &a) && !stat(exe, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool cgroup_matches(const char *proc_root, pid_t pid, const char *want)
{
	char path[PATH_MAX], buf[16384];

	if (snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, (int)pid) >= (int)sizeof(path))
		return false;
	return !proc_stat_read_text(path, buf, sizeof(buf), NULL) && proc_match_cgroup(buf, want);
}

bool proc_match_pin(const char *proc_root, pid_t pid, const struct rule_pin *pin)
{
	if (!proc_match_pinned(pin))
		return true;
	if (pin->user && !user_matches(proc_root, pid, pin->uid))
		return false;
	if (pin->exe && !exe_matches(proc_root, pid, pin->exe))
		return false;
	return !pin->cgroup || cgroup_matches(proc_root, pid, pin->cgroup);
}

struct find {
	char want[PROC_STAT_COMM_LEN];
	const char *proc_root;
	const struct rule_pin *pin;
	pid_t *pids;
	size_t max, *n;
};

static int find_one(pid_t pid, const char *comm, void *ctx)
{
	struct find *f = ctx;

	if (!strcmp(comm, f->want) && proc_match_pin(f->proc_root, pid, f->pin))
		f->pids[(*f->n)++] = pid;
	return *f->n >= f->max;
}

int proc_match_find(const char *proc_root, const char *comm, const struct rule_pin *pin,
		    pid_t *pids, size_t max, size_t *n, char *err, size_t errlen)
{
	struct find f = { .proc_root = proc_root, .pin = pin, .pids = pids, .max = max, .n = n };

	*n = 0;
	snprintf(f.want, sizeof(f.want), "%s", comm);
	if (!max)
		return 0;
	return proc_stat_scan(proc_root, find_one, &f, err, errlen);
}
