// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_stacktree.c - building the call tree: paths, counts, kinds, names,
 * the base side, caps. */
#include "profile_fixture.h"

#include <errno.h>
#include <stdio.h>

#include "trapd/profile/stacktree.h"

/* check_invariants - total = self + callees' totals on every node; depths
 * and parents consistent; children strictly sorted. */
static void check_invariants(const struct stacktree_node *n)
{
	int64_t sum = n->self, base_sum = n->base_self;
	uint32_t i;

	for (i = 0; i < n->nchildren; i++) {
		const struct stacktree_node *c = n->children[i];

		assert_ptr_equal(c->parent, n);
		assert_int_equal(c->depth, n->depth + 1);
		if (i)
			assert_true(strcmp(n->children[i - 1]->name, c->name) < 0 ||
				    (!strcmp(n->children[i - 1]->name, c->name) &&
				     n->children[i - 1]->kind < c->kind));
		sum += c->total;
		base_sum += c->base_total;
		check_invariants(c);
	}
	assert_int_equal(n->total, sum);
	assert_int_equal(n->base_total, base_sum);
}

/* path - the node at the end of @names (process first), or NULL. Kinds
 * are looked up in order user, kernel, unresolved, process. */
static const struct stacktree_node *path(const struct stacktree *t, ...)
{
	static const enum stacktree_kind kinds[] = { STACKTREE_KIND_USER, STACKTREE_KIND_KERNEL,
						     STACKTREE_KIND_UNRESOLVED,
						     STACKTREE_KIND_PROCESS,
						     STACKTREE_KIND_INLINED };
	const struct stacktree_node *n = t->root, *c = NULL;
	const char *name;
	va_list ap;
	size_t k;

	va_start(ap, t);
	while (n && (name = va_arg(ap, const char *))) {
		for (k = 0, c = NULL; k < 5 && !c; k++)
			c = stacktree__find_child(n, name, kinds[k]);
		n = c;
	}
	va_end(ap);
	return n;
}

static struct stacktree *standard_tree(struct profile **pp)
{
	struct profile *p = fx_standard();
	struct stacktree *t = NULL;

	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_non_null(t);
	check_invariants(t->root);
	if (pp)
		*pp = p;
	else
		profile__free(p);
	return t;
}

static void test_processes_under_root_sorted_by_name(void **state)
{
	struct stacktree *t = standard_tree(NULL);
	const struct stacktree_node *r = t->root;

	assert_string_equal(r->name, "all");
	assert_int_equal(r->kind, STACKTREE_KIND_ROOT);
	assert_int_equal(r->total, 135);
	assert_int_equal(r->self, 0);
	assert_int_equal(r->nchildren, 3);
	assert_string_equal(r->children[0]->name, "app");
	assert_string_equal(r->children[1]->name, "swapper/0");
	assert_string_equal(r->children[2]->name, "worker");
	/* Two pids named app merge into one process node. */
	assert_int_equal(r->children[0]->total, 118);
	assert_int_equal(r->children[0]->kind, STACKTREE_KIND_PROCESS);
	/* The sample without frames stays on its process. */
	assert_int_equal(r->children[2]->self, 1);
	assert_int_equal(r->children[2]->total, 13);
	stacktree__free(t);
}

static void test_exact_counts_along_paths(void **state)
{
	struct stacktree *t = standard_tree(NULL);
	const struct stacktree_node *n;

	n = path(t, "app", "main", NULL);
	assert_int_equal(n->self, 0);
	assert_int_equal(n->total, 118);
	assert_int_equal(n->nchildren, 4);
	assert_string_equal(n->children[0]->name, "burn_30");
	assert_string_equal(n->children[1]->name, "burn_60");
	assert_string_equal(n->children[2]->name, "fib");
	assert_string_equal(n->children[3]->name, "write_out");
	n = path(t, "app", "main", "burn_60", NULL);
	assert_int_equal(n->self, 70);
	assert_int_equal(n->total, 70);
	assert_int_equal(n->depth, 3);
	n = path(t, "worker", "start_thread", NULL);
	assert_int_equal(n->self, 0);
	assert_int_equal(n->total, 12);
	n = path(t, "worker", "start_thread", "a&b", "operator<<", NULL);
	assert_int_equal(n->self, 7);
	assert_null(path(t, "app", "main", "never_counted", NULL));
	assert_int_equal(t->truncated, 0);
	stacktree__free(t);
}

static void test_recursion_makes_one_node_per_level(void **state)
{
	struct stacktree *t = standard_tree(NULL);
	const struct stacktree_node *n;

	n = path(t, "app", "main", "fib", NULL);
	assert_int_equal(n->self, 2);
	assert_int_equal(n->total, 13);
	n = path(t, "app", "main", "fib", "fib", NULL);
	assert_int_equal(n->self, 0);
	assert_int_equal(n->total, 8);
	n = path(t, "app", "main", "fib", "fib", "fib", NULL);
	assert_int_equal(n->self, 8);
	assert_int_equal(n->nchildren, 0);
	n = path(t, "app", "main", "fib", "helper", "fib", NULL);
	assert_int_equal(n->self, 3);
	assert_int_equal(n->depth, 5);
	stacktree__free(t);
}

static void test_kernel_and_unresolved_frames(void **state)
{
	struct stacktree *t = standard_tree(NULL);
	const struct stacktree_node *n;

	n = path(t, "app", "main", "write_out", "do_syscall_64_[k]", NULL);
	assert_non_null(n);
	assert_int_equal(n->kind, STACKTREE_KIND_KERNEL);
	assert_int_equal(n->children[0]->kind, STACKTREE_KIND_KERNEL);
	assert_string_equal(n->children[0]->name, "__x64_sys_write_[k]");
	assert_int_equal(n->children[0]->self, 5);
	assert_int_equal(n->parent->kind, STACKTREE_KIND_USER);
	n = path(t, "worker", "start_thread", "libc.so.6+0x1234", NULL);
	assert_non_null(n);
	assert_int_equal(n->kind, STACKTREE_KIND_UNRESOLVED);
	assert_int_equal(n->self, 3);
	/* A kernel address without a mapping is still a kernel frame. */
	n = path(t, "swapper/0", "secondary_startup_64_[k]", "default_idle_[k]",
		 "0xffffffff81abcdef_[k]", NULL);
	assert_non_null(n);
	assert_int_equal(n->kind, STACKTREE_KIND_KERNEL);
	assert_int_equal(n->self, 4);
	assert_int_equal(t->max_depth, 5);
	stacktree__free(t);
}

static void test_inlined_functions_are_frames_of_their_own(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = NULL;
	const struct stacktree_node *n;

	assert_non_null(p);
	fx_stack(p, "app", 1, 9, "main", "inl:caller>mid>leaf", NULL);
	fx_stack(p, "app", 1, 1, "main", "caller", NULL);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	n = path(t, "app", "main", "caller", "mid (inlined)", "leaf (inlined)", NULL);
	assert_non_null(n);
	assert_int_equal(n->kind, STACKTREE_KIND_INLINED);
	assert_int_equal(n->self, 9);
	assert_int_equal(n->parent->kind, STACKTREE_KIND_INLINED);
	assert_int_equal(n->parent->parent->kind, STACKTREE_KIND_USER);
	/* The function the address is in merges with its plain frames. */
	assert_int_equal(n->parent->parent->total, 10);
	assert_int_equal(n->parent->parent->self, 1);
	assert_int_equal(t->max_depth, 5);
	stacktree__free(t);
	profile__free(p);
}

static void test_same_name_different_kind_are_siblings(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = NULL;
	const struct stacktree_node *app;

	/* A user function literally named like a kernel one keeps its own
	 * node: kinds are part of the key. */
	fx_stack(p, "app", 1, 1, "f_[k]", NULL);
	fx_stack(p, "app", 1, 2, "k:f", NULL);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	app = t->root->children[0];
	assert_int_equal(app->nchildren, 2);
	assert_int_equal(app->children[0]->kind, STACKTREE_KIND_USER);
	assert_int_equal(app->children[0]->total, 1);
	assert_int_equal(app->children[1]->kind, STACKTREE_KIND_KERNEL);
	assert_int_equal(app->children[1]->total, 2);
	check_invariants(t->root);
	stacktree__free(t);
	profile__free(p);
}

static void test_base_side_holds_a_second_profile(void **state)
{
	struct profile *base = profile__new();
	struct stacktree *t = standard_tree(NULL);
	const struct stacktree_node *n;

	fx_stack(base, "app", 100, 40, "main", "burn_60", NULL);
	fx_stack(base, "app", 100, 5, "main", "old_path", NULL);
	assert_int_equal(stacktree__add_profile(t, base, STACKTREE_BASE), 0);
	check_invariants(t->root);
	assert_int_equal(t->root->total, 135);
	assert_int_equal(t->root->base_total, 45);
	n = path(t, "app", "main", "burn_60", NULL);
	assert_int_equal(n->self, 70);
	assert_int_equal(n->base_self, 40);
	n = path(t, "app", "main", "old_path", NULL);
	assert_int_equal(n->total, 0);
	assert_int_equal(n->base_total, 5);
	n = path(t, "app", "main", "burn_30", NULL);
	assert_int_equal(n->base_total, 0);
	stacktree__free(t);
	profile__free(base);
}

static void test_node_cap_cuts_stacks_and_counts_them(void **state)
{
	struct profile *p = fx_standard();
	struct stacktree *t = stacktree__new(4);
	const struct stacktree_node *n;

	assert_non_null(t);
	assert_int_equal(stacktree__add_profile(t, p, STACKTREE_MAIN), 0);
	/* root, app, app;main, app;main;burn_60: then the cap. */
	assert_int_equal(t->nnodes, 4);
	assert_int_equal(t->root->total, 135);
	n = path(t, "app", "main", "burn_60", NULL);
	assert_int_equal(n->self, 70);
	n = path(t, "app", "main", NULL);
	assert_int_equal(n->self, 30 + 8 + 2 + 3 + 5);
	/* Every sample of swapper/0 and worker stops at the root. */
	assert_int_equal(t->root->self, 17);
	assert_int_equal(t->truncated, 48 + 17);
	check_invariants(t->root);
	stacktree__free(t);
	profile__free(p);
}

static void test_deepest_stack_fits(void **state)
{
	const char *frames[PROFILE_MAX_DEPTH];
	struct profile *p = profile__new();
	struct stacktree *t = NULL;
	char names[PROFILE_MAX_DEPTH][16];
	uint32_t i;

	for (i = 0; i < PROFILE_MAX_DEPTH; i++) {
		snprintf(names[i], sizeof(names[i]), "f%u", i);
		frames[i] = names[i];
	}
	fx_stackv(p, "deep", 1, 3, frames, PROFILE_MAX_DEPTH);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(t->max_depth, PROFILE_MAX_DEPTH + 1);
	assert_int_equal(t->nnodes, PROFILE_MAX_DEPTH + 2);
	assert_int_equal(t->truncated, 0);
	check_invariants(t->root);
	stacktree__free(t);
	profile__free(p);
}

static void test_counts_saturate(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = NULL;

	fx_stack(p, "app", 1, INT64_MAX, "main", NULL);
	fx_stack(p, "app", 1, INT64_MAX, "main", NULL);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_true(t->root->total == INT64_MAX);
	assert_true(t->root->children[0]->children[0]->self == INT64_MAX);
	stacktree__free(t);
	profile__free(p);
}

static void test_clean_name(void **state)
{
	char buf[64];

	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "plain::name(int)"),
			    "plain::name(int)");
	/* Multi-byte characters pass; broken ones become one '?' per byte. */
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "caf\xc3\xa9 \xe6\x97\xa5"),
			    "caf\xc3\xa9 \xe6\x97\xa5");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf),
						  "a\xff"
						  "b\xc3"),
			    "a?b?");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "tab\there\nnl\x1b[31m"),
			    "tab?here?nl?[31m");
	/* Overlong '/', a surrogate, DEL, a C1 control (U+0085), U+FFFF. */
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "\xc0\xaf"), "??");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "\xed\xa0\x80"), "???");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "x\x7fy\xc2\x85z"), "x?y??z");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "\xef\xbf\xbf"), "???");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "\xf4\x90\x80\x80"), "????");
	assert_string_equal(stacktree__clean_name(buf, sizeof(buf), "\xf0\x9f\x94\xa5!"),
			    "\xf0\x9f\x94\xa5!");
	/* Cut at a character boundary, never inside one. */
	assert_string_equal(stacktree__clean_name(buf, 5, "ab\xc3\xa9\xc3\xa9"), "ab\xc3\xa9");
	assert_string_equal(stacktree__clean_name(buf, 4, "ab\xc3\xa9"), "ab");
	assert_string_equal(stacktree__clean_name(buf, 1, "abc"), "");
}

static void test_hostile_names_are_cleaned_in_the_tree(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = NULL;
	const struct stacktree_node *app;

	fx_stack(p, "ev\x1bil", 1, 1, "bad\xff\x01name", NULL);
	fx_stack(p, "", 2, 1, "x", NULL);
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_string_equal(t->root->children[0]->name, "[unknown]");
	app = t->root->children[1];
	assert_string_equal(app->name, "ev?il");
	assert_string_equal(app->children[0]->name, "bad??name");
	stacktree__free(t);
	profile__free(p);
}

static void test_empty_profile(void **state)
{
	struct profile *p = profile__new();
	struct stacktree *t = NULL;

	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(t->nnodes, 1);
	assert_int_equal(t->root->total, 0);
	assert_int_equal(t->root->nchildren, 0);
	assert_int_equal(t->max_depth, 0);
	stacktree__free(t);
	profile__free(p);
	stacktree__free(NULL);
}

/* Many random stacks over a small set of names: the tree must agree with
 * a count of each distinct stack done the obvious way. */
static void test_random_stacks_match_naive_count(void **state)
{
	static const char *const pool[] = { "a", "b", "c", "k:d", "libc+0x10", "e" };
	struct profile *p = profile__new();
	struct stacktree *t = NULL;
	const char *frames[12];
	int64_t want = 0;
	unsigned seed = 12345, i, j, n;

	for (i = 0; i < 3000; i++) {
		n = (unsigned)(rand_r(&seed) % 12);
		for (j = 0; j < n; j++)
			frames[j] = pool[rand_r(&seed) % 6];
		fx_stackv(p, i % 3 ? "p1" : "p2", i % 5, 1 + i % 4, frames, n);
		want += 1 + i % 4;
	}
	assert_int_equal(stacktree__from_profile(p, &t), 0);
	assert_int_equal(t->root->total, want);
	check_invariants(t->root);
	/* Spot-check one path against the samples. */
	{
		const struct stacktree_node *n_ab = path(t, "p1", "a", "b", NULL);
		int64_t through = 0;
		size_t s;

		for (s = 0; s < p->nsamples; s++) {
			const struct profile_sample *sm = &p->samples[s];
			const uint32_t *l = profile__sample_locs(p, sm);
			char b1[64], b2[64];

			if (sm->nlocs < 2 || strcmp(profile__str(p, sm->comm), "p1"))
				continue;
			if (!strcmp(profile__location_name(p, l[sm->nlocs - 1], b1, 64), "a") &&
			    !strcmp(profile__location_name(p, l[sm->nlocs - 2], b2, 64), "b") &&
			    !profile__location_is_kernel(p, l[sm->nlocs - 2]))
				through += sm->count;
		}
		assert_non_null(n_ab);
		assert_int_equal(n_ab->total, through);
	}
	stacktree__free(t);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes_under_root_sorted_by_name),
		cmocka_unit_test(test_exact_counts_along_paths),
		cmocka_unit_test(test_recursion_makes_one_node_per_level),
		cmocka_unit_test(test_kernel_and_unresolved_frames),
		cmocka_unit_test(test_inlined_functions_are_frames_of_their_own),
		cmocka_unit_test(test_same_name_different_kind_are_siblings),
		cmocka_unit_test(test_base_side_holds_a_second_profile),
		cmocka_unit_test(test_node_cap_cuts_stacks_and_counts_them),
		cmocka_unit_test(test_deepest_stack_fits),
		cmocka_unit_test(test_counts_saturate),
		cmocka_unit_test(test_clean_name),
		cmocka_unit_test(test_hostile_names_are_cleaned_in_the_tree),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_random_stacks_match_naive_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
