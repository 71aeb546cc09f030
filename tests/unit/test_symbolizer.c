// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_symbolizer.c - stacks to profile locations, end to end.
 *
 * Live tests start the suite's test programs (tests/workloads/symtest,
 * found under $TRAPD_BUILD), read the addresses they print of their own
 * functions, snapshot their real /proc/PID/maps and check the names, the
 * mappings and the build IDs; then let them exit and check that the
 * snapshot still names everything. Fixture tests build a proc tree in a
 * temporary folder (maps lines naming the real test binaries, wrong
 * inodes, deleted files, pseudo and anonymous mappings) and use the
 * kallsyms fixtures in tests/data. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <elf.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "tests/unit/readelf.h"
#include "trapd/symbolize/elfsym.h"
#include "trapd/symbolize/symbolizer.h"
#include "trapd/util/log.h"

#define MAX_PRINTED 8

/* A running test program and what it printed about itself. */
struct child {
	pid_t pid;
	int in; /* its stdin; closing it lets it exit */
	char path[PATH_MAX];
	size_t n;
	char names[MAX_PRINTED][64];
	uint64_t addrs[MAX_PRINTED];
};

static const char *artifact(const char *name)
{
	static char path[PATH_MAX];
	const char *build = getenv("TRAPD_BUILD");

	snprintf(path, sizeof(path), "%s/workloads/symtest/%s", build && *build ? build : "build",
		 name);
	return path;
}

static void spawn(struct child *c, const char *name)
{
	int in[2], out[2];
	char line[256], fn[64];
	unsigned long long addr;
	FILE *f;

	memset(c, 0, sizeof(*c));
	assert_non_null(realpath(artifact(name), c->path));
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execl(c->path, c->path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ready", 5))
			break;
		if (sscanf(line, "%63s %llx", fn, &addr) != 2 || c->n == MAX_PRINTED)
			continue;
		snprintf(c->names[c->n], sizeof(c->names[0]), "%s", fn);
		c->addrs[c->n++] = addr;
	}
	fclose(f);
	assert_true(c->n >= 2);
}

static uint64_t printed(const struct child *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			return c->addrs[i];
	fail_msg("%s did not print %s", c->path, name);
	return 0;
}

static void finish(struct child *c)
{
	int status;

	close(c->in);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* readelf_sym - the value and size of symbol @name in @path. */
static void readelf_sym(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	char cmd[PATH_MAX + 32], line[512], sym[256], sz[64];
	unsigned long long v, idx;
	bool found = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -sW '%s'", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %llu: %llx %63s %*s %*s %*s %*s %255s", &idx, &v, sz, sym) ==
			    4 &&
		    !strcmp(sym, name)) {
			*value = v;
			*size = strtoull(sz, NULL, 0);
			found = true;
		}
	}
	pclose(f);
	assert_true(found);
}

/* readelf_end - the end (value + size) of function @name in @path. */
static uint64_t readelf_end(const char *path, const char *name)
{
	uint64_t value, size;

	readelf_sym(path, name, &value, &size);
	return value + size;
}

/* append - add @s to the string in @buf[len]. */
static void append(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	assert_true(used + strlen(s) < len);
	snprintf(buf + used, len - used, "%s", s);
}

static const struct profile_location *loc(const struct profile *p, uint32_t id)
{
	assert_true(id >= 1 && id <= p->nlocations);
	return &p->locations[id - 1];
}

/* fn_name - the function name of location @id, NULL when unresolved. */
static const char *fn_name(const struct profile *p, uint32_t id)
{
	const struct profile_location *l = loc(p, id);

	if (!l->function)
		return NULL;
	return profile__str(p, p->functions[l->function - 1].name);
}

static const struct profile_mapping *map_of(const struct profile *p, uint32_t id)
{
	const struct profile_location *l = loc(p, id);

	if (!l->mapping)
		return NULL;
	return &p->mappings[l->mapping - 1];
}

static void expect_fn(const struct profile *p, uint32_t id, const char *want)
{
	const char *got = fn_name(p, id);

	if (!want) {
		if (got)
			fail_msg("location %u: expected no function, got %s", id, got);
		return;
	}
	if (!got || strcmp(got, want))
		fail_msg("location %u: expected %s, got %s", id, want, got ? got : "nothing");
}

/* --- live processes ----------------------------------------------------- */

/* check_program - symbolize a made-up stack through @c's own functions,
 * leaf first, the way the sampler reports one. */
static void check_program(struct symbolizer *s, const struct child *c, const char *build_id)
{
	uint64_t hot = printed(c, "hot_function"), local = printed(c, "local_function");
	uint64_t cold = printed(c, "cold_function"), mainf = printed(c, "main");
	uint64_t ips[5] = { hot + 2, local + 5, cold + 3, mainf + 10, local };
	const struct profile_mapping *m;
	uint64_t hot_value, hot_size;
	struct profile *p = profile__new();
	uint32_t locs[5];
	size_t i;

	assert_non_null(p);
	assert_int_equal(symbolizer__user_stack(s, p, c->pid, ips, 5, locs), 0);
	expect_fn(p, locs[0], "hot_function");
	expect_fn(p, locs[1], "local_function");
	expect_fn(p, locs[2], "cold_function");
	expect_fn(p, locs[3], "main");
	/* a return address at a function's first byte belongs to the call
	 * before it: whatever ends there, or nothing if a gap does */
	readelf_sym(c->path, "hot_function", &hot_value, &hot_size);
	expect_fn(p, locs[4], hot + hot_size == local ? "hot_function" : NULL);
	for (i = 0; i < 5; i++) {
		assert_int_equal(loc(p, locs[i])->address, ips[i]);
		m = map_of(p, locs[i]);
		assert_non_null(m);
		assert_true(m->start <= ips[i] - (i > 0) && ips[i] - (i > 0) < m->limit);
		assert_string_equal(profile__str(p, m->filename), c->path);
		assert_string_equal(profile__str(p, m->build_id), build_id);
		assert_true(m->has_functions);
		if (loc(p, locs[i])->function) {
			const struct profile_function *fn =
				&p->functions[loc(p, locs[i])->function - 1];

			assert_string_equal(profile__str(p, fn->filename), c->path);
		}
	}
	profile__free(p);
}

static void test_live_pie_before_and_after_exit(void **state)
{
	struct symbolizer *s = symbolizer__new("/proc");
	struct symbolizer_stats st;
	char bid[128];
	struct child c;

	assert_non_null(s);
	spawn(&c, "symtest-pie");
	readelf_build_id(c.path, bid, sizeof(bid));
	assert_int_equal(symbolizer__snapshot(s, c.pid), 0);
	check_program(s, &c, bid);
	finish(&c);
	/* gone now: a new snapshot fails, the old one still names it all */
	assert_int_equal(symbolizer__snapshot(s, c.pid), -ESRCH);
	check_program(s, &c, bid);
	symbolizer__get_stats(s, &st);
	assert_int_equal(st.user_frames, 10);
	assert_int_equal(st.pids_without_maps, 0);
	symbolizer__free(s);
}

static void test_live_nopie(void **state)
{
	struct symbolizer *s = symbolizer__new("/proc");
	char bid[128];
	struct child c;

	assert_non_null(s);
	spawn(&c, "symtest-nopie");
	assert_true(printed(&c, "hot_function") < 0x1000000);
	readelf_build_id(c.path, bid, sizeof(bid));
	assert_int_equal(symbolizer__snapshot(s, c.pid), 0);
	finish(&c);
	check_program(s, &c, bid);
	symbolizer__free(s);
}

static void test_live_shared_library(void **state)
{
	struct symbolizer *s = symbolizer__new("/proc");
	struct profile *p = profile__new();
	char lib[PATH_MAX], bid[128];
	uint64_t ips[2];
	uint32_t locs[2];
	struct child c;

	assert_non_null(s);
	assert_non_null(p);
	spawn(&c, "uselib");
	assert_non_null(realpath(artifact("libsymtest.so"), lib));
	readelf_build_id(lib, bid, sizeof(bid));
	assert_int_equal(symbolizer__snapshot(s, c.pid), 0);
	ips[0] = printed(&c, "lib_hot_function") + 1;
	ips[1] = printed(&c, "main") + 20;
	assert_int_equal(symbolizer__user_stack(s, p, c.pid, ips, 2, locs), 0);
	finish(&c);
	expect_fn(p, locs[0], "lib_hot_function");
	expect_fn(p, locs[1], "main");
	assert_string_equal(profile__str(p, map_of(p, locs[0])->filename), lib);
	assert_string_equal(profile__str(p, map_of(p, locs[0])->build_id), bid);
	assert_string_equal(profile__str(p, map_of(p, locs[1])->filename), c.path);
	assert_int_not_equal(loc(p, locs[0])->mapping, loc(p, locs[1])->mapping);
	profile__free(p);
	symbolizer__free(s);
}

static void test_live_stripped_uses_dynsym(void **state)
{
	struct symbolizer *s = symbolizer__new("/proc");
	struct profile *p = profile__new();
	const struct symbolizer_file_stats *fs;
	struct symbolizer_stats st;
	char want[PATH_MAX];
	size_t nfs;
	const struct profile_mapping *m;
	uint64_t ips[3];
	uint32_t locs[3];
	struct child c;

	assert_non_null(s);
	assert_non_null(p);
	spawn(&c, "symtest-stripped");
	assert_int_equal(symbolizer__snapshot(s, c.pid), 0);
	finish(&c);
	ips[0] = printed(&c, "hot_function");
	ips[1] = printed(&c, "local_function") + 4;
	ips[2] = printed(&c, "cold_function") + 4;
	assert_int_equal(symbolizer__user_stack(s, p, c.pid, ips, 3, locs), 0);
	expect_fn(p, locs[0], "hot_function");
	expect_fn(p, locs[2], "cold_function");
	m = map_of(p, locs[1]);
	assert_non_null(m);
	assert_string_equal(profile__str(p, m->filename), c.path);
	assert_int_equal(loc(p, locs[1])->address, ips[1]);
	/* static, so only in the .symtab that strip removed: grouped by its
	 * FDE, named after the function's start as a file offset */
	snprintf(want, sizeof(want), "symtest-stripped+0x%" PRIx64,
		 printed(&c, "local_function") - m->start + m->file_offset);
	expect_fn(p, locs[1], want);
	ips[0] = printed(&c, "local_function") + 9; /* same function, same name */
	assert_int_equal(symbolizer__user_stack(s, p, c.pid, ips, 1, locs), 0);
	expect_fn(p, locs[0], want);
	symbolizer__get_stats(s, &st);
	assert_int_equal(st.user_frames, 4);
	assert_int_equal(st.user_named, 2);
	fs = symbolizer__file_stats(s, &nfs);
	assert_int_equal(nfs, 1);
	assert_int_equal(fs[0].fde_grouped, 2);
	assert_string_equal(fs[0].source, "dynsym only, FDE ranges");
	profile__free(p);
	symbolizer__free(s);
}

static void test_unknown_pid_and_stray_addresses(void **state)
{
	struct symbolizer *s = symbolizer__new("/proc");
	struct profile *p = profile__new();
	struct symbolizer_stats st;
	uint64_t ips[3] = { 0x10, 0, UINT64_MAX };
	uint32_t locs[3], again[3];
	size_t i;

	assert_non_null(s);
	assert_non_null(p);
	/* never snapshotted: address-only locations, counted once per stack */
	assert_int_equal(symbolizer__user_stack(s, p, 999999, ips, 3, locs), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(loc(p, locs[i])->mapping, 0);
		assert_int_equal(loc(p, locs[i])->function, 0);
		assert_int_equal(loc(p, locs[i])->address, ips[i]);
	}
	/* this process, at addresses it does not map */
	assert_int_equal(symbolizer__snapshot(s, getpid()), 0);
	assert_int_equal(symbolizer__user_stack(s, p, getpid(), ips, 3, again), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(again[i], locs[i]);
	assert_int_equal(symbolizer__user_stack(s, p, 999999, ips, 0, locs), 0);
	symbolizer__get_stats(s, &st);
	assert_int_equal(st.pids_without_maps, 1);
	assert_int_equal(st.user_frames, 6);
	assert_int_equal(st.user_named, 0);
	assert_int_equal(symbolizer__snapshot(s, 999999), -ESRCH);
	assert_int_equal(symbolizer__snapshot(s, 0), -EINVAL);
	profile__free(p);
	symbolizer__free(s);
}

/* A frame-pointer walk through code without frame pointers reads data as
 * frames: the stack ends before the first word that is no user address,
 * and everything past it goes too. */
static void test_user_frames_end_at_a_non_user_word(void **state)
{
	uint64_t ok[3] = { 0x401000, 0x7ffff7a00000, 0x7fffffffefff };
	uint64_t minus1[4] = { 0x401000, 0x402000, UINT64_MAX, 0x403000 };
	uint64_t zero[3] = { 0x401000, 0, 0x403000 };
	uint64_t kern[3] = { 0x401000, 0xffffffff81000000ull, 0x403000 };
	uint64_t noncanon[2] = { 0x401000, 0x68207463656a626full };
	uint64_t first[2] = { 0x0000800000000000ull, 0x401000 };

	assert_int_equal(symbolizer__user_frames(ok, 3), 3);
	assert_int_equal(symbolizer__user_frames(minus1, 4), 2);
	assert_int_equal(symbolizer__user_frames(zero, 3), 1);
	assert_int_equal(symbolizer__user_frames(kern, 3), 1);
	assert_int_equal(symbolizer__user_frames(noncanon, 2), 1);
	assert_int_equal(symbolizer__user_frames(first, 2), 0);
	assert_int_equal(symbolizer__user_frames(ok, 0), 0);
}

/* This very test binary, through its own snapshot: a function of its own
 * and one of libc. */
static void test_own_process_and_libc(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct profile *p = profile__new();
	uint64_t ips[2] = { (uint64_t)(uintptr_t)&test_own_process_and_libc + 1,
			    (uint64_t)(uintptr_t)&getppid + 1 };
	uint32_t locs[2];

	assert_non_null(s);
	assert_non_null(p);
	assert_int_equal(symbolizer__snapshot(s, getpid()), 0);
	assert_int_equal(symbolizer__user_stack(s, p, getpid(), ips, 2, locs), 0);
	expect_fn(p, locs[0], "test_own_process_and_libc");
	expect_fn(p, locs[1], "getppid");
	assert_non_null(strstr(profile__str(p, map_of(p, locs[1])->filename), "libc"));
	profile__free(p);
	symbolizer__free(s);
}

/* symbolizer__check_lives' answer: yes while *@ctx counts down. */
static bool life_lasts(int pid, uint32_t life, void *ctx)
{
	int *yes = ctx;

	(void)pid;
	(void)life;
	return (*yes)-- > 0;
}

/* A later life of a pid (another process that took it, or an exec) has a
 * key of its own; a life that ends before or while it is read is not
 * read: its frames keep their addresses rather than be named from what
 * /proc says of another process. */
static void test_a_life_that_ended_is_not_read(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct profile *p = profile__new();
	uint64_t ips[1] = { (uint64_t)(uintptr_t)&test_own_process_and_libc + 1 };
	int key = prockey_make((uint32_t)getpid(), 1), yes;
	uint32_t locs[1];

	assert_non_null(s);
	assert_non_null(p);
	assert_int_equal(prockey_pid(key), getpid());
	assert_int_equal(prockey_life(key), 1);
	assert_int_equal(prockey_make((uint32_t)getpid(), 0), getpid());
	assert_int_equal(prockey_make(1, PROCKEY_MAX_LIFE + 1), PROCKEY_NONE);
	assert_int_equal(prockey_make(PROCKEY_PID_MASK + 1, 0), PROCKEY_NONE);
	symbolizer__check_lives(s, life_lasts, &yes);
	yes = 0; /* over before it is read */
	assert_int_equal(symbolizer__snapshot(s, key), -ESRCH);
	yes = 1; /* over while it is read */
	assert_int_equal(symbolizer__snapshot(s, key), -ESRCH);
	assert_int_equal(symbolizer__user_stack(s, p, key, ips, 1, locs), 0);
	assert_int_equal(loc(p, locs[0])->function, 0);
	yes = 2; /* lasting: named, under its own key only */
	assert_int_equal(symbolizer__snapshot(s, key), 0);
	assert_int_equal(symbolizer__user_stack(s, p, key, ips, 1, locs), 0);
	expect_fn(p, locs[0], "test_own_process_and_libc");
	assert_int_equal(symbolizer__user_stack(s, p, getpid(), ips, 1, locs), 0);
	assert_int_equal(loc(p, locs[0])->function, 0);
	assert_int_equal(symbolizer__snapshot(s, PROCKEY_NONE), -ESRCH);
	profile__free(p);
	symbolizer__free(s);
}

/* A vDSO frame is named from the vDSO's own symbols (every native
 * process has the image this one has). */
static void test_vdso_frame(void **state)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct symbolizer *s = symbolizer__new(NULL);
	struct profile *p = profile__new();
	size_t len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	void *copy = malloc(len);
	struct elfsym *e;
	uint64_t vaddr, ip;
	uint32_t loc_id;

	(void)state;
	memcpy(copy, eh, len);
	e = elfsym__open_mem(copy, len);
	assert_non_null(e);
	/* of the aliases, elfsym keeps one name per address */
	assert_true(elfsym__find(e, "clock_gettime", &vaddr) == 0 ||
		    elfsym__find(e, "__vdso_clock_gettime", &vaddr) == 0);
	elfsym__free(e);
	free(copy);
	ip = (uint64_t)(uintptr_t)eh + vaddr;
	assert_int_equal(symbolizer__snapshot(s, getpid()), 0);
	assert_int_equal(symbolizer__user_stack(s, p, getpid(), &ip, 1, &loc_id), 0);
	assert_non_null(strstr(fn_name(p, loc_id), "clock_gettime"));
	assert_string_equal(profile__str(p, map_of(p, loc_id)->filename), "[vdso]");
	profile__free(p);
	symbolizer__free(s);
}

/* --- fixture proc trees ------------------------------------------------- */

struct tree {
	char root[64];
	char dir[96];
	char maps[128];
};

static void tree_make(struct tree *t, int pid)
{
	snprintf(t->root, sizeof(t->root), "/tmp/test_symbolizer.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(t->dir, sizeof(t->dir), "%s/%d", t->root, pid);
	assert_int_equal(mkdir(t->dir, 0755), 0);
	snprintf(t->maps, sizeof(t->maps), "%s/maps", t->dir);
}

static void tree_write(const struct tree *t, const char *text)
{
	FILE *f = fopen(t->maps, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tree_remove(const struct tree *t)
{
	unlink(t->maps);
	rmdir(t->dir);
	rmdir(t->root);
}

/* text_line - a maps line mapping the executable PT_LOAD of the non-PIE
 * test program at its link address, as the kernel would. */
static void text_line(char *buf, size_t len, const char *path, uint64_t ino, uint64_t start,
		      uint64_t end, uint64_t off)
{
	snprintf(buf, len,
		 "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " fe:00 %" PRIu64
		 "                    %s\n",
		 start, end, off, ino, path);
}

static void test_fixture_tree_wrong_inode_deleted_and_pseudo(void **state)
{
	char nopie[PATH_MAX], lib[PATH_MAX], text[8192], line[PATH_MAX + 128];
	const struct profile_mapping *m;
	struct symbolizer *s;
	struct profile *p = profile__new();
	struct stat st, lst;
	uint64_t hot_end, ips[6];
	uint32_t locs[6];
	struct tree t;

	assert_non_null(p);
	assert_non_null(realpath(artifact("symtest-nopie"), nopie));
	assert_non_null(realpath(artifact("libsymtest.so"), lib));
	assert_int_equal(stat(nopie, &st), 0);
	assert_int_equal(stat(lib, &lst), 0);
	hot_end = readelf_end(nopie, "hot_function");
	tree_make(&t, 4242);
	text[0] = '\0';
	/* the non-PIE text: file offset 0x1000 at 0x401000 */
	text_line(line, sizeof(line), nopie, (uint64_t)st.st_ino, 0x401000, 0x402000, 0x1000);
	append(text, sizeof(text), line);
	/* the library, but with an inode that is not the file's */
	text_line(line, sizeof(line), lib, (uint64_t)lst.st_ino + 1, 0x7f0000001000, 0x7f0000002000,
		  0x1000);
	append(text, sizeof(text), line);
	/* a deleted file that no path reaches any more */
	append(text, sizeof(text),
	       "7f0000100000-7f0000101000 r-xp 00001000 fe:00 77 /nonexistent/libgone.so "
	       "(deleted)\n");
	append(text, sizeof(text), "7f0000200000-7f0000201000 r-xp 00000000 00:00 0 [vdso]\n");
	/* anonymous code, JIT-style */
	append(text, sizeof(text), "7f0000300000-7f0000301000 rwxp 00000000 00:00 0 \n");
	tree_write(&t, text);

	s = symbolizer__new(t.root);
	assert_non_null(s);
	assert_int_equal(symbolizer__snapshot(s, 4242), 0);
	ips[0] = hot_end - 1;
	ips[1] = 0x7f0000001100;
	ips[2] = 0x7f0000100100;
	ips[3] = 0x7f0000200100;
	ips[4] = 0x7f0000300100;
	ips[5] = 0x401000 + 0xfff + 1; /* a return address one past the end */
	assert_int_equal(symbolizer__user_stack(s, p, 4242, ips, 6, locs), 0);
	expect_fn(p, locs[0], "hot_function");
	m = map_of(p, locs[0]);
	assert_int_equal(m->start, 0x401000);
	assert_int_equal(m->limit, 0x402000);
	assert_int_equal(m->file_offset, 0x1000);
	assert_true(m->has_functions);
	/* wrong inode: the mapping is kept, but nothing is read from it */
	expect_fn(p, locs[1], NULL);
	m = map_of(p, locs[1]);
	assert_non_null(m);
	assert_string_equal(profile__str(p, m->filename), lib);
	assert_int_equal(m->build_id, 0);
	assert_false(m->has_functions);
	expect_fn(p, locs[2], NULL);
	assert_string_equal(profile__str(p, map_of(p, locs[2])->filename),
			    "/nonexistent/libgone.so");
	expect_fn(p, locs[3], NULL);
	assert_string_equal(profile__str(p, map_of(p, locs[3])->filename), "[vdso]");
	/* anonymous code: a mapping named as perf names it, and no name
	 * without a perf map */
	expect_fn(p, locs[4], NULL);
	assert_string_equal(profile__str(p, map_of(p, locs[4])->filename), "//anon");
	assert_false(map_of(p, locs[4])->has_functions);
	assert_int_equal(loc(p, locs[4])->address, ips[4]);
	/* looked up at ip - 1, so still inside the text mapping */
	assert_non_null(map_of(p, locs[5]));
	assert_int_equal(map_of(p, locs[5])->start, 0x401000);
	symbolizer__free(s);
	profile__free(p);
	tree_remove(&t);
}

/* jit_fixture_file - @text into @t's process's root at @rel. */
static void jit_fixture_file(const struct tree *t, const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A runtime's perf map, complete only once it exited (as V8 leaves it),
 * is read again from the /tmp its process had, and names code that no
 * snapshot saw mapped (the runtime mapped that page later). */
static void test_jit_map_read_after_exit(void **state)
{
	char path[256], status[128];
	struct profile *p = profile__new();
	struct symbolizer *s;
	uint64_t ips[5] = { 0x7f0000300104, 0x7f0000500011, 0x7f0000600001, 0x7f00002ff005,
			    0x7f0000301805 };
	uint32_t locs[5];
	struct tree t;

	(void)state;
	assert_non_null(p);
	tree_make(&t, 4343);
	tree_write(&t, "7f0000300000-7f0000301000 r-xp 00000000 00:00 0 \n");
	snprintf(path, sizeof(path), "%s/rootfs", t.dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/rootfs/tmp", t.dir);
	assert_int_equal(mkdir(path, 01777), 0);
	snprintf(path, sizeof(path), "%s/root", t.dir);
	assert_int_equal(symlink("rootfs", path), 0);
	snprintf(status, sizeof(status), "Name:\tnode\nUid:\t%u\t%u\t%u\t%u\nNSpid:\t4343\t9\n",
		 getuid(), getuid(), getuid(), getuid());
	jit_fixture_file(&t, "status", status);
	jit_fixture_file(&t, "rootfs/tmp/perf-9.map", "7f0000300100 10 jitEarly\n");
	s = symbolizer__new(t.root);
	assert_non_null(s);
	assert_int_equal(symbolizer__snapshot(s, 4343), 0);
	/* it exits: its /proc entry is gone; it flushed the rest of its map */
	snprintf(path, sizeof(path), "%s/root", t.dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/status", t.dir);
	assert_int_equal(unlink(path), 0);
	jit_fixture_file(&t, "rootfs/tmp/perf-9.map",
			 "7f0000300100 10 jitEarly\n7f0000500000 40 jitLate\n"
			 "7f00002ff000 10 jitBefore\n7f0000301800 10 jitAfter\n");
	symbolizer__refresh_jit(s);
	assert_int_equal(symbolizer__user_stack(s, p, 4343, ips, 5, locs), 0);
	expect_fn(p, locs[0], "jitEarly");
	assert_int_equal(map_of(p, locs[0])->start, 0x7f0000300000);
	expect_fn(p, locs[1], "jitLate");
	assert_string_equal(profile__str(p, map_of(p, locs[1])->filename), "//anon");
	assert_int_equal(map_of(p, locs[1])->start, 0x7f0000500000);
	assert_int_equal(map_of(p, locs[1])->limit, 0x7f0000500040);
	/* outside what the map names: no mapping is made up */
	assert_null(map_of(p, locs[2]));
	/* code on both sides of the mapping a snapshot saw: the new mappings
	 * cover the gaps only, and the one seen stays as it was */
	expect_fn(p, locs[3], "jitBefore");
	assert_int_equal(map_of(p, locs[3])->start, 0x7f00002ff000);
	assert_int_equal(map_of(p, locs[3])->limit, 0x7f0000300000);
	expect_fn(p, locs[4], "jitAfter");
	assert_int_equal(map_of(p, locs[4])->start, 0x7f0000301000);
	assert_int_equal(map_of(p, locs[4])->limit, 0x7f0000301810);
	assert_int_equal(map_of(p, locs[0])->limit, 0x7f0000301000);
	symbolizer__free(s);
	profile__free(p);
	snprintf(path, sizeof(path), "rm -rf %s", t.root);
	assert_int_equal(system(path), 0);
}

static void test_snapshots_accumulate_newest_wins(void **state)
{
	char nopie[PATH_MAX], lib[PATH_MAX], line[PATH_MAX + 128];
	struct profile *p = profile__new();
	struct symbolizer *s;
	struct stat st, lst;
	uint64_t hot, lib_hot, ips[2];
	uint32_t locs[2];
	struct tree t;
	struct child c;

	assert_non_null(p);
	assert_non_null(realpath(artifact("symtest-nopie"), nopie));
	assert_non_null(realpath(artifact("libsymtest.so"), lib));
	assert_int_equal(stat(nopie, &st), 0);
	assert_int_equal(stat(lib, &lst), 0);
	/* where the library's lib_hot_function lands when its text (file
	 * offset 0x1000) is mapped at 0x7f0000001000: ask a live user */
	spawn(&c, "uselib");
	finish(&c);
	lib_hot = 0x7f0000001000 + (printed(&c, "lib_hot_function") & 0xfff);
	hot = readelf_end(nopie, "hot_function") - 1;
	tree_make(&t, 77);
	text_line(line, sizeof(line), nopie, (uint64_t)st.st_ino, 0x401000, 0x402000, 0x1000);
	tree_write(&t, line);
	s = symbolizer__new(t.root);
	assert_non_null(s);
	assert_int_equal(symbolizer__snapshot(s, 77), 0);
	/* the process exec'd: the library now sits where the program was,
	 * and at its own address */
	text_line(line, sizeof(line), lib, (uint64_t)lst.st_ino, 0x7f0000001000, 0x7f0000002000,
		  0x1000);
	tree_write(&t, line);
	assert_int_equal(symbolizer__snapshot(s, 77), 0);
	ips[0] = hot;
	ips[1] = lib_hot + 1; /* a return address: looked up one byte back */
	assert_int_equal(symbolizer__user_stack(s, p, 77, ips, 2, locs), 0);
	expect_fn(p, locs[0], "hot_function");
	expect_fn(p, locs[1], "lib_hot_function");
	/* a repeated snapshot adds nothing new */
	assert_int_equal(symbolizer__snapshot(s, 77), 0);
	/* now a mapping of the library over the program's old range: the
	 * newer snapshot wins where they overlap */
	text_line(line, sizeof(line), lib, (uint64_t)lst.st_ino, 0x401000, 0x402000, 0x1000);
	tree_write(&t, line);
	assert_int_equal(symbolizer__snapshot(s, 77), 0);
	ips[0] = 0x401000 + (lib_hot & 0xfff);
	assert_int_equal(symbolizer__user_stack(s, p, 77, ips, 1, locs), 0);
	expect_fn(p, locs[0], "lib_hot_function");
	symbolizer__free(s);
	profile__free(p);
	tree_remove(&t);
}

/* What the recorder asks before reading a process's maps again: whether
 * every frame of a stack lies in what was read. */
static void test_maps_hold_a_stack_in_what_was_read(void **state)
{
	char nopie[PATH_MAX], line[PATH_MAX + 128];
	uint64_t ips[3] = { 0x401100, 0x401200, 0 };
	struct symbolizer *s;
	struct stat st;
	struct tree t;

	(void)state;
	assert_non_null(realpath(artifact("symtest-nopie"), nopie));
	assert_int_equal(stat(nopie, &st), 0);
	tree_make(&t, 78);
	text_line(line, sizeof(line), nopie, (uint64_t)st.st_ino, 0x401000, 0x402000, 0x1000);
	tree_write(&t, line);
	s = symbolizer__new(t.root);
	assert_non_null(s);
	/* never read: nothing holds */
	assert_false(symbolizer__maps_hold(s, 78, ips, 2));
	assert_int_equal(symbolizer__snapshot(s, 78), 0);
	assert_true(symbolizer__maps_hold(s, 78, ips, 2));
	/* a stack with no user frame needs nothing */
	assert_true(symbolizer__maps_hold(s, 78, ips, 0));
	/* the walk's end (a 0 word) is not a frame */
	assert_true(symbolizer__maps_hold(s, 78, ips, 3));
	/* a caller in a library mapped after the read: read again */
	ips[1] = 0x7f0000001234;
	assert_false(symbolizer__maps_hold(s, 78, ips, 2));
	/* a return address one past the end of a mapping is its last call */
	ips[1] = 0x402000;
	assert_true(symbolizer__maps_hold(s, 78, ips, 2));
	/* ...but a leaf there is outside it */
	ips[0] = 0x402000;
	assert_false(symbolizer__maps_hold(s, 78, ips, 1));
	assert_false(symbolizer__maps_hold(s, 79, ips, 0));
	symbolizer__free(s);
	tree_remove(&t);
}

/* copy_file - copy @from to @to with mode 0755. */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* A program whose file was deleted while it runs (an upgrade): maps says
 * "(deleted)", no path reaches the file, map_files still does. */
static void test_live_deleted_binary_through_map_files(void **state)
{
	struct symbolizer *s = symbolizer__new("/proc");
	struct profile *p = profile__new();
	char dir[] = "/tmp/test_symbolizer.XXXXXX", copy[64];
	uint64_t ips[2];
	uint32_t locs[2];
	struct child c;
	int in[2], out[2];
	char line[256], fn[64];
	unsigned long long addr;
	FILE *f;

	/* map_files needs CAP_SYS_ADMIN (CAP_CHECKPOINT_RESTORE) */
	if (geteuid() != 0) {
		symbolizer__free(s);
		profile__free(p);
		skip();
	}
	assert_non_null(s);
	assert_non_null(p);
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/prog", dir);
	copy_file(artifact("symtest-pie"), copy);
	/* spawn() resolves names under $TRAPD_BUILD; start the copy here */
	memset(&c, 0, sizeof(c));
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		execl(copy, copy, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c.in = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && strncmp(line, "ready", 5))
		if (sscanf(line, "%63s %llx", fn, &addr) == 2 && c.n < MAX_PRINTED) {
			snprintf(c.names[c.n], sizeof(c.names[0]), "%s", fn);
			c.addrs[c.n++] = addr;
		}
	fclose(f);
	assert_int_equal(unlink(copy), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(symbolizer__snapshot(s, c.pid), 0);
	finish(&c);
	ips[0] = printed(&c, "hot_function") + 1;
	ips[1] = printed(&c, "cold_function") + 1;
	assert_int_equal(symbolizer__user_stack(s, p, c.pid, ips, 2, locs), 0);
	expect_fn(p, locs[0], "hot_function");
	expect_fn(p, locs[1], "cold_function");
	assert_string_equal(profile__str(p, map_of(p, locs[0])->filename), copy);
	profile__free(p);
	symbolizer__free(s);
}

/* A process in a container sees its files under its own root. The file
 * at /bin/prog exists only there; a symbolic link inside that root that
 * points at an absolute host path must resolve inside the root, not on
 * the host, even when the inode in maps names the host file. */
static void test_container_root_and_symlink_escape(void **state)
{
	char lib[PATH_MAX], text[2 * PATH_MAX], line[PATH_MAX + 128], path[256];
	struct profile *p = profile__new();
	struct symbolizer *s;
	struct stat st, lst;
	uint64_t hot, ips[2];
	uint32_t locs[2];
	struct tree t;

	assert_non_null(p);
	assert_non_null(realpath(artifact("libsymtest.so"), lib));
	assert_int_equal(stat(lib, &lst), 0);
	hot = readelf_end(artifact("symtest-nopie"), "hot_function") - 1;
	tree_make(&t, 55);
	snprintf(path, sizeof(path), "%s/root", t.dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/root/bin", t.dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/root/bin/prog", t.dir);
	copy_file(artifact("symtest-nopie"), path);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/root/bin/evil.so", t.dir);
	assert_int_equal(symlink(lib, path), 0);
	text[0] = '\0';
	text_line(line, sizeof(line), "/bin/prog", (uint64_t)st.st_ino, 0x401000, 0x402000, 0x1000);
	append(text, sizeof(text), line);
	text_line(line, sizeof(line), "/bin/evil.so", (uint64_t)lst.st_ino, 0x7f0000001000,
		  0x7f0000002000, 0x1000);
	append(text, sizeof(text), line);
	tree_write(&t, text);
	s = symbolizer__new(t.root);
	assert_non_null(s);
	assert_int_equal(symbolizer__snapshot(s, 55), 0);
	ips[0] = hot;
	ips[1] = 0x7f0000001100;
	assert_int_equal(symbolizer__user_stack(s, p, 55, ips, 2, locs), 0);
	expect_fn(p, locs[0], "hot_function");
	assert_string_equal(profile__str(p, map_of(p, locs[0])->filename), "/bin/prog");
	expect_fn(p, locs[1], NULL);
	assert_false(map_of(p, locs[1])->has_functions);
	symbolizer__free(s);
	profile__free(p);
	unlink(path);
	snprintf(path, sizeof(path), "%s/root/bin/prog", t.dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/root/bin", t.dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/root", t.dir);
	rmdir(path);
	tree_remove(&t);
}

/* --- kernel ------------------------------------------------------------- */

static void test_kernel_frames_from_fixture(void **state)
{
	struct symbolizer *s = symbolizer__new("tests/data/proc");
	struct profile *p = profile__new();
	struct symbolizer_stats st;
	const struct profile_mapping *m;
	uint64_t ips[4] = { 0xffffffff81002010ull, 0xffffffff81001000ull, 0xffffffffc0001804ull,
			    0xffffffff81001900ull };
	uint32_t locs[4];
	size_t i;

	assert_non_null(s);
	assert_non_null(p);
	assert_int_equal(symbolizer__kernel_stack(s, p, ips, 4, locs), 0);
	expect_fn(p, locs[0], "schedule");
	/* a return address at do_syscall_64's start: the call was in the
	 * function before it */
	expect_fn(p, locs[1], "secondary_startup_64");
	expect_fn(p, locs[2], "ext4_sync_fs [ext4]");
	expect_fn(p, locs[3], NULL);
	for (i = 0; i < 4; i++) {
		assert_true(profile__location_is_kernel(p, locs[i]));
		assert_int_equal(loc(p, locs[i])->address, ips[i]);
		m = map_of(p, locs[i]);
		assert_string_equal(profile__str(p, m->filename), PROFILE_KERNEL_MAPPING);
		assert_int_equal(m->start, 0xffffffff81000000ull);
		assert_int_equal(m->limit, UINT64_MAX);
		assert_true(m->has_functions);
	}
	symbolizer__get_stats(s, &st);
	assert_int_equal(st.kernel_frames, 4);
	assert_int_equal(st.kernel_named, 3);
	assert_int_equal(symbolizer__kernel_stack(s, p, ips, 0, locs), 0);
	symbolizer__free(s);
	profile__free(p);
}

static void test_kernel_frames_with_hidden_addresses(void **state)
{
	struct symbolizer *s = symbolizer__new("tests/data/proc-restricted");
	struct profile *p = profile__new();
	uint64_t ips[2] = { 0xffffffff81002010ull, 0xffffffff81001000ull };
	uint32_t locs[2];
	enum log_level saved = log_get_level();

	assert_non_null(s);
	assert_non_null(p);
	log_set_level(LOG_LVL_ERROR); /* the warning is expected */
	assert_int_equal(symbolizer__kernel_stack(s, p, ips, 2, locs), 0);
	assert_int_equal(symbolizer__kernel_stack(s, p, ips, 2, locs), 0);
	log_set_level(saved);
	expect_fn(p, locs[0], NULL);
	assert_true(profile__location_is_kernel(p, locs[1]));
	assert_false(map_of(p, locs[0])->has_functions);
	symbolizer__free(s);
	profile__free(p);
}

/* --- cost ---------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 200k frames over a live process: resolved and interned quickly, and
 * each distinct (mapping, address) becomes one location. */
static void test_many_frames_are_cheap(void **state)
{
	enum { FRAMES = 200000, DEPTH = 8 };
	struct symbolizer *s = symbolizer__new("/proc");
	struct profile *p = profile__new();
	uint64_t ips[DEPTH], hot;
	uint32_t locs[DEPTH];
	struct child c;
	double t0, dt;
	size_t i, j;

	assert_non_null(s);
	assert_non_null(p);
	spawn(&c, "symtest-pie");
	assert_int_equal(symbolizer__snapshot(s, c.pid), 0);
	finish(&c);
	hot = printed(&c, "hot_function");
	t0 = now();
	for (i = 0; i < FRAMES / DEPTH; i++) {
		for (j = 0; j < DEPTH; j++)
			ips[j] = hot + (i * 7 + j * 3) % 40;
		assert_int_equal(symbolizer__user_stack(s, p, c.pid, ips, DEPTH, locs), 0);
	}
	dt = now() - t0;
	print_message("%d frames in %.3f s\n", FRAMES, dt);
	assert_true(dt < 2.0);
	assert_true(p->nlocations <= 80);
	assert_int_equal(p->nmappings, 1);
	symbolizer__free(s);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_pie_before_and_after_exit),
		cmocka_unit_test(test_live_nopie),
		cmocka_unit_test(test_live_shared_library),
		cmocka_unit_test(test_live_stripped_uses_dynsym),
		cmocka_unit_test(test_unknown_pid_and_stray_addresses),
		cmocka_unit_test(test_user_frames_end_at_a_non_user_word),
		cmocka_unit_test(test_own_process_and_libc),
		cmocka_unit_test(test_a_life_that_ended_is_not_read),
		cmocka_unit_test(test_vdso_frame),
		cmocka_unit_test(test_fixture_tree_wrong_inode_deleted_and_pseudo),
		cmocka_unit_test(test_jit_map_read_after_exit),
		cmocka_unit_test(test_snapshots_accumulate_newest_wins),
		cmocka_unit_test(test_maps_hold_a_stack_in_what_was_read),
		cmocka_unit_test(test_live_deleted_binary_through_map_files),
		cmocka_unit_test(test_container_root_and_symlink_escape),
		cmocka_unit_test(test_kernel_frames_from_fixture),
		cmocka_unit_test(test_kernel_frames_with_hidden_addresses),
		cmocka_unit_test(test_many_frames_are_cheap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
