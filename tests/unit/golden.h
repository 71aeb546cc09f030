/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* golden.h - compare a test's output with a file under tests/data/golden.
 *
 * Files are found relative to $TRAPD_SRCDIR (default: the current
 * directory, the top of the tree when run by `make unit`). With
 * TRAPD_UPDATE_GOLDEN=1 the file is (re)written instead; review the diff
 * before committing it.
 */
#ifndef TRAPD_TESTS_GOLDEN_H
#define TRAPD_TESTS_GOLDEN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* golden_capture - a memory stream for a writer under test; golden_text
 * closes it and returns the malloc'd text (free it). */
struct golden_buf {
	FILE *f;
	char *text;
	size_t len;
};

static inline FILE *golden_open(struct golden_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->f = open_memstream(&b->text, &b->len);
	if (!b->f)
		fail_msg("open_memstream failed");
	return b->f;
}

static inline char *golden_text(struct golden_buf *b)
{
	fclose(b->f);
	b->f = NULL;
	return b->text;
}

static inline void golden_check(const char *name, const char *actual)
{
	const char *dir = getenv("TRAPD_SRCDIR");
	char path[512], *want = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/golden/%s", dir ? dir : ".", name);
	if (getenv("TRAPD_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		if (!f || fputs(actual, f) < 0 || fclose(f))
			fail_msg("cannot write %s", path);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s (run from the top of the tree or set TRAPD_SRCDIR)", path);
	if (getdelim(&want, &len, '\0', f) < 0)
		want = strdup("");
	fclose(f);
	if (strcmp(want, actual))
		print_error("%s differs; got:\n%s\n", path, actual);
	assert_string_equal(actual, want);
	free(want);
}

#endif
