// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_debugfile.c - separate debug files: found by build ID and by
 * .gnu_debuglink, in the target's root before the host's, and refused
 * unless they are proven to belong to the binary.
 *
 * The binaries are spin-gamma (stripped, build ID) and spin-delta
 * (stripped, no build ID, a debuglink to spin-delta.debug) from
 * tests/workloads/extra.mk, found under $TRAPD_BUILD. A fixture tree
 * stands for /proc/77/root (the target's root) and for the host's root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/symbolize/debugfile.h"
#include "trapd/symbolize/elfsym.h"

struct fixture {
	char dir[64];
	char proc[PATH_MAX];  /* DIR/proc: 77/root is the target's root */
	char troot[PATH_MAX]; /* DIR/proc/77/root */
	char host[PATH_MAX];  /* DIR/host: trapd's own root */
	struct debugfile_search where;
};

static const char *artifact(const char *name)
{
	static char path[4][PATH_MAX];
	static int next;
	const char *build = getenv("TRAPD_BUILD");
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/workloads/symtest/%s", build && *build ? build : "build", name);
	return p;
}

static void run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* install - copy @src to @root/@rel, making the directories. */
static void install(const char *src, const char *root, const char *rel)
{
	run("mkdir -p \"$(dirname '%s%s')\" && cp '%s' '%s%s'", root, rel, src, root, rel);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_debugfile.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->dir);
	snprintf(f->troot, sizeof(f->troot), "%s/proc/77/root", f->dir);
	snprintf(f->host, sizeof(f->host), "%s/host", f->dir);
	run("mkdir -p '%s' '%s'", f->troot, f->host);
	f->where.proc_root = f->proc;
	f->where.host_root = f->host;
	f->where.pid = 77;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	run("rm -rf '%s'", f->dir);
	free(f);
	return 0;
}

/* build_id_rel - /usr/lib/debug/.build-id/XX/YYYY.debug of @bin. */
static const char *build_id_rel(const struct elfsym *bin)
{
	static char rel[PATH_MAX];
	const char *bid = elfsym__build_id(bin);

	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	return rel;
}

static void expect_found(struct fixture *f, const char *bin_name, const char *path, const char *hot,
			 const char *want_found)
{
	struct elfsym *bin = elfsym__open(artifact(bin_name)), *dbg;
	char found[PATH_MAX + 8];
	uint64_t addr;

	assert_non_null(bin);
	dbg = debugfile__load(&f->where, path, bin, found, sizeof(found));
	assert_non_null(dbg);
	assert_string_equal(found, want_found);
	assert_int_equal(elfsym__source(dbg), ELFSYM_SOURCE_SYMTAB);
	assert_int_equal(elfsym__find(dbg, hot, &addr), 0);
	/* the stripped binary itself does not know the name */
	assert_int_equal(elfsym__find(bin, hot, &addr), -ENOENT);
	elfsym__free(dbg);
	elfsym__free(bin);
}

static void expect_none(struct fixture *f, const char *bin_name, const char *path)
{
	struct elfsym *bin = elfsym__open(artifact(bin_name));

	assert_non_null(bin);
	errno = 0;
	assert_null(debugfile__load(&f->where, path, bin, NULL, 0));
	assert_int_equal(errno, ENOENT);
	elfsym__free(bin);
}

static void test_wanted_only_without_a_symtab(void **state)
{
	struct elfsym *full = elfsym__open(artifact("symtest-pie"));
	struct elfsym *gamma = elfsym__open(artifact("spin-gamma"));
	struct elfsym *delta = elfsym__open(artifact("spin-delta"));
	uint32_t crc;

	(void)state;
	assert_non_null(full);
	assert_non_null(gamma);
	assert_non_null(delta);
	assert_false(debugfile__wanted(full));
	assert_true(debugfile__wanted(gamma));
	assert_true(debugfile__wanted(delta));
	assert_string_equal(elfsym__build_id(delta), "");
	assert_string_equal(elfsym__debuglink(delta, &crc), "spin-delta.debug");
	assert_null(elfsym__debuglink(gamma, NULL));
	elfsym__free(full);
	elfsym__free(gamma);
	elfsym__free(delta);
}

static void test_build_id_in_target_root_first(void **state)
{
	struct fixture *f = *state;
	struct elfsym *bin = elfsym__open(artifact("spin-gamma"));
	char want[PATH_MAX + 8];
	const char *rel;

	assert_non_null(bin);
	rel = build_id_rel(bin);
	install(artifact("spin-gamma.debug"), f->host, rel);
	snprintf(want, sizeof(want), "host:%s", rel);
	expect_found(f, "spin-gamma", "/usr/bin/spin-gamma", "spin_gamma_hot", want);
	install(artifact("spin-gamma.debug"), f->troot, rel);
	snprintf(want, sizeof(want), "root:%s", rel);
	expect_found(f, "spin-gamma", "/usr/bin/spin-gamma", "spin_gamma_hot", want);
	elfsym__free(bin);
}

static void test_build_id_must_match(void **state)
{
	struct fixture *f = *state;
	struct elfsym *bin = elfsym__open(artifact("spin-gamma"));

	assert_non_null(bin);
	/* another binary's debug file, and the stripped binary itself, at
	 * the right name: neither is taken */
	install(artifact("spin-delta.debug"), f->troot, build_id_rel(bin));
	expect_none(f, "spin-gamma", "/usr/bin/spin-gamma");
	install(artifact("spin-gamma"), f->troot, build_id_rel(bin));
	expect_none(f, "spin-gamma", "/usr/bin/spin-gamma");
	elfsym__free(bin);
}

static void test_debuglink_places(void **state)
{
	struct fixture *f = *state;

	expect_none(f, "spin-delta", "/opt/svc/spin-delta");
	install(artifact("spin-delta.debug"), f->host, "/usr/lib/debug/opt/svc/spin-delta.debug");
	expect_found(f, "spin-delta", "/opt/svc/spin-delta", "spin_delta_hot",
		     "host:/usr/lib/debug/opt/svc/spin-delta.debug");
	install(artifact("spin-delta.debug"), f->troot, "/opt/svc/.debug/spin-delta.debug");
	expect_found(f, "spin-delta", "/opt/svc/spin-delta", "spin_delta_hot",
		     "root:/opt/svc/.debug/spin-delta.debug");
	install(artifact("spin-delta.debug"), f->troot, "/opt/svc/spin-delta.debug");
	expect_found(f, "spin-delta", "/opt/svc/spin-delta", "spin_delta_hot",
		     "root:/opt/svc/spin-delta.debug");
}

static void test_debuglink_crc_must_match(void **state)
{
	struct fixture *f = *state;
	char path[2 * PATH_MAX];

	install(artifact("spin-delta.debug"), f->troot, "/opt/svc/spin-delta.debug");
	snprintf(path, sizeof(path), "%s/opt/svc/spin-delta.debug", f->troot);
	run("printf 'x' >> '%s'", path); /* one byte more: another CRC */
	expect_none(f, "spin-delta", "/opt/svc/spin-delta");
}

/* A symbolic link the target planted resolves inside its root: the
 * host's debug file it points at is not reached through it, only as the
 * host's own. */
static void test_links_stay_in_the_root(void **state)
{
	struct fixture *f = *state;
	char link[2 * PATH_MAX], target[2 * PATH_MAX];

	snprintf(target, sizeof(target), "%s/elsewhere/spin-delta.debug", f->dir);
	install(artifact("spin-delta.debug"), f->dir, "/elsewhere/spin-delta.debug");
	run("mkdir -p '%s/opt/svc'", f->troot);
	snprintf(link, sizeof(link), "%s/opt/svc/spin-delta.debug", f->troot);
	assert_int_equal(symlink(target, link), 0);
	expect_none(f, "spin-delta", "/opt/svc/spin-delta");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wanted_only_without_a_symtab),
		cmocka_unit_test_setup_teardown(test_build_id_in_target_root_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_build_id_must_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debuglink_places, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debuglink_crc_must_match, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_stay_in_the_root, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
