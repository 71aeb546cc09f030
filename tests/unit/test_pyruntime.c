// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_pyruntime.c - finding CPython in a mapped file: Debian's own
 * python3.11 (and the 3.12 and 3.13 builds of this machine, when there)
 * run, and what the probe says of the mapped file is checked against
 * what the running interpreter says of itself through ctypes: its
 * version, where _PyRuntime, the type objects and the eval loop are.
 * Hostile copies of the file (a symbol renamed, the debug offsets'
 * cookie broken, any truncation) are refused, never misread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trapd/symbolize/procmaps.h"
#include "trapd/symbolize/pyruntime.h"

#define PY311 "/usr/bin/python3.11"

/* What the interpreter says of itself. */
static const char truth_script[] =
	"import ctypes, sys\n"
	"a = lambda n: ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, n))\n"
	"e = ctypes.cast(ctypes.pythonapi._PyEval_EvalFrameDefault, ctypes.c_void_p).value\n"
	"print(sys.hexversion, a('_PyRuntime'), a('PyCode_Type'), a('PyUnicode_Type'),\n"
	"      a('PyBytes_Type'), e, flush=True)\n"
	"sys.stdin.read()\n";

struct truth {
	uint64_t version, runtime, code, unicode, bytes, eval;
};

struct running {
	pid_t pid;
	int to; /* its stdin: closing it ends it */
	struct truth t;
};

static bool start(const char *python, struct running *r)
{
	int in[2], out[2];
	FILE *f;
	int n;

	if (access(python, X_OK))
		return false;
	/* close-on-exec: the interpreter must not hold its own stdin open */
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(python, python, "-c", truth_script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	r->to = in[1];
	f = fdopen(out[0], "r");
	n = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &r->t.version, &r->t.runtime, &r->t.code, &r->t.unicode, &r->t.bytes,
		   &r->t.eval);
	fclose(f);
	assert_int_equal(n, 6);
	return true;
}

static void stop(struct running *r)
{
	close(r->to);
	waitpid(r->pid, NULL, 0);
}

/* probe_running - probe each executable mapping of @r whose file has
 * "python" in its name; the one that is an interpreter in @rt. */
static bool probe_running(const struct running *r, struct pyruntime *rt, char *file, size_t len)
{
	struct procmaps m = { 0 };
	char why[160];
	bool found = false;
	size_t i;

	assert_int_equal(procmaps__read("/proc", r->pid, PROCMAPS_EXEC_ONLY, &m), 0);
	for (i = 0; i < m.n && !found; i++) {
		const struct procmaps_entry *e = &m.entries[i];
		int fd, err;

		if (e->kind != PROCMAPS_FILE || !strstr(e->path, "python"))
			continue;
		fd = open(e->path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		err = pyruntime__probe(fd, e->start, e->offset, rt, why, sizeof(why));
		close(fd);
		if (err == -ENOENT)
			continue;
		if (err)
			fail_msg("%s: %s", e->path, why);
		snprintf(file, len, "%s", e->path);
		found = true;
	}
	procmaps__free(&m);
	return found;
}

static void check_interpreter(const char *python, uint32_t minor)
{
	struct running r;
	struct pyruntime rt;
	char file[4096], v[32];

	if (!start(python, &r)) {
		print_message("    %s: not installed here\n", python);
		return;
	}
	assert_true(probe_running(&r, &rt, file, sizeof(file)));
	stop(&r);
	print_message("    %s (%s): Python %s, _PyRuntime at 0x%" PRIx64 "\n", python, file,
		      pyruntime__version(rt.version, v, sizeof(v)), rt.runtime);
	assert_int_equal(rt.version, r.t.version);
	assert_int_equal((rt.version >> 16) & 0xff, minor);
	assert_int_equal(rt.runtime, r.t.runtime);
	assert_int_equal(rt.code_type, r.t.code);
	assert_int_equal(rt.unicode_type, r.t.unicode);
	assert_int_equal(rt.bytes_type, r.t.bytes);
	assert_int_equal(rt.eval_start, r.t.eval);
	assert_true(rt.eval_end > rt.eval_start);
}

static void test_debian_python311(void **state)
{
	(void)state;
	if (access(PY311, X_OK))
		skip();
	check_interpreter(PY311, 11);
}

static void test_other_versions(void **state)
{
	const char *home = getenv("HOME");
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/.pyenv/versions/3.12.1/bin/python3.12", home ? home : "/");
	check_interpreter(path, 12);
	snprintf(path, sizeof(path), "%s/.pyenv/versions/3.13.0/bin/python3.13", home ? home : "/");
	check_interpreter(path, 13);
}

static char *slurp(const char *path, size_t *size)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

/* rename_all - every "@from\0" in @buf becomes "@to\0" (same length). */
static int rename_all(char *buf, size_t size, const char *from, const char *to)
{
	size_t n = strlen(from) + 1;
	char *p = buf;
	int count = 0;

	while ((p = memmem(p, size - (size_t)(p - buf), from, n)) != NULL) {
		memcpy(p, to, n);
		count++;
	}
	return count;
}

static void test_hostile_copies_are_refused(void **state)
{
	struct pyruntime rt;
	char why[160], *img;
	size_t size, cut;
	int err;

	(void)state;
	img = slurp(PY311, &size);
	if (!img)
		skip();
	/* as mapped in a PIE process: its first page at 0x555555554000 */
	assert_int_equal(pyruntime__probe_mem(img, size, 0x555555554000ull, 0, &rt, why,
					      sizeof(why)),
			 0);
	assert_int_equal(rt.version >> 16, 0x030b);

	assert_true(rename_all(img, size, "Py_Version", "Py_Versiom") > 0);
	err = pyruntime__probe_mem(img, size, 0x555555554000ull, 0, &rt, why, sizeof(why));
	assert_int_equal(err, -ENOTSUP);
	assert_non_null(strstr(why, "before 3.11"));

	assert_true(rename_all(img, size, "_PyRuntime", "_PyRuntimx") > 0);
	err = pyruntime__probe_mem(img, size, 0x555555554000ull, 0, &rt, why, sizeof(why));
	assert_int_equal(err, -ENOENT);

	/* cut anywhere: refused or not an interpreter, never a crash */
	rename_all(img, size, "_PyRuntimx", "_PyRuntime");
	rename_all(img, size, "Py_Versiom", "Py_Version");
	for (cut = 0; cut < size; cut += 1 + cut / 3) {
		err = pyruntime__probe_mem(img, cut, 0x555555554000ull, 0, &rt, why, sizeof(why));
		assert_true(err < 0);
	}
	free(img);
}

static void test_broken_debug_offsets_are_refused(void **state)
{
	const char *home = getenv("HOME");
	struct pyruntime rt;
	char path[512], why[160], *img, *cookie;
	size_t size;

	(void)state;
	snprintf(path, sizeof(path), "%s/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0",
		 home ? home : "/");
	img = slurp(path, &size);
	if (!img) {
		print_message("    %s: not installed here\n", path);
		return;
	}
	assert_int_equal(pyruntime__probe_mem(img, size, 0x7f0000000000ull, 0, &rt, why,
					      sizeof(why)),
			 0);
	assert_int_equal(rt.layout.cframe_frame, PYRUNTIME_ABSENT);
	/* every copy of the cookie: the string is in .rodata too */
	for (cookie = img; (cookie = memmem(cookie, size - (size_t)(cookie - img), "xdebugpy", 8));)
		cookie[0] = 'y';
	assert_int_equal(pyruntime__probe_mem(img, size, 0x7f0000000000ull, 0, &rt, why,
					      sizeof(why)),
			 -ENOTSUP);
	assert_non_null(strstr(why, "debug offsets"));
	free(img);
}

/* The fuzz corpus's seeds (tests/fuzz/elf-seeds/tiny-python.c): made to be
 * accepted, so the fuzzer starts from inputs that reach every check. */
static void test_fuzz_seeds_are_interpreters(void **state)
{
	static const struct {
		const char *file;
		uint32_t version;
		uint16_t ts_frame;
	} seeds[] = {
		{ "tests/fuzz/corpus/pyruntime/libpython3.11-tiny.so", 0x030b02f0, 0x38 },
		{ "tests/fuzz/corpus/pyruntime/libpython3.13-tiny.so", 0x030d02f0, 0x48 },
	};
	struct pyruntime rt;
	char why[160], *img;
	size_t i, size;

	(void)state;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		img = slurp(seeds[i].file, &size);
		assert_non_null(img);
		if (pyruntime__probe_mem(img, size, 0x7f0000000000ull, 0, &rt, why, sizeof(why)))
			fail_msg("%s: %s", seeds[i].file, why);
		assert_int_equal(rt.version, seeds[i].version);
		assert_int_equal(rt.layout.ts_frame, seeds[i].ts_frame);
		assert_int_equal(rt.runtime & 0xffff000000000000ull, 0);
		assert_true(rt.runtime > 0x7f0000000000ull);
		free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_python311),
		cmocka_unit_test(test_other_versions),
		cmocka_unit_test(test_hostile_copies_are_refused),
		cmocka_unit_test(test_broken_debug_offsets_are_refused),
		cmocka_unit_test(test_fuzz_seeds_are_interpreters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
