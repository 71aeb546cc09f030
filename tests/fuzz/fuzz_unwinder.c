// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_unwinder.c - libFuzzer harness: hostile registers and stack bytes
 * walked against a real process (the harness itself, pid getpid(), whose
 * libc, vDSO and own code have real CFI). The input is ip, sp, bp and the
 * stack copy; so that walks get past the first frame, the ip and any
 * stack word tagged 0xa5a5 in its top bytes become addresses in real code
 * (an anchor plus an offset), and words tagged 0x5a5a become addresses in
 * the copy. Every walk must end with a reason, its frames within bounds,
 * never a crash or a hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/symbolize/unwinder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STACK_BASE 0x7ffc00000000ull
#define MAX_COPY 16384

static uint64_t anchor(unsigned i, uint64_t off)
{
	const uint64_t anchors[] = { (uint64_t)LLVMFuzzerTestOneInput, (uint64_t)malloc,
				     (uint64_t)memcpy, (uint64_t)getpid };

	return anchors[i % 4] + (off & 0xffff);
}

static uint64_t translate(uint64_t w, uint64_t sp)
{
	if (w >> 48 == 0xa5a5)
		return anchor((unsigned)(w >> 40) & 0xff, w);
	if (w >> 48 == 0x5a5a)
		return sp + (w & 0xffff);
	return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct unwinder *u;
	static uint8_t stack[MAX_COPY];
	struct unwind_input in;
	struct unwind_result r;
	uint64_t regs[3], w;
	size_t len, i;

	if (!u)
		u = unwinder__new(NULL, 64u << 20);
	if (!u || size < sizeof(regs))
		return 0;
	memcpy(regs, data, sizeof(regs));
	len = size - sizeof(regs) > MAX_COPY ? MAX_COPY : size - sizeof(regs);
	memcpy(stack, data + sizeof(regs), len);
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, stack + i, 8);
		w = translate(w, STACK_BASE);
		memcpy(stack + i, &w, 8);
	}
	in = (struct unwind_input){ anchor((unsigned)regs[0], regs[0] >> 8),
				    regs[1] >> 63 ? regs[1] : STACK_BASE,
				    translate(regs[2], STACK_BASE), stack, (uint32_t)len };
	if (unwinder__unwind(u, getpid(), &in, &r))
		return 0;
	if (r.n > UNWINDER_MAX_FRAMES || r.end >= UNWIND_END_NR || r.fp_steps > r.n)
		__builtin_trap();
	if (r.n && r.ips[0] != in.ip)
		__builtin_trap();
	return 0;
}
