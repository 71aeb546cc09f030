/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cfi_expr.h - the DWARF expression evaluator of cfi.h's rules, on its
 * own so that it can be read, tested and fuzzed apart from libdw. */
#ifndef TRAPD_CFI_EXPR_H
#define TRAPD_CFI_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/symbolize/cfi.h"

/* One operation as libdw decodes it: the constant forms' value, a
 * breg's offset, bregx's register, in n1; bregx's offset in n2. */
struct cfi_op {
	uint8_t atom;
	uint64_t n1, n2;
};

/* cfi_expr__eval - run @ops[0..n) (at most CFI_MAX_EXPR_OPS) with this
 * frame's registers @regs and CFA @cfa, reading words with @read; the
 * value on top of the stack is *@out. Returns 0, -EINVAL (an operation
 * outside the subset, an unknown register, stack underflow or overflow)
 * or what @read returned. */
int cfi_expr__eval(const struct cfi_op *ops, size_t n, const struct cfi_regs *regs, uint64_t cfa,
		   cfi_read_fn read, void *ctx, uint64_t *out);

/* cfi_expr__of - the operations of expression @expr of a row of @c (as
 * cfi_row's rules name it). Returns 0, or -EINVAL for no such one. */
int cfi_expr__of(const struct cfi *c, uint16_t expr, const struct cfi_op **ops, size_t *n);

#endif
