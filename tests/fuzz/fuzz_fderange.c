// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_fderange.c - libFuzzer harness for the FDE ranges of .eh_frame,
 * which come from any file a target maps. An input starting with the ELF
 * magic is a whole file, read from a memfd as the symbol cache reads one
 * (fderange__open_fd); any other input is a bare section: its first byte
 * picks 4- or 8-byte addresses, the next 8 the section's address, the
 * rest its bytes (fderange__parse, where the parsing is). Nothing may
 * crash or hang, and every range a lookup gives must hold the address
 * and be one the section could hold. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trapd/symbolize/fderange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe_one(const struct fderange *r, uint64_t a, unsigned addr_size)
{
	uint64_t start, end;

	if (fderange__lookup(r, a, &start, &end))
		return;
	if (start > a || a >= end || !start)
		__builtin_trap();
	if (addr_size == 4 && (start > 0xffffffffu || end - start > 0xffffffffu))
		__builtin_trap();
}

static void probe(const struct fderange *r, const uint8_t *data, size_t size, unsigned addr_size)
{
	static const uint64_t fixed[] = { 0, 1, 0x1000, 0x2000, 0x15b40, UINT64_MAX };
	uint64_t v;
	size_t i;

	if (fderange__count(r) == 0 || fderange__count(r) > FDERANGE_MAX_RANGES)
		__builtin_trap();
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		probe_one(r, fixed[i], addr_size);
	/* words of the input, and around them, reach the ranges it made */
	for (i = 0; i + 8 <= size && i < 512; i += 4) {
		memcpy(&v, data + i, sizeof(v));
		probe_one(r, v, addr_size);
		probe_one(r, v + 0x1000, addr_size);
		probe_one(r, (uint32_t)v, addr_size);
	}
}

static void whole_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct fderange_limits lim = { 1u << 20, 1u << 16 }, spent;
	struct fderange *r;
	unsigned over;

	if (fd < 0)
		fd = memfd_create("fuzz_fderange", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return;
	r = fderange__open_fd(fd, &lim, &spent, &over);
	if (r) {
		if (spent.bytes > lim.bytes || spent.ranges != fderange__count(r) || over)
			__builtin_trap();
		probe(r, data, size, 8);
	}
	fderange__free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned addr_size;
	uint64_t sh_addr;
	struct fderange *r;

	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		whole_file(data, size);
		return 0;
	}
	if (size < 9)
		return 0;
	addr_size = (data[0] & 1) ? 4 : 8;
	memcpy(&sh_addr, data + 1, sizeof(sh_addr));
	r = fderange__parse(data + 9, size - 9, sh_addr, addr_size, 1u << 16);
	if (r)
		probe(r, data + 9, size - 9, addr_size);
	fderange__free(r);
	return 0;
}
