// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* atomic_file.c - a temporary file in the destination's directory, fsync,
 * rename, fsync the directory; all relative to one descriptor of that
 * directory, so the path is resolved once (atomic_file.h). */
#include "trapd/util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TEMP_TRIES 8

/* A destination: its directory open, and the last component. */
struct dest {
	const char *path;
	int dfd;
	char dir[4096];
	const char *base;
};

static const char *errno_hint(int err)
{
	if (err == -ENOSPC)
		return " (disk full)";
	if (err == -EDQUOT)
		return " (disk quota exceeded)";
	return "";
}

bool atomic_file_is_stdout(const char *path)
{
	return !strcmp(path, "-") || !strcmp(path, "/dev/stdout");
}

bool atomic_file_is_stream(const char *path)
{
	struct stat st;

	return atomic_file_is_stdout(path) || (!lstat(path, &st) && S_ISCHR(st.st_mode));
}

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

/* dest_open - split @path and open its directory. */
static int dest_open(struct dest *d, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	int e;

	d->path = path;
	d->dfd = -1;
	d->base = slash ? slash + 1 : path;
	if (!*d->base || !strcmp(d->base, ".") || !strcmp(d->base, "..")) {
		snprintf(err, errlen, "%s: not a file name", path);
		return -EISDIR;
	}
	if (!slash)
		snprintf(d->dir, sizeof(d->dir), ".");
	else if ((size_t)snprintf(d->dir, sizeof(d->dir), "%.*s",
				  slash == path ? 1 : (int)(slash - path), path) >= sizeof(d->dir))
		return -ENAMETOOLONG;
	/* the directory part is the caller's choice, links and all */
	d->dfd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dfd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s: directory %s: %s", path, d->dir, strerror(-e));
		return e;
	}
	return 0;
}

static void dest_close(struct dest *d)
{
	if (d->dfd >= 0)
		close(d->dfd);
	d->dfd = -1;
}

/* dest_check - what is at the destination now may be replaced (0), or
 * is a character device to write in place (1). */
static int dest_check(const struct dest *d, char *err, size_t errlen)
{
	struct stat st, dst;

	if (fstatat(d->dfd, d->base, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISCHR(st.st_mode))
		return 1; /* written in place */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s: exists and is %s; not written through (only - or /dev/stdout "
			 "write to a stream)",
			 d->path, kind_of(st.st_mode));
		return -EEXIST;
	}
	if (fstat(d->dfd, &dst))
		return -errno;
	if ((dst.st_mode & S_ISVTX) && st.st_uid != geteuid() && st.st_uid != dst.st_uid) {
		snprintf(err, errlen,
			 "%s: %s of uid %u in the sticky directory %s; not replaced (remove it "
			 "or choose another name)",
			 d->path, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file",
			 (unsigned)st.st_uid, d->dir);
		return -EPERM;
	}
	return 0;
}

int atomic_file_check(const char *path, char *err, size_t errlen)
{
	struct dest d;
	int e;

	if (atomic_file_is_stdout(path))
		return 0;
	e = dest_open(&d, path, err, errlen);
	if (!e)
		e = dest_check(&d, err, errlen);
	if (e > 0)
		e = 0;
	if (e && e != -EEXIST && e != -EPERM && d.dfd >= 0)
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
	dest_close(&d);
	return e;
}

/* fill_and_close - run @fill into @f, flush and (when @sync) fsync it, and
 * close it; the first error wins. */
static int fill_and_close(FILE *f, atomic_file_fill fill, void *ctx, int sync)
{
	int ret;

	errno = 0;
	ret = fill(f, ctx);
	if (!ret && fflush(f))
		ret = -errno;
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	/* Some file systems report a full disk only when data is synced. */
	if (!ret && sync && fsync(fileno(f)) && errno != EINVAL)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = errno ? -errno : -EIO;
	return ret;
}

/* open_temp - a new file BASE.tmp.PID.RANDOM in @d's directory: O_EXCL
 * and O_NOFOLLOW, so nothing planted at the name is ever opened; a name
 * taken (by a plant or a leftover) is passed over for another. */
static int open_temp(const struct dest *d, char *tmp, size_t len)
{
	uint32_t r;
	int i, fd = -EEXIST;

	for (i = 0; i < TEMP_TRIES && fd == -EEXIST; i++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (uint32_t)time(NULL) * 2654435761u + (uint32_t)i;
		if ((size_t)snprintf(tmp, len, "%s.tmp.%ld.%08x", d->base, (long)getpid(), r) >=
		    len)
			return -ENAMETOOLONG;
		fd = openat(d->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

static int write_stdout(atomic_file_fill fill, void *ctx, char *err, size_t errlen)
{
	int ret;

	errno = 0;
	ret = fill(stdout, ctx);
	if (!ret && fflush(stdout))
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "stdout: %s", strerror(-ret));
	return ret;
}

/* write_device - the character device at @d, in place. O_NONBLOCK and
 * the check after opening: had it become a FIFO meanwhile, the open
 * neither waits for a reader nor gets written. */
static int write_device(const struct dest *d, atomic_file_fill fill, void *ctx, char *err,
			size_t errlen)
{
	struct stat st;
	FILE *f;
	int fd, ret;

	fd = openat(d->dfd, d->base, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", d->path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(f = fdopen(fd, "w"))) {
		close(fd);
		snprintf(err, errlen, "%s: changed while being opened; not written", d->path);
		return -EAGAIN;
	}
	ret = fill_and_close(f, fill, ctx, 0);
	if (ret)
		snprintf(err, errlen, "%s: writing: %s%s", d->path, strerror(-ret),
			 errno_hint(ret));
	return ret;
}

/* replace - the filled temporary @tmp over the destination. */
static int replace(const struct dest *d, const char *tmp, const char **step, char *err,
		   size_t errlen)
{
	int ret;

	/* again, just before: what is there may have changed while we wrote */
	*step = "checking the destination";
	ret = dest_check(d, err, errlen);
	if (ret > 0) {
		snprintf(err, errlen, "%s: became a device while being written; not replaced",
			 d->path);
		return -EEXIST;
	}
	if (ret)
		return ret;
	*step = "renaming the temporary file over it";
	if (renameat(d->dfd, tmp, d->dfd, d->base))
		return -errno;
	*step = "syncing its directory";
	if (fsync(d->dfd) && errno != EINVAL) /* EINVAL: cannot sync directories */
		return -errno;
	return 0;
}

int atomic_file_write(const char *path, atomic_file_fill fill, void *ctx, char *err, size_t errlen)
{
	const char *step = "checking the destination";
	char tmp[NAME_MAX + 1] = "";
	struct dest d;
	FILE *f = NULL;
	int fd = -1, ret;

	if (atomic_file_is_stdout(path))
		return write_stdout(fill, ctx, err, errlen);
	ret = dest_open(&d, path, err, errlen);
	if (ret)
		return ret;
	ret = dest_check(&d, err, errlen);
	if (ret > 0) {
		ret = write_device(&d, fill, ctx, err, errlen);
		goto out;
	}
	if (ret == -EEXIST || ret == -EPERM)
		goto out; /* @err says it all */
	if (ret)
		goto cleanup;
	step = "creating a temporary file";
	fd = open_temp(&d, tmp, sizeof(tmp));
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = fd < 0 ? fd : -errno;
		if (fd < 0)
			tmp[0] = '\0'; /* none of ours to remove */
		goto cleanup;
	}
	fd = -1;
	step = "writing a temporary file";
	ret = fill_and_close(f, fill, ctx, 1);
	if (!ret)
		ret = replace(&d, tmp, &step, err, errlen);
	if (!ret)
		tmp[0] = '\0';
	if (ret == -EEXIST || ret == -EPERM)
		goto out;
cleanup:
	if (ret)
		snprintf(err, errlen, "%s: %s: %s%s", path, step, strerror(-ret), errno_hint(ret));
out:
	if (fd >= 0)
		close(fd);
	if (tmp[0])
		unlinkat(d.dfd, tmp, 0);
	dest_close(&d);
	return ret;
}

struct bytes {
	const void *data;
	size_t len;
};

static int fill_bytes(FILE *f, void *ctx)
{
	const struct bytes *b = ctx;

	if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
		return errno ? -errno : -EIO;
	return 0;
}

int atomic_file_write_or_stdout(const char *path, atomic_file_fill fill, void *ctx, char *err,
				size_t errlen)
{
	return atomic_file_write(path, fill, ctx, err, errlen);
}

int atomic_file_write_bytes(const char *path, const void *data, size_t len, char *err,
			    size_t errlen)
{
	struct bytes b = { data, len };

	return atomic_file_write(path, fill_bytes, &b, err, errlen);
}
