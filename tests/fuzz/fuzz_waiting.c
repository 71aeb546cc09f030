// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_waiting.c - libFuzzer harness for the parsers of the survey of
 * threads already waiting (waiting.h): /proc/PID/task/TID/stack and
 * /proc/PID/task/TID/syscall text. The first byte picks the parser, the
 * rest is the file's text. Parsing must never crash or read out of
 * bounds, and what it returns must hold the parsers' promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/capture/waiting.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_stack(const char *text)
{
	struct waiting_frame frames[WAITING_MAX_DEPTH];
	size_t n, i;

	n = waiting_parse_stack(text, frames, WAITING_MAX_DEPTH);
	if (n > WAITING_MAX_DEPTH)
		__builtin_trap();
	for (i = 0; i < n; i++)
		if (!frames[i].name[0] || strlen(frames[i].name) >= sizeof(frames[i].name) ||
		    strchr(frames[i].name, '\n'))
			__builtin_trap();
}

static void fuzz_syscall(const char *text)
{
	uint64_t sp = 1, pc = 2;

	if (waiting_parse_syscall(text, &sp, &pc) && (sp != 1 || pc != 2))
		__builtin_trap(); /* a refused text leaves the outputs alone */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		fuzz_syscall(text);
	else
		fuzz_stack(text);
	free(text);
	return 0;
}
