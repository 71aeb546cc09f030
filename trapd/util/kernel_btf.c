// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* kernel_btf.c - fields of kernel structures from the kernel's BTF
 * (kernel_btf.h). */
#include "trapd/util/kernel_btf.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_NESTING 4 /* anonymous structs and unions within each other */

static const struct btf_type *resolved(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* find_member - @name in struct or union @t, into its anonymous members
 * too; the byte offset from @t's start in *@off and the member's type. */
static const struct btf_type *find_member(const struct btf *btf, const struct btf_type *t,
					  const char *name, int depth, uint32_t *off, int *err)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_type *mt, *found;
	uint32_t inner, bits;
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);

		bits = btf_member_bit_offset(t, i);
		mt = resolved(btf, m->type);
		if (!mt)
			continue;
		if (mname && *mname) {
			if (strcmp(mname, name))
				continue;
			if (btf_member_bitfield_size(t, i) || bits % 8) {
				*err = -EINVAL;
				return NULL;
			}
			*off = bits / 8;
			return mt;
		}
		if (depth < MAX_NESTING && (btf_is_struct(mt) || btf_is_union(mt))) {
			found = find_member(btf, mt, name, depth + 1, &inner, err);
			if (found) {
				*off = bits / 8 + inner;
				return found;
			}
		}
	}
	return NULL;
}

static int fill(const struct btf *btf, struct kernel_btf_field *f, char *err, size_t errlen)
{
	const struct btf_type *t, *mt;
	int id, e = -ENOENT;
	__s64 size;

	id = btf__find_by_name_kind(btf, f->type, BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t) {
		snprintf(err, errlen, "the kernel's BTF has no struct %s", f->type);
		return -ENOENT;
	}
	mt = find_member(btf, t, f->member, 0, &f->offset, &e);
	if (!mt) {
		snprintf(err, errlen, "the kernel's struct %s has no %sfield %s", f->type,
			 e == -EINVAL ? "whole-byte " : "", f->member);
		return e;
	}
	size = btf_is_ptr(mt) ? (__s64)sizeof(void *) : (__s64)mt->size;
	f->size = size > 0 ? (uint32_t)size : 0;
	return 0;
}

int kernel_btf__fields(struct kernel_btf_field *fields, size_t n, char *err, size_t errlen)
{
	struct btf *btf = btf__load_vmlinux_btf();
	size_t i;
	int e = 0;

	if (!btf) {
		e = -errno;
		snprintf(err, errlen, "reading the kernel's BTF: %s", strerror(-e));
		return e ? e : -ENOENT;
	}
	for (i = 0; i < n && !e; i++)
		e = fill(btf, &fields[i], err, errlen);
	btf__free(btf);
	return e;
}
