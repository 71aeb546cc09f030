// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* psi.c - pressure files, PSI triggers and custom-window stall shares. */
#include "rules/psi.h"
#include "rules/errmsg.h"
#include "rules/file_cache.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rules/proc_stat.h"

#define PSI_FILE_MAX 1024     /* a pressure file is two short lines */
#define AVG_MAX_WHOLE 1000000 /* far above 100%: a bigger figure is garbage */

/* parse_avg - "12.34" (at most two decimals) as 1234. */
static int parse_avg(const char **s, uint32_t *out)
{
	uint64_t whole, frac = 0;
	int digits = 0;

	if (proc_stat_parse_u64(s, &whole) || whole > AVG_MAX_WHOLE)
		return -EINVAL;
	if (**s == '.') {
		for ((*s)++; isdigit((unsigned char)**s); (*s)++, digits++) {
			if (digits == 2)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(**s - '0');
		}
		if (digits == 0)
			return -EINVAL;
	}
	if (digits == 1)
		frac *= 10;
	*out = (uint32_t)(whole * 100 + frac);
	return 0;
}

/* parse_field - the value of @key (@klen bytes) at *@p into @l, moving
 * *@p past it; a key PSI may add later is skipped. */
static int parse_field(const char *key, size_t klen, const char **p, struct psi_line *l,
		       unsigned int *seen)
{
	static const char *const keys[] = { "avg10", "avg60", "avg300", "total" };
	uint32_t *avgs[] = { &l->avg10, &l->avg60, &l->avg300 };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (klen != strlen(keys[i]) || strncmp(key, keys[i], klen))
			continue;
		if (i < 3 ? parse_avg(p, avgs[i]) : proc_stat_parse_u64(p, &l->total_us))
			return -EINVAL;
		*seen |= 1u << i;
		return 0;
	}
	while (**p && **p != ' ' && **p != '\n')
		(*p)++;
	return 0;
}

/* parse_line - the fields after "some " or "full ", up to the end of the
 * line; *end points at the '\n' or NUL that ends it. */
static int parse_line(const char *p, struct psi_line *l, const char **end)
{
	unsigned int seen = 0;

	for (;;) {
		const char *key = p;

		while (*p && *p != '=' && *p != ' ' && *p != '\n')
			p++;
		if (*p != '=')
			return -EINVAL;
		p++;
		if (parse_field(key, (size_t)(p - 1 - key), &p, l, &seen))
			return -EINVAL;
		if (*p != ' ')
			break;
		p++;
	}
	*end = p;
	if ((*p && *p != '\n') || seen != 15)
		return -EINVAL;
	l->present = true;
	return 0;
}

int psi_parse(const char *text, struct psi_stat *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	while (*p) {
		struct psi_line *l;

		if (*p == '\n') {
			p++;
			continue;
		}
		if (!strncmp(p, "some ", 5))
			l = &out->some;
		else if (!strncmp(p, "full ", 5))
			l = &out->full;
		else
			return -EINVAL;
		if (l->present || parse_line(p + 5, l, &p))
			return -EINVAL;
	}
	return out->some.present || out->full.present ? 0 : -EINVAL;
}

int psi_read(const char *path, struct psi_stat *out, char *err, size_t errlen)
{
	return psi_read_cached(NULL, path, out, err, errlen);
}

int psi_read_cached(struct file_cache *files, const char *path, struct psi_stat *out, char *err,
		    size_t errlen)
{
	char buf[PSI_FILE_MAX];
	int ret;

	memset(out, 0, sizeof(*out));
	ret = file_cache__read(files, path, buf, sizeof(buf), NULL);
	if (ret == -ENOENT)
		return errmsg_fail(err, errlen, ret, "%s: no such file", path);
	if (ret)
		return errmsg_fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
	if (psi_parse(buf, out))
		return errmsg_fail(
			err, errlen, -EINVAL,
			"%s: not a pressure file ('some|full avg10=A avg60=A avg300=A total=N')",
			path);
	return 0;
}

int psi_trigger_open(const char *path, bool full, uint64_t stall_us, uint64_t window_us, char *err,
		     size_t errlen)
{
	struct statfs fs;
	char trig[64];
	int fd, ret;

	snprintf(trig, sizeof(trig), "%s %llu %llu", full ? "full" : "some",
		 (unsigned long long)stall_us, (unsigned long long)window_us);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errmsg_fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	/* a copy of a pressure file (a fixture) would take the write */
	if (fstatfs(fd, &fs) ||
	    (fs.f_type != PROC_SUPER_MAGIC && fs.f_type != CGROUP2_SUPER_MAGIC)) {
		close(fd);
		return errmsg_fail(err, errlen, -EOPNOTSUPP,
				   "%s: not a kernel pressure file (on procfs or cgroup2)", path);
	}
	/* the kernel reads the trigger as a C string: the NUL goes too */
	if (write(fd, trig, strlen(trig) + 1) >= 0)
		return fd;
	ret = -errno;
	close(fd);
	if (ret == -EINVAL || ret == -EPERM)
		return errmsg_fail(
			err, errlen, ret,
			"%s: the kernel refused PSI trigger '%s' (%s): it takes windows of "
			"500ms..10s and a stall within the window, and without "
			"CAP_SYS_RESOURCE only windows that are multiples of 2s",
			path, trig, strerror(-ret));
	return errmsg_fail(err, errlen, ret, "%s: PSI trigger '%s': %s", path, trig,
			   strerror(-ret));
}

void psi_ring_reset(struct psi_ring *ring)
{
	ring->head = 0;
	ring->n = 0;
}

static void ring_push(struct psi_ring *ring, int64_t t_ns, uint64_t total_us)
{
	struct psi_reading *slot;

	if (ring->n == PSI_RING_MAX) {
		ring->head = (ring->head + 1) % PSI_RING_MAX;
		ring->n--;
	}
	slot = &ring->r[(ring->head + ring->n) % PSI_RING_MAX];
	slot->t_ns = t_ns;
	slot->total_us = total_us;
	ring->n++;
}

int psi_ring_share(struct psi_ring *ring, int64_t now_ns, uint64_t total_us, uint64_t window_ns,
		   int64_t *share)
{
	const struct psi_reading *newest = NULL, *r;
	uint64_t step = window_ns / PSI_RING_STEP_DIV;
	unsigned __int128 v;
	int ret = -EAGAIN;
	size_t i;

	if (ring->n) {
		newest = &ring->r[(ring->head + ring->n - 1) % PSI_RING_MAX];
		if (total_us < newest->total_us || now_ns < newest->t_ns) {
			psi_ring_reset(ring);
			ring_push(ring, now_ns, total_us);
			return -ESTALE;
		}
	}
	for (i = ring->n; i-- > 0;) {
		r = &ring->r[(ring->head + i) % PSI_RING_MAX];
		if ((uint64_t)now_ns - (uint64_t)r->t_ns < window_ns || now_ns == r->t_ns)
			continue;
		v = (unsigned __int128)(total_us - r->total_us) * 10000000u /
		    ((uint64_t)now_ns - (uint64_t)r->t_ns);
		*share = v > INT64_MAX ? INT64_MAX : (int64_t)v;
		ret = 0;
		break;
	}
	if (!newest || (uint64_t)now_ns - (uint64_t)newest->t_ns >= (step ? step : 1))
		ring_push(ring, now_ns, total_us);
	return ret;
}
