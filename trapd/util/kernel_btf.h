/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* kernel_btf.h - where fields of the running kernel's structures are,
 * from its BTF (/sys/kernel/btf/vmlinux), for BPF programs built without
 * CO-RE relocations (bpf/sampler.bpf.c says why): they read the fields
 * at the offsets user space sets before load.
 *
 * The BTF is read in passes (the names asked for, then where each type
 * is), not parsed whole: libbpf takes about 11 MiB for a 6.18 kernel's,
 * this under 1 MiB.
 */
#ifndef TRAPD_KERNEL_BTF_H
#define TRAPD_KERNEL_BTF_H

#include <stddef.h>
#include <stdint.h>

/* One field asked for: @member of struct @type, found also inside the
 * struct's anonymous structs and unions. */
struct kernel_btf_field {
	const char *type;
	const char *member;
	uint32_t offset; /* out: in bytes from the struct's start */
	uint32_t size;	 /* out: in bytes */
};

/* kernel_btf__fields - fill the offset and size of each of @fields[0..n)
 * (at most 32) from the running kernel's BTF. Returns 0, or a negative
 * errno with @err naming what is missing (-ENOENT: no kernel BTF, or a
 * struct or field the kernel does not have; -EINVAL: a bit field, or
 * BTF that does not parse). */
int kernel_btf__fields(struct kernel_btf_field *fields, size_t n, char *err, size_t errlen);

/* kernel_btf__fields_from - the same from the BTF file at @path. */
int kernel_btf__fields_from(const char *path, struct kernel_btf_field *fields, size_t n, char *err,
			    size_t errlen);

#endif
