// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fderange.c - read the [start, end) of every FDE in an untrusted ELF
 * file's .eh_frame (the format: LSB "Exception Frame"; DWARF 4 6.4.1).
 *
 * Only what names a function is decoded: an entry's length and id, a
 * CIE's augmentation (for the 'R' encoding of its FDEs' addresses) and
 * an FDE's initial location and range. Addresses relative to anything
 * but the field itself (text, data, function, aligned, indirect) are not
 * used by linkers for FDEs and are skipped rather than guessed. Every
 * read goes through a cursor bounded by its entry, so a crafted entry
 * can only make its own FDE be skipped.
 */
#include "trapd/symbolize/fderange.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/elfsym.h"

/* Pointer encodings (LSB 10.5.1); dwarf.h has them, but it comes with
 * libdw, which nothing else here needs. */
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_INDIRECT 0x80
#define PE_OMIT 0xff

#define MAX_AUGMENTATION 16	/* "zPLRS" and the like; longer is not a CIE we know */
#define MAX_SHSTRTAB (1u << 20) /* bytes of the section names */
#define FIRST_CAP 256
#ifndef SHT_X86_64_UNWIND
#define SHT_X86_64_UNWIND 0x70000001 /* what some linkers type .eh_frame */
#endif

struct fderange_span {
	uint64_t start, end;
};

struct fderange {
	struct fderange_span *spans;
	size_t n;
};

/* A bounded reader over one entry. */
struct cursor {
	const uint8_t *buf;
	size_t pos, end;
};

/* The section being parsed. */
struct parse {
	const uint8_t *buf;
	size_t len;
	uint64_t sh_addr;
	unsigned addr_size;
	size_t cie_off; /* the CIE last decoded, SIZE_MAX: none */
	int cie_enc;	/* its FDE encoding, -1 if unusable */
};

/* One entry's frame: where its id is, where it ends, what the id says. */
struct entry {
	size_t id_pos, id_len, end;
	uint64_t id;
};

static bool rd(struct cursor *c, void *out, size_t n)
{
	if (c->end - c->pos < n)
		return false;
	memcpy(out, c->buf + c->pos, n);
	c->pos += n;
	return true;
}

static bool rd_uint(struct cursor *c, size_t n, uint64_t *v)
{
	uint8_t b[8];
	size_t i;

	if (!rd(c, b, n))
		return false;
	*v = 0;
	for (i = n; i-- > 0;) /* little-endian: only native files are read */
		*v = *v << 8 | b[i];
	return true;
}

/* rd_leb - an LEB128 of at most 10 bytes; @sign extends its top bit. */
static bool rd_leb(struct cursor *c, bool sign, uint64_t *v)
{
	unsigned shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (shift >= 70 || !rd(c, &b, 1))
			return false;
		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		*v |= ~0ull << shift;
	return true;
}

static uint64_t sign_extend(uint64_t v, unsigned bytes)
{
	unsigned bits = bytes * 8;

	return (v & (1ull << (bits - 1))) ? v | ~0ull << bits : v;
}

/* rd_value - a value in the format (low nibble) of @enc, unapplied. */
static bool rd_value(struct cursor *c, uint8_t enc, unsigned addr_size, uint64_t *v)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
		return rd_uint(c, addr_size, v);
	case PE_ULEB128:
		return rd_leb(c, false, v);
	case PE_SLEB128:
		return rd_leb(c, true, v);
	case PE_UDATA2:
	case PE_SDATA2:
		if (!rd_uint(c, 2, v))
			return false;
		break;
	case PE_UDATA4:
	case PE_SDATA4:
		if (!rd_uint(c, 4, v))
			return false;
		break;
	case PE_UDATA8:
	case PE_SDATA8:
		return rd_uint(c, 8, v);
	default:
		return false;
	}
	if (enc & 0x08)
		*v = sign_extend(*v, (enc & 0x0f) == PE_SDATA2 ? 2 : 4);
	return true;
}

/* rd_pointer - an address in encoding @enc: absolute or relative to the
 * field's own address; false for any other application. */
static bool rd_pointer(const struct parse *ps, struct cursor *c, uint8_t enc, uint64_t *v)
{
	uint64_t field = ps->sh_addr + c->pos;

	if (enc == PE_OMIT || (enc & PE_INDIRECT) || !rd_value(c, enc, ps->addr_size, v))
		return false;
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		*v += field;
		break;
	default:
		return false;
	}
	if (ps->addr_size == 4)
		*v &= 0xffffffffu;
	return true;
}

/* entry_at - the entry at @off: 1, 0 at the end (no room, or the zero
 * terminator), -1 for a length that does not fit. */
static int entry_at(const struct parse *ps, size_t off, struct entry *e)
{
	struct cursor c = { ps->buf, off, ps->len };
	uint64_t len;

	if (!rd_uint(&c, 4, &len) || len == 0)
		return 0;
	e->id_len = 4;
	if (len == 0xffffffffu) { /* the 64-bit format */
		if (!rd_uint(&c, 8, &len))
			return -1;
		e->id_len = 8;
	} else if (len >= 0xfffffff0u) {
		return -1; /* reserved */
	}
	if (len > ps->len - c.pos || len < e->id_len)
		return -1;
	e->id_pos = c.pos;
	e->end = c.pos + len;
	c.end = e->end;
	return rd_uint(&c, e->id_len, &e->id) ? 1 : -1;
}

/* cie_skip_header - past version, augmentation (into @aug), alignment
 * factors and return register of the CIE at @c. */
static bool cie_skip_header(struct cursor *c, char *aug)
{
	uint64_t v;
	uint8_t version;
	size_t i;

	if (!rd(c, &version, 1) || (version != 1 && version != 3 && version != 4))
		return false;
	for (i = 0;; i++) {
		if (i == MAX_AUGMENTATION || !rd(c, &aug[i], 1))
			return false;
		if (!aug[i])
			break;
	}
	if (version == 4 && (!rd_uint(c, 1, &v) || !rd_uint(c, 1, &v)))
		return false; /* address and segment selector sizes */
	if (!rd_leb(c, false, &v) || !rd_leb(c, true, &v))
		return false;
	return version == 1 ? rd_uint(c, 1, &v) : rd_leb(c, false, &v);
}

/* cie_encoding - the encoding of the addresses in the FDEs of the CIE at
 * @off: its 'R' augmentation, else absolute; -1 if it is no CIE we can
 * read. */
static int cie_encoding(const struct parse *ps, size_t off)
{
	char aug[MAX_AUGMENTATION];
	struct cursor c;
	struct entry e;
	uint64_t v;
	uint8_t b;
	size_t i;

	if (entry_at(ps, off, &e) != 1 || e.id != 0)
		return -1;
	c = (struct cursor){ ps->buf, e.id_pos + e.id_len, e.end };
	if (!cie_skip_header(&c, aug))
		return -1;
	if (aug[0] != 'z')
		return aug[0] ? -1 : PE_ABSPTR; /* no 'z': no way past unknown data */
	if (!rd_leb(&c, false, &v))
		return -1;
	for (i = 1; aug[i]; i++) {
		switch (aug[i]) {
		case 'R':
			return rd(&c, &b, 1) ? b : -1;
		case 'P': /* the personality routine: skip it */
			if (!rd(&c, &b, 1) || (b & 0x70) > PE_PCREL ||
			    !rd_value(&c, b, ps->addr_size, &v))
				return -1;
			break;
		case 'L':
			if (!rd(&c, &b, 1))
				return -1;
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			return -1;
		}
	}
	return PE_ABSPTR;
}

/* fde_span - the range of the FDE @e whose CIE is at @cie_off; false if
 * it names none. */
static bool fde_span(struct parse *ps, const struct entry *e, size_t cie_off,
		     struct fderange_span *out)
{
	struct cursor c = { ps->buf, e->id_pos + e->id_len, e->end };
	uint64_t start, range;

	if (cie_off != ps->cie_off) {
		ps->cie_off = cie_off;
		ps->cie_enc = cie_encoding(ps, cie_off);
	}
	if (ps->cie_enc < 0 || !rd_pointer(ps, &c, (uint8_t)ps->cie_enc, &start) ||
	    !rd_value(&c, (uint8_t)ps->cie_enc, ps->addr_size, &range))
		return false;
	if (ps->addr_size == 4)
		range &= 0xffffffffu;
	/* An FDE of discarded code is relocated to 0; it names nothing. */
	if (!start || !range || range > UINT64_MAX - start)
		return false;
	out->start = start;
	out->end = start + range;
	return true;
}

static int push(struct fderange *r, size_t *cap, uint64_t max, const struct fderange_span *s)
{
	struct fderange_span *t;
	size_t ncap;

	if (r->n >= max)
		return -E2BIG;
	if (r->n == *cap) {
		ncap = *cap ? *cap * 2 : FIRST_CAP;
		if (ncap > max)
			ncap = (size_t)max;
		t = realloc(r->spans, ncap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		r->spans = t;
		*cap = ncap;
	}
	r->spans[r->n++] = *s;
	return 0;
}

static int span_cmp(const void *pa, const void *pb)
{
	const struct fderange_span *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end; /* the widest first */
}

/* finish - sort, keep one range per start (the widest), give back the
 * slack. */
static void finish(struct fderange *r)
{
	struct fderange_span *t;
	size_t i, k = 0;

	qsort(r->spans, r->n, sizeof(*r->spans), span_cmp);
	for (i = 0; i < r->n; i++)
		if (!k || r->spans[i].start != r->spans[k - 1].start)
			r->spans[k++] = r->spans[i];
	r->n = k;
	t = realloc(r->spans, k * sizeof(*t));
	if (t)
		r->spans = t;
}

/* walk - every FDE of the section into @r. */
static int walk(struct parse *ps, struct fderange *r, uint64_t max)
{
	struct fderange_span s;
	struct entry e;
	size_t off = 0, cap = 0;
	int err;

	while (entry_at(ps, off, &e) == 1) {
		/* In .eh_frame an FDE's id is the distance back to its CIE. */
		if (e.id && e.id <= e.id_pos && fde_span(ps, &e, e.id_pos - e.id, &s)) {
			err = push(r, &cap, max, &s);
			if (err)
				return err;
		}
		off = e.end;
	}
	return 0;
}

struct fderange *fderange__parse(const void *buf, size_t len, uint64_t sh_addr, unsigned addr_size,
				 uint64_t max_ranges)
{
	struct parse ps = { buf, len, sh_addr, addr_size, SIZE_MAX, -1 };
	struct fderange *r = NULL;
	int err = -ENOEXEC;

	if (addr_size != 4 && addr_size != 8)
		goto cleanup;
	r = calloc(1, sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = walk(&ps, r, max_ranges < FDERANGE_MAX_RANGES ? max_ranges : FDERANGE_MAX_RANGES);
	if (!err && !r->n)
		err = -ENOENT;
	if (!err)
		finish(r);
cleanup:
	if (err) {
		fderange__free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

/* section_name_ok - whether the section names can be read whole without
 * reading much: elf_strptr reads the table the first time. */
static bool section_name_ok(Elf *elf, size_t shstrndx, uint64_t file_size)
{
	Elf_Scn *scn = elf_getscn(elf, shstrndx);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_STRTAB &&
	       sh.sh_size <= MAX_SHSTRTAB && sh.sh_offset <= file_size &&
	       file_size - sh.sh_offset >= sh.sh_size;
}

/* find_eh_frame - the .eh_frame section of @elf and its header; NULL if
 * there is none inside the file. */
static Elf_Scn *find_eh_frame(Elf *elf, uint64_t file_size, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx) || !section_name_ok(elf, shstrndx, file_size))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) ||
		    (sh->sh_type != SHT_PROGBITS && sh->sh_type != SHT_X86_64_UNWIND))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (!name || strcmp(name, ".eh_frame"))
			continue;
		if (sh->sh_offset > file_size || file_size - sh->sh_offset < sh->sh_size)
			return NULL;
		return scn;
	}
	return NULL;
}

/* read_section - the ranges of @scn (its header @sh) within @lim. */
static struct fderange *read_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
				     const struct fderange_limits *lim, unsigned *over)
{
	unsigned addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	struct fderange *r;
	Elf_Data *d;

	if (sh->sh_size > lim->bytes || sh->sh_size > FDERANGE_MAX_SECTION) {
		*over |= FDERANGE_OVER_BYTES;
		errno = E2BIG;
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size == 0 || d->d_size > sh->sh_size) {
		errno = ENOENT;
		return NULL;
	}
	r = fderange__parse(d->d_buf, d->d_size, sh->sh_addr, addr_size, lim->ranges);
	if (!r && errno == E2BIG)
		*over |= FDERANGE_OVER_RANGES;
	return r;
}

struct fderange *fderange__open_fd(int fd, const struct fderange_limits *lim,
				   struct fderange_limits *spent, unsigned *over)
{
	struct fderange_limits max = { FDERANGE_MAX_SECTION, FDERANGE_MAX_RANGES };
	struct fderange *r = NULL;
	unsigned over_here = 0;
	uint64_t size;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int err;

	if (spent)
		*spent = (struct fderange_limits){ 0 };
	elf = elfsym__elf_begin(fd, &size);
	if (!elf)
		goto cleanup;
	scn = elf_kind(elf) == ELF_K_ELF ? find_eh_frame(elf, size, &sh) : NULL;
	if (!scn) {
		errno = ENOENT;
		goto cleanup;
	}
	r = read_section(elf, scn, &sh, lim ? lim : &max, &over_here);
	if (r && spent) {
		spent->bytes = sh.sh_size;
		spent->ranges = r->n;
	}
cleanup:
	err = errno;
	if (elf)
		elf_end(elf);
	if (over)
		*over = over_here;
	errno = err;
	return r;
}

void fderange__free(struct fderange *r)
{
	if (!r)
		return;
	free(r->spans);
	free(r);
}

int fderange__lookup(const struct fderange *r, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	size_t lo = 0, hi = r ? r->n : 0, mid;

	while (lo < hi) { /* the first span starting after vaddr */
		mid = lo + (hi - lo) / 2;
		if (r->spans[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= r->spans[lo - 1].end)
		return -ENOENT;
	if (start)
		*start = r->spans[lo - 1].start;
	if (end)
		*end = r->spans[lo - 1].end;
	return 0;
}

size_t fderange__count(const struct fderange *r)
{
	return r ? r->n : 0;
}

size_t fderange__memory(const struct fderange *r)
{
	return r ? sizeof(*r) + r->n * sizeof(*r->spans) : 0;
}
