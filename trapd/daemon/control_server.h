/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* control_server.h - the daemon's end of the control socket, run inside
 * its event loop without ever waiting on a client.
 *
 * Clients are local users in the control_group, so a slow or hostile one
 * must cost the loop nothing: every connection is non-blocking, sits in a
 * small table (CONTROL_CONN_MAX; a new one evicts the oldest when it is
 * full, so idle connections cannot lock others out), and is closed at
 * its deadline (CONTROL_DEADLINE_NS after accept) whether it sent its
 * line or read its answer or not. The request is read as it arrives;
 * the answer is queued (at most CONTROL_ANSWER_MAX bytes) and written as
 * the client reads it. accept() failing for lack of fds or memory pauses
 * accepting for a back-off that doubles from 100 ms to 5 s, with one
 * warning per 10 s at most, instead of spinning on a listener that stays
 * readable.
 *
 * The owner adds nothing to the epoll itself: the server adds and
 * removes its fds, the owner passes it the events of the fds it owns
 * (control_server__owns), calls control_server__expire after each
 * wakeup and waits no longer than control_server__timeout_ms.
 */
#ifndef TRAPD_CONTROL_SERVER_H
#define TRAPD_CONTROL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trapd/daemon/control.h"
#include "trapd/daemon/control_socket.h"

#define CONTROL_CONN_MAX 16
#define CONTROL_DEADLINE_NS 2000000000LL
#define CONTROL_ANSWER_MAX (4u << 20)
#define CONTROL_BACKOFF_MIN_NS 100000000LL
#define CONTROL_BACKOFF_MAX_NS 5000000000LL
#define CONTROL_WARN_EVERY_NS 10000000000LL

struct control_conn {
	int fd;		     /* -1: the slot is free */
	int64_t deadline_ns; /* CLOCK_MONOTONIC: closed then, whatever its state */
	size_t in_len;
	char in[CONTROL_REQUEST_MAX + 1]; /* the line, and room for its NUL */
	char *out;			  /* the answer once the request is complete, else NULL */
	size_t out_len, out_off;
};

/* control_handler - answer @req by calling control_conn__reply on @c
 * once; the loop's thread calls it, so it must not block. */
typedef void control_handler(void *ctx, struct control_conn *c, const struct control_request *req);

/* A rate-limited warning: at most one per CONTROL_WARN_EVERY_NS, saying
 * how many were held back. */
struct control_warn {
	bool warned;
	int64_t last_ns;
	uint64_t held;
};

struct control_server {
	struct control_socket sock;
	int epfd;
	gid_t gid; /* -1: root only */
	control_handler *handle;
	void *ctx;
	struct control_conn conns[CONTROL_CONN_MAX];
	bool paused;	    /* accept back-off: the listener is out of the epoll */
	bool failing;	    /* in a back-off episode: accept has not worked since */
	int64_t resume_ns;  /* when a pause ends */
	int64_t backoff_ns; /* the next pause */
	struct control_warn accept_warn, refused_warn;
	uint64_t accepted, refused, evicted, expired, accept_errors;
};

/* control_server__init - an idle server (no fds), safe to close. */
void control_server__init(struct control_server *s);

/* control_server__open - listen on @path (control_socket__open: its
 * directory checked, mode 0600 or 0660 with group @gid) and add the
 * listener to @epfd; @handle answers requests. Returns 0 or the negative
 * errno of control_socket__open with @err filled. */
int control_server__open(struct control_server *s, const char *path, gid_t gid, int epfd,
			 control_handler *handle, void *ctx, char *err, size_t errlen);

/* control_server__close - close every connection and the socket (its
 * file removed if still ours). */
void control_server__close(struct control_server *s);

/* control_server__owns - whether @fd is the listener or a connection. */
bool control_server__owns(const struct control_server *s, int fd);

/* control_server__dispatch - handle @events on @fd (one it owns) at
 * monotonic time @now: accept, read, answer, write; never blocks. */
void control_server__dispatch(struct control_server *s, int fd, uint32_t events, int64_t now);

/* control_server__expire - close connections past their deadline and end
 * an accept pause that is over. Call after each wakeup. */
void control_server__expire(struct control_server *s, int64_t now);

/* control_server__timeout_ms - ms until the next deadline or the end of
 * a pause (rounded up), or -1 when there is none. */
int control_server__timeout_ms(const struct control_server *s, int64_t now);

/* control_server__connections - connections open now. */
size_t control_server__connections(const struct control_server *s);

/* control_conn__reply - queue the answer: @status_line ("ok", "usage:
 * ...", "error: ...") and @body (may be NULL), sent as the client reads.
 * Returns 0, -EALREADY (answered already), -E2BIG (over
 * CONTROL_ANSWER_MAX: an error line goes instead) or -ENOMEM. */
int control_conn__reply(struct control_conn *c, const char *status_line, const char *body,
			size_t body_len);

#endif
