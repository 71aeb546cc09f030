// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_spec.c - resolve a latency rule into what its probe filters on. */
#include "trapd/latency/latency_spec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/cgroup_path.h"
#include "rules/syscall_table.h"
#include "trapd/symbolize/elfsym.h"

static const enum lat_kind kinds[] = {
	[RULE_LAT_RUNQ] = LAT_KIND_RUNQ,
	[RULE_LAT_SYSCALL] = LAT_KIND_SYSCALL,
	[RULE_LAT_BIO] = LAT_KIND_BIO,
	[RULE_LAT_FUNC] = LAT_KIND_FUNC,
};

/* process_gone - no process @pid (a signal 0 finds none). */
static bool process_gone(pid_t pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

static int file_stat(struct latency_spec_file *a, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	snprintf(a->path, sizeof(a->path), "%s", path);
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	a->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

/* cgroup_depth - components of @rel below the root ("/" is 0). */
static uint32_t cgroup_depth(const char *rel)
{
	uint32_t n = 0;
	const char *p;

	for (p = rel; *p; p++)
		if (*p != '/' && (p == rel || p[-1] == '/'))
			n++;
	return n;
}

/* v2_counterpart - a v1 cgroup's directory of the same name in the v2
 * tree (hybrid hosts), where BPF can test membership. */
static int v2_counterpart(const char *mountinfo, struct cgroup_ref *ref)
{
	char v2[PATH_MAX], path[PATH_MAX + 4096];
	struct stat st;
	int e = cgroup_v2_mount(mountinfo, v2, sizeof(v2));

	if (e)
		return e;
	snprintf(path, sizeof(path), "%s%s", v2, strcmp(ref->relative, "/") ? ref->relative : "");
	if (stat(path, &st))
		return -errno;
	if (strlen(path) >= sizeof(ref->path))
		return -ENAMETOOLONG;
	memcpy(ref->path, path, strlen(path) + 1);
	ref->version = CGROUP_V2;
	ref->id = st.st_ino;
	return 0;
}

static int resolve_cgroup(const char *name, const char *mountinfo, struct latency_probe_spec *out,
			  struct latency_spec_anchor *a, char *err, size_t errlen)
{
	struct cgroup_ref *ref = malloc(sizeof(*ref));
	int e;

	if (!ref) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e = cgroup_resolve(mountinfo, name, ref);
	if (!e && ref->version == CGROUP_V1 && v2_counterpart(mountinfo, ref)) {
		snprintf(err, errlen,
			 "cgroup %s is in a v1 hierarchy only; latency is filtered by cgroup v2 "
			 "membership (name its directory in the v2 tree)",
			 name);
		e = -EINVAL;
	} else if (e) {
		snprintf(err, errlen, "no cgroup '%s'%s", name,
			 e == -EINVAL ? " (not a cgroup directory)" : "");
	} else {
		out->filter = LAT_FILTER_CGROUP;
		out->cgroup_id = ref->id;
		out->cgroup_level = cgroup_depth(ref->relative);
		e = file_stat(&a->cgroup, ref->path);
		if (e)
			snprintf(err, errlen, "cgroup %s: %s", ref->path, strerror(-e));
	}
	free(ref);
	return e;
}

static int resolve_scope(const struct rule *r, const char *mountinfo,
			 struct latency_probe_spec *out, struct latency_spec_anchor *a, char *err,
			 size_t errlen)
{
	const struct rule_scope *s = &r->scope;

	switch (s->kind) {
	case RULE_SCOPE_CGROUP:
		return resolve_cgroup(s->cgroup, mountinfo, out, a, err, errlen);
	case RULE_SCOPE_PID:
		if (process_gone(s->pid)) {
			snprintf(err, errlen, "no process %d", (int)s->pid);
			return -ENOENT;
		}
		out->filter = LAT_FILTER_TGID;
		out->tgid = (uint32_t)s->pid;
		a->pid = s->pid;
		return 0;
	case RULE_SCOPE_PROCESS:
		out->filter = LAT_FILTER_COMM;
		snprintf(out->comm, sizeof(out->comm), "%s", s->process);
		return 0;
	default:
		out->filter = LAT_FILTER_NONE;
		return 0;
	}
}

static int resolve_syscalls(const char *list, struct latency_probe_spec *out, char *err,
			    size_t errlen)
{
	char name[64];
	const char *p = list, *end;
	int nr;

	if (!list) {
		out->all_syscalls = true;
		return 0;
	}
	while (*p) {
		end = strchrnul(p, ',');
		snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
		nr = syscall_table__number(name);
		if (nr < 0) {
			snprintf(err, errlen, "no system call '%s' on this machine", name);
			return -ENOENT;
		}
		if (nr >= LAT_SYSCALL_WORDS * 64) {
			snprintf(err, errlen,
				 "system call %s is number %d, beyond the %d a probe "
				 "can select",
				 name, nr, LAT_SYSCALL_WORDS * 64);
			return -E2BIG;
		}
		out->syscalls[nr / 64] |= 1ull << (nr % 64);
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int e = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		e = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return e;
}

static int resolve_device(const char *dev, struct latency_probe_spec *out, char *err, size_t errlen)
{
	char dir[PATH_MAX], file[PATH_MAX + 16], text[64] = "";
	unsigned int maj, min;
	char extra;

	if (!dev)
		return 0;
	if (sscanf(dev, "%u:%u%c", &maj, &min, &extra) == 2)
		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", maj, min);
	else
		snprintf(dir, sizeof(dir), "/sys/class/block/%s", dev);
	if (access(dir, F_OK)) {
		snprintf(err, errlen, "no block device %s (%s)", dev, dir);
		return -ENOENT;
	}
	snprintf(file, sizeof(file), "%s/partition", dir);
	if (!access(file, F_OK)) {
		snprintf(err, errlen,
			 "%s is a partition; block latency is measured per disk: name the disk "
			 "it is on",
			 dev);
		return -EINVAL;
	}
	snprintf(file, sizeof(file), "%s/dev", dir);
	if (read_line(file, text, sizeof(text)) ||
	    sscanf(text, "%u:%u%c", &maj, &min, &extra) != 2) {
		snprintf(err, errlen, "%s: not a device number: '%s'", file, text);
		return -EINVAL;
	}
	out->dev = maj << 20 | min;
	return 0;
}

static int resolve_function(const char *fn, struct latency_probe_spec *out,
			    struct latency_spec_anchor *a, char *err, size_t errlen)
{
	const char *colon = strrchr(fn, ':');
	struct elfsym *elf = NULL;
	uint64_t vaddr = 0;
	int e;

	snprintf(out->binary, sizeof(out->binary), "%.*s", (int)(colon - fn), fn);
	e = file_stat(&a->binary, out->binary);
	if (e) {
		snprintf(err, errlen, "%s: %s", out->binary, strerror(-e));
		return e;
	}
	elf = elfsym__open(out->binary);
	if (!elf) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", out->binary,
			 e == -ENOEXEC ? "not an ELF executable or shared library" : strerror(-e));
		return e == -ENOENT ? e : -EINVAL;
	}
	e = elfsym__find(elf, colon + 1, &vaddr);
	if (e)
		snprintf(err, errlen, "%s: no function '%s' in its symbol table%s", out->binary,
			 colon + 1, elfsym__count(elf) ? "" : " (it has none: stripped?)");
	else if ((e = elfsym__vaddr_to_offset(elf, vaddr, &out->func_offset)))
		snprintf(err, errlen, "%s: function '%s' at 0x%llx is in no loaded segment",
			 out->binary, colon + 1, (unsigned long long)vaddr);
	elfsym__free(elf);
	return e;
}

int latency_spec__resolve(const struct rule *r, const char *mountinfo,
			  struct latency_probe_spec *out, struct latency_spec_anchor *anchor,
			  char *err, size_t errlen)
{
	int e;

	memset(out, 0, sizeof(*out));
	memset(anchor, 0, sizeof(*anchor));
	out->kind = kinds[r->lat_kind];
	out->attach_pid = -1;
	e = resolve_scope(r, mountinfo ? mountinfo : "/proc/self/mountinfo", out, anchor, err,
			  errlen);
	if (e)
		return e;
	switch (r->lat_kind) {
	case RULE_LAT_SYSCALL:
		return resolve_syscalls(r->lat_syscalls, out, err, errlen);
	case RULE_LAT_BIO:
		return resolve_device(r->lat_device, out, err, errlen);
	case RULE_LAT_FUNC:
		if (r->scope.kind == RULE_SCOPE_PID)
			out->attach_pid = r->scope.pid;
		return resolve_function(r->lat_function, out, anchor, err, errlen);
	default:
		return 0;
	}
}

/* file_changed - @f is gone or another file now (a directory's mtime
 * moves with its entries, so only a binary's is compared). */
static bool file_changed(const struct latency_spec_file *f, bool mtime, char *err, size_t errlen)
{
	struct latency_spec_file now;

	if (!f->path[0])
		return false;
	if (file_stat(&now, f->path)) {
		snprintf(err, errlen, "%s is gone", f->path);
		return true;
	}
	if (now.dev != f->dev || now.ino != f->ino || (mtime && now.mtime_ns != f->mtime_ns)) {
		snprintf(err, errlen, "%s was replaced", f->path);
		return true;
	}
	return false;
}

bool latency_spec__changed(const struct latency_spec_anchor *a, char *err, size_t errlen)
{
	if (a->pid && process_gone(a->pid)) {
		snprintf(err, errlen, "process %d exited", (int)a->pid);
		return true;
	}
	return file_changed(&a->cgroup, false, err, errlen) ||
	       file_changed(&a->binary, true, err, errlen);
}
