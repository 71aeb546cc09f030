// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* uselib.c - an executable using libsymtest.so; prints the address of the
 * library's function and of its own main, then waits for stdin to close
 * (see symtest.c). */
#include <stdio.h>
#include <unistd.h>

#include "symtest.h"

int main(void)
{
	char c;

	printf("lib_hot_function %p\n", (void *)lib_hot_function);
	printf("main %p\n", (void *)main);
	printf("ready %lu\n", lib_hot_function(10));
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	return 0;
}
