// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sample_dump.c - a window's samples moved out of the sampler's maps
 * in several passes: stacks and the records that name them arrive in any
 * order, a stack moved twice is kept once, and what moves during the
 * window is held to the dump's memory bound while the final copy is not.
 * The sampler is faked with --wrap (the real one needs the kernel). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trapd/capture/sample_dump.h"

/* What the fake maps hold for the next sampler__move. */
struct fake {
	bool due;
	__u64 stack_ids[4];
	struct sampler_stack stacks[4];
	int nstacks;
	struct sampler_key keys[4];
	__u64 counts[4];
	int ncounts;
	size_t last_max_stacks, last_max_counts;
	int moves;
};

static struct fake fake;

bool __wrap_sampler__spill_due(const struct sampler *s);
int __wrap_sampler__move(struct sampler *s, size_t max_stacks, size_t max_counts,
			 sampler_move_fn stack_fn, sampler_move_fn count_fn, void *ctx);
int __wrap_sampler__get_stats(struct sampler *s, struct sampler_stats *out);
int __wrap_sampler__ncpus(const struct sampler *s);

bool __wrap_sampler__spill_due(const struct sampler *s)
{
	return fake.due;
}

int __wrap_sampler__move(struct sampler *s, size_t max_stacks, size_t max_counts,
			 sampler_move_fn stack_fn, sampler_move_fn count_fn, void *ctx)
{
	int i, err = 0;

	fake.moves++;
	fake.last_max_stacks = max_stacks;
	fake.last_max_counts = max_counts;
	for (i = 0; i < fake.nstacks && !err && (size_t)i < max_stacks; i++)
		err = stack_fn(&fake.stack_ids[i], &fake.stacks[i], ctx);
	for (i = 0; i < fake.ncounts && !err && (size_t)i < max_counts; i++)
		err = count_fn(&fake.keys[i], &fake.counts[i], ctx);
	fake.nstacks = fake.ncounts = 0;
	return err;
}

int __wrap_sampler__get_stats(struct sampler *s, struct sampler_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->v[SAMPLER_STAT_SAMPLES] = 42;
	return 0;
}

int __wrap_sampler__ncpus(const struct sampler *s)
{
	return 2;
}

static void add_stack(__u64 id, uint32_t len, __u64 first)
{
	struct sampler_stack *st = &fake.stacks[fake.nstacks];

	memset(st, 0, sizeof(*st));
	st->len = len;
	for (uint32_t i = 0; i < len; i++)
		st->ips[i] = first + i;
	fake.stack_ids[fake.nstacks++] = id;
}

static void add_count(__u32 tid, __u64 user, __u64 kernel, __u64 count)
{
	struct sampler_key *k = &fake.keys[fake.ncounts];

	memset(k, 0, sizeof(*k));
	k->pid = 100;
	k->tid = tid;
	k->user_stack = user;
	k->kernel_stack = kernel;
	fake.counts[fake.ncounts++] = count;
}

struct seen {
	int n;
	uint64_t total;
	bool unwound[8];
	uint32_t user_len[8], kernel_len[8];
	uint64_t user_first[8];
};

static int see(const struct sampler_record *rec, void *ctx)
{
	struct seen *v = ctx;

	v->user_len[v->n] = rec->user_len;
	v->kernel_len[v->n] = rec->kernel_len;
	v->user_first[v->n] = rec->user_len ? rec->user_ips[0] : 0;
	v->unwound[v->n] = rec->unwound;
	v->total += rec->count;
	v->n++;
	return 0;
}

static void test_records_find_stacks_moved_before_or_with_them(void **state)
{
	struct sample_dump *d = sample_dump__new();
	struct sampler *s = (struct sampler *)&fake; /* never dereferenced */
	struct seen v = { 0 };

	memset(&fake, 0, sizeof(fake));
	assert_non_null(d);
	/* during the window: two stacks and one record move out */
	fake.due = true;
	add_stack(11, 3, 0x1000);
	add_stack(22, 2, 0xffffffff81000000ull);
	add_count(1, 11, 22, 5);
	assert_int_equal(sample_dump__spill(d, s), 0);
	/* bounded while armed: a fixed number a tick, within the room */
	assert_int_equal(fake.last_max_stacks, 16384);
	assert_int_equal(fake.last_max_counts, 32768);
	/* after it: stack 11 comes back (moved again), a new one, a record of
	 * the old stack and one whose stack the kernel lost */
	add_stack(11, 3, 0x1000);
	add_stack(33, 1, 0x3000);
	add_count(1, 11, 22, 2);
	add_count(2, 33, 0, 1);
	add_count(3, 44, 0, 1);
	assert_int_equal(sample_dump__collect(d, s), 0);
	assert_int_equal(fake.last_max_stacks, SIZE_MAX);
	assert_int_equal(sample_dump__nstacks(d), 3);
	assert_int_equal(sample_dump__ncpus(d), 2);
	assert_int_equal(sample_dump__stats(d)->v[SAMPLER_STAT_SAMPLES], 42);
	assert_int_equal(sample_dump__for_each(d, see, &v), 0);
	assert_int_equal(v.n, 4);
	assert_int_equal(v.total, 9);
	assert_int_equal(v.user_len[0], 3);
	assert_int_equal(v.kernel_len[0], 2);
	assert_int_equal(v.user_first[0], 0x1000);
	assert_int_equal(v.user_len[1], 3);
	assert_int_equal(v.user_len[2], 1);
	assert_int_equal(v.user_first[2], 0x3000);
	assert_int_equal(v.user_len[3], 0); /* lost: no stack, still counted */
	sample_dump__free(d);
}

/* Off-CPU waits at a blocking site (DWARF mode) name its unwound stack,
 * which the unwinding thread's dump holds: after the merge they find it
 * and count as unwound; a frame-pointer stack stays walked, whatever its
 * id's bits. */
static void test_waits_find_their_site_after_the_merge(void **state)
{
	struct sample_dump *d = sample_dump__new(), *u = sample_dump__new();
	struct sampler *s = (struct sampler *)&fake;
	struct unwind_summary sum = { .mode = UNWIND_MODE_DWARF };
	uint64_t site = SAMPLER_SITE_BIT | 0x5175, ips[2] = { 0x4000, 0x4100 };
	struct seen v = { 0 };

	memset(&fake, 0, sizeof(fake));
	assert_non_null(d);
	assert_non_null(u);
	assert_int_equal(sample_dump__add_site(u, site, ips, 2), 0);
	add_stack(0x7fffffffffffff01ull, 2, 0x2000); /* walked: no site bit */
	add_count(1, site, 0, 3000000);
	fake.keys[0].offcpu = SAMPLER_OFFCPU_SLEEPING;
	add_count(2, 0x7fffffffffffff01ull, 0, 4);
	assert_int_equal(sample_dump__collect(d, s), 0);
	assert_int_equal(sample_dump__merge_unwound(d, u, &sum), 0);
	assert_int_equal(sample_dump__for_each(d, see, &v), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.user_len[0], 2);
	assert_int_equal(v.user_first[0], 0x4000);
	assert_true(v.unwound[0]);
	assert_int_equal(v.user_first[1], 0x2000);
	assert_false(v.unwound[1]);
	sample_dump__free(d);
	sample_dump__free(u);
}

static void test_nothing_moves_until_the_maps_fill(void **state)
{
	struct sample_dump *d = sample_dump__new();
	struct sampler *s = (struct sampler *)&fake;

	memset(&fake, 0, sizeof(fake));
	add_stack(11, 3, 0x1000);
	assert_int_equal(sample_dump__spill(d, s), 0);
	assert_int_equal(fake.moves, 0);
	assert_int_equal(sample_dump__nstacks(d), 0);
	sample_dump__free(d);
}

static void test_bad_stack_length_is_skipped(void **state)
{
	struct sample_dump *d = sample_dump__new();
	struct sampler *s = (struct sampler *)&fake;

	memset(&fake, 0, sizeof(fake));
	add_stack(11, 3, 0x1000);
	fake.stacks[0].len = SAMPLER_MAX_DEPTH + 1;
	add_stack(12, 0, 0);
	assert_int_equal(sample_dump__collect(d, s), 0);
	assert_int_equal(sample_dump__nstacks(d), 0);
	sample_dump__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_find_stacks_moved_before_or_with_them),
		cmocka_unit_test(test_waits_find_their_site_after_the_merge),
		cmocka_unit_test(test_nothing_moves_until_the_maps_fill),
		cmocka_unit_test(test_bad_stack_length_is_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
