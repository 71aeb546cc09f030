/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* daemon_status.h - what `trapd status` answers about a running daemon:
 * its rules, the capture running and those being written, the spool,
 * the uploader, the symbol cache and each rule's state.
 */
#ifndef TRAPD_DAEMON_STATUS_H
#define TRAPD_DAEMON_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "trapd/daemon/daemon.h"

/* daemon__status - the answer to `trapd status` ([json]): a text table or
 * a JSON object, malloc'd into *@out (length *@len). Returns 0 or
 * -ENOMEM. */
int daemon__status(struct daemon *d, bool json, char **out, size_t *len);

#endif
