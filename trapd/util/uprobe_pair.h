/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* uprobe_pair.h - a user function's entry and return probes, attached
 * together: what a func latency probe and a capture that splits its
 * samples by call both need. */
#ifndef TRAPD_UPROBE_PAIR_H
#define TRAPD_UPROBE_PAIR_H

#include <stddef.h>
#include <stdint.h>

struct bpf_link;
struct bpf_program;

/* uprobe_pair_attach - @entry as a uprobe and @ret as a uretprobe on the
 * function at file offset @offset of @binary, in process @pid (-1: every
 * process), their links into @links[0] and @links[1]. Returns 0, or a
 * negative errno with @err saying which probe failed where (@links[0]
 * may then be attached: the caller destroys what it holds). */
int uprobe_pair_attach(struct bpf_program *entry, struct bpf_program *ret,
		       struct bpf_link **links[2], int pid, const char *binary, uint64_t offset,
		       char *err, size_t errlen);

#endif
