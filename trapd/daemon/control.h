/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* control.h - the daemon's control socket: `trapd arm` and `trapd status`
 * talk to a running `trapd daemon` through it.
 *
 * A unix stream socket, one request per connection. The request is one
 * line of text:
 *
 *   status [json]
 *   arm [RULE|-] [DURATION_NS]
 *   upload [failed]      send the spool now (and captures marked failed)
 *   top [SECONDS]        the flight recorder's last SECONDS (1 to
 *                        CONTROL_TOP_MAX_SECONDS, default 5) as pprof
 *
 * The answer starts with one line, "ok", "usage: MESSAGE" (the request
 * was wrong: exit status 2 for the client) or "error: MESSAGE" (exit
 * status 1), followed by the body (status text or JSON) until the daemon
 * closes the connection.
 *
 * Only root, or members of the configured group, may connect: the socket
 * file is mode 0600 (0660 and that group with one), and the daemon checks
 * every peer's credentials (SO_PEERCRED, SO_PEERGROUPS) too. The daemon's
 * end is control_server.h (connections) over control_socket.h (the file);
 * this file holds the protocol and the client.
 */
#ifndef TRAPD_CONTROL_H
#define TRAPD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CONTROL_REQUEST_MAX 512 /* bytes of a request line, newline included */
#define CONTROL_TOP_MAX_SECONDS 10
#define CONTROL_TOP_DEFAULT_SECONDS 5

enum control_verb {
	CONTROL_STATUS,
	CONTROL_ARM,
	CONTROL_UPLOAD,
	CONTROL_TOP,
};

struct control_request {
	enum control_verb verb;
	bool json;	      /* status json */
	char rule[64];	      /* arm: "" for a manual capture */
	uint64_t duration_ns; /* arm: 0 for the rule's (or manual) duration */
	bool failed;	      /* upload failed */
	uint32_t seconds;     /* top: 0 for CONTROL_TOP_DEFAULT_SECONDS */
};

/* control_request__parse - parse one request line (without its newline).
 * Returns 0, or -EINVAL with the reason in @err. */
int control_request__parse(const char *line, struct control_request *req, char *err, size_t errlen);

/* control_request__format - the line for @req, newline included. */
int control_request__format(const struct control_request *req, char *buf, size_t len);

/* control__call - client side: connect to @path, send @req, copy the body
 * of the answer to @out. Returns 0 for "ok", -EINVAL for "usage:",
 * -EIO for "error:" (the message in @err), or a negative errno for a
 * failure to talk to the daemon (@err says which: no daemon, permission
 * denied, not taking connections). Each step waits 1 s at most. */
int control__call(const char *path, const struct control_request *req, FILE *out, char *err,
		  size_t errlen);

#endif
