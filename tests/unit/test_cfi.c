// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cfi.c - the CFI of real Debian binaries (libc.so.6, python3.11),
 * checked against readelf: FDE ranges are the functions' symbols, an
 * entry point's return address is undefined, the PLT's expression and
 * the signal trampoline's dereferencing CFA evaluate, a rule seen again
 * comes from the cache; and files that are not sound ELF are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/cfi_program.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON "/usr/bin/python3.11"

static struct cfi *open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct cfi *c;

	assert_true(fd >= 0);
	c = cfi__open_fd(fd, 0);
	close(fd);
	return c;
}

/* readelf_sym - value and size of dynamic symbol @name of @path. */
static void readelf_sym(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	char cmd[512], line[1024], sym[256];
	unsigned long long v, s;
	FILE *f;

	*value = 0;
	snprintf(cmd, sizeof(cmd), "readelf -sW --dyn-syms '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %llx %llu FUNC %*s %*s %*s %255s", &v, &s, sym) == 3 &&
		    !strncmp(sym, name, strlen(name)) &&
		    (sym[strlen(name)] == '@' || !sym[strlen(name)])) {
			*value = v;
			*size = s;
		}
	}
	pclose(f);
	assert_true(*value != 0);
}

/* readelf_section - the address of section @name of @path. */
static uint64_t readelf_section(const char *path, const char *name)
{
	char cmd[512], line[1024], sec[64];
	unsigned long long a, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' | sed 's/^ *\\[ *[0-9]*\\]//'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %*s %llx", sec, &a) == 2 && !strcmp(sec, name))
			found = a;
	}
	pclose(f);
	assert_true(found != 0);
	return found;
}

static void check_range(struct cfi *c, const char *path, const char *name)
{
	uint64_t value, size, start, end;

	readelf_sym(path, name, &value, &size);
	assert_int_equal(cfi__function_range(c, value + size / 2, &start, &end), 0);
	assert_int_equal(start, value);
	assert_int_equal(end, value + size);
}

static void test_libc_function_ranges_are_the_symbols(void **state)
{
	struct cfi *c = open_path(LIBC);

	assert_non_null(c);
	check_range(c, LIBC, "malloc");
	check_range(c, LIBC, "getpid");
	check_range(c, LIBC, "qsort_r");
	cfi__free(c);
}

static void test_python_function_ranges_are_the_symbols(void **state)
{
	struct cfi *c = open_path(PYTHON);
	uint64_t v;

	assert_non_null(c);
	check_range(c, PYTHON, "PyEval_EvalCode");
	check_range(c, PYTHON, "Py_BytesMain");
	/* not PIE: the text is at 0x400000 and up, not at its offset */
	assert_int_equal(cfi__offset_to_vaddr(c, 0x30000, &v), 0);
	assert_true(v >= 0x400000);
	cfi__free(c);
}

static void test_entry_return_address_is_undefined(void **state)
{
	struct cfi *c = open_path(PYTHON);
	struct cfi_row row;
	char line[256];
	unsigned long long entry = 0;
	FILE *f = popen("readelf -h " PYTHON, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		sscanf(line, " Entry point address: %llx", &entry);
	pclose(f);
	assert_non_null(c);
	assert_int_equal(cfi__rule(c, entry, false, &row), 0);
	assert_int_equal(row.ra.kind, CFI_RULE_UNDEFINED);
	cfi__free(c);
}

static void test_function_entry_rule(void **state)
{
	struct cfi *c = open_path(LIBC);
	uint64_t value, size;
	struct cfi_row row;

	assert_non_null(c);
	readelf_sym(LIBC, "malloc", &value, &size);
	assert_int_equal(cfi__rule(c, value, false, &row), 0);
	assert_int_equal(row.cfa.kind, CFI_RULE_VAL_OFFSET);
	assert_int_equal(row.cfa.reg, CFI_REG_RSP);
	assert_int_equal(row.cfa.off, 8);
	assert_int_equal(row.ra.kind, CFI_RULE_OFFSET);
	assert_int_equal(row.ra.off, -8);
	assert_int_equal(row.rsp.kind, CFI_RULE_VAL_OFFSET);
	assert_int_equal(row.rsp.off, 0);
	assert_int_equal(row.rbp.kind, CFI_RULE_SAME);
	assert_false(row.signal);
	cfi__free(c);
}

static int no_read(void *ctx, uint64_t addr, uint64_t *val)
{
	return -EFAULT;
}

/* The PLT's CFA: rsp + 8, + 8 more once the entry pushed its index
 * (from byte 11 of each 16-byte entry on). */
static void check_plt(const char *path)
{
	uint64_t plt = readelf_section(path, ".plt"), cfa, pc;
	struct cfi *c = open_path(path);
	struct cfi_regs regs = { .rsp = 0x7000 };
	struct cfi_row row;

	assert_non_null(c);
	for (pc = plt + 16; pc < plt + 48; pc++) {
		assert_int_equal(cfi__rule(c, pc, false, &row), 0);
		assert_int_equal(row.cfa.kind, CFI_RULE_VAL_EXPR);
		regs.rip = pc;
		assert_int_equal(cfi__eval(c, row.cfa.expr, &regs, 0, no_read, NULL, &cfa), 0);
		assert_int_equal(cfa, 0x7000 + 8 + ((pc & 15) >= 11 ? 8 : 0));
	}
	cfi__free(c);
}

static void test_plt_expression_evaluates(void **state)
{
	check_plt(LIBC);
	check_plt(PYTHON);
}

struct fake_stack {
	uint64_t base;
	uint64_t words[64];
};

static int fake_read(void *ctx, uint64_t addr, uint64_t *val)
{
	struct fake_stack *s = ctx;

	if (addr < s->base || addr - s->base >= sizeof(s->words) || (addr - s->base) % 8)
		return -ERANGE;
	*val = s->words[(addr - s->base) / 8];
	return 0;
}

static void on_signal(int sig)
{
}

/* glibc's __restore_rt (found as the sa_restorer sigaction installed):
 * a signal frame whose CFA is the interrupted rsp, read from the
 * ucontext on the stack (DW_OP_breg7 160; DW_OP_deref). */
static void test_signal_trampoline(void **state)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	struct fake_stack s = { .base = 0x10000 };
	struct cfi_regs regs = { .rsp = 0x10000 };
	struct cfi_row row;
	uint64_t cfa, at;
	struct cfi *c;
	Dl_info info;

	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);
	assert_int_equal(sigaction(SIGUSR2, NULL, &old), 0);
	assert_non_null(old.sa_restorer);
	assert_true(dladdr((void *)old.sa_restorer, &info) != 0);
	c = open_path(LIBC);
	assert_non_null(c);
	/* the trampoline is entered at its first byte: a signal frame's pc is exact */
	assert_int_equal(cfi__rule(c, (uint64_t)old.sa_restorer - (uint64_t)info.dli_fbase, false,
				   &row),
			 0);
	assert_true(row.signal);
	assert_int_equal(row.cfa.kind, CFI_RULE_VAL_EXPR);
	s.words[160 / 8] = 0x7ffd1000; /* uc_mcontext.gregs[REG_RSP] */
	assert_int_equal(cfi__eval(c, row.cfa.expr, &regs, 0, fake_read, &s, &cfa), 0);
	assert_int_equal(cfa, 0x7ffd1000);
	assert_int_equal(row.ra.kind, CFI_RULE_EXPR); /* gregs[REG_RIP] */
	assert_int_equal(cfi__eval(c, row.ra.expr, &regs, cfa, fake_read, &s, &at), 0);
	assert_int_equal(at, 0x10000 + 168);
	signal(SIGUSR2, SIG_DFL);
	cfi__free(c);
}

/* tests/fuzz/corpus/cfi/asm-rules.so, built from .cfi directives (its
 * readelf --debug-dump=frames-interp): a signal frame at 0x222 (CFA and
 * registers from the ucontext), an entry at 0x224, a PLT-like stub at
 * 0x226 and a function with an rbp frame at 0x246. */
static void test_hand_written_rules(void **state)
{
	struct cfi *c = open_path("tests/fuzz/corpus/cfi/asm-rules.so");
	struct cfi_regs regs = { .rsp = 0x7000, .rip = 0x230 };
	struct cfi_row row;
	uint64_t cfa;

	assert_non_null(c);
	assert_int_equal(cfi__rule(c, 0x222, false, &row), 0);
	assert_true(row.signal);
	assert_int_equal(row.cfa.kind, CFI_RULE_VAL_EXPR);
	assert_int_equal(row.ra.kind, CFI_RULE_EXPR);
	assert_int_equal(row.rbp.kind, CFI_RULE_EXPR);
	assert_int_equal(row.rsp.kind, CFI_RULE_EXPR);
	assert_int_equal(cfi__rule(c, 0x224, false, &row), 0);
	assert_int_equal(row.ra.kind, CFI_RULE_UNDEFINED);
	assert_int_equal(cfi__rule(c, 0x230, false, &row), 0);
	assert_int_equal(cfi__eval(c, row.cfa.expr, &regs, 0, no_read, NULL, &cfa), 0);
	assert_int_equal(cfa, 0x7008);
	assert_int_equal(cfi__rule(c, 0x24a, false, &row), 0);
	assert_int_equal(row.cfa.kind, CFI_RULE_VAL_OFFSET);
	assert_int_equal(row.cfa.reg, CFI_REG_RBP);
	assert_int_equal(row.cfa.off, 16);
	assert_int_equal(row.rbp.kind, CFI_RULE_OFFSET);
	assert_int_equal(row.rbp.off, -16);
	/* after DW_CFA_restore_state and the pop */
	assert_int_equal(cfi__rule(c, 0x24b, false, &row), 0);
	assert_int_equal(row.cfa.reg, CFI_REG_RBP);
	assert_int_equal(cfi__rule(c, 0x24c, false, &row), 0);
	assert_int_equal(row.cfa.reg, CFI_REG_RSP);
	assert_int_equal(row.cfa.off, 8);
	cfi__free(c);
}

static void test_rule_cache(void **state)
{
	struct cfi *c = open_path(LIBC);
	uint64_t value, size;
	struct cfi_row a, b;
	struct cfi_stats st;

	assert_non_null(c);
	readelf_sym(LIBC, "malloc", &value, &size);
	assert_int_equal(cfi__rule(c, value + 20, true, &a), 0);
	assert_int_equal(cfi__rule(c, value + 20, true, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	cfi__get_stats(c, &st);
	assert_int_equal(st.lookups, 2);
	assert_int_equal(st.cache_hits, 1);
	assert_true(st.bytes > 100000);
	/* a pc no FDE covers (the ELF header), cached too */
	assert_int_equal(cfi__rule(c, 0x10, false, &a), -ENOENT);
	assert_int_equal(cfi__rule(c, 0x10, false, &a), -ENOENT);
	assert_int_equal(cfi__function_range(c, 0x10, &value, &size), -ENOENT);
	cfi__free(c);
}

/* copy_prefix - a temporary file with the first @len bytes of @path. */
static int copy_prefix(const char *path, size_t len)
{
	char buf[65536], tmp[] = "/tmp/test_cfi.XXXXXX";
	int in = open(path, O_RDONLY), out = mkstemp(tmp);
	ssize_t r;

	assert_true(in >= 0 && out >= 0);
	unlink(tmp);
	while (len && (r = read(in, buf, len < sizeof(buf) ? len : sizeof(buf))) > 0) {
		assert_int_equal(write(out, buf, (size_t)r), r);
		len -= (size_t)r;
	}
	close(in);
	return out;
}

static void test_refuses_unsound_files(void **state)
{
	size_t cuts[] = { 0, 10, 64, 4096, 0x1a9000, 0x1c0000 };
	struct cfi *c;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		fd = copy_prefix(LIBC, cuts[i]);
		errno = 0;
		c = cfi__open_fd(fd, 0);
		assert_null(c);
		assert_true(errno == EINVAL || errno == ENOENT);
		close(fd);
	}
	fd = open("/proc/self/status", O_RDONLY);
	assert_null(cfi__open_fd(fd, 0));
	close(fd);
	/* over the cap */
	fd = open(LIBC, O_RDONLY);
	assert_null(cfi__open_fd(fd, 4096));
	assert_int_equal(errno, E2BIG);
	close(fd);
}

/* assemble - a shared object of one function whose CIE names register
 * @reg and whose FDE remembers the state @remembers times, from .cfi
 * directives; opened as cfi. */
static struct cfi *assemble(int reg, int remembers)
{
	char dir[] = "/tmp/test_cfi.XXXXXX", cmd[512];
	struct cfi *c;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/f.s", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fprintf(f,
		"\t.text\nf:\n\t.cfi_startproc\n\tnop\n\t.cfi_undefined %d\n"
		"\t.rept %d\n\t.cfi_remember_state\n\t.endr\n"
		"\t.rept 64\n\tnop\n\t.endr\n\t.cfi_endproc\n",
		reg, remembers);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cc -nostdlib -shared -Wl,--eh-frame-hdr -o %s/f.so %s/f.s && "
		 "cp %s/f.so %s.so && rm -r %s",
		 dir, dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s.so", dir);
	c = open_path(cmd);
	unlink(cmd);
	return c;
}

/* A program libdw would take a long time to run (a hostile file's
 * DW_CFA_remember_state, each copying the rules up to a high register:
 * 0.4 s a lookup for 3000 of r3000) is refused before libdw runs it;
 * within the bounds it is run, and answers. */
static void test_refuses_costly_programs(void **state)
{
	static const struct {
		int reg, remembers, err;
	} cases[] = {
		{ 3000, 3000, -EINVAL },
		{ CFI_MAX_REGNO + 1, 0, -EINVAL },
		{ CFI_MAX_REGNO, 0, 0 },
		{ 16, CFI_MAX_REMEMBERED_RULES / 17, 0 },
		{ 16, CFI_MAX_REMEMBERED_RULES / 17 + 1, -EINVAL },
		{ CFI_MAX_REGNO, CFI_MAX_REMEMBERED_RULES / (CFI_MAX_REGNO + 1) + 1, -EINVAL },
	};
	uint64_t start, end;
	struct cfi_row row;
	struct cfi *c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = assemble(cases[i].reg, cases[i].remembers);
		assert_non_null(c);
		/* the function is where the linker put it: its FDE's range */
		assert_int_equal(cfi__function_range(c, 0x1000, &start, &end), 0);
		assert_int_equal(cfi__rule(c, start + 10, false, &row), cases[i].err);
		if (!cases[i].err)
			assert_int_equal(row.cfa.kind, CFI_RULE_VAL_OFFSET);
		cfi__free(c);
	}
}

/* read_file - all of @path, in a buffer of *@size bytes. */
static uint8_t *read_whole(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	rewind(f);
	b = malloc(*size);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *size, f), *size);
	fclose(f);
	return b;
}

/* What libdw runs must be what was checked: a search table out of order
 * (where two binary searches may pick different FDEs) is refused, and so
 * is an .eh_frame libdw would take from a section trapd would not. */
static void test_refuses_what_libdw_would_read_otherwise(void **state)
{
	const char *path = "tests/fuzz/corpus/cfi/asm-rules.so";
	uint64_t hdr = readelf_section(path, ".eh_frame_hdr");
	size_t size;
	uint8_t *b = read_whole(path, &size), *table = b + hdr + 12, entry[8];
	struct cfi *c;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Shdr *sh;
	unsigned i;

	/* file offsets are addresses in this first segment */
	c = cfi__open_mem(b, size, 0);
	assert_non_null(c);
	cfi__free(c);
	memcpy(entry, table, 8);
	memcpy(table, table + 8, 8);
	memcpy(table + 8, entry, 8);
	errno = 0;
	assert_null(cfi__open_mem(b, size, 0));
	assert_int_equal(errno, EINVAL);
	memcpy(table + 8, table, 8);
	memcpy(table, entry, 8);
	assert_non_null(c = cfi__open_mem(b, size, 0));
	cfi__free(c);
	for (i = 0; i < eh->e_shnum; i++) {
		sh = (Elf64_Shdr *)(b + eh->e_shoff + (size_t)i * eh->e_shentsize);
		if (sh->sh_addr == readelf_section(path, ".eh_frame"))
			sh->sh_type = SHT_NOTE;
	}
	errno = 0;
	assert_null(cfi__open_mem(b, size, 0));
	assert_int_equal(errno, EINVAL);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_function_ranges_are_the_symbols),
		cmocka_unit_test(test_python_function_ranges_are_the_symbols),
		cmocka_unit_test(test_entry_return_address_is_undefined),
		cmocka_unit_test(test_function_entry_rule),
		cmocka_unit_test(test_plt_expression_evaluates),
		cmocka_unit_test(test_signal_trampoline),
		cmocka_unit_test(test_hand_written_rules),
		cmocka_unit_test(test_rule_cache),
		cmocka_unit_test(test_refuses_unsound_files),
		cmocka_unit_test(test_refuses_costly_programs),
		cmocka_unit_test(test_refuses_what_libdw_would_read_otherwise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
