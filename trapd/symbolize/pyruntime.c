// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pyruntime.c - find a CPython interpreter in a mapped file (pyruntime.h). */
#include "trapd/symbolize/pyruntime.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/symbolize/elfsym.h"

/* Symbols of one file walked at most: a libpython has ~12,000. */
#define MAX_SYMBOLS (1u << 21)
#define PY_3_11 0x030b0000u
#define PY_3_12 0x030c0000u
#define PY_3_13 0x030d0000u
#define PY_3_14 0x030e0000u

/* 3.11 and 3.12 on x86-64, from their debug information (gdb's ptype /o
 * on Debian's python3.11-dbg and on 3.11.7 and 3.12.1 builds). */
static const struct pyruntime_layout layout_3_11 = {
	.interp_head = 0x28,
	.threads_head = 0x10,
	.ts_next = 0x8,
	.ts_native_tid = 0xa0,
	.ts_frame = 0x38,
	.cframe_frame = 0x8,
	.fr_code = 0x20,
	.fr_previous = 0x30,
	.fr_instr = 0x38,
	.fr_entry = 0x44,
	.fr_owner = 0x45,
	.co_firstlineno = 0x48,
	.co_filename = 0x70,
	.co_qualname = 0x80,
	.co_code = 0xb8,
	.str_state = 0x20,
	.str_ascii_data = 0x30,
	.str_compact_data = 0x48,
	.bytes_data = 0x20,
};

static const struct pyruntime_layout layout_3_12 = {
	.interp_head = 0x28,
	.threads_head = 0x48,
	.ts_next = 0x8,
	.ts_native_tid = 0x90,
	.ts_frame = 0x38,
	.cframe_frame = 0x0,
	.fr_code = 0x0,
	.fr_previous = 0x8,
	.fr_instr = 0x38,
	.fr_entry = PYRUNTIME_ABSENT,
	.fr_owner = 0x46,
	.co_firstlineno = 0x44,
	.co_filename = 0x70,
	.co_qualname = 0x80,
	.co_code = 0xc0,
	.str_state = 0x20,
	.str_ascii_data = 0x28,
	.str_compact_data = 0x38,
	.bytes_data = 0x20,
};

/* 3.13's _Py_DebugOffsets: the fields read, at these offsets into it. */
#define DBG_COOKIE "xdebugpy"
#define DBG_VERSION 8
#define DBG_FREE_THREADED 16
#define DBG_INTERP_HEAD 40
#define DBG_THREADS_HEAD 72
#define DBG_TS_NEXT 168
#define DBG_TS_FRAME 184
#define DBG_TS_NATIVE_TID 200
#define DBG_FR_PREVIOUS 232
#define DBG_FR_CODE 240
#define DBG_FR_INSTR 248
#define DBG_FR_OWNER 264
#define DBG_CO_FILENAME 280
#define DBG_CO_NAME 288
#define DBG_CO_QUALNAME 296
#define DBG_CO_LINETABLE 304
#define DBG_CO_FIRSTLINENO 312
#define DBG_CO_CODE 344
#define DBG_SIZE 352

/* The file, as a descriptor or a buffer. */
struct image {
	int fd;
	const unsigned char *buf;
	uint64_t size;
};

static int image_read(const struct image *im, uint64_t off, void *out, size_t n)
{
	if (off > im->size || n > im->size - off)
		return -EINVAL;
	if (im->buf) {
		memcpy(out, im->buf + off, n);
		return 0;
	}
	return pread(im->fd, out, n, (off_t)off) == (ssize_t)n ? 0 : -EIO;
}

enum wanted { W_RUNTIME, W_VERSION, W_CODE, W_UNICODE, W_BYTES, W_EVAL, W_NR };

static const char *const wanted_names[W_NR] = {
	[W_RUNTIME] = "_PyRuntime", [W_VERSION] = "Py_Version",
	[W_CODE] = "PyCode_Type",   [W_UNICODE] = "PyUnicode_Type",
	[W_BYTES] = "PyBytes_Type", [W_EVAL] = "_PyEval_EvalFrameDefault",
};

struct found {
	uint64_t value[W_NR];
	uint64_t size[W_NR];
	bool have[W_NR];
};

/* scan_symbols - the wanted symbols of @elf into @f; the bytes of symbol
 * table walked, for the caller's budget. */
static uint64_t scan_symbols(Elf *elf, struct found *f)
{
	Elf_Scn *scn = NULL;
	uint64_t walked = 0, bytes = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i, n;
	int w;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		n = d->d_size / sh.sh_entsize;
		for (i = 0; i < n && walked < MAX_SYMBOLS; i++, walked++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || (name[0] != '_' && name[0] != 'P'))
				continue;
			for (w = 0; w < W_NR; w++) {
				if (!f->have[w] && !strcmp(name, wanted_names[w])) {
					f->have[w] = true;
					f->value[w] = sym.st_value;
					f->size[w] = sym.st_size;
				}
			}
		}
		bytes += (uint64_t)i * sh.sh_entsize;
	}
	return bytes;
}

/* file_offset - where virtual address @vaddr (@n bytes) is in the file:
 * inside one PT_LOAD segment's file bytes. */
static int file_offset(Elf *elf, uint64_t vaddr, uint64_t n, uint64_t *off)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz &&
		    n <= ph.p_filesz - (vaddr - ph.p_vaddr)) {
			*off = ph.p_offset + (vaddr - ph.p_vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

/* load_bias - what to add to the file's virtual addresses for the
 * process's: the mapping at @start holds file offset @pgoff. */
static int load_bias(Elf *elf, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* mappings start on pages: the segment holding the page */
		if (pgoff >= (ph.p_offset & ~0xfffull) &&
		    pgoff - (ph.p_offset & ~0xfffull) < ph.p_filesz + (ph.p_offset & 0xfff)) {
			*bias = start - (pgoff - ph.p_offset + ph.p_vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* debug_layout - 3.13's layout from its _Py_DebugOffsets. */
static int debug_layout(const unsigned char *d, uint32_t version, struct pyruntime_layout *l,
			char *why, size_t whylen)
{
	static const int fields[] = {
		DBG_INTERP_HEAD, DBG_THREADS_HEAD,   DBG_TS_NEXT,  DBG_TS_FRAME, DBG_TS_NATIVE_TID,
		DBG_FR_PREVIOUS, DBG_FR_CODE,	     DBG_FR_INSTR, DBG_FR_OWNER, DBG_CO_FILENAME,
		DBG_CO_QUALNAME, DBG_CO_FIRSTLINENO, DBG_CO_CODE,
	};
	size_t i;

	if (memcmp(d, DBG_COOKIE, 8)) {
		snprintf(why, whylen, "_PyRuntime does not start with its debug offsets");
		return -ENOTSUP;
	}
	if ((uint32_t)u64_at(d + DBG_VERSION) != version) {
		snprintf(why, whylen, "debug offsets of version 0x%08x in a 0x%08x interpreter",
			 (uint32_t)u64_at(d + DBG_VERSION), version);
		return -ENOTSUP;
	}
	if (u64_at(d + DBG_FREE_THREADED)) {
		snprintf(why, whylen, "a free-threaded build");
		return -ENOTSUP;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (u64_at(d + fields[i]) >= 0x10000 - 64) {
			snprintf(why, whylen, "debug offset %d out of range", fields[i]);
			return -ENOTSUP;
		}
	}
	if (u64_at(d + DBG_CO_NAME) != u64_at(d + DBG_CO_FILENAME) + 8 ||
	    u64_at(d + DBG_CO_QUALNAME) != u64_at(d + DBG_CO_FILENAME) + 16 ||
	    u64_at(d + DBG_CO_LINETABLE) != u64_at(d + DBG_CO_FILENAME) + 24) {
		snprintf(why, whylen, "code object fields in an unknown order");
		return -ENOTSUP;
	}
	*l = (struct pyruntime_layout){
		.interp_head = (uint16_t)u64_at(d + DBG_INTERP_HEAD),
		.threads_head = (uint16_t)u64_at(d + DBG_THREADS_HEAD),
		.ts_next = (uint16_t)u64_at(d + DBG_TS_NEXT),
		.ts_native_tid = (uint16_t)u64_at(d + DBG_TS_NATIVE_TID),
		.ts_frame = (uint16_t)u64_at(d + DBG_TS_FRAME),
		.cframe_frame = PYRUNTIME_ABSENT,
		.fr_code = (uint16_t)u64_at(d + DBG_FR_CODE),
		.fr_previous = (uint16_t)u64_at(d + DBG_FR_PREVIOUS),
		.fr_instr = (uint16_t)u64_at(d + DBG_FR_INSTR),
		.fr_entry = PYRUNTIME_ABSENT,
		.fr_owner = (uint16_t)u64_at(d + DBG_FR_OWNER),
		.co_firstlineno = (uint16_t)u64_at(d + DBG_CO_FIRSTLINENO),
		.co_filename = (uint16_t)u64_at(d + DBG_CO_FILENAME),
		.co_qualname = (uint16_t)u64_at(d + DBG_CO_QUALNAME),
		.co_code = (uint16_t)u64_at(d + DBG_CO_CODE),
		/* not in 3.13's table; as in 3.12 */
		.str_state = 0x20,
		.str_ascii_data = 0x28,
		.str_compact_data = 0x38,
		.bytes_data = 0x20,
	};
	return 0;
}

/* frame_fields_fit - the frame fields the BPF walk reads lie within the
 * bytes it reads of a frame (SAMPLER_PY_FRAME_READ: 72). */
static bool frame_fields_fit(const struct pyruntime_layout *l)
{
	return l->fr_code <= 64 && l->fr_previous <= 64 && l->fr_instr <= 64 &&
	       (l->fr_entry == PYRUNTIME_ABSENT || l->fr_entry < 72) && l->fr_owner < 72;
}

static int read_layout(Elf *elf, const struct image *im, const struct found *f, uint32_t version,
		       struct pyruntime_layout *l, char *why, size_t whylen)
{
	unsigned char dbg[DBG_SIZE];
	uint64_t off;
	int err;

	switch (version & 0xffff0000u) {
	case PY_3_11:
		*l = layout_3_11;
		return 0;
	case PY_3_12:
		*l = layout_3_12;
		return 0;
	case PY_3_13:
		err = file_offset(elf, f->value[W_RUNTIME], sizeof(dbg), &off);
		if (!err)
			err = image_read(im, off, dbg, sizeof(dbg));
		if (err) {
			snprintf(why, whylen, "cannot read _PyRuntime's debug offsets");
			return -ENOTSUP;
		}
		err = debug_layout(dbg, version, l, why, whylen);
		if (!err && !frame_fields_fit(l)) {
			snprintf(why, whylen, "frame fields past the bytes read of a frame");
			err = -ENOTSUP;
		}
		return err;
	default:
		snprintf(why, whylen, "no frame layout known for this version");
		return -ENOTSUP;
	}
}

static int probe(Elf *elf, const struct image *im, uint64_t start, uint64_t pgoff,
		 struct pyruntime *out, char *why, size_t whylen)
{
	struct found f = { 0 };
	uint64_t off, bias;
	uint32_t version;
	int w, err;

	memset(out, 0, sizeof(*out));
	out->probe_bytes = scan_symbols(elf, &f);
	if (!f.have[W_RUNTIME]) {
		snprintf(why, whylen, "no _PyRuntime");
		return -ENOENT;
	}
	if (!f.have[W_VERSION] || file_offset(elf, f.value[W_VERSION], 4, &off) ||
	    image_read(im, off, &version, sizeof(version))) {
		snprintf(why, whylen, "no Py_Version (CPython before 3.11)");
		return -ENOTSUP;
	}
	out->version = version;
	if (version < PY_3_11 || version >= PY_3_14) {
		snprintf(why, whylen, "no frame layout known for this version");
		return -ENOTSUP;
	}
	for (w = 0; w < W_NR; w++) {
		if (!f.have[w]) {
			snprintf(why, whylen, "no %s symbol", wanted_names[w]);
			return -ENOTSUP;
		}
	}
	err = read_layout(elf, im, &f, version, &out->layout, why, whylen);
	if (err)
		return err;
	if (load_bias(elf, start, pgoff, &bias)) {
		snprintf(why, whylen, "the mapping at offset 0x%llx is in no segment",
			 (unsigned long long)pgoff);
		return -ENOTSUP;
	}
	out->runtime = f.value[W_RUNTIME] + bias;
	out->code_type = f.value[W_CODE] + bias;
	out->unicode_type = f.value[W_UNICODE] + bias;
	out->bytes_type = f.value[W_BYTES] + bias;
	out->eval_start = f.value[W_EVAL] + bias;
	out->eval_end = f.size[W_EVAL] ? out->eval_start + f.size[W_EVAL] : 0;
	return 0;
}

int pyruntime__probe(int fd, uint64_t start, uint64_t pgoff, struct pyruntime *out, char *why,
		     size_t whylen)
{
	struct image im = { .fd = fd };
	Elf *elf;
	int err;

	elf = elfsym__elf_begin(fd, &im.size);
	if (!elf) {
		err = -errno;
		snprintf(why, whylen, "not an ELF file: %s", strerror(errno));
		return err;
	}
	err = probe(elf, &im, start, pgoff, out, why, whylen);
	elf_end(elf);
	return err;
}

int pyruntime__probe_mem(const void *image, size_t size, uint64_t start, uint64_t pgoff,
			 struct pyruntime *out, char *why, size_t whylen)
{
	struct image im = { .fd = -1, .buf = image, .size = size };
	char *copy = malloc(size ? size : 1);
	Elf *elf;
	int err;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, whylen, "not an ELF file");
		err = -ENOEXEC;
	} else {
		err = probe(elf, &im, start, pgoff, out, why, whylen);
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return err;
}

const char *pyruntime__version(uint32_t hex, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", hex >> 24, (hex >> 16) & 0xff, (hex >> 8) & 0xff);
	return buf;
}
