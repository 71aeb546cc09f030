/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* syscall_table.h - the system calls of the architecture trapd was built
 * for, by name and by number: the table the rules file checks a
 * syscalls = NAME,... list against. It is generated at build time from
 * <sys/syscall.h> (the Makefile's $(BUILD)/syscall_names.h), so it is
 * the table of the compiler's target, not of the running kernel: a name
 * the kernel is too old for is still known.
 */
#ifndef TRAPD_SYSCALL_TABLE_H
#define TRAPD_SYSCALL_TABLE_H

/* syscall_table__number - the number of the system call @name ("read",
 * "openat"), or -ENOENT when this architecture has none of that name. */
int syscall_table__number(const char *name);

/* syscall_table__name - the name of system call @nr (a static string),
 * or NULL when no system call has that number. */
const char *syscall_table__name(int nr);

/* syscall_table__max - the highest number of a system call in the
 * table (-ENOENT if the table is empty). */
int syscall_table__max(void);

/* syscall_table__arch - the architecture the table is for, as the
 * compiler names it ("x86_64", "aarch64"): for messages. */
const char *syscall_table__arch(void);

#endif
