// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend.c - the table of backends (backend.h). */
#include "upload/backend.h"

#include <stddef.h>

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
