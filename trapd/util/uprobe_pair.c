// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* uprobe_pair.c - a function's entry and return probes (uprobe_pair.h). */
#include "trapd/util/uprobe_pair.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int uprobe_pair_attach(struct bpf_program *entry, struct bpf_program *ret,
		       struct bpf_link **links[2], int pid, const char *binary, uint64_t offset,
		       char *err, size_t errlen)
{
	struct bpf_program *progs[2] = { entry, ret };
	int i, e;

	for (i = 0; i < 2; i++) {
		*links[i] =
			bpf_program__attach_uprobe(progs[i], i == 1, pid, binary, (size_t)offset);
		if (!*links[i]) {
			e = -errno;
			snprintf(err, errlen, "attaching a %s to %s at offset 0x%llx: %s",
				 i ? "uretprobe" : "uprobe", binary, (unsigned long long)offset,
				 strerror(-e));
			return e;
		}
	}
	return 0;
}
