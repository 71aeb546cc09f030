// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* procmaps.c - a strict, bounded parser for /proc/PID/maps. */
#include "trapd/symbolize/procmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/read_all.h"

static const char deleted_suffix[] = " (deleted)";

/* A cursor over one line; every parser below advances it or fails. */
struct cursor {
	const char *p;
	const char *end;
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* take_hex - 1..@max_digits hex digits into *out. */
static int take_hex(struct cursor *c, unsigned int max_digits, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int n = 0;
	int d;

	while (c->p < c->end && (d = hex_digit(*c->p)) >= 0) {
		if (++n > max_digits)
			return -EINVAL;
		v = (v << 4) | (uint64_t)d;
		c->p++;
	}
	if (!n)
		return -EINVAL;
	*out = v;
	return 0;
}

/* take_dec - a decimal number that fits in 64 bits into *out. */
static int take_dec(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int n = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned int d = (unsigned int)(*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
		c->p++;
		n++;
	}
	if (!n)
		return -EINVAL;
	*out = v;
	return 0;
}

static int take_char(struct cursor *c, char want)
{
	if (c->p >= c->end || *c->p != want)
		return -EINVAL;
	c->p++;
	return 0;
}

/* take_perms - exactly "[r-][w-][x-][ps]". */
static int take_perms(struct cursor *c, unsigned int *perms)
{
	static const char yes[] = "rwxs", no[] = "---p";
	static const unsigned int bit[] = { PROCMAPS_READ, PROCMAPS_WRITE, PROCMAPS_EXEC,
					    PROCMAPS_SHARED };
	unsigned int i, v = 0;

	if (c->end - c->p < 4)
		return -EINVAL;
	for (i = 0; i < 4; i++) {
		if (c->p[i] == yes[i])
			v |= bit[i];
		else if (c->p[i] != no[i])
			return -EINVAL;
	}
	c->p += 4;
	*perms = v;
	return 0;
}

static enum procmaps_kind path_kind(const char *path, size_t len)
{
	if (len == 0)
		return PROCMAPS_ANON;
	if (path[0] == '/')
		return PROCMAPS_FILE;
	if (path[0] == '[' && path[len - 1] == ']')
		return PROCMAPS_PSEUDO;
	return PROCMAPS_OTHER;
}

/* take_path - the rest of the line after the inode: optional spaces, then
 * the path (which may hold spaces but no control characters). */
static int take_path(struct cursor *c, struct procmaps_entry *out, char *path_buf)
{
	size_t len, i, slen = sizeof(deleted_suffix) - 1;

	while (c->p < c->end && *c->p == ' ')
		c->p++;
	len = (size_t)(c->end - c->p);
	if (len > PROCMAPS_MAX_PATH)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if ((unsigned char)c->p[i] < 0x20 || c->p[i] == 0x7f)
			return -EINVAL;
	out->deleted = false;
	if (len > slen && memcmp(c->p + len - slen, deleted_suffix, slen) == 0) {
		out->deleted = true;
		len -= slen;
	}
	memcpy(path_buf, c->p, len);
	path_buf[len] = '\0';
	out->path = path_buf;
	out->kind = path_kind(path_buf, len);
	return 0;
}

int procmaps__parse_line(const char *line, size_t len, struct procmaps_entry *out, char *path_buf)
{
	struct cursor c = { line, line + len };
	uint64_t major, minor;

	if (len > PROCMAPS_MAX_LINE)
		return -EINVAL;
	if (take_hex(&c, 16, &out->start) || take_char(&c, '-') || take_hex(&c, 16, &out->end) ||
	    take_char(&c, ' ') || take_perms(&c, &out->perms) || take_char(&c, ' ') ||
	    take_hex(&c, 16, &out->offset) || take_char(&c, ' ') || take_hex(&c, 8, &major) ||
	    take_char(&c, ':') || take_hex(&c, 8, &minor) || take_char(&c, ' ') ||
	    take_dec(&c, &out->inode))
		return -EINVAL;
	if (out->start >= out->end)
		return -EINVAL;
	/* The kernel prints a space after the inode even when no path
	 * follows; anything else glued to the inode is not a maps line. */
	if (c.p < c.end && *c.p != ' ')
		return -EINVAL;
	out->dev_major = (uint32_t)major;
	out->dev_minor = (uint32_t)minor;
	return take_path(&c, out, path_buf);
}

/* The parse state: entries and their paths grow side by side; paths are
 * kept as offsets until the end because the path storage moves as it
 * grows. */
struct builder {
	struct procmaps *m;
	size_t cap;
	size_t *path_offs;
	size_t paths_len, paths_cap;
};

static int builder_add(struct builder *b, const struct procmaps_entry *e)
{
	struct procmaps *m = b->m;
	size_t plen = strlen(e->path), off;

	if (m->n >= PROCMAPS_MAX_ENTRIES)
		return -E2BIG;
	if (m->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 64;
		struct procmaps_entry *ne;
		size_t *no;

		ne = realloc(m->entries, ncap * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		m->entries = ne;
		no = realloc(b->path_offs, ncap * sizeof(*no));
		if (!no)
			return -ENOMEM;
		b->path_offs = no;
		b->cap = ncap;
	}
	/* Consecutive mappings of one file share its path. */
	if (m->n && strcmp(m->paths + b->path_offs[m->n - 1], e->path) == 0) {
		off = b->path_offs[m->n - 1];
	} else {
		if (b->paths_len + plen + 1 > PROCMAPS_MAX_PATH_BYTES)
			return -E2BIG;
		if (b->paths_len + plen + 1 > b->paths_cap) {
			size_t ncap = b->paths_cap ? b->paths_cap : 4096;
			char *np;

			while (ncap < b->paths_len + plen + 1)
				ncap *= 2;
			np = realloc(m->paths, ncap);
			if (!np)
				return -ENOMEM;
			m->paths = np;
			b->paths_cap = ncap;
		}
		off = b->paths_len;
		memcpy(m->paths + off, e->path, plen + 1);
		b->paths_len += plen + 1;
	}
	m->entries[m->n] = *e;
	b->path_offs[m->n] = off;
	m->n++;
	return 0;
}

int procmaps__parse(const char *text, size_t len, unsigned int flags, struct procmaps *out)
{
	struct builder b = { .m = out };
	struct procmaps_entry e;
	const char *p = text, *end = text + len, *nl;
	char *path_buf = NULL;
	size_t i;
	int err = 0;

	if (!out || (!text && len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	path_buf = malloc(PROCMAPS_MAX_PATH + 1);
	if (!path_buf)
		return -ENOMEM;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl == p) {
			p = nl + 1; /* blank lines are harmless */
			continue;
		}
		if (procmaps__parse_line(p, (size_t)(nl - p), &e, path_buf) < 0) {
			out->nbad++;
		} else if (!(flags & PROCMAPS_EXEC_ONLY) || (e.perms & PROCMAPS_EXEC)) {
			err = builder_add(&b, &e);
			if (err == -E2BIG) {
				out->truncated = true;
				err = 0;
				break;
			}
			if (err)
				goto cleanup;
		}
		p = nl + 1;
	}
	for (i = 0; i < out->n; i++)
		out->entries[i].path = out->paths + b.path_offs[i];
cleanup:
	free(path_buf);
	free(b.path_offs);
	if (err)
		procmaps__free(out);
	return err;
}

int procmaps__read(const char *proc_root, int pid, unsigned int flags, struct procmaps *out)
{
	char path[PATH_MAX];
	char *text = NULL;
	size_t len = 0;
	bool truncated = false;
	int fd = -1, err, n;

	if (!proc_root || !out || pid <= 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	n = snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto cleanup;
	}
	err = read_all(fd, PROCMAPS_MAX_FILE, &text, &len, &truncated);
	/* A process that exits while we read leaves an empty or short file,
	 * or ESRCH from read. */
	if (err)
		goto cleanup;
	err = procmaps__parse(text, len, flags, out);
	if (!err && truncated)
		out->truncated = true;
cleanup:
	free(text);
	if (fd >= 0)
		close(fd);
	return err;
}

void procmaps__free(struct procmaps *m)
{
	if (!m)
		return;
	free(m->entries);
	free(m->paths);
	memset(m, 0, sizeof(*m));
}
