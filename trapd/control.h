/* control.h - the daemon's control socket: `trapd arm` and `trapd status`
 * talk to a running `trapd daemon` through it.
 *
 * A unix stream socket, one request per connection. The request is one
 * line of text:
 *
 *   status [json]
 *   arm [RULE|-] [DURATION_NS]
 *   upload [failed]      send the spool now (and captures marked failed)
 *
 * The answer starts with one line, "ok", "usage: MESSAGE" (the request
 * was wrong: exit status 2 for the client) or "error: MESSAGE" (exit
 * status 1), followed by the body (status text or JSON) until the daemon
 * closes the connection.
 *
 * Only root, or members of the configured group, may connect: the socket
 * file is mode 0600 (0660 and that group with one), and the daemon checks
 * every peer's credentials (SO_PEERCRED, SO_PEERGROUPS) too.
 */
#ifndef TRAPD_CONTROL_H
#define TRAPD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CONTROL_REQUEST_MAX 512 /* bytes of a request line, newline included */

enum control_verb {
	CONTROL_STATUS,
	CONTROL_ARM,
	CONTROL_UPLOAD,
};

struct control_request {
	enum control_verb verb;
	bool json;	      /* status json */
	char rule[64];	      /* arm: "" for a manual capture */
	uint64_t duration_ns; /* arm: 0 for the rule's (or manual) duration */
	bool failed;	      /* upload failed */
};

/* control_request__parse - parse one request line (without its newline).
 * Returns 0, or -EINVAL with the reason in @err. */
int control_request__parse(const char *line, struct control_request *req, char *err, size_t errlen);

/* control_request__format - the line for @req, newline included. */
int control_request__format(const struct control_request *req, char *buf, size_t len);

/* control__listen - create the socket at @path (its directory too, mode
 * 0755), owned by root and group @gid (-1: root only). A stale socket file
 * is replaced; one that a live daemon answers on is not (-EADDRINUSE).
 * Returns the listening fd (non-blocking, close-on-exec) or a negative
 * errno with @err filled. */
int control__listen(const char *path, gid_t gid, char *err, size_t errlen);

/* control__accept - accept one connection on @lfd and check its peer: root,
 * or a member of @gid when @gid is not -1. A refused peer is answered
 * with an error line and closed; -EACCES is returned with @err naming it.
 * On success returns the connection fd (blocking, with 1 s send and
 * receive timeouts so a stuck client cannot stall the daemon for long). */
int control__accept(int lfd, gid_t gid, char *err, size_t errlen);

/* control__read_request - read the request line from @fd and parse it.
 * Returns 0 or a negative errno with @err filled (-EINVAL: malformed). */
int control__read_request(int fd, struct control_request *req, char *err, size_t errlen);

/* control__reply - write the status line ("ok", "usage: ...", "error:
 * ...") and @body (may be NULL) to @fd. Returns 0 or a negative errno. */
int control__reply(int fd, const char *status_line, const char *body, size_t body_len);

/* control__call - client side: connect to @path, send @req, copy the body
 * of the answer to @out. Returns 0 for "ok", -EINVAL for "usage:",
 * -EIO for "error:" (the message in @err), or a negative errno for a
 * failure to talk to the daemon (@err says which: no daemon, permission
 * denied). */
int control__call(const char *path, const struct control_request *req, FILE *out, char *err,
		  size_t errlen);

#endif
