// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* read_all.c - read a whole fd under a cap (read_all.h). */
#include "trapd/util/read_all.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* grow - from 4 KiB, doubling, to @limit bytes (+1 for the NUL). */
static int grow(char **buf, size_t *cap, size_t limit)
{
	size_t ncap = !*cap ? 4096 : *cap < limit / 2 ? *cap * 2 : limit;
	char *n;

	if (ncap > limit)
		ncap = limit;
	n = realloc(*buf, ncap + 1);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap;
	return 0;
}

int read_all(int fd, size_t max, char **out, size_t *len, bool *truncated)
{
	/* one byte past @max tells a file of exactly @max from a longer one */
	size_t limit = max < SIZE_MAX - 1 ? max + 1 : SIZE_MAX - 1, cap = 0, n = 0;
	char *buf = NULL;
	bool over;
	ssize_t r;
	int ret = 0;

	for (;;) {
		if (n == cap && (ret = grow(&buf, &cap, limit)))
			break;
		if (n == cap)
			break; /* read one byte past @max */
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : 0;
			break;
		}
		n += (size_t)r;
	}
	over = !ret && n > max;
	if (over) {
		if (!truncated)
			ret = -EFBIG;
		n = max;
	}
	if (truncated)
		*truncated = over;
	if (ret) {
		free(buf);
		return ret;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
