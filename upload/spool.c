/* spool.c - the spool directory's usage and bounds. */
#include "upload/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAPTURE_SUFFIX ".pb.zst"
#define SIDECAR_SUFFIX ".json"

struct entry {
	char *name;	/* NAME.pb.zst */
	uint64_t bytes; /* the capture and its sidecar */
};

struct listing {
	struct entry *e;
	size_t n, cap;
	uint64_t bytes; /* every regular file */
};

static bool is_capture(const char *name)
{
	size_t nl = strlen(name), sl = strlen(CAPTURE_SUFFIX);

	return name[0] != '.' && nl > sl && !strcmp(name + nl - sl, CAPTURE_SUFFIX);
}

/* sidecar_of - NAME.pb.zst -> NAME.json. */
static int sidecar_of(const char *name, char *out, size_t len)
{
	size_t base = strlen(name) - strlen(CAPTURE_SUFFIX);

	if (base + strlen(SIDECAR_SUFFIX) + 1 > len)
		return -ENAMETOOLONG;
	memcpy(out, name, base);
	memcpy(out + base, SIDECAR_SUFFIX, strlen(SIDECAR_SUFFIX) + 1);
	return 0;
}

static uint64_t file_bytes(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)
		       ? 0
		       : (uint64_t)st.st_size;
}

static int add_entry(struct listing *l, int dfd, const char *name)
{
	char sidecar[NAME_MAX + 1];

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct entry *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		l->e = e;
		l->cap = cap;
	}
	l->e[l->n].name = strdup(name);
	if (!l->e[l->n].name)
		return -ENOMEM;
	l->e[l->n].bytes = file_bytes(dfd, name);
	if (!sidecar_of(name, sidecar, sizeof(sidecar)))
		l->e[l->n].bytes += file_bytes(dfd, sidecar);
	l->n++;
	return 0;
}

static void free_listing(struct listing *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* list - every capture of @d, oldest first, and the bytes of all files. */
static int list(DIR *d, struct listing *l)
{
	struct dirent *de;
	size_t seen = 0;
	int e = 0;

	while (!e && (de = readdir(d)) && seen++ < SPOOL_SCAN_MAX) {
		if (de->d_name[0] == '.')
			continue;
		l->bytes += file_bytes(dirfd(d), de->d_name);
		if (is_capture(de->d_name))
			e = add_entry(l, dirfd(d), de->d_name);
	}
	if (!e && l->n)
		qsort(l->e, l->n, sizeof(*l->e), by_name);
	return e;
}

int spool_usage(const char *dir, struct spool_usage *out)
{
	struct listing l = { 0 };
	DIR *d = opendir(dir);
	int e;

	memset(out, 0, sizeof(*out));
	if (!d)
		return -errno;
	e = list(d, &l);
	out->captures = l.n;
	out->bytes = l.bytes;
	free_listing(&l);
	closedir(d);
	return e;
}

static int drop(DIR *d, const struct entry *en)
{
	char sidecar[NAME_MAX + 1];

	if (unlinkat(dirfd(d), en->name, 0) && errno != ENOENT)
		return -errno;
	if (!sidecar_of(en->name, sidecar, sizeof(sidecar)))
		unlinkat(dirfd(d), sidecar, 0);
	return 0;
}

int spool_enforce(const char *dir, uint64_t max_bytes, uint64_t max_files, const char *keep,
		  spool_drop_fn fn, void *ctx, char *err, size_t errlen)
{
	struct listing l = { 0 };
	uint64_t files, bytes;
	int e, dropped = 0;
	size_t i;
	DIR *d = opendir(dir);

	if (!d) {
		e = -errno;
		snprintf(err, errlen, "spool %s: %s", dir, strerror(-e));
		return e;
	}
	e = list(d, &l);
	files = l.n;
	bytes = l.bytes;
	for (i = 0; !e && i < l.n && (files > max_files || bytes > max_bytes); i++) {
		if (keep && !strcmp(l.e[i].name, keep))
			continue;
		e = drop(d, &l.e[i]);
		if (e) {
			snprintf(err, errlen, "spool %s: dropping %s: %s", dir, l.e[i].name,
				 strerror(-e));
			break;
		}
		files--;
		bytes = bytes > l.e[i].bytes ? bytes - l.e[i].bytes : 0;
		dropped++;
		if (fn)
			fn(l.e[i].name, l.e[i].bytes, ctx);
	}
	if (e == -ENOMEM)
		snprintf(err, errlen, "spool %s: out of memory", dir);
	free_listing(&l);
	closedir(d);
	return e ? e : dropped;
}
