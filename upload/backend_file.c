// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend_file.c - file:///DIR: objects are files under a local or
 * mounted directory, at DIR/KEY, each written to a temporary, fsync'd and
 * renamed into place, so a reader (or a crash) never sees half of one.
 * Metadata travels in the sidecar object alone. */
#include "upload/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	.close = file_close,
};
