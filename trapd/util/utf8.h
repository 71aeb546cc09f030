/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* utf8.h - well-formed UTF-8, as the JSON writer emits and the JSON reader
 * accepts it: one definition, so trapd never writes a sidecar it would
 * refuse to read. */
#ifndef TRAPD_UTF8_H
#define TRAPD_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* utf8_valid - the length of the well-formed UTF-8 sequence (Unicode
 * table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF) of
 * at most @avail bytes at @s, or 0. */
size_t utf8_valid(const unsigned char *s, size_t avail);

/* utf8_decode - utf8_valid, and the sequence's code point in *@cp when
 * it is well-formed. */
size_t utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp);

#endif
