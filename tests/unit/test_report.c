// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_report.c - per-function self/total aggregation and the top table. */
#include "golden.h"
#include "profile_fixture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "trapd/profile/profile_view.h"
#include "trapd/profile/report.h"

struct want_row {
	const char *name;
	int64_t self, total;
};

static struct stacktree *tree_of(const struct profile *p)
{
	struct stacktree *t = NULL;

	assert_int_equal(stacktree__from_profile(p, &t), 0);
	return t;
}

static void test_functions_exact_self_and_total(void **state)
{
	static const struct want_row want[] = {
		{ "burn_60", 70, 70 },
		{ "burn_30", 30, 30 },
		{ "fib", 13, 13 },
		{ "operator<<", 7, 7 },
		{ "__x64_sys_write_[k]", 5, 5 },
		{ "0xffffffff81abcdef_[k]", 4, 4 },
		{ "libc.so.6+0x1234", 3, 3 },
		{ "ns;weird", 2, 2 },
		{ "a&b", 0, 7 },
		{ "default_idle_[k]", 0, 4 },
		{ "do_syscall_64_[k]", 0, 5 },
		{ "helper", 0, 3 },
		{ "main", 0, 118 },
		{ "secondary_startup_64_[k]", 0, 4 },
		{ "start_thread", 0, 12 },
		{ "write_out", 0, 5 },
	};
	struct profile *p = fx_standard();
	struct stacktree *t = tree_of(p);
	struct report_row *rows;
	size_t n, i;

	assert_int_equal(report_functions(t, &rows, &n), 0);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n; i++) {
		assert_string_equal(rows[i].name, want[i].name);
		assert_int_equal(rows[i].self, want[i].self);
		assert_int_equal(rows[i].total, want[i].total);
		assert_int_equal(rows[i].base_total, 0);
	}
	assert_int_equal(rows[0].kind, STACKTREE_KIND_USER);
	assert_int_equal(rows[4].kind, STACKTREE_KIND_KERNEL);
	assert_int_equal(rows[6].kind, STACKTREE_KIND_UNRESOLVED);
	free(rows);
	stacktree__free(t);
	profile__free(p);
}

/* Recursion through other functions and at different depths under
 * different callers: total counts each sample once. */
static void test_recursive_total_counts_each_sample_once(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t;
	struct report_row *rows;
	size_t n, i;

	fx_stack(p, "app", 1, 5, "main", "walk", "visit", "walk", "visit", "walk", NULL);
	fx_stack(p, "app", 1, 2, "main", "visit", "walk", NULL);
	fx_stack(p, "app", 1, 1, "main", "walk", NULL);
	fx_stack(p, "app", 1, 4, "main", "other", NULL);
	t = tree_of(p);
	assert_int_equal(report_functions(t, &rows, &n), 0);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		if (!strcmp(rows[i].name, "walk")) {
			assert_int_equal(rows[i].self, 8);
			assert_int_equal(rows[i].total, 8);
		} else if (!strcmp(rows[i].name, "visit")) {
			assert_int_equal(rows[i].self, 0);
			assert_int_equal(rows[i].total, 7);
		} else if (!strcmp(rows[i].name, "main")) {
			assert_int_equal(rows[i].total, 12);
		}
	}
	assert_string_equal(rows[0].name, "walk");
	assert_string_equal(rows[1].name, "other");
	free(rows);
	stacktree__free(t);
	profile__free(p);
}

static void test_base_side_is_aggregated_too(void **state)
{
	struct profile *p = fx_standard(), *base = profile__new();
	struct stacktree *t = tree_of(p);
	struct report_row *rows;
	size_t n, i;
	int seen = 0;

	fx_stack(base, "app", 1, 9, "main", "fib", "fib", NULL);
	fx_stack(base, "other", 2, 1, "gone", NULL);
	assert_int_equal(stacktree__add_profile(t, base, STACKTREE_BASE), 0);
	assert_int_equal(report_functions(t, &rows, &n), 0);
	assert_int_equal(n, 17);
	for (i = 0; i < n; i++) {
		if (!strcmp(rows[i].name, "fib")) {
			assert_int_equal(rows[i].base_self, 9);
			assert_int_equal(rows[i].base_total, 9);
			seen++;
		} else if (!strcmp(rows[i].name, "gone")) {
			assert_int_equal(rows[i].self, 0);
			assert_int_equal(rows[i].total, 0);
			assert_int_equal(rows[i].base_self, 1);
			seen++;
		} else if (!strcmp(rows[i].name, "main")) {
			assert_int_equal(rows[i].base_total, 9);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	free(rows);
	stacktree__free(t);
	profile__free(p);
	profile__free(base);
}

/* Comparisons count code inlined into a function as the function's own:
 * two callers of one inlined helper stay apart, and the helper has no row. */
static void test_outlined_functions_own_their_inlined_code(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t;
	struct report_row *rows;
	size_t n;

	assert_non_null(p);
	fx_stack(p, "app", 1, 7, "main", "inl:slow>spin", NULL);
	fx_stack(p, "app", 1, 3, "main", "inl:fast>spin", NULL);
	fx_stack(p, "app", 1, 1, "main", "fast", NULL);
	t = tree_of(p);
	assert_int_equal(report_functions(t, &rows, &n), 0);
	assert_string_equal(rows[0].name, "spin (inlined)");
	assert_int_equal(rows[0].self, 10);
	free(rows);
	assert_int_equal(report_functions_outlined(t, &rows, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].name, "slow");
	assert_int_equal(rows[0].self, 7);
	assert_string_equal(rows[1].name, "fast");
	assert_int_equal(rows[1].self, 4);
	assert_int_equal(rows[1].total, 4);
	assert_string_equal(rows[2].name, "main");
	free(rows);
	stacktree__free(t);
	profile__free(p);
}

static void test_summary_line(void **state)
{
	struct profile *p = fx_standard(), *bare = profile__new();
	struct stacktree *t = tree_of(p), *tb;
	char buf[128];

	assert_int_equal(report_summary(buf, sizeof(buf), p, t), 0);
	assert_string_equal(buf, "135 samples over 10.00s at 99 Hz, 4 processes");
	/* A foreign profile: no pid labels, no duration, no period. */
	fx_stack(bare, "", 0, 1, "f", NULL);
	tb = tree_of(bare);
	assert_int_equal(report_summary(buf, sizeof(buf), bare, tb), 0);
	assert_string_equal(buf, "1 sample");
	bare->period_ns = 250000000;
	bare->samples[0].pid = 42;
	assert_int_equal(report_summary(buf, sizeof(buf), bare, tb), 0);
	assert_string_equal(buf, "1 sample at 4 Hz, 1 process");
	/* A short buffer is cut, never overrun. */
	assert_int_equal(report_summary(buf, 8, p, t), 0);
	assert_string_equal(buf, "135 sam");
	stacktree__free(tb);
	stacktree__free(t);
	profile__free(bare);
	profile__free(p);
}

/* waits - off-CPU time: 60 ms in a read (kernel frames above it), 30 ms
 * in a futex wait, 10 ms of a kernel thread; 5 samples on the CPU. */
static struct profile *waits(void)
{
	static const char *const rd[] = { "main", "load", "read", "k:vfs_read", "k:schedule" };
	static const char *const fx[] = { "main", "lock", "k:futex_wait", "k:schedule" };
	static const char *const kt[] = { "k:kthread", "k:schedule" };
	static const char *const on[] = { "main", "load" };
	struct profile *p = profile__new();

	assert_non_null(p);
	p->period_ns = 10000000;
	p->duration_ns = 1000000000;
	fx_stackv(p, "app", 7, 5, on, 2);
	fx_stackv(p, "app", 7, 0, rd, 5);
	p->samples[1].offcpu_ns = 60000000;
	fx_stackv(p, "app", 7, 0, fx, 4);
	p->samples[2].offcpu_ns = 30000000;
	fx_stackv(p, "kworker", 9, 0, kt, 2);
	p->samples[3].offcpu_ns = 10000000;
	return p;
}

/* Off the CPU every stack ends in the scheduler: the table's self goes to
 * the user function that waited (a kernel thread's stays its own). */
static void test_offcpu_table_ranks_the_code_that_waited(void **state)
{
	static const struct want_row want[] = {
		{ "read", 60000000, 60000000 },
		{ "lock", 30000000, 30000000 },
		{ "schedule_[k]", 10000000, 100000000 },
		{ "futex_wait_[k]", 0, 30000000 },
		{ "kthread_[k]", 0, 10000000 },
		{ "load", 0, 60000000 },
		{ "main", 0, 90000000 },
		{ "vfs_read_[k]", 0, 60000000 },
	};
	struct profile *p = waits();
	struct stacktree *t;
	struct report_row *rows;
	struct golden_buf b;
	size_t n, i;
	char *text;

	assert_int_equal(profile_view__apply(p, PROFILE_VIEW_OFFCPU), 0);
	t = tree_of(p);
	assert_int_equal(report_functions_waiting(t, &rows, &n), 0);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n; i++) {
		assert_string_equal(rows[i].name, want[i].name);
		assert_int_equal(rows[i].self, want[i].self);
		assert_int_equal(rows[i].total, want[i].total);
	}
	free(rows);
	assert_int_equal(report_write_top(golden_open(&b), p, t, REPORT_DEFAULT_TOP), 0);
	text = golden_text(&b);
	golden_check("report_offcpu.txt", text);
	free(text);
	stacktree__free(t);
	profile__free(p);
}

static void test_top_table_golden(void **state)
{
	struct profile *p = fx_standard();
	struct stacktree *t = tree_of(p);
	struct golden_buf b;
	char *text;

	assert_int_equal(report_write_top(golden_open(&b), p, t, REPORT_DEFAULT_TOP), 0);
	text = golden_text(&b);
	golden_check("report_top.txt", text);
	free(text);
	assert_int_equal(report_write_top(golden_open(&b), p, t, 3), 0);
	text = golden_text(&b);
	golden_check("report_top3.txt", text);
	free(text);
	stacktree__free(t);
	profile__free(p);
}

static size_t columns(const char *s, size_t n)
{
	size_t i, cols = 0;

	for (i = 0; i < n; i++)
		cols += ((unsigned char)s[i] & 0xc0) != 0x80;
	return cols;
}

static void test_long_names_fit_80_columns(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t;
	struct golden_buf b;
	char longname[301], utf8[2 * 120 + 1], *text, *line, *nl;
	int i, cut = 0;

	memset(longname, 'x', 300);
	longname[300] = '\0';
	for (i = 0; i < 120; i++)
		memcpy(utf8 + 2 * i, "\xc3\xa9", 2);
	utf8[240] = '\0';
	fx_stack(p, "app", 1, 123456789, "main", longname, NULL);
	fx_stack(p, "app", 1, 2, "main", utf8, NULL);
	fx_stack(p, "app", 1, 1, "main", "short", NULL);
	t = tree_of(p);
	assert_int_equal(report_write_top(golden_open(&b), p, t, 0), 0);
	text = golden_text(&b);
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_true(columns(line, (size_t)(nl - line)) <= REPORT_COLUMNS);
		if ((size_t)(nl - line) > 3 && !strncmp(nl - 3, "...", 3)) {
			cut++;
			/* Cut on a character boundary: no dangling lead byte. */
			assert_true(((unsigned char)nl[-4] & 0xc0) != 0xc0);
		}
	}
	assert_int_equal(cut, 2);
	assert_non_null(strstr(text, "  short\n"));
	/* Nine-digit counts widen the count columns. */
	assert_non_null(strstr(text, "\n  self%      self  total%     total  function\n"));
	assert_non_null(strstr(text, "\n   0.0%         0  100.0% 123456792  main\n"));
	free(text);
	stacktree__free(t);
	profile__free(p);
}

static void test_empty_profile_table(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = tree_of(p);
	struct golden_buf b;
	char *text;

	assert_int_equal(report_write_top(golden_open(&b), p, t, 20), 0);
	text = golden_text(&b);
	assert_string_equal(text, "Total: 0 samples\nNo stack frames in this profile.\n");
	free(text);
	stacktree__free(t);
	profile__free(p);
}

static void test_huge_counts_saturate(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t;
	struct report_row *rows;
	struct golden_buf b;
	size_t n;
	char *text;

	fx_stack(p, "a", 1, INT64_MAX, "main", "x", NULL);
	fx_stack(p, "b", 2, INT64_MAX, "main", "x", "x", NULL);
	t = tree_of(p);
	assert_int_equal(report_functions(t, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "x");
	assert_true(rows[0].self == INT64_MAX && rows[0].total == INT64_MAX);
	free(rows);
	assert_int_equal(report_write_top(golden_open(&b), p, t, 0), 0);
	text = golden_text(&b);
	assert_non_null(strstr(text, "Total: 9223372036854775807 samples, 2 processes\n"));
	free(text);
	stacktree__free(t);
	profile__free(p);
}

static void test_write_failure_is_eio(void **state)
{
	struct profile *p = fx_standard();
	struct stacktree *t = tree_of(p);
	FILE *full = fopen("/dev/full", "w");

	if (!full)
		skip();
	assert_int_equal(report_write_top(full, p, t, 20), -EIO);
	fclose(full);
	stacktree__free(t);
	profile__free(p);
}

/* naive - self and total of @name computed straight from the samples. */
static void naive(const struct profile *p, const char *name, int64_t *self, int64_t *total)
{
	char buf[128], full[160];
	size_t s;
	uint32_t i;

	*self = *total = 0;
	for (s = 0; s < p->nsamples; s++) {
		const struct profile_sample *sm = &p->samples[s];
		const uint32_t *l = profile__sample_locs(p, sm);
		int on = 0;

		for (i = 0; i < sm->nlocs; i++) {
			snprintf(full, sizeof(full), "%s%s",
				 profile__location_name(p, l[i], buf, sizeof(buf)),
				 profile__location_is_kernel(p, l[i]) ? "_[k]" : "");
			if (strcmp(full, name))
				continue;
			on = 1;
			if (i == 0)
				*self += sm->count;
		}
		if (on)
			*total += sm->count;
	}
}

static void test_random_profile_matches_naive(void **state)
{
	static const char *const pool[] = { "a", "b", "c", "k:a", "k:d", "libc+0x10", "e", "f" };
	struct profile *p = profile__new();
	struct stacktree *t;
	struct report_row *rows;
	const char *frames[16];
	unsigned seed = 777, i, j, n;
	int64_t self, total;
	size_t nrows, r;

	for (i = 0; i < 4000; i++) {
		n = 1 + (unsigned)(rand_r(&seed) % 15);
		for (j = 0; j < n; j++)
			frames[j] = pool[rand_r(&seed) % 8];
		fx_stackv(p, i % 2 ? "x" : "y", i % 7, 1 + rand_r(&seed) % 9, frames, n);
	}
	t = tree_of(p);
	assert_int_equal(report_functions(t, &rows, &nrows), 0);
	assert_int_equal(nrows, 8);
	for (r = 0; r < nrows; r++) {
		naive(p, rows[r].name, &self, &total);
		assert_int_equal(rows[r].self, self);
		assert_int_equal(rows[r].total, total);
		if (r)
			assert_true(rows[r - 1].self >= rows[r].self);
	}
	free(rows);
	stacktree__free(t);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_functions_exact_self_and_total),
		cmocka_unit_test(test_recursive_total_counts_each_sample_once),
		cmocka_unit_test(test_base_side_is_aggregated_too),
		cmocka_unit_test(test_outlined_functions_own_their_inlined_code),
		cmocka_unit_test(test_summary_line),
		cmocka_unit_test(test_top_table_golden),
		cmocka_unit_test(test_offcpu_table_ranks_the_code_that_waited),
		cmocka_unit_test(test_long_names_fit_80_columns),
		cmocka_unit_test(test_empty_profile_table),
		cmocka_unit_test(test_huge_counts_saturate),
		cmocka_unit_test(test_write_failure_is_eio),
		cmocka_unit_test(test_random_profile_matches_naive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
