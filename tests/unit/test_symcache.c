// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_symcache.c - symbol tables kept across captures: found again by
 * file identity, shared by build ID, never confused by a path, evicted
 * least recently used first and only when unreferenced.
 *
 * Uses the suite's test programs (tests/workloads/symtest under
 * $TRAPD_BUILD), copied into a temporary folder so tests can rewrite and
 * duplicate them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/symbolize/symbudget.h"
#include "trapd/symbolize/symcache.h"

static char dir[] = "/tmp/test_symcache.XXXXXX";
static const struct debugfile_search nowhere = { .proc_root = "/nonexistent",
						 .pid = 1,
						 .host_root = "/nonexistent" };

static void run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* copy - the test program @name as DIR/@as; its path. */
static const char *copy(const char *name, const char *as)
{
	static char path[4][PATH_MAX];
	static int next;
	const char *build = getenv("TRAPD_BUILD");
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dir, as);
	run("cp '%s/workloads/symtest/%s' '%s'", build && *build ? build : "build", name, p);
	return p;
}

static struct symcache_entry *get(struct symcache *c, const char *path)
{
	struct symcache_entry *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	e = symcache__get(c, fd, &nowhere, path);
	close(fd);
	assert_non_null(e);
	return e;
}

static void expect_stats(struct symcache *c, uint64_t loads, uint64_t hits, uint64_t bid_hits,
			 uint64_t evictions, size_t entries)
{
	struct symcache_stats st;

	symcache__get_stats(c, &st);
	assert_int_equal(st.loads, loads);
	assert_int_equal(st.hits, hits);
	assert_int_equal(st.build_id_hits, bid_hits);
	assert_int_equal(st.evictions, evictions);
	assert_int_equal(st.entries, entries);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_symcache.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	run("rm -rf '%s'", dir);
	return 0;
}

static void test_same_file_loaded_once(void **state)
{
	struct symcache *c = symcache__new(64 << 20);
	const char *pie = copy("symtest-pie", "a");
	struct symcache_entry *e1, *e2;
	uint64_t addr;

	(void)state;
	e1 = get(c, pie);
	e2 = get(c, pie);
	assert_ptr_equal(e1, e2);
	assert_non_null(e1->elf);
	assert_int_equal(elfsym__find(e1->elf, "hot_function", &addr), 0);
	assert_string_equal(symcache__lookup(e1, addr, NULL), "hot_function");
	expect_stats(c, 1, 1, 0, 0, 1);
	symcache__put(c, e1);
	symcache__put(c, e2);
	symcache__free(c);
}

/* The same image under another inode (a second container image) is
 * matched by its build ID; a file with other contents is not. */
static void test_copies_share_by_build_id(void **state)
{
	struct symcache *c = symcache__new(64 << 20);
	struct symcache_entry *a, *b, *other;

	(void)state;
	a = get(c, copy("symtest-pie", "a"));
	b = get(c, copy("symtest-pie", "b"));
	other = get(c, copy("symtest-nopie", "c"));
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, other);
	expect_stats(c, 2, 0, 1, 0, 2);
	symcache__put(c, a);
	symcache__put(c, b);
	symcache__put(c, other);
	symcache__free(c);
}

/* A file rewritten in place (same path, same inode: what a careless
 * deploy does) is a new file to the cache. */
static void test_rewritten_file_is_loaded_again(void **state)
{
	struct symcache *c = symcache__new(64 << 20);
	const char *path = copy("symtest-pie", "svc");
	struct symcache_entry *old, *new;
	uint64_t addr;

	(void)state;
	old = get(c, path);
	symcache__put(c, old);
	/* cat keeps the inode; a stripped file has other contents and size */
	run("cat \"${TRAPD_BUILD:-build}/workloads/symtest/spin-gamma\" > '%s'", path);
	new = get(c, path);
	assert_ptr_not_equal(old, new);
	assert_int_equal(elfsym__find(new->elf, "hot_function", &addr), -ENOENT);
	expect_stats(c, 2, 0, 0, 0, 2);
	symcache__put(c, new);
	symcache__free(c);
}

static void test_not_elf_is_remembered(void **state)
{
	struct symcache *c = symcache__new(64 << 20);
	char path[PATH_MAX + 16];
	struct symcache_entry *e;

	(void)state;
	snprintf(path, sizeof(path), "%s/text", dir);
	run("echo 'not an ELF file' > '%s'", path);
	e = get(c, path);
	assert_null(e->elf);
	assert_int_equal(e->load_errno, ENOEXEC);
	assert_null(symcache__lookup(e, 0x1000, NULL));
	symcache__put(c, e);
	symcache__put(c, get(c, path));
	expect_stats(c, 1, 1, 0, 0, 1);
	symcache__free(c);
}

/* Bound: unreferenced entries go, least recently used first; entries in
 * use stay even over the bound. */
static void test_eviction_lru_and_pinned(void **state)
{
	struct symcache *c = symcache__new(64 << 20);
	struct symcache_entry *a, *b, *d;
	struct symcache_stats st;
	char pa[PATH_MAX];

	(void)state;
	snprintf(pa, sizeof(pa), "%s", copy("symtest-pie", "a"));
	a = get(c, pa);
	b = get(c, copy("symtest-nopie", "b"));
	d = get(c, copy("libsymtest.so", "d"));
	symcache__put(c, a);
	symcache__put(c, b);
	symcache__put(c, get(c, pa)); /* a is now newer than b */
	symcache__get_stats(c, &st);
	symcache__set_limit(c, st.bytes - 1); /* one must go: b */
	expect_stats(c, 3, 1, 0, 1, 2);
	symcache__put(c, get(c, pa));
	expect_stats(c, 3, 2, 0, 1, 2);
	symcache__set_limit(c, 0); /* a goes; d is in use */
	expect_stats(c, 3, 2, 0, 2, 1);
	symcache__put(c, d); /* now it can go too, at the next trim */
	expect_stats(c, 3, 2, 0, 2, 1);
	symcache__trim(c);
	expect_stats(c, 3, 2, 0, 3, 0);
	symcache__get_stats(c, &st);
	assert_int_equal(st.bytes, 0);
	symcache__free(c);
}

/* A stripped file's names come from its debug file, looked up once. */
static void test_debug_file_found_through_the_cache(void **state)
{
	struct debugfile_search host = { .proc_root = "/nonexistent", .pid = 1 };
	const char *build = getenv("TRAPD_BUILD");
	struct symcache *c = symcache__new(64 << 20);
	char root[PATH_MAX + 16];
	struct symcache_entry *e;
	uint64_t addr;

	(void)state;
	snprintf(root, sizeof(root), "%s/host", dir);
	host.host_root = root;
	run("mkdir -p '%s/opt' && cp '%s/workloads/symtest/spin-delta.debug' '%s/opt/'", root,
	    build && *build ? build : "build", root);
	e = get(c, copy("spin-delta", "spin-delta"));
	assert_null(e->debug); /* looked for under "nowhere" */
	symcache__put(c, e);
	symcache__free(c);

	c = symcache__new(64 << 20);
	{
		int fd = open(copy("spin-delta", "spin-delta"), O_RDONLY | O_CLOEXEC);

		assert_true(fd >= 0);
		e = symcache__get(c, fd, &host, "/opt/spin-delta");
		close(fd);
	}
	assert_non_null(e);
	assert_non_null(e->debug);
	assert_string_equal(e->debug_from, "host:/opt/spin-delta.debug");
	assert_int_equal(elfsym__find(e->debug, "spin_delta_hot", &addr), 0);
	assert_string_equal(symcache__lookup(e, addr + 1, NULL), "spin_delta_hot");
	symcache__put(c, e);
	symcache__free(c);
}

/* A unit's function index is made at its first inline lookup, after the
 * load: the cache counts it when the entry comes back, and a bound it
 * now exceeds evicts the entry at the next trim. */
static void test_inline_index_is_counted(void **state)
{
	struct symcache *c = symcache__new(64 << 20);
	struct symcache_entry *e = get(c, copy("symtest-pie", "a"));
	struct inlines_frame f[4];
	struct symcache_stats before, after;
	uint64_t addr;

	(void)state;
	assert_non_null(e->inl);
	symcache__get_stats(c, &before);
	assert_int_equal(elfsym__find(e->elf, "hot_function", &addr), 0);
	assert_true(inlines__lookup(e->inl, addr + 1, f, 4) >= 1);
	symcache__put(c, e);
	symcache__get_stats(c, &after);
	assert_true(after.bytes > before.bytes);
	symcache__set_limit(c, before.bytes); /* what it held at load */
	expect_stats(c, 1, 0, 0, 1, 0);
	symcache__get_stats(c, &after);
	assert_int_equal(after.bytes, 0);
	symcache__free(c);
}

/* A budget too small for a file's symbol table skips the table (its
 * .dynsym is tried instead), counts the refusal, and the cut entry is
 * never handed to a later capture, which loads the file whole. */
static void test_budget_cut_entry_is_not_shared(void **state)
{
	struct debugfile_search where = nowhere;
	struct symcache *c = symcache__new(64 << 20);
	const char *pie = copy("symtest-pie", "a");
	struct symcache_entry *cut, *whole;
	struct symbudget b;
	uint64_t addr;
	int fd;

	(void)state;
	symbudget__init(&b);
	b.max[SYMBUDGET_BYTES] = 64; /* no table is that small */
	where.budget = &b;
	fd = open(pie, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	cut = symcache__get(c, fd, &where, pie);
	close(fd);
	assert_non_null(cut);
	assert_non_null(cut->elf);
	assert_true(cut->partial);
	assert_int_equal(elfsym__find(cut->elf, "hot_function", &addr), -ENOENT);
	assert_true(b.refused[SYMBUDGET_BYTES] >= 1);
	assert_true(b.used[SYMBUDGET_BYTES] <= 64);
	assert_true(symbudget__hit(&b));

	whole = get(c, pie);
	assert_ptr_not_equal(cut, whole);
	assert_int_equal(elfsym__find(whole->elf, "hot_function", &addr), 0);
	symcache__put(c, cut);
	symcache__trim(c); /* the cut entry goes once unreferenced */
	expect_stats(c, 2, 0, 0, 1, 1);
	symcache__put(c, whole);
	symcache__free(c);
}

/* Loads within the budget are charged what they read and kept. */
static void test_budget_charged_for_a_load(void **state)
{
	struct debugfile_search where = nowhere;
	struct symcache *c = symcache__new(64 << 20);
	const char *pie = copy("symtest-pie", "a");
	struct symcache_entry *e;
	struct symbudget b;
	int fd;

	(void)state;
	symbudget__init(&b);
	where.budget = &b;
	fd = open(pie, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	e = symcache__get(c, fd, &where, pie);
	close(fd);
	assert_non_null(e);
	assert_false(e->partial);
	/* Symbol tables, and the DWARF sections of a -g build (inline chains). */
	assert_non_null(e->inl);
	assert_int_equal(b.used[SYMBUDGET_BYTES],
			 elfsym__table_bytes(e->elf) + inlines__bytes(e->inl));
	assert_true(b.used[SYMBUDGET_BYTES] > 0);
	assert_int_equal(b.used[SYMBUDGET_SYMBOLS], elfsym__count(e->elf));
	assert_false(symbudget__hit(&b));
	symcache__put(c, e);
	symcache__free(c);
}

/* A probe's verdict is kept by the file's identity, apart from its
 * tables: found again through another descriptor, forgotten when the file
 * is rewritten, and never another file's. */
static void test_python_verdict_by_identity(void **state)
{
	struct symcache *c = symcache__new(0);
	char a[PATH_MAX], b[PATH_MAX];
	uint32_t version;
	int fa, fa2, fb;

	(void)state;
	assert_non_null(c);
	snprintf(a, sizeof(a), "%s/a.bin", dir);
	snprintf(b, sizeof(b), "%s/b.bin", dir);
	run("printf aaaa >%s && printf bbbb >%s", a, b);
	fa = open(a, O_RDONLY);
	fb = open(b, O_RDONLY);
	assert_true(fa >= 0 && fb >= 0);
	assert_int_equal(symcache__python(c, fa, &version), SYMCACHE_PYTHON_UNKNOWN);
	symcache__set_python(c, fa, SYMCACHE_PYTHON_REFUSED, 0x030a00f0);
	symcache__set_python(c, fb, SYMCACHE_PYTHON_NONE, 0);
	fa2 = open(a, O_RDONLY);
	assert_true(fa2 >= 0);
	assert_int_equal(symcache__python(c, fa2, &version), SYMCACHE_PYTHON_REFUSED);
	assert_int_equal(version, 0x030a00f0);
	assert_int_equal(symcache__python(c, fb, &version), SYMCACHE_PYTHON_NONE);
	/* rewritten (its size and mtime change): probed again */
	run("sleep 0.01 && printf aaaaa >>%s", a);
	assert_int_equal(symcache__python(c, fa2, &version), SYMCACHE_PYTHON_UNKNOWN);
	close(fa);
	close(fa2);
	close(fb);
	symcache__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_file_loaded_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copies_share_by_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewritten_file_is_loaded_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_elf_is_remembered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eviction_lru_and_pinned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_file_found_through_the_cache, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_budget_cut_entry_is_not_shared, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_budget_charged_for_a_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inline_index_is_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_python_verdict_by_identity, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
