// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* file_cache.c - polled text files kept open, read once a tick. */
#include "rules/file_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

struct cached_file {
	char *path;
	int fd;	       /* -1: not open (not kept, or its read failed) */
	uint64_t tick; /* of text and ret */
	int ret;
	char *text; /* the tick's text (ret 0), grown as needed */
	size_t len, cap;
};

struct file_cache {
	struct cached_file *f;
	size_t n, cap;
	uint64_t tick; /* starts at 1: an entry's 0 is "never read" */
};

/* read_text_at - @fd's text from offset 0 into @buf (@cap bytes, NUL
 * included) with pread. With @one_read a short read is the end: procfs
 * and kernfs give a file's whole text to one read with room for it (the
 * seq_file's show runs once), so the read that would return 0 is saved. */
static int read_text_at(int fd, char *buf, size_t cap, bool one_read, size_t *len)
{
	size_t got = 0;
	int ret = 0;
	char extra;
	ssize_t n;

	while (got < cap - 1) {
		n = pread(fd, buf + got, cap - 1 - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (one_read && got < cap - 1)
			break;
	}
	/* a full buffer is only fine if the file ends there */
	if (!ret && got == cap - 1 && pread(fd, &extra, 1, (off_t)got) > 0)
		ret = -EFBIG;
	buf[ret ? 0 : got] = '\0';
	if (len)
		*len = ret ? 0 : got;
	return ret;
}

/* tells_removal - whether a read of @fd fails once its file is removed:
 * on procfs, sysfs and the cgroup file systems. */
static bool tells_removal(int fd)
{
	struct statfs fs;

	if (fstatfs(fd, &fs))
		return false;
	return fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC ||
	       fs.f_type == CGROUP_SUPER_MAGIC || fs.f_type == CGROUP2_SUPER_MAGIC;
}

static void fail_text(char *buf, size_t *len)
{
	buf[0] = '\0';
	if (len)
		*len = 0;
}

/* read_plain - open, read, close. */
static int read_plain(const char *path, char *buf, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		ret = -errno;
		fail_text(buf, len);
		return ret;
	}
	ret = read_text_at(fd, buf, cap, false, len);
	close(fd);
	return ret;
}

/* read_kept - through the kept *@fd; when it fails (its file is gone),
 * or none is kept, the path is opened afresh and kept if it can tell. */
static int read_kept(int *fd, const char *path, char *buf, size_t cap, size_t *len)
{
	bool keep;
	int ret;

	if (*fd >= 0) {
		ret = read_text_at(*fd, buf, cap, true, len);
		if (!ret)
			return 0;
		close(*fd);
		*fd = -1;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		ret = -errno;
		fail_text(buf, len);
		return ret;
	}
	keep = tells_removal(*fd);
	ret = read_text_at(*fd, buf, cap, keep, len);
	if (ret || !keep) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

struct file_cache *file_cache__new(void)
{
	struct file_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->tick = 1;
	return c;
}

static void drop(struct cached_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f->text);
}

void file_cache__free(struct file_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		drop(&c->f[i]);
	free(c->f);
	free(c);
}

void file_cache__tick(struct file_cache *c)
{
	size_t i = 0;

	if (!c)
		return;
	while (i < c->n) {
		if (c->f[i].tick + FILE_CACHE_IDLE_TICKS > c->tick) {
			i++;
			continue;
		}
		drop(&c->f[i]);
		c->f[i] = c->f[--c->n];
	}
	c->tick++;
}

static struct cached_file *find(struct file_cache *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->f[i].path, path))
			return &c->f[i];
	return NULL;
}

static struct cached_file *add(struct file_cache *c, const char *path)
{
	struct cached_file *f;
	size_t cap;

	if (c->n >= FILE_CACHE_MAX)
		return NULL;
	if (c->n == c->cap) {
		cap = c->cap ? c->cap * 2 : 16;
		f = reallocarray(c->f, cap, sizeof(*f));
		if (!f)
			return NULL;
		c->f = f;
		c->cap = cap;
	}
	f = &c->f[c->n];
	*f = (struct cached_file){ .path = strdup(path), .fd = -1 };
	if (!f->path)
		return NULL;
	c->n++;
	return f;
}

/* keep_text - the tick's text of @f, for the other reads of the tick. */
static void keep_text(struct cached_file *f, const char *buf, size_t len)
{
	char *t;

	if (len + 1 > f->cap) {
		t = realloc(f->text, len + 1);
		if (!t) {
			f->tick = 0; /* not kept: the next read reads again */
			return;
		}
		f->text = t;
		f->cap = len + 1;
	}
	memcpy(f->text, buf, len + 1);
	f->len = len;
}

int file_cache__read(struct file_cache *c, const char *path, char *buf, size_t size, size_t *len)
{
	size_t cap = size < FILE_CACHE_TEXT_MAX ? size : FILE_CACHE_TEXT_MAX, got = 0;
	struct cached_file *f;

	if (cap < 2)
		return -EINVAL;
	f = c ? find(c, path) : NULL;
	if (!f && c)
		f = add(c, path);
	if (!f)
		return read_plain(path, buf, cap, len);
	if (f->tick == c->tick) {
		if (f->ret) {
			fail_text(buf, len);
			return f->ret;
		}
		if (f->len >= cap) {
			fail_text(buf, len);
			return -EFBIG;
		}
		memcpy(buf, f->text, f->len + 1);
		if (len)
			*len = f->len;
		return 0;
	}
	f->ret = read_kept(&f->fd, path, buf, cap, &got);
	f->tick = c->tick;
	if (!f->ret)
		keep_text(f, buf, got);
	if (len)
		*len = got;
	return f->ret;
}

size_t file_cache__open_files(const struct file_cache *c)
{
	size_t i, n = 0;

	for (i = 0; c && i < c->n; i++)
		n += c->f[i].fd >= 0;
	return n;
}
