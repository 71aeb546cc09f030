// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_procmaps.c - libFuzzer harness: the input is the text of a
 * /proc/PID/maps file. Parsing must never crash, and whatever it keeps
 * must hold the parser's promises (start < end, bounded NUL-terminated
 * paths, executable entries only when asked). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct procmaps *m, unsigned int flags)
{
	size_t i;

	if (m->n > PROCMAPS_MAX_ENTRIES)
		__builtin_trap();
	for (i = 0; i < m->n; i++) {
		const struct procmaps_entry *e = &m->entries[i];

		if (e->start >= e->end || strlen(e->path) > PROCMAPS_MAX_PATH)
			__builtin_trap();
		if ((flags & PROCMAPS_EXEC_ONLY) && !(e->perms & PROCMAPS_EXEC))
			__builtin_trap();
		if ((e->kind == PROCMAPS_ANON) != (e->path[0] == '\0'))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PROCMAPS_MAX_PATH + 1];
	struct procmaps_entry e;
	struct procmaps m;
	const char *nl;

	if (procmaps__parse((const char *)data, size, 0, &m) == 0) {
		check(&m, 0);
		procmaps__free(&m);
	}
	if (procmaps__parse((const char *)data, size, PROCMAPS_EXEC_ONLY, &m) == 0) {
		check(&m, PROCMAPS_EXEC_ONLY);
		procmaps__free(&m);
	}
	/* the first line alone, through the single-line entry point */
	nl = memchr(data, '\n', size);
	if (procmaps__parse_line((const char *)data, nl ? (size_t)(nl - (const char *)data) : size,
				 &e, path) == 0 &&
	    (e.start >= e.end || e.path != path))
		__builtin_trap();
	return 0;
}
