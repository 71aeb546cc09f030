// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_demangle.c - libFuzzer harness: the input is a symbol name from a
 * target's ELF file, demangled as it is and as a C++ ("_Z") and a Rust
 * v0 ("_R") symbol. Demangling must never crash, hang or overflow the
 * stack, and must keep its promises: a NUL-terminated result within the
 * bounds, "" on an error, and the cache answering as the function does. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct demangle_cache *cache;

static void check(const char *name)
{
	static char out[DEMANGLE_MAX_OUTPUT + 1];
	const char *shown;
	int err;

	memset(out, 'x', sizeof(out));
	err = demangle__name(name, out, sizeof(out));
	if (!memchr(out, '\0', sizeof(out)))
		__builtin_trap();
	if (err && (out[0] || (err != -EINVAL && err != -E2BIG && err != -ENOSPC)))
		__builtin_trap();
	if (!err && (!out[0] || strlen(name) > DEMANGLE_MAX_INPUT))
		__builtin_trap();
	shown = demangle_cache__get(cache, name);
	if (err ? shown != name : strcmp(shown, out) != 0)
		__builtin_trap();
	/* a small buffer: cut names are refused, never returned cut */
	err = demangle__name(name, out, 16);
	if (!err && strlen(out) > 15)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name;

	if (!cache)
		cache = demangle_cache__new(256);
	if (!cache || size > 2 * DEMANGLE_MAX_INPUT)
		return 0;
	name = malloc(size + 3);
	if (!name)
		return 0;
	memcpy(name + 2, data, size);
	name[size + 2] = '\0';
	check(name + 2); /* stops at an embedded NUL, as a symbol table's name does */
	memcpy(name, "_Z", 2);
	check(name);
	name[1] = 'R';
	check(name);
	free(name);
	return 0;
}
