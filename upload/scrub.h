/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* scrub.h - allocation functions whose free wipes the whole block first,
 * for memory that may hold credentials: the strings trapd builds from
 * them, and libcurl's own heap (it copies every URL, header list and
 * request it is given, and frees those copies without wiping them: after
 * a few uploads the token was in freed heap memory several times over).
 *
 * The wipe covers malloc_usable_size() of the block, not only the bytes
 * asked for, and a realloc that moves the block wipes the old one. They
 * are glibc's malloc underneath, so a block from scrub_malloc may be
 * given to free() and the reverse (only the wipe is lost). Thread-safe.
 */
#ifndef TRAPD_UPLOAD_SCRUB_H
#define TRAPD_UPLOAD_SCRUB_H

#include <stddef.h>

void *scrub_malloc(size_t size);
void *scrub_calloc(size_t n, size_t size);
char *scrub_strdup(const char *s);

/* scrub_realloc - like realloc, but a block that moves is wiped before it
 * is freed; @size 0 gives a block of 1 byte rather than NULL. */
void *scrub_realloc(void *p, size_t size);

/* scrub_free - wipe all of @p's block and free it (NULL is fine). */
void scrub_free(void *p);

/* scrub__curl_init - libcurl's global initialisation with the functions
 * above as its heap. libcurl takes its allocator only at its first global
 * initialisation, so this must run before any other curl call of the
 * process; it runs once (later calls do nothing) and is safe from any
 * thread. libcurl is loaded first (curl_lib.h). Returns 0, -ELIBACC when
 * libcurl could not be loaded (curl_lib__error() says why) or -EIO when
 * it refused to initialise (then nothing works). */
int scrub__curl_init(void);

#endif
