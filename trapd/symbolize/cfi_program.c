// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cfi_program.c - the cost of a CFA program, decoded instruction by
 * instruction (DWARF 5 section 6.4.2, and the GNU extensions of
 * .eh_frame). */
#include "trapd/symbolize/cfi_program.h"

#include <dwarf.h>
#include <errno.h>

/* skip_leb - step over one LEB128 of at most 10 bytes, its value (of an
 * unsigned one) in *@v when @v is not NULL. */
static int skip_leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;
	uint8_t b;

	if (v)
		*v = 0;
	do {
		if (*p >= end || shift >= 70)
			return -EINVAL;
		b = *(*p)++;
		if (v && shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return 0;
}

static int skip_bytes(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	if ((uint64_t)(end - *p) < n)
		return -EINVAL;
	*p += n;
	return 0;
}

static int note_reg(struct cfi_program_cost *cost, uint64_t regno)
{
	if (regno > CFI_MAX_REGNO)
		return -EINVAL;
	if (regno > cost->max_regno)
		cost->max_regno = (unsigned)regno;
	return 0;
}

static int read_reg(const uint8_t **p, const uint8_t *end, struct cfi_program_cost *cost)
{
	uint64_t regno;

	return skip_leb(p, end, &regno) ?: note_reg(cost, regno);
}

int cfi_program__skip_block(const uint8_t **p, const uint8_t *end)
{
	uint64_t n;

	return skip_leb(p, end, &n) ?: skip_bytes(p, end, n);
}

static int set_loc_size(uint8_t addr_enc, uint64_t *n)
{
	switch (addr_enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		*n = 8;
		return 0;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		*n = 4;
		return 0;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		*n = 2;
		return 0;
	default:
		return -EINVAL;
	}
}

/* one_extended - the operands of an instruction with its opcode in the
 * low six bits of zero (the high two bits hold the three primary ones). */
static int one_extended(uint8_t op, const uint8_t **p, const uint8_t *end, uint8_t addr_enc,
			struct cfi_program_cost *cost)
{
	uint64_t n;

	switch (op) {
	case DW_CFA_nop:
	case DW_CFA_restore_state:
	case DW_CFA_GNU_window_save:
		return 0;
	case DW_CFA_remember_state:
		cost->remembers++;
		return 0;
	case DW_CFA_set_loc:
		return set_loc_size(addr_enc, &n) ?: skip_bytes(p, end, n);
	case DW_CFA_advance_loc1:
		return skip_bytes(p, end, 1);
	case DW_CFA_advance_loc2:
		return skip_bytes(p, end, 2);
	case DW_CFA_advance_loc4:
		return skip_bytes(p, end, 4);
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_GNU_args_size:
		return skip_leb(p, end, NULL);
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_def_cfa_register:
		return read_reg(p, end, cost);
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
	case DW_CFA_GNU_negative_offset_extended:
		return read_reg(p, end, cost) ?: skip_leb(p, end, NULL);
	case DW_CFA_register:
		return read_reg(p, end, cost) ?: read_reg(p, end, cost);
	case DW_CFA_def_cfa_expression:
		return cfi_program__skip_block(p, end);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return read_reg(p, end, cost) ?: cfi_program__skip_block(p, end);
	default:
		return -EINVAL;
	}
}

int cfi_program__scan(const uint8_t *p, const uint8_t *end, uint8_t addr_enc,
		      struct cfi_program_cost *cost)
{
	uint8_t op;
	int err;

	while (p < end) {
		op = *p++;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			err = 0;
			break;
		case DW_CFA_offset:
			err = note_reg(cost, op & 0x3f) ?: skip_leb(&p, end, NULL);
			break;
		case DW_CFA_restore:
			err = note_reg(cost, op & 0x3f);
			break;
		default:
			err = one_extended(op, &p, end, addr_enc, cost);
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

bool cfi_program__affordable(const struct cfi_program_cost *cost)
{
	return (uint64_t)cost->remembers * (cost->max_regno + 1) <= CFI_MAX_REMEMBERED_RULES;
}
