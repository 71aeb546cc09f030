// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* object.c - object keys and metadata (object.h). */
#include "upload/object.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "upload/spool.h"

int upload_object_key(const char *host, const char *spool_name, const char *sha256,
		      const char *suffix, char *out, size_t len)
{
	char ymd[8], safe_host[256];
	size_t i;

	if (!spool_name_date(spool_name, ymd)) /* the spool owns its names */
		return -EINVAL;
	snprintf(safe_host, sizeof(safe_host), "%s", *host ? host : "unknown");
	for (i = 0; safe_host[i]; i++)
		if (!isalnum((unsigned char)safe_host[i]) && !strchr(".-_", safe_host[i]))
			safe_host[i] = '_';
	if (safe_host[0] == '.')
		safe_host[0] = '_'; /* never "." or ".." as a path component */
	if (snprintf(out, len, "%s/%.4s/%.2s/%.2s/%s%s", safe_host, ymd, ymd + 4, ymd + 6, sha256,
		     suffix) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int upload_meta__name(const char *in, char *out, size_t len)
{
	size_t o = 0;
	bool gap = false;

	if (len < 3)
		return -EINVAL;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;

		if (!isalnum(c) || c > 0x7f) {
			gap = o > 0;
			continue;
		}
		/* a C identifier (Azure's rule) never starts with a digit */
		if (!o && isdigit(c))
			out[o++] = '_';
		if (o + (gap ? 2 : 1) >= len)
			return -EINVAL;
		if (gap)
			out[o++] = '_';
		out[o++] = (char)tolower(c);
		gap = false;
	}
	out[o] = '\0';
	return o ? 0 : -EINVAL;
}

/* safe_value - @in trimmed, printable ASCII kept, other bytes and '%' as
 * %XX. Returns 0 or -E2BIG. */
static int safe_value(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(in), o = 0;

	while (n && isspace((unsigned char)in[n - 1]))
		n--;
	while (n && isspace((unsigned char)*in)) {
		in++;
		n--;
	}
	for (; n; n--, in++) {
		unsigned char c = (unsigned char)*in;
		bool plain = c >= 0x20 && c < 0x7f && c != '%';

		if (o + (plain ? 1 : 3) >= len)
			return -E2BIG;
		if (plain) {
			out[o++] = (char)c;
			continue;
		}
		out[o++] = '%';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 15];
	}
	out[o] = '\0';
	return 0;
}

int upload_meta__add(struct upload_meta *meta, size_t *n, size_t max, const char *name,
		     const char *value)
{
	struct upload_meta m;
	size_t used = 0, i;

	if (upload_meta__name(name, m.name, sizeof(m.name)) || strcmp(m.name, name))
		return -EINVAL;
	if (*n >= max || safe_value(value, m.value, sizeof(m.value)))
		return -E2BIG;
	for (i = 0; i < *n; i++)
		used += strlen(meta[i].name) + strlen(meta[i].value);
	if (used + strlen(m.name) + strlen(m.value) > UPLOAD_META_BYTES_MAX)
		return -E2BIG;
	meta[(*n)++] = m;
	return 0;
}

const char *upload_meta__header(const char *name, enum upload_meta_style style, char *out,
				size_t len)
{
	size_t o, i;
	bool up = true;

	switch (style) {
	case UPLOAD_META_AZBLOB:
		snprintf(out, len, "x-ms-meta-%s", name);
		return out;
	case UPLOAD_META_S3:
		o = (size_t)snprintf(out, len, "x-amz-meta-%s", name);
		for (i = strlen("x-amz-meta-"); i < o && i < len; i++)
			if (out[i] == '_')
				out[i] = '-';
		return out;
	default:
		if (!strncmp(name, "trapd_", 6))
			name += 6;
		o = (size_t)snprintf(out, len, "X-Trapd-%s", name);
		for (i = strlen("X-Trapd-"); i < o && i < len; i++) {
			if (out[i] == '_') {
				out[i] = '-';
				up = true;
			} else if (up) {
				out[i] = (char)toupper((unsigned char)out[i]);
				up = false;
			}
		}
		return out;
	}
}
