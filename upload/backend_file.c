// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend_file.c - file:///DIR: objects are files under a local or
 * mounted directory, at DIR/KEY, each written to a temporary, fsync'd and
 * renamed into place, so a reader (or a crash) never sees half of one.
 * Metadata travels in the sidecar object alone. Reading it back (list,
 * get) walks the directory one component at a time and never follows a
 * link: a store on a shared disk may hold links planted by anyone. */
#include "upload/backend.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upload/listing.h"
#include "upload/object.h"

struct upload_backend {
	char *dir;
};

static int file_open(const struct upload_config *cfg, struct upload_backend **out, char *err,
		     size_t errlen)
{
	struct upload_backend *b;

	*out = NULL;
	if (!cfg->dir || cfg->dir[0] != '/') {
		snprintf(err, errlen, "url %s: expected file:///ABSOLUTE/DIR", cfg->url);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b || !(b->dir = strdup(cfg->dir))) {
		free(b);
		return -ENOMEM;
	}
	*out = b;
	return 0;
}

/* make_parents - mkdir -p of @path's directory. */
static int make_parents(char *path)
{
	char *slash;
	int e = 0;

	for (slash = strchr(path + 1, '/'); slash && !e; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0750) && errno != EEXIST)
			e = -errno;
		*slash = '/';
	}
	return e;
}

static int copy_all(int from, int to, uint64_t size)
{
	char buf[65536];
	uint64_t off = 0;
	ssize_t n, w;

	while (off < size) {
		n = pread(from, buf, sizeof(buf), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		for (w = 0; w < n;) {
			ssize_t k = write(to, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			w += k;
		}
		off += (uint64_t)n;
	}
	return 0;
}

static int sync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, e = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		e = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return e;
}

static int store(struct upload_backend *b, const struct upload_object *obj, char *path, char *tmp,
		 size_t len)
{
	int fd = -1, e;

	if (snprintf(path, len, "%s/%s", b->dir, obj->key) >= (int)len ||
	    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid()) >= (int)len)
		return -ENAMETOOLONG;
	e = make_parents(path);
	if (e)
		return e;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	e = copy_all(obj->fd, fd, obj->size);
	if (!e && fsync(fd))
		e = -errno;
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (!e)
		e = sync_dir_of(path);
	if (e)
		unlink(tmp);
	return e;
}

static int file_put(struct upload_backend *b, const struct upload_object *obj,
		    struct upload_result *res)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int e;

	memset(res, 0, sizeof(*res));
	e = store(b, obj, path, tmp, sizeof(path));
	if (!e)
		return 0;
	/* a full or missing disk may come back; a bad path or permission will not */
	res->outcome = e == -ENOSPC || e == -EIO || e == -ENOENT || e == -EDQUOT || e == -ESTALE ||
				       e == -ENOTCONN
			       ? UPLOAD_TRANSIENT
			       : UPLOAD_PERMANENT;
	snprintf(res->msg, sizeof(res->msg), "writing %s/%s: %s%s", b->dir, obj->key, strerror(-e),
		 e == -ENOSPC ? " (disk full)" : "");
	return -EIO;
}

/* --- reading the store: never through a link planted in it ---------------- */

/* A walk's findings: every regular file's key under the listed prefix. */
struct file_walk {
	struct upload_listed *items;
	size_t n, cap;
	char **prefixes;
	size_t nprefixes, prefixes_cap;
};

#define FILE_WALK_MAX (1u << 20) /* entries one listing walks at most */
#define FILE_WALK_DEPTH 16

/* open_under - @rel (a key or a prefix's directory part, "" for the
 * root) under @dirfd, one component at a time, never following a link.
 * Returns an fd (a directory when @dir) or a negative errno. */
static int open_under(int dirfd, const char *rel, bool dir)
{
	char part[NAME_MAX + 1];
	int fd = dup(dirfd), next;
	size_t n;

	if (fd < 0)
		return -errno;
	while (*rel) {
		n = strcspn(rel, "/");
		if (!n || n > NAME_MAX || (n <= 2 && !strncmp(rel, "..", n))) {
			close(fd);
			return -EINVAL;
		}
		memcpy(part, rel, n);
		part[n] = '\0';
		rel += n + (rel[n] == '/');
		/* O_NONBLOCK: a FIFO planted as an object must not hang the reader
		 * (get checks that it is a regular file) */
		next = openat(fd, part,
			      O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
				      (*rel || dir ? O_DIRECTORY : 0));
		close(fd);
		if (next < 0)
			return errno == ELOOP ? -ENOENT : -errno;
		fd = next;
	}
	return fd;
}

static int walk_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void *a;

	if (n < *cap)
		return 0;
	if (n >= FILE_WALK_MAX)
		return -E2BIG;
	a = realloc(*arr, ncap * elem);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = ncap;
	return 0;
}

static int walk_add_file(struct file_walk *w, const char *key, const struct stat *st)
{
	struct upload_listed *it;
	struct tm tm;
	int e = walk_grow((void **)&w->items, &w->cap, w->n, sizeof(*w->items));

	if (e)
		return e;
	it = &w->items[w->n];
	memset(it, 0, sizeof(*it));
	it->key = strdup(key);
	if (!it->key)
		return -ENOMEM;
	w->n++;
	it->size = (uint64_t)st->st_size;
	snprintf(it->etag, sizeof(it->etag), "%llx-%llx-%llx", (unsigned long long)st->st_ino,
		 (unsigned long long)st->st_size,
		 (unsigned long long)st->st_mtim.tv_sec * 1000000000ull +
			 (unsigned long long)st->st_mtim.tv_nsec);
	if (gmtime_r(&st->st_mtim.tv_sec, &tm))
		strftime(it->modified, sizeof(it->modified), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return 0;
}

static int walk_add_prefix(struct file_walk *w, const char *prefix)
{
	int e = walk_grow((void **)&w->prefixes, &w->prefixes_cap, w->nprefixes,
			  sizeof(*w->prefixes));

	if (e)
		return e;
	w->prefixes[w->nprefixes] = malloc(strlen(prefix) + 2);
	if (!w->prefixes[w->nprefixes])
		return -ENOMEM;
	snprintf(w->prefixes[w->nprefixes++], strlen(prefix) + 2, "%s/", prefix);
	return 0;
}

/* skipped - names a listing never shows: dot files and the writer's
 * temporaries (store() above). */
static bool skipped(const char *name)
{
	return name[0] == '.' || strstr(name, ".tmp.");
}

/* walk - the entries of directory @fd (at key @at, "" or "a/b/") whose
 * key starts with @want, into @w: files as items, directories as
 * prefixes when @delimit, else walked into. Links and other file types
 * are not listed. Takes @fd. */
static int walk(int fd, const char *at, const char *want, bool delimit, int depth,
		struct file_walk *w)
{
	char key[UPLOAD_KEY_MAX + 1];
	DIR *d = fdopendir(fd);
	struct dirent *de;
	struct stat st;
	int e = 0, sub;

	if (!d) {
		close(fd);
		return -errno;
	}
	while (!e && (de = readdir(d))) {
		if (skipped(de->d_name) ||
		    snprintf(key, sizeof(key), "%s%s", at, de->d_name) >= (int)sizeof(key) ||
		    strncmp(key, want, strlen(key) < strlen(want) ? strlen(key) : strlen(want)) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode) && !strncmp(key, want, strlen(want)))
			e = walk_add_file(w, key, &st);
		else if (S_ISDIR(st.st_mode) && delimit && strlen(key) >= strlen(want))
			e = walk_add_prefix(w, key);
		else if (S_ISDIR(st.st_mode) && depth < FILE_WALK_DEPTH) {
			sub = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			size_t kl = strlen(key);

			if (sub >= 0 && kl + 1 < sizeof(key)) {
				key[kl] = '/';
				key[kl + 1] = '\0';
				e = walk(sub, key, want, delimit, depth + 1, w);
			} else if (sub >= 0) {
				close(sub);
			}
		}
	}
	closedir(d);
	return e;
}
static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct upload_listed *)a)->key,
		      ((const struct upload_listed *)b)->key);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_free(struct file_walk *w, size_t from)
{
	size_t i;

	for (i = from; i < w->n; i++)
		free(w->items[i].key);
	free(w->items);
	for (i = 0; i < w->nprefixes; i++)
		free(w->prefixes[i]);
	free(w->prefixes);
}

/* walk_page - the walk's items after @token (keys in order), at most
 * @size of them, into @page; the rest are freed. Prefixes all go in the
 * first page. */
static int walk_page(struct file_walk *w, const char *token, unsigned size,
		     struct upload_page *page)
{
	size_t first = 0, i, n;
	bool oom;

	qsort(w->items, w->n, sizeof(*w->items), by_key);
	qsort(w->prefixes, w->nprefixes, sizeof(*w->prefixes), by_name);
	while (token && first < w->n && strcmp(w->items[first].key, token) <= 0)
		free(w->items[first++].key);
	n = w->n - first < size ? w->n - first : size;
	memmove(w->items, w->items + first, n * sizeof(*w->items));
	for (i = first + n; i < w->n; i++)
		free(w->items[i].key);
	if (first + n < w->n && n)
		page->next = strdup(w->items[n - 1].key);
	page->items = w->items;
	page->nitems = n;
	if (!token) {
		page->prefixes = w->prefixes;
		page->nprefixes = w->nprefixes;
	} else {
		for (i = 0; i < w->nprefixes; i++)
			free(w->prefixes[i]);
		free(w->prefixes);
	}
	oom = first + n < w->n && n && !page->next;
	memset(w, 0, sizeof(*w));
	if (oom) /* a page without its next would pass for the last one */
		upload_page__free(page);
	return oom ? -ENOMEM : 0;
}

static int file_list(struct upload_backend *b, const struct upload_list_query *q,
		     struct upload_page *page, struct upload_result *res)
{
	struct file_walk w = { 0 };
	const char *slash = strrchr(q->prefix, '/');
	char at[UPLOAD_KEY_MAX + 1];
	int root = -1, fd = -1, e;

	memset(res, 0, sizeof(*res));
	memset(page, 0, sizeof(*page));
	res->outcome = UPLOAD_PERMANENT;
	/* the walk starts in the prefix's deepest whole directory */
	snprintf(at, sizeof(at), "%.*s", slash ? (int)(slash - q->prefix + 1) : 0, q->prefix);
	root = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = root < 0 ? -errno : 0;
	if (!e) {
		fd = open_under(root, at, true);
		e = fd < 0 ? fd : 0;
	}
	if (e == -ENOENT && root >= 0)
		e = 0; /* nothing under that prefix */
	else if (!e)
		e = walk(fd, at, q->prefix, q->delimit, 0, &w);
	if (root >= 0)
		close(root);
	if (e) {
		walk_free(&w, 0);
		snprintf(res->msg, sizeof(res->msg), "listing %s/%.200s: %s", b->dir, q->prefix,
			 e == -E2BIG ? "more than a million entries" : strerror(-e));
		return -EIO;
	}
	if (walk_page(&w, q->token, q->page_size ? q->page_size : 1000, page)) {
		snprintf(res->msg, sizeof(res->msg), "listing %s/%.200s: out of memory", b->dir,
			 q->prefix);
		return -EIO;
	}
	return 0;
}

static int file_get(struct upload_backend *b, const char *key, int fd, uint64_t max,
		    struct upload_result *res)
{
	int root, in = -1, e;
	struct stat st;

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	root = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = root < 0 ? -errno : 0;
	if (!e) {
		in = open_under(root, key, false);
		e = in < 0 ? in : 0;
	}
	if (!e && fstat(in, &st))
		e = -errno;
	if (!e && !S_ISREG(st.st_mode))
		e = -EINVAL;
	if (!e && (uint64_t)st.st_size > max)
		e = -EFBIG;
	if (!e)
		e = copy_all(in, fd, (uint64_t)st.st_size);
	if (in >= 0)
		close(in);
	if (root >= 0)
		close(root);
	if (e == -ENOENT)
		res->http_status = 404; /* as a web store says it: no such object */
	if (e)
		snprintf(res->msg, sizeof(res->msg), "reading %s/%.300s: %s", b->dir, key,
			 e == -EINVAL ? "not a regular file" : strerror(-e));
	return e ? -EIO : 0;
}

static void file_close(struct upload_backend *b)
{
	if (!b)
		return;
	free(b->dir);
	free(b);
}

const struct upload_backend_ops upload_backend_file = {
	.name = "file",
	.open = file_open,
	.put = file_put,
	.list = file_list,
	.get = file_get,
	.close = file_close,
};
