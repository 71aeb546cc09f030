// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_units.c - the quantity parsers on arbitrary strings: no crash, no
 * undefined behaviour, and a parsed duration formats to text that parses
 * back to exactly it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[64], text[64];
	uint64_t v, back;

	if (size >= sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	units_parse_frequency(buf, 100000, &v);
	units_parse_percent(buf, &v);
	units_parse_size(buf, &v);
	if (units_parse_duration(buf, &v) == 0) {
		units_format_duration(v, text, sizeof(text));
		if (units_parse_duration(text, &back) != 0 || back != v)
			abort();
	}
	return 0;
}
