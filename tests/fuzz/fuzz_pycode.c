// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_pycode.c - libFuzzer harness: the input is a code object's
 * announcement as the sampler sends it (struct sampler_py_code, cut or
 * padded), its bytes from a target's memory. Decoding must never read
 * outside the bytes received, a name must be NUL-terminated UTF-8 within
 * its buffer, and every instruction's line comes from the table alone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/pycode.h"
#include "trapd/util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct pyruntime rt = {
	.version = 0x030b02f0,
	.layout = { .co_code = 0xb8 },
	/* the types a seed names: 8-byte words 0x10, 0x20, 0x30 */
	.code_type = 0x10,
	.unicode_type = 0x20,
	.bytes_type = 0x30,
};

static void check_name(const char *s)
{
	size_t n = strnlen(s, PYCODE_NAME_MAX), i, k;

	if (n == PYCODE_NAME_MAX)
		__builtin_trap();
	for (i = 0; i < n; i += k) {
		k = utf8_valid((const unsigned char *)s + i, n - i);
		if (!k)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sampler_py_code *rec;
	struct pycode c;
	uint32_t off;

	if (size > sizeof(*rec))
		size = sizeof(*rec);
	/* exactly the bytes received, so ASan sees any overread */
	rec = malloc(size ? size : 1);
	if (!rec)
		return 0;
	memcpy(rec, data, size);
	if (pycode__decode(rec, size, &rt, &c) == PYCODE_OK) {
		check_name(c.qualname);
		check_name(c.filename);
		for (off = 0; off < 0x4000; off += 2 + off / 4)
			pycode__line(&c, off);
	}
	free(rec);
	return 0;
}
