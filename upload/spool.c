// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* spool.c - the spool directory: trusted only when nobody else can write
 * it, its names and their order, its usage and bounds (spool.h).
 *
 * Everything below works on a descriptor spool_dir_open checked, with
 * *at() calls and O_NOFOLLOW, so a path is resolved once and no entry is
 * ever followed to somewhere else.
 */
#include "upload/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CAPTURE_SUFFIX ".pb.zst"
#define SIDECAR_SUFFIX ".json"
#define MARKER_SUFFIX ".failed"
#define TEMP_INFIX ".tmp."   /* atomic_file's NAME.tmp.PID[.RANDOM] */
#define SEQ_FILE ".sequence" /* the last sequence given out */

struct entry {
	char *name;	/* NAME.pb.zst */
	uint64_t bytes; /* the capture and its sidecar */
	uint64_t seq;
	bool has_seq;
};

struct listing {
	struct entry *e;
	size_t n, cap;
	uint64_t bytes; /* every regular file */
	struct spool_skipped skipped;
};

/* --- the directory ------------------------------------------------------- */

/* unsafe - why the directory behind @st cannot be trusted, or NULL. */
static const char *unsafe(const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();
	const char *fix = me ? "make it 0750 and owned by trapd's user" : "make it 0750 root-owned";

	if (st->st_uid != me)
		snprintf(why, len, "owned by uid %u, not by uid %u (trapd); %s",
			 (unsigned)st->st_uid, (unsigned)me, fix);
	else if (st->st_mode & S_IWOTH)
		snprintf(why, len, "writable by others (mode %04o); %s",
			 (unsigned)(st->st_mode & 07777), fix);
	else if (st->st_mode & S_IWGRP)
		snprintf(why, len, "writable by its group (mode %04o); %s",
			 (unsigned)(st->st_mode & 07777), fix);
	else
		return NULL;
	return why;
}

int spool_dir_open(const char *dir, bool create, char *err, size_t errlen)
{
	char why[160];
	struct stat st;
	int fd, e;

	if (create && mkdir(dir, 0750) && errno != EEXIST) {
		e = -errno;
		snprintf(err, errlen, "spool_dir %s: cannot create it: %s", dir, strerror(-e));
		return e;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		if (e == -ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			e = -ELOOP; /* O_DIRECTORY says ENOTDIR for a link */
		snprintf(err, errlen, "spool_dir %s: %s", dir,
			 e == -ELOOP ? "a symbolic link; name the directory itself" : strerror(-e));
		return e;
	}
	if (fstat(fd, &st)) {
		e = -errno;
		snprintf(err, errlen, "spool_dir %s: %s", dir, strerror(-e));
		close(fd);
		return e;
	}
	if (unsafe(&st, why, sizeof(why))) {
		snprintf(err, errlen, "spool_dir %s: %s", dir, why);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* open_dir - spool_dir_open without create; @err may be NULL. */
static int open_dir(const char *dir, char *err, size_t errlen)
{
	char scratch[8];

	return err ? spool_dir_open(dir, false, err, errlen)
		   : spool_dir_open(dir, false, scratch, sizeof(scratch));
}

/* open_stream - a readdir stream of its own over @dfd. */
static DIR *open_stream(int dfd)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	else
		rewinddir(d);
	return d;
}

/* --- names --------------------------------------------------------------- */

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* old_date - @s starts "YYYYMMDDT": the time part of any spool name. */
static bool old_date(const char *s)
{
	return strnlen(s, 9) == 9 && all_digits(s, 8) && s[8] == 'T';
}

bool spool_name_seq(const char *name, uint64_t *seq)
{
	size_t n = strspn(name, "0123456789");
	uint64_t v = 0;
	size_t i;

	if (!n || n > 19 || name[n] != '-' || !old_date(name + n + 1))
		return false;
	for (i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(name[i] - '0');
	*seq = v;
	return true;
}

bool spool_name_date(const char *name, char ymd[8])
{
	uint64_t seq;

	if (spool_name_seq(name, &seq))
		name = strchr(name, '-') + 1;
	if (!old_date(name))
		return false;
	memcpy(ymd, name, 8);
	return true;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t nl = strlen(name), sl = strlen(suffix);

	return nl > sl && !strcmp(name + nl - sl, suffix);
}

static bool is_capture(const char *name)
{
	return name[0] != '.' && has_suffix(name, CAPTURE_SUFFIX);
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

/* highest_seq - the highest sequence any entry of @dfd starts with. */
static int highest_seq(int dfd, uint64_t *out)
{
	struct dirent *de;
	size_t seen = 0;
	uint64_t seq;
	DIR *d = open_stream(dfd);

	*out = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d)) && seen++ < SPOOL_SCAN_MAX)
		if (spool_name_seq(de->d_name, &seq) && seq > *out)
			*out = seq;
	closedir(d);
	return 0;
}

/* last_issued - the sequence SEQ_FILE remembers (0: none, or unreadable).
 * It covers what the directory cannot show: a name given out whose
 * capture is still being written, and captures already sent. */
static uint64_t last_issued(int dfd)
{
	char buf[32];
	struct stat st;
	uint64_t v = 0;
	ssize_t n = -1;
	char *end;
	int fd;

	fd = openat(dfd, SEQ_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	return errno || end == buf || (*end && *end != '\n') ? 0 : v;
}

static int write_small(int dfd, const char *name, const char *text);

/* issue_seq - the next sequence of @dfd, remembered in SEQ_FILE. */
static int issue_seq(int dfd, uint64_t *out)
{
	char text[32];
	uint64_t seen, kept;
	int e;

	e = highest_seq(dfd, &seen);
	if (e)
		return e;
	kept = last_issued(dfd);
	*out = (seen > kept ? seen : kept) + 1;
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)*out);
	return write_small(dfd, SEQ_FILE, text);
}

int spool_next_name(const char *dir, int64_t real_ns, const char *what, const char *id, char *out,
		    size_t len, char *err, size_t errlen)
{
	char when[32], safe[64];
	time_t secs = (time_t)(real_ns / 1000000000ll);
	uint64_t seq;
	struct tm tm;
	size_t i;
	int dfd, e;

	dfd = spool_dir_open(dir, true, err, errlen);
	if (dfd < 0)
		return dfd;
	e = issue_seq(dfd, &seq);
	close(dfd);
	if (e) {
		snprintf(err, errlen, "spool_dir %s: numbering a capture: %s", dir, strerror(-e));
		return e;
	}
	gmtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(safe, sizeof(safe), "%s", what && *what ? what : "manual");
	for (i = 0; safe[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
			    safe[i]))
			safe[i] = '_';
	if (snprintf(out, len, "%0*llu-%s-%s-%.8s" CAPTURE_SUFFIX, SPOOL_SEQ_DIGITS,
		     (unsigned long long)seq, when, safe, id) >= (int)len) {
		snprintf(err, errlen, "spool_dir %s: capture name too long", dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* --- listing ------------------------------------------------------------- */

/* regular_bytes - the size of @name in @dfd, or -1 when it is not a
 * regular file (or not there). Never follows a link. */
static int64_t regular_bytes(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return -1;
	return (int64_t)st.st_size;
}

static uint64_t file_bytes(int dfd, const char *name)
{
	int64_t n = regular_bytes(dfd, name);

	return n < 0 ? 0 : (uint64_t)n;
}

static void note_skipped(struct spool_skipped *s, const char *name)
{
	if (!s->n++ || strcmp(name, s->first) < 0)
		snprintf(s->first, sizeof(s->first), "%s", name);
}

static int add_entry(struct listing *l, int dfd, const char *name, uint64_t bytes)
{
	char sidecar[NAME_MAX + 1];
	struct entry *en;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct entry *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		l->e = e;
		l->cap = cap;
	}
	en = &l->e[l->n];
	en->name = strdup(name);
	if (!en->name)
		return -ENOMEM;
	en->bytes = bytes;
	if (!sidecar_of(name, sidecar, sizeof(sidecar)))
		en->bytes += file_bytes(dfd, sidecar);
	en->has_seq = spool_name_seq(name, &en->seq);
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

/* oldest_first - names of earlier versions (no sequence) by name, then
 * sequenced names by sequence. */
static int oldest_first(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->has_seq != b->has_seq)
		return a->has_seq ? 1 : -1;
	if (a->has_seq && a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* list - every capture of @dfd, oldest first, and the bytes of all files. */
static int list(int dfd, struct listing *l)
{
	struct dirent *de;
	size_t seen = 0;
	int64_t bytes;
	int e = 0;
	DIR *d = open_stream(dfd);

	if (!d)
		return -errno;
	while (!e && (de = readdir(d)) && seen++ < SPOOL_SCAN_MAX) {
		if (de->d_name[0] == '.')
			continue;
		bytes = regular_bytes(dfd, de->d_name);
		if (bytes >= 0)
			l->bytes += (uint64_t)bytes;
		if (!is_capture(de->d_name))
			continue;
		if (bytes < 0)
			note_skipped(&l->skipped, de->d_name);
		else
			e = add_entry(l, dfd, de->d_name, (uint64_t)bytes);
	}
	closedir(d);
	if (!e && l->n)
		qsort(l->e, l->n, sizeof(*l->e), oldest_first);
	return e;
}

int spool_usage(const char *dir, struct spool_usage *out)
{
	struct listing l = { 0 };
	int dfd, e;

	memset(out, 0, sizeof(*out));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	e = list(dfd, &l);
	out->captures = l.n;
	out->bytes = l.bytes;
	free_listing(&l);
	close(dfd);
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

int spool_enforce(const char *dir, uint64_t max_bytes, uint64_t max_files, const char *keep,
		  spool_drop_fn fn, void *ctx, char *err, size_t errlen)
{
	struct listing l = { 0 };
	uint64_t files, bytes;
	int dfd, e, dropped = 0;
	size_t i;

	dfd = open_dir(dir, err, errlen);
	if (dfd < 0)
		return dfd;
	e = list(dfd, &l);
	if (e && e != -ENOMEM)
		snprintf(err, errlen, "spool %s: listing it: %s", dir, strerror(-e));
	files = l.n;
	bytes = l.bytes;
	for (i = 0; !e && i < l.n && (files > max_files || bytes > max_bytes); i++) {
		if (keep && !strcmp(l.e[i].name, keep))
			continue;
		e = remove_capture(dfd, l.e[i].name);
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
	close(dfd);
	return e ? e : dropped;
}

/* --- the state of each capture ------------------------------------------ */

static bool exists_at(int dfd, const char *name)
{
	return regular_bytes(dfd, name) >= 0;
}

static int to_items(int dfd, const struct listing *l, struct spool_item **out)
{
	char other[NAME_MAX + 1];
	struct spool_item *it;
	size_t i;

	*out = NULL;
	if (!l->n)
		return 0;
	it = calloc(l->n, sizeof(*it));
	if (!it)
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		snprintf(it[i].name, sizeof(it[i].name), "%s", l->e[i].name);
		it[i].bytes = file_bytes(dfd, l->e[i].name);
		it[i].sidecar = !companion(l->e[i].name, SIDECAR_SUFFIX, other, sizeof(other)) &&
				exists_at(dfd, other);
		it[i].failed = !companion(l->e[i].name, MARKER_SUFFIX, other, sizeof(other)) &&
			       exists_at(dfd, other);
	}
	*out = it;
	return 0;
}

int spool_list(const char *dir, struct spool_item **items, size_t *n)
{
	return spool_list_skipping(dir, items, n, NULL);
}

int spool_list_skipping(const char *dir, struct spool_item **items, size_t *n,
			struct spool_skipped *skipped)
{
	struct listing l = { 0 };
	int dfd, e;

	*items = NULL;
	*n = 0;
	if (skipped)
		memset(skipped, 0, sizeof(*skipped));
	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	e = list(dfd, &l);
	if (!e)
		e = to_items(dfd, &l, items);
	if (!e)
		*n = l.n;
	if (skipped)
		*skipped = l.skipped;
	free_listing(&l);
	close(dfd);
	return e;
}

int spool_open_file(const char *dir, const char *name, uint64_t *size)
{
	struct stat st;
	int dfd, fd, e = 0;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	/* O_NONBLOCK: a FIFO opens at once (and is refused below) instead of
	 * waiting for a writer; it changes nothing for a regular file */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		e = -errno;
	else if (fstat(fd, &st))
		e = -errno;
	else if (!S_ISREG(st.st_mode))
		e = -EINVAL;
	close(dfd);
	if (e) {
		if (fd >= 0)
			close(fd);
		return e;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

/* write_small - @text as the whole of @name in @dfd, through a temporary
 * renamed into place (a marker or recovered sidecar is never half there). */
static int write_small(int dfd, const char *name, const char *text)
{
	char tmp[NAME_MAX + 1];
	size_t len = strlen(text);
	uint32_t r = 0;
	ssize_t w;
	int fd, e = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint32_t)time(NULL);
	if (snprintf(tmp, sizeof(tmp), "%s" TEMP_INFIX "%ld.%08x", name, (long)getpid(), r) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	w = write(fd, text, len);
	if (w < 0 || (size_t)w != len || fsync(fd))
		e = w >= 0 && (size_t)w != len ? -ENOSPC : -errno;
	if (close(fd) && !e)
		e = -errno;
	if (!e && renameat(dfd, tmp, dfd, name))
		e = -errno;
	if (e)
		unlinkat(dfd, tmp, 0);
	return e;
}

int spool_mark_failed(const char *dir, const char *name, const char *reason)
{
	char marker[NAME_MAX + 1], line[1024];
	size_t i;
	int dfd, e;

	if (!is_capture(name) || strchr(name, '/') ||
	    companion(name, MARKER_SUFFIX, marker, sizeof(marker)))
		return -EINVAL;
	snprintf(line, sizeof(line), "%s\n", reason);
	for (i = 0; line[i + 1]; i++) /* one line */
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	e = write_small(dfd, marker, line);
	close(dfd);
	return e;
}

int spool_read_failed(const char *dir, const char *name, char *buf, size_t len)
{
	char marker[NAME_MAX + 1];
	uint64_t size;
	ssize_t n;
	int fd;

	if (!len || !is_capture(name) || companion(name, MARKER_SUFFIX, marker, sizeof(marker)))
		return -EINVAL;
	fd = spool_open_file(dir, marker, &size);
	if (fd < 0)
		return fd;
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
	char marker[NAME_MAX + 1];
	size_t n = 0, i;
	int dfd, e, cleared = 0;

	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	e = spool_list(dir, &items, &n);
	for (i = 0; !e && i < n; i++) {
		if (!items[i].failed || (name && strcmp(items[i].name, name)))
			continue;
		companion(items[i].name, MARKER_SUFFIX, marker, sizeof(marker));
		if (unlinkat(dfd, marker, 0) && errno != ENOENT)
			e = -errno;
		else
			cleared++;
	}
	free(items);
	close(dfd);
	return e ? e : cleared;
}

/* --- where sent captures went ---------------------------------------------- */

#define SENT_FILE ".sent"
#define SENT_LINE_MAX (NAME_MAX + 1 + 1024 + 1)
#define SENT_FILE_MAX (SPOOL_SENT_KEEP * SENT_LINE_MAX)

/* read_sent - @dfd's SENT_FILE, NUL-terminated, into *@out (malloc'd; an
 * empty string when there is none). */
static int read_sent(int dfd, char **out)
{
	char *buf = malloc(SENT_FILE_MAX + 1);
	struct stat st;
	ssize_t n = 0;
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = openat(dfd, SENT_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		if (!fstat(fd, &st) && S_ISREG(st.st_mode))
			n = read(fd, buf, SENT_FILE_MAX);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	*out = buf;
	return 0;
}

/* keep_last_lines - the start of the last @keep (> 0) lines of @text. */
static const char *keep_last_lines(const char *text, size_t keep)
{
	const char *p = text + strlen(text);
	size_t lines = 0;

	if (p > text && p[-1] == '\n')
		p--; /* the last line's own end */
	for (; p > text; p--)
		if (p[-1] == '\n' && ++lines == keep)
			return p;
	return text;
}

int spool_note_sent(const char *dir, const char *name, const char *url)
{
	char *old = NULL, *text;
	const char *kept;
	size_t len;
	int dfd, e;

	if (!is_capture(name) || strchr(name, '/') || strpbrk(url, "\t\n\r") ||
	    strlen(url) >= SENT_LINE_MAX - NAME_MAX - 2)
		return -EINVAL;
	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	e = read_sent(dfd, &old);
	if (e)
		goto out;
	kept = keep_last_lines(old, SPOOL_SENT_KEEP - 1);
	len = strlen(kept) + strlen(name) + strlen(url) + 3;
	text = malloc(len);
	if (!text) {
		e = -ENOMEM;
		goto out;
	}
	snprintf(text, len, "%s%s\t%s\n", kept, name, url);
	e = write_small(dfd, SENT_FILE, text);
	free(text);
out:
	free(old);
	close(dfd);
	return e;
}

int spool_find_sent(const char *dir, const char *name, char *url, size_t len)
{
	size_t nlen = strlen(name);
	char *text = NULL, *line, *save = NULL;
	int dfd, e;

	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	e = read_sent(dfd, &text);
	close(dfd);
	if (e)
		return e;
	e = -ENOENT;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, name, nlen) && line[nlen] == '\t') {
			snprintf(url, len, "%s", line + nlen + 1);
			e = 0; /* the last line of a name is its latest */
		}
	free(text);
	return e;
}

int spool_remove(const char *dir, const char *name)
{
	int dfd, e;

	if (!is_capture(name) || strchr(name, '/'))
		return -EINVAL;
	dfd = open_dir(dir, NULL, 0);
	if (dfd < 0)
		return dfd;
	e = remove_capture(dfd, name);
	if (!e && fsync(dfd))
		e = -errno;
	close(dfd);
	return e;
}

/* --- recovery ------------------------------------------------------------ */

/* stale_temporary - NAME.tmp.PID[.RANDOM] of a process that is gone (or
 * of an earlier life of ours: a pid is reused across restarts). */
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
	if (end == digits || errno || pid <= 0)
		return false;
	if (*end == '.' && end[1] && strspn(end + 1, "0123456789abcdef") == strlen(end + 1))
		end += strlen(end);
	if (*end)
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

static int recover_entry(int dfd, const char *name, struct spool_recovery *r)
{
	char other[NAME_MAX + 1], text[NAME_MAX + 160];
	int64_t bytes;
	int e;

	if (stale_temporary(name)) {
		if (!unlinkat(dfd, name, 0))
			r->temporaries++;
		return 0;
	}
	/* unlinkat removes a link or a FIFO itself, never what it names */
	if (profile_of(name, other, sizeof(other)) && !exists_at(dfd, other)) {
		if (!unlinkat(dfd, name, 0))
			r->leftovers++;
		return 0;
	}
	if (!is_capture(name))
		return 0;
	bytes = regular_bytes(dfd, name);
	if (bytes < 0) {
		note_skipped(&r->skipped, name);
		return 0;
	}
	if (sidecar_of(name, other, sizeof(other)) || exists_at(dfd, other))
		return 0;
	/* Spool names are [A-Za-z0-9_.-]: nothing in them needs escaping. */
	snprintf(text, sizeof(text),
		 "{\n  \"format\": \"trapd-capture/1\",\n  \"recovered\": true,\n"
		 "  \"profile\": {\n    \"file\": \"%s\",\n    \"format\": \"pprof+zstd\",\n"
		 "    \"bytes\": %llu\n  }\n}\n",
		 name, (unsigned long long)bytes);
	e = write_small(dfd, other, text);
	if (!e)
		r->sidecars++;
	return e;
}

int spool_recover(const char *dir, struct spool_recovery *out, char *err, size_t errlen)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d = NULL;
	int dfd, e = 0;

	memset(out, 0, sizeof(*out));
	dfd = open_dir(dir, err, errlen);
	if (dfd == -ENOENT)
		return 0; /* nothing written yet */
	if (dfd < 0)
		return dfd;
	d = open_stream(dfd);
	if (!d) {
		e = -errno;
		snprintf(err, errlen, "spool %s: %s", dir, strerror(-e));
	}
	while (d && !e && (de = readdir(d)) && seen++ < SPOOL_SCAN_MAX) {
		if (de->d_name[0] == '.' && !stale_temporary(de->d_name))
			continue; /* .sequence and others' files; but our temporaries go */
		e = recover_entry(dfd, de->d_name, out);
		if (e)
			snprintf(err, errlen, "spool %s: recovering %s: %s", dir, de->d_name,
				 strerror(-e));
	}
	if (d)
		closedir(d);
	close(dfd);
	return e;
}
