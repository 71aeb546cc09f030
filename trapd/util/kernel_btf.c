// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* kernel_btf.c - fields of kernel structures from the kernel's BTF
 * (kernel_btf.h), read in two passes over the file instead of parsing it
 * whole: libbpf's btf__load_vmlinux_btf takes some 11 MiB for the 5.5 MB
 * of a 6.18 kernel's BTF, this under 1 MiB (an index of where each type
 * is, and a read buffer).
 *
 * The file is the kernel's, not a target's, but it is read as any input
 * is: every offset and count is checked against the file, and a malformed
 * one is -EINVAL.
 */
#include "trapd/util/kernel_btf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
#define BTF_MAGIC 0xeb9f
#define MAX_FIELDS 32
#define MAX_TYPES (1u << 22) /* types indexed */
#define MAX_NESTING 4	     /* anonymous structs and unions within each other */
#define CHUNK (64u << 10)    /* bytes read at once */

/* BTF kinds (include/uapi/linux/btf.h) */
enum {
	K_INT = 1,
	K_PTR,
	K_ARRAY,
	K_STRUCT,
	K_UNION,
	K_ENUM,
	K_FWD,
	K_TYPEDEF,
	K_VOLATILE,
	K_CONST,
	K_RESTRICT,
	K_FUNC,
	K_FUNC_PROTO,
	K_VAR,
	K_DATASEC,
	K_FLOAT,
	K_DECL_TAG,
	K_TYPE_TAG,
	K_ENUM64,
};

struct hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

struct type {
	uint32_t name_off, info, size_or_type;
};

struct reader {
	int fd;
	uint64_t types, types_end; /* file offsets of the type section */
	uint64_t strs, strs_len;
	uint32_t *at; /* at[id]: file offset of type id (1-based) */
	uint32_t ntypes;
};

static unsigned kind_of(uint32_t info)
{
	return (info >> 24) & 0x1f;
}

static unsigned vlen_of(uint32_t info)
{
	return info & 0xffff;
}

/* trailing - the bytes that follow a type of @info. */
static uint64_t trailing(uint32_t info)
{
	uint64_t v = vlen_of(info);

	switch (kind_of(info)) {
	case K_INT:
	case K_VAR:
	case K_DECL_TAG:
		return 4;
	case K_ARRAY:
		return 12;
	case K_STRUCT:
	case K_UNION:
	case K_DATASEC:
	case K_ENUM64:
		return 12 * v;
	case K_ENUM:
	case K_FUNC_PROTO:
		return 8 * v;
	default:
		return 0;
	}
}

/* read_at - @len bytes at @off: sysfs gives a page per read, at most. */
static int read_at(const struct reader *r, uint64_t off, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(r->fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EINVAL;
		got += (size_t)n;
	}
	return 0;
}

/* find_names - the offset of each of @names[0..n) in the string section
 * (0 where it is not there), in one pass: BTF keeps each string once. */
static int find_names(const struct reader *r, const char *const *names, size_t n, uint32_t *offs)
{
	uint8_t *buf = malloc(CHUNK), *last;
	uint64_t pos = 0, len, p, end;
	size_t i, l;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	memset(offs, 0, n * sizeof(*offs));
	while (pos < r->strs_len && !err) {
		len = r->strs_len - pos < CHUNK ? r->strs_len - pos : CHUNK;
		err = read_at(r, r->strs + pos, buf, len);
		if (err)
			break;
		/* the strings that end in this chunk; the next starts after */
		last = memrchr(buf, '\0', len);
		end = last ? (uint64_t)(last - buf) + 1 : len;
		for (p = 0; p < end;) {
			for (i = 0; i < n; i++) {
				l = strlen(names[i]) + 1;
				if (!offs[i] && end - p >= l && !memcmp(buf + p, names[i], l))
					offs[i] = (uint32_t)(pos + p);
			}
			p += strnlen((const char *)buf + p, end - p) + 1;
		}
		pos += end;
	}
	free(buf);
	return err;
}

/* index_types - where each type is, in one pass over the section, and
 * the id of the first struct (with members) named at each of
 * @struct_offs[0..n) into @struct_ids. */
static int index_types(struct reader *r, const uint32_t *struct_offs, size_t n,
		       uint32_t *struct_ids)
{
	uint8_t *buf = malloc(CHUNK);
	uint64_t off = r->types, base = 0, have = 0, need;
	struct type t;
	size_t cap = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (off < r->types_end && !err) {
		if (off + sizeof(t) > r->types_end) {
			err = -EINVAL;
			break;
		}
		if (off < base || off + sizeof(t) > base + have) {
			base = off;
			have = r->types_end - off < CHUNK ? r->types_end - off : CHUNK;
			err = read_at(r, base, buf, have);
			if (err)
				break;
		}
		memcpy(&t, buf + (off - base), sizeof(t));
		need = sizeof(t) + trailing(t.info);
		if (need > r->types_end - off || r->ntypes + 2 > MAX_TYPES || off > UINT32_MAX) {
			err = -EINVAL;
			break;
		}
		if (r->ntypes + 2 > cap) {
			uint32_t *grown;

			cap = cap ? cap * 2 : 65536;
			grown = realloc(r->at, cap * sizeof(*grown));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			r->at = grown;
		}
		r->at[++r->ntypes] = (uint32_t)off;
		for (size_t i = 0; kind_of(t.info) == K_STRUCT && vlen_of(t.info) && i < n; i++)
			if (!struct_ids[i] && struct_offs[i] && t.name_off == struct_offs[i])
				struct_ids[i] = r->ntypes;
		off += need;
	}
	free(buf);
	return err;
}

static int type_of(const struct reader *r, uint32_t id, struct type *t)
{
	if (!id || id > r->ntypes)
		return -EINVAL;
	return read_at(r, r->at[id], t, sizeof(*t));
}

/* resolved - @id through typedefs and qualifiers, into @t; its id. */
static uint32_t resolved(const struct reader *r, uint32_t id, struct type *t)
{
	int hops;

	for (hops = 0; hops < 32; hops++) {
		if (type_of(r, id, t))
			return 0;
		switch (kind_of(t->info)) {
		case K_TYPEDEF:
		case K_VOLATILE:
		case K_CONST:
		case K_RESTRICT:
		case K_TYPE_TAG:
			id = t->size_or_type;
			continue;
		default:
			return id;
		}
	}
	return 0;
}

/* find_member - the member named at string offset @name in struct or
 * union @id (its anonymous members too): its byte offset into *@off and
 * size into *@size. */
static int find_member(const struct reader *r, uint32_t id, uint32_t name, int depth, uint32_t *off,
		       uint32_t *size)
{
	struct type t, mt;
	uint32_t m[3], i, bits, inner, mid;
	int err;

	if (type_of(r, id, &t))
		return -EINVAL;
	for (i = 0; i < vlen_of(t.info); i++) {
		if (read_at(r, r->at[id] + sizeof(t) + 12ull * i, m, sizeof(m)))
			return -EINVAL;
		bits = t.info >> 31 ? m[2] & 0xffffff : m[2];
		mid = resolved(r, m[1], &mt);
		if (!mid)
			continue;
		if (m[0]) {
			if (m[0] != name)
				continue;
			if ((t.info >> 31 && m[2] >> 24) || bits % 8)
				return -EINVAL; /* a bit field */
			*off = bits / 8;
			*size = kind_of(mt.info) == K_PTR ? (uint32_t)sizeof(void *)
							  : mt.size_or_type;
			return 0;
		}
		if (depth < MAX_NESTING &&
		    (kind_of(mt.info) == K_STRUCT || kind_of(mt.info) == K_UNION)) {
			err = find_member(r, mid, name, depth + 1, &inner, size);
			if (!err) {
				*off = bits / 8 + inner;
				return 0;
			}
			if (err != -ENOENT)
				return err;
		}
	}
	return -ENOENT;
}

static int open_reader(struct reader *r, const char *path)
{
	struct hdr h;
	struct stat st;

	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (fstat(r->fd, &st) || read_at(r, 0, &h, sizeof(h)) || h.magic != BTF_MAGIC ||
	    h.hdr_len < sizeof(h))
		return -EINVAL;
	r->types = (uint64_t)h.hdr_len + h.type_off;
	r->types_end = r->types + h.type_len;
	r->strs = (uint64_t)h.hdr_len + h.str_off;
	r->strs_len = h.str_len;
	/* sysfs gives a size of 0 for some attributes: checked by the reads */
	if (st.st_size &&
	    (r->types_end > (uint64_t)st.st_size || r->strs + r->strs_len > (uint64_t)st.st_size))
		return -EINVAL;
	return 0;
}

int kernel_btf__fields_from(const char *path, struct kernel_btf_field *fields, size_t n, char *err,
			    size_t errlen)
{
	const char *names[2 * MAX_FIELDS];
	uint32_t offs[2 * MAX_FIELDS], ids[MAX_FIELDS] = { 0 };
	struct reader r = { .fd = -1 };
	size_t i;
	int e;

	if (n > MAX_FIELDS) {
		snprintf(err, errlen, "more than %d fields asked for", MAX_FIELDS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		names[i] = fields[i].type;
		names[n + i] = fields[i].member;
	}
	e = open_reader(&r, path);
	if (!e)
		e = find_names(&r, names, 2 * n, offs);
	if (!e)
		e = index_types(&r, offs, n, ids);
	if (e) {
		snprintf(err, errlen, "reading the kernel's BTF (%s): %s", path, strerror(-e));
		goto out;
	}
	for (i = 0; i < n && !e; i++) {
		if (!ids[i]) {
			e = -ENOENT;
			snprintf(err, errlen, "the kernel's BTF has no struct %s", fields[i].type);
			break;
		}
		e = offs[n + i] ? find_member(&r, ids[i], offs[n + i], 0, &fields[i].offset,
					      &fields[i].size)
				: -ENOENT;
		if (e)
			snprintf(err, errlen, "the kernel's struct %s has no %sfield %s",
				 fields[i].type, e == -EINVAL ? "whole-byte " : "",
				 fields[i].member);
	}
out:
	if (r.fd >= 0)
		close(r.fd);
	free(r.at);
	return e;
}

int kernel_btf__fields(struct kernel_btf_field *fields, size_t n, char *err, size_t errlen)
{
	return kernel_btf__fields_from(VMLINUX_BTF, fields, n, err, errlen);
}
