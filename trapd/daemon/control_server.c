// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* control_server.c - control connections inside the event loop: a table
 * with deadlines, non-blocking reads and writes, accept back-off (see
 * control_server.h for why). */
#include "trapd/daemon/control_server.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "trapd/util/log.h"

#define MAX_PEER_GROUPS 256
#define DRAIN_MAX 8 /* reads of what a peer sent and we will not use, at most */

/* Back-off, not the reserved-fd trick (close a spare fd on EMFILE,
 * accept and close, reopen it): the spare would race the uploader's
 * thread and the guard for the one free slot, and it turns every queued
 * connection into work on the loop at the pace the client chooses. A
 * pause costs one accept() per interval whatever clients do; those in
 * the backlog wait, and the client gives up after its own timeout. */

void control_server__init(struct control_server *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	control_socket__init(&s->sock);
	s->epfd = -1;
	s->gid = (gid_t)-1;
	s->backoff_ns = CONTROL_BACKOFF_MIN_NS;
	for (i = 0; i < CONTROL_CONN_MAX; i++)
		s->conns[i].fd = -1;
}

/* warn_due - whether a rate-limited warning may go out now; *@held gets
 * how many were held back since the last one. */
static bool warn_due(struct control_warn *w, int64_t now, uint64_t *held)
{
	if (w->warned && now - w->last_ns < CONTROL_WARN_EVERY_NS) {
		w->held++;
		return false;
	}
	*held = w->held;
	w->held = 0;
	w->warned = true;
	w->last_ns = now;
	return true;
}

static void conn_close(struct control_conn *c)
{
	if (c->fd >= 0)
		close(c->fd); /* leaves the epoll with it */
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static struct control_conn *find_conn(struct control_server *s, int fd)
{
	size_t i;

	for (i = 0; i < CONTROL_CONN_MAX; i++)
		if (s->conns[i].fd == fd)
			return &s->conns[i];
	return NULL;
}

/* drain - what a peer sent and we will not read: closing a unix socket
 * with unread data resets it, and the peer might lose our answer. */
static void drain(int fd)
{
	char buf[1024];
	int i;

	for (i = 0; i < DRAIN_MAX; i++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
}

/* --- answers ------------------------------------------------------------- */

int control_conn__reply(struct control_conn *c, const char *status_line, const char *body,
			size_t body_len)
{
	static const char too_big[] = "error: the answer is too large for the control socket\n";
	size_t slen = strlen(status_line), len;

	if (c->out)
		return -EALREADY;
	if (!body)
		body_len = 0;
	len = slen + 1 + body_len;
	if (len > CONTROL_ANSWER_MAX) {
		c->out = strdup(too_big);
		c->out_len = c->out ? sizeof(too_big) - 1 : 0;
		return c->out ? -E2BIG : -ENOMEM;
	}
	c->out = malloc(len);
	if (!c->out)
		return -ENOMEM;
	memcpy(c->out, status_line, slen);
	c->out[slen] = '\n';
	if (body_len)
		memcpy(c->out + slen + 1, body, body_len);
	c->out_len = len;
	c->out_off = 0;
	return 0;
}

/* flush - send what the client will take now; the rest on EPOLLOUT. A
 * fully sent answer ends the connection. */
static void flush(struct control_server *s, struct control_conn *c)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.fd = c->fd };

	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev))
				conn_close(c);
			return;
		}
		if (w <= 0) {
			conn_close(c);
			return;
		}
		c->out_off += (size_t)w;
	}
	drain(c->fd);
	conn_close(c);
}

/* respond - the request line is complete in c->in (NUL-terminated). */
static void respond(struct control_server *s, struct control_conn *c, size_t line_len)
{
	struct control_request req;
	char err[256], line[300];

	if (memchr(c->in, '\0', line_len)) {
		control_conn__reply(c, "usage: a NUL byte in the request", NULL, 0);
	} else if (control_request__parse(c->in, &req, err, sizeof(err))) {
		snprintf(line, sizeof(line), "usage: %s", err);
		control_conn__reply(c, line, NULL, 0);
	} else {
		s->handle(s->ctx, c, &req);
	}
	if (!c->out && control_conn__reply(c, "error: the daemon had no answer", NULL, 0)) {
		conn_close(c);
		return;
	}
	flush(s, c);
}

/* on_readable - take what the client sent; answer once the line is
 * complete (a newline, or the end of its writing). */
static void on_readable(struct control_server *s, struct control_conn *c)
{
	for (;;) {
		size_t room = sizeof(c->in) - 1 - c->in_len;
		char *nl;
		ssize_t r;

		if (room == 0) {
			char line[64];

			snprintf(line, sizeof(line), "usage: request longer than %d bytes",
				 CONTROL_REQUEST_MAX - 1);
			control_conn__reply(c, line, NULL, 0);
			flush(s, c);
			return;
		}
		r = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r < 0 || (r == 0 && c->in_len == 0)) {
			conn_close(c);
			return;
		}
		nl = r ? memchr(c->in + c->in_len, '\n', (size_t)r) : NULL;
		c->in_len += (size_t)r;
		if (nl)
			c->in_len = (size_t)(nl - c->in);
		if (nl || r == 0) {
			c->in[c->in_len] = '\0';
			respond(s, c, c->in_len);
			return;
		}
	}
}

/* --- accepting ----------------------------------------------------------- */

/* peer_allowed - root, or in group @gid (primary or supplementary). */
static bool peer_allowed(int fd, gid_t gid, struct ucred *cred)
{
	gid_t groups[MAX_PEER_GROUPS];
	socklen_t len = sizeof(*cred);
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len))
		return false;
	if (cred->uid == 0)
		return true;
	if (gid == (gid_t)-1)
		return false;
	if (cred->gid == gid)
		return true;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* refuse - answer a peer that may not use the socket at once, without a
 * slot: one short line fits any socket buffer, and it is never waited for. */
static void refuse(struct control_server *s, int fd, const struct ucred *cred, int64_t now)
{
	static const char no[] = "error: permission denied: only root or the control_group may "
				 "use the control socket\n";
	uint64_t held;

	drain(fd);
	if (send(fd, no, sizeof(no) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("control socket: refusal not sent: %s", strerror(errno));
	close(fd);
	s->refused++;
	if (!warn_due(&s->refused_warn, now, &held))
		return;
	if (held)
		log_warn("refused a control connection from uid %u (pid %d), and %llu more since "
			 "the last warning",
			 (unsigned)cred->uid, (int)cred->pid, (unsigned long long)held);
	else
		log_warn("refused a control connection from uid %u (pid %d)", (unsigned)cred->uid,
			 (int)cred->pid);
}

/* take_slot - a free slot, or the oldest connection's: it is the nearest
 * its deadline anyway, and idle connections cannot lock a new one out. */
static struct control_conn *take_slot(struct control_server *s)
{
	struct control_conn *oldest = &s->conns[0];
	size_t i;

	for (i = 0; i < CONTROL_CONN_MAX; i++) {
		if (s->conns[i].fd < 0)
			return &s->conns[i];
		if (s->conns[i].deadline_ns < oldest->deadline_ns)
			oldest = &s->conns[i];
	}
	s->evicted++;
	conn_close(oldest);
	return oldest;
}

/* accept_one - one connection into the table (its request handled if it
 * is there already). Returns 0 or accept's negative errno. */
static int accept_one(struct control_server *s, int64_t now)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ucred cred = { 0 };
	struct control_conn *c;
	int fd;

	fd = accept4(s->sock.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	s->failing = false;
	s->backoff_ns = CONTROL_BACKOFF_MIN_NS;
	if (!peer_allowed(fd, s->gid, &cred)) {
		refuse(s, fd, &cred, now);
		return 0;
	}
	c = take_slot(s);
	c->fd = fd;
	c->deadline_ns = now + CONTROL_DEADLINE_NS;
	ev.data.fd = fd;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		conn_close(c);
		return 0;
	}
	s->accepted++;
	on_readable(s, c);
	return 0;
}

/* pause_accepting - take the listener out of the epoll for a back-off
 * that doubles each time accept fails again; one warning per episode. */
static void pause_accepting(struct control_server *s, int e, int64_t now)
{
	uint64_t held;

	s->accept_errors++;
	if (!s->paused)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->sock.fd, NULL);
	s->paused = true;
	s->resume_ns = now + s->backoff_ns;
	if (!s->failing && warn_due(&s->accept_warn, now, &held))
		log_warn("control socket: cannot accept connections: %s; trying again after a "
			 "pause of %lld ms, growing to %lld ms while it lasts%s",
			 strerror(-e), (long long)(s->backoff_ns / 1000000),
			 (long long)(CONTROL_BACKOFF_MAX_NS / 1000000),
			 held ? " (it happened before: not every time is logged)" : "");
	s->failing = true;
	s->backoff_ns = s->backoff_ns * 2 > CONTROL_BACKOFF_MAX_NS ? CONTROL_BACKOFF_MAX_NS
								   : s->backoff_ns * 2;
}

/* on_listener - accept what is queued, at most a table's worth per
 * wakeup so a flood of connections cannot starve the rest of the loop
 * (the listener stays readable: the next wakeup takes more). */
static void on_listener(struct control_server *s, int64_t now)
{
	int i, e;

	for (i = 0; i < CONTROL_CONN_MAX; i++) {
		e = accept_one(s, now);
		if (e == -EAGAIN || e == -EWOULDBLOCK)
			return;
		if (e == -EINTR || e == -ECONNABORTED)
			continue;
		if (e) {
			/* EMFILE, ENFILE, ENOBUFS, ENOMEM, or anything we do
			 * not expect: the listener would stay readable and
			 * every retry fail the same way */
			pause_accepting(s, e, now);
			return;
		}
	}
}

/* --- the owner's interface ----------------------------------------------- */

int control_server__open(struct control_server *s, const char *path, gid_t gid, int epfd,
			 control_handler *handle, void *ctx, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int e;

	control_server__init(s);
	s->epfd = epfd;
	s->gid = gid;
	s->handle = handle;
	s->ctx = ctx;
	e = control_socket__open(&s->sock, path, gid, err, errlen);
	if (e)
		return e;
	ev.data.fd = s->sock.fd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->sock.fd, &ev)) {
		e = -errno;
		snprintf(err, errlen, "control socket %s: %s", path, strerror(-e));
		control_socket__close(&s->sock);
	}
	return e;
}

void control_server__close(struct control_server *s)
{
	size_t i;

	for (i = 0; i < CONTROL_CONN_MAX; i++)
		if (s->conns[i].fd >= 0)
			conn_close(&s->conns[i]);
	control_socket__close(&s->sock);
}

bool control_server__owns(const struct control_server *s, int fd)
{
	size_t i;

	if (fd < 0)
		return false;
	if (fd == s->sock.fd)
		return true;
	for (i = 0; i < CONTROL_CONN_MAX; i++)
		if (s->conns[i].fd == fd)
			return true;
	return false;
}

void control_server__dispatch(struct control_server *s, int fd, uint32_t events, int64_t now)
{
	struct control_conn *c;

	if (fd == s->sock.fd) {
		if (!s->paused)
			on_listener(s, now);
		return;
	}
	c = find_conn(s, fd);
	if (!c)
		return;
	if (c->out)
		flush(s, c); /* EPOLLOUT, or an error the send will report */
	else if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		on_readable(s, c);
}

void control_server__expire(struct control_server *s, int64_t now)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = s->sock.fd };
	size_t i;

	for (i = 0; i < CONTROL_CONN_MAX; i++) {
		if (s->conns[i].fd >= 0 && now >= s->conns[i].deadline_ns) {
			s->expired++;
			conn_close(&s->conns[i]);
		}
	}
	if (!s->paused || now < s->resume_ns)
		return;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sock.fd, &ev) && errno != EEXIST) {
		pause_accepting(s, -errno, now);
		return;
	}
	s->paused = false;
}

int control_server__timeout_ms(const struct control_server *s, int64_t now)
{
	int64_t next = INT64_MAX, ms;
	size_t i;

	for (i = 0; i < CONTROL_CONN_MAX; i++)
		if (s->conns[i].fd >= 0 && s->conns[i].deadline_ns < next)
			next = s->conns[i].deadline_ns;
	if (s->paused && s->resume_ns < next)
		next = s->resume_ns;
	if (next == INT64_MAX)
		return -1;
	if (next <= now)
		return 0;
	ms = (next - now + 999999) / 1000000; /* rounded up: never wake early and spin */
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

size_t control_server__connections(const struct control_server *s)
{
	size_t i, n = 0;

	for (i = 0; i < CONTROL_CONN_MAX; i++)
		n += s->conns[i].fd >= 0;
	return n;
}
