/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* demangle.h - the readable names of C++ and Rust symbols, as perf, c++filt
 * and rustfilt show them: "_ZN2v87Context6GlobalEv" is shown as
 * "v8::Context::Global()". The profile keeps both: the readable name as a
 * function's name, the symbol as its system_name (pprof's convention).
 *
 * Names come from the target's files: hostile input. libiberty's
 * demangler (Debian's libiberty-dev) does the work with its recursion
 * limit on; around it, a name longer than DEMANGLE_MAX_INPUT is not
 * demangled (the demangler's stack use grows with the name's length) and
 * a demangled name that would pass DEMANGLE_MAX_OUTPUT is not kept.
 *
 * Understood: the Itanium C++ ABI ("_Z...", GCC and Clang), Rust's legacy
 * mangling ("_ZN...17h<hash>E", shown without its "::h<hash>", as rustfilt
 * does) and Rust's v0 ("_R...").
 */
#ifndef TRAPD_DEMANGLE_H
#define TRAPD_DEMANGLE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a mangled name; longer ones stay as they are. libiberty's own
 * bound with its recursion limit on: it refuses C++ names whose component
 * count (twice the length) passes DEMANGLE_RECURSION_LIMIT, 2048. */
#define DEMANGLE_MAX_INPUT 1024
#define DEMANGLE_MAX_OUTPUT 4096 /* bytes of a demangled name (the profile's string cap) */
/* Stack the demangler may need per byte of name: a chain of pointers
 * ("_Z1fPPPP...i") measured about 430 bytes a byte with Debian 12's
 * libiberty, 430 KiB for the longest name accepted. */
#define DEMANGLE_STACK_PER_BYTE 512u
#define DEMANGLE_STACK_SPARE (64u << 10)

/* demangle__name - the demangled form of @mangled, NUL-terminated, into
 * @out of @outlen bytes. Returns 0; -EINVAL when @mangled is not a C++ or
 * Rust symbol or is malformed; -E2BIG when @mangled passes
 * DEMANGLE_MAX_INPUT or its demangled form (with the NUL) does not fit in
 * @outlen or DEMANGLE_MAX_OUTPUT + 1; -ENOSPC when the calling thread has
 * less stack left than DEMANGLE_STACK_PER_BYTE a byte of @mangled plus
 * DEMANGLE_STACK_SPARE. On an error @out holds "". Uses no heap.
 * Thread-safe. */
int demangle__name(const char *mangled, char *out, size_t outlen);

/* A cache of demangled names: the same functions are named again for every
 * stack that holds them. */
struct demangle_cache;

/* demangle_cache__new - an empty cache that keeps at most @max_names
 * names (0: a default) and forgets all of them when full. NULL and errno
 * set on failure. Free with demangle_cache__free. */
struct demangle_cache *demangle_cache__new(uint32_t max_names);
void demangle_cache__free(struct demangle_cache *c);

/* demangle_cache__get - the display name of the symbol @mangled: its
 * demangled form, or @mangled itself when it has none (not mangled,
 * malformed, too long, or out of memory). The string returned lives until
 * the next call on @c or until @c is freed. Not thread-safe. */
const char *demangle_cache__get(struct demangle_cache *c, const char *mangled);

struct demangle_cache_stats {
	uint64_t hits, misses; /* lookups of mangled-looking names */
	uint64_t demangled;    /* misses that gave a demangled name */
	uint64_t resets;       /* times the cache was full and emptied */
};

void demangle_cache__get_stats(const struct demangle_cache *c, struct demangle_cache_stats *out);

#endif
