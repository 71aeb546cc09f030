// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* control_socket.c - the control socket's file: a checked directory, then
 * only fd-relative calls (see control_socket.h for why). */
#include "trapd/daemon/control_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define BACKLOG 64
#define MAX_DEPTH 64 /* directories above the socket's we check */

void control_socket__init(struct control_socket *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->fd = -1;
	cs->dirfd = -1;
}

/* split - @path's directory and last component into @cs. */
static int split(struct control_socket *cs, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t dlen = slash ? (size_t)(slash - path) : 0;

	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > NAME_MAX)
		return -EINVAL;
	if (!slash)
		snprintf(cs->dir, sizeof(cs->dir), ".");
	else if (dlen == 0)
		snprintf(cs->dir, sizeof(cs->dir), "/");
	else
		snprintf(cs->dir, sizeof(cs->dir), "%.*s", (int)dlen, path);
	snprintf(cs->name, sizeof(cs->name), "%s", name);
	return 0;
}

/* open_dir - the directory, created (one level, 0755 whatever our umask)
 * when missing. O_NOFOLLOW: a symlink there is refused, not followed. */
static int open_dir(const char *dir)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	bool created = false;
	struct stat st;
	int fd;

	fd = open(dir, flags);
	if (fd < 0 && errno == ENOENT) {
		if (mkdir(dir, 0755) == 0)
			created = true;
		else if (errno != EEXIST)
			return -errno;
		fd = open(dir, flags);
	}
	if (fd < 0)
		return -errno;
	/* fchmod through the fd: whatever is at the path now, we change
	 * only a directory we own */
	if (created && !fstat(fd, &st) && st.st_uid == geteuid())
		fchmod(fd, 0755);
	return fd;
}

static bool owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* fd_name - where @fd is, for a message. */
static const char *fd_name(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	if (n < 0)
		snprintf(buf, len, "(unknown)");
	else
		buf[n] = '\0';
	return buf;
}

/* check_ancestors - every directory above @fd: root's (or ours), and
 * writable by no one else unless sticky. Otherwise its owner could move
 * our directory away and put one of theirs in its place. */
static int check_ancestors(int fd, const char *dir, char *err, size_t errlen)
{
	struct stat st, up;
	char where[PATH_MAX];
	int cur = -1, next, depth, e = 0;

	if (fstat(fd, &st))
		return -errno;
	for (depth = 0; depth < MAX_DEPTH; depth++) {
		next = openat(cur < 0 ? fd : cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up)) {
			e = -errno;
			snprintf(err, errlen, "control socket directory %s: its parent: %s", dir,
				 strerror(-e));
			break;
		}
		if (cur >= 0)
			close(cur);
		cur = next;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break; /* "/" is its own parent */
		if (!owner_ok(&up) || ((up.st_mode & 022) && !(up.st_mode & S_ISVTX))) {
			e = -EPERM;
			snprintf(
				err, errlen,
				"control socket directory %s: %s above it is owned by uid %u, mode "
				"%04o: every directory above the socket must be owned by root and "
				"writable by no one else (or sticky, like /tmp); fix %s or set "
				"[global] control_socket to a path under root's directories",
				dir, fd_name(cur, where, sizeof(where)), (unsigned)up.st_uid,
				(unsigned)(up.st_mode & 07777), where);
			break;
		}
		st = up;
	}
	if (cur >= 0)
		close(cur);
	return e;
}

/* check_dir - the socket's own directory: root's (or ours) and writable
 * by no one else, sticky or not (a sticky directory still lets others
 * create the name before us). */
static int check_dir(int fd, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!owner_ok(&st) || (st.st_mode & 022)) {
		snprintf(err, errlen,
			 "control socket directory %s is owned by uid %u, mode %04o: it must be "
			 "owned by root and writable by no one else; fix it with 'chown root:root "
			 "%s && chmod 0755 %s', or set [global] control_socket to a path in such "
			 "a directory",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), dir, dir);
		return -EPERM;
	}
	return check_ancestors(fd, dir, err, errlen);
}

/* fd_addr - the socket's address through the directory's fd, so the
 * kernel binds (or connects) in the directory we checked, whatever its
 * path names now. */
static int fd_addr(const struct control_socket *cs, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", cs->dirfd,
		     cs->name);
	return n < 0 || (size_t)n >= sizeof(sa->sun_path) ? -ENAMETOOLONG : 0;
}

static bool someone_listens(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	bool live;

	if (fd < 0)
		return false;
	/* non-blocking: a live daemon with a full backlog says EAGAIN */
	live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 || errno == EAGAIN;
	close(fd);
	return live;
}

/* clear_stale - remove a socket a dead daemon left; never anything else
 * (lstat semantics: a symlink is not followed, and is not a socket). */
static int clear_stale(struct control_socket *cs, const struct sockaddr_un *sa, char *err,
		       size_t errlen)
{
	struct stat st;

	if (fstatat(cs->dirfd, cs->name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen,
			 "control socket %s/%s exists and is not a socket: trapd will not remove "
			 "it; remove it or set [global] control_socket elsewhere",
			 cs->dir, cs->name);
		return -EEXIST;
	}
	if (someone_listens(sa)) {
		snprintf(err, errlen,
			 "control socket %s/%s: another trapd daemon is listening on it", cs->dir,
			 cs->name);
		return -EADDRINUSE;
	}
	if (unlinkat(cs->dirfd, cs->name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

/* bind_listen - bind created 0600 (the umask: no moment when it is open
 * to others), then group and mode without following a symlink. */
static int bind_listen(struct control_socket *cs, const struct sockaddr_un *sa, gid_t gid)
{
	struct stat st;
	mode_t old;
	int e;

	cs->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (cs->fd < 0)
		return -errno;
	old = umask(0177);
	e = bind(cs->fd, (const struct sockaddr *)sa, sizeof(*sa)) ? -errno : 0;
	umask(old);
	if (e)
		return e;
	if (fstatat(cs->dirfd, cs->name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	cs->dev = st.st_dev;
	cs->ino = st.st_ino;
	if (gid != (gid_t)-1 &&
	    (fchownat(cs->dirfd, cs->name, (uid_t)-1, gid, AT_SYMLINK_NOFOLLOW) ||
	     fchmodat(cs->dirfd, cs->name, 0660, AT_SYMLINK_NOFOLLOW)))
		return -errno;
	return listen(cs->fd, BACKLOG) ? -errno : 0;
}

int control_socket__open(struct control_socket *cs, const char *path, gid_t gid, char *err,
			 size_t errlen)
{
	struct sockaddr_un sa;
	int e;

	control_socket__init(cs);
	err[0] = '\0'; /* the checks say what is wrong; a bare errno says less */
	e = split(cs, path);
	if (!e) {
		cs->dirfd = open_dir(cs->dir);
		e = cs->dirfd < 0 ? cs->dirfd : 0;
		if (e == -ELOOP || e == -ENOTDIR) {
			snprintf(err, errlen,
				 "control socket directory %s: not a directory (a symbolic link?): "
				 "name the real directory in [global] control_socket",
				 cs->dir);
			e = -EPERM;
		}
	}
	if (!e)
		e = check_dir(cs->dirfd, cs->dir, err, errlen);
	if (!e)
		e = fd_addr(cs, &sa);
	if (!e)
		e = clear_stale(cs, &sa, err, errlen);
	if (!e)
		e = bind_listen(cs, &sa, gid);
	if (e && !err[0])
		snprintf(err, errlen, "control socket %s: %s", path,
			 e == -EINVAL ? "not a file name" : strerror(-e));
	if (e)
		control_socket__close(cs);
	return e;
}

void control_socket__close(struct control_socket *cs)
{
	struct stat st;

	if (cs->fd >= 0)
		close(cs->fd);
	if (cs->dirfd >= 0 && cs->ino && !fstatat(cs->dirfd, cs->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISSOCK(st.st_mode) && st.st_dev == cs->dev && st.st_ino == cs->ino)
		unlinkat(cs->dirfd, cs->name, 0);
	if (cs->dirfd >= 0)
		close(cs->dirfd);
	cs->fd = -1;
	cs->dirfd = -1;
	cs->ino = 0;
}
