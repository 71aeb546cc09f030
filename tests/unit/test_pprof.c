// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_pprof.c - pprof encoding and decoding: full round trips, `go tool
 * pprof` as the reference reader, a profile written by Go itself, and
 * hand-made encodings for every way an input can be malformed.
 *
 * The Go checks need the Go toolchain; without it they are skipped, or
 * fail when CI=true. The Go-written profile is tests/data/go-cpu.pb.gz
 * (made by tests/data/make-go-profile.sh), found through TRAPD_TESTDATA
 * (default: tests/data, relative to the repository root).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/profile_diff.h"
#include "trapd/profile/pb.h"
#include "trapd/profile/pprof.h"
#include "trapd/profile/profile.h"

#define PERIOD_NS 10101010
/* The first Go release whose pprof counts samples without a location in
 * its -tags report (1.19.8 leaves them out; 1.20.14 to 1.26.8 count them,
 * each tried with GOTOOLCHAIN). */
#define GO_TAGS_STACKLESS 20

/* --- a profile with every feature trapd writes --- */

static uint32_t str(struct profile *p, const char *s)
{
	int64_t idx = profile__string(p, s);

	assert_true(idx >= 0);
	return (uint32_t)idx;
}

static uint32_t mapping(struct profile *p, uint64_t start, uint64_t limit, uint64_t off,
			const char *file, const char *build_id, bool has_functions)
{
	struct profile_mapping m = {
		.start = start,
		.limit = limit,
		.file_offset = off,
		.filename = str(p, file),
		.build_id = build_id ? str(p, build_id) : 0,
		.has_functions = has_functions,
	};
	int64_t id = profile__add_mapping(p, &m);

	assert_true(id > 0);
	return (uint32_t)id;
}

static uint32_t function(struct profile *p, const char *name, const char *sys, const char *file)
{
	int64_t id = profile__add_function(p, str(p, name), str(p, sys), str(p, file));

	assert_true(id > 0);
	return (uint32_t)id;
}

static uint32_t location(struct profile *p, uint32_t map, uint64_t addr, uint32_t fn)
{
	int64_t id = profile__add_location(p, map, addr, fn);

	assert_true(id > 0);
	return (uint32_t)id;
}

static void sample(struct profile *p, const uint32_t *locs, uint32_t n, int64_t count, int64_t pid,
		   int64_t tid, const char *comm, const char *cgroup)
{
	struct profile_sample s = {
		.count = count,
		.pid = pid,
		.tid = tid,
		.comm = str(p, comm),
		.cgroup = cgroup ? str(p, cgroup) : 0,
	};

	assert_int_equal(profile__add_sample(p, locs, n, &s), 0);
}

/* build_profile - three mappings with build IDs (kernel, program, libc),
 * resolved locations, unresolved ones with and without a mapping, labels,
 * comments, period and time. */
static struct profile *build_profile(void)
{
	struct profile *p = profile__new();
	uint32_t kmap, app, libc, f_burn, f_main, f_start, f_sched, l[6];

	assert_non_null(p);
	kmap = mapping(p, 0xffffffff81000000ull, 0xffffffff83000000ull, 0, PROFILE_KERNEL_MAPPING,
		       "4b8a1c0d9e7f6a5b4c3d2e1f00112233", true);
	app = mapping(p, 0x555555554000ull, 0x555555600000ull, 0x1000, "/usr/bin/app",
		      "deadbeefcafef00d0123456789abcdef01234567", true);
	libc = mapping(p, 0x7f1234500000ull, 0x7f1234700000ull, 0x28000,
		       "/usr/lib/x86_64-linux-gnu/libc.so.6", "0123abcd", false);
	f_burn = function(p, "burn", "_Z4burnv", "/usr/bin/app");
	f_main = function(p, "main", "main", "/usr/bin/app");
	f_start = function(p, "__libc_start_call_main", "__libc_start_call_main",
			   "/usr/lib/x86_64-linux-gnu/libc.so.6");
	f_sched = function(p, "schedule", "schedule", PROFILE_KERNEL_MAPPING);
	l[0] = location(p, app, 0x555555555130ull, f_burn);
	l[1] = location(p, app, 0x555555555200ull, f_main);
	l[2] = location(p, libc, 0x7f1234529d90ull, f_start);
	l[3] = location(p, app, 0x555555556000ull, 0); /* unresolved, mapped */
	l[4] = location(p, 0, 0x1234, 0);	       /* unresolved, no mapping */
	l[5] = location(p, kmap, 0xffffffff81001000ull, f_sched);
	sample(p, (uint32_t[]){ l[0], l[1], l[2] }, 3, 7, 1234, 1235, "app",
	       "/system.slice/app.service");
	sample(p, (uint32_t[]){ l[3], l[1], l[2] }, 3, 2, 1234, 1234, "app", NULL);
	sample(p, (uint32_t[]){ l[5], l[0], l[1] }, 3, 3, 42, 43, "worker", "/user.slice");
	sample(p, (uint32_t[]){ l[4] }, 1, 1, 7, 7, "app", NULL);
	sample(p, NULL, 0, 5, 0, 0, "swapper/0", NULL);
	assert_int_equal(profile__add_comment(p, "trapd test"), 0);
	assert_int_equal(profile__add_comment(p, "trigger: cpu > 90%"), 0);
	p->period_ns = PERIOD_NS;
	p->time_ns = 1700000000123456789ll;
	p->duration_ns = 5000000000ll;
	return p;
}

static struct profile *round_trip(const struct profile *p)
{
	struct profile *q = NULL;
	char err[256];
	void *buf = NULL;
	size_t len = 0;

	assert_int_equal(pprof_encode(p, &buf, &len), 0);
	assert_int_equal(pprof_decode(buf, len, &q, err, sizeof(err)), 0);
	free(buf);
	return q;
}

static void test_round_trip_keeps_every_field(void **state)
{
	struct profile *p = build_profile(), *q = round_trip(p);
	char why[128] = "";
	uint32_t i;

	assert_false(profile_diff(p, q, why, sizeof(why)));
	/* Beyond profile_diff: the string table keeps its order. */
	assert_true(q->nstrings >= p->nstrings);
	for (i = 0; i < p->nstrings; i++)
		assert_string_equal(profile__str(p, i), profile__str(q, i));
	/* A few fields spelt out, so a bug in profile_diff cannot hide one. */
	assert_int_equal(q->nmappings, 3);
	assert_string_equal(profile__str(q, q->mappings[1].build_id),
			    "deadbeefcafef00d0123456789abcdef01234567");
	assert_true(q->mappings[0].start == 0xffffffff81000000ull);
	assert_int_equal(q->mappings[1].file_offset, 0x1000);
	assert_false(q->mappings[2].has_functions);
	assert_int_equal(q->locations[4].mapping, 0);
	assert_int_equal(q->locations[3].function, 0);
	assert_string_equal(profile__str(q, q->functions[0].system_name), "_Z4burnv");
	assert_int_equal(q->samples[0].tid, 1235);
	assert_string_equal(profile__str(q, q->samples[2].cgroup), "/user.slice");
	assert_int_equal(q->samples[4].nlocs, 0);
	assert_int_equal(profile__total(q), 18);
	assert_string_equal(profile__str(q, q->comments[1]), "trigger: cpu > 90%");
	assert_int_equal(q->time_ns, 1700000000123456789ll);
	profile__free(p);
	profile__free(q);
}

static void test_negative_and_huge_values_round_trip(void **state)
{
	struct profile *p = profile__new(), *q;
	uint32_t loc;
	char why[128];

	assert_non_null(p);
	loc = location(p, 0, UINT64_MAX, 0);
	sample(p, &loc, 1, -5, -1, INT64_MIN, "neg", NULL);
	/* count * period overflows: value[1] saturates, the count survives. */
	sample(p, &loc, 1, INT64_MAX, INT64_MAX, 0, "big", NULL);
	p->period_ns = 1000;
	p->time_ns = -1;
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	profile__free(p);
	profile__free(q);
}

static void test_empty_profile_round_trips(void **state)
{
	struct profile *p = profile__new(), *q;
	char why[128];

	assert_non_null(p);
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	assert_int_equal(q->nsamples, 0);
	profile__free(p);
	profile__free(q);
}

static void test_profile_of_empty_stacks_round_trips(void **state)
{
	struct profile *p = profile__new(), *q;
	char why[128];

	/* No location at all: the profile never allocates its stack array. */
	assert_non_null(p);
	sample(p, NULL, 0, 3, 1, 1, "idle", NULL);
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	assert_int_equal(q->samples[0].count, 3);
	profile__free(p);
	profile__free(q);
}

static void test_empty_input_is_an_empty_profile(void **state)
{
	struct profile *q = NULL;
	char err[64];

	assert_int_equal(pprof_decode(NULL, 0, &q, err, sizeof(err)), 0);
	assert_non_null(q);
	assert_int_equal(q->nstrings, 1);
	assert_int_equal(q->nsamples, 0);
	profile__free(q);
}

/* --- run labels --- */

/* set_runs - runs 1, 2, 3, 0 (not recorded) and 2 on build_profile's
 * five samples. */
static void set_runs(struct profile *p)
{
	static const int64_t runs[] = { 1, 2, 3, 0, 2 };
	size_t i;

	assert_int_equal(p->nsamples, 5);
	for (i = 0; i < p->nsamples; i++)
		p->samples[i].run = runs[i];
}

static void test_run_labels_round_trip(void **state)
{
	struct profile *p = build_profile(), *q;
	char why[128];
	size_t i;

	set_runs(p);
	p->samples[1].run = -3; /* not written by trapd, but kept as read */
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	for (i = 0; i < p->nsamples; i++)
		assert_int_equal(q->samples[i].run, p->samples[i].run);
	profile__free(p);
	profile__free(q);
}

/* small_profile - one of each thing, small enough to spell out its
 * encoding. */
static struct profile *small_profile(void)
{
	struct profile *p = profile__new();
	uint32_t map, fn, loc;

	assert_non_null(p);
	map = mapping(p, 0x400000, 0x500000, 0x1000, "/bin/x", "abcd", true);
	fn = function(p, "f", "_Z1fv", "/bin/x");
	loc = location(p, map, 0x401000, fn);
	sample(p, &loc, 1, 3, 10, 11, "x", "/x.slice");
	sample(p, NULL, 0, 1, 0, 0, "idle", NULL);
	assert_int_equal(profile__add_comment(p, "c"), 0);
	p->period_ns = 1000;
	p->time_ns = 5;
	p->duration_ns = 7;
	return p;
}

/* What small_profile encoded to before samples had runs: a profile
 * without runs must keep encoding to exactly these bytes (no "run" in its
 * string table, no run label). */
static const uint8_t small_profile_pb[] = {
	0x0a, 0x04, 0x08, 0x09, 0x10, 0x0a, 0x0a, 0x04, 0x08, 0x0b, 0x10, 0x0c, 0x12, 0x20, 0x0a,
	0x01, 0x01, 0x12, 0x03, 0x03, 0xb8, 0x17, 0x1a, 0x04, 0x08, 0x0d, 0x18, 0x0a, 0x1a, 0x04,
	0x08, 0x0e, 0x18, 0x0b, 0x1a, 0x04, 0x08, 0x0f, 0x10, 0x05, 0x1a, 0x04, 0x08, 0x10, 0x10,
	0x06, 0x12, 0x13, 0x12, 0x03, 0x01, 0xe8, 0x07, 0x1a, 0x02, 0x08, 0x0d, 0x1a, 0x02, 0x08,
	0x0e, 0x1a, 0x04, 0x08, 0x0f, 0x10, 0x07, 0x1a, 0x15, 0x08, 0x01, 0x10, 0x80, 0x80, 0x80,
	0x02, 0x18, 0x80, 0x80, 0xc0, 0x02, 0x20, 0x80, 0x20, 0x28, 0x01, 0x30, 0x02, 0x38, 0x01,
	0x22, 0x0d, 0x08, 0x01, 0x10, 0x01, 0x18, 0x80, 0xa0, 0x80, 0x02, 0x22, 0x02, 0x08, 0x01,
	0x2a, 0x08, 0x08, 0x01, 0x10, 0x04, 0x18, 0x03, 0x20, 0x01, 0x32, 0x00, 0x32, 0x06, 0x2f,
	0x62, 0x69, 0x6e, 0x2f, 0x78, 0x32, 0x04, 0x61, 0x62, 0x63, 0x64, 0x32, 0x05, 0x5f, 0x5a,
	0x31, 0x66, 0x76, 0x32, 0x01, 0x66, 0x32, 0x01, 0x78, 0x32, 0x08, 0x2f, 0x78, 0x2e, 0x73,
	0x6c, 0x69, 0x63, 0x65, 0x32, 0x04, 0x69, 0x64, 0x6c, 0x65, 0x32, 0x01, 0x63, 0x32, 0x07,
	0x73, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x73, 0x32, 0x05, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x32,
	0x03, 0x63, 0x70, 0x75, 0x32, 0x0b, 0x6e, 0x61, 0x6e, 0x6f, 0x73, 0x65, 0x63, 0x6f, 0x6e,
	0x64, 0x73, 0x32, 0x03, 0x70, 0x69, 0x64, 0x32, 0x03, 0x74, 0x69, 0x64, 0x32, 0x04, 0x63,
	0x6f, 0x6d, 0x6d, 0x32, 0x06, 0x63, 0x67, 0x72, 0x6f, 0x75, 0x70, 0x48, 0x05, 0x50, 0x07,
	0x5a, 0x04, 0x08, 0x0b, 0x10, 0x0c, 0x60, 0xe8, 0x07, 0x6a, 0x01, 0x08,
};

static void test_profile_without_runs_encodes_as_before(void **state)
{
	struct profile *p = small_profile(), *q;
	void *buf = NULL;
	size_t len;

	assert_int_equal(pprof_encode(p, &buf, &len), 0);
	assert_int_equal(len, sizeof(small_profile_pb));
	assert_memory_equal(buf, small_profile_pb, len);
	free(buf);
	/* One run makes the encoder add "run" to the string table. */
	p->samples[0].run = 2;
	q = round_trip(p);
	assert_int_equal(q->nstrings, p->nstrings + 9);
	assert_string_equal(profile__str(q, q->nstrings - 1), "run");
	assert_int_equal(q->samples[0].run, 2);
	assert_int_equal(q->samples[1].run, 0);
	profile__free(p);
	profile__free(q);
}

/* --- go tool pprof, the reference reader --- */

/* go_minor - the minor release of the `go` on PATH (26 for go1.26.8),
 * printed once so that a failure names the reader it ran; 0 when `go
 * version` says something else. */
static int go_minor(void)
{
	static int minor = -1;
	char line[256] = "";
	FILE *f;

	if (minor >= 0)
		return minor;
	minor = 0;
	f = popen("go version 2>&1", "r");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			const char *v = strstr(line, "go1.");

			if (v)
				minor = (int)strtol(v + 4, NULL, 10);
		}
		pclose(f);
	}
	print_message("[ go       ] %s", line[0] ? line : "go version printed nothing\n");
	return minor;
}

static bool go_available(void)
{
	if (system("command -v go >/dev/null 2>&1") == 0) {
		go_minor();
		return true;
	}
	if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
		fail_msg("the Go toolchain is needed (CI=true)");
	return false;
}

static void write_gzip(const char *path, const void *buf, size_t len)
{
	gzFile gz = gzopen(path, "wb");

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, buf, (unsigned)len), (int)len);
	assert_int_equal(gzclose(gz), Z_OK);
}

/* run_pprof - `go tool pprof @args @path`; returns its output (malloc'd)
 * after asserting it exited 0. */
static char *run_pprof(const char *args, const char *path)
{
	char cmd[512], *out = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;
	int status;

	snprintf(cmd, sizeof(cmd), "go tool pprof %s '%s' 2>&1", args, path);
	f = popen(cmd, "r");
	assert_non_null(f);
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		n = fread(out + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	status = pclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s failed:\n%s", cmd, out);
	return out;
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("\"%s\" not found in:\n%s", needle, haystack);
}

/* assert_line_has - some line of @out holds each of the NULL-ended @parts,
 * in order. pprof's releases differ in what stands between the fields of
 * a line (Go 1.19 prints a location as "file:line", Go 1.26 as
 * "file:line:column"), not in the fields. */
static void assert_line_has(const char *out, const char *const *parts)
{
	const char *line = out;

	while (*line) {
		const char *end = strchrnul(line, '\n'), *at = line;
		size_t i;

		for (i = 0; parts[i]; i++) {
			at = memmem(at, (size_t)(end - at), parts[i], strlen(parts[i]));
			if (!at)
				break;
			at += strlen(parts[i]);
		}
		if (!parts[i])
			return;
		line = *end ? end + 1 : end;
	}
	fail_msg("no line holds \"%s\"... in order in:\n%s", parts[0], out);
}

/* pprof_ns - the duration pprof printed at @s ("3ms", "3.0ms", "181.82ms",
 * "1.5s", "20us"), in nanoseconds; -1 when it is none. Releases differ in
 * how many digits they print, not in the value. */
static double pprof_ns(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 },  { "us", 1e3 },    { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
		      { "s", 1e9 }, { "mins", 60e9 }, { "hrs", 3600e9 } };
	char *end;
	double v = strtod(s, &end);
	size_t i;

	if (end == s)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].unit);

		if (strncmp(end, units[i].unit, n) == 0 && !isalpha((unsigned char)end[n]))
			return v * units[i].ns;
	}
	return -1;
}

/* assert_ns_near - @got (as printed, at most 4 significant digits) is
 * @want_ns to within the printed precision. */
static void assert_ns_near(double got, double want_ns, const char *what)
{
	if (got < 0 || got < want_ns * 0.995 || got > want_ns * 1.005)
		fail_msg("%s: %.0f ns printed, %.0f ns expected", what, got, want_ns);
}

/* tag_ns - the total pprof -tags printed for @value ("  3.0ms (60.00%):
 * sleeping"): the duration at the start of the line that ends with
 * ": @value". */
static double tag_ns(const char *out, const char *value)
{
	const char *line = out;

	while (*line) {
		const char *end = strchrnul(line, '\n'), *colon;
		size_t n = strlen(value);

		colon = end - n - 2 >= line ? end - n - 2 : NULL;
		if (colon && colon[0] == ':' && colon[1] == ' ' && !memcmp(colon + 2, value, n)) {
			while (*line == ' ' || *line == '\t')
				line++;
			return pprof_ns(line);
		}
		line = *end ? end + 1 : end;
	}
	fail_msg("pprof -tags shows no \"%s\":\n%s", value, out);
	return -1;
}

/* after_ns - the duration printed right after @label in @out ("Total
 * samples = " or "call: Total "). */
static double after_ns(const char *out, const char *label)
{
	const char *at = strstr(out, label);

	if (!at)
		fail_msg("\"%s\" not found in:\n%s", label, out);
	return pprof_ns(at + strlen(label));
}

/* encode_to_tmp - @p's encoding, gzip'd into a new directory @dir (a
 * mkdtemp template); the file's path in @path. */
static void encode_to_tmp(const struct profile *p, char *dir, char *path, size_t len)
{
	void *buf = NULL;
	size_t n;

	assert_int_equal(pprof_encode(p, &buf, &n), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(path, len, "%s/test.pb.gz", dir);
	write_gzip(path, buf, n);
	free(buf);
}

/* remove_tmp - what encode_to_tmp made. */
static void remove_tmp(const char *dir, const char *path)
{
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_go_tool_pprof_reads_our_encoding(void **state)
{
	char dir[] = "/tmp/trapd-test-pprof-XXXXXX", path[128], line[64], *out;
	struct profile *p;

	if (!go_available())
		skip();
	p = build_profile();
	encode_to_tmp(p, dir, path, sizeof(path));

	out = run_pprof("-raw -symbolize=none", path);
	assert_contains(out, "Comment: trapd test");
	assert_contains(out, "Comment: trigger: cpu > 90%");
	assert_contains(out, "PeriodType: cpu nanoseconds");
	assert_contains(out, "Period: 10101010");
	assert_contains(out, "samples/count cpu/nanoseconds");
	snprintf(line, sizeof(line), " %10d %10d: ", 7, 7 * PERIOD_NS);
	assert_contains(out, line);
	assert_contains(out, "cgroup:[/system.slice/app.service] comm:[app]");
	assert_contains(out, "pid:[1234] tid:[1235]");
	assert_contains(out, "comm:[worker]");
	/* burn, in /usr/bin/app at line 0, its symbol _Z4burnv */
	assert_line_has(out, (const char *[]){ " burn /usr/bin/app:0", " s=0(_Z4burnv)", NULL });
	assert_contains(out, "__libc_start_call_main");
	assert_contains(out, "schedule");
	assert_contains(out, "/usr/bin/app deadbeefcafef00d0123456789abcdef01234567 [FN]");
	free(out);

	out = run_pprof("-top -symbolize=none", path);
	assert_ns_near(after_ns(out, "Total samples = "), 18.0 * PERIOD_NS, "-top's total");
	assert_contains(out, "burn");
	free(out);

	out = run_pprof("-traces -symbolize=none -tagfocus=comm=worker", path);
	assert_contains(out, "schedule");
	assert_contains(out, "pid:  42");
	free(out);

	profile__free(p);
	remove_tmp(dir, path);
}

/* add_off_cpu - two off-CPU samples on @p's first stack: 3 ms sleeping
 * and 2 ms waiting for I/O. */
static void add_off_cpu(struct profile *p)
{
	struct profile_sample s = { .pid = 1234, .tid = 1236, .offcpu_ns = 3000000 };
	const uint32_t *locs = profile__sample_locs(p, &p->samples[0]);
	uint32_t n = p->samples[0].nlocs;

	s.comm = (uint32_t)profile__string(p, "app");
	s.state = (uint32_t)profile__string(p, "sleeping");
	assert_int_equal(profile__add_sample(p, locs, n, &s), 0);
	s.offcpu_ns = 2000000;
	s.state = (uint32_t)profile__string(p, "uninterruptible");
	assert_int_equal(profile__add_sample(p, locs, n, &s), 0);
}

static void test_off_cpu_samples_round_trip(void **state)
{
	struct profile *p = build_profile(), *q;
	char why[128];

	add_off_cpu(p);
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	assert_int_equal(q->samples[q->nsamples - 1].offcpu_ns, 2000000);
	assert_string_equal(profile__str(q, q->samples[q->nsamples - 1].state), "uninterruptible");
	assert_int_equal(q->samples[0].offcpu_ns, 0);
	assert_int_equal(q->samples[0].state, 0);
	profile__free(p);
	profile__free(q);
}

/* An off_cpu value is found by its sample type's name, wherever it is;
 * the first value stays the count. */
static void test_off_cpu_value_is_found_by_its_type(void **state)
{
	/* sample_type off_cpu/ns then samples/count; one sample [5ms, 2] */
	static const uint8_t pb[] = {
		0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, /* sample_type off_cpu nanoseconds */
		0x0a, 0x04, 0x08, 0x03, 0x10, 0x04, /* sample_type samples count */
		0x12, 0x06, 0x12, 0x04, 0xc0, 0x96, 0xb1, 0x02, /* value [5000000] */
		0x32, 0x00, 0x32, 0x07, 'o',  'f',  'f',  '_',	'c', 'p', 'u',	0x32, 0x0b, 'n',
		'a',  'n',  'o',  's',	'e',  'c',  'o',  'n',	'd', 's', 0x32, 0x07, 's',  'a',
		'm',  'p',  'l',  'e',	's',  0x32, 0x05, 'c',	'o', 'u', 'n',	't',
	};
	struct profile *q = NULL;
	char err[256];

	assert_int_equal(pprof_decode(pb, sizeof(pb), &q, err, sizeof(err)), 0);
	assert_int_equal(q->nsamples, 1);
	assert_int_equal(q->samples[0].offcpu_ns, 5000000);
	assert_int_equal(q->samples[0].count, 0);
	profile__free(q);
}

static void test_go_tool_pprof_reads_off_cpu(void **state)
{
	char dir[] = "/tmp/trapd-test-pprof-XXXXXX", path[128], *out;
	struct profile *p;

	if (!go_available())
		skip();
	p = build_profile();
	add_off_cpu(p);
	encode_to_tmp(p, dir, path, sizeof(path));

	out = run_pprof("-raw -symbolize=none", path);
	/* cpu stays what pprof tools show unasked */
	assert_contains(out, "samples/count cpu/nanoseconds[dflt] off_cpu/nanoseconds");
	assert_contains(out, "state:[uninterruptible]");
	free(out);
	out = run_pprof("-top -symbolize=none -sample_index=off_cpu", path);
	assert_contains(out, "Type: off_cpu");
	assert_ns_near(after_ns(out, "Total samples = "), 5e6, "-top's off-CPU total");
	free(out);
	out = run_pprof("-tags -symbolize=none -sample_index=off_cpu", path);
	assert_ns_near(tag_ns(out, "sleeping"), 3e6, "state sleeping");
	assert_ns_near(tag_ns(out, "uninterruptible"), 2e6, "state uninterruptible");
	assert_contains(out, "(60.00%): sleeping");
	free(out);

	profile__free(p);
	remove_tmp(dir, path);
}

/* label_calls - the samples of @p taken inside calls: the first slow, the
 * second fast; the rest outside. */
static void label_calls(struct profile *p)
{
	uint32_t slow = (uint32_t)profile__string(p, "slow");
	size_t i;

	p->samples[0].call = slow;
	p->samples[1].call = (uint32_t)profile__string(p, "fast");
	for (i = 2; i < p->nsamples; i++)
		p->samples[i].call = (uint32_t)profile__string(p, "outside");
}

static void test_call_labels_round_trip(void **state)
{
	struct profile *p = build_profile(), *q;
	char why[128];
	void *plain = NULL, *labelled = NULL;
	size_t plain_len = 0, labelled_len = 0;

	/* no call label: no "call" string either (a string table entry:
	 * field 6, length 4) */
	assert_int_equal(pprof_encode(p, &plain, &plain_len), 0);
	assert_null(memmem(plain, plain_len,
			   "\x32\x04"
			   "call",
			   6));
	label_calls(p);
	assert_int_equal(pprof_encode(p, &labelled, &labelled_len), 0);
	assert_true(labelled_len > plain_len);
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	assert_string_equal(profile__str(q, q->samples[0].call), "slow");
	assert_string_equal(profile__str(q, q->samples[1].call), "fast");
	assert_string_equal(profile__str(q, q->samples[2].call), "outside");
	free(plain);
	free(labelled);
	profile__free(p);
	profile__free(q);
}

static void test_go_tool_pprof_filters_by_call(void **state)
{
	char dir[] = "/tmp/trapd-test-pprof-XXXXXX", path[128], *out;
	struct profile *p;
	double outside;

	if (!go_available())
		skip();
	p = build_profile();
	label_calls(p);
	encode_to_tmp(p, dir, path, sizeof(path));
	/* Every sample carries its label, the one without a stack (5
	 * periods, swapper) too: outside is 3 + 1 + 5 periods. pprof before
	 * Go 1.20 (GO_TAGS_STACKLESS) leaves samples without a location out of
	 * its -tags report, which sees 3 + 1 of outside; -top and -raw of
	 * those releases count the stackless one as any other. */
	out = run_pprof("-tags -symbolize=none", path);
	assert_ns_near(tag_ns(out, "slow"), 7.0 * PERIOD_NS, "call slow");
	assert_ns_near(tag_ns(out, "fast"), 2.0 * PERIOD_NS, "call fast");
	outside = go_minor() >= GO_TAGS_STACKLESS ? 9 : 4;
	assert_ns_near(tag_ns(out, "outside"), outside * PERIOD_NS, "call outside");
	assert_ns_near(after_ns(out, "call: Total "), (7 + 2 + outside) * PERIOD_NS,
		       "call's total");
	free(out);
	/* the slow sample is burn <- main <- __libc_start_call_main */
	out = run_pprof("-top -symbolize=none -tagfocus=call=slow", path);
	assert_contains(out, "burn");
	assert_null(strstr(out, "schedule"));
	free(out);
	profile__free(p);
	remove_tmp(dir, path);
}

static void test_go_tool_pprof_shows_run_labels(void **state)
{
	char dir[] = "/tmp/trapd-test-pprof-XXXXXX", path[128], *out;
	struct profile *p;

	if (!go_available())
		skip();
	p = build_profile();
	set_runs(p);
	encode_to_tmp(p, dir, path, sizeof(path));

	out = run_pprof("-raw -symbolize=none", path);
	assert_contains(out, "pid:[1234] run:[1] tid:[1235]");
	assert_contains(out, "run:[2]");
	assert_contains(out, "pid:[42] run:[3] tid:[43]");
	/* The sample without a run has no run label. */
	assert_contains(out, "pid:[7] tid:[7]");
	free(out);

	out = run_pprof("-traces -symbolize=none -tagfocus=run=3", path);
	assert_contains(out, "run:  3");
	assert_contains(out, "pid:  42");
	assert_null(strstr(out, "pid:  1234"));
	free(out);

	profile__free(p);
	remove_tmp(dir, path);
}

/* --- a profile written by Go's runtime/pprof --- */

static void *read_gzip(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 20;
	char *buf;
	int n;

	if (!gz)
		fail_msg("cannot open %s (run from the repository root or set TRAPD_TESTDATA)",
			 path);
	buf = malloc(cap);
	assert_non_null(buf);
	n = gzread(gz, buf, (unsigned)cap);
	assert_true(n > 0 && (size_t)n < cap);
	gzclose(gz);
	*len = (size_t)n;
	return buf;
}

static const char *testdata(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("TRAPD_TESTDATA");

	snprintf(buf, len, "%s/%s", dir ? dir : "tests/data", name);
	return buf;
}

static uint32_t function_named(const struct profile *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->nfunctions; i++)
		if (strcmp(profile__str(p, p->functions[i].name), name) == 0)
			return i + 1;
	return 0;
}

static void test_decodes_go_written_cpu_profile(void **state)
{
	struct profile *p = NULL, *q;
	char path[256], err[256], why[128];
	uint32_t burn;
	int64_t leaf_burn = 0;
	size_t len, i;
	void *buf;

	buf = read_gzip(testdata("go-cpu.pb.gz", path, sizeof(path)), &len);
	if (pprof_decode(buf, len, &p, err, sizeof(err)))
		fail_msg("decoding %s: %s", path, err);
	free(buf);
	assert_int_equal(p->period_ns, 10000000);
	assert_true(p->duration_ns > 0);
	burn = function_named(p, "main.burn");
	assert_true(burn > 0);
	assert_true(function_named(p, "main.work") > 0);
	assert_true(function_named(p, "main.main") > 0);
	assert_true(function_named(p, "runtime.main") > 0);
	for (i = 0; i < p->nsamples; i++) {
		const uint32_t *locs = profile__sample_locs(p, &p->samples[i]);

		if (p->samples[i].nlocs && p->locations[locs[0] - 1].function == burn)
			leaf_burn += p->samples[i].count;
	}
	/* ~400 ms at 100 Hz, nearly all of it in main.burn. */
	assert_true(profile__total(p) >= 20);
	assert_true(leaf_burn * 2 > profile__total(p));
	assert_true(p->nmappings >= 1);
	assert_non_null(strstr(profile__str(p, p->mappings[0].filename), "go-cpu"));
	q = round_trip(p);
	if (profile_diff(p, q, why, sizeof(why)))
		fail_msg("re-encoded Go profile differs: %s", why);
	profile__free(p);
	profile__free(q);
}

/* --- hand-made encodings --- */

/* put_strings - the string table: @n strings. */
static void put_strings(struct pb_buf *b, const char *const *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pb_put_string(b, 6, s[i]);
}

static void put_function(struct pb_buf *b, uint64_t id, uint64_t name)
{
	size_t m = pb_msg_begin(b, 5);

	pb_put_uint(b, 1, id);
	pb_put_uint(b, 2, name);
	pb_msg_end(b, m);
}

static void put_mapping(struct pb_buf *b, uint64_t id, uint64_t filename)
{
	size_t m = pb_msg_begin(b, 3);

	pb_put_uint(b, 1, id);
	pb_put_uint(b, 5, filename);
	pb_msg_end(b, m);
}

/* put_location - a location with one line per function id in @fns. */
static void put_location(struct pb_buf *b, uint64_t id, uint64_t map, const uint64_t *fns, size_t n)
{
	size_t m = pb_msg_begin(b, 4), line, i;

	pb_put_uint(b, 1, id);
	if (map)
		pb_put_uint(b, 2, map);
	pb_put_uint(b, 3, 0x1000 + id);
	for (i = 0; i < n; i++) {
		line = pb_msg_begin(b, 4);
		pb_put_uint(b, 1, fns[i]);
		pb_put_uint(b, 2, 10 + i);
		pb_msg_end(b, line);
	}
	pb_msg_end(b, m);
}

/* put_sample - a sample; location ids written unpacked. */
static void put_sample(struct pb_buf *b, const uint64_t *locs, size_t n, int64_t value)
{
	size_t m = pb_msg_begin(b, 2), i;

	for (i = 0; i < n; i++)
		pb_put_uint(b, 1, locs[i]);
	pb_put_uint(b, 2, (uint64_t)value);
	pb_msg_end(b, m);
}

/* decode_fails - decoding @b must fail with @want and a message holding
 * @needle that starts with "byte ". */
static void decode_fails(struct pb_buf *b, int want, const char *needle)
{
	struct profile *p = (struct profile *)1;
	char err[256] = "";

	assert_int_equal(pb_buf_error(b), 0);
	assert_int_equal(pprof_decode(b->data, b->len, &p, err, sizeof(err)), want);
	assert_null(p);
	assert_true(strncmp(err, "byte ", 5) == 0);
	assert_contains(err, needle);
	pb_buf_free(b);
}

static struct profile *decode_ok(struct pb_buf *b)
{
	struct profile *p = NULL;
	char err[256] = "";

	assert_int_equal(pb_buf_error(b), 0);
	if (pprof_decode(b->data, b->len, &p, err, sizeof(err)))
		fail_msg("decode failed: %s", err);
	pb_buf_free(b);
	return p;
}

static const char *const strings5[] = { "", "f", "g", "/bin/x", "unused" };

static void test_sparse_ids_in_any_order_resolve(void **state)
{
	static const uint64_t fg[] = { 1000 }, fh[] = { 5 }, packed[] = { 3, 77, 3 };
	struct pb_buf b;
	struct profile *p;
	const uint32_t *locs;
	size_t m;

	pb_buf_init(&b, 1 << 20);
	/* Samples first, then locations, functions, mappings, strings. */
	put_sample(&b, (uint64_t[]){ 77, 3 }, 2, 4);
	m = pb_msg_begin(&b, 2);
	pb_put_packed_u64(&b, 1, packed, 2);
	pb_put_packed_u64(&b, 1, packed + 2, 1); /* a second packed run */
	pb_put_packed_u64(&b, 2, (uint64_t[]){ 6, 600 }, 2);
	pb_msg_end(&b, m);
	put_location(&b, 77, 9999, fg, 1);
	put_location(&b, 3, 0, fh, 1);
	put_function(&b, 1000, 1);
	put_function(&b, 5, 2);
	put_mapping(&b, 9999, 3);
	put_strings(&b, strings5, 5);
	p = decode_ok(&b);
	assert_int_equal(p->nsamples, 2);
	assert_int_equal(p->nlocations, 2);
	locs = profile__sample_locs(p, &p->samples[0]);
	assert_int_equal(p->samples[0].count, 4);
	assert_string_equal(profile__str(p,
					 p->functions[p->locations[locs[0] - 1].function - 1].name),
			    "f");
	assert_string_equal(profile__str(p, p->mappings[p->locations[locs[0] - 1].mapping - 1]
						    .filename),
			    "/bin/x");
	assert_int_equal(p->locations[locs[1] - 1].mapping, 0);
	assert_int_equal(p->samples[1].nlocs, 3);
	assert_int_equal(p->samples[1].count, 6);
	locs = profile__sample_locs(p, &p->samples[1]);
	assert_string_equal(profile__str(p,
					 p->functions[p->locations[locs[1] - 1].function - 1].name),
			    "f");
	profile__free(p);
}

static void test_inlined_location_keeps_every_line(void **state)
{
	static const uint64_t fns[] = { 2, 1 }; /* g inlined into f */
	const struct profile_line *lines;
	struct pb_buf b;
	struct profile *p;
	char name[64];
	uint32_t n;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5, 3);
	put_function(&b, 1, 1);
	put_function(&b, 2, 2);
	put_location(&b, 1, 0, fns, 2);
	put_sample(&b, (uint64_t[]){ 1 }, 1, 1);
	p = decode_ok(&b);
	/* The location's function is the one its address is in. */
	assert_string_equal(profile__location_name(p, 1, name, sizeof(name)), "f");
	lines = profile__location_lines(p, 1, &n);
	assert_int_equal(n, 2);
	assert_string_equal(profile__str(p, p->functions[lines[0].function - 1].name), "g");
	assert_string_equal(profile__str(p, p->functions[lines[1].function - 1].name), "f");
	profile__free(p);
}

static void test_too_many_inline_lines_are_refused(void **state)
{
	uint64_t fns[PROFILE_MAX_INLINE_DEPTH + 1];
	struct profile *p = NULL;
	struct pb_buf b;
	char err[256];
	size_t i;

	for (i = 0; i < PROFILE_MAX_INLINE_DEPTH + 1; i++)
		fns[i] = 1;
	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5, 3);
	put_function(&b, 1, 1);
	put_location(&b, 1, 0, fns, PROFILE_MAX_INLINE_DEPTH + 1);
	assert_int_equal(pprof_decode(b.data, b.len, &p, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "lines"));
	pb_buf_free(&b);
}

static void test_inline_lines_round_trip(void **state)
{
	struct profile *p = profile__new(), *q;
	struct profile_line lines[3];
	const struct profile_line *ql;
	uint32_t map, loc[2], n;
	char why[128] = "";
	int64_t id;

	assert_non_null(p);
	map = mapping(p, 0x400000, 0x500000, 0, "/bin/app", NULL, true);
	lines[0].function = (uint32_t)profile__add_function_at(p, str(p, "leaf"), str(p, "leaf"),
							       str(p, "app.c"), 12);
	lines[0].line = 14;
	lines[1].function = (uint32_t)profile__add_function_at(p, str(p, "mid"), str(p, "mid"),
							       str(p, "app.c"), 20);
	lines[1].line = 22;
	lines[2].function = function(p, "outer", "outer", "/bin/app");
	lines[2].line = 40;
	id = profile__add_location_lines(p, map, 0x401234, lines, 3);
	assert_true(id > 0);
	loc[0] = (uint32_t)id;
	/* The same chain again is the same location; other lines are not. */
	assert_int_equal(profile__add_location_lines(p, map, 0x401234, lines, 3), id);
	assert_int_not_equal(profile__add_location_lines(p, map, 0x401234, lines + 1, 2), id);
	loc[1] = location(p, map, 0x401000, lines[2].function);
	sample(p, loc, 2, 3, 7, 7, "app", NULL);
	p->period_ns = PERIOD_NS;
	q = round_trip(p);
	assert_false(profile_diff(p, q, why, sizeof(why)));
	ql = profile__location_lines(q, loc[0], &n);
	assert_int_equal(n, 3);
	assert_int_equal(ql[0].line, 14);
	assert_int_equal(q->functions[ql[0].function - 1].start_line, 12);
	assert_string_equal(profile__str(q, q->functions[ql[1].function - 1].name), "mid");
	assert_int_equal(q->locations[loc[0] - 1].function, ql[2].function);
	profile__free(p);
	profile__free(q);
}

static void test_first_value_is_the_count_whatever_the_type(void **state)
{
	static const char *const s[] = { "", "alloc_objects", "count", "alloc_space", "bytes" };
	struct pb_buf b;
	struct profile *p;
	size_t m;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, s, 5);
	m = pb_msg_begin(&b, 1);
	pb_put_uint(&b, 1, 3);
	pb_put_uint(&b, 2, 4);
	pb_msg_end(&b, m);
	m = pb_msg_begin(&b, 2);
	pb_put_uint(&b, 2, 3); /* unpacked values */
	pb_put_uint(&b, 2, 4096);
	pb_msg_end(&b, m);
	p = decode_ok(&b);
	assert_int_equal(p->nsamples, 1);
	assert_int_equal(p->samples[0].count, 3);
	profile__free(p);
}

static void test_unknown_fields_and_labels_are_skipped(void **state)
{
	static const char *const s[] = { "", "thread", "main", "pid", "bytes", "comm", "x" };
	struct pb_buf b;
	struct profile *p;
	size_t m, l;

	pb_buf_init(&b, 1 << 16);
	pb_put_tag(&b, 99, PB_WIRE_FIXED64);
	pb_put_raw(&b, "abcdefgh", 8);
	put_strings(&b, s, 7);
	m = pb_msg_begin(&b, 2);
	pb_put_tag(&b, 42, PB_WIRE_FIXED32);
	pb_put_raw(&b, "abcd", 4);
	l = pb_msg_begin(&b, 3); /* thread=main: not modelled */
	pb_put_uint(&b, 1, 1);
	pb_put_uint(&b, 2, 2);
	pb_msg_end(&b, l);
	l = pb_msg_begin(&b, 3); /* pid=77 with a unit */
	pb_put_uint(&b, 1, 3);
	pb_put_uint(&b, 3, 77);
	pb_put_uint(&b, 4, 4);
	pb_put_bytes(&b, 17, "zz", 2);
	pb_msg_end(&b, l);
	l = pb_msg_begin(&b, 3);
	pb_put_uint(&b, 1, 5);
	pb_put_uint(&b, 2, 6);
	pb_msg_end(&b, l);
	pb_msg_end(&b, m);
	pb_put_uint(&b, 13, 6); /* an unpacked comment */
	p = decode_ok(&b);
	assert_int_equal(p->samples[0].pid, 77);
	assert_string_equal(profile__str(p, p->samples[0].comm), "x");
	assert_int_equal(p->ncomments, 1);
	assert_string_equal(profile__str(p, p->comments[0]), "x");
	profile__free(p);
}

/* put_num_label - a label @key (string index) with a num, or with a str
 * when @str is nonzero. */
static void put_num_label(struct pb_buf *b, uint64_t key, uint64_t num, uint64_t str)
{
	size_t l = pb_msg_begin(b, 3);

	pb_put_uint(b, 1, key);
	if (str)
		pb_put_uint(b, 2, str);
	else
		pb_put_uint(b, 3, num);
	pb_msg_end(b, l);
}

static void test_run_labels_decode_like_pid_and_tid(void **state)
{
	static const char *const s[] = { "", "run", "pid", "two" };
	struct pb_buf b;
	struct profile *p;
	size_t m, l;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, s, 4);
	m = pb_msg_begin(&b, 2); /* repeated: the last one wins */
	put_num_label(&b, 1, 4, 0);
	put_num_label(&b, 1, 6, 0);
	put_num_label(&b, 2, 9, 0);
	pb_msg_end(&b, m);
	m = pb_msg_begin(&b, 2); /* a string value: no num, not recorded */
	put_num_label(&b, 1, 0, 3);
	pb_msg_end(&b, m);
	p = decode_ok(&b);
	assert_int_equal(p->nsamples, 2);
	assert_int_equal(p->samples[0].run, 6);
	assert_int_equal(p->samples[0].pid, 9);
	assert_int_equal(p->samples[1].run, 0);
	profile__free(p);

	/* A num that is not a varint is malformed, whatever the key. */
	pb_buf_init(&b, 1 << 16);
	put_strings(&b, s, 2);
	m = pb_msg_begin(&b, 2);
	l = pb_msg_begin(&b, 3);
	pb_put_uint(&b, 1, 1);
	pb_put_bytes(&b, 3, "2", 1);
	pb_msg_end(&b, l);
	pb_msg_end(&b, m);
	decode_fails(&b, -EBADMSG, "label num has wire type 2, expected a varint");
}

static void test_location_with_unknown_function_is_refused(void **state)
{
	static const uint64_t fns[] = { 99 };
	struct pb_buf b;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5, 3);
	put_function(&b, 1, 1);
	put_location(&b, 17, 0, fns, 1);
	decode_fails(&b, -EBADMSG, "location 17 refers to unknown function 99");
}

static void test_location_with_unknown_mapping_is_refused(void **state)
{
	struct pb_buf b;

	pb_buf_init(&b, 1 << 16);
	put_mapping(&b, 1, 0);
	put_location(&b, 4, 8, NULL, 0);
	decode_fails(&b, -EBADMSG, "location 4 refers to unknown mapping 8");
}

static void test_sample_with_unknown_location_is_refused(void **state)
{
	struct pb_buf b;

	pb_buf_init(&b, 1 << 16);
	put_location(&b, 1, 0, NULL, 0);
	put_sample(&b, (uint64_t[]){ 1, 2 }, 2, 1);
	decode_fails(&b, -EBADMSG, "sample refers to unknown location 2");
}

static void test_string_index_out_of_range_is_refused(void **state)
{
	struct pb_buf b;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5, 3);
	put_function(&b, 1, 50);
	decode_fails(&b, -EBADMSG, "function name: string index 50 out of range (3 strings)");

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5, 3);
	pb_put_uint(&b, 13, 3);
	decode_fails(&b, -EBADMSG, "comment: string index 3 out of range");

	pb_buf_init(&b, 1 << 16);
	pb_put_uint(&b, 14, 1); /* default_sample_type with no string table */
	decode_fails(&b, -EBADMSG, "string index 1 out of range (1 strings)");
}

static void test_duplicate_and_zero_ids_are_refused(void **state)
{
	struct pb_buf b;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5, 3);
	put_function(&b, 7, 1);
	put_function(&b, 7, 2);
	decode_fails(&b, -EBADMSG, "duplicate function id 7");

	pb_buf_init(&b, 1 << 16);
	put_mapping(&b, 0, 0);
	decode_fails(&b, -EBADMSG, "mapping without an id");

	pb_buf_init(&b, 1 << 16);
	put_location(&b, 0, 0, NULL, 0);
	decode_fails(&b, -EBADMSG, "location without an id");
}

static void test_string_table_must_start_empty(void **state)
{
	struct pb_buf b;

	pb_buf_init(&b, 1 << 16);
	put_strings(&b, strings5 + 1, 2);
	decode_fails(&b, -EBADMSG, "byte 1: string_table[0] must be the empty string");
}

static void test_wrong_wire_types_are_refused(void **state)
{
	struct pb_buf b;
	size_t m;

	pb_buf_init(&b, 1 << 16);
	m = pb_msg_begin(&b, 3);
	pb_put_bytes(&b, 1, "1", 1);
	pb_msg_end(&b, m);
	decode_fails(&b, -EBADMSG, "mapping id has wire type 2, expected a varint");

	pb_buf_init(&b, 1 << 16);
	pb_put_uint(&b, 2, 1);
	decode_fails(&b, -EBADMSG, "sample has wire type 0, expected a message");

	pb_buf_init(&b, 1 << 16);
	pb_put_tag(&b, 4, PB_WIRE_SGROUP);
	decode_fails(&b, -EBADMSG, "groups");
}

static void test_caps_give_e2big(void **state)
{
	uint64_t deep[PROFILE_MAX_DEPTH + 1];
	char *big = malloc(PROFILE_MAX_STRING_LEN + 2);
	struct pb_buf b;
	size_t i;

	for (i = 0; i <= PROFILE_MAX_DEPTH; i++)
		deep[i] = 1;
	pb_buf_init(&b, 1 << 20);
	put_location(&b, 1, 0, NULL, 0);
	put_sample(&b, deep, PROFILE_MAX_DEPTH, 1);
	put_sample(&b, deep, PROFILE_MAX_DEPTH + 1, 1);
	decode_fails(&b, -E2BIG, "sample deeper than PROFILE_MAX_DEPTH");

	assert_non_null(big);
	memset(big, 'a', PROFILE_MAX_STRING_LEN + 1);
	big[PROFILE_MAX_STRING_LEN + 1] = '\0';
	pb_buf_init(&b, 1 << 20);
	put_strings(&b, strings5, 1);
	pb_put_string(&b, 6, big);
	decode_fails(&b, -E2BIG, "string longer than");
	free(big);
}

/* --- truncated and corrupted encodings --- */

/* decode_any - decoding may succeed or fail, but only with -EBADMSG or
 * -E2BIG and a message; never crash or leak. */
static void decode_any(const void *buf, size_t len)
{
	struct profile *p = NULL;
	char err[256] = "";
	int ret = pprof_decode(buf, len, &p, err, sizeof(err));

	if (ret == 0) {
		assert_non_null(p);
		if (profile_invalid(p, err, sizeof(err)))
			fail_msg("decoded profile is inconsistent: %s", err);
		profile__free(p);
		return;
	}
	assert_null(p);
	if (ret != -EBADMSG && ret != -E2BIG)
		fail_msg("unexpected error %d (%s)", ret, err);
	assert_true(strncmp(err, "byte ", 5) == 0);
}

static void test_every_prefix_fails_cleanly_or_decodes(void **state)
{
	struct profile *p = build_profile();
	size_t len, n, failed = 0;
	void *buf = NULL;
	struct profile *q;
	char err[256];

	assert_int_equal(pprof_encode(p, &buf, &len), 0);
	for (n = 0; n < len; n++) {
		q = NULL;
		if (pprof_decode(buf, n, &q, err, sizeof(err)) == 0) {
			assert_false(profile_invalid(q, err, sizeof(err)));
			profile__free(q);
			continue;
		}
		assert_null(q);
		assert_true(strncmp(err, "byte ", 5) == 0);
		failed++;
	}
	/* Most prefixes cut a message in half. */
	assert_true(failed > len / 2);
	free(buf);
	profile__free(p);
}

static void test_corrupted_bytes_fail_cleanly(void **state)
{
	static const uint8_t flips[] = { 0x01, 0x08, 0x80, 0xff };
	struct profile *p = build_profile();
	uint8_t *buf = NULL;
	size_t len, i, f;

	assert_int_equal(pprof_encode(p, (void **)&buf, &len), 0);
	for (i = 0; i < len; i++) {
		for (f = 0; f < sizeof(flips); f++) {
			buf[i] ^= flips[f];
			decode_any(buf, len);
			buf[i] ^= flips[f];
		}
	}
	free(buf);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_keeps_every_field),
		cmocka_unit_test(test_negative_and_huge_values_round_trip),
		cmocka_unit_test(test_empty_profile_round_trips),
		cmocka_unit_test(test_profile_of_empty_stacks_round_trips),
		cmocka_unit_test(test_empty_input_is_an_empty_profile),
		cmocka_unit_test(test_run_labels_round_trip),
		cmocka_unit_test(test_off_cpu_samples_round_trip),
		cmocka_unit_test(test_off_cpu_value_is_found_by_its_type),
		cmocka_unit_test(test_go_tool_pprof_reads_off_cpu),
		cmocka_unit_test(test_profile_without_runs_encodes_as_before),
		cmocka_unit_test(test_run_labels_decode_like_pid_and_tid),
		cmocka_unit_test(test_go_tool_pprof_reads_our_encoding),
		cmocka_unit_test(test_go_tool_pprof_shows_run_labels),
		cmocka_unit_test(test_call_labels_round_trip),
		cmocka_unit_test(test_go_tool_pprof_filters_by_call),
		cmocka_unit_test(test_decodes_go_written_cpu_profile),
		cmocka_unit_test(test_sparse_ids_in_any_order_resolve),
		cmocka_unit_test(test_inlined_location_keeps_every_line),
		cmocka_unit_test(test_too_many_inline_lines_are_refused),
		cmocka_unit_test(test_inline_lines_round_trip),
		cmocka_unit_test(test_first_value_is_the_count_whatever_the_type),
		cmocka_unit_test(test_unknown_fields_and_labels_are_skipped),
		cmocka_unit_test(test_location_with_unknown_function_is_refused),
		cmocka_unit_test(test_location_with_unknown_mapping_is_refused),
		cmocka_unit_test(test_sample_with_unknown_location_is_refused),
		cmocka_unit_test(test_string_index_out_of_range_is_refused),
		cmocka_unit_test(test_duplicate_and_zero_ids_are_refused),
		cmocka_unit_test(test_string_table_must_start_empty),
		cmocka_unit_test(test_wrong_wire_types_are_refused),
		cmocka_unit_test(test_caps_give_e2big),
		cmocka_unit_test(test_every_prefix_fails_cleanly_or_decodes),
		cmocka_unit_test(test_corrupted_bytes_fail_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
