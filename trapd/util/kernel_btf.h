/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* kernel_btf.h - where fields of the running kernel's structures are,
 * from its BTF (/sys/kernel/btf/vmlinux), for BPF programs built without
 * CO-RE relocations (bpf/sampler.bpf.c says why): they read the fields
 * at the offsets user space sets before load.
 *
 * Parsing the kernel's BTF takes about 11 MiB while it lasts; a layout is
 * read once and the BTF freed at once.
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

/* kernel_btf__fields - fill the offset and size of each of @fields[0..n).
 * Returns 0, or a negative errno with @err naming what is missing
 * (-ENOENT: no kernel BTF, or a struct or field the kernel does not have;
 * -EINVAL: a bit field). */
int kernel_btf__fields(struct kernel_btf_field *fields, size_t n, char *err, size_t errlen);

#endif
