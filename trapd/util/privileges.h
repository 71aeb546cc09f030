/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* privileges.h - whether this process may load BPF programs and open
 * perf events on every CPU: root, or CAP_BPF and CAP_PERFMON (or
 * CAP_SYS_ADMIN) in its effective set. The commands that sample ask it
 * first, so a user without them gets one line saying so, not libbpf's. */
#ifndef TRAPD_PRIVILEGES_H
#define TRAPD_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* privileges__can_sample - true, or false once it has said what is
 * missing (an error on the log). */
bool privileges__can_sample(void);

/* privileges__check_caps - privileges__can_sample on the CapEff mask
 * @cap_eff and effective uid @euid (for tests). */
bool privileges__check_caps(unsigned long long cap_eff, unsigned euid, char *why, size_t len);

#endif
