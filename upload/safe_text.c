// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* safe_text.c - untrusted text made safe to show (safe_text.h), and the
 * one UTF-8 decoder of the program (trapd/util/utf8.h uses it): C1
 * controls and the bidirectional controls are well-formed UTF-8 and
 * still unsafe, so it needs the code point, not only the length. */
#include "upload/safe_text.h"

#include <string.h>

#define ESCAPE_LEN 4 /* "\xHH" */

static size_t decode(const unsigned char *s, size_t avail, unsigned *cp);

size_t safe_text_utf8_decode(const unsigned char *s, size_t avail, unsigned *cp)
{
	if (!avail)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	return decode(s, avail, cp);
}

/* decode - safe_text_utf8_decode for a lead byte >= 0x80. */
static size_t decode(const unsigned char *s, size_t avail, unsigned *cp)
{
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	*cp = s[0] & (0xff >> (n + 1));
	for (i = 1; i < n; i++) {
		if (i > 1 && (s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return n;
}

static bool unsafe_code_point(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* next_unit - the length of the character at @s (a byte that cannot start
 * one is a unit of its own), and in *@safe whether it is copied as is. */
static size_t next_unit(const unsigned char *s, size_t avail, bool *safe)
{
	unsigned cp = 0;
	size_t n;

	if (s[0] < 0x80) {
		*safe = s[0] >= 0x20 && s[0] != 0x7f;
		return 1;
	}
	n = decode(s, avail, &cp);
	*safe = n && !unsafe_code_point(cp);
	return n ? n : 1;
}

/* out_len - what @n bytes of a unit take in the output. */
static size_t out_len(size_t n, bool safe)
{
	return safe ? n : n * ESCAPE_LEN;
}

/* put_unit - the unit of @n bytes at @s into @out at @used. */
static size_t put_unit(const unsigned char *s, size_t n, bool safe, char *out, size_t used)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (safe) {
		memcpy(out + used, s, n);
		return used + n;
	}
	for (i = 0; i < n; i++) {
		out[used++] = '\\';
		out[used++] = 'x';
		out[used++] = hex[s[i] >> 4];
		out[used++] = hex[s[i] & 0xf];
	}
	return used;
}

/* fits - whether all of @s escaped takes at most @room bytes (stops
 * reading once it does not). */
static bool fits(const unsigned char *s, size_t len, size_t room)
{
	size_t i = 0, total = 0, n;
	bool safe;

	while (i < len && total <= room) {
		n = next_unit(s + i, len - i, &safe);
		total += out_len(n, safe);
		i += n;
	}
	return total <= room;
}

const char *safe_text(const char *s, size_t len, char *out, size_t outlen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t room, i = 0, used = 0, n, cut = strlen(SAFE_TEXT_CUT);
	bool whole, safe;

	if (!outlen)
		return out;
	room = outlen - 1;
	whole = fits(u, len, room);
	if (!whole)
		room = room > cut ? room - cut : 0;
	while (i < len) {
		n = next_unit(u + i, len - i, &safe);
		if (used + out_len(n, safe) > room)
			break;
		used = put_unit(u + i, n, safe, out, used);
		i += n;
	}
	if (!whole) {
		n = outlen - 1 - used < cut ? outlen - 1 - used : cut;
		memcpy(out + used, SAFE_TEXT_CUT, n);
		used += n;
	}
	out[used] = '\0';
	return out;
}

const char *safe_text_str(const char *s, char *out, size_t outlen)
{
	return safe_text(s ? s : "", s ? strlen(s) : 0, out, outlen);
}

bool safe_text_is_safe(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	bool safe = true;

	while (i < len && safe)
		i += next_unit(u + i, len - i, &safe);
	return safe;
}

size_t safe_text_utf8_encode(unsigned cp, char out[4])
{
	char *b = out;
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return n;
}
