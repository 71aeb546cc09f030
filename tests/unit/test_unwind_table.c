// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_unwind_table.c - the kernel walk's tables of real Debian files
 * (libc.so.6, python3.11) say what their CFI says: at every pc of every
 * executable byte sampled, the table's row (as the BPF program finds and
 * applies it: last row at or before the pc's file offset, its fold, its
 * far offset) gives the CFA, the caller's rbp and the entry that cfi.h
 * gives; folding and gaps keep the table sorted and smaller than the CFI;
 * a bound too small for the file is E2BIG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/unwind_table.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON "/usr/bin/python3.11"

static struct cfi *open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct cfi *c;

	assert_true(fd >= 0);
	c = cfi__open_fd(fd, 0);
	close(fd);
	assert_non_null(c);
	return c;
}

struct agree {
	struct cfi *c;
	const struct unwind_table *t;
	uint64_t checked, cfa_checked, entries;
};

/* check_pc - the table's answer at @vaddr against cfi.h's. */
static void check_pc(struct agree *a, uint64_t vaddr, const struct cfi_row *want)
{
	const struct sampler_unwind_row *r;
	uint64_t off;
	unsigned kind;

	if (cfi__vaddr_to_exec_offset(a->c, vaddr, &off))
		return;
	r = unwind_table__find(a->t, (uint32_t)off);
	assert_non_null(r);
	kind = r->kind & SAMPLER_UNWIND_KIND_MASK;
	a->checked++;
	if (want->signal) {
		assert_int_equal(kind, SAMPLER_UNWIND_SIGNAL);
		return;
	}
	if (want->ra.kind == CFI_RULE_UNDEFINED) {
		assert_int_equal(kind, SAMPLER_UNWIND_ENTRY);
		a->entries++;
		return;
	}
	if (kind != SAMPLER_UNWIND_CFA_SP && kind != SAMPLER_UNWIND_CFA_BP)
		return; /* PLT, invalid, realigned: checked by the walk's tests */
	assert_int_equal(want->cfa.kind, CFI_RULE_VAL_OFFSET);
	assert_int_equal(want->cfa.reg, kind == SAMPLER_UNWIND_CFA_SP ? CFI_REG_RSP : CFI_REG_RBP);
	assert_int_equal(unwind_table__cfa_offset(a->t, r, (uint32_t)off), want->cfa.off);
	if (want->rbp.kind == CFI_RULE_OFFSET) {
		assert_true(r->kind & SAMPLER_UNWIND_RBP_SAVED);
		assert_int_equal(r->rbp * 8, want->rbp.off);
	} else if (want->rbp.kind == CFI_RULE_SAME) {
		assert_false(r->kind & (SAMPLER_UNWIND_RBP_SAVED | SAMPLER_UNWIND_RBP_LOST));
	}
	a->cfa_checked++;
}

/* on_row - cfi.h's rows, each checked at its first and last byte. */
static int on_row(void *ctx, uint64_t start, uint64_t end, const struct cfi_row *row, int err)
{
	struct agree *a = ctx;

	if (err || !row)
		return 0;
	check_pc(a, start, row);
	if (end - 1 != start)
		check_pc(a, end - 1, row);
	return 0;
}

static void agrees_with_cfi(const char *path)
{
	struct unwind_table t;
	struct agree a = { 0 };
	uint32_t i;

	a.c = open_path(path);
	assert_int_equal(unwind_table__build(a.c, 1u << 20, &t), 0);
	assert_true(t.n > 1000);
	for (i = 1; i < t.n; i++)
		assert_true(t.rows[i].off > t.rows[i - 1].off);
	a.t = &t;
	assert_int_equal(cfi__for_each_row(a.c, 1u << 24, on_row, &a), 0);
	/* every CFI row's two ends, and folding kept fewer rows than that */
	assert_true(a.cfa_checked > 10000);
	assert_true(t.stats.folded > 1000);
	assert_true(t.n < a.checked);
	print_message("%s: %u rows (%llu folded), %llu pcs agree (%llu CFA rules)\n", path, t.n,
		      (unsigned long long)t.stats.folded, (unsigned long long)a.checked,
		      (unsigned long long)a.cfa_checked);
	unwind_table__release(&t);
	cfi__free(a.c);
}

static void test_libc_table_agrees_with_its_cfi(void **state)
{
	(void)state;
	agrees_with_cfi(LIBC);
}

static void test_python_table_agrees_with_its_cfi(void **state)
{
	(void)state;
	agrees_with_cfi(PYTHON);
}

/* libc's clone3 and python3.11's _start end walks: their return address
 * is undefined. */
static void test_entries_end_walks(void **state)
{
	struct unwind_table t;
	struct cfi *c = open_path(LIBC);

	(void)state;
	assert_int_equal(unwind_table__build(c, 1u << 20, &t), 0);
	assert_true(t.stats.rows[SAMPLER_UNWIND_ENTRY] >= 1);
	assert_true(t.stats.rows[SAMPLER_UNWIND_SIGNAL] >= 1); /* __restore_rt */
	assert_true(t.stats.rows[SAMPLER_UNWIND_PLT] >= 1);
	unwind_table__release(&t);
	cfi__free(c);
}

static void test_too_many_rows_is_e2big(void **state)
{
	struct unwind_table t;
	struct cfi *c = open_path(LIBC);

	(void)state;
	assert_int_equal(unwind_table__build(c, 100, &t), -E2BIG);
	assert_null(t.rows);
	assert_int_equal(t.n, 0);
	cfi__free(c);
}

/* A far CFA offset (a frame past 16 KiB) goes to the far table, and a
 * wide row finds it again. */
static void test_far_offsets_round_trip(void **state)
{
	struct unwind_table t = { 0 };
	struct sampler_unwind_row r = { .off = 0x1000, .kind = SAMPLER_UNWIND_CFA_SP };
	int32_t far[2] = { 540080, 16392 };

	(void)state;
	t.far = far;
	t.nfar = 2;
	r.kind |= SAMPLER_UNWIND_WIDE;
	r.cfa = 0;
	assert_int_equal(unwind_table__cfa_offset(&t, &r, 0x1000), 540080);
	r.cfa = 1;
	assert_int_equal(unwind_table__cfa_offset(&t, &r, 0x1004), 16392);
	r.cfa = 2; /* past the far table: no offset */
	assert_int_equal(unwind_table__cfa_offset(&t, &r, 0x1004), 0);
	/* a fold: one word more from 2 bytes in */
	r.kind = SAMPLER_UNWIND_CFA_SP;
	r.cfa = SAMPLER_UNWIND_CFA(2, 2);
	assert_int_equal(unwind_table__cfa_offset(&t, &r, 0x1001), 16);
	assert_int_equal(unwind_table__cfa_offset(&t, &r, 0x1002), 24);
	r.kind |= SAMPLER_UNWIND_FOLD_POP;
	assert_int_equal(unwind_table__cfa_offset(&t, &r, 0x1003), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_table_agrees_with_its_cfi),
		cmocka_unit_test(test_python_table_agrees_with_its_cfi),
		cmocka_unit_test(test_entries_end_walks),
		cmocka_unit_test(test_too_many_rows_is_e2big),
		cmocka_unit_test(test_far_offsets_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
