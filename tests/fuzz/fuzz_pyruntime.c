// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_pyruntime.c - libFuzzer harness: the input is an ELF file a target
 * maps, probed for a CPython interpreter. The probe must never read
 * outside it, and a layout it accepts must keep the frame fields the
 * sampler reads within the bytes it reads of a frame. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/pyruntime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pyruntime rt;
	char why[160];

	if (pyruntime__probe_mem(data, size, 0x555555554000ull, 0, &rt, why, sizeof(why)))
		return 0;
	if (rt.layout.fr_code > 64 || rt.layout.fr_previous > 64 || rt.layout.fr_instr > 64 ||
	    rt.layout.fr_owner >= 72)
		__builtin_trap();
	return 0;
}
