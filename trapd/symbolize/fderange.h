/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fderange.h - the function ranges of an ELF file, from the FDEs of its
 * .eh_frame, for naming code that no symbol covers.
 *
 * A stripped library keeps only .dynsym, which leaves its static
 * functions without a name: each sampled instruction would become a
 * "function" of its own, and the top table and flame graph show
 * thousands of one-address rows where the code has a few dozen
 * functions. The unwind tables cannot be stripped (exceptions and
 * backtraces need them), and their FDEs cover exactly one function, or
 * one part of it (a .cold part has its own), each: a frame is grouped by
 * the start of its FDE.
 *
 * .eh_frame is parsed here, not by libdw: the file is hostile input, and
 * every read is bounds-checked against the section, whose size and FDE
 * count are capped before anything is kept (the fuzz harness sees all of
 * the parser). The section is read with libelf's pread path, never
 * mapped.
 */
#ifndef TRAPD_FDERANGE_H
#define TRAPD_FDERANGE_H

#include <stddef.h>
#include <stdint.h>

#define FDERANGE_MAX_SECTION (256ull << 20) /* bytes of .eh_frame read */
#define FDERANGE_MAX_RANGES (4u << 20)	    /* FDEs kept */

/* What one load may spend, and (out) what it did spend. A section over
 * @bytes or holding more FDEs than @ranges is skipped whole, never cut. */
struct fderange_limits {
	uint64_t bytes;	 /* in: of .eh_frame to read; out: read */
	uint64_t ranges; /* in: FDEs to keep; out: kept */
};

/* Why a load gave nothing (fderange_cost.over). */
#define FDERANGE_OVER_BYTES 1u
#define FDERANGE_OVER_RANGES 2u

struct fderange;

/* fderange__open_fd - the FDE ranges of the ELF file open at @fd (read
 * with pread; the caller keeps @fd), within @lim (NULL: only the fixed
 * caps). @spent, if not NULL, gets what was read and kept, and @over
 * (if not NULL) which limits refused the section. NULL and errno on
 * failure: ENOEXEC not a usable ELF file, ENOENT no .eh_frame or no FDE
 * in it, E2BIG over a limit, ENOMEM. Free with fderange__free. */
struct fderange *fderange__open_fd(int fd, const struct fderange_limits *lim,
				   struct fderange_limits *spent, unsigned *over);

/* fderange__parse - the same from the bytes of an .eh_frame section,
 * @buf[0..len), loaded at virtual address @sh_addr in a file whose
 * addresses are @addr_size (4 or 8) bytes: what fderange__open_fd does
 * once it has read the section. At most @max_ranges FDEs (E2BIG past
 * them). Malformed entries are skipped; parsing stops at the first entry
 * whose length does not fit. NULL and errno on failure. */
struct fderange *fderange__parse(const void *buf, size_t len, uint64_t sh_addr, unsigned addr_size,
				 uint64_t max_ranges);

void fderange__free(struct fderange *r);

/* fderange__lookup - the [*@start, *@end) of the FDE holding the
 * virtual address @vaddr: 0, or -ENOENT when none does. Either pointer
 * may be NULL. */
int fderange__lookup(const struct fderange *r, uint64_t vaddr, uint64_t *start, uint64_t *end);

/* fderange__count - the number of ranges kept (FDEs with a non-empty
 * range, one per start address). */
size_t fderange__count(const struct fderange *r);

/* fderange__memory - about how many bytes @r holds. */
size_t fderange__memory(const struct fderange *r);

#endif
