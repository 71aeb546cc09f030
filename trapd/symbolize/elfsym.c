// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* elfsym.c - load function symbols, PT_LOAD segments and the build ID of
 * an untrusted ELF file with libelf.
 *
 * libelf does its own checks, but it sizes its allocations from header
 * fields, so the headers are validated here first against the real file
 * size (check_headers), and every section is checked to lie inside the
 * file before its data is read.
 */
#include "trapd/symbolize/elfsym.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/util/log.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ELFDATA ELFDATA2LSB
#else
#define NATIVE_ELFDATA ELFDATA2MSB
#endif

#define MAX_PHDRS 65536u
#define MAX_SHSTRTAB (1u << 20) /* bytes of the section names */
#define PLT_STUB_BYTES 16	/* x86-64 */
#define ENTRY_BYTES 64		/* a stripped program's _start, as named */
#define PLT_MAX_STUBS                                                                              \
	(1u << 16)	     /* PLT stubs named (Debian's largest libraries have a few thousand) */
#define PLT_NAME_MAX 128     /* bytes of a stub's name kept, before "@plt" */
#define MAX_NOTES (1u << 20) /* bytes of one note section or segment */
/* Nested symbols (an assembly label typed as a function inside a bigger
 * one) are rare; look back this many symbols for one that covers. */
#define LOOKBACK 16

struct elfsym_sym {
	uint64_t addr;
	uint32_t size;
	uint32_t name; /* offset in names */
};

struct elfsym_seg {
	uint64_t offset;
	uint64_t filesz;
	uint64_t vaddr;
};

struct elfsym {
	struct elfsym_sym *syms;
	size_t nsyms;
	char *names;
	struct elfsym_seg *segs;
	size_t nsegs;
	int type;
	int machine;	 /* e_machine */
	uint64_t entry;	 /* e_entry */
	bool has_interp; /* a PT_INTERP: a dynamically linked program, not a library */
	enum elfsym_source source;
	char build_id[ELFSYM_MAX_BUILD_ID * 2 + 1];
	char debuglink[ELFSYM_MAX_DEBUGLINK + 1]; /* "" if none */
	uint32_t debuglink_crc;
	uint64_t table_bytes; /* of symbol and string tables read */
	unsigned over_limits; /* ELFSYM_OVER_*: a table was skipped for the caller's limits */
};

/* Where the image comes from, for the header checks done before libelf. */
struct image {
	int fd;
	const unsigned char *mem;
	uint64_t size;
};

/* A symbol as found in the table, before aliases are merged. The name
 * points into the string table, valid while the Elf is open. */
struct raw_sym {
	uint64_t addr;
	uint64_t size;
	uint64_t sec_end; /* end of the symbol's section, 0 = unknown */
	const char *name;
	uint32_t name_len;
	uint8_t bind;
	uint8_t underscores;
};

struct loader {
	Elf *elf;
	uint64_t file_size;
	size_t shnum;
	struct raw_sym *raw;
	size_t nraw, cap;
	size_t name_bytes;
	struct elfsym_limits lim; /* what may still be read */
	uint64_t table_bytes;	  /* read so far */
	unsigned over_limits;
	char *plt_names; /* "NAME@plt" of the PLT's stubs, until copied out */
};

static int image_read(const struct image *img, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t r;

	if (off > img->size || img->size - off < len)
		return -ENOEXEC;
	if (img->mem) {
		memcpy(buf, img->mem + off, len);
		return 0;
	}
	while (done < len) {
		r = pread(img->fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENOEXEC; /* shrank under us */
		done += (size_t)r;
	}
	return 0;
}

/* check_table - @num entries of @entsize bytes at @off lie inside the image
 * (@want_entsize is what libelf will assume). */
static bool check_table(const struct image *img, uint64_t off, uint64_t num, uint64_t entsize,
			uint64_t want_entsize)
{
	if (num == 0)
		return true;
	if (entsize != want_entsize || off > img->size)
		return false;
	return num <= (img->size - off) / entsize;
}

/* check_headers - the ELF header, and the extents of the section and
 * program header tables, are sane for an image of img->size bytes. */
static int check_headers(const struct image *img)
{
	unsigned char ident[EI_NIDENT];
	uint64_t shoff, shnum, phoff, phnum, shentsize, phentsize, shsz, phsz;
	uint64_t ext_shnum = 0, ext_phnum = 0;
	unsigned int type;
	int err;

	err = image_read(img, 0, ident, sizeof(ident));
	if (err)
		return err;
	if (memcmp(ident, ELFMAG, SELFMAG) != 0 || ident[EI_DATA] != NATIVE_ELFDATA ||
	    ident[EI_VERSION] != EV_CURRENT)
		return -ENOEXEC;
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		Elf64_Shdr sh0;

		err = image_read(img, 0, &eh, sizeof(eh));
		if (err)
			return err;
		type = eh.e_type;
		shoff = eh.e_shoff, shnum = eh.e_shnum, shentsize = eh.e_shentsize;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
		shsz = sizeof(Elf64_Shdr), phsz = sizeof(Elf64_Phdr);
		if (shoff && !image_read(img, shoff, &sh0, sizeof(sh0)))
			ext_shnum = sh0.sh_size, ext_phnum = sh0.sh_info;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;
		Elf32_Shdr sh0;

		err = image_read(img, 0, &eh, sizeof(eh));
		if (err)
			return err;
		type = eh.e_type;
		shoff = eh.e_shoff, shnum = eh.e_shnum, shentsize = eh.e_shentsize;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
		shsz = sizeof(Elf32_Shdr), phsz = sizeof(Elf32_Phdr);
		if (shoff && !image_read(img, shoff, &sh0, sizeof(sh0)))
			ext_shnum = sh0.sh_size, ext_phnum = sh0.sh_info;
	} else {
		return -ENOEXEC;
	}
	if (type != ET_EXEC && type != ET_DYN)
		return -ENOEXEC;
	/* Counts too big for the header live in section 0 (ELF gABI). */
	if (shoff && shnum == 0)
		shnum = ext_shnum;
	if (phnum == PN_XNUM)
		phnum = shoff ? ext_phnum : 0;
	if (!shoff && shnum)
		return -ENOEXEC;
	if (shnum > ELFSYM_MAX_SECTIONS || phnum > MAX_PHDRS)
		return -ENOEXEC;
	if (!check_table(img, shoff, shnum, shentsize, shsz) ||
	    !check_table(img, phoff, phnum, phentsize, phsz))
		return -ENOEXEC;
	return 0;
}

static bool section_in_file(const struct loader *ld, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS)
		return true;
	return sh->sh_offset <= ld->file_size && ld->file_size - sh->sh_offset >= sh->sh_size;
}

/* section_data - the data of section @idx if it is of @type, inside the
 * file and at most @max bytes; NULL otherwise. */
static Elf_Data *section_data(const struct loader *ld, size_t idx, uint32_t type, uint64_t max,
			      GElf_Shdr *sh)
{
	Elf_Scn *scn;
	Elf_Data *d;

	if (idx == 0 || idx >= ld->shnum)
		return NULL;
	scn = elf_getscn(ld->elf, idx);
	if (!scn || !gelf_getshdr(scn, sh) || sh->sh_type != type)
		return NULL;
	if (!section_in_file(ld, sh) || sh->sh_size > max)
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size == 0)
		return NULL;
	return d;
}

static int load_segments(struct elfsym *e, Elf *elf)
{
	size_t phnum, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum) != 0)
		return 0; /* no program headers: nothing maps to an address */
	if (phnum > MAX_PHDRS)
		phnum = MAX_PHDRS;
	e->segs = calloc(ELFSYM_MAX_SEGMENTS, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (i = 0; i < phnum && e->nsegs < ELFSYM_MAX_SEGMENTS; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		e->has_interp |= ph.p_type == PT_INTERP;
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;
		e->segs[e->nsegs].offset = ph.p_offset;
		e->segs[e->nsegs].filesz = ph.p_filesz;
		e->segs[e->nsegs].vaddr = ph.p_vaddr;
		e->nsegs++;
	}
	return 0;
}

/* notes_build_id - find NT_GNU_BUILD_ID in the notes @d. */
static bool notes_build_id(struct elfsym *e, Elf_Data *d)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *desc;
	size_t off = 0, next, name_off, desc_off, i;
	GElf_Nhdr nh;

	/* gelf_getnote checks each note against d_size and always moves
	 * forward, or returns 0 at the end or on a malformed note. */
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
			continue;
		if (nh.n_descsz == 0 || nh.n_descsz > ELFSYM_MAX_BUILD_ID)
			continue;
		desc = (const unsigned char *)d->d_buf + desc_off;
		for (i = 0; i < nh.n_descsz; i++) {
			e->build_id[2 * i] = hex[desc[i] >> 4];
			e->build_id[2 * i + 1] = hex[desc[i] & 0xf];
		}
		e->build_id[2 * nh.n_descsz] = '\0';
		return true;
	}
	return false;
}

/* load_build_id - from the note sections, or, for a file without section
 * headers, from the PT_NOTE segments. */
static void load_build_id(struct elfsym *e, struct loader *ld)
{
	size_t i, phnum;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;

	for (i = 1; i < ld->shnum; i++) {
		d = section_data(ld, i, SHT_NOTE, MAX_NOTES, &sh);
		if (d && notes_build_id(e, d))
			return;
	}
	if (ld->shnum > 1 || elf_getphdrnum(ld->elf, &phnum) != 0)
		return;
	for (i = 0; i < phnum && i < MAX_PHDRS; i++) {
		if (!gelf_getphdr(ld->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > ld->file_size || ld->file_size - ph.p_offset < ph.p_filesz ||
		    ph.p_filesz > MAX_NOTES)
			continue;
		d = elf_getdata_rawchunk(ld->elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && notes_build_id(e, d))
			return;
	}
}

/* section_named - the index of the first section called @name, 0 if
 * none or if the section names are unreadable or bigger than
 * MAX_SHSTRTAB (the table is read whole: a crafted file must not make
 * that gigabytes). */
static size_t section_named(const struct loader *ld, const char *name)
{
	size_t shstrndx, i, len = strlen(name);
	const char *names;
	Elf_Data *strs;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (elf_getshdrstrndx(ld->elf, &shstrndx) != 0)
		return 0;
	strs = section_data(ld, shstrndx, SHT_STRTAB, MAX_SHSTRTAB, &sh);
	if (!strs)
		return 0;
	names = strs->d_buf;
	for (i = 1; i < ld->shnum; i++) {
		scn = elf_getscn(ld->elf, i);
		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_name >= strs->d_size ||
		    strs->d_size - sh.sh_name < len + 1)
			continue;
		if (!memcmp(names + sh.sh_name, name, len + 1))
			return i;
	}
	return 0;
}

/* load_debuglink - .gnu_debuglink: a file name (NUL-terminated, padded to
 * 4 bytes) and the CRC-32 of the debug file. Kept only when the name is a
 * plain file name: it is joined to directories later, so "../x" or "a/b"
 * from a crafted file must not reach outside them. */
static void load_debuglink(struct elfsym *e, struct loader *ld)
{
	size_t idx = section_named(ld, ".gnu_debuglink"), len, crc_off;
	const char *name;
	GElf_Shdr sh;
	Elf_Data *d;

	d = idx ? section_data(ld, idx, SHT_PROGBITS, 4096, &sh) : NULL;
	if (!d)
		return;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (len == 0 || len > ELFSYM_MAX_DEBUGLINK || crc_off + 4 > d->d_size)
		return;
	if (memchr(name, '/', len) || !strcmp(name, ".") || !strcmp(name, ".."))
		return;
	memcpy(e->debuglink, name, len);
	e->debuglink[len] = '\0';
	memcpy(&e->debuglink_crc, (const char *)d->d_buf + crc_off, 4);
}

/* section_end - the end address of the allocated section holding @addr,
 * 0 when unknown. */
static uint64_t section_end(const struct loader *ld, size_t shndx, uint64_t addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || shndx >= ld->shnum)
		return 0;
	scn = elf_getscn(ld->elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	if (sh.sh_addr + sh.sh_size < sh.sh_addr || addr < sh.sh_addr ||
	    addr >= sh.sh_addr + sh.sh_size)
		return 0;
	return sh.sh_addr + sh.sh_size;
}

/* symbol_name - the name at @off of the string table @strs, cut at
 * ELFSYM_MAX_NAME; false when out of range, empty or unterminated. */
static bool symbol_name(const Elf_Data *strs, size_t off, const char **name, size_t *len)
{
	const char *base = strs->d_buf, *nul;
	size_t left, scan;

	if (off >= strs->d_size)
		return false;
	left = strs->d_size - off;
	scan = left < ELFSYM_MAX_NAME + 1 ? left : ELFSYM_MAX_NAME + 1;
	nul = memchr(base + off, '\0', scan);
	if (nul)
		*len = (size_t)(nul - (base + off));
	else if (left > ELFSYM_MAX_NAME)
		*len = ELFSYM_MAX_NAME; /* cut; the rest is checked by nobody */
	else
		return false;
	*name = base + off;
	return *len > 0;
}

/* unversioned_len - the length of @name without a symbol version
 * ("clock_gettime@@GLIBC_2.17" as a .symtab names a versioned definition):
 * the function is the same, and profiles should say so alike. */
static size_t unversioned_len(const char *name, size_t len)
{
	const char *at = memchr(name, '@', len);

	return at && at > name ? (size_t)(at - name) : len;
}

static int add_raw(struct loader *ld, const GElf_Sym *sym, const char *name, size_t len)
{
	struct raw_sym *r;
	size_t i;

	if (ld->nraw == ld->cap) {
		size_t ncap = ld->cap ? ld->cap * 2 : 256;

		if (ncap > ELFSYM_MAX_SYMBOLS)
			ncap = ELFSYM_MAX_SYMBOLS;
		r = realloc(ld->raw, ncap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		ld->raw = r;
		ld->cap = ncap;
	}
	r = &ld->raw[ld->nraw++];
	r->addr = sym->st_value;
	r->size = sym->st_size;
	r->sec_end = sym->st_size ? 0 : section_end(ld, sym->st_shndx, sym->st_value);
	r->name = name;
	r->name_len = (uint32_t)len;
	r->bind = GELF_ST_BIND(sym->st_info);
	for (i = 0; i < len && i < 255 && name[i] == '_'; i++)
		;
	r->underscores = (uint8_t)i;
	ld->name_bytes += len + 1;
	return 0;
}

/* within_limits - whether the table in section @idx and its string table
 * fit what the caller lets this load read, judged by their headers alone;
 * charged when they do. */
static bool within_limits(struct loader *ld, size_t idx, uint64_t entsize)
{
	GElf_Shdr sh, strsh;
	Elf_Scn *scn = elf_getscn(ld->elf, idx), *strscn;
	uint64_t bytes;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	strscn = elf_getscn(ld->elf, sh.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strsh))
		return false;
	bytes = sh.sh_size + strsh.sh_size;
	if (bytes < sh.sh_size || bytes > ld->lim.table_bytes - ld->table_bytes)
		ld->over_limits |= ELFSYM_OVER_BYTES;
	else if (sh.sh_size / entsize > ld->lim.table_entries)
		ld->over_limits |= ELFSYM_OVER_ENTRIES;
	else {
		ld->table_bytes += bytes;
		return true;
	}
	log_debug("elfsym: a symbol table of %" PRIu64 " bytes is over the limits", bytes);
	return false;
}

/* load_table - collect the defined function symbols of the symbol table in
 * section @idx. Returns 0 or -ENOMEM; a malformed table adds nothing. */
static int load_table(struct loader *ld, size_t idx, uint32_t type)
{
	Elf_Data *syms, *strs;
	GElf_Shdr sh, strsh;
	uint64_t entsize, n, i;
	const char *name;
	size_t len;
	GElf_Sym sym;
	int t, err;

	entsize = gelf_fsize(ld->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!entsize)
		return 0;
	if (!within_limits(ld, idx, entsize))
		return 0;
	syms = section_data(ld, idx, type, (uint64_t)ELFSYM_MAX_TABLE_ENTRIES * entsize, &sh);
	if (!syms)
		return 0;
	strs = section_data(ld, sh.sh_link, SHT_STRTAB, ELFSYM_MAX_STRTAB, &strsh);
	if (!strs || sh.sh_link == idx)
		return 0;
	n = syms->d_size / entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(syms, (int)i, &sym))
			break;
		t = GELF_ST_TYPE(sym.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0)
			continue;
		if (!symbol_name(strs, sym.st_name, &name, &len))
			continue;
		len = unversioned_len(name, len);
		if (ld->nraw >= ELFSYM_MAX_SYMBOLS ||
		    ld->name_bytes + len + 1 > ELFSYM_MAX_NAME_BYTES) {
			log_debug("elfsym: symbol table cut at %zu symbols", ld->nraw);
			break;
		}
		err = add_raw(ld, &sym, name, len);
		if (err)
			return err;
	}
	return 0;
}

static int bind_rank(uint8_t bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* raw_cmp - by address, then the best alias first. */
static int raw_cmp(const void *pa, const void *pb)
{
	const struct raw_sym *a = pa, *b = pb;
	int c;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if ((a->size == 0) != (b->size == 0))
		return a->size == 0 ? 1 : -1;
	if (a->underscores != b->underscores)
		return a->underscores < b->underscores ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	c = memcmp(a->name, b->name, a->name_len);
	if (c)
		return c;
	return a->size < b->size ? 1 : a->size > b->size ? -1 : 0;
}

/* effective_size - a sized symbol keeps its size; a zero-sized one reaches
 * to the next symbol or its section's end, whichever is first, or covers
 * only its own address when neither is known. */
static uint32_t effective_size(const struct raw_sym *r, const struct raw_sym *next)
{
	uint64_t end = 0, size;

	if (r->size) {
		size = r->size;
	} else {
		if (next)
			end = next->addr;
		if (r->sec_end && (!end || r->sec_end < end))
			end = r->sec_end;
		size = end > r->addr ? end - r->addr : 1;
	}
	if (size > UINT64_MAX - r->addr)
		size = UINT64_MAX - r->addr;
	return size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
}

/* finish_symbols - sort, merge aliases and copy the names out. */
static int finish_symbols(struct elfsym *e, struct loader *ld)
{
	size_t i, j, n = 0, pool = 0, off = 0;
	const struct raw_sym *next;

	if (!ld->nraw)
		return 0;
	qsort(ld->raw, ld->nraw, sizeof(*ld->raw), raw_cmp);
	for (i = 0; i < ld->nraw; i++)
		if (i == 0 || ld->raw[i].addr != ld->raw[i - 1].addr)
			pool += ld->raw[i].name_len + 1;
	e->syms = calloc(ld->nraw, sizeof(*e->syms));
	e->names = malloc(pool);
	if (!e->syms || !e->names)
		return -ENOMEM;
	for (i = 0; i < ld->nraw; i = j) {
		for (j = i + 1; j < ld->nraw && ld->raw[j].addr == ld->raw[i].addr; j++)
			;
		next = j < ld->nraw ? &ld->raw[j] : NULL;
		e->syms[n].addr = ld->raw[i].addr;
		e->syms[n].size = effective_size(&ld->raw[i], next);
		e->syms[n].name = (uint32_t)off;
		memcpy(e->names + off, ld->raw[i].name, ld->raw[i].name_len);
		e->names[off + ld->raw[i].name_len] = '\0';
		off += ld->raw[i].name_len + 1;
		n++;
	}
	e->nsyms = n;
	return 0;
}

/* got_slot - the GOT slot the .plt.got stub at @addr (its bytes @code,
 * @n of them) jumps through: jmp *rel32(%rip), after an endbr64 and with
 * a bnd prefix where IBT puts them; 0 if it is not one. */
static uint64_t got_slot(const uint8_t *code, size_t n, uint64_t addr)
{
	size_t at = 0;
	int32_t rel;

	if (n >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa)
		at = 4;
	if (at < n && code[at] == 0xf2)
		at++;
	if (at + 6 > n || code[at] != 0xff || code[at + 1] != 0x25)
		return 0;
	memcpy(&rel, code + at + 2, sizeof(rel));
	return addr + at + 6 + (uint64_t)(int64_t)rel;
}

/* add_stub - the symbol "@name@plt" at @addr, @size bytes long. */
static int add_stub(struct loader *ld, const char *name, size_t len, uint64_t addr, uint64_t size,
		    size_t *used)
{
	GElf_Sym sym = { .st_value = addr,
			 .st_size = size,
			 .st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC) };
	char *at = ld->plt_names + *used;

	len = unversioned_len(name, len);
	if (len > PLT_NAME_MAX)
		len = PLT_NAME_MAX;
	memcpy(at, name, len);
	memcpy(at + len, "@plt", 4);
	*used += len + 4;
	return add_raw(ld, &sym, at, len + 4);
}

/* load_plt_got - the stubs of .plt.got (calls through a GOT slot that a
 * R_X86_64_GLOB_DAT relocation of .rela.dyn fills: functions whose
 * address is also taken, or all of them with -z now), named as objdump
 * names them. */
static int load_plt_got(struct loader *ld, size_t *used)
{
	size_t idx = section_named(ld, ".plt.got"), dyn = section_named(ld, ".rela.dyn");
	Elf_Data *code, *rela, *syms, *strs;
	GElf_Shdr sh, rsh, ssh, strsh;
	uint64_t i, k, n, nrela, slot;
	const char *name;
	GElf_Rela r;
	GElf_Sym sym;
	size_t len;
	int err;

	code = idx ? section_data(ld, idx, SHT_PROGBITS, PLT_MAX_STUBS * PLT_STUB_BYTES, &sh)
		   : NULL;
	rela = code && dyn ? section_data(ld, dyn, SHT_RELA,
					  ELFSYM_MAX_TABLE_ENTRIES * sizeof(Elf64_Rela), &rsh)
			   : NULL;
	syms = rela ? section_data(ld, rsh.sh_link, SHT_DYNSYM,
				   (uint64_t)ELFSYM_MAX_TABLE_ENTRIES * sizeof(Elf64_Sym), &ssh)
		    : NULL;
	strs = syms ? section_data(ld, ssh.sh_link, SHT_STRTAB, ELFSYM_MAX_STRTAB, &strsh) : NULL;
	if (!strs || (sh.sh_entsize != 8 && sh.sh_entsize != 16) || code->d_size != sh.sh_size)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	nrela = rela->d_size / sizeof(Elf64_Rela);
	for (i = 0; i < n && *used < PLT_MAX_STUBS * (PLT_NAME_MAX + 4); i++) {
		slot = got_slot((const uint8_t *)code->d_buf + i * sh.sh_entsize, sh.sh_entsize,
				sh.sh_addr + i * sh.sh_entsize);
		for (k = 0; slot && k < nrela; k++) {
			if (!gelf_getrela(rela, (int)k, &r) || r.r_offset != slot ||
			    GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !symbol_name(strs, sym.st_name, &name, &len) || !len)
				continue;
			err = add_stub(ld, name, len, sh.sh_addr + i * sh.sh_entsize, sh.sh_entsize,
				       used);
			if (err)
				return err;
			break;
		}
	}
	return 0;
}

/* plt_stub - the address of the stub of the @i-th .rela.plt entry: in
 * .plt.sec when there is one (IBT: one stub each, in order), else in
 * .plt after its first 16 bytes (the resolver's); 0 if outside. */
static uint64_t plt_stub(const GElf_Shdr *plt, bool sec, uint64_t i)
{
	uint64_t at = (sec ? i : i + 1) * PLT_STUB_BYTES;

	return at + PLT_STUB_BYTES <= plt->sh_size ? plt->sh_addr + at : 0;
}

/* load_plt - a symbol "NAME@plt" for each PLT stub (x86-64: the stub of
 * each R_X86_64_JUMP_SLOT relocation of .rela.plt), as perf and objdump
 * name them: no symbol table has them, and a profile of a program calling
 * memcmp would show an address for the stub's samples. */
static int load_plt(struct loader *ld)
{
	size_t rela_idx = section_named(ld, ".rela.plt"), plt_idx = section_named(ld, ".plt.sec");
	Elf_Data *rela, *syms, *strs;
	GElf_Shdr rsh, ssh, strsh, plt;
	bool sec = plt_idx != 0;
	uint64_t n, i, addr;
	const char *name;
	size_t len, used = 0;
	GElf_Rela r;
	GElf_Sym sym;
	int err;

	ld->plt_names = malloc(2 * PLT_MAX_STUBS * (PLT_NAME_MAX + sizeof("@plt")));
	if (!ld->plt_names)
		return -ENOMEM;
	err = load_plt_got(ld, &used);
	if (err)
		return err;
	if (!sec)
		plt_idx = section_named(ld, ".plt");
	if (!rela_idx || !plt_idx || elf_getscn(ld->elf, plt_idx) == NULL ||
	    !gelf_getshdr(elf_getscn(ld->elf, plt_idx), &plt))
		return 0;
	rela = section_data(ld, rela_idx, SHT_RELA, ELFSYM_MAX_TABLE_ENTRIES * sizeof(Elf64_Rela),
			    &rsh);
	syms = rela ? section_data(ld, rsh.sh_link, SHT_DYNSYM,
				   (uint64_t)ELFSYM_MAX_TABLE_ENTRIES * sizeof(Elf64_Sym), &ssh)
		    : NULL;
	strs = syms ? section_data(ld, ssh.sh_link, SHT_STRTAB, ELFSYM_MAX_STRTAB, &strsh) : NULL;
	if (!strs || gelf_getclass(ld->elf) != ELFCLASS64)
		return 0;
	n = rela->d_size / sizeof(Elf64_Rela);
	if (n > PLT_MAX_STUBS)
		n = PLT_MAX_STUBS;
	for (i = 0; i < n && ld->nraw < ELFSYM_MAX_SYMBOLS; i++) {
		if (!gelf_getrela(rela, (int)i, &r) ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !symbol_name(strs, sym.st_name, &name, &len) || !len)
			continue;
		addr = plt_stub(&plt, sec, i);
		if (!addr)
			break;
		err = add_stub(ld, name, len, addr, PLT_STUB_BYTES, &used);
		if (err)
			return err;
	}
	return 0;
}

/* name_entry - "_start" at a program's entry point when no symbol is
 * there (a stripped executable: its _start was in .symtab), so that
 * stacks that reach it read as complete. ENTRY_BYTES long: glibc's and
 * musl's x86-64 _start are 38 and 25 bytes; the code after it is the
 * program's own, unnamed. Not for libraries (libc's entry prints its
 * version), nor for a static program (no PT_INTERP: the entry's symbol
 * is in .symtab, or the whole program is unnamed). */
static int name_entry(struct elfsym *e, struct loader *ld)
{
	static const char name[] = "_start";
	GElf_Sym sym = { .st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC) };
	size_t i, shndx = 0;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!e->entry || !(e->type == ET_EXEC || (e->type == ET_DYN && e->has_interp)))
		return 0;
	for (i = 0; i < ld->nraw; i++)
		if (ld->raw[i].addr == e->entry)
			return 0;
	for (i = 1; i < ld->shnum && !shndx; i++) {
		scn = elf_getscn(ld->elf, i);
		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    e->entry >= sh.sh_addr && e->entry - sh.sh_addr < sh.sh_size)
			shndx = i;
	}
	if (!shndx)
		return 0;
	sym.st_value = e->entry;
	sym.st_size = ENTRY_BYTES;
	sym.st_shndx = (uint16_t)shndx;
	return add_raw(ld, &sym, name, sizeof(name) - 1);
}

/* load_symbols - .symtab first, .dynsym when that gives nothing. */
static int load_symbols(struct elfsym *e, struct loader *ld)
{
	static const uint32_t order[] = { SHT_SYMTAB, SHT_DYNSYM };
	static const enum elfsym_source source[] = { ELFSYM_SOURCE_SYMTAB, ELFSYM_SOURCE_DYNSYM };
	GElf_Shdr sh;
	Elf_Scn *scn;
	size_t t, i;
	int err;

	for (t = 0; t < 2 && !ld->nraw; t++) {
		for (i = 1; i < ld->shnum; i++) {
			scn = elf_getscn(ld->elf, i);
			if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != order[t])
				continue;
			err = load_table(ld, i, order[t]);
			if (err)
				return err;
		}
		if (ld->nraw)
			e->source = source[t];
	}
	if (e->machine == EM_X86_64) {
		err = load_plt(ld);
		if (err)
			return err;
	}
	err = name_entry(e, ld);
	if (err)
		return err;
	return finish_symbols(e, ld);
}

static struct elfsym *load(Elf *elf, uint64_t file_size, const struct elfsym_limits *lim)
{
	struct loader ld = {
		.elf = elf,
		.file_size = file_size,
		.lim = { UINT64_MAX, UINT64_MAX },
	};
	struct elfsym *e = NULL;
	GElf_Ehdr eh;
	int err = -ENOEXEC;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		goto cleanup;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		goto cleanup;
	if (elf_getshdrnum(elf, &ld.shnum) != 0)
		ld.shnum = 0;
	e = calloc(1, sizeof(*e));
	if (!e) {
		err = -ENOMEM;
		goto cleanup;
	}
	e->type = eh.e_type;
	e->machine = eh.e_machine;
	e->entry = eh.e_entry;
	err = load_segments(e, elf);
	if (err)
		goto cleanup;
	load_build_id(e, &ld);
	load_debuglink(e, &ld);
	if (lim)
		ld.lim = *lim;
	err = load_symbols(e, &ld);
	e->table_bytes = ld.table_bytes;
	e->over_limits = ld.over_limits;
cleanup:
	free(ld.raw);
	free(ld.plt_names);
	if (err) {
		elfsym__free(e);
		errno = -err;
		return NULL;
	}
	return e;
}

Elf *elfsym__elf_begin(int fd, uint64_t *size)
{
	struct image img = { .fd = fd };
	struct stat st;
	Elf *elf;
	int err;

	if (fstat(fd, &st) < 0)
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = ENOEXEC;
		return NULL;
	}
	if ((uint64_t)st.st_size > ELFSYM_MAX_FILE_SIZE) {
		errno = E2BIG;
		return NULL;
	}
	img.size = (uint64_t)st.st_size;
	err = check_headers(&img);
	if (err) {
		errno = -err;
		return NULL;
	}
	elf_version(EV_CURRENT);
	*size = img.size;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		errno = ENOEXEC;
	return elf;
}

struct elfsym *elfsym__open_fd(int fd)
{
	return elfsym__open_fd_limited(fd, NULL);
}

struct elfsym *elfsym__open_fd_limited(int fd, const struct elfsym_limits *lim)
{
	struct elfsym *e;
	uint64_t size;
	Elf *elf;
	int err;

	elf = elfsym__elf_begin(fd, &size);
	if (!elf)
		return NULL;
	e = load(elf, size, lim);
	err = errno;
	elf_end(elf);
	errno = err;
	return e;
}

int elfsym__read_build_id(int fd, char *out)
{
	struct elfsym e = { 0 };
	struct loader ld = { 0 };
	GElf_Ehdr eh;

	out[0] = '\0';
	ld.elf = elfsym__elf_begin(fd, &ld.file_size);
	if (!ld.elf)
		return -errno;
	if (elf_kind(ld.elf) == ELF_K_ELF && gelf_getehdr(ld.elf, &eh)) {
		if (elf_getshdrnum(ld.elf, &ld.shnum) != 0)
			ld.shnum = 0;
		load_build_id(&e, &ld); /* as load() does */
	}
	elf_end(ld.elf);
	memcpy(out, e.build_id, sizeof(e.build_id));
	return 0;
}

struct elfsym *elfsym__open(const char *path)
{
	struct elfsym *e;
	int fd, err;

	/* O_NONBLOCK: a FIFO planted at the path must not hang us; the
	 * regular-file check follows. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	e = elfsym__open_fd(fd);
	err = errno;
	close(fd);
	errno = err;
	return e;
}

struct elfsym *elfsym__open_mem(void *buf, size_t len)
{
	struct image img = { .fd = -1, .mem = buf, .size = len };
	struct elfsym *e;
	Elf *elf;
	int err;

	if (!buf) {
		errno = EINVAL;
		return NULL;
	}
	err = check_headers(&img);
	if (err) {
		errno = -err;
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_memory(buf, len);
	e = load(elf, len, NULL);
	err = errno;
	elf_end(elf);
	errno = err;
	return e;
}

void elfsym__free(struct elfsym *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->names);
	free(e->segs);
	free(e);
}

const char *elfsym__lookup(const struct elfsym *e, uint64_t vaddr, uint64_t *sym_addr)
{
	size_t lo = 0, hi = e->nsyms, mid, i, stop;

	/* lo ends as the number of symbols starting at or before vaddr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	stop = lo > LOOKBACK ? lo - LOOKBACK : 0;
	for (i = lo; i > stop; i--) {
		const struct elfsym_sym *s = &e->syms[i - 1];

		if (vaddr - s->addr < s->size) {
			if (sym_addr)
				*sym_addr = s->addr;
			return e->names + s->name;
		}
	}
	return NULL;
}

int elfsym__offset_to_vaddr(const struct elfsym *e, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < e->nsegs; i++) {
		const struct elfsym_seg *s = &e->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int elfsym__vaddr_to_offset(const struct elfsym *e, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < e->nsegs; i++) {
		const struct elfsym_seg *s = &e->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int elfsym__find(const struct elfsym *e, const char *name, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < e->nsyms; i++) {
		if (!strcmp(e->names + e->syms[i].name, name)) {
			*vaddr = e->syms[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

int elfsym__type(const struct elfsym *e)
{
	return e->type;
}

const char *elfsym__build_id(const struct elfsym *e)
{
	return e->build_id;
}

size_t elfsym__count(const struct elfsym *e)
{
	return e->nsyms;
}

enum elfsym_source elfsym__source(const struct elfsym *e)
{
	return e->source;
}

const char *elfsym__debuglink(const struct elfsym *e, uint32_t *crc)
{
	if (!e->debuglink[0])
		return NULL;
	if (crc)
		*crc = e->debuglink_crc;
	return e->debuglink;
}

size_t elfsym__memory(const struct elfsym *e)
{
	size_t names = 0;

	if (e->nsyms)
		names = e->syms[e->nsyms - 1].name + strlen(e->names + e->syms[e->nsyms - 1].name) +
			1;
	return sizeof(*e) + e->nsyms * sizeof(*e->syms) + names +
	       (e->segs ? ELFSYM_MAX_SEGMENTS * sizeof(*e->segs) : 0);
}

unsigned elfsym__over_limits(const struct elfsym *e)
{
	return e->over_limits;
}

uint64_t elfsym__table_bytes(const struct elfsym *e)
{
	return e->table_bytes;
}
