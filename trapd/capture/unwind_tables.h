/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* unwind_tables.h - the kernel walk's tables (bpf/sampler.h), kept in
 * the sampler's maps: each file a walk meets without a table is asked
 * for on the events ring; this module opens it through the asking
 * process's map_files entry (never a path a user could plant: the entry
 * is the mapped file itself, checked to be the device and inode the
 * kernel named), builds its table (unwind_table.h) and writes the rows
 * into the rows array, then publishes where they are. Every process that
 * maps the file then walks with them.
 *
 * The rows array has a fixed size (the memory bound). The tables of the
 * files one user owns take at most half of it: past that, the user's
 * oldest tables go; when it is full, the oldest of the owner taking the
 * most. A table larger than half the array is not loaded (its file's
 * frames are walked by frame pointers, or copied). Both are counted, and
 * logged at most once a minute. A file
 * that cannot be opened, or has no usable CFI, is published without rows,
 * so it is not asked for again.
 *
 * Building a table reads the file's .eh_frame (cfi.h's bounds): about
 * 10 ms for libc, 0.5 s for the largest files seen (librustc_driver, 1.1
 * million rows), longer for a hostile file. So it runs on a thread of its
 * own, one file at a time: the thread that drains the sampler's events
 * only queues requests (MAX_QUEUED; past it a request is dropped,
 * counted, and asked again by a later walk). Meanwhile that file's frames
 * are walked by frame pointers.
 */
#ifndef TRAPD_UNWIND_TABLES_H
#define TRAPD_UNWIND_TABLES_H

#include <stdint.h>

#include <linux/types.h>

#include "bpf/sampler.h"

struct unwind_tables;

struct unwind_tables_stats {
	uint64_t files;		/* published with rows */
	uint64_t files_without; /* published without: no usable CFI */
	uint64_t files_failed;	/* could not be opened, or not the file named */
	uint64_t files_too_big; /* more rows than a table may have */
	uint64_t files_evicted; /* pushed out by later ones */
	uint64_t rows_used, rows_max;
	uint64_t build_ns;	   /* spent building tables */
	uint64_t requests_dropped; /* the builder's queue was full */
};

/* unwind_tables__new - tables in the sampler's maps: @rows_fd (an
 * mmap-able array of @rows_max struct sampler_unwind_row), @files_fd
 * (unwind_files) and @asked_fd (unwind_asked); the fds stay the
 * caller's. @proc_root is /proc. NULL with errno on failure. */
struct unwind_tables *unwind_tables__new(int rows_fd, uint32_t rows_max, int files_fd, int asked_fd,
					 const char *proc_root);
void unwind_tables__free(struct unwind_tables *t);

/* unwind_tables__want - queue one request from the events ring for the
 * builder's thread. */
void unwind_tables__want(struct unwind_tables *t, const struct sampler_unwind_want *w);

/* unwind_tables__get_stats - the counters (any thread). */
void unwind_tables__get_stats(struct unwind_tables *t, struct unwind_tables_stats *out);

#endif
