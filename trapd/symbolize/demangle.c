// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* demangle.c - C++ and Rust names through libiberty (demangle.h).
 *
 * libiberty's callback interfaces are used rather than cplus_demangle():
 * they allocate nothing (cplus_demangle's strdup paths go through xmalloc,
 * which exits the process when memory runs out) and hand the output over
 * piece by piece, so it is cut at our own bound instead of growing a
 * buffer as long as a hostile name can make it. Rust goes first, as in
 * cplus_demangle: a legacy Rust symbol is also a valid C++ one, whose C++
 * reading keeps the "::h<hash>" that rustfilt drops.
 *
 * DMGL_NO_RECURSE_LIMIT is never passed: without it the C++ demangler
 * refuses names nested deeper than DEMANGLE_RECURSION_LIMIT (2048 in
 * Debian 12's libiberty) and the Rust one limits its own recursion, where
 * an unlimited walk of a hostile name would exhaust the stack.
 */
#include "trapd/symbolize/demangle.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#define DEMANGLE_OPTIONS (DMGL_PARAMS | DMGL_ANSI)
#define CACHE_DEFAULT_NAMES 16384u
#define CACHE_MAX_BYTES (4u << 20) /* names kept; emptied past it */

/* --- one name --------------------------------------------------------- */

/* The lowest address of this thread's stack, 0 if unknown; asked once a
 * thread (for the main thread glibc reads /proc/self/maps). */
static __thread uintptr_t stack_low;
static __thread bool stack_asked;

/* stack_left - bytes of stack below the caller's frame, SIZE_MAX if
 * unknown (the length bound alone then applies). The demangler recurses
 * as deep as a name is nested, so a thread with a small stack (a lowered
 * ulimit -s) must refuse long names rather than overflow. */
static size_t stack_left(void)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	pthread_attr_t attr;
	size_t size;
	void *low;

	if (!stack_asked) {
		stack_asked = true;
		if (!pthread_getattr_np(pthread_self(), &attr)) {
			if (!pthread_attr_getstack(&attr, &low, &size))
				stack_low = (uintptr_t)low;
			pthread_attr_destroy(&attr);
		}
	}
	if (!stack_low)
		return SIZE_MAX;
	return here > stack_low ? here - stack_low : 0;
}

struct out_buf {
	char *buf;
	size_t cap; /* bytes of buf, NUL included */
	size_t len;
	bool overflow;
};

/* put - libiberty's output callback: keep what fits, remember the rest.
 * The Rust demangler passes empty pieces as (NULL, 0). */
static void put(const char *s, size_t n, void *opaque)
{
	struct out_buf *o = opaque;

	if (!n)
		return;
	if (o->overflow || n >= o->cap - o->len) {
		o->overflow = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* looks_mangled - whether @s can be an Itanium C++ or a Rust symbol;
 * anything else (C names, kernel names) is left alone unparsed. */
static bool looks_mangled(const char *s)
{
	return s[0] == '_' && (s[1] == 'Z' || s[1] == 'R');
}

/* The most lifetimes one `for<...>` binder of a Rust v0 name may bind:
 * each prints at least three bytes, so more never fit DEMANGLE_MAX_OUTPUT. */
#define RUST_BINDER_MAX (DEMANGLE_MAX_OUTPUT / 3)

/* base62_at - the v0 integer at @s ("_" is 0, else base-62 digits and
 * "_" for the value + 1) into *@v, saturated at RUST_BINDER_MAX + 1;
 * false when @s holds none. */
static bool base62_at(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int d;

	if (*s == '_') {
		*v = 0;
		return true;
	}
	for (; *s && *s != '_'; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'z')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'Z')
			d = *s - 'A' + 36;
		else
			return false;
		if (x <= RUST_BINDER_MAX)
			x = x * 62 + (uint64_t)d;
	}
	if (!*s)
		return false;
	*v = x + 1 > RUST_BINDER_MAX + 1 ? RUST_BINDER_MAX + 1 : x + 1;
	return true;
}

/* rust_binders_bounded - whether every `for<...>` binder a Rust v0 name
 * can hold binds few enough lifetimes. A binder ("G" and a count) opens
 * a function signature ("F") or dyn bounds ("D"), and a back-reference
 * re-reads text that is in the name too, so every one is found by a scan.
 * libiberty's demangler prints each bound lifetime in a loop it does not
 * cut short: "FGzzzzzzzzzz_" would keep it for hours. An identifier that
 * happens to hold such text only stays mangled. */
static bool rust_binders_bounded(const char *s)
{
	uint64_t n;

	for (; *s && s[1]; s++)
		if ((s[0] == 'F' || s[0] == 'D') && s[1] == 'G' && base62_at(s + 2, &n) &&
		    n > RUST_BINDER_MAX)
			return false;
	return true;
}

/* run_demangler - one demangler into @o; true when it understood the
 * whole name. */
static bool run_demangler(int (*fn)(const char *, int, demangle_callbackref, void *),
			  const char *mangled, struct out_buf *o)
{
	o->len = 0;
	o->overflow = false;
	return fn(mangled, DEMANGLE_OPTIONS, put, o) && !o->overflow && o->len;
}

int demangle__name(const char *mangled, char *out, size_t outlen)
{
	struct out_buf o = { .buf = out, .cap = outlen };
	char symbol[DEMANGLE_MAX_INPUT + 1];
	const char *version;
	size_t len;
	bool ok;

	if (!outlen)
		return -E2BIG;
	out[0] = '\0';
	if (!looks_mangled(mangled))
		return -EINVAL;
	len = strnlen(mangled, DEMANGLE_MAX_INPUT + 1);
	if (len > DEMANGLE_MAX_INPUT)
		return -E2BIG;
	/* A symbol versioned with .symver keeps its "@VERSION" in .symtab:
	 * demangle what precedes it, and show it after, as c++filt does. */
	version = memchr(mangled, '@', len);
	memcpy(symbol, mangled, version ? (size_t)(version - mangled) : len);
	symbol[version ? (size_t)(version - mangled) : len] = '\0';
	if (stack_left() < len * DEMANGLE_STACK_PER_BYTE + DEMANGLE_STACK_SPARE)
		return -ENOSPC;
	if (o.cap > DEMANGLE_MAX_OUTPUT + 1)
		o.cap = DEMANGLE_MAX_OUTPUT + 1;
	if (symbol[1] == 'R' && !rust_binders_bounded(symbol))
		return -EINVAL;
	ok = run_demangler(rust_demangle_callback, symbol, &o);
	if (!ok && !o.overflow)
		ok = run_demangler(cplus_demangle_v3_callback, symbol, &o);
	if (ok && version)
		put(version, len - (size_t)(version - mangled), &o);
	if (!ok || o.overflow) {
		out[0] = '\0';
		return o.overflow ? -E2BIG : -EINVAL;
	}
	out[o.len] = '\0';
	return 0;
}

/* --- the cache -------------------------------------------------------- */

struct cache_entry {
	uint64_t hash;
	char *mangled;	 /* NULL: a free slot */
	char *demangled; /* NULL: none, show the symbol */
};

struct demangle_cache {
	struct cache_entry *slots; /* open addressing, a power of two */
	uint32_t cap, n, max_names;
	size_t bytes; /* of the strings kept */
	char out[DEMANGLE_MAX_OUTPUT + 1];
	struct demangle_cache_stats stats;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 31);
}

struct demangle_cache *demangle_cache__new(uint32_t max_names)
{
	struct demangle_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max_names = max_names ? max_names : CACHE_DEFAULT_NAMES;
	if (c->max_names > (1u << 24))
		c->max_names = 1u << 24;
	for (c->cap = 16; c->cap < 2 * c->max_names;)
		c->cap *= 2;
	return c;
}

/* slots - the table, allocated at the first name to demangle: most
 * captures (C programs, the kernel) have none, and 32768 slots are 768 KB
 * to fault in and to walk at the end. */
static bool slots(struct demangle_cache *c)
{
	if (!c->slots)
		c->slots = calloc(c->cap, sizeof(*c->slots));
	return c->slots;
}

static void cache_clear(struct demangle_cache *c)
{
	uint32_t i;

	if (!c->n)
		return;
	for (i = 0; i < c->cap; i++) {
		free(c->slots[i].mangled);
		free(c->slots[i].demangled);
		c->slots[i] = (struct cache_entry){ 0 };
	}
	c->n = 0;
	c->bytes = 0;
}

void demangle_cache__free(struct demangle_cache *c)
{
	if (!c)
		return;
	cache_clear(c);
	free(c->slots);
	free(c);
}

/* cache_put - remember @mangled's display name in slot @e; on failure
 * (no memory) nothing is remembered. */
static void cache_put(struct demangle_cache *c, struct cache_entry *e, uint64_t h,
		      const char *mangled, const char *demangled)
{
	e->mangled = strdup(mangled);
	e->demangled = demangled ? strdup(demangled) : NULL;
	if (!e->mangled || (demangled && !e->demangled)) {
		free(e->mangled);
		free(e->demangled);
		*e = (struct cache_entry){ 0 };
		return;
	}
	e->hash = h;
	c->n++;
	c->bytes += strlen(mangled) + 1 + (demangled ? strlen(demangled) + 1 : 0);
}

const char *demangle_cache__get(struct demangle_cache *c, const char *mangled)
{
	struct cache_entry *e;
	uint64_t h;
	uint32_t i;
	bool ok;

	if (!looks_mangled(mangled) || !slots(c))
		return mangled;
	h = name_hash(mangled);
	for (i = (uint32_t)h & (c->cap - 1); c->slots[i].mangled; i = (i + 1) & (c->cap - 1)) {
		e = &c->slots[i];
		if (e->hash == h && !strcmp(e->mangled, mangled)) {
			c->stats.hits++;
			return e->demangled ? e->demangled : mangled;
		}
	}
	c->stats.misses++;
	ok = demangle__name(mangled, c->out, sizeof(c->out)) == 0;
	c->stats.demangled += ok;
	if (c->n >= c->max_names || c->bytes >= CACHE_MAX_BYTES) {
		cache_clear(c);
		c->stats.resets++;
		for (i = (uint32_t)h & (c->cap - 1); c->slots[i].mangled;
		     i = (i + 1) & (c->cap - 1))
			;
	}
	cache_put(c, &c->slots[i], h, mangled, ok ? c->out : NULL);
	return ok ? c->out : mangled;
}

void demangle_cache__get_stats(const struct demangle_cache *c, struct demangle_cache_stats *out)
{
	*out = c->stats;
}
