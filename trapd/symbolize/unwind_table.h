/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* unwind_table.h - one file's call frame information as the table the
 * kernel walk reads (struct sampler_unwind_row, bpf/sampler.h): sorted
 * rows keyed by file offset, each saying how a frame there finds its
 * caller in a few instructions.
 *
 * The rows come from cfi.h (libdw runs every FDE's program, within
 * cfi.h's bounds) and are reduced to what a BPF program can apply: the
 * CFA as sp or bp plus an offset, or bp's word (a realigned stack), the
 * PLT's expression (GCC's), a signal frame, an entry (no caller); the
 * caller's rbp unchanged or saved at the CFA plus an offset. Anything else
 * is a row of kind SAMPLER_UNWIND_INVALID, where the walk takes the frame
 * pointer, counted by kind in the table's stats. Gaps between FDEs are
 * rows of kind SAMPLER_UNWIND_GAP, as is the end of the last one.
 *
 * Offsets are where each pc's byte is in the file (through the executable
 * PT_LOAD that holds it): a pc's offset is pc - mapping start + mapping
 * offset, whatever the segments' packing, so the table needs no load
 * bias.
 *
 * The file is a target's: hostile input. A file past 4 GiB, or with
 * more than @max_rows rows, has no table (E2BIG); overlapping FDEs keep
 * the rows of the first, so the table is always sorted.
 */
#ifndef TRAPD_UNWIND_TABLE_H
#define TRAPD_UNWIND_TABLE_H

#include <stdint.h>

#include <linux/types.h>

#include "bpf/sampler.h"

struct cfi;

/* The CFI rows a table of n rows may be made from: n times this. */
#define UNWIND_TABLE_CFI_ROWS_PER_ROW 4

struct unwind_table_stats {
	uint64_t rows[SAMPLER_UNWIND_KINDS]; /* rows by kind */
	uint64_t rbp_lost;		     /* rows after which rbp is unknown */
	uint64_t dropped;		     /* rows outside executable segments, or overlapping */
	uint64_t folded;		     /* rows the one before holds (same rule, or a fold) */
};

struct unwind_table {
	struct sampler_unwind_row *rows;
	uint32_t n, cap;
	/* CFA offsets too far for a row (frames past 16 KiB: rustc has one
	 * of 527 KiB at the root of every compiler thread): a wide row
	 * indexes them. They follow the rows in the kernel's array. */
	int32_t *far;
	uint32_t nfar, far_cap;
	struct unwind_table_stats stats;
};

/* unwind_table__build - the table of the file whose CFI is @c, at most
 * @max_rows rows. Returns 0 with @t filled (free it with
 * unwind_table__release; zero rows is a file without CFI), -E2BIG (over
 * @max_rows, or past 4 GiB) or -ENOMEM. */
int unwind_table__build(struct cfi *c, uint32_t max_rows, struct unwind_table *t);

void unwind_table__release(struct unwind_table *t);

/* unwind_table__find - the row of file offset @off in @t (the last row at
 * or before it), NULL when there is none: what the program's search
 * finds, for tests and tools. */
const struct sampler_unwind_row *unwind_table__find(const struct unwind_table *t, uint32_t off);

/* unwind_table__cfa_offset - the bytes row @r of @t adds to its CFA's
 * base at file offset @off (in its range): its fold applied, or its far
 * offset. The CFA_* kinds. */
int32_t unwind_table__cfa_offset(const struct unwind_table *t, const struct sampler_unwind_row *r,
				 uint32_t off);

/* unwind_table__kind_name - "cfa_sp", "plt", ... */
const char *unwind_table__kind_name(unsigned kind);

#endif
