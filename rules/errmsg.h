/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* errmsg.h - the one way rules/ modules report an error: a message into
 * the caller's buffer and a code to return, in one expression:
 *
 *	return errmsg_fail(err, errlen, -ENOENT, "%s: no such file", path);
 */
#ifndef TRAPD_ERRMSG_H
#define TRAPD_ERRMSG_H

#include <stddef.h>

/* errmsg_fail - format the message into @err (if it is not NULL and
 * @errlen is not 0) and return @code. */
__attribute__((format(printf, 4, 5))) int errmsg_fail(char *err, size_t errlen, int code,
						      const char *fmt, ...);

#endif
