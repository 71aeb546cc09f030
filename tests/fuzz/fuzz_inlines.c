// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_inlines.c - libFuzzer harness for inline chains from DWARF, which
 * libdw parses out of any -g file a target maps. The input is a whole ELF
 * file, read from a memfd as the symbol cache reads one
 * (inlines__open_fd), then looked up at fixed addresses and at words of
 * the input. Nothing may crash or hang; the DWARF read may not pass the
 * limit; a chain is never longer than asked and every frame has a name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trapd/symbolize/inlines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT (4u << 20)

static void probe_one(struct inlines *in, uint64_t a)
{
	struct inlines_frame f[8];
	unsigned n = inlines__lookup(in, a, f, 8), i;

	if (n > 8)
		__builtin_trap();
	for (i = 0; i < n; i++)
		if (!f[i].name || f[i].line < 0 || f[i].decl_line < 0)
			__builtin_trap();
}

static void probe(struct inlines *in, const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = {
		0, 1, 0x1000, 0x1040, 0x1100, 0x1220, 0x1240, UINT64_MAX
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		probe_one(in, fixed[i]);
	for (i = 0; i + 8 <= size && i < 256; i += 8) {
		memcpy(&v, data + i, sizeof(v));
		probe_one(in, v);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct inlines *in;
	uint64_t bytes;

	if (size < 4 || memcmp(data, "\177ELF", 4))
		return 0;
	if (fd < 0)
		fd = memfd_create("fuzz_inlines", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	in = inlines__open_fd(fd, LIMIT, &bytes);
	if (in) {
		if (bytes > LIMIT || inlines__bytes(in) != bytes)
			__builtin_trap();
		probe(in, data, size);
	}
	inlines__free(in);
	return 0;
}
