// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cfi_program.c - the CFA program scan: every instruction's operands
 * are stepped over (a program made of each decodes to its end), a
 * truncated or unknown instruction and a register past CFI_MAX_REGNO are
 * refused, and the cost bound holds at its edge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "trapd/symbolize/cfi_program.h"

static int scan(const uint8_t *p, size_t n, uint8_t enc, struct cfi_program_cost *cost)
{
	memset(cost, 0, sizeof(*cost));
	return cfi_program__scan(p, p + n, enc, cost);
}

/* One of each instruction, with operands of more than one byte where the
 * form allows (a ULEB128 register 0x81 0x01 = 129). */
static const uint8_t every_instruction[] = {
	DW_CFA_advance_loc | 3,
	DW_CFA_offset | 6,
	0x82,
	0x01,
	DW_CFA_restore | 6,
	DW_CFA_nop,
	DW_CFA_set_loc,
	1,
	2,
	3,
	4, /* udata4 */
	DW_CFA_advance_loc1,
	9,
	DW_CFA_advance_loc2,
	9,
	0,
	DW_CFA_advance_loc4,
	9,
	0,
	0,
	0,
	DW_CFA_offset_extended,
	0x81,
	0x01,
	2,
	DW_CFA_restore_extended,
	16,
	DW_CFA_undefined,
	16,
	DW_CFA_same_value,
	3,
	DW_CFA_register,
	3,
	12,
	DW_CFA_remember_state,
	DW_CFA_restore_state,
	DW_CFA_def_cfa,
	7,
	0x90,
	0x01,
	DW_CFA_def_cfa_register,
	6,
	DW_CFA_def_cfa_offset,
	16,
	DW_CFA_def_cfa_expression,
	2,
	DW_OP_breg7,
	8,
	DW_CFA_expression,
	16,
	3,
	DW_OP_breg7,
	8,
	DW_OP_deref,
	DW_CFA_offset_extended_sf,
	3,
	0x7e,
	DW_CFA_def_cfa_sf,
	7,
	0x7e,
	DW_CFA_def_cfa_offset_sf,
	0x7e,
	DW_CFA_val_offset,
	7,
	1,
	DW_CFA_val_offset_sf,
	7,
	0x7f,
	DW_CFA_val_expression,
	7,
	1,
	DW_OP_lit0,
	DW_CFA_GNU_window_save,
	DW_CFA_GNU_args_size,
	0x80,
	0x01,
	DW_CFA_GNU_negative_offset_extended,
	5,
	8,
	DW_CFA_remember_state,
};

static void test_every_instruction_decodes(void **state)
{
	struct cfi_program_cost cost;

	assert_int_equal(scan(every_instruction, sizeof(every_instruction), DW_EH_PE_udata4, &cost),
			 0);
	assert_int_equal(cost.max_regno, 129);
	assert_int_equal(cost.remembers, 2);
	assert_true(cfi_program__affordable(&cost));
}

/* Every proper prefix cut inside an instruction is refused: no operand is
 * read past the end. */
static void test_truncated_instructions_are_refused(void **state)
{
	struct cfi_program_cost cost;
	size_t n, whole = 0;

	for (n = 0; n <= sizeof(every_instruction); n++)
		whole += !scan(every_instruction, n, DW_EH_PE_udata4, &cost);
	assert_int_equal(whole, 31); /* the empty program, then 30 instructions */
}

static void test_set_loc_follows_the_encoding(void **state)
{
	static const uint8_t p[] = { DW_CFA_set_loc, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct cfi_program_cost cost;

	assert_int_equal(scan(p, 9, DW_EH_PE_absptr, &cost), 0);
	assert_int_equal(scan(p, 9, DW_EH_PE_pcrel | DW_EH_PE_sdata8, &cost), 0);
	assert_int_equal(scan(p, 5, DW_EH_PE_pcrel | DW_EH_PE_sdata4, &cost), 0);
	assert_int_equal(scan(p, 3, DW_EH_PE_udata2, &cost), 0);
	assert_int_equal(scan(p, 4, DW_EH_PE_udata4, &cost), -EINVAL);
	/* LEB128 addresses are refused, as cfi.c refuses them for FDEs */
	assert_int_equal(scan(p, 9, DW_EH_PE_uleb128, &cost), -EINVAL);
}

static void test_unknown_instructions_are_refused(void **state)
{
	static const uint8_t ops[] = { 0x17, 0x1c, 0x2c, 0x30, 0x3f };
	struct cfi_program_cost cost;
	size_t i;

	for (i = 0; i < sizeof(ops); i++)
		assert_int_equal(scan(&ops[i], 1, DW_EH_PE_udata4, &cost), -EINVAL);
}

static void test_register_numbers_are_bounded(void **state)
{
	uint8_t p[] = { DW_CFA_undefined, 0x82, 0x01 }; /* 130 */
	uint8_t huge[] = {
		DW_CFA_same_value, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01
	}; /* 2^64 - 1 */
	uint8_t endless[] = {
		DW_CFA_same_value, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00
	}; /* 11 bytes */
	struct cfi_program_cost cost;

	assert_int_equal(scan(p, sizeof(p), 0, &cost), 0);
	assert_int_equal(cost.max_regno, CFI_MAX_REGNO);
	p[1] = 0x83; /* 131 */
	assert_int_equal(scan(p, sizeof(p), 0, &cost), -EINVAL);
	assert_int_equal(scan(huge, sizeof(huge), 0, &cost), -EINVAL);
	assert_int_equal(scan(endless, sizeof(endless), 0, &cost), -EINVAL);
}

static void test_cost_bound_edge(void **state)
{
	struct cfi_program_cost cost = { .max_regno = 16 };

	cost.remembers = CFI_MAX_REMEMBERED_RULES / 17;
	assert_true(cfi_program__affordable(&cost));
	cost.remembers++;
	assert_false(cfi_program__affordable(&cost));
	cost = (struct cfi_program_cost){ .max_regno = CFI_MAX_REGNO, .remembers = UINT32_MAX };
	assert_false(cfi_program__affordable(&cost));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_instruction_decodes),
		cmocka_unit_test(test_truncated_instructions_are_refused),
		cmocka_unit_test(test_set_loc_follows_the_encoding),
		cmocka_unit_test(test_unknown_instructions_are_refused),
		cmocka_unit_test(test_register_numbers_are_bounded),
		cmocka_unit_test(test_cost_bound_edge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
