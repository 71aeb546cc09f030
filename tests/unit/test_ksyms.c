// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ksyms.c - kallsyms loading and lookup: the fixture in
 * tests/data/proc/kallsyms (aliases, data boundaries, modules, malformed
 * lines), a kptr_restrict fixture, a generated table checked against a
 * brute-force reference, and the running kernel's own table. Run from the
 * repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/symbolize/ksyms.h"

#define FIXTURE "tests/data/proc/kallsyms"

static void expect_name(const struct ksyms *k, uint64_t addr, const char *want)
{
	const char *got = ksyms__lookup(k, addr, NULL);

	if (!want) {
		if (got)
			fail_msg("0x%llx: expected nothing, got %s", (unsigned long long)addr, got);
		return;
	}
	if (!got || strcmp(got, want))
		fail_msg("0x%llx: expected %s, got %s", (unsigned long long)addr, want,
			 got ? got : "nothing");
}

static void test_fixture_names_and_boundaries(void **state)
{
	struct ksyms *k = ksyms__load(FIXTURE);
	uint64_t start = 0;

	assert_non_null(k);
	assert_int_equal(ksyms__count(k), 11);
	assert_int_equal(ksyms__first(k), 0xffffffff81000000ull);
	/* _stext, _text and startup_64 share an address: the plain name wins */
	expect_name(k, 0xffffffff81000000ull, "startup_64");
	expect_name(k, 0xffffffff810000ffull, "startup_64");
	expect_name(k, 0xffffffff81000100ull, "secondary_startup_64");
	assert_string_equal(ksyms__lookup(k, 0xffffffff81001010ull, &start), "do_syscall_64");
	assert_int_equal(start, 0xffffffff81001000ull);
	expect_name(k, 0xffffffff81001200ull, "arch_weak_hook");
	expect_name(k, 0xffffffff81001300ull, "__local_helper");
	/* equal rank: the alphabetically first alias, for stable output */
	expect_name(k, 0xffffffff81001400ull, "__ia32_sys_getpid");
	/* a data symbol ends the function before it */
	expect_name(k, 0xffffffff81001800ull, NULL);
	expect_name(k, 0xffffffff81001fffull, NULL);
	expect_name(k, 0xffffffff81002000ull, "schedule");
	/* malformed lines at ...3000 added nothing */
	expect_name(k, 0xffffffff81003000ull, "_etext");
	/* no function spans more than KSYMS_MAX_FUNC_SIZE */
	expect_name(k, 0xffffffff81002400ull + KSYMS_MAX_FUNC_SIZE, NULL);
	expect_name(k, 0xffffffffc0001010ull, "ext4_fill_super [ext4]");
	expect_name(k, 0xffffffffc0001900ull, "ext4_sync_fs [ext4]");
	expect_name(k, 0xffffffffc0002000ull, NULL);
	expect_name(k, 0xffffffffc0010004ull, "bpf_prog_6deef7357e7b4530_handle [bpf]");
	/* below the first symbol; absolute (per-cpu) symbols are ignored */
	expect_name(k, 0xffffffff80000000ull, NULL);
	expect_name(k, 0, NULL);
	expect_name(k, 0x1000, NULL);
	ksyms__free(k);
	ksyms__free(NULL);
}

static void test_hidden_addresses_are_eperm(void **state)
{
	errno = 0;
	assert_null(ksyms__load("tests/data/proc-restricted/kallsyms"));
	assert_int_equal(errno, EPERM);
}

static void test_missing_or_empty_file(void **state)
{
	char path[] = "/tmp/test_ksyms.XXXXXX";
	int fd;

	assert_null(ksyms__load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "garbage\n\n", 9), 9);
	close(fd);
	assert_null(ksyms__load(path));
	assert_int_equal(errno, ENOENT);
	unlink(path);
}

/* Reference lookup: the nearest entry at or below addr, if it is text
 * and within reach. Entries are unique per address in the generator. */
struct gen_sym {
	uint64_t addr;
	bool text;
	unsigned int id;
};

static int gen_cmp(const void *a, const void *b)
{
	const struct gen_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void test_generated_table_matches_reference(void **state)
{
	enum { N = 20000, Q = 100000 };
	struct gen_sym *syms = calloc(N, sizeof(*syms));
	char path[] = "/tmp/test_ksyms.XXXXXX", want[64];
	uint64_t rng = 88172645463325252ull, a, base = 0xffffffff81000000ull;
	size_t i, lo, hi, mid;
	FILE *f;
	struct ksyms *k;
	int fd;

	assert_non_null(syms);
	for (i = 0; i < N; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		/* distinct addresses: slot i of 64 KiB, random within it */
		syms[i].addr = base + i * 0x10000 + (rng & 0xfff0);
		syms[i].text = (rng >> 20) % 5 != 0;
		syms[i].id = (unsigned int)i;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	/* written in reverse, so loading must sort */
	for (i = N; i-- > 0;)
		fprintf(f, "%016llx %c fn_%u%s\n", (unsigned long long)syms[i].addr,
			syms[i].text ? (i % 2 ? 't' : 'T') : 'd', syms[i].id,
			i % 7 == 0 ? "\t[mod]" : "");
	fclose(f);
	k = ksyms__load(path);
	unlink(path);
	assert_non_null(k);
	qsort(syms, N, sizeof(*syms), gen_cmp);
	for (i = 0; i < Q; i++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		a = base - 0x20000 + rng % ((uint64_t)N * 0x10000 + 0x40000);
		for (lo = 0, hi = N; lo < hi;) {
			mid = (lo + hi) / 2;
			if (syms[mid].addr <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || !syms[lo - 1].text || a - syms[lo - 1].addr >= KSYMS_MAX_FUNC_SIZE) {
			expect_name(k, a, NULL);
			continue;
		}
		snprintf(want, sizeof(want), "fn_%u%s", syms[lo - 1].id,
			 syms[lo - 1].id % 7 == 0 ? " [mod]" : "");
		expect_name(k, a, want);
	}
	ksyms__free(k);
	free(syms);
}

/* The running kernel: the address kallsyms gives for a few functions must
 * resolve to a symbol starting there. Skipped where addresses are hidden. */
static void test_running_kernel(void **state)
{
	static const char *const fns[] = { "schedule", "do_syscall_64", "vfs_read" };
	char line[1024], name[600], type;
	unsigned long long addr;
	struct ksyms *k = ksyms__load("/proc/kallsyms");
	uint64_t start;
	FILE *f;
	size_t i, found = 0;

	if (!k && errno == EPERM)
		skip();
	assert_non_null(k);
	assert_true(ksyms__count(k) > 1000);
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %599s", &addr, &type, name) != 3)
			continue;
		for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
			if (strcmp(name, fns[i]))
				continue;
			assert_non_null(ksyms__lookup(k, addr, &start));
			assert_int_equal(start, addr);
			assert_non_null(ksyms__lookup(k, addr + 1, &start));
			assert_int_equal(start, addr);
			found++;
		}
	}
	fclose(f);
	assert_true(found >= 2);
	ksyms__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_names_and_boundaries),
		cmocka_unit_test(test_hidden_addresses_are_eperm),
		cmocka_unit_test(test_missing_or_empty_file),
		cmocka_unit_test(test_generated_table_matches_reference),
		cmocka_unit_test(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
