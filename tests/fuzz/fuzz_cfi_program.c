// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_cfi_program.c - libFuzzer harness: the first byte is the encoding
 * of DW_CFA_set_loc's operand, the rest a CFA program. The scan must
 * never read outside it, and what it reports must hold: no register past
 * CFI_MAX_REGNO, no more remembers than bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/cfi_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_program_cost cost = { 0 };
	uint8_t *prog;

	if (!size)
		return 0;
	/* a copy of exactly the program's size, so ASan sees any overread */
	prog = malloc(size - 1 ? size - 1 : 1);
	if (!prog)
		return 0;
	memcpy(prog, data + 1, size - 1);
	if (!cfi_program__scan(prog, prog + size - 1, data[0], &cost)) {
		if (cost.max_regno > CFI_MAX_REGNO || cost.remembers > size - 1)
			__builtin_trap();
		if (cfi_program__affordable(&cost) &&
		    (uint64_t)cost.remembers * (cost.max_regno + 1) > CFI_MAX_REMEMBERED_RULES)
			__builtin_trap();
	}
	free(prog);
	return 0;
}
