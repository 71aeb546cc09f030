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

/* The functions of one compilation unit by address: the code scopes a
 * lookup meets first (its functions, and those inside namespaces and
 * classes). A unit's DIEs are in file order, a function's children
 * before its next sibling, so a lookup that walked the unit from its
 * start passed every DIE before the function holding the address: for
 * the unit of CPython's eval loop, tens of thousands at every address
 * the cache did not hold. The index is made at the unit's first lookup
 * by one such walk; later lookups search it and walk only the function
 * found. At most INDEX_MAX entries a file: past it, units are walked. */
#define INDEX_MAX (1u << 18)

struct unit_scope {
	uint64_t lo, hi; /* [lo, hi): one of the scope's address ranges */
	Dwarf_Off die;
};

struct unit_index {
	Dwarf_Off unit;	      /* the unit's DIE */
	struct unit_scope *s; /* by lo */
	uint32_t n;
	bool whole; /* false: the walk stopped at a bound; walk at each lookup */
};

struct inlines {
	Elf *elf;
	Dwarf *dw;
	uint64_t bytes;		  /* of DWARF sections read */
	struct cache_slot *cache; /* CACHE_SLOTS, allocated at the first lookup */
	struct unit_index *units; /* by unit offset */
	size_t nunits, cap_units;
	uint32_t indexed; /* entries in all indexes */
	/* the units' own ranges, for a file without .debug_aranges: made at
	 * the first lookup by one pass over the units (die is the unit's) */
	bool units_ranged;
	struct unit_index unit_ranges;
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
	for (size_t i = 0; i < in->nunits; i++)
		free(in->units[i].s);
	free(in->units);
	free(in->unit_ranges.s);
	pthread_mutex_destroy(&in->lock);
	free(in);
}

uint64_t inlines__bytes(const struct inlines *in)
{
	return in ? in->bytes : 0;
}

size_t inlines__memory(struct inlines *in)
{
	size_t n;

	if (!in)
		return 0;
	pthread_mutex_lock(&in->lock);
	n = sizeof(*in) + in->bytes + CACHE_SLOTS * sizeof(struct cache_slot) +
	    in->cap_units * sizeof(struct unit_index) +
	    (size_t)in->indexed * sizeof(struct unit_scope);
	pthread_mutex_unlock(&in->lock);
	return n;
}

/* --- lookups --- */

/* A split unit's skeleton: its DIEs are in a .dwo file libdw would open
 * by a name from the file. */
static bool is_skeleton(Dwarf_Die *cu)
{
	return dwarf_hasattr(cu, DW_AT_dwo_name) || dwarf_hasattr(cu, DW_AT_GNU_dwo_name);
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

/* walk_scopes - the functions whose code holds @pc, outermost first,
 * into @chain (INLINES_MAX_NEST), from @first on: a unit's first child,
 * or the function its index found. Depth first without recursion:
 * it[level] is the DIE being looked at on each level; once a code scope
 * holds @pc its siblings are never looked at again (floor). */
static unsigned walk_scopes(const Dwarf_Die *first, uint64_t pc, Dwarf_Die *chain)
{
	Dwarf_Die it[INLINES_MAX_NEST];
	unsigned level = 0, floor = 0, n = 0;
	uint32_t visits = 0;
	int tag;

	it[0] = *first;
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

/* index_scope - add @die's address ranges to @u (room for INDEX_MAX in
 * the file). False when full. */
static bool index_scope(struct inlines *in, struct unit_index *u, Dwarf_Die *die, uint32_t *cap)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct unit_scope *t;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (in->indexed >= INDEX_MAX)
			return false;
		if (u->n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			t = reallocarray(u->s, *cap, sizeof(*t));
			if (!t)
				return false;
			u->s = t;
		}
		u->s[u->n++] = (struct unit_scope){ lo, hi, dwarf_dieoffset(die) };
		in->indexed++;
	}
	return true;
}

static int by_lo(const void *a, const void *b)
{
	const struct unit_scope *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void sort_scopes(struct unit_index *u)
{
	if (u->n) /* an empty index has no array, and qsort takes none */
		qsort(u->s, u->n, sizeof(*u->s), by_lo);
}

/* build_index - one walk of @cu's DIEs into @u: the code scopes at its
 * top and inside its containers, not what they hold. */
static void build_index(struct inlines *in, Dwarf_Die *cu, struct unit_index *u)
{
	Dwarf_Die it[INLINES_MAX_NEST];
	unsigned level = 0;
	uint32_t visits = 0, cap = 0;
	int tag;

	if (dwarf_child(cu, &it[0]) != 0) {
		u->whole = true;
		return;
	}
	for (;;) {
		if (++visits > INLINES_MAX_VISITS)
			return;
		tag = dwarf_tag(&it[level]);
		if (is_code_scope(tag)) {
			if (!index_scope(in, u, &it[level], &cap))
				return;
		} else if (is_container(tag) && level + 1 < INLINES_MAX_NEST &&
			   dwarf_child(&it[level], &it[level + 1]) == 0) {
			level++;
			continue;
		}
		while (dwarf_siblingof(&it[level], &it[level]) != 0) {
			if (level == 0) {
				sort_scopes(u);
				u->whole = true;
				return;
			}
			level--;
		}
	}
}

/* unit_index - @cu's index, made at its first lookup; NULL without
 * memory (the unit is then walked). */
static struct unit_index *unit_index(struct inlines *in, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t lo = 0, hi = in->nunits, mid;
	struct unit_index *t;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (in->units[mid].unit == off)
			return &in->units[mid];
		if (in->units[mid].unit < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (in->nunits == in->cap_units) {
		size_t cap = in->cap_units ? in->cap_units * 2 : 16;

		t = reallocarray(in->units, cap, sizeof(*t));
		if (!t)
			return NULL;
		in->units = t;
		in->cap_units = cap;
	}
	memmove(&in->units[lo + 1], &in->units[lo], (in->nunits - lo) * sizeof(*in->units));
	in->nunits++;
	in->units[lo] = (struct unit_index){ .unit = off };
	build_index(in, cu, &in->units[lo]);
	return &in->units[lo];
}

/* indexed_scope - the DIE of the function in @u whose range holds @pc. */
static bool indexed_scope(Dwarf *dw, const struct unit_index *u, uint64_t pc, Dwarf_Die *die)
{
	size_t lo = 0, hi = u->n, mid;

	while (lo < hi) { /* the first entry starting after @pc */
		mid = lo + (hi - lo) / 2;
		if (u->s[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges do not nest at a unit's top; a few back, in case they overlap */
	for (hi = lo; hi > 0 && lo - hi < 8; hi--)
		if (pc < u->s[hi - 1].hi)
			return dwarf_offdie(dw, u->s[hi - 1].die, die) != NULL;
	return false;
}

/* range_units - @in->unit_ranges: every unit's address ranges, from
 * one pass over at most INLINES_MAX_CUS units. */
static void range_units(struct inlines *in)
{
	struct unit_index *u = &in->unit_ranges;
	Dwarf_Off off = 0, next;
	uint32_t i, cap = 0;
	Dwarf_Die cu;
	size_t hsize;

	in->units_ranged = true;
	for (i = 0; i < INLINES_MAX_CUS; i++) {
		if (dwarf_nextcu(in->dw, off, &next, &hsize, NULL, NULL, NULL))
			break;
		if (dwarf_offdie(in->dw, off + hsize, &cu) && !is_skeleton(&cu) &&
		    !index_scope(in, u, &cu, &cap))
			return;
		off = next;
	}
	sort_scopes(u);
	u->whole = true;
}

/* find_cu - the compilation unit holding @pc: from .debug_aranges, else
 * (no aranges, or none for the units of another toolchain: clang writes
 * none by default) from the units' own ranges, gathered once rather
 * than read again at every address no unit holds. */
static bool find_cu(struct inlines *in, uint64_t pc, Dwarf_Die *cu)
{
	if (dwarf_addrdie(in->dw, pc, cu))
		return !is_skeleton(cu);
	if (!in->units_ranged)
		range_units(in);
	return in->unit_ranges.whole && indexed_scope(in->dw, &in->unit_ranges, pc, cu);
}

/* find_scopes - the functions whose code holds @pc in @cu, outermost
 * first, into @chain (INLINES_MAX_NEST): through the unit's index, or a
 * walk of the whole unit when it has none. */
static unsigned find_scopes(struct inlines *in, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *chain)
{
	struct unit_index *u = unit_index(in, cu);
	Dwarf_Die first;

	if (u && u->whole)
		return indexed_scope(in->dw, u, pc, &first) ? walk_scopes(&first, pc, chain) : 0;
	if (dwarf_child(cu, &first) != 0)
		return 0;
	return walk_scopes(&first, pc, chain);
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
	if (find_cu(in, vaddr, &cu))
		n = find_scopes(in, &cu, vaddr, chain);
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
