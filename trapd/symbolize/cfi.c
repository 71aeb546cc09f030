// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cfi.c - read the .eh_frame of one ELF file and turn libdw's frame
 * states into compact x86-64 rules (cfi.h).
 *
 * libdw sizes nothing from the file before reading it, but libelf sizes
 * its section table from the header: the header is checked against the
 * file size first (check_ehdr), and each CFI section must lie inside the
 * file and under the cap before its bytes are read. The .eh_frame_hdr
 * search table is read here too: it finds the FDE of a pc (its range is
 * the function's, and its length is checked before libdw runs it).
 */
#include "trapd/symbolize/cfi.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/symbolize/cfi_expr.h"
#include "trapd/symbolize/cfi_program.h"

#define MAX_SEGS 64
#define CACHE_SLOTS 1024u /* rows cached per file, direct mapped */
#define MAX_POOL_OPS (CFI_MAX_EXPRS * 8)
#define HDR_TABLE_ENC (DW_EH_PE_datarel | DW_EH_PE_sdata4)

struct cfi_seg {
	uint64_t offset, filesz, vaddr;
	bool exec; /* PF_X */
};

struct cfi_expr {
	uint16_t first, n; /* in pool */
};

struct cache_slot {
	uint64_t key; /* the pc looked up, plus one (0: empty) */
	int err;
	struct cfi_row row;
};

struct cfi {
	Elf *elf;
	Dwarf_CFI *dw;
	void *image;		    /* cfi__open_mem's copy, which elf reads */
	const unsigned char *ident; /* of elf, for dwarf_next_cfi */
	Elf_Data *eh;		    /* .eh_frame, raw */
	uint64_t eh_vaddr;
	const uint8_t *table; /* .eh_frame_hdr's search table: pairs of s32 */
	uint64_t nfdes;
	uint64_t hdr_vaddr;
	struct cfi_seg segs[MAX_SEGS];
	unsigned nsegs;
	struct cfi_op pool[MAX_POOL_OPS];
	unsigned npool;
	struct cfi_expr exprs[CFI_MAX_EXPRS + 1]; /* [0] unused: 0 is "none" */
	unsigned nexprs;
	struct cache_slot *cache;
	struct cfi_stats stats;
};

/* --- reading the file ------------------------------------------------- */

/* check_ehdr - the header fields libelf sizes its tables from, against
 * the file's @size, before libelf reads them. */
static int check_ehdr(const Elf64_Ehdr *eh, uint64_t size)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return -EINVAL;
	if (eh->e_phnum && (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
			    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff))
		return -EINVAL;
	/* no section table, or extended numbering: no sections to find */
	if (!eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return -ENOENT;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
		return -EINVAL;
	return 0;
}

static int load_segments(struct cfi *c)
{
	GElf_Phdr ph;
	size_t n, i;

	if (elf_getphdrnum(c->elf, &n))
		return -EINVAL;
	for (i = 0; i < n && c->nsegs < MAX_SEGS; i++) {
		if (!gelf_getphdr(c->elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		c->segs[c->nsegs++] =
			(struct cfi_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr, ph.p_flags & PF_X };
	}
	return 0;
}

/* find_sections - .eh_frame and .eh_frame_hdr, inside the file of @size
 * and under @max bytes together. They are picked as libdw's
 * dwarf_getcfi_elf picks them (the first section of each name that is
 * not SHT_NOBITS), so that what is checked here is what libdw runs. */
static int find_sections(struct cfi *c, uint64_t size, uint64_t max, Elf_Scn **eh, Elf_Scn **hdr)
{
	Elf_Scn *scn = NULL, **want;
	uint64_t total = 0;
	const char *name;
	GElf_Shdr sh;
	size_t shstrndx;

	if (elf_getshdrstrndx(c->elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(c->elf, shstrndx, sh.sh_name);
		want = !name				? NULL
		       : !strcmp(name, ".eh_frame")	? eh
		       : !strcmp(name, ".eh_frame_hdr") ? hdr
							: NULL;
		if (!want || *want)
			continue;
		/* some linkers type .eh_frame SHT_X86_64_UNWIND */
		if (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_X86_64_UNWIND)
			return -EINVAL;
		if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
			return -EINVAL;
		total += sh.sh_size;
		if (total > max)
			return -E2BIG;
		*want = scn;
	}
	c->stats.bytes = total;
	return *eh && *hdr ? 0 : -ENOENT;
}

/* read_encoded - a pointer of DWARF EH encoding @enc at *@p (file address
 * @at), relative to @datarel for DW_EH_PE_datarel; advances *@p. */
static int read_encoded(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t at,
			uint64_t datarel, uint64_t *out)
{
	uint64_t v = 0, base = 0;
	size_t len;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		len = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		len = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		len = 2;
		break;
	default:
		return -EINVAL;
	}
	if ((size_t)(end - *p) < len)
		return -EINVAL;
	memcpy(&v, *p, len);
	if ((enc & 0x0f) == DW_EH_PE_sdata4)
		v = (uint64_t)(int64_t)(int32_t)v;
	else if ((enc & 0x0f) == DW_EH_PE_sdata2)
		v = (uint64_t)(int64_t)(int16_t)v;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		base = at;
		break;
	case DW_EH_PE_datarel:
		base = datarel;
		break;
	default:
		return -EINVAL;
	}
	if (enc & DW_EH_PE_indirect)
		return -EINVAL;
	*p += len;
	*out = v + base;
	return 0;
}

static uint64_t table_word(const struct cfi *c, uint64_t i)
{
	int32_t v;

	memcpy(&v, c->table + i * 4, sizeof(v));
	return c->hdr_vaddr + (uint64_t)(int64_t)v;
}

/* table_sorted - whether the search table's start addresses never
 * decrease. On an unsorted table, libdw's binary search and find_fde's
 * could pick different FDEs, and libdw would run a program never checked
 * here. */
static bool table_sorted(const struct cfi *c)
{
	uint64_t i;

	for (i = 1; i < c->nfdes; i++)
		if (table_word(c, i * 2) < table_word(c, (i - 1) * 2))
			return false;
	return true;
}

/* load_hdr - the binary search table of .eh_frame_hdr. */
static int load_hdr(struct cfi *c, Elf_Scn *scn)
{
	const uint8_t *b, *p, *end;
	uint64_t ptr, count;
	Elf_Data *d = elf_rawdata(scn, NULL);
	GElf_Shdr sh;

	if (!d || !d->d_buf || d->d_size < 4 || !gelf_getshdr(scn, &sh))
		return -ENOENT;
	b = p = d->d_buf;
	end = p + d->d_size;
	c->hdr_vaddr = sh.sh_addr;
	if (p[0] != 1 || p[3] != HDR_TABLE_ENC || p[1] == DW_EH_PE_omit || p[2] == DW_EH_PE_omit)
		return -ENOENT;
	p += 4;
	if (read_encoded(b[1], &p, end, sh.sh_addr + (uint64_t)(p - b), sh.sh_addr, &ptr) ||
	    read_encoded(b[2], &p, end, sh.sh_addr + (uint64_t)(p - b), sh.sh_addr, &count))
		return -EINVAL;
	if (ptr != c->eh_vaddr || count > (uint64_t)(end - p) / 8)
		return -EINVAL;
	c->table = p;
	c->nfdes = count;
	return table_sorted(c) ? 0 : -EINVAL;
}

static int load(struct cfi *c, uint64_t size, uint64_t max)
{
	Elf_Scn *eh = NULL, *hdr = NULL;
	GElf_Shdr sh;
	int err;

	c->ident = (const unsigned char *)elf_getident(c->elf, NULL);
	if (elf_kind(c->elf) != ELF_K_ELF || !c->ident)
		return -EINVAL;
	err = load_segments(c);
	if (!err)
		err = find_sections(c, size, max, &eh, &hdr);
	if (err)
		return err;
	c->eh = elf_rawdata(eh, NULL);
	if (!c->eh || !c->eh->d_buf || !gelf_getshdr(eh, &sh))
		return -EINVAL;
	c->eh_vaddr = sh.sh_addr;
	err = load_hdr(c, hdr);
	if (err)
		return err;
	c->dw = dwarf_getcfi_elf(c->elf);
	if (!c->dw)
		return -EINVAL;
	c->cache = calloc(CACHE_SLOTS, sizeof(*c->cache));
	return c->cache ? 0 : -ENOMEM;
}

static struct cfi *open_elf(struct cfi *c, uint64_t size, uint64_t max)
{
	int err;

	if (!c->elf) {
		err = -EINVAL;
		goto fail;
	}
	err = load(c, size, max ? max : CFI_MAX_BYTES);
	if (err)
		goto fail;
	/* everything needed is read: libelf must never touch the fd again */
	elf_cntl(c->elf, ELF_C_FDDONE);
	return c;
fail:
	cfi__free(c);
	errno = -err;
	return NULL;
}

struct cfi *cfi__open_fd(int fd, uint64_t max_bytes)
{
	struct cfi *c;
	Elf64_Ehdr eh;
	struct stat st;
	int err;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return errno = EINVAL, NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		return errno = EINVAL, NULL;
	err = check_ehdr(&eh, (uint64_t)st.st_size);
	if (err)
		return errno = -err, NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	elf_version(EV_CURRENT);
	c->elf = elf_begin(fd, ELF_C_READ, NULL);
	return open_elf(c, (uint64_t)st.st_size, max_bytes);
}

struct cfi *cfi__open_mem(const void *image, size_t len, uint64_t max_bytes)
{
	struct cfi *c;
	int err;

	if (len < sizeof(Elf64_Ehdr))
		return errno = EINVAL, NULL;
	err = check_ehdr(image, len);
	if (err)
		return errno = -err, NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->image = malloc(len);
	if (!c->image) {
		free(c);
		return errno = ENOMEM, NULL;
	}
	memcpy(c->image, image, len);
	elf_version(EV_CURRENT);
	c->elf = elf_memory(c->image, len);
	return open_elf(c, len, max_bytes);
}

void cfi__free(struct cfi *c)
{
	if (!c)
		return;
	if (c->dw)
		dwarf_cfi_end(c->dw);
	elf_end(c->elf);
	free(c->image);
	free(c->cache);
	free(c);
}

int cfi__offset_to_vaddr(const struct cfi *c, uint64_t off, uint64_t *vaddr)
{
	unsigned i;

	for (i = 0; i < c->nsegs; i++) {
		if (off >= c->segs[i].offset && off - c->segs[i].offset < c->segs[i].filesz) {
			*vaddr = c->segs[i].vaddr + (off - c->segs[i].offset);
			return 0;
		}
	}
	return -ENOENT;
}

int cfi__exec_mapping_vaddr(const struct cfi *c, uint64_t off, uint64_t page_size, uint64_t *vaddr)
{
	const struct cfi_seg *s;
	uint64_t first;
	unsigned i;

	for (i = 0; i < c->nsegs; i++) {
		s = &c->segs[i];
		first = s->offset & ~(page_size - 1); /* the page it begins in */
		if (s->exec && off >= first && off - first < s->offset - first + s->filesz) {
			/* off may be below the segment's start: the page it
			 * begins in, which the kernel maps from its start */
			*vaddr = s->vaddr - (s->offset - off);
			return 0;
		}
	}
	return -ENOENT;
}

int cfi__vaddr_to_exec_offset(const struct cfi *c, uint64_t vaddr, uint64_t *off)
{
	unsigned i;

	for (i = 0; i < c->nsegs; i++) {
		if (c->segs[i].exec && vaddr >= c->segs[i].vaddr &&
		    vaddr - c->segs[i].vaddr < c->segs[i].filesz) {
			*off = c->segs[i].offset + (vaddr - c->segs[i].vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

void cfi__get_stats(const struct cfi *c, struct cfi_stats *out)
{
	*out = c->stats;
}

/* --- FDEs ------------------------------------------------------------- */

/* cie_fde_encoding - the encoding of the FDE's addresses ('R' of the
 * CIE's augmentation), DW_EH_PE_absptr when not given. */
static int cie_fde_encoding(const Dwarf_CIE *cie, uint8_t *enc)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	const char *a = cie->augmentation;
	uint64_t skip;

	*enc = DW_EH_PE_absptr;
	if (!a || a[0] != 'z')
		return a && !a[0] ? 0 : -EINVAL;
	for (a++; *a; a++) {
		if (*a == 'R' || *a == 'L') {
			if (!p || p >= end)
				return -EINVAL;
			if (*a == 'R')
				*enc = *p;
			p++;
		} else if (*a == 'P') {
			if (!p || p >= end)
				return -EINVAL;
			p++;
			if (read_encoded(p[-1] & 0x0f, &p, end, 0, 0, &skip))
				return -EINVAL;
		} else if (*a != 'S' && *a != 'B') {
			return -EINVAL;
		}
	}
	return 0;
}

/* An FDE found for a pc: its range, and the two programs libdw would run
 * for it (its CIE's initial instructions, then its own). */
struct fde_found {
	uint64_t start, end;
	const uint8_t *cie_prog, *cie_prog_end;
	const uint8_t *prog, *prog_end;
	uint8_t enc; /* of its addresses, and of DW_CFA_set_loc's operand */
};

/* skip_augmentation - step over an FDE's augmentation data, present
 * when its CIE's augmentation string starts with 'z'. */
static int skip_augmentation(const Dwarf_CIE *cie, const uint8_t **p, const uint8_t *end)
{
	if (!cie->augmentation || cie->augmentation[0] != 'z')
		return 0;
	return cfi_program__skip_block(p, end);
}

/* fde_at - parse the FDE at offset @off of .eh_frame. */
static int fde_at(struct cfi *c, uint64_t off, struct fde_found *f)
{
	Dwarf_CFI_Entry fde, cie;
	Dwarf_Off next, cie_next;
	const uint8_t *p, *base = c->eh->d_buf;
	uint64_t range;

	if (off >= c->eh->d_size || dwarf_next_cfi(c->ident, c->eh, true, off, &next, &fde) ||
	    dwarf_cfi_cie_p(&fde))
		return -EINVAL;
	if (dwarf_next_cfi(c->ident, c->eh, true, fde.fde.CIE_pointer, &cie_next, &cie) ||
	    !dwarf_cfi_cie_p(&cie) || cie_fde_encoding(&cie.cie, &f->enc))
		return -EINVAL;
	p = fde.fde.start;
	if (read_encoded(f->enc, &p, fde.fde.end, c->eh_vaddr + (uint64_t)(p - base), 0,
			 &f->start) ||
	    read_encoded(f->enc & 0x0f, &p, fde.fde.end, 0, 0, &range) ||
	    skip_augmentation(&cie.cie, &p, fde.fde.end))
		return -EINVAL;
	f->end = f->start + range;
	f->cie_prog = cie.cie.initial_instructions;
	f->cie_prog_end = cie.cie.initial_instructions_end;
	f->prog = p;
	f->prog_end = fde.fde.end;
	return f->end >= f->start ? 0 : -EINVAL;
}

/* find_fde - the FDE of the search table covering @pc. */
static int find_fde(struct cfi *c, uint64_t pc, struct fde_found *f)
{
	uint64_t lo = 0, hi = c->nfdes, mid, fde;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (table_word(c, mid * 2) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	fde = table_word(c, (lo - 1) * 2 + 1);
	if (fde < c->eh_vaddr || fde_at(c, fde - c->eh_vaddr, f))
		return -EINVAL;
	return pc >= f->start && pc < f->end ? 0 : -ENOENT;
}

/* affordable - whether libdw may run @f's programs: each under
 * CFI_MAX_FDE bytes, well formed, and within cfi_program's bounds. */
static bool affordable(const struct fde_found *f)
{
	struct cfi_program_cost cost = { 0 };

	if (f->cie_prog_end - f->cie_prog > (ptrdiff_t)CFI_MAX_FDE ||
	    f->prog_end - f->prog > (ptrdiff_t)CFI_MAX_FDE)
		return false;
	return !cfi_program__scan(f->cie_prog, f->cie_prog_end, f->enc, &cost) &&
	       !cfi_program__scan(f->prog, f->prog_end, f->enc, &cost) &&
	       cfi_program__affordable(&cost);
}

int cfi__function_range(struct cfi *c, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	struct fde_found f;

	if (find_fde(c, vaddr, &f))
		return -ENOENT;
	*start = f.start;
	*end = f.end;
	return 0;
}

/* --- rules ------------------------------------------------------------ */

static bool op_equal(const struct cfi_op *a, const Dwarf_Op *b)
{
	return a->atom == b->atom && a->n1 == b->number && a->n2 == b->number2;
}

/* intern - the index of expression @ops[0..n) in the pool, added if new. */
static int intern(struct cfi *c, const Dwarf_Op *ops, size_t n, uint16_t *idx)
{
	unsigned i;
	size_t k;

	if (!n || n > CFI_MAX_EXPR_OPS)
		return -EINVAL;
	for (i = 1; i <= c->nexprs; i++) {
		if (c->exprs[i].n != n)
			continue;
		for (k = 0; k < n && op_equal(&c->pool[c->exprs[i].first + k], &ops[k]); k++)
			;
		if (k == n) {
			*idx = (uint16_t)i;
			return 0;
		}
	}
	if (c->nexprs >= CFI_MAX_EXPRS || c->npool + n > MAX_POOL_OPS)
		return -EINVAL;
	c->exprs[++c->nexprs] = (struct cfi_expr){ (uint16_t)c->npool, (uint16_t)n };
	for (k = 0; k < n; k++)
		c->pool[c->npool++] = (struct cfi_op){ ops[k].atom, ops[k].number, ops[k].number2 };
	*idx = (uint16_t)c->nexprs;
	return 0;
}

static bool fits_s32(uint64_t v)
{
	return (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX;
}

/* cfa_rule - the CFA as libdw gives it: one DW_OP_bregx or breg, or any
 * expression. */
static int cfa_rule(struct cfi *c, Dwarf_Frame *f, struct cfi_rule *r)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		return -EINVAL;
	if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number <= CFI_REG_RIP &&
	    fits_s32(ops[0].number2)) {
		*r = (struct cfi_rule){ CFI_RULE_VAL_OFFSET, (uint8_t)ops[0].number, 0,
					(int32_t)ops[0].number2 };
		return 0;
	}
	if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg16 &&
	    fits_s32(ops[0].number)) {
		*r = (struct cfi_rule){ CFI_RULE_VAL_OFFSET, (uint8_t)(ops[0].atom - DW_OP_breg0),
					0, (int32_t)ops[0].number };
		return 0;
	}
	*r = (struct cfi_rule){ .kind = CFI_RULE_VAL_EXPR };
	return intern(c, ops, n, &r->expr);
}

/* reg_rule - register @regno's rule from libdw's location description:
 * none (undefined or same value), CFA [+ N] [stack_value], a register, or
 * an expression [stack_value]. */
static int reg_rule(struct cfi *c, Dwarf_Frame *f, int regno, struct cfi_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	bool val;

	if (dwarf_frame_register(f, regno, mem, &ops, &n))
		return -EINVAL;
	*r = (struct cfi_rule){ .kind = ops ? CFI_RULE_UNDEFINED : CFI_RULE_SAME };
	if (!n)
		return 0;
	val = ops[n - 1].atom == DW_OP_stack_value;
	n -= val;
	if (n == 1 && ops[0].atom == DW_OP_regx && !val && ops[0].number <= CFI_REG_RIP) {
		*r = (struct cfi_rule){ CFI_RULE_REGISTER, (uint8_t)ops[0].number, 0, 0 };
		return 0;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa &&
	    (n == 1 || (n == 2 && ops[1].atom == DW_OP_plus_uconst && fits_s32(ops[1].number)))) {
		r->kind = val ? CFI_RULE_VAL_OFFSET : CFI_RULE_OFFSET;
		r->off = n == 2 ? (int32_t)ops[1].number : 0;
		return 0;
	}
	r->kind = val ? CFI_RULE_VAL_EXPR : CFI_RULE_EXPR;
	return intern(c, ops, n, &r->expr);
}

/* frame_row - the row libdw gives for @pc, and the pcs [*start, *end)
 * it holds for. */
static int frame_row(struct cfi *c, uint64_t pc, struct cfi_row *row, uint64_t *start,
		     uint64_t *end)
{
	Dwarf_Frame *f = NULL;
	bool sig = false;
	int err;

	if (dwarf_cfi_addrframe(c->dw, pc, &f))
		return -EINVAL;
	err = -EINVAL;
	if (dwarf_frame_info(f, start, end, &sig) != CFI_REG_RIP)
		goto out;
	row->signal = sig;
	err = cfa_rule(c, f, &row->cfa);
	if (!err)
		err = reg_rule(c, f, CFI_REG_RIP, &row->ra);
	if (!err)
		err = reg_rule(c, f, CFI_REG_RBP, &row->rbp);
	if (!err)
		err = reg_rule(c, f, CFI_REG_RSP, &row->rsp);
out:
	free(f);
	return err;
}

static int rule_miss(struct cfi *c, uint64_t pc, struct cfi_row *row)
{
	uint64_t start, end;
	struct fde_found fde;
	int err;

	err = find_fde(c, pc, &fde);
	if (err)
		return err;
	if (!affordable(&fde))
		return -EINVAL;
	return frame_row(c, pc, row, &start, &end);
}

/* fde_rows - the rows of FDE @f, for cfi__for_each_row. */
static int fde_rows(struct cfi *c, const struct fde_found *f, uint64_t *left, cfi_row_fn fn,
		    void *ctx)
{
	struct cfi_row row;
	uint64_t pc = f->start, start, end;
	int err, r;

	if (!affordable(f))
		return fn(ctx, f->start, f->end, NULL, -EINVAL);
	while (pc < f->end) {
		if (!*left)
			return -E2BIG;
		--*left;
		memset(&row, 0, sizeof(row));
		err = frame_row(c, pc, &row, &start, &end);
		if (err || end <= pc || end > f->end)
			end = f->end; /* the rest of the FDE, as one bad row */
		r = fn(ctx, pc, end, err ? NULL : &row, err);
		if (r)
			return r;
		pc = end;
	}
	return 0;
}

int cfi__for_each_row(struct cfi *c, uint64_t max_rows, cfi_row_fn fn, void *ctx)
{
	struct fde_found f;
	uint64_t i, fde, left = max_rows;
	int r;

	for (i = 0; i < c->nfdes; i++) {
		fde = table_word(c, i * 2 + 1);
		if (fde < c->eh_vaddr || fde_at(c, fde - c->eh_vaddr, &f) || f.end == f.start)
			continue;
		r = fde_rows(c, &f, &left, fn, ctx);
		if (r)
			return r;
	}
	return 0;
}

int cfi__rule(struct cfi *c, uint64_t vaddr, bool is_return_address, struct cfi_row *row)
{
	uint64_t pc = vaddr - is_return_address;
	uint64_t h = (pc * 0x9e3779b97f4a7c15ull) >> 54; /* 10 bits: CACHE_SLOTS */
	struct cache_slot *s = &c->cache[h & (CACHE_SLOTS - 1)];

	c->stats.lookups++;
	if (s->key == pc + 1 && pc + 1) {
		c->stats.cache_hits++;
		*row = s->row;
		return s->err;
	}
	memset(row, 0, sizeof(*row));
	s->err = rule_miss(c, pc, row);
	s->key = pc + 1;
	s->row = *row;
	return s->err;
}

int cfi_expr__of(const struct cfi *c, uint16_t expr, const struct cfi_op **ops, size_t *n)
{
	if (!expr || expr > c->nexprs)
		return -EINVAL;
	*ops = &c->pool[c->exprs[expr].first];
	*n = c->exprs[expr].n;
	return 0;
}

int cfi__eval(const struct cfi *c, uint16_t expr, const struct cfi_regs *regs, uint64_t cfa,
	      cfi_read_fn read, void *ctx, uint64_t *out)
{
	if (!expr || expr > c->nexprs)
		return -EINVAL;
	return cfi_expr__eval(&c->pool[c->exprs[expr].first], c->exprs[expr].n, regs, cfa, read,
			      ctx, out);
}
