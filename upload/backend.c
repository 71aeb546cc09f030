// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend.c - the table of backends (backend.h). */
#include "upload/backend.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

const struct upload_backend_ops *upload_backend__ops(enum upload_scheme scheme)
{
	switch (scheme) {
	case UPLOAD_FILE:
		return &upload_backend_file;
	case UPLOAD_HTTP:
		return &upload_backend_http;
	case UPLOAD_S3:
		return &upload_backend_s3;
	case UPLOAD_AZBLOB:
		return &upload_backend_azblob;
	default:
		return NULL;
	}
}

int upload_object_url(const struct upload_config *c, const char *key, char *buf, size_t len)
{
	const char *prefix = c->prefix ? c->prefix : "";
	int n;

	switch (c->scheme) {
	case UPLOAD_S3:
		n = snprintf(buf, len, "s3://%s/%s%s", c->bucket, prefix, key);
		break;
	case UPLOAD_AZBLOB:
		n = snprintf(buf, len, "azblob://%s/%s/%s%s", c->account, c->container, prefix,
			     key);
		break;
	case UPLOAD_FILE:
		n = snprintf(buf, len, "file://%s/%s", c->dir, key);
		break;
	case UPLOAD_HTTP:
		n = c->post ? snprintf(buf, len, "%s", c->url)
			    : snprintf(buf, len, "%s%s", c->base, key);
		break;
	default:
		n = snprintf(buf, len, "%s", key);
	}
	return n >= 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}
