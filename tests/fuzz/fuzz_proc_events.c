// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_proc_events - the proc connector's datagrams (rules/proc_events.h)
 * on arbitrary bytes: every length and header must be checked before it
 * is read, and no datagram may make the reader loop. The bytes are copied
 * into a buffer of exactly their size (malloc aligns it as recvfrom
 * needs). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/proc_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = size ? malloc(size) : NULL; /* exactly: a read past it is caught */

	if (size && !buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	proc_events_parse(buf, size);
	free(buf);
	return 0;
}
