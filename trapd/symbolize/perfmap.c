// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* perfmap.c - JIT symbol maps (perfmap.h). */
#include "trapd/symbolize/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STATUS_MAX (64u << 10) /* bytes of /proc/PID/status read */
#define MAX_OVERLAP 64	       /* earlier symbols a lookup looks back at */

/* --- parsing ------------------------------------------------------------- */

/* hex - a hex number of 1 to 16 digits (an optional 0x first) at *@s, up
 * to a blank; *@s moves past it. Returns 0 or -EINVAL. */
static int hex(const char **s, const char *end, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int digits = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end && *p != ' '; p++, digits++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		if (digits == 16)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

/* parse_line - "START SIZE NAME" in @line[0..len): the symbol's range
 * into @sym, its name's first byte and length into @name, @name_len. */
static int parse_line(const char *line, size_t len, struct perfmap_sym *sym, const char **name,
		      size_t *name_len)
{
	const char *p = line, *end = line + len;
	uint64_t start, size;

	if (len && end[-1] == '\r')
		end--;
	if (hex(&p, end, &start) || p == end || *p++ != ' ' || hex(&p, end, &size) || p == end ||
	    *p++ != ' ' || p == end)
		return -EINVAL;
	if (!size || start + size < start)
		return -EINVAL;
	sym->start = start;
	sym->end = start + size;
	*name = p;
	*name_len = (size_t)(end - p);
	if (*name_len > PERFMAP_MAX_NAME)
		*name_len = PERFMAP_MAX_NAME;
	return 0;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct perfmap_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct builder {
	struct perfmap *m;
	size_t cap, names_len, names_cap;
};

static int add(struct builder *b, const struct perfmap_sym *sym, const char *name, size_t len)
{
	struct perfmap *m = b->m;
	void *grown;

	if (m->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;

		grown = realloc(m->syms, ncap * sizeof(*m->syms));
		if (!grown)
			return -ENOMEM;
		m->syms = grown;
		b->cap = ncap;
	}
	if (b->names_len + len + 1 > b->names_cap) {
		size_t ncap = b->names_cap ? b->names_cap * 2 : 4096;

		while (ncap < b->names_len + len + 1)
			ncap *= 2;
		grown = realloc(m->names, ncap);
		if (!grown)
			return -ENOMEM;
		m->names = grown;
		b->names_cap = ncap;
	}
	m->syms[m->n] = *sym;
	m->syms[m->n].seq = (uint32_t)m->n;
	m->syms[m->n].name = (uint32_t)b->names_len;
	memcpy(m->names + b->names_len, name, len);
	m->names[b->names_len + len] = '\0';
	b->names_len += len + 1;
	m->n++;
	return 0;
}

/* finish - sort by start and index the highest end so far. */
static int finish(struct perfmap *m)
{
	uint64_t max = 0;
	size_t i;

	if (!m->n)
		return 0;
	qsort(m->syms, m->n, sizeof(*m->syms), sym_cmp);
	m->max_end = malloc(m->n * sizeof(*m->max_end));
	if (!m->max_end)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		if (m->syms[i].end > max)
			max = m->syms[i].end;
		m->max_end[i] = max;
	}
	return 0;
}

int perfmap__parse(const char *text, size_t len, struct perfmap *out)
{
	struct builder b = { .m = out };
	const char *p = text, *end = text + len, *nl, *name;
	struct perfmap_sym sym;
	size_t name_len;
	int err = 0;

	memset(out, 0, sizeof(*out));
	/* only whole lines: a writer may be in the middle of the last one */
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (out->n == PERFMAP_MAX_ENTRIES) {
			out->truncated = true;
			break;
		}
		if (parse_line(p, (size_t)(nl - p), &sym, &name, &name_len) == 0)
			err = add(&b, &sym, name, name_len);
		else if (nl > p)
			out->nbad++;
		if (err)
			break;
		p = nl + 1;
	}
	if (!err)
		err = finish(out);
	if (err)
		perfmap__free(out);
	return err;
}

/* --- reading ------------------------------------------------------------- */

/* status_number - the @nth number (0: first) after "\n@key" in @buf;
 * with @last, the last one of the line instead. -1 when none. */
static long status_number(const char *buf, const char *key, int nth, bool last)
{
	const char *p = strstr(buf, key), *eol;
	long v = -1;
	char *end;
	int i;

	if (!p)
		return -1;
	p += strlen(key);
	eol = strchr(p, '\n');
	if (!eol)
		eol = p + strlen(p);
	for (i = 0; p < eol; i++) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if (p == eol || *p < '0' || *p > '9')
			break;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end > eol)
			return -1;
		if (i == nth && !last)
			return v;
		p = end;
	}
	return last ? v : -1;
}

int perfmap__parse_status(const char *buf, int pid, struct perfmap_owner *out)
{
	long v;

	out->nspid = pid;
	out->ruid = out->euid = -1;
	v = status_number(buf, "\nNSpid:", 0, true);
	if (v > 0 && v <= 0x400000)
		out->nspid = (int)v;
	v = status_number(buf, "\nUid:", 0, false);
	if (v >= 0 && v <= 0xfffffffe)
		out->ruid = v;
	v = status_number(buf, "\nUid:", 1, false);
	if (v >= 0 && v <= 0xfffffffe)
		out->euid = v;
	return 0;
}

/* read_status - @pid's namespaced pid and user, from its status. */
static int read_status(const char *proc_root, int pid, struct perfmap_owner *out)
{
	char path[128], *buf;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root, pid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(STATUS_MAX + 2);
	n = buf ? read(fd, buf + 1, STATUS_MAX) : -1;
	close(fd);
	if (n < 0) {
		free(buf);
		return buf ? -errno : -ENOMEM;
	}
	buf[0] = '\n'; /* every key, the first line's too, follows a newline */
	buf[n + 1] = '\0';
	perfmap__parse_status(buf, pid, out);
	free(buf);
	return 0;
}

static const char *file_kind(mode_t m)
{
	return S_ISLNK(m)    ? "a symbolic link (not followed)"
	       : S_ISFIFO(m) ? "a FIFO, not a regular file"
	       : S_ISCHR(m)  ? "a character device, not a regular file"
	       : S_ISBLK(m)  ? "a block device, not a regular file"
	       : S_ISDIR(m)  ? "a directory, not a regular file"
	       : S_ISSOCK(m) ? "a socket, not a regular file"
			     : "not a regular file";
}

/* refuse - the reason @st (of @path) is not a perf map trapd reads: not
 * a regular file, or owned by neither the process's user nor root (what
 * perf requires too: anyone else could have planted it), or owned by
 * root, of a process that is not root's, and with more than one link
 * (where fs.protected_hardlinks is 0, any user can link any root file
 * they can reach into /tmp). */
static int refuse(const struct stat *st, const struct perfmap_owner *o, const char *path, char *why,
		  size_t len)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, len, "%s: %s", path, file_kind(st->st_mode));
		return S_ISLNK(st->st_mode) ? -ELOOP : -EPERM;
	}
	if (st->st_uid && (long)st->st_uid != o->ruid && (long)st->st_uid != o->euid) {
		snprintf(why, len,
			 "%s: owned by uid %u, not by the process's user (uid %ld) or root", path,
			 (unsigned)st->st_uid, o->euid);
		return -EPERM;
	}
	if (!st->st_uid && st->st_nlink > 1 && o->ruid && o->euid) {
		snprintf(why, len,
			 "%s: root's, with %lu links, for a process of uid %ld (a hard link)", path,
			 (unsigned long)st->st_nlink, o->euid);
		return -EPERM;
	}
	return 0;
}

/* open_tmp - the /tmp directory inside @pid's root, O_PATH: resolved as
 * the process resolves it (a link within its root is followed inside
 * that root, never out of it). Returns the fd or a negative errno. */
static int open_tmp(const char *proc_root, int pid)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[PATH_MAX];
	int rfd, fd;

	snprintf(root, sizeof(root), "%s/%d/root", proc_root, pid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rfd, "/tmp", &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	close(rfd);
	return fd;
}

/* open_map - @name in the directory @dir, checked before anything reads
 * it: opened O_PATH|O_NOFOLLOW (a FIFO or device is not opened, a link is
 * not followed: @name has no slash, so nothing else is resolved) and only
 * then, if refuse() has nothing against it, again for reading. @path
 * names it in messages. Returns the fd or a negative errno (@why says
 * why). */
static int open_map(int dir, const char *name, const char *path, const struct perfmap_owner *o,
		    char *why, size_t len)
{
	char self[64];
	struct stat st;
	int pfd, fd;

	pfd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	fd = pfd < 0 ? -errno : 0;
	if (!fd && fstat(pfd, &st))
		fd = -errno;
	if (!fd)
		fd = refuse(&st, o, path, why, len);
	if (!fd) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0 && !why[0] && fd != -ENOENT)
		snprintf(why, len, "%s: %s", path, strerror(-fd));
	if (pfd >= 0)
		close(pfd);
	return fd;
}

/* read_text - what @fd holds now, at most @max bytes; a runtime
 * appending meanwhile waits for the next read. */
static int read_text(int fd, size_t max, char **text, size_t *len, bool *cut)
{
	struct stat st;
	size_t cap;
	ssize_t n = 1;

	*len = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	cap = (uint64_t)st.st_size > max ? max : (size_t)st.st_size;
	*cut = (size_t)st.st_size > cap;
	*text = malloc(cap + 1);
	if (!*text)
		return -ENOMEM;
	while (*len < cap && (n = read(fd, *text + *len, cap - *len)) > 0)
		*len += (size_t)n;
	return n < 0 ? -errno : 0;
}

int perfmap__read(const char *proc_root, int pid, struct perfmap *out)
{
	return perfmap__read_max(proc_root, pid, PERFMAP_MAX_FILE, out);
}

int perfmap__open_tmp(const char *proc_root, int pid, struct perfmap_owner *owner)
{
	int err = read_status(proc_root, pid, owner);

	return err ? err : open_tmp(proc_root, pid);
}

int perfmap__read_at(int tmp_fd, const struct perfmap_owner *owner, size_t max_bytes,
		     struct perfmap *out)
{
	char name[32], path[64], why[sizeof(out->error)] = "", *text = NULL;
	size_t len;
	bool cut = false;
	int fd, err;

	memset(out, 0, sizeof(*out));
	snprintf(name, sizeof(name), "perf-%d.map", owner->nspid);
	snprintf(path, sizeof(path), "/tmp/%s", name);
	fd = open_map(tmp_fd, name, path, owner, why, sizeof(why));
	if (fd < 0) {
		snprintf(out->error, sizeof(out->error), "%s", why);
		return fd;
	}
	err = read_text(fd, max_bytes < PERFMAP_MAX_FILE ? max_bytes : PERFMAP_MAX_FILE, &text,
			&len, &cut);
	close(fd);
	if (!err)
		err = perfmap__parse(text, len, out);
	out->text_bytes = len;
	if (!err && cut)
		out->truncated = true;
	free(text);
	return err;
}

int perfmap__read_max(const char *proc_root, int pid, size_t max_bytes, struct perfmap *out)
{
	struct perfmap_owner o;
	int tmp, err;

	memset(out, 0, sizeof(*out));
	err = read_status(proc_root, pid, &o);
	if (err)
		return err;
	tmp = open_tmp(proc_root, pid);
	if (tmp < 0) {
		if (tmp != -ENOENT)
			snprintf(out->error, sizeof(out->error), "/tmp/perf-%d.map: %s", o.nspid,
				 strerror(-tmp));
		return tmp;
	}
	err = perfmap__read_at(tmp, &o, max_bytes, out);
	close(tmp);
	return err;
}

const char *perfmap__lookup(const struct perfmap *m, uint64_t addr)
{
	const struct perfmap_sym *best = NULL;
	size_t lo = 0, hi = m->n, mid, n;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* back only while some earlier symbol still reaches addr, and not
	 * far: a hostile map of nested ranges must not make every lookup
	 * walk all of it */
	for (n = 0; lo > 0 && m->max_end[lo - 1] > addr && n < MAX_OVERLAP; lo--, n++) {
		const struct perfmap_sym *s = &m->syms[lo - 1];

		if (addr < s->end && (!best || s->seq > best->seq))
			best = s;
	}
	return best ? m->names + best->name : NULL;
}

void perfmap__free(struct perfmap *m)
{
	free(m->syms);
	free(m->max_end);
	free(m->names);
	memset(m, 0, sizeof(*m));
}
