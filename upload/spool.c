/* spool.c - the spool directory's usage and bounds. */
#include "upload/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAPTURE_SUFFIX ".pb.zst"
#define SIDECAR_SUFFIX ".json"
#define MARKER_SUFFIX ".failed"
#define TEMP_INFIX ".tmp." /* atomic_file's NAME.tmp.PID */

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

/* companion - NAME.pb.zst -> NAME@suffix (".json", ".failed"). */
static int companion(const char *name, const char *suffix, char *out, size_t len)
{
	size_t base = strlen(name) - strlen(CAPTURE_SUFFIX);

	if (base + strlen(suffix) + 1 > len)
		return -ENAMETOOLONG;
	memcpy(out, name, base);
	memcpy(out + base, suffix, strlen(suffix) + 1);
	return 0;
}

static int sidecar_of(const char *name, char *out, size_t len)
{
	return companion(name, SIDECAR_SUFFIX, out, len);
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

/* remove_capture - profile first, then sidecar and marker (spool.h). */
static int remove_capture(int dfd, const char *name)
{
	char other[NAME_MAX + 1];

	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return -errno;
	if (!companion(name, SIDECAR_SUFFIX, other, sizeof(other)))
		unlinkat(dfd, other, 0);
	if (!companion(name, MARKER_SUFFIX, other, sizeof(other)))
		unlinkat(dfd, other, 0);
	return 0;
}

static int drop(DIR *d, const struct entry *en)
{
	return remove_capture(dirfd(d), en->name);
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

/* --- the state of each capture ------------------------------------------ */

static bool exists_at(int dfd, const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

int spool_list(const char *dir, struct spool_item **items, size_t *n)
{
	struct listing l = { 0 };
	struct spool_item *it = NULL;
	char other[NAME_MAX + 1];
	DIR *d = opendir(dir);
	size_t i;
	int e;

	*items = NULL;
	*n = 0;
	if (!d)
		return -errno;
	e = list(d, &l);
	if (!e && l.n && !(it = calloc(l.n, sizeof(*it))))
		e = -ENOMEM;
	for (i = 0; !e && i < l.n; i++) {
		snprintf(it[i].name, sizeof(it[i].name), "%s", l.e[i].name);
		it[i].bytes = file_bytes(dirfd(d), l.e[i].name);
		it[i].sidecar = !companion(l.e[i].name, SIDECAR_SUFFIX, other, sizeof(other)) &&
				exists_at(dirfd(d), other);
		it[i].failed = !companion(l.e[i].name, MARKER_SUFFIX, other, sizeof(other)) &&
			       exists_at(dirfd(d), other);
	}
	if (!e) {
		*items = it;
		*n = l.n;
		it = NULL;
	}
	free(it);
	free_listing(&l);
	closedir(d);
	return e;
}

/* write_small - @text as the whole of @dir/@name, through a temporary
 * renamed into place (a marker or recovered sidecar is never half there). */
static int write_small(const char *dir, const char *name, const char *text)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	size_t len = strlen(text);
	ssize_t w;
	int fd, e = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s%s%ld", path, TEMP_INFIX, (long)getpid()) >=
		    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	w = write(fd, text, len);
	if (w < 0 || (size_t)w != len || fsync(fd))
		e = w >= 0 && (size_t)w != len ? -ENOSPC : -errno;
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
	return e;
}

int spool_mark_failed(const char *dir, const char *name, const char *reason)
{
	char marker[NAME_MAX + 1], line[1024];
	size_t i;

	if (!is_capture(name) || strchr(name, '/') ||
	    companion(name, MARKER_SUFFIX, marker, sizeof(marker)))
		return -EINVAL;
	snprintf(line, sizeof(line), "%s\n", reason);
	for (i = 0; line[i + 1]; i++) /* one line */
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	return write_small(dir, marker, line);
}

int spool_read_failed(const char *dir, const char *name, char *buf, size_t len)
{
	char marker[NAME_MAX + 1], path[PATH_MAX];
	ssize_t n;
	int fd;

	if (!len || companion(name, MARKER_SUFFIX, marker, sizeof(marker)) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, marker) >= (int)sizeof(path))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int spool_clear_failed(const char *dir, const char *name)
{
	struct spool_item *items = NULL;
	char marker[NAME_MAX + 1], path[PATH_MAX];
	size_t n = 0, i;
	int e, cleared = 0;

	e = spool_list(dir, &items, &n);
	for (i = 0; !e && i < n; i++) {
		if (!items[i].failed || (name && strcmp(items[i].name, name)))
			continue;
		companion(items[i].name, MARKER_SUFFIX, marker, sizeof(marker));
		snprintf(path, sizeof(path), "%s/%s", dir, marker);
		if (unlink(path) && errno != ENOENT)
			e = -errno;
		else
			cleared++;
	}
	free(items);
	return e ? e : cleared;
}

int spool_remove(const char *dir, const char *name)
{
	int dfd, e;

	if (!is_capture(name) || strchr(name, '/'))
		return -EINVAL;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	e = remove_capture(dfd, name);
	if (!e && fsync(dfd))
		e = -errno;
	close(dfd);
	return e;
}

/* --- recovery ------------------------------------------------------------ */

/* stale_temporary - NAME.tmp.PID of a process that is gone (or of an
 * earlier life of ours: a pid is reused across restarts). */
static bool stale_temporary(const char *name)
{
	const char *t = strstr(name, TEMP_INFIX), *digits;
	char *end;
	long pid;

	if (!t)
		return false;
	while (strstr(t + 1, TEMP_INFIX))
		t = strstr(t + 1, TEMP_INFIX);
	digits = t + strlen(TEMP_INFIX);
	errno = 0;
	pid = strtol(digits, &end, 10);
	if (end == digits || *end || errno || pid <= 0)
		return false;
	return pid == (long)getpid() || (kill((pid_t)pid, 0) && errno == ESRCH);
}

/* profile_of - NAME.json / NAME.failed -> NAME.pb.zst; false for other names. */
static bool profile_of(const char *name, char *out, size_t len)
{
	static const char *const suffixes[] = { SIDECAR_SUFFIX, MARKER_SUFFIX };
	size_t nl = strlen(name), i, sl;

	for (i = 0; i < 2; i++) {
		sl = strlen(suffixes[i]);
		if (nl > sl && !strcmp(name + nl - sl, suffixes[i]))
			return snprintf(out, len, "%.*s%s", (int)(nl - sl), name, CAPTURE_SUFFIX) <
			       (int)len;
	}
	return false;
}

static int recover_entry(const char *dir, int dfd, const char *name, struct spool_recovery *r)
{
	char other[NAME_MAX + 1], text[NAME_MAX + 160];
	int e;

	if (stale_temporary(name)) {
		if (!unlinkat(dfd, name, 0))
			r->temporaries++;
		return 0;
	}
	if (profile_of(name, other, sizeof(other)) && !exists_at(dfd, other)) {
		if (!unlinkat(dfd, name, 0))
			r->leftovers++;
		return 0;
	}
	if (!is_capture(name) || sidecar_of(name, other, sizeof(other)) || exists_at(dfd, other))
		return 0;
	/* Spool names are [A-Za-z0-9_.-]: nothing in them needs escaping. */
	snprintf(text, sizeof(text),
		 "{\n  \"format\": \"trapd-capture/1\",\n  \"recovered\": true,\n"
		 "  \"profile\": {\n    \"file\": \"%s\",\n    \"format\": \"pprof+zstd\",\n"
		 "    \"bytes\": %llu\n  }\n}\n",
		 name, (unsigned long long)file_bytes(dfd, name));
	e = write_small(dir, other, text);
	if (!e)
		r->sidecars++;
	return e;
}

int spool_recover(const char *dir, struct spool_recovery *out, char *err, size_t errlen)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d = opendir(dir);
	int e = 0;

	memset(out, 0, sizeof(*out));
	if (!d) {
		e = -errno;
		if (e == -ENOENT)
			return 0; /* nothing written yet */
		snprintf(err, errlen, "spool %s: %s", dir, strerror(-e));
		return e;
	}
	while (!e && (de = readdir(d)) && seen++ < SPOOL_SCAN_MAX) {
		if (de->d_name[0] == '.')
			continue;
		e = recover_entry(dir, dirfd(d), de->d_name, out);
		if (e)
			snprintf(err, errlen, "spool %s: recovering %s: %s", dir, de->d_name,
				 strerror(-e));
	}
	closedir(d);
	return e;
}
