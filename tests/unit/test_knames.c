// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_knames.c - kernel names from the kernel's own lookup (BPF %pS),
 * checked against /proc/kallsyms, and their use by the symbolizer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/profile/profile.h"
#include "trapd/symbolize/knames.h"
#include "trapd/symbolize/symbolizer.h"

static void test_parse_forms(void **state)
{
	char out[KNAMES_NAME_LEN];

	knames__parse("vfs_read+0x10/0x360", out, sizeof(out));
	assert_string_equal(out, "vfs_read");
	knames__parse("nf_hook_slow+0x44/0xc0 [nf_tables]", out, sizeof(out));
	assert_string_equal(out, "nf_hook_slow [nf_tables]");
	knames__parse("0xffffffffc0123456", out, sizeof(out));
	assert_string_equal(out, "");
	knames__parse("", out, sizeof(out));
	assert_string_equal(out, "");
	knames__parse("+0x10/0x20", out, sizeof(out));
	assert_string_equal(out, "");
	knames__parse("odd [mod", out, sizeof(out));
	assert_string_equal(out, "");
}

/* kallsyms_addr - the address of text symbol @name, 0 when not listed. */
static uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	uint64_t addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 &&
		    (type == 'T' || type == 't') && !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

static struct knames *open_or_skip(void)
{
	struct knames *k = knames__open();

	if (!k && getuid() != 0 && !(getenv("CI") && !strcmp(getenv("CI"), "true")))
		return NULL;
	if (!k)
		fail_msg("knames__open: %s", strerror(errno));
	return k;
}

static void test_names_match_kallsyms(void **state)
{
	static const char *const fns[] = { "vfs_read", "schedule", "do_sys_openat2" };
	char names[4][KNAMES_NAME_LEN];
	uint64_t addrs[4];
	struct knames *k = open_or_skip();
	size_t i;

	if (!k) {
		skip();
		return;
	}
	for (i = 0; i < 3; i++) {
		addrs[i] = kallsyms_addr(fns[i]);
		assert_true(addrs[i] != 0);
		addrs[i] += 1; /* inside the function, not only at its start */
	}
	addrs[3] = 0x1000; /* no kernel symbol there */
	assert_int_equal(knames__resolve(k, addrs, 4, names), 0);
	for (i = 0; i < 3; i++)
		assert_string_equal(names[i], fns[i]);
	assert_string_equal(names[3], "");
	knames__free(k);
}

/* Many addresses to name at once, and the resolver to name them. */
struct many {
	char (*names)[KNAMES_NAME_LEN];
	uint64_t *addrs;
	struct knames *k;
};

/* many_open - room for @n addresses and a resolver; false when the
 * resolver cannot be had here (the test is skipped, nothing is held). */
static bool many_open(struct many *m, uint32_t n)
{
	m->names = calloc(n, KNAMES_NAME_LEN);
	m->addrs = calloc(n, sizeof(*m->addrs));
	assert_non_null(m->names);
	assert_non_null(m->addrs);
	m->k = open_or_skip();
	if (m->k)
		return true;
	free(m->names);
	free(m->addrs);
	return false;
}

static void many_free(struct many *m)
{
	knames__free(m->k);
	free(m->names);
	free(m->addrs);
}

static void test_batches_beyond_one_run(void **state)
{
	uint32_t n = 3 * KNAMES_BATCH + 5, i;
	uint64_t base = kallsyms_addr("vfs_read");
	struct knames_stats st;
	struct many m;

	if (!many_open(&m, n)) {
		skip();
		return;
	}
	/* distinct addresses: none is named from the table */
	for (i = 0; i < n; i++)
		m.addrs[i] = i % 2 ? base + 4 + i / 2 : 0x2000 + 16 * i;
	assert_int_equal(knames__resolve(m.k, m.addrs, n, m.names), 0);
	for (i = 0; i < n; i++)
		assert_string_equal(m.names[i], i % 2 ? "vfs_read" : "");
	knames__stats(m.k, &st);
	assert_int_equal(st.runs, 4);
	assert_int_equal(st.resolved, n);
	many_free(&m);
}

/* An address named once is named again from the table, without a run;
 * a full table is emptied and fills again. */
static void test_names_are_kept(void **state)
{
	uint32_t n = 4096, i;
	uint64_t base = kallsyms_addr("vfs_read");
	struct knames_stats st;
	struct many m;

	if (!many_open(&m, n)) {
		skip();
		return;
	}
	m.addrs[0] = base + 4;
	m.addrs[1] = 0x2000;
	assert_int_equal(knames__resolve(m.k, m.addrs, 2, m.names), 0);
	memset(m.names, 'x', 2 * KNAMES_NAME_LEN);
	assert_int_equal(knames__resolve(m.k, m.addrs, 2, m.names), 0);
	assert_string_equal(m.names[0], "vfs_read");
	assert_string_equal(m.names[1], "");
	knames__stats(m.k, &st);
	assert_int_equal(st.runs, 1);
	assert_int_equal(st.resolved, 2);
	assert_int_equal(st.cached, 2);
	/* more addresses than the table holds */
	for (i = 0; i < n; i++)
		m.addrs[i] = 0x3000 + 16 * i;
	assert_int_equal(knames__resolve(m.k, m.addrs, n, m.names), 0);
	knames__stats(m.k, &st);
	assert_true(st.cache_clears >= 1);
	m.addrs[0] = base + 4;
	assert_int_equal(knames__resolve(m.k, m.addrs, 1, m.names), 0);
	assert_string_equal(m.names[0], "vfs_read");
	many_free(&m);
}

static int resolve_cb(void *ctx, const uint64_t *addrs, uint32_t n,
		      char (*names)[SYMBOLIZER_KNAME_LEN])
{
	return knames__resolve(ctx, addrs, n, names);
}

/* The symbolizer names kernel frames through the hook; the return address
 * (every frame but the first) is looked up one byte back. */
static void test_symbolizer_uses_the_hook(void **state)
{
	struct knames *k = open_or_skip();
	struct symbolizer *sym;
	struct profile *p;
	uint64_t ips[2];
	uint32_t locs[2];
	char buf[64];

	if (!k) {
		skip();
		return;
	}
	sym = symbolizer__new("/nonexistent-proc"); /* so kallsyms cannot be the source */
	p = profile__new();
	assert_non_null(sym);
	assert_non_null(p);
	ips[0] = kallsyms_addr("vfs_read") + 8;
	ips[1] = kallsyms_addr("ksys_read") + 1; /* return address: ksys_read's first byte */
	symbolizer__use_kernel_names(sym, resolve_cb, k);
	assert_int_equal(symbolizer__kernel_stack(sym, p, ips, 2, locs), 0);
	assert_string_equal(profile__location_name(p, locs[0], buf, sizeof(buf)), "vfs_read");
	assert_string_equal(profile__location_name(p, locs[1], buf, sizeof(buf)), "ksys_read");
	assert_true(profile__location_is_kernel(p, locs[0]));
	profile__free(p);
	symbolizer__free(sym);
	knames__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_names_match_kallsyms),
		cmocka_unit_test(test_batches_beyond_one_run),
		cmocka_unit_test(test_names_are_kept),
		cmocka_unit_test(test_symbolizer_uses_the_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
