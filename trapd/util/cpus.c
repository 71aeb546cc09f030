// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cpus.c - the online CPUs from /sys/devices/system/cpu/online. */
#include "trapd/util/cpus.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int cpus_parse(const char *text, int *cpus, int max)
{
	const char *p = text;
	char *end;
	int n = 0;

	while (*p && *p != '\n') {
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || errno || lo < 0 || lo > INT_MAX)
			return -EINVAL;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo || hi > INT_MAX)
				return -EINVAL;
		}
		if (*end && *end != ',' && *end != '\n')
			return -EINVAL;
		for (; lo <= hi; lo++) {
			if (n >= max)
				return -E2BIG;
			if (cpus)
				cpus[n] = (int)lo;
			n++;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* read_list - the kernel's list of online CPUs into @buf. */
static int read_list(char *buf, size_t len)
{
	FILE *f = fopen(CPUS_ONLINE_PATH, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = -EIO;
	fclose(f);
	return err;
}

int cpus_online(int *cpus, int max)
{
	char buf[4096];
	int err = read_list(buf, sizeof(buf));

	return err ? err : cpus_parse(buf, cpus, max);
}

int cpus_online_count(void)
{
	int n = cpus_online(NULL, INT_MAX);

	return n > 0 ? n : 1;
}
