/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uri.h - percent-encoding as S3's UriEncode() and RFC 3986 define it:
 * the unreserved characters (A-Z a-z 0-9 - _ . ~) stay, every other byte
 * becomes %XX (upper-case hex). One rule for the paths trapd signs
 * (sigv4.c) and the ones it sends unsigned (http, azblob). */
#ifndef TRAPD_UPLOAD_URI_H
#define TRAPD_UPLOAD_URI_H

#include <stdbool.h>
#include <stddef.h>

/* uri_unreserved - whether @c stays as it is. */
bool uri_unreserved(unsigned char c);

/* uri_encode - @in encoded into @out, '/' kept when @keep_slash. Returns
 * 0 or -ENOSPC. */
int uri_encode(const char *in, bool keep_slash, char *out, size_t len);

#endif
