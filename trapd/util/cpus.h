/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cpus.h - the CPUs the kernel has online, as it lists them in
 * /sys/devices/system/cpu/online ("0-3,5"): their ids, for what opens
 * one event a CPU (the sampler), and their count, for what is shared
 * among them (the overhead budget, the stack copy buffers). */
#ifndef TRAPD_CPUS_H
#define TRAPD_CPUS_H

#define CPUS_ONLINE_PATH "/sys/devices/system/cpu/online"

/* cpus_parse - the ids in a CPU list ("0-3,5\n") into @cpus (NULL: only
 * counted), at most @max. Returns how many, -EINVAL for a malformed list,
 * or -E2BIG past @max. */
int cpus_parse(const char *text, int *cpus, int max);

/* cpus_online - the online CPUs' ids into @cpus; how many, or a negative
 * errno. */
int cpus_online(int *cpus, int max);

/* cpus_online_count - how many CPUs are online; 1 when that cannot be
 * read. */
int cpus_online_count(void);

#endif
