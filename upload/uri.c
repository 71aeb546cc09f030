// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* uri.c - percent-encoding (uri.h). */
#include "upload/uri.h"

#include <errno.h>

bool uri_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.' || c == '~';
}

int uri_encode(const char *in, bool keep_slash, char *out, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		bool plain = uri_unreserved(c) || (keep_slash && c == '/');

		if (o + (plain ? 1 : 3) >= len)
			return -ENOSPC;
		if (plain) {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (o >= len)
		return -ENOSPC;
	out[o] = '\0';
	return 0;
}
