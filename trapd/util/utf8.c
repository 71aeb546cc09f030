/* utf8.c - well-formed UTF-8 (utf8.h). */
#include "trapd/util/utf8.h"

size_t utf8_valid(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
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
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
	static const unsigned char lead_bits[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	size_t n = avail ? utf8_valid(s, avail) : 0, i;
	uint32_t c;

	if (!n)
		return 0;
	c = s[0] & lead_bits[n];
	for (i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
	*cp = c;
	return n;
}
