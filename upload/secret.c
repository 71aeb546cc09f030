// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* secret.c - credentials from files or the environment (secret.h). */
#include "upload/secret.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* room for a secret of UPLOAD_SECRET_MAX bytes and the whitespace around
 * it (a trailing newline from echo) */
#define SECRET_BUF (UPLOAD_SECRET_MAX + 64)

static int from_file(const char *path, const char *what, char *buf, size_t len, char *err,
		     size_t errlen)
{
	struct stat st;
	size_t got = 0;
	ssize_t n = 1;
	int fd, e = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s_file %s: %s", what, path, strerror(-e));
		return e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		e = -EINVAL;
		snprintf(err, errlen, "%s_file %s: not a regular file", what, path);
	} else if (st.st_mode & (S_IRWXO | S_IWGRP)) {
		e = -EPERM;
		snprintf(err, errlen,
			 "%s_file %s: others can read or change it (mode %04o); "
			 "chmod 600 it",
			 what, path, (unsigned)(st.st_mode & 07777));
	}
	while (!e && got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += (size_t)n;
	if (!e && n < 0) {
		e = -errno;
		snprintf(err, errlen, "%s_file %s: %s", what, path, strerror(-e));
	} else if (!e && got == len) {
		e = -EFBIG;
		snprintf(err, errlen, "%s_file %s: longer than %d bytes", what, path,
			 UPLOAD_SECRET_MAX);
	}
	close(fd);
	if (!e)
		buf[got] = '\0';
	return e;
}

int upload_secret__read(const struct upload_secret_source *src, const char *what, char **out,
			char *err, size_t errlen)
{
	char *buf, *start;
	const char *env;
	size_t n;
	int e = 0;

	*out = NULL;
	if (!src->file && !src->env)
		return -ENOENT;
	buf = calloc(1, SECRET_BUF);
	if (!buf)
		return -ENOMEM;
	if (src->file) {
		e = from_file(src->file, what, buf, SECRET_BUF, err, errlen);
	} else if (!(env = getenv(src->env))) {
		e = -ENOENT;
		snprintf(err, errlen, "%s_env: the environment has no %s", what, src->env);
	} else if (strlen(env) >= SECRET_BUF) {
		e = -EFBIG;
		snprintf(err, errlen, "%s_env %s: longer than %d bytes", what, src->env,
			 UPLOAD_SECRET_MAX);
	} else {
		snprintf(buf, SECRET_BUF, "%s", env);
	}
	start = buf;
	while (!e && isspace((unsigned char)*start))
		start++;
	n = e ? 0 : strlen(start);
	while (n && isspace((unsigned char)start[n - 1]))
		n--;
	if (!e && n > UPLOAD_SECRET_MAX) {
		e = -EFBIG;
		snprintf(err, errlen, "%s: %s %s: longer than %d bytes", what,
			 src->file ? "file" : "variable", src->file ? src->file : src->env,
			 UPLOAD_SECRET_MAX);
	} else if (!e && !n) {
		e = -EINVAL;
		snprintf(err, errlen, "%s: %s %s is empty", what, src->file ? "file" : "variable",
			 src->file ? src->file : src->env);
	}
	if (!e) {
		memmove(buf, start, n);
		buf[n] = '\0';
		*out = buf;
		return 0;
	}
	upload_secret__free(buf);
	return e == -ENOENT && !src->file && !src->env ? -ENOENT : e == -ENOENT ? -EINVAL : e;
}

void upload_secret__free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, SECRET_BUF); /* every secret has this size */
	free(s);
}
