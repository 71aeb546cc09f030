/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* control_socket.h - the control socket's file, made where no other user
 * can touch it.
 *
 * trapd runs as root and its socket's directory may sit in a tree other
 * users can write. So the directory is opened once (O_NOFOLLOW) and
 * checked through that fd: it and every directory above it must belong
 * to root (or our euid) and be writable by nobody else (an ancestor may
 * be sticky, like /tmp: others cannot rename what is ours in it). From
 * then on every step goes through the fd, never the path: the bind, the
 * group and mode, the stale socket's removal, the removal at exit. A
 * missing directory is created mode 0755: the socket's own mode and the
 * peer check are the gate, and a directory owned by a group would lock
 * out a new control_group after a restart.
 */
#ifndef TRAPD_CONTROL_SOCKET_H
#define TRAPD_CONTROL_SOCKET_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct control_socket {
	int fd;	   /* listening: non-blocking, close-on-exec; -1 */
	int dirfd; /* the checked directory; -1 */
	char name[NAME_MAX + 1];
	char dir[PATH_MAX]; /* for messages */
	dev_t dev;	    /* the socket file we bound: removed at exit only */
	ino_t ino;	    /* if it is still the one there */
};

/* control_socket__init - an unopened socket (fds -1), safe to close. */
void control_socket__init(struct control_socket *cs);

/* control_socket__open - listen on @path, mode 0600, or 0660 and group
 * @gid when @gid is not -1. Its directory is created (one level) when
 * missing. A stale socket there is replaced; anything else there is left
 * alone. Returns 0, or with @err filled:
 *   -EPERM       the directory (or one above it) is not root's alone
 *   -EEXIST      something other than a socket is at @path
 *   -EADDRINUSE  a live daemon answers on @path
 *   another negative errno for a system failure. */
int control_socket__open(struct control_socket *cs, const char *path, gid_t gid, char *err,
			 size_t errlen);

/* control_socket__close - stop listening and remove the socket file if it
 * is still the one we made. Accepts an unopened @cs. */
void control_socket__close(struct control_socket *cs);

#endif
