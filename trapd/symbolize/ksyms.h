/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ksyms.h - kernel function names from /proc/kallsyms.
 *
 * Text symbols (types t, T, w, W) are kept, sorted by address; a symbol of
 * a module is named "function [module]". kallsyms has no sizes, so a
 * function is taken to reach to the next symbol of any type (data symbols
 * are kept as unnamed boundaries), and never further than
 * KSYMS_MAX_FUNC_SIZE. Lines are bounded and checked; malformed ones are
 * skipped.
 *
 * With kptr_restrict (or without CAP_SYSLOG) the kernel prints every
 * address as zero; loading then fails with EPERM so the caller can say
 * why kernel frames have no names.
 */
#ifndef TRAPD_KSYMS_H
#define TRAPD_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#define KSYMS_MAX_LINE 1024 /* kernel names are at most 512 bytes */
#define KSYMS_MAX_SYMBOLS (4u << 20)
#define KSYMS_MAX_FUNC_SIZE (1u << 20) /* bytes a function may span */

struct ksyms;

/* ksyms__load - read the kallsyms file at @path ("/proc/kallsyms" normally).
 * NULL and errno on failure: EPERM when all addresses read as zero, ENOENT
 * when the file holds no text symbol, ENOMEM, or the errno of fopen/read.
 * Free with ksyms__free. */
struct ksyms *ksyms__load(const char *path);

void ksyms__free(struct ksyms *k);

/* ksyms__lookup - the name of the kernel function containing @addr, or NULL
 * when none does. *@sym_addr, if not NULL, gets the function's start. The
 * name lives as long as @k. */
const char *ksyms__lookup(const struct ksyms *k, uint64_t addr, uint64_t *sym_addr);

/* ksyms__count - the number of named (text) symbols. */
size_t ksyms__count(const struct ksyms *k);

/* ksyms__first - the lowest text symbol address (0 when there is none). */
uint64_t ksyms__first(const struct ksyms *k);

#endif
