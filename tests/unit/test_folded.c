// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_folded.c - folded stack lines: exact output, escaping, order,
 * counts that add up. */
#include "golden.h"
#include "profile_fixture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "trapd/profile/folded.h"

static char *folded_of(const struct profile *p)
{
	struct stacktree *t = NULL;
	struct golden_buf b;

	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(folded_write(golden_open(&b), t), 0);
	stacktree__free(t);
	return golden_text(&b);
}

static void test_standard_profile_golden(void **state)
{
	struct profile *p = fx_standard();
	char *text = folded_of(p);

	golden_check("standard.folded", text);
	free(text);
	profile__free(p);
}

/* The exact lines, spelled out here as well so the format is visible in
 * the test itself. */
static void test_exact_lines(void **state)
{
	struct profile *p = profile__new();
	char *text;

	fx_stack(p, "app", 1, 3, "main", "work", "k:sys_read", NULL);
	fx_stack(p, "app", 2, 2, "main", NULL);
	fx_stack(p, "app", 1, 1, "main", "a;b", "c d", NULL);
	fx_stack(p, "bash", 9, 4, "libc+0xbeef", NULL);
	text = folded_of(p);
	assert_string_equal(text, "app;main 2\n"
				  "app;main;a:b;c d 1\n"
				  "app;main;work;sys_read_[k] 3\n"
				  "bash;libc.so.6+0xbeef 4\n");
	free(text);
	profile__free(p);
}

/* Inlined functions are frames of their own, after the function they were
 * inlined into, marked as perf report marks them. */
static void test_inlined_frames(void **state)
{
	struct profile *p = profile__new();
	char *text;

	fx_stack(p, "app", 1, 5, "main", "inl:caller>leaf_inline_fn", NULL);
	fx_stack(p, "app", 1, 1, "main", "caller", NULL);
	text = folded_of(p);
	assert_string_equal(text, "app;main;caller 1\n"
				  "app;main;caller;leaf_inline_fn (inlined) 5\n");
	free(text);
	profile__free(p);
}

static void test_hostile_names_cannot_break_lines(void **state)
{
	struct profile *p = profile__new();
	char *text;

	fx_stack(p, "a;b\nc", 1, 1, "x\ny 9\n", ";;", NULL);
	text = folded_of(p);
	assert_string_equal(text, "a:b?c;x?y 9?;:: 1\n");
	free(text);
	profile__free(p);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parse every line back: counts must add up to all samples, each stack
 * must appear once, and a process must lead every line. */
static void test_lines_parse_back_to_the_samples(void **state)
{
	static const char *const pool[] = { "a", "b", "k:c", "libc+0x20", "d;e" };
	struct profile *p = profile__new();
	const char *frames[10];
	unsigned seed = 99, i, j, n;
	int64_t want = 0, got = 0;
	char *text, *line, *nl, *sp, *stacks[2000];
	size_t nstacks = 0, k;

	for (i = 0; i < 2000; i++) {
		n = (unsigned)(rand_r(&seed) % 10);
		for (j = 0; j < n; j++)
			frames[j] = pool[rand_r(&seed) % 5];
		fx_stackv(p, i % 2 ? "odd" : "even", i, 1 + i % 3, frames, n);
		want += 1 + i % 3;
	}
	text = folded_of(p);
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = '\0';
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		got += strtoll(sp + 1, NULL, 10);
		assert_true(!strncmp(line, "odd;", 4) || !strncmp(line, "even;", 5) ||
			    !strcmp(line, "odd") || !strcmp(line, "even"));
		assert_null(strstr(line, "d;e"));
		assert_true(nstacks < 2000);
		stacks[nstacks++] = line;
	}
	assert_int_equal(got, want);
	qsort(stacks, nstacks, sizeof(*stacks), str_cmp);
	for (k = 1; k < nstacks; k++)
		assert_string_not_equal(stacks[k - 1], stacks[k]);
	free(text);
	profile__free(p);
}

static void test_base_only_nodes_are_not_written(void **state)
{
	struct profile *p = profile__new(), *base = profile__new();
	struct stacktree *t = NULL;
	struct golden_buf b;
	char *text;

	fx_stack(p, "app", 1, 2, "main", NULL);
	fx_stack(base, "app", 1, 5, "main", "old", NULL);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(stacktree__add_profile(t, base, STACKTREE_BASE), 0);
	assert_int_equal(folded_write(golden_open(&b), t), 0);
	text = golden_text(&b);
	assert_string_equal(text, "app;main 2\n");
	free(text);
	stacktree__free(t);
	profile__free(p);
	profile__free(base);
}

static void test_empty_and_failing_output(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = NULL;
	FILE *full;
	char *text = folded_of(p);

	assert_string_equal(text, "");
	free(text);
	profile__free(p);
	p = fx_standard();
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	full = fopen("/dev/full", "w");
	if (full) {
		assert_int_equal(folded_write(full, t), -EIO);
		fclose(full);
	}
	stacktree__free(t);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_standard_profile_golden),
		cmocka_unit_test(test_exact_lines),
		cmocka_unit_test(test_inlined_frames),
		cmocka_unit_test(test_hostile_names_cannot_break_lines),
		cmocka_unit_test(test_lines_parse_back_to_the_samples),
		cmocka_unit_test(test_base_only_nodes_are_not_written),
		cmocka_unit_test(test_empty_and_failing_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
