/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* proc_comms.h - the /proc/PID/comm files of a scan, kept open between
 * scans.
 *
 * Every poll tick of a daemon with a rule that finds processes by name
 * reads the name of every process of the host: open, read, read, close
 * for each, three quarters of an idle daemon's system calls. An open comm
 * file reads the task's current name at each pread (a rename shows at
 * once), and is bound to its task, not to its pid: once the task is gone
 * the read fails and the pid's new owner is opened afresh. So a scan here
 * is one pread per process, plus an open for each new one; files of
 * processes no longer listed are closed after each scan. At most
 * PROC_COMMS_MAX files are kept, and never more than half of the fd limit
 * (RLIMIT_NOFILE) when it is created; names past that are read the plain
 * way.
 */
#ifndef TRAPD_RULES_PROC_COMMS_H
#define TRAPD_RULES_PROC_COMMS_H

#include <stddef.h>

#include "rules/proc_stat.h"

#define PROC_COMMS_MAX 4096

struct proc_comms;

/* proc_comms__new - an empty cache; NULL and errno on failure. */
struct proc_comms *proc_comms__new(void);

/* proc_comms__free - close every kept file. NULL is a no-op. */
void proc_comms__free(struct proc_comms *c);

/* proc_comms__scan - proc_stat_scan of @proc_root through @c (a cache for
 * one @proc_root: another one empties it first). */
int proc_comms__scan(struct proc_comms *c, const char *proc_root, proc_stat_scan_fn fn, void *ctx,
		     char *err, size_t errlen);

/* proc_comms__kept - how many files @c holds open. */
size_t proc_comms__kept(const struct proc_comms *c);

#endif
