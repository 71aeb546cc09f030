// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_symwork.c - the capture's symbolization worker: snapshots queued
 * before the final job are done before it, the job runs once and makes
 * the fd readable, a worker stopped early never runs it, and a symbolizer
 * whose budget is spent loads nothing and says so. Symbolizes this very
 * test process, whose own functions are in its .symtab.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trapd/profile/profile.h"
#include "trapd/symbolize/symwork.h"

struct job_seen {
	int runs;
	const char *name; /* of this file's marker function, seen by the job */
	bool budget_started;
};

__attribute__((noinline)) void test_symwork_marker(void);
__attribute__((noinline)) void test_symwork_marker(void)
{
	__asm__ volatile("");
}

static void job(struct symbolizer *sym, struct symbudget *budget, void *ctx)
{
	struct job_seen *seen = ctx;

	seen->runs++;
	seen->name = symbolizer__name(sym, getpid(), (uint64_t)(uintptr_t)test_symwork_marker);
	seen->budget_started = budget->started_ns != 0;
}

static void test_snapshots_done_before_the_job(void **state)
{
	struct job_seen seen = { 0 };
	struct pollfd pfd;
	struct symwork *w;

	(void)state;
	w = symwork__start(symbolizer__new("/proc"), NULL);
	assert_non_null(w);
	assert_int_equal(symwork__snapshot(w, getpid()), 0);
	assert_int_equal(symwork__finish(w, job, &seen), 0);
	assert_int_equal(symwork__finish(w, job, &seen), -EALREADY);
	assert_int_equal(symwork__snapshot(w, getpid()), -EALREADY);
	pfd.fd = symwork__fd(w);
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_true(symwork__done(w));
	assert_int_equal(seen.runs, 1);
	assert_non_null(seen.name);
	assert_string_equal(seen.name, "test_symwork_marker");
	assert_true(seen.budget_started);
	symwork__free(w);
}

static void test_wait_blocks_until_the_job_ran(void **state)
{
	struct job_seen seen = { 0 };
	struct symwork *w;

	(void)state;
	w = symwork__start(symbolizer__new("/proc"), NULL);
	assert_non_null(w);
	symwork__snapshot(w, getpid());
	symwork__finish(w, job, &seen);
	symwork__wait(w);
	assert_int_equal(seen.runs, 1);
	assert_true(symwork__done(w));
	symwork__free(w);
}

static void test_freed_early_never_runs_the_job(void **state)
{
	struct symwork *w;

	(void)state;
	w = symwork__start(symbolizer__new("/proc"), NULL);
	assert_non_null(w);
	assert_int_equal(symwork__snapshot(w, getpid()), 0);
	symwork__free(w); /* no job: nothing to run, and it stops */
}

/* A symbolizer whose wall time is spent loads no file: the frame keeps
 * its address and its file says "over budget". */
static void test_spent_budget_loads_nothing(void **state)
{
	struct symbolizer *sym = symbolizer__new("/proc");
	uint64_t ip = (uint64_t)(uintptr_t)test_symwork_marker;
	const struct symbolizer_file_stats *fs;
	struct profile *p = profile__new();
	struct timespec ts;
	struct symbudget b;
	uint32_t loc;
	size_t n, i;
	bool over = false;

	(void)state;
	assert_non_null(sym);
	assert_non_null(p);
	symbudget__init(&b);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	b.started_ns = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec - 2000000000ll;
	b.max[SYMBUDGET_TIME] = 1000000000ull; /* 1 s, started 2 s ago */
	symbolizer__use_budget(sym, &b);
	assert_int_equal(symbolizer__snapshot(sym, getpid()), 0);
	assert_null(symbolizer__name(sym, getpid(), ip));
	assert_int_equal(symbolizer__user_stack(sym, p, getpid(), &ip, 1, &loc), 0);
	fs = symbolizer__file_stats(sym, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(fs[i].source, "over budget"))
			over = true;
	assert_true(over);
	assert_true(b.refused[SYMBUDGET_TIME] >= 1);
	assert_true(symbudget__hit(&b));
	profile__free(p);
	symbolizer__free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshots_done_before_the_job),
		cmocka_unit_test(test_wait_blocks_until_the_job_ran),
		cmocka_unit_test(test_freed_early_never_runs_the_job),
		cmocka_unit_test(test_spent_budget_loads_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
