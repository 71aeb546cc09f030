/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cfi.h - the call frame information (.eh_frame) of one x86-64 ELF file,
 * as compact rules the stack walker (unwinder.h) can apply in a few
 * instructions.
 *
 * The file belongs to a target process: it is hostile input. It is read
 * (never mapped, so a file truncated under us cannot SIGBUS trapd) with
 * libelf's ELF_C_READ after its headers were checked against its size;
 * only .eh_frame and .eh_frame_hdr are read, within a byte cap, and the
 * fd is not kept. libdw (dwarf_getcfi_elf, dwarf_cfi_addrframe) runs the
 * CFA programs; an FDE is first found in the .eh_frame_hdr search table
 * here (the sections picked as libdw picks them, the table checked to be
 * in order, so that libdw finds the same FDE), and its programs are
 * decoded (cfi_program.h): one longer than CFI_MAX_FDE, or that libdw
 * would take more than a tenth of a millisecond to run, is refused first.
 * A file without a binary search table in .eh_frame_hdr is treated as
 * having no CFI (every toolchain of the last decade writes one;
 * .debug_frame is not read).
 *
 * Rules found are kept in a small per-file cache by pc, so a pc seen
 * again costs a hash lookup, not a run of the CFA program.
 *
 * One cfi belongs to one thread.
 */
#ifndef TRAPD_CFI_H
#define TRAPD_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFI_MAX_BYTES (64u << 20) /* of .eh_frame and .eh_frame_hdr of a file */
#define CFI_MAX_FDE (16u << 10)	  /* bytes of one FDE, or of its CIE's program */
#define CFI_MAX_EXPR_OPS 32	  /* operations of one DWARF expression */
#define CFI_MAX_EXPRS 256	  /* distinct expressions kept per file */

/* DWARF register numbers of x86-64 */
#define CFI_REG_RBP 6
#define CFI_REG_RSP 7
#define CFI_REG_RIP 16

enum cfi_rule_kind {
	CFI_RULE_UNDEFINED = 0, /* no value: the caller's register is lost */
	CFI_RULE_SAME,		/* the caller's value is this frame's */
	CFI_RULE_OFFSET,	/* saved at CFA + off */
	CFI_RULE_VAL_OFFSET,	/* the value is CFA + off (for the CFA: reg + off) */
	CFI_RULE_REGISTER,	/* the value is this frame's register reg */
	CFI_RULE_EXPR,		/* saved at the address expression expr computes */
	CFI_RULE_VAL_EXPR,	/* the value is what expression expr computes */
};

struct cfi_rule {
	uint8_t kind;  /* enum cfi_rule_kind */
	uint8_t reg;   /* CFI_RULE_REGISTER, and the CFA's CFI_RULE_VAL_OFFSET */
	uint16_t expr; /* CFI_RULE_EXPR, CFI_RULE_VAL_EXPR: for cfi__eval */
	int32_t off;
};

/* What the frame of one pc says about its caller. */
struct cfi_row {
	struct cfi_rule cfa; /* CFI_RULE_VAL_OFFSET (reg + off) or CFI_RULE_VAL_EXPR */
	struct cfi_rule ra;  /* the return address (rip) */
	struct cfi_rule rbp;
	struct cfi_rule rsp; /* CFI_RULE_VAL_OFFSET 0 (the CFA) unless said otherwise */
	bool signal;	     /* a signal frame: the caller's pc is exact, not a return address */
};

/* This frame's registers, for expressions. */
struct cfi_regs {
	uint64_t rip, rsp, rbp;
	bool rbp_valid;
};

/* Read the 8-byte word at @addr into @val: 0 or a negative errno, which
 * cfi__eval returns as is. */
typedef int (*cfi_read_fn)(void *ctx, uint64_t addr, uint64_t *val);

struct cfi_stats {
	uint64_t bytes; /* of CFI read */
	uint64_t lookups;
	uint64_t cache_hits;
};

struct cfi;

/* cfi__open_fd - read the CFI of the ELF file @fd (a regular file; the fd
 * stays the caller's and is not used after the call), at most @max_bytes
 * of it (0: CFI_MAX_BYTES). Returns the cfi, or NULL with errno: ENOENT
 * (no usable .eh_frame and .eh_frame_hdr), E2BIG (over the cap), EINVAL
 * (not a sound x86-64 ELF file), ENOMEM. */
struct cfi *cfi__open_fd(int fd, uint64_t max_bytes);

/* cfi__open_mem - the same from the ELF image @image[0..len), copied (the
 * caller keeps @image): the vDSO. */
struct cfi *cfi__open_mem(const void *image, size_t len, uint64_t max_bytes);

/* cfi__free - release @c; NULL is fine. */
void cfi__free(struct cfi *c);

/* cfi__rule - the rule of the frame whose pc is the file address @vaddr;
 * with @is_return_address, @vaddr is a return address and the rule of the
 * call instruction before it (vaddr - 1) is given. Returns 0 with @row
 * filled, -ENOENT when no FDE covers the pc, -EINVAL when the CFI there
 * is malformed or cannot be expressed as a cfi_row. */
int cfi__rule(struct cfi *c, uint64_t vaddr, bool is_return_address, struct cfi_row *row);

/* cfi__eval - evaluate expression @expr of a row of @c with this frame's
 * registers @regs and CFA @cfa (ignored for the CFA's own expression),
 * reading stack words with @read. Returns 0 with @out, -EINVAL for an
 * operation outside the supported subset, an unknown register, a stack
 * underflow or overflow, or what @read returned. */
int cfi__eval(const struct cfi *c, uint16_t expr, const struct cfi_regs *regs, uint64_t cfa,
	      cfi_read_fn read, void *ctx, uint64_t *out);

/* cfi__function_range - the pc range [*start, *end) of the FDE covering
 * the file address @vaddr (the function, or its hot or cold part).
 * Returns 0, or -ENOENT. */
int cfi__function_range(struct cfi *c, uint64_t vaddr, uint64_t *start, uint64_t *end);

/* cfi__offset_to_vaddr - the file address of file offset @off, through
 * the PT_LOAD segments. Returns 0, or -ENOENT when no segment holds it. */
int cfi__offset_to_vaddr(const struct cfi *c, uint64_t off, uint64_t *vaddr);

/* cfi__exec_mapping_vaddr - the file address where an executable mapping
 * of the file from offset @off (page aligned, as the kernel maps it)
 * begins: through the executable PT_LOAD segment whose pages hold @off.
 * lld, mold and rustc pack segments within a page, so the page-aligned
 * offset of the text segment's mapping may lie in the segment before it,
 * or before the text's own first byte: a lookup of @off among all
 * segments by their exact offsets picks the wrong one (every pc then
 * off by a page). Returns 0, or -ENOENT. */
int cfi__exec_mapping_vaddr(const struct cfi *c, uint64_t off, uint64_t page_size, uint64_t *vaddr);

/* cfi__vaddr_to_exec_offset - the file offset of the file address
 * @vaddr, through the executable PT_LOAD segment that holds it: where a
 * pc's byte is in the file, whatever the segments' packing. Returns 0, or
 * -ENOENT when no executable segment holds it. */
int cfi__vaddr_to_exec_offset(const struct cfi *c, uint64_t vaddr, uint64_t *off);

/* One row of the file's CFI: the rule of the pcs [start, end). @err is 0
 * with @row filled, or why the rule cannot be given (cfi__rule's
 * -EINVAL). */
typedef int (*cfi_row_fn)(void *ctx, uint64_t start, uint64_t end, const struct cfi_row *row,
			  int err);

/* cfi__for_each_row - call @fn for every row of every FDE of the search
 * table, FDE by FDE in address order, and within one in pc order (FDEs
 * may overlap: rows are as each FDE says). An FDE whose programs are out
 * of proportion (cfi.h) is one row with -EINVAL. @fn returning non-zero
 * stops the walk and is returned. At most @max_rows rows are given
 * (-E2BIG past them). Returns 0. */
int cfi__for_each_row(struct cfi *c, uint64_t max_rows, cfi_row_fn fn, void *ctx);

void cfi__get_stats(const struct cfi *c, struct cfi_stats *out);

#endif
