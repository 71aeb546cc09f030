/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* secret.h - credentials from a file or an environment variable, as the
 * rules file names them ([upload] ..._file / ..._env). A file must be a
 * regular file that others cannot read or write (0600 or 0640), or it is
 * refused: a secret anyone on the host can read is not a secret. Secrets
 * never appear in messages, only where they came from.
 */
#ifndef TRAPD_UPLOAD_SECRET_H
#define TRAPD_UPLOAD_SECRET_H

#include <stddef.h>

#include "upload/backend.h"

#define UPLOAD_SECRET_MAX 4096 /* bytes, trailing newline dropped */

/* upload_secret__read - the secret @what ("secret_access_key") from @src
 * into a new string *@out (the caller frees it with upload_secret__free).
 * Surrounding whitespace is dropped; an empty secret is an error.
 * Returns 0, -ENOENT (@src names nothing: neither file nor env set), or
 * another negative errno with @err saying what and where, not the
 * secret. */
int upload_secret__read(const struct upload_secret_source *src, const char *what, char **out,
			char *err, size_t errlen);

/* upload_secret__free - wipe and free @s (NULL is fine). */
void upload_secret__free(char *s);

#endif
