/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* unwind_tables.h - the kernel walk's tables (bpf/sampler.h) and the
 * maps that hold them, made here and shared by every sampler given them
 * (the daemon's capture sampler and its flight recorder walk with one
 * set, built once): each file a walk meets without a table is asked for
 * on a sampler's events ring; this module opens it through the asking
 * process's map_files entry (never a path a user could plant: the entry
 * is the mapped file itself, checked to be the device and inode the
 * kernel named), builds its table (unwind_table.h) and writes the rows
 * into the rows array, then publishes where they are. Every process that
 * maps the file then walks with them.
 *
 * The rows array has a fixed size (the memory bound). The tables of the
 * files one user (not root) owns take at most half of it: past that, the
 * user's oldest tables go; when it is full, the oldest of the user taking
 * the most, and root's (the system's files) only when no user has any. A table larger than half the array is not loaded (its file's
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

#include <stddef.h>
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

/* The maps, for a sampler to use (bpf_map__reuse_fd) before it loads. */
struct unwind_tables_maps {
	int rows;  /* unwind_rows: an mmap-able array of struct sampler_unwind_row */
	int files; /* unwind_files */
	int asked; /* unwind_asked */
	int vmas;  /* walk_vmas */
};

/* Where the fields the walk reads are in the running kernel's structures
 * (from its BTF: kernel_btf.h), for the program's read-only data. */
struct unwind_tables_layout {
	uint32_t vma_start, vma_end, vma_pgoff, vma_file;
	uint32_t file_inode, inode_ino, inode_sb, sb_dev;
};

/* unwind_tables__new - empty tables of at most @rows_max rows (8 bytes
 * each: the memory bound) in maps of their own, and the builder's thread.
 * @proc_root is /proc. NULL with errno and @err filled on failure (no
 * kernel BTF, maps refused, ...). One reference, the caller's. */
struct unwind_tables *unwind_tables__new(uint32_t rows_max, const char *proc_root, char *err,
					 size_t errlen);

/* unwind_tables__get, __put - references: the last put stops the
 * builder and frees the maps (a sampler loaded with them keeps the
 * kernel's objects alive). NULL is fine. */
struct unwind_tables *unwind_tables__get(struct unwind_tables *t);
void unwind_tables__put(struct unwind_tables *t);

const struct unwind_tables_maps *unwind_tables__maps(const struct unwind_tables *t);
const struct unwind_tables_layout *unwind_tables__layout(const struct unwind_tables *t);

/* unwind_tables__want - queue one request from the events ring for the
 * builder's thread. */
void unwind_tables__want(struct unwind_tables *t, const struct sampler_unwind_want *w);

/* unwind_tables__get_stats - the counters (any thread). */
void unwind_tables__get_stats(struct unwind_tables *t, struct unwind_tables_stats *out);

#endif
