// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* inlines.c - inline chains from DWARF with libdw: the checks before
 * libdw reads a byte, the CU of an address, and a bounded walk of its
 * scopes. libdw's own scope walk (dwarf_getscopes) recurses once per
 * level of DIE nesting, which a crafted file makes as deep as it likes;
 * the walk here keeps its own stack. */
#include "trapd/symbolize/inlines.h"

#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>

#include "trapd/symbolize/elfsym.h"

/* Recent answers: a profile looks the same few addresses up again and
 * again. Direct-mapped on the address; chains up to CACHE_FRAMES deep. */
#define CACHE_SLOTS 256
#define CACHE_FRAMES 4

struct cache_slot {
	uint64_t vaddr;
	unsigned n; /* frames; CACHE_EMPTY: no answer kept */
	struct inlines_frame f[CACHE_FRAMES];
};

#define CACHE_EMPTY (~0u)

struct inlines {
	Elf *elf;
	Dwarf *dw;
	uint64_t bytes;		  /* of DWARF sections read */
	struct cache_slot *cache; /* CACHE_SLOTS, allocated at the first lookup */
	pthread_mutex_t lock;
};

/* section_bytes - what section @scn named @name adds to the DWARF read:
 * its uncompressed size. Negative errno for what is not handled. */
static int64_t section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	GElf_Chdr ch;

	/* Old GNU compression carries its size in a header libdw trusts. */
	if (!strncmp(name, ".zdebug", 7))
		return -ENOTSUP;
	/* A supplementary file libdw would look for by a path from here. */
	if (!strcmp(name, ".gnu_debugaltlink"))
		return -ENOTSUP;
	if (strncmp(name, ".debug_", 7) || sh->sh_type == SHT_NOBITS)
		return 0;
	if (!(sh->sh_flags & SHF_COMPRESSED))
		return sh->sh_size > INT64_MAX ? -E2BIG : (int64_t)sh->sh_size;
	if (!gelf_getchdr(scn, &ch))
		return -ENOEXEC;
	return ch.ch_size > INT64_MAX ? -E2BIG : (int64_t)ch.ch_size;
}

/* dwarf_bytes - the bytes of @elf's DWARF sections in *@bytes: 0, or
 * -ENOENT without .debug_info, or another negative errno. */
static int dwarf_bytes(Elf *elf, uint64_t *bytes)
{
	Elf_Scn *scn = NULL;
	bool has_info = false;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;
	int64_t b;

	*bytes = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		b = section_bytes(scn, &sh, name);
		if (b < 0)
			return (int)b;
		if (*bytes > INLINES_MAX_BYTES || (uint64_t)b > INLINES_MAX_BYTES - *bytes)
			return -E2BIG;
		*bytes += (uint64_t)b;
		has_info |= !strcmp(name, ".debug_info") && sh.sh_type != SHT_NOBITS;
	}
	return has_info ? 0 : -ENOENT;
}

/* strings_end - whether every string section libdw reads ends in a NUL:
 * libdw 0.188 runs strlen over them (the line table's directories and
 * files), past the end of one that does not. Checked once libdw holds
 * them decompressed. */
static bool strings_end(Elf *elf)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return false;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || sh.sh_type == SHT_NOBITS ||
		    (strcmp(name, ".debug_str") && strcmp(name, ".debug_line_str")))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size && (!d->d_buf || ((const char *)d->d_buf)[d->d_size - 1]))
			return false;
	}
	return true;
}

/* from_elf - the object for @elf (taken over, ended on failure). */
static struct inlines *from_elf(Elf *elf, uint64_t max_bytes, uint64_t *bytes)
{
	struct inlines *in = NULL;
	GElf_Ehdr eh;
	int err;

	*bytes = 0;
	if (!gelf_getehdr(elf, &eh)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	/* Relocatable objects need relocating, which libdw leaves to libdwfl. */
	err = eh.e_type == ET_EXEC || eh.e_type == ET_DYN ? dwarf_bytes(elf, bytes) : -ENOTSUP;
	if (!err && *bytes > (max_bytes < INLINES_MAX_BYTES ? max_bytes : INLINES_MAX_BYTES))
		err = -E2BIG;
	if (err)
		goto cleanup;
	in = calloc(1, sizeof(*in));
	if (!in) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* Reads (and decompresses) every DWARF section now. */
	in->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!in->dw || !strings_end(elf)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	in->elf = elf;
	in->bytes = *bytes;
	pthread_mutex_init(&in->lock, NULL);
	return in;
cleanup:
	if (in)
		dwarf_end(in->dw);
	free(in);
	elf_end(elf);
	errno = -err;
	return NULL;
}

struct inlines *inlines__open_fd(int fd, uint64_t max_bytes, uint64_t *bytes)
{
	struct inlines *in;
	uint64_t size;
	Elf *elf;

	*bytes = 0;
	elf = elfsym__elf_begin(fd, &size);
	if (!elf)
		return NULL;
	in = from_elf(elf, max_bytes, bytes);
	/* Everything libdw needs is read: the caller's fd is not ours. */
	if (in)
		elf_cntl(in->elf, ELF_C_FDDONE);
	return in;
}

struct inlines *inlines__open_mem(void *buf, size_t len, uint64_t max_bytes, uint64_t *bytes)
{
	Elf *elf;

	*bytes = 0;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOEXEC;
		return NULL;
	}
	elf = elf_memory(buf, len);
	if (!elf) {
		errno = ENOEXEC;
		return NULL;
	}
	return from_elf(elf, max_bytes, bytes);
}

void inlines__free(struct inlines *in)
{
	if (!in)
		return;
	dwarf_end(in->dw);
	elf_end(in->elf);
	free(in->cache);
	pthread_mutex_destroy(&in->lock);
	free(in);
}

uint64_t inlines__bytes(const struct inlines *in)
{
	return in ? in->bytes : 0;
}

size_t inlines__memory(const struct inlines *in)
{
	return in ? sizeof(*in) + in->bytes + CACHE_SLOTS * sizeof(struct cache_slot) : 0;
}

/* --- lookups --- */

/* A split unit's skeleton: its DIEs are in a .dwo file libdw would open
 * by a name from the file. */
static bool is_skeleton(Dwarf_Die *cu)
{
	return dwarf_hasattr(cu, DW_AT_dwo_name) || dwarf_hasattr(cu, DW_AT_GNU_dwo_name);
}

/* find_cu - the compilation unit holding @pc: from .debug_aranges when
 * the file has it, else by scanning the units' ranges. */
static bool find_cu(Dwarf *dw, uint64_t pc, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint32_t i;

	if (dwarf_addrdie(dw, pc, cu))
		return !is_skeleton(cu);
	for (i = 0; i < INLINES_MAX_CUS; i++) {
		if (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL))
			return false;
		if (dwarf_offdie(dw, off + hsize, cu) && !is_skeleton(cu) &&
		    dwarf_haspc(cu, pc) == 1)
			return true;
		off = next;
	}
	return false;
}

/* Scopes that hold code and may hold the ones inlined into them. */
static bool is_code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
	       tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

/* Scopes without addresses that hold functions (C++ namespaces, classes). */
static bool is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_module;
}

/* find_scopes - the functions whose code holds @pc in @cu, outermost
 * first, into @chain (INLINES_MAX_NEST). Depth first without recursion:
 * it[level] is the DIE being looked at on each level; once a code scope
 * holds @pc its siblings are never looked at again (floor). */
static unsigned find_scopes(Dwarf_Die *cu, uint64_t pc, Dwarf_Die *chain)
{
	Dwarf_Die it[INLINES_MAX_NEST];
	unsigned level = 0, floor = 0, n = 0;
	uint32_t visits = 0;
	int tag;

	if (dwarf_child(cu, &it[0]) != 0)
		return 0;
	for (;;) {
		if (++visits > INLINES_MAX_VISITS)
			return 0;
		tag = dwarf_tag(&it[level]);
		if (is_code_scope(tag) && dwarf_haspc(&it[level], pc) == 1) {
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				chain[n++] = it[level];
			if (level + 1 == INLINES_MAX_NEST ||
			    dwarf_child(&it[level], &it[level + 1]) != 0)
				return n;
			floor = ++level;
			continue;
		}
		if (is_container(tag) && !n && level + 1 < INLINES_MAX_NEST &&
		    dwarf_child(&it[level], &it[level + 1]) == 0) {
			level++;
			continue;
		}
		while (dwarf_siblingof(&it[level], &it[level]) != 0) {
			if (level == floor)
				return n;
			level--;
		}
	}
}

static const char *die_string(Dwarf_Die *die, unsigned at)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, at, &attr) ? dwarf_formstring(&attr) : NULL;
}

static int64_t die_udata(Dwarf_Die *die, unsigned at)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!dwarf_attr(die, at, &attr) || dwarf_formudata(&attr, &w) || w > INT32_MAX)
		return 0;
	return (int64_t)w;
}

/* fill_frame - the function of scope @die into @f (its line is set by the
 * caller). */
static void fill_frame(Dwarf_Die *die, struct inlines_frame *f)
{
	int line = 0;

	f->name = die_string(die, DW_AT_linkage_name);
	if (!f->name)
		f->name = die_string(die, DW_AT_MIPS_linkage_name);
	f->has_linkage_name = f->name != NULL;
	if (!f->name)
		f->name = die_string(die, DW_AT_name);
	if (!f->name)
		f->name = "??";
	f->decl_file = dwarf_decl_file(die);
	f->decl_line = dwarf_decl_line(die, &line) == 0 && line > 0 ? line : 0;
	f->line = 0;
}

/* fill_chain - @out from @chain[0..n) (outermost first), innermost
 * first; a chain deeper than @max loses its middle. */
static unsigned fill_chain(Dwarf_Die *cu, uint64_t pc, Dwarf_Die *chain, unsigned n,
			   struct inlines_frame *out, unsigned max)
{
	Dwarf_Line *src = dwarf_getsrc_die(cu, pc);
	unsigned k, nout = n < max ? n : max;
	int line = 0;

	for (k = 0; k < nout; k++) {
		/* The last output frame is always the outermost scope. */
		unsigned s = k + 1 == nout ? 0 : n - 1 - k;

		fill_frame(&chain[s], &out[k]);
		if (k == 0)
			out[k].line = src && dwarf_lineno(src, &line) == 0 && line > 0 ? line : 0;
		else
			/* Where the scope inside it was called from. */
			out[k].line = die_udata(&chain[s + 1], DW_AT_call_line);
	}
	return nout;
}

/* cached - the slot for @vaddr; *hit when it holds @vaddr's answer. NULL
 * when there is no cache (out of memory: lookups still work). */
static struct cache_slot *cached(struct inlines *in, uint64_t vaddr, bool *hit)
{
	struct cache_slot *c;
	unsigned i;

	if (!in->cache) {
		in->cache = malloc(CACHE_SLOTS * sizeof(*in->cache));
		if (!in->cache)
			return NULL;
		for (i = 0; i < CACHE_SLOTS; i++)
			in->cache[i].n = CACHE_EMPTY;
	}
	c = &in->cache[(vaddr ^ (vaddr >> 8) ^ (vaddr >> 16)) & (CACHE_SLOTS - 1)];
	*hit = c->n != CACHE_EMPTY && c->vaddr == vaddr;
	return c;
}

unsigned inlines__lookup(struct inlines *in, uint64_t vaddr, struct inlines_frame *out,
			 unsigned max)
{
	Dwarf_Die cu, chain[INLINES_MAX_NEST];
	struct cache_slot *c;
	bool hit = false;
	unsigned n = 0;

	if (!in || !max)
		return 0;
	pthread_mutex_lock(&in->lock);
	c = cached(in, vaddr, &hit);
	if (hit && c->n <= max) {
		n = c->n;
		memcpy(out, c->f, n * sizeof(*out));
		goto out;
	}
	if (find_cu(in->dw, vaddr, &cu))
		n = find_scopes(&cu, vaddr, chain);
	if (n)
		n = fill_chain(&cu, vaddr, chain, n, out, max);
	/* A chain cut to @max is not the answer for a larger one. */
	if (c && n <= CACHE_FRAMES && n < max) {
		c->vaddr = vaddr;
		c->n = n;
		memcpy(c->f, out, n * sizeof(*out));
	}
out:
	pthread_mutex_unlock(&in->lock);
	return n;
}
