/* atomic_file.c - temporary file, fsync, rename, fsync the directory. */
#include "trapd/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *errno_hint(int err)
{
	if (err == -ENOSPC)
		return " (disk full)";
	if (err == -EDQUOT)
		return " (disk quota exceeded)";
	return "";
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

/* sync_dir - fsync the directory holding @path so the rename is durable. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, ret = 0;

	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		ret = -errno;
	else if (fsync(fd) && errno != EINVAL) /* EINVAL: cannot sync directories */
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return ret;
}

static int write_in_place(const char *path, atomic_file_fill fill, void *ctx, char *err,
			  size_t errlen)
{
	FILE *f = fopen(path, "we");
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = fill_and_close(f, fill, ctx, 0);
	if (ret)
		snprintf(err, errlen, "%s: writing: %s%s", path, strerror(-ret), errno_hint(ret));
	return ret;
}

int atomic_file_write(const char *path, atomic_file_fill fill, void *ctx, char *err,
		      size_t errlen)
{
	size_t tmplen = strlen(path) + 32;
	const char *step = "creating a temporary file";
	char *tmp = NULL;
	struct stat st;
	FILE *f = NULL;
	int fd = -1, ret;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_in_place(path, fill, ctx, err, errlen);
	tmp = malloc(tmplen);
	if (!tmp) {
		ret = -ENOMEM;
		goto cleanup;
	}
	snprintf(tmp, tmplen, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		goto cleanup;
	}
	fd = -1;
	step = "writing a temporary file";
	ret = fill_and_close(f, fill, ctx, 1);
	if (ret)
		goto cleanup;
	step = "renaming the temporary file over it";
	if (rename(tmp, path)) {
		ret = -errno;
		goto cleanup;
	}
	step = "syncing its directory";
	ret = sync_dir(path);
	free(tmp);
	tmp = NULL;
cleanup:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	if (ret)
		snprintf(err, errlen, "%s: %s: %s%s", path, step, strerror(-ret), errno_hint(ret));
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
	int ret;

	if (strcmp(path, "-"))
		return atomic_file_write(path, fill, ctx, err, errlen);
	errno = 0;
	ret = fill(stdout, ctx);
	if (!ret && fflush(stdout))
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "stdout: %s", strerror(-ret));
	return ret;
}

int atomic_file_write_bytes(const char *path, const void *data, size_t len, char *err,
			    size_t errlen)
{
	struct bytes b = { data, len };

	return atomic_file_write(path, fill_bytes, &b, err, errlen);
}
