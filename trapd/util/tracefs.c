// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* tracefs.c - find (or mount) tracefs and read tracepoint formats. */
#include "trapd/util/tracefs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static const char *const candidates[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static int has_events(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events", dir);
	return access(path, F_OK) == 0;
}

const char *tracefs_dir(void)
{
	size_t i;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (has_events(candidates[i]))
			return candidates[i];
	if (mount("nodev", candidates[0], "tracefs", 0, NULL) == 0 && has_events(candidates[0]))
		return candidates[0];
	if (!errno)
		errno = ENOENT;
	return NULL;
}

/* parse_number - the decimal after @key (like "offset:") in @line. */
static int parse_number(const char *line, const char *key, int *out)
{
	const char *p = strstr(line, key);
	char *end;
	long v;

	if (!p)
		return -ENOENT;
	p += strlen(key);
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || end == p || *end != ';' || v < 0 || v > 65535)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* field_matches - whether a format line declares @field: "field:TYPE NAME;"
 * where NAME may carry an array suffix. */
static int field_matches(const char *line, const char *field)
{
	const char *decl = strstr(line, "field:"), *semi, *name;
	size_t len = strlen(field);

	if (!decl || !(semi = strchr(decl, ';')))
		return 0;
	for (name = semi; name > decl && name[-1] != ' ' && name[-1] != '\t'; name--)
		;
	return (size_t)(semi - name) >= len && strncmp(name, field, len) == 0 &&
	       (name[len] == ';' || name[len] == '[');
}

int tracefs_field_offset(const char *dir, const char *event, const char *field, int *size_out)
{
	char path[PATH_MAX], line[512];
	int ret = -ENOENT, off, size;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/format", dir, event) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		if (!field_matches(line, field))
			continue;
		ret = parse_number(line, "offset:", &off);
		if (!ret && size_out)
			ret = parse_number(line, "size:", &size);
		if (!ret && size_out)
			*size_out = size;
		if (!ret)
			ret = off;
	}
	fclose(f);
	return ret;
}
