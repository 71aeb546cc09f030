// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* errmsg.c - error messages into the caller's buffer. */
#include "rules/errmsg.h"

#include <stdarg.h>
#include <stdio.h>

int errmsg_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}
