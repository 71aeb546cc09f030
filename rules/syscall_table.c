// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* syscall_table.c - system call names and numbers (syscall_table.h),
 * looked up in the table the Makefile generates, sorted by name. */
#include "rules/syscall_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct syscall_name {
	const char *name;
	int nr;
};

/* syscall_names[], sorted by name (LC_ALL=C), and SYSCALL_NAMES_ARCH */
#include "syscall_names.h"

#define NNAMES (sizeof(syscall_names) / sizeof(syscall_names[0]))

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct syscall_name *)elem)->name);
}

int syscall_table__number(const char *name)
{
	const struct syscall_name *s =
		bsearch(name, syscall_names, NNAMES, sizeof(syscall_names[0]), cmp_name);

	return s ? s->nr : -ENOENT;
}

/* A linear search: it serves messages and status output, not a hot path. */
const char *syscall_table__name(int nr)
{
	size_t i;

	for (i = 0; i < NNAMES; i++)
		if (syscall_names[i].nr == nr)
			return syscall_names[i].name;
	return NULL;
}

int syscall_table__max(void)
{
	int max = -ENOENT;
	size_t i;

	for (i = 0; i < NNAMES; i++)
		if (syscall_names[i].nr > max)
			max = syscall_names[i].nr;
	return max;
}

const char *syscall_table__arch(void)
{
	return SYSCALL_NAMES_ARCH;
}
