// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_fderange.c - FDE ranges of .eh_frame against readelf: Debian's
 * liblzma (only .dynsym: its exported functions must each start an FDE,
 * and the FDE count must be readelf's), the suite's stripped symtest
 * (its static function's FDE must start where the unstripped build's
 * symbol does), and hand-made and damaged sections and files, which must
 * never crash and never give a range that is not one. Run from the
 * repository root after `make unit`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/symbolize/fderange.h"
#include "trapd/symbolize/symcache.h"

#define LZMA "/usr/lib/x86_64-linux-gnu/liblzma.so.5"
#define MAX_REF 4096

struct ref_fn {
	uint64_t value, size;
};

static const char *artifact(const char *name)
{
	static char path[4096];
	const char *build = getenv("TRAPD_BUILD");

	snprintf(path, sizeof(path), "%s/workloads/symtest/%s", build && *build ? build : "build",
		 name);
	return path;
}

/* readelf_funcs - the defined, sized FUNC symbols of @path's @table
 * ("--dyn-syms" or "--syms"), per readelf. */
static size_t readelf_funcs(const char *path, const char *table, struct ref_fn *out)
{
	char cmd[4200], line[1024], type[32], bind[32], vis[32], ndx[32];
	unsigned long long value, size, idx;
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -W %s '%s'", table, path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %llu: %llx %llu %31s %31s %31s %31s", &idx, &value, &size, type,
			   bind, vis, ndx) != 7)
			continue;
		if (strcmp(type, "FUNC") || !strcmp(ndx, "UND") || !value || !size || n == MAX_REF)
			continue;
		out[n++] = (struct ref_fn){ value, size };
	}
	assert_int_equal(pclose(f), 0);
	return n;
}

/* readelf_value - the value of the symbol @name of @path, per readelf. */
static uint64_t readelf_value(const char *path, const char *name)
{
	char cmd[4200], line[1024], sym[256];
	unsigned long long value = 0, v, idx;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -W --syms '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %llu: %llx %*s %*s %*s %*s %*s %255s", &idx, &v, sym) == 3 &&
		    !strcmp(sym, name))
			value = v;
	pclose(f);
	assert_true(value != 0);
	return value;
}

/* readelf_fde_count - the FDEs readelf finds in @path's frame sections. */
static size_t readelf_fde_count(const char *path)
{
	char cmd[4200], line[1024];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " FDE cie="))
			n++;
	pclose(f);
	return n;
}

static struct fderange *open_path(const char *path, struct fderange_limits *spent)
{
	struct fderange *r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	r = fderange__open_fd(fd, NULL, spent, NULL);
	close(fd);
	return r;
}

static void test_liblzma_exports_start_fdes(void **state)
{
	static struct ref_fn ref[MAX_REF];
	struct fderange_limits spent;
	struct fderange *r = open_path(LZMA, &spent);
	uint64_t start, end;
	size_t n, i, fdes;

	(void)state;
	assert_non_null(r);
	n = readelf_funcs(LZMA, "--dyn-syms", ref);
	assert_true(n > 50);
	for (i = 0; i < n; i++) {
		assert_int_equal(fderange__lookup(r, ref[i].value, &start, &end), 0);
		assert_int_equal(start, ref[i].value);
		assert_true(end >= ref[i].value + ref[i].size);
		assert_int_equal(fderange__lookup(r, ref[i].value + ref[i].size - 1, &start, NULL),
				 0);
		assert_int_equal(start, ref[i].value);
	}
	fdes = readelf_fde_count(LZMA);
	assert_true(fdes > 100);
	/* Only FDEs sharing a start (none here) or empty ones may go. */
	assert_true(fderange__count(r) <= fdes && fderange__count(r) + fdes / 50 >= fdes);
	assert_int_equal(spent.ranges, fderange__count(r));
	assert_true(spent.bytes > 0 && spent.bytes < (1u << 20));
	assert_true(fderange__memory(r) >= fderange__count(r) * 16);
	fderange__free(r);
}

/* The stripped PIE has only .dynsym, without local_function: its FDEs
 * start where the unstripped build's symbols do, static ones too. */
static void test_stripped_static_functions(void **state)
{
	static struct ref_fn ref[MAX_REF];
	struct fderange *r = open_path(artifact("symtest-stripped"), NULL);
	uint64_t start, end;
	size_t n, i;

	(void)state;
	assert_non_null(r);
	n = readelf_funcs(artifact("symtest-pie"), "--syms", ref);
	assert_true(n >= 5);
	for (i = 0; i < n; i++) {
		assert_int_equal(fderange__lookup(r, ref[i].value + ref[i].size / 2, &start, &end),
				 0);
		assert_int_equal(start, ref[i].value);
		assert_int_equal(end, ref[i].value + ref[i].size);
	}
	fderange__free(r);
}

static void test_outside_any_fde(void **state)
{
	struct fderange *r = open_path(LZMA, NULL);

	(void)state;
	assert_non_null(r);
	assert_int_equal(fderange__lookup(r, 0, NULL, NULL), -ENOENT);
	assert_int_equal(fderange__lookup(r, 0x10, NULL, NULL), -ENOENT); /* the ELF header */
	assert_int_equal(fderange__lookup(r, UINT64_MAX, NULL, NULL), -ENOENT);
	assert_int_equal(fderange__lookup(NULL, 0x1000, NULL, NULL), -ENOENT);
	fderange__free(r);
}

/* A CIE "zR" with pcrel|sdata4 FDE pointers, then one FDE for
 * [0x2000, 0x2040) in a section at 0x1000, then the terminator. */
static size_t handmade(uint8_t *b)
{
	static const uint8_t cie[] = {
		0x14, 0,    0,	 0, 0, 0, 0, 0, /* length 20, CIE id 0 */
		1,    'z',  'R', 0,		/* version, augmentation */
		1,    0x78, 16,			/* code align 1, data align -8, ra 16 */
		1,    0x1b,			/* augmentation data: R = pcrel|sdata4 */
		0,    0,    0,	 0, 0, 0, 0,	/* padding (DW_CFA_nop) */
	};
	int32_t pc;
	size_t n = sizeof(cie);

	memcpy(b, cie, n);
	memcpy(b + n, "\x14\x00\x00\x00", 4); /* length 20 */
	n += 4;
	memcpy(b + n, &(uint32_t){ (uint32_t)n }, 4); /* back to the CIE at 0 */
	n += 4;
	pc = (int32_t)(0x2000 - (0x1000 + n)); /* relative to the field */
	memcpy(b + n, &pc, 4);
	memcpy(b + n + 4, &(uint32_t){ 0x40 }, 4);
	memset(b + n + 8, 0, 12); /* aug length 0, nops */
	n += 20 - 4;
	memset(b + n, 0, 4); /* terminator */
	return n + 4;
}

static void test_handmade_section(void **state)
{
	uint8_t b[128];
	size_t len = handmade(b);
	struct fderange *r = fderange__parse(b, len, 0x1000, 8, 100);
	uint64_t start, end;

	(void)state;
	assert_non_null(r);
	assert_int_equal(fderange__count(r), 1);
	assert_int_equal(fderange__lookup(r, 0x203f, &start, &end), 0);
	assert_int_equal(start, 0x2000);
	assert_int_equal(end, 0x2040);
	assert_int_equal(fderange__lookup(r, 0x2040, NULL, NULL), -ENOENT);
	fderange__free(r);

	/* one FDE more than allowed: nothing, not a cut table */
	assert_null(fderange__parse(b, len, 0x1000, 8, 0));
	assert_int_equal(errno, E2BIG);
	assert_null(fderange__parse(b, len, 0x1000, 3, 100));
	assert_int_equal(errno, ENOEXEC);
}

/* check_sane - every range a damaged section gives is a range. */
static void check_sane(const struct fderange *r)
{
	uint64_t probes[] = { 0, 0x1000, 0x2000, 0x203f, 0x15b40, UINT64_MAX };
	uint64_t start, end;
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (!fderange__lookup(r, probes[i], &start, &end))
			assert_true(start <= probes[i] && probes[i] < end);
}

static void test_damaged_sections(void **state)
{
	uint8_t b[128], d[128];
	size_t len = handmade(b), i, bit;
	struct fderange *r;

	(void)state;
	for (i = 0; i <= len; i++) { /* every truncation */
		r = fderange__parse(b, i, 0x1000, 8, 100);
		if (r)
			check_sane(r);
		fderange__free(r);
	}
	for (i = 0; i < len; i++) { /* every bit flipped */
		for (bit = 0; bit < 8; bit++) {
			memcpy(d, b, len);
			d[i] ^= (uint8_t)(1u << bit);
			r = fderange__parse(d, len, 0x1000, 8, 100);
			if (r)
				check_sane(r);
			fderange__free(r);
			r = fderange__parse(d, len, 0xfffffffffffff000ull, 4, 100);
			fderange__free(r);
		}
	}
	/* a 64-bit length far past the section, an FDE before any CIE */
	memcpy(d, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 12);
	assert_null(fderange__parse(d, 12, 0, 8, 100));
	memcpy(d, "\x08\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00", 12);
	assert_null(fderange__parse(d, 12, 0, 8, 100));
	assert_int_equal(errno, ENOENT);
}

static int memfd_of(const void *buf, size_t len)
{
	int fd = memfd_create("test_fderange", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, buf, len, 0), (ssize_t)len);
	return fd;
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

/* eh_frame_shdr - the section header of liblzma's .eh_frame in @img. */
static Elf64_Shdr *eh_frame_shdr(uint8_t *img)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
	const char *names = (const char *)img + sh[eh->e_shstrndx].sh_offset;
	size_t i;

	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, ".eh_frame"))
			return &sh[i];
	fail_msg("no .eh_frame");
	return NULL;
}

/* A copy of liblzma whose .eh_frame header lies, or which is over the
 * caller's limits, or cut short. */
static void test_hostile_files(void **state)
{
	struct fderange_limits lim = { 64, UINT64_MAX }, spent;
	size_t len, cut;
	uint8_t *img = slurp(LZMA, &len);
	Elf64_Shdr *sh = eh_frame_shdr(img);
	uint64_t size = sh->sh_size;
	struct fderange *r;
	unsigned over;
	int fd;

	(void)state;
	fd = memfd_of(img, len);
	assert_null(fderange__open_fd(fd, &lim, &spent, &over)); /* over the bytes */
	assert_int_equal(errno, E2BIG);
	assert_int_equal(over, FDERANGE_OVER_BYTES);
	assert_int_equal(spent.bytes, 0);
	lim = (struct fderange_limits){ UINT64_MAX, 10 };
	assert_null(fderange__open_fd(fd, &lim, NULL, &over)); /* over the ranges */
	assert_int_equal(over, FDERANGE_OVER_RANGES);
	close(fd);

	sh->sh_size = 1ull << 40; /* past the end of the file */
	fd = memfd_of(img, len);
	assert_null(fderange__open_fd(fd, NULL, NULL, NULL));
	close(fd);
	sh->sh_size = size;

	for (cut = 64; cut < len; cut = cut * 3 / 2) { /* cut short anywhere */
		fd = memfd_of(img, cut);
		r = fderange__open_fd(fd, NULL, NULL, NULL);
		if (r)
			check_sane(r);
		fderange__free(r);
		close(fd);
	}
	free(img);
}

/* The cache reads FDE ranges for a file with only .dynsym, not for one
 * with a full .symtab. */
static void test_symcache_loads_for_dynsym_only(void **state)
{
	static const struct debugfile_search nowhere = { .proc_root = "/nonexistent", .pid = 1 };
	struct symcache *c = symcache__new(0);
	struct symcache_entry *e;
	uint64_t local = readelf_value(artifact("symtest-pie"), "local_function"), start;
	int fd;

	(void)state;
	assert_non_null(c);
	fd = open(artifact("symtest-stripped"), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	e = symcache__get(c, fd, &nowhere, "/x/symtest-stripped");
	close(fd);
	assert_non_null(e);
	assert_non_null(e->fde);
	assert_int_equal(symcache__fde_start(e, local + 1, &start), 0);
	assert_int_equal(start, local);
	symcache__put(c, e);

	/* (not symtest-pie: its build ID is the stripped copy's, so the
	 * cache would give the entry above) */
	local = readelf_value(artifact("symtest-nopie"), "local_function");
	fd = open(artifact("symtest-nopie"), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	e = symcache__get(c, fd, &nowhere, "/x/symtest-nopie");
	close(fd);
	assert_non_null(e);
	assert_null(e->fde);
	assert_int_equal(symcache__fde_start(e, local + 1, &start), -ENOENT);
	symcache__put(c, e);
	symcache__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_liblzma_exports_start_fdes),
		cmocka_unit_test(test_stripped_static_functions),
		cmocka_unit_test(test_outside_any_fde),
		cmocka_unit_test(test_handmade_section),
		cmocka_unit_test(test_damaged_sections),
		cmocka_unit_test(test_hostile_files),
		cmocka_unit_test(test_symcache_loads_for_dynsym_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
