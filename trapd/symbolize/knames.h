/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knames.h - kernel function names from the kernel itself (a BPF program
 * calling the kernel's symbol lookup), without reading /proc/kallsyms.
 *
 * Needs BPF_PROG_TYPE_SYSCALL (Linux 5.14+); callers fall back to
 * kallsyms when knames__open fails.
 */
#ifndef TRAPD_KNAMES_H
#define TRAPD_KNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/knames.h"

struct knames;

/* knames__open - load the resolver. NULL and errno on failure. */
struct knames *knames__open(void);
void knames__free(struct knames *k);

/* knames__resolve - name @n addresses (any number): names[i] gets
 * "function" or "function [module]", or "" when no symbol contains
 * addrs[i]. The address is looked up as given (callers subtract 1 from
 * return addresses). Names found are kept (a bounded table), so an
 * address seen before costs no run of the program. One thread at a time.
 * Returns 0 or a negative errno. */
int knames__resolve(struct knames *k, const uint64_t *addrs, uint32_t n,
		    char (*names)[KNAMES_NAME_LEN]);

struct knames_stats {
	uint64_t resolved;     /* addresses the program named */
	uint64_t cached;       /* addresses named from the table */
	uint64_t runs;	       /* runs of the program */
	uint64_t cache_clears; /* times the table was full and emptied */
};

void knames__stats(const struct knames *k, struct knames_stats *out);

/* knames__parse - "vfs_read+0x10/0x360 [mod]" -> "vfs_read [mod]" into
 * @out; "" when @in is not a symbol (a bare address). Exposed for tests. */
void knames__parse(const char *in, char *out, size_t len);

#endif
