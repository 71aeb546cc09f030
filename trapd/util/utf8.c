// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* utf8.c - well-formed UTF-8 (utf8.h), decoded by upload/safe_text.c: one
 * decoder for the whole program. */
#include "trapd/util/utf8.h"

#include "upload/safe_text.h"

size_t utf8_valid(const unsigned char *s, size_t avail)
{
	unsigned cp;

	return safe_text_utf8_decode(s, avail, &cp);
}

size_t utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
	unsigned c;
	size_t n = safe_text_utf8_decode(s, avail, &c);

	if (n)
		*cp = c;
	return n;
}
