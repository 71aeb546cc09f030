/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cfi_program.h - what running a CFA program (the DW_CFA_* instructions
 * of a CIE or an FDE) would cost, read before libdw runs it.
 *
 * libdw keeps one rule per register up to the highest register number a
 * program names, and copies that whole table at each
 * DW_CFA_remember_state. A hostile file can name register 3000 and
 * remember 3000 times in one FDE: every lookup of a pc in it then costs
 * 0.4 s (measured with Debian's elfutils 0.188). The scan below decodes every instruction (a malformed one
 * fails), so that cfi.c can refuse a program whose cost is out of
 * proportion to any compiler's output.
 */
#ifndef TRAPD_CFI_PROGRAM_H
#define TRAPD_CFI_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* x86-64's DWARF register numbers end at 130 (k7 is 125; 126-129 are
 * reserved); no compiler names a register past them. */
#define CFI_MAX_REGNO 130
/* register rules copied by DW_CFA_remember_state over one program. The
 * largest of Debian's node (v18), 444 remembers with rules up to r16, is
 * 7548; a program at this bound costs libdw under 0.1 ms a lookup, where
 * 490 remembers of rules up to r130 cost 1.2 ms. */
#define CFI_MAX_REMEMBERED_RULES (16u << 10)

struct cfi_program_cost {
	unsigned max_regno; /* highest register number named */
	unsigned remembers; /* DW_CFA_remember_state instructions */
};

/* cfi_program__scan - decode the instructions in [@p, @end), adding to
 * @cost. @addr_enc is the encoding (DW_EH_PE_*, low nibble) of
 * DW_CFA_set_loc's operand, from the CIE. Returns 0, or -EINVAL for an
 * instruction that is unknown, truncated or names a register past
 * CFI_MAX_REGNO. */
int cfi_program__scan(const uint8_t *p, const uint8_t *end, uint8_t addr_enc,
		      struct cfi_program_cost *cost);

/* cfi_program__skip_block - step *@p over a ULEB128 length and that many
 * bytes (an expression's block, an FDE's augmentation data). Returns 0 or
 * -EINVAL when either runs past @end. */
int cfi_program__skip_block(const uint8_t **p, const uint8_t *end);

/* cfi_program__affordable - whether programs of @cost may be run. */
bool cfi_program__affordable(const struct cfi_program_cost *cost);

#endif
