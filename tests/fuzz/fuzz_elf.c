// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_elf.c - libFuzzer harness: the input is an ELF image, loaded twice:
 * from memory (libelf's elf_memory, via elfsym__open_mem) and from a file
 * descriptor (libelf's pread path, via elfsym__open_fd on a memfd), the
 * way the symbolizer reads a file a target process mapped. Loading must
 * never crash; a loaded image must answer lookups, offset conversions,
 * its build ID and its debuglink within their promises. The build ID read
 * alone (elfsym__read_build_id, the symbol cache's quick match) must
 * agree with the one a full load finds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trapd/symbolize/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void probe(struct elfsym *e, const uint8_t *data, size_t size)
{
	static const uint64_t probes[] = { 0,	      1,	0x1000,	    0x1040,
					   0x400000,  0x401000, 0x7fffffff, UINT64_MAX - 1,
					   UINT64_MAX };
	uint64_t v, start;
	const char *name;
	size_t i;

	if (strlen(elfsym__build_id(e)) > 2 * ELFSYM_MAX_BUILD_ID)
		__builtin_trap();
	if (elfsym__count(e) > ELFSYM_MAX_SYMBOLS)
		__builtin_trap();
	name = elfsym__debuglink(e, NULL);
	if (name && (!*name || strlen(name) > ELFSYM_MAX_DEBUGLINK || strchr(name, '/')))
		__builtin_trap();
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		name = elfsym__lookup(e, probes[i], &start);
		if (name && (start > probes[i] || strlen(name) > ELFSYM_MAX_NAME))
			__builtin_trap();
		if (elfsym__offset_to_vaddr(e, probes[i], &v) == 0)
			elfsym__lookup(e, v, NULL);
	}
	/* probe with words of the input too, so lookups reach real symbols */
	for (i = 0; i + 8 <= size && i < 256; i += 8) {
		memcpy(&v, data + i, sizeof(v));
		elfsym__lookup(e, v, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char bid[ELFSYM_BUILD_ID_HEX];
	struct elfsym *e;
	unsigned char *buf;

	/* libelf wants a writable image; the input is not. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	e = elfsym__open_mem(buf, size);
	if (e) {
		probe(e, data, size);
		elfsym__free(e);
	}
	free(buf);

	if (fd < 0)
		fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	e = elfsym__open_fd(fd);
	if (elfsym__read_build_id(fd, bid) == 0 && e && strcmp(bid, elfsym__build_id(e)) != 0)
		__builtin_trap();
	if (e) {
		probe(e, data, size);
		elfsym__free(e);
	}
	return 0;
}
