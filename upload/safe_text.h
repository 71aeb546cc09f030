/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* safe_text.h - text that someone else chose (a server's answer, a
 * target's name, a file's contents) made safe to show on a terminal or in
 * a log: one function, used where such text becomes a log line, a `.failed`
 * marker or `trapd status` output, and by the log module on every line.
 *
 * It lives in upload/, the lowest layer that needs it (upload/ may not
 * include trapd/, and trapd/ may include upload/). Nothing here allocates.
 *
 * What is escaped, each byte as \xHH (lower-case hex):
 *   - C0 controls (0x00-0x1f, tab and newline included: one message is one
 *     line) and DEL (0x7f): ESC starts terminal escape sequences;
 *   - C1 controls (U+0080-U+009F, UTF-8 c2 80..c2 9f): 0x9b is a one-byte
 *     CSI to some terminals;
 *   - the bidirectional overrides and isolates (U+202A-U+202E,
 *     U+2066-U+2069), which reorder what a reader sees;
 *   - every byte that is not part of well-formed UTF-8 (overlong forms,
 *     surrogates, above U+10FFFF, cut sequences).
 * Everything else, well-formed UTF-8 included, is copied as is. A
 * backslash is not escaped, so the function is idempotent: text escaped
 * twice (by the uploader, then by the log) reads the same.
 */
#ifndef TRAPD_UPLOAD_SAFE_TEXT_H
#define TRAPD_UPLOAD_SAFE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#define SAFE_TEXT_CUT "..." /* ends a text that did not fit */

/* safe_text - the @len bytes at @s (NULs included: they are escaped too)
 * made safe as above, into @out: at most @outlen - 1 bytes and a NUL,
 * never a character or escape cut in two. Text that does not fit ends
 * with SAFE_TEXT_CUT. @s and @out must not overlap. @outlen 0 writes
 * nothing. Returns @out. */
const char *safe_text(const char *s, size_t len, char *out, size_t outlen);

/* safe_text_str - safe_text of the C string @s (NULL: ""). */
const char *safe_text_str(const char *s, char *out, size_t outlen);

/* safe_text_is_safe - whether safe_text would copy the @len bytes at @s
 * unchanged (so a caller can skip the copy). */
bool safe_text_is_safe(const char *s, size_t len);

/* safe_text_utf8_decode - the length of the well-formed UTF-8 sequence
 * (Unicode table 3-7: no overlong forms, no surrogates, nothing above
 * U+10FFFF) of at most @avail bytes at @s, with its code point in *@cp,
 * or 0 when @s does not start one. */
size_t safe_text_utf8_decode(const unsigned char *s, size_t avail, unsigned *cp);

/* safe_text_utf8_encode - code point @cp (at most U+10FFFF) as UTF-8 into
 * @out. Returns its length, 1 to 4. */
size_t safe_text_utf8_encode(unsigned cp, char out[4]);

#endif
