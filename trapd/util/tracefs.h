/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tracefs.h - where tracefs is, and what a tracepoint's record looks like.
 *
 * Classic tracepoints need tracefs (libbpf reads event ids from it), and
 * their record layouts change between kernels (sched_process_fork's comms
 * became dynamic strings in 6.x), so offsets are read from the event's
 * format file rather than compiled in.
 */
#ifndef TRAPD_TRACEFS_H
#define TRAPD_TRACEFS_H

#include <stddef.h>

/* tracefs_dir - the tracefs mount: /sys/kernel/tracing or
 * /sys/kernel/debug/tracing, mounting tracefs at the former when neither
 * is there (needs root). NULL when there is none (errno set). */
const char *tracefs_dir(void);

/* tracefs_field_offset - the byte offset of @field in the record of
 * @event ("sched/sched_process_fork"), read from @dir/events/@event/format.
 * Returns the offset (>= 0) or a negative errno (-ENOENT: no such event or
 * field). @size_out, if not NULL, gets the field's size. */
int tracefs_field_offset(const char *dir, const char *event, const char *field, int *size_out);

#endif
