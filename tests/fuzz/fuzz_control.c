/* fuzz_control.c - control socket request lines on arbitrary bytes: no
 * crash, no undefined behaviour, and a parsed request formats to a line
 * that parses back to the same request. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char line[CONTROL_REQUEST_MAX + 8], out[CONTROL_REQUEST_MAX + 64], err[256];
	struct control_request req, back;

	if (size >= sizeof(line))
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (control_request__parse(line, &req, err, sizeof(err)))
		return 0;
	if (control_request__format(&req, out, sizeof(out)))
		abort();
	out[strlen(out) - 1] = '\0';
	if (control_request__parse(out, &back, err, sizeof(err)) ||
	    memcmp(&req, &back, sizeof(req)))
		abort();
	return 0;
}
