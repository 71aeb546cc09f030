// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_elfsym.c - ELF symbol loading against the suite's own test binaries
 * (tests/workloads/symtest, found under $TRAPD_BUILD) and the system's
 * libc, with readelf as the independent reference; and against damaged
 * copies of them (truncated, bit-flipped, patched headers), which must
 * never crash. Run from the repository root after `make unit`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/readelf.h"
#include "trapd/symbolize/elfsym.h"

#define MAX_REF 4096

/* A function symbol as readelf reports it. */
struct ref_sym {
	uint64_t value;
	uint64_t size;
	char name[512];
	bool symtab; /* from .symtab (else .dynsym) */
};

struct ref {
	struct ref_sym syms[MAX_REF];
	size_t n;
};

static struct ref ref;

static const char *artifact(const char *name)
{
	static char path[4096];
	const char *build = getenv("TRAPD_BUILD");

	snprintf(path, sizeof(path), "%s/workloads/symtest/%s", build && *build ? build : "build",
		 name);
	return path;
}

/* readelf_funcs - the defined FUNC/IFUNC symbols of @path per readelf. */
static void readelf_funcs(const char *path, struct ref *out)
{
	char cmd[4200], line[1024], type[32], bind[32], vis[32], ndx[32], name[512];
	unsigned long long value, idx;
	bool symtab = false;
	char size[64];
	FILE *f;

	out->n = 0;
	snprintf(cmd, sizeof(cmd), "readelf -sW '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "Symbol table '"))
			symtab = strstr(line, "'.symtab'") != NULL;
		if (sscanf(line, " %llu: %llx %63s %31s %31s %31s %31s %511s", &idx, &value, size,
			   type, bind, vis, ndx, name) != 8)
			continue;
		if ((strcmp(type, "FUNC") && strcmp(type, "IFUNC")) || !strcmp(ndx, "UND") ||
		    value == 0 || out->n == MAX_REF)
			continue;
		name[strcspn(name, "@")] = '\0';
		out->syms[out->n].value = value;
		out->syms[out->n].size = strtoull(size, NULL, 0);
		out->syms[out->n].symtab = symtab;
		snprintf(out->syms[out->n].name, sizeof(out->syms[0].name), "%s", name);
		out->n++;
	}
	assert_int_equal(pclose(f), 0);
	assert_true(out->n > 0);
}

static const struct ref_sym *ref_find(const struct ref *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->syms[i].name, name))
			return &r->syms[i];
	fail_msg("readelf shows no %s", name);
	return NULL;
}

/* ref_starts_in - whether a symbol of @r starts in (lo, hi]. */
static bool ref_starts_in(const struct ref *r, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->syms[i].value > lo && r->syms[i].value <= hi)
			return true;
	return false;
}

/* ref_covers - whether a sized symbol of @r covers @a. */
static bool ref_covers(const struct ref *r, uint64_t a)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (a >= r->syms[i].value && a - r->syms[i].value < r->syms[i].size)
			return true;
	return false;
}

static void *slurp(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* check_against_readelf - every function readelf lists from the table
 * elfsym used resolves at its first and last byte to a symbol starting at
 * the same address, and a gap after a sized symbol resolves to nothing. */
static void check_against_readelf(const struct elfsym *e, const struct ref *r, bool symtab,
				  size_t min_checked)
{
	uint64_t start, end;
	const char *name;
	size_t i, checked = 0;

	for (i = 0; i < r->n; i++) {
		const struct ref_sym *s = &r->syms[i];

		if (s->symtab != symtab)
			continue;
		name = elfsym__lookup(e, s->value, &start);
		assert_non_null(name);
		assert_int_equal(start, s->value);
		if (s->size == 0)
			continue;
		end = s->value + s->size;
		if (!ref_starts_in(r, s->value, end - 1)) {
			assert_non_null(elfsym__lookup(e, end - 1, &start));
			assert_int_equal(start, s->value);
		}
		if (!ref_starts_in(r, s->value, end) && !ref_covers(r, end))
			assert_null(elfsym__lookup(e, end, NULL));
		checked++;
	}
	assert_true(checked >= min_checked);
}

static void test_pie_symbols_match_readelf(void **state)
{
	const char *path = artifact("symtest-pie");
	struct elfsym *e = elfsym__open(path);
	const struct ref_sym *hot, *local;

	assert_non_null(e);
	readelf_funcs(path, &ref);
	assert_int_equal(elfsym__type(e), ET_DYN);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_SYMTAB);
	check_against_readelf(e, &ref, true, 4);
	hot = ref_find(&ref, "hot_function");
	local = ref_find(&ref, "local_function");
	assert_string_equal(elfsym__lookup(e, hot->value, NULL), "hot_function");
	assert_string_equal(elfsym__lookup(e, hot->value + hot->size - 1, NULL), "hot_function");
	assert_string_equal(elfsym__lookup(e, local->value + 1, NULL), "local_function");
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "main")->value, NULL), "main");
	assert_null(elfsym__lookup(e, 0, NULL));
	assert_null(elfsym__lookup(e, UINT64_MAX, NULL));
	elfsym__free(e);
}

static void test_nopie_is_exec_with_absolute_addresses(void **state)
{
	const char *path = artifact("symtest-nopie");
	struct elfsym *e = elfsym__open(path);
	const struct ref_sym *hot;

	assert_non_null(e);
	readelf_funcs(path, &ref);
	assert_int_equal(elfsym__type(e), ET_EXEC);
	check_against_readelf(e, &ref, true, 4);
	hot = ref_find(&ref, "hot_function");
	assert_true(hot->value >= 0x400000);
	assert_string_equal(elfsym__lookup(e, hot->value + 3, NULL), "hot_function");
	elfsym__free(e);
}

static void test_shared_library_symbols(void **state)
{
	const char *path = artifact("libsymtest.so");
	struct elfsym *e = elfsym__open(path);

	assert_non_null(e);
	readelf_funcs(path, &ref);
	assert_int_equal(elfsym__type(e), ET_DYN);
	check_against_readelf(e, &ref, true, 2);
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "lib_hot_function")->value, NULL),
			    "lib_hot_function");
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "lib_local_function")->value, NULL),
			    "lib_local_function");
	elfsym__free(e);
}

/* entry_of - e_entry of @path, per readelf. */
static uint64_t entry_of(const char *path)
{
	char cmd[512], line[512];
	unsigned long long v = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -h '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " Entry point address: %llx", &v) == 1)
			break;
	pclose(f);
	assert_true(v != 0);
	return v;
}

static void test_stripped_falls_back_to_dynsym(void **state)
{
	const char *path = artifact("symtest-stripped");
	struct elfsym *e = elfsym__open(path), *full;
	uint64_t local_addr;

	assert_non_null(e);
	readelf_funcs(artifact("symtest-pie"), &ref);
	local_addr = ref_find(&ref, "local_function")->value;
	readelf_funcs(path, &ref);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_DYNSYM);
	check_against_readelf(e, &ref, false, 4);
	/* exported by -rdynamic, so still named */
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "hot_function")->value + 5, NULL),
			    "hot_function");
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "cold_function")->value, NULL),
			    "cold_function");
	/* a static function lived only in .symtab */
	assert_null(elfsym__lookup(e, local_addr, NULL));
	/* so did _start, which is named again at the entry point (and no
	 * further than its few bytes), so stacks that reach it are rooted */
	assert_string_equal(elfsym__lookup(e, entry_of(path) + 5, NULL), "_start");
	assert_true(!elfsym__lookup(e, entry_of(path) + 64, NULL) ||
		    strcmp(elfsym__lookup(e, entry_of(path) + 64, NULL), "_start"));
	full = elfsym__open(artifact("symtest-pie"));
	assert_non_null(full);
	assert_true(elfsym__count(full) > elfsym__count(e));
	assert_string_equal(elfsym__build_id(full), elfsym__build_id(e));
	elfsym__free(full);
	elfsym__free(e);
}

static void test_build_ids_match_readelf(void **state)
{
	static const char *const names[] = { "symtest-pie", "symtest-nopie", "symtest-stripped",
					     "libsymtest.so", "uselib" };
	char want[256];
	struct elfsym *e;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		readelf_build_id(artifact(names[i]), want, sizeof(want));
		e = elfsym__open(artifact(names[i]));
		assert_non_null(e);
		assert_string_equal(elfsym__build_id(e), want);
		assert_int_equal(strlen(want), 40);
		elfsym__free(e);
	}
}

static void test_offsets_map_to_vaddrs_per_load_segment(void **state)
{
	char cmd[4200], line[512], type[32], flags[16];
	unsigned long long off, vaddr, paddr, filesz, memsz;
	struct elfsym *e = elfsym__open(artifact("symtest-nopie"));
	uint64_t got, max_end = 0;
	int loads = 0;
	FILE *f;

	assert_non_null(e);
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", artifact("symtest-nopie"));
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %31s %llx %llx %llx %llx %llx %15s", type, &off, &vaddr, &paddr,
			   &filesz, &memsz, flags) != 7 ||
		    strcmp(type, "LOAD"))
			continue;
		loads++;
		assert_int_equal(elfsym__offset_to_vaddr(e, off, &got), 0);
		assert_int_equal(got, vaddr);
		assert_int_equal(elfsym__offset_to_vaddr(e, off + filesz - 1, &got), 0);
		assert_int_equal(got, vaddr + filesz - 1);
		if (off + filesz > max_end)
			max_end = off + filesz;
	}
	pclose(f);
	assert_true(loads >= 2);
	assert_int_equal(elfsym__offset_to_vaddr(e, max_end, &got), -ENOENT);
	assert_int_equal(elfsym__offset_to_vaddr(e, UINT64_MAX, &got), -ENOENT);
	elfsym__free(e);
}

/* The system libc: stripped to .dynsym, full of aliases (getpid and
 * __getpid, malloc and __libc_malloc); names are checked against where
 * the dynamic linker put the functions in this very process. dlsym on
 * libc's own handle skips any interposer (a sanitizer's malloc). */
static void test_libc_aliases_pick_the_plain_name(void **state)
{
	static const char *const fns[] = { "getpid", "malloc", "qsort", "write" };
	struct elfsym *e = NULL;
	uint64_t vaddr, start;
	const char *name;
	Dl_info info;
	void *libc, *addr;
	size_t i;

	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(libc);
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		addr = dlsym(libc, fns[i]);
		assert_non_null(addr);
		assert_true(dladdr(addr, &info) != 0);
		if (!e) {
			e = elfsym__open(info.dli_fname);
			assert_non_null(e);
			assert_true(elfsym__count(e) > 1000);
			assert_int_equal(strlen(elfsym__build_id(e)), 40);
		}
		/* libc's first PT_LOAD has vaddr 0: vaddr = addr - base */
		vaddr = (uint64_t)(uintptr_t)addr - (uint64_t)(uintptr_t)info.dli_fbase;
		name = elfsym__lookup(e, vaddr, &start);
		assert_non_null(name);
		assert_int_equal(start, vaddr);
		assert_string_equal(name, fns[i]);
	}
	elfsym__free(e);
	dlclose(libc);
}

/* objdump_plt - check each "ADDR <NAME@plt>:" objdump prints for @path
 * against elfsym's name at ADDR; how many were checked. */
static int objdump_plt(const struct elfsym *e, const char *path)
{
	char cmd[512], line[1024], name[512];
	unsigned long long addr;
	uint64_t start;
	const char *got;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		/* "<NAME@plt>:", not "<NAME@plt-0x10>:" (the resolver's stub) */
		if (sscanf(line, "%llx <%511[^>]>:", &addr, name) != 2 || strlen(name) < 5 ||
		    strcmp(name + strlen(name) - 4, "@plt"))
			continue;
		got = elfsym__lookup(e, addr + 3, &start);
		assert_non_null(got);
		assert_string_equal(got, name);
		assert_int_equal(start, addr);
		n++;
	}
	pclose(f);
	return n;
}

/* PLT stubs are named NAME@plt, as objdump and perf name them: Debian's
 * xz (.plt.sec, IBT) and the test's PIE, which calls libc through .plt. */
static void test_plt_stubs_are_named_as_objdump_names_them(void **state)
{
	const char *paths[] = { "/usr/bin/xz", artifact("symtest-pie") };
	struct elfsym *e;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		e = elfsym__open(paths[i]);
		assert_non_null(e);
		n = objdump_plt(e, paths[i]);
		print_message("%s: %d PLT stubs named as objdump names them\n", paths[i], n);
		assert_true(n >= 1);
		elfsym__free(e);
	}
}

static void test_not_elf_files_are_refused(void **state)
{
	char dir[] = "/tmp/test_elfsym.XXXXXX", fifo[64];

	assert_null(elfsym__open("tests/data/proc/100/maps"));
	assert_int_equal(errno, ENOEXEC);
	assert_null(elfsym__open("tests/data/proc"));
	assert_int_equal(errno, ENOEXEC);
	assert_null(elfsym__open("/dev/null"));
	assert_int_equal(errno, ENOEXEC);
	assert_null(elfsym__open("/nonexistent/file"));
	assert_int_equal(errno, ENOENT);
	/* a FIFO must neither hang nor be read */
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(elfsym__open(fifo));
	assert_int_equal(errno, ENOEXEC);
	unlink(fifo);
	rmdir(dir);
	assert_null(elfsym__open_mem(NULL, 0));
}

/* The small freestanding ELF files of the fuzz seed corpus
 * (tests/fuzz/elf-seeds/make-elf-seeds.sh): 32-bit, section-less, IFUNC,
 * weak and alias symbols. */
#define SEEDS "tests/fuzz/corpus/elf/"

static void test_small_seed_files(void **state)
{
	struct elfsym *e;
	char want[256];
	uint64_t start;
	size_t i;

	/* 32-bit: same symbols through the ELF32 path */
	e = elfsym__open(SEEDS "tiny-exec32");
	assert_non_null(e);
	assert_int_equal(elfsym__type(e), ET_EXEC);
	readelf_funcs(SEEDS "tiny-exec32", &ref);
	check_against_readelf(e, &ref, true, 2);
	readelf_build_id(SEEDS "tiny-exec32", want, sizeof(want));
	assert_string_equal(elfsym__build_id(e), want);
	elfsym__free(e);

	/* IFUNC, weak, and an alias that must collapse to one name */
	e = elfsym__open(SEEDS "tiny-pie");
	assert_non_null(e);
	readelf_funcs(SEEDS "tiny-pie", &ref);
	check_against_readelf(e, &ref, true, 3);
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "work_alias")->value, &start), "work");
	assert_non_null(elfsym__lookup(e, ref_find(&ref, "chosen")->value, NULL));
	assert_string_equal(elfsym__lookup(e, ref_find(&ref, "weak_fn")->value, NULL), "weak_fn");
	elfsym__free(e);

	/* no section headers: no symbols, build ID from PT_NOTE, segments
	 * still map offsets */
	e = elfsym__open(SEEDS "tiny-noshdr");
	assert_non_null(e);
	assert_int_equal(elfsym__count(e), 0);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_NONE);
	readelf_build_id(SEEDS "tiny-exec", want, sizeof(want));
	assert_string_equal(elfsym__build_id(e), want);
	assert_int_equal(elfsym__offset_to_vaddr(e, 0x100, &start), 0);
	assert_int_equal(start, 0x400100);
	elfsym__free(e);

	e = elfsym__open(SEEDS "tiny-stripped.so");
	assert_non_null(e);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_DYNSYM);
	readelf_funcs(SEEDS "tiny-stripped.so", &ref);
	for (i = 0; i < ref.n; i++)
		assert_non_null(elfsym__lookup(e, ref.syms[i].value, NULL));
	elfsym__free(e);
}

/* --- damaged images ---------------------------------------------------- */

static Elf64_Shdr *shdr(void *img, unsigned int i)
{
	Elf64_Ehdr *eh = img;

	return (Elf64_Shdr *)((char *)img + eh->e_shoff + (size_t)i * sizeof(Elf64_Shdr));
}

static Elf64_Shdr *find_section(void *img, uint32_t type)
{
	Elf64_Ehdr *eh = img;
	unsigned int i;

	for (i = 1; i < eh->e_shnum; i++)
		if (shdr(img, i)->sh_type == type)
			return shdr(img, i);
	return NULL;
}

static Elf64_Sym *find_symbol(void *img, const char *name)
{
	Elf64_Shdr *tab = find_section(img, SHT_SYMTAB);
	const char *strs = (char *)img + shdr(img, tab->sh_link)->sh_offset;
	Elf64_Sym *syms = (Elf64_Sym *)((char *)img + tab->sh_offset);
	size_t i;

	for (i = 1; i < tab->sh_size / sizeof(*syms); i++)
		if (!strcmp(strs + syms[i].st_name, name))
			return &syms[i];
	fail_msg("no symbol %s", name);
	return NULL;
}

static void test_zero_sized_symbol_reaches_the_next(void **state)
{
	size_t len;
	void *img = slurp(artifact("symtest-pie"), &len);
	Elf64_Sym *hot = find_symbol(img, "hot_function");
	Elf64_Sym *local = find_symbol(img, "local_function");
	uint64_t hot_addr = hot->st_value;
	struct elfsym *e;

	assert_true(local->st_value > hot_addr);
	hot->st_size = 0;
	e = elfsym__open_mem(img, len);
	assert_non_null(e);
	assert_string_equal(elfsym__lookup(e, hot_addr, NULL), "hot_function");
	assert_string_equal(elfsym__lookup(e, local->st_value - 1, NULL), "hot_function");
	assert_string_equal(elfsym__lookup(e, local->st_value, NULL), "local_function");
	elfsym__free(e);
	free(img);
}

static void test_bad_symtab_links_fall_back_to_dynsym(void **state)
{
	size_t len;
	void *img = slurp(artifact("symtest-pie"), &len);
	Elf64_Shdr *tab = find_section(img, SHT_SYMTAB);
	Elf64_Sym *syms = (Elf64_Sym *)((char *)img + tab->sh_offset);
	uint32_t link = tab->sh_link;
	struct elfsym *e;
	size_t i;

	/* string table index out of range */
	tab->sh_link = 60000;
	e = elfsym__open_mem(img, len);
	assert_non_null(e);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_DYNSYM);
	elfsym__free(e);
	/* string table is the symbol table itself */
	tab->sh_link = (uint32_t)(tab - shdr(img, 0));
	e = elfsym__open_mem(img, len);
	assert_non_null(e);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_DYNSYM);
	elfsym__free(e);
	/* every name offset out of range */
	tab->sh_link = link;
	for (i = 1; i < tab->sh_size / sizeof(*syms); i++)
		syms[i].st_name = 0x7fffffff;
	e = elfsym__open_mem(img, len);
	assert_non_null(e);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_DYNSYM);
	elfsym__free(e);
	/* symbol table larger than the file */
	tab->sh_size = (uint64_t)len * 4;
	e = elfsym__open_mem(img, len);
	assert_non_null(e);
	assert_int_equal(elfsym__source(e), ELFSYM_SOURCE_DYNSYM);
	elfsym__free(e);
	free(img);
}

static void test_bad_headers_are_refused(void **state)
{
	size_t len;
	void *img = slurp(artifact("symtest-pie"), &len), *copy = malloc(len);
	Elf64_Ehdr *eh = copy;
	struct elfsym *e;

	assert_non_null(copy);
#define EXPECT_REFUSED(patch)                                                                      \
	do {                                                                                       \
		memcpy(copy, img, len);                                                            \
		patch;                                                                             \
		e = elfsym__open_mem(copy, len);                                                   \
		assert_null(e);                                                                    \
		assert_int_equal(errno, ENOEXEC);                                                  \
	} while (0)
	EXPECT_REFUSED(eh->e_type = ET_REL);
	EXPECT_REFUSED(eh->e_type = ET_CORE);
	EXPECT_REFUSED(eh->e_ident[EI_DATA] = ELFDATA2MSB);
	EXPECT_REFUSED(eh->e_ident[EI_CLASS] = 7);
	EXPECT_REFUSED(eh->e_ident[EI_MAG1] = 'X');
	EXPECT_REFUSED(eh->e_shoff = len - 10);
	EXPECT_REFUSED(eh->e_shoff = UINT64_MAX - 8);
	EXPECT_REFUSED(eh->e_shentsize = 12);
	EXPECT_REFUSED(eh->e_phoff = len);
	EXPECT_REFUSED(eh->e_phnum = 0xfff0);
	/* a huge extended section count, from section 0 */
	EXPECT_REFUSED((eh->e_shnum = 0, shdr(copy, 0)->sh_size = 1ull << 40));
	EXPECT_REFUSED((eh->e_phnum = PN_XNUM, shdr(copy, 0)->sh_info = 0xffffffff));
#undef EXPECT_REFUSED
	/* too short to hold a header */
	assert_null(elfsym__open_mem(img, 10));
	assert_int_equal(errno, ENOEXEC);
	free(copy);
	free(img);
}

/* Every prefix length (in steps) of a real file: nothing may crash, and
 * whatever loads must answer lookups. */
static void test_truncated_images_never_crash(void **state)
{
	size_t len, cut;
	void *img = slurp(artifact("libsymtest.so"), &len), *copy = malloc(len);
	struct elfsym *e;
	uint64_t v;
	int loaded = 0;

	assert_non_null(copy);
	for (cut = 0; cut <= len; cut += cut < 256 ? 1 : cut + 61 < len ? 61 : len - cut) {
		memcpy(copy, img, cut);
		e = elfsym__open_mem(copy, cut);
		if (!e)
			continue;
		loaded++;
		elfsym__lookup(e, 0x1100, NULL);
		elfsym__offset_to_vaddr(e, 0x1000, &v);
		elfsym__free(e);
		if (cut == len)
			break;
	}
	/* the section headers are at the end: only the whole file loads */
	assert_int_equal(loaded, 1);
	free(copy);
	free(img);
}

static void test_corrupted_images_never_crash(void **state)
{
	size_t len, i, round;
	void *img = slurp(artifact("symtest-pie"), &len);
	unsigned char *copy = malloc(len);
	uint64_t rng = 0x9e3779b97f4a7c15ull, v;
	struct elfsym *e;

	assert_non_null(copy);
	for (round = 0; round < 3000; round++) {
		memcpy(copy, img, len);
		for (i = 0; i < 1 + round % 8; i++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			/* headers and tables are where damage matters: bias
			 * towards the first and last 4 KiB */
			size_t at = (rng >> 8) % 4096;

			if (rng & 1)
				at = len - 1 - at % len;
			copy[at % len] = (unsigned char)(rng >> 32);
		}
		e = elfsym__open_mem(copy, len);
		if (!e)
			continue;
		elfsym__lookup(e, rng & 0xffff, NULL);
		elfsym__offset_to_vaddr(e, rng & 0xffff, &v);
		elfsym__build_id(e);
		elfsym__free(e);
	}
	free(copy);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_symbols_match_readelf),
		cmocka_unit_test(test_nopie_is_exec_with_absolute_addresses),
		cmocka_unit_test(test_shared_library_symbols),
		cmocka_unit_test(test_stripped_falls_back_to_dynsym),
		cmocka_unit_test(test_build_ids_match_readelf),
		cmocka_unit_test(test_offsets_map_to_vaddrs_per_load_segment),
		cmocka_unit_test(test_libc_aliases_pick_the_plain_name),
		cmocka_unit_test(test_plt_stubs_are_named_as_objdump_names_them),
		cmocka_unit_test(test_not_elf_files_are_refused),
		cmocka_unit_test(test_small_seed_files),
		cmocka_unit_test(test_zero_sized_symbol_reaches_the_next),
		cmocka_unit_test(test_bad_symtab_links_fall_back_to_dynsym),
		cmocka_unit_test(test_bad_headers_are_refused),
		cmocka_unit_test(test_truncated_images_never_crash),
		cmocka_unit_test(test_corrupted_images_never_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
