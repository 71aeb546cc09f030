// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* libsymtest.c - a shared library for the symbolizer tests. */
#include "symtest.h"

__attribute__((noinline)) static unsigned long lib_local_function(unsigned long n)
{
	return n * 2654435761u;
}

__attribute__((noinline)) unsigned long lib_hot_function(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x += lib_local_function(i);
	return x;
}
