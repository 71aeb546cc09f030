// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_events.c - the kernel's process events, as "did anything change"
 * (proc_events.h). */
#include "rules/proc_events.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define DATAGRAM_MAX 1024 /* a process event comes in under 100 bytes */
#define BATCH 32	  /* datagrams one recvmmsg reads */
#define DRAIN_MAX 256	  /* datagrams one look reads: a busier host has changed */

struct proc_events {
	int fd;
	/* a fork-heavy host sends thousands of events a second, one datagram
	 * each: they are read BATCH to a system call */
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_nl from[BATCH];
	unsigned char buf[BATCH][DATAGRAM_MAX] __attribute__((aligned(NLMSG_ALIGNTO)));
};

/* counts - whether @ev can change what a scan of processes by name finds. */
static bool counts(const struct proc_event *ev)
{
	switch (ev->what) {
	case PROC_EVENT_FORK: /* a new process, not a new thread */
		return ev->event_data.fork.child_pid == ev->event_data.fork.child_tgid;
	case PROC_EVENT_EXEC:
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		return true;
	case PROC_EVENT_COMM: /* /proc/PID/comm is the group leader's */
		return ev->event_data.comm.process_pid == ev->event_data.comm.process_tgid;
	case PROC_EVENT_EXIT:
		return ev->event_data.exit.process_pid == ev->event_data.exit.process_tgid;
	default:
		return false;
	}
}

/* one_message - the netlink message at @nh (@room bytes left) that
 * counts; its length in *@used (0: stop reading the datagram). */
static bool one_message(const struct nlmsghdr *nh, size_t room, size_t *used)
{
	const struct cn_msg *cn;
	struct proc_event ev;
	size_t need = NLMSG_LENGTH(sizeof(*cn));

	*used = 0;
	if (room < sizeof(*nh) || nh->nlmsg_len < sizeof(*nh) || nh->nlmsg_len > room)
		return false;
	*used = NLMSG_ALIGN(nh->nlmsg_len) < room ? NLMSG_ALIGN(nh->nlmsg_len) : room;
	if (nh->nlmsg_type != NLMSG_DONE || nh->nlmsg_len < need)
		return false;
	cn = NLMSG_DATA(nh);
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
	    cn->len > nh->nlmsg_len - need || cn->len < offsetof(struct proc_event, event_data))
		return false;
	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, cn->data, cn->len < sizeof(ev) ? cn->len : sizeof(ev));
	return counts(&ev);
}

bool proc_events_parse(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	bool any = false;
	size_t used = 1;

	while (len && used) {
		any |= one_message((const struct nlmsghdr *)(const void *)p, len, &used);
		p += used;
		len -= used;
	}
	return any;
}

/* listen_to - ask the connector for the events (PROC_CN_MCAST_LISTEN). */
static int listen_to(int fd)
{
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	unsigned char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(op))]
		__attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nh = (struct nlmsghdr *)(void *)buf;
	struct cn_msg *cn = NLMSG_DATA(nh);

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_pid = (uint32_t)getpid();
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(fd, buf, nh->nlmsg_len, 0) == (ssize_t)nh->nlmsg_len ? 0 : -errno;
}

int proc_events__open(struct proc_events **out)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct proc_events *e;
	int fd, ret, i;

	*out = NULL;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : listen_to(fd);
	e = ret ? NULL : calloc(1, sizeof(*e));
	if (!e) {
		close(fd);
		return ret ? ret : -ENOMEM;
	}
	e->fd = fd;
	for (i = 0; i < BATCH; i++) {
		e->iov[i] = (struct iovec){ .iov_base = e->buf[i], .iov_len = DATAGRAM_MAX };
		e->msg[i].msg_hdr.msg_iov = &e->iov[i];
		e->msg[i].msg_hdr.msg_iovlen = 1;
		e->msg[i].msg_hdr.msg_name = &e->from[i];
	}
	*out = e;
	return 0;
}

/* batch_changed - whether the @n datagrams just read hold an event that
 * counts: of the kernel (port id 0) and no one else's; one cut short
 * counts, unread. */
static bool batch_changed(struct proc_events *e, int n)
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++) {
		const struct msghdr *h = &e->msg[i].msg_hdr;

		if (h->msg_namelen != sizeof(e->from[i]) || e->from[i].nl_pid != 0)
			continue;
		if (h->msg_flags & MSG_TRUNC)
			any = true;
		else
			any |= proc_events_parse(e->buf[i], e->msg[i].msg_len);
	}
	return any;
}

bool proc_events__changed(struct proc_events *e)
{
	bool any = false;
	int read = 0, n, i;

	while (read < DRAIN_MAX) {
		for (i = 0; i < BATCH; i++)
			e->msg[i].msg_hdr.msg_namelen = sizeof(e->from[i]);
		n = recvmmsg(e->fd, e->msg, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return any || errno == ENOBUFS; /* EAGAIN: drained */
		any |= batch_changed(e, n);
		read += n;
		if (n < BATCH) /* nothing more was queued */
			return any;
	}
	return true; /* more than a look reads: surely something changed */
}

void proc_events__close(struct proc_events *e)
{
	if (!e)
		return;
	close(e->fd);
	free(e);
}
