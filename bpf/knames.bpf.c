// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* knames.bpf.c - name kernel addresses with the kernel's own symbol
 * lookup: bpf_snprintf's %pS prints "function+0xoff/0xsize [module]".
 *
 * Run on demand with BPF_PROG_TEST_RUN on a batch written into .bss. This
 * costs a binary search per address, where reading /proc/kallsyms makes the
 * kernel format ~120k lines (~40 ms) for the dozen addresses a capture
 * usually has; and it works under kptr_restrict, which hides kallsyms'
 * addresses.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "bpf/knames.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

__u64 addrs[KNAMES_BATCH];
char names[KNAMES_BATCH][KNAMES_NAME_LEN];
__u32 count;

SEC("syscall")
int resolve(void *ctx)
{
	for (__u32 i = 0; i < KNAMES_BATCH; i++) {
		__u64 addr;

		if (i >= count)
			break;
		addr = addrs[i];
		bpf_snprintf(names[i], sizeof(names[i]), "%pS", &addr, sizeof(addr));
	}
	return 0;
}
