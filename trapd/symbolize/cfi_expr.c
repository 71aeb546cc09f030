// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cfi_expr.c - evaluate the DWARF expressions of .eh_frame rules: the
 * subset compilers and glibc write (registers, constants, arithmetic,
 * comparisons, shifts, dereference), without branches, so an expression
 * of n operations takes n steps. Stack words come through the caller's
 * read function, which decides what is readable.
 */
#include "trapd/symbolize/cfi_expr.h"

#include <dwarf.h>
#include <errno.h>

#define EVAL_STACK 16

static int reg_value(const struct cfi_regs *r, uint64_t reg, uint64_t *v)
{
	if (reg == CFI_REG_RSP)
		*v = r->rsp;
	else if (reg == CFI_REG_RIP)
		*v = r->rip;
	else if (reg == CFI_REG_RBP && r->rbp_valid)
		*v = r->rbp;
	else
		return -EINVAL;
	return 0;
}

/* binary - the two-operand operations; @a is below @b on the stack. */
static int binary(uint8_t atom, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (atom) {
	case DW_OP_plus:
		*out = a + b;
		break;
	case DW_OP_minus:
		*out = a - b;
		break;
	case DW_OP_mul:
		*out = a * b;
		break;
	case DW_OP_and:
		*out = a & b;
		break;
	case DW_OP_or:
		*out = a | b;
		break;
	case DW_OP_xor:
		*out = a ^ b;
		break;
	case DW_OP_shl:
		*out = b < 64 ? a << b : 0;
		break;
	case DW_OP_shr:
		*out = b < 64 ? a >> b : 0;
		break;
	case DW_OP_shra:
		*out = (uint64_t)((int64_t)a >> (b < 64 ? b : 63));
		break;
	case DW_OP_eq:
		*out = a == b;
		break;
	case DW_OP_ne:
		*out = a != b;
		break;
	case DW_OP_ge:
		*out = (int64_t)a >= (int64_t)b;
		break;
	case DW_OP_gt:
		*out = (int64_t)a > (int64_t)b;
		break;
	case DW_OP_le:
		*out = (int64_t)a <= (int64_t)b;
		break;
	case DW_OP_lt:
		*out = (int64_t)a < (int64_t)b;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* push_value - operations that push a value without popping: registers,
 * constants (libdw has decoded every constant form into n1), the CFA.
 * Returns 1 when @op is none of them. */
static int push_value(const struct cfi_op *op, const struct cfi_regs *r, uint64_t cfa, uint64_t *v)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*v = op->atom - DW_OP_lit0;
		return 0;
	}
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		if (reg_value(r, op->atom - DW_OP_breg0, v))
			return -EINVAL;
		*v += op->n1;
		return 0;
	}
	switch (op->atom) {
	case DW_OP_bregx:
		if (reg_value(r, op->n1, v))
			return -EINVAL;
		*v += op->n2;
		return 0;
	case DW_OP_const1u:
	case DW_OP_const1s:
	case DW_OP_const2u:
	case DW_OP_const2s:
	case DW_OP_const4u:
	case DW_OP_const4s:
	case DW_OP_const8u:
	case DW_OP_const8s:
	case DW_OP_constu:
	case DW_OP_consts:
		*v = op->n1;
		return 0;
	case DW_OP_call_frame_cfa:
		*v = cfa;
		return 0;
	}
	return 1;
}

/* step - one operation on the stack @st of depth *@sp. */
static int step(const struct cfi_op *op, uint64_t *st, unsigned *sp, const struct cfi_regs *r,
		uint64_t cfa, cfi_read_fn read, void *ctx)
{
	uint64_t v;
	int err = push_value(op, r, cfa, &v);

	if (err <= 0) {
		if (err || *sp >= EVAL_STACK)
			return -EINVAL;
		st[(*sp)++] = v;
		return 0;
	}
	if (op->atom == DW_OP_nop)
		return 0;
	if (!*sp)
		return -EINVAL;
	switch (op->atom) {
	case DW_OP_deref:
		return read(ctx, st[*sp - 1], &st[*sp - 1]);
	case DW_OP_plus_uconst:
		st[*sp - 1] += op->n1;
		return 0;
	case DW_OP_neg:
		st[*sp - 1] = -st[*sp - 1];
		return 0;
	case DW_OP_not:
		st[*sp - 1] = ~st[*sp - 1];
		return 0;
	case DW_OP_drop:
		(*sp)--;
		return 0;
	case DW_OP_dup:
		if (*sp >= EVAL_STACK)
			return -EINVAL;
		st[*sp] = st[*sp - 1];
		(*sp)++;
		return 0;
	}
	if (*sp < 2)
		return -EINVAL;
	if (op->atom == DW_OP_swap) {
		v = st[*sp - 1];
		st[*sp - 1] = st[*sp - 2];
		st[*sp - 2] = v;
		return 0;
	}
	err = binary(op->atom, st[*sp - 2], st[*sp - 1], &v);
	if (err)
		return err;
	st[*sp - 2] = v;
	(*sp)--;
	return 0;
}

int cfi_expr__eval(const struct cfi_op *ops, size_t n, const struct cfi_regs *regs, uint64_t cfa,
		   cfi_read_fn read, void *ctx, uint64_t *out)
{
	uint64_t st[EVAL_STACK];
	unsigned sp = 0;
	size_t i;
	int err;

	if (n > CFI_MAX_EXPR_OPS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		err = step(&ops[i], st, &sp, regs, cfa, read, ctx);
		if (err)
			return err;
	}
	if (!sp)
		return -EINVAL;
	*out = st[sp - 1];
	return 0;
}
