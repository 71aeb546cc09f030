// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_perfmap.c - libFuzzer harness: the input is the text of a JIT
 * perf map (/tmp/perf-PID.map), which the target process writes. Parsing
 * must never crash or hang, and what it keeps must hold the parser's
 * promises: non-empty ranges sorted by start, names NUL-terminated and
 * bounded, the index of highest ends right, and lookups that return the
 * symbol of a line that holds the address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct perfmap *m)
{
	uint64_t max = 0;
	size_t i;

	if (m->n > PERFMAP_MAX_ENTRIES)
		__builtin_trap();
	for (i = 0; i < m->n; i++) {
		const struct perfmap_sym *s = &m->syms[i];

		if (s->start >= s->end || strlen(m->names + s->name) > PERFMAP_MAX_NAME)
			__builtin_trap();
		if (i && s->start < m->syms[i - 1].start)
			__builtin_trap();
		if (s->end > max)
			max = s->end;
		if (m->max_end[i] != max)
			__builtin_trap();
	}
}

/* check_lookups - at each symbol's first and last byte, a name that
 * belongs to some symbol holding the address. */
static void check_lookups(const struct perfmap *m)
{
	size_t i, j, probes = m->n < 64 ? m->n : 64;

	for (i = 0; i < probes; i++) {
		uint64_t addrs[2] = { m->syms[i].start, m->syms[i].end - 1 };

		for (j = 0; j < 2; j++) {
			const char *name = perfmap__lookup(m, addrs[j]);
			size_t k;

			if (!name)
				continue;
			for (k = 0; k < m->n; k++)
				if (m->names + m->syms[k].name == name &&
				    m->syms[k].start <= addrs[j] && addrs[j] < m->syms[k].end)
					break;
			if (k == m->n)
				__builtin_trap();
		}
	}
}

/* check_status - the same bytes as /proc/PID/status (which a fixture
 * /proc root can hold anything in): the owner found is in range. */
static void check_status(const uint8_t *data, size_t size)
{
	struct perfmap_owner o;
	char *buf = malloc(size + 2);

	if (!buf)
		return;
	buf[0] = '\n';
	memcpy(buf + 1, data, size);
	buf[size + 1] = '\0';
	perfmap__parse_status(buf, 42, &o);
	if (o.nspid <= 0 || o.nspid > 0x400000 || o.ruid < -1 || o.euid < -1 ||
	    o.ruid > 0xfffffffe || o.euid > 0xfffffffe)
		__builtin_trap();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap m;

	check_status(data, size);
	if (perfmap__parse((const char *)data, size, &m))
		return 0;
	check(&m);
	check_lookups(&m);
	perfmap__free(&m);
	return 0;
}
