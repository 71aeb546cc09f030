/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* proc_events.h - whether any process of the host was born, exec'd,
 * renamed, changed its ids or ended since the last look, from the
 * kernel's own process events (the proc connector: a NETLINK_CONNECTOR
 * socket joined to CN_IDX_PROC).
 *
 * A rule that follows processes by name lists /proc and reads every
 * process's name at each poll tick: on an idle host, half of an idle
 * daemon's CPU (bench/daemon). When nothing of the kind happened since
 * the last scan, its result still holds, and the tick need not scan.
 * Only new processes (a fork that makes a thread group, not a thread),
 * exec, comm changes of a group leader, uid and gid changes and exits of
 * a group leader count; the socket is drained at each look, without
 * blocking, 32 datagrams to a system call (a fork-heavy host sends
 * thousands a second), and a socket the kernel overflowed (ENOBUFS:
 * events lost) counts as a change.
 *
 * Opening needs CAP_NET_ADMIN in the initial namespaces; where it fails
 * (a container, no connector in the kernel) the caller scans at every
 * tick as before. Messages are checked before they are read: from the
 * kernel (port id 0), whole netlink and connector headers, the proc
 * connector's id (tests/fuzz/fuzz_proc_events.c).
 */
#ifndef TRAPD_RULES_PROC_EVENTS_H
#define TRAPD_RULES_PROC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

struct proc_events;

/* proc_events__open - join the proc connector's events into *@out.
 * Returns 0 or a negative errno (-EPERM without CAP_NET_ADMIN,
 * -EPROTONOSUPPORT without the connector). */
int proc_events__open(struct proc_events **out);

/* proc_events__changed - drain what came since the last call; true when
 * a process event that can change a scan's result was among it (or some
 * were lost). Never blocks. */
bool proc_events__changed(struct proc_events *e);

/* proc_events__close - leave and free; NULL is fine. */
void proc_events__close(struct proc_events *e);

/* proc_events_parse - the @len bytes of one datagram at @buf: true when
 * it holds an event that counts (above). Malformed messages count as
 * nothing. Exposed for tests and the fuzzer. */
bool proc_events_parse(const void *buf, size_t len);

#endif
