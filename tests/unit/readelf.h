/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* readelf.h - what binutils' readelf says about a test binary, as the
 * reference the ELF reader and the symbolizer are checked against.
 * Include after <cmocka.h>. */
#ifndef TRAPD_TEST_READELF_H
#define TRAPD_TEST_READELF_H

#include <stdio.h>
#include <string.h>

/* readelf_build_id - the GNU build ID of @path, lower-case hex. */
static void readelf_build_id(const char *path, char *out, size_t len)
{
	char cmd[4200], line[1024], *p;
	FILE *f;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "Build ID: ");
		if (p) {
			p += strlen("Build ID: ");
			p[strcspn(p, " \n")] = '\0';
			snprintf(out, len, "%s", p);
		}
	}
	pclose(f);
	assert_true(out[0] != '\0');
}

#endif
