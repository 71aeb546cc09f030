/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* proc_match.h - whether a process found by its comm is the one a rule
 * means (struct rule_pin): its real and effective uid, the binary it runs
 * and the cgroup it is in, read from @proc_root/PID. A comm is whatever
 * the process's owner set (prctl(PR_SET_NAME) needs no privilege); these
 * are not. The text parsers are fuzzed (tests/fuzz/fuzz_procstat.c).
 */
#ifndef TRAPD_PROC_MATCH_H
#define TRAPD_PROC_MATCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "rules/rules_model.h"

/* proc_match_pinned - whether @pin sets anything at all. */
bool proc_match_pinned(const struct rule_pin *pin);

/* proc_match_pin - whether process @pid under @proc_root holds every pin
 * of @pin that is set (true when none is). A process that is gone, or
 * whose files cannot be read, does not match. Reads status for a user,
 * exe (and ns/mnt of a deleted binary) for an exe, cgroup for a cgroup:
 * only what is pinned, and only for processes whose comm matched. */
bool proc_match_pin(const char *proc_root, pid_t pid, const struct rule_pin *pin);

/* proc_match_find - every pid under @proc_root whose comm is @comm (at
 * most 15 bytes compared) and that holds @pin (NULL: no pins), in /proc
 * order, at most @max in @pids; *@n is how many. Returns 0 (also when
 * none matched) or a negative errno when @proc_root cannot be read, with
 * @err. One scan of /proc: for one rule at a time (a capture's target);
 * the poll tick serves every rule with one (signal_sources__scan). */
int proc_match_find(const char *proc_root, const char *comm, const struct rule_pin *pin,
		    pid_t *pids, size_t max, size_t *n, char *err, size_t errlen);

/* proc_match_parse_uids - the real and effective uids of the "Uid:" line
 * of a /proc/PID/status text. Returns 0 or -EINVAL. */
int proc_match_parse_uids(const char *text, uid_t *real, uid_t *effective);

/* proc_match_cgroup - whether a /proc/PID/cgroup text puts the process in
 * @want ("system.slice/x.service", no leading '/') or below it, in the
 * v2 hierarchy ("0::/PATH") or any v1 one ("N:CONTROLLERS:/PATH"). */
bool proc_match_cgroup(const char *text, const char *want);

/* proc_match_exe_text - whether the target of a /proc/PID/exe link,
 * @link, names @want; *@deleted says the binary was deleted (or replaced)
 * since the process ran it: the link then ends in " (deleted)". */
bool proc_match_exe_text(const char *link, const char *want, bool *deleted);

#endif
