// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_unwinder.c - walk this process's own stack, captured as the
 * sampler captures a target's (ip, sp, bp and a copy of the stack top),
 * through functions built without frame pointers, a signal frame and a
 * thread, and check each frame's name down to the entry point; a short
 * copy, a garbage ip and a frame-pointer-only (JIT-like) region end the
 * walk as the header promises. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trapd/symbolize/elfsym.h"
#include "trapd/symbolize/procmaps.h"
#include "trapd/symbolize/symbolizer.h"
#include "trapd/symbolize/unwinder.h"

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))
#define COPY_MAX 16384

struct sample {
	struct unwind_input in;
	uint8_t stack[COPY_MAX];
};

/* stack_end - the end of the mapping holding @sp (the stack's top). */
static uint64_t stack_end(uint64_t sp)
{
	struct procmaps m;
	uint64_t end = sp;
	size_t i;

	assert_int_equal(procmaps__read("/proc", getpid(), 0, &m), 0);
	for (i = 0; i < m.n; i++) {
		if (m.entries[i].start <= sp && sp < m.entries[i].end)
			end = m.entries[i].end;
	}
	procmaps__free(&m);
	return end;
}

/* capture - what the sampler takes: the registers here, and the stack
 * from here up (calls made after the registers are read only write below
 * this sp). */
NOFP static void capture(struct sample *s)
{
	uint64_t ip, sp, bp, len;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	len = stack_end(sp) - sp;
	if (len > COPY_MAX)
		len = COPY_MAX;
	memcpy(s->stack, (const void *)sp, len);
	s->in = (struct unwind_input){ ip, sp, bp, s->stack, (uint32_t)len };
}

/* the empty asm after each call keeps it a call, not a tail jump */
NOFP static void chain_c(struct sample *s)
{
	capture(s);
	__asm__ volatile("" ::: "memory");
}

NOFP static void chain_b(struct sample *s)
{
	chain_c(s);
	__asm__ volatile("" ::: "memory");
}

NOFP static void chain_a(struct sample *s)
{
	chain_b(s);
	__asm__ volatile("" ::: "memory");
}

NOFP static int recurse(struct sample *s, int n)
{
	volatile int pad[2] = { n, n };

	if (n <= 0)
		capture(s);
	else
		pad[1] += recurse(s, n - 1);
	return pad[1];
}

static struct sample *sample_new(void)
{
	struct sample *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	return s;
}

/* names - the function names of the walk, "?" where unknown, joined by
 * spaces into @buf. */
static const char *names(const struct unwind_result *r, char *buf, size_t len)
{
	struct symbolizer *sym = symbolizer__new(NULL);
	const char *name;
	size_t used = 0;
	uint32_t i;

	assert_non_null(sym);
	assert_int_equal(symbolizer__snapshot(sym, getpid()), 0);
	buf[0] = '\0';
	for (i = 0; i < r->n && used < len; i++) {
		name = symbolizer__name(sym, getpid(), r->ips[i] - (i ? 1 : 0));
		used += (size_t)snprintf(buf + used, len - used, " %s", name ? name : "?");
	}
	symbolizer__free(sym);
	return buf;
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("'%s' not in '%s'", needle, haystack);
}

static void test_unwinds_own_chain_without_frame_pointers(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;
	struct unwinder_stats st;
	char buf[4096];

	assert_non_null(u);
	chain_a(s);
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	names(&r, buf, sizeof(buf));
	assert_contains(buf, " capture chain_c chain_b chain_a "
			     "test_unwinds_own_chain_without_frame_pointers ");
	assert_contains(buf, " main __libc_start_call_main __libc_start_main");
	assert_int_equal(r.end, UNWIND_END_ENTRY);
	assert_int_equal(r.fp_steps, 0);
	/* again: every rule from the cache */
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	unwinder__get_stats(u, &st);
	assert_int_equal(st.walks, 2);
	assert_int_equal(st.ended[UNWIND_END_ENTRY], 2);
	assert_int_equal(st.rule_cache_hits, r.n);
	assert_int_equal(st.maps_reads, 1);
	assert_true(st.files_loaded >= 2 && st.cfi_bytes > 0);
	free(s);
	unwinder__free(u);
}

static void test_short_copy_ends_stack_short(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;

	chain_a(s);
	s->in.stack_len = 256;
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_int_equal(r.end, UNWIND_END_STACK_SHORT);
	assert_true(r.n >= 1 && r.n < 8);
	s->in.stack_len = 0;
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_int_equal(r.end, UNWIND_END_STACK_SHORT);
	assert_int_equal(r.n, 1);
	free(s);
	unwinder__free(u);
}

static void test_garbage_ip_is_not_mapped(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;
	uint32_t i;

	s->in = (struct unwind_input){ 0x10, 0x7ffc00000000, 0, s->stack, COPY_MAX };
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.end, UNWIND_END_NOT_MAPPED);
	/* a real ip over a stack of garbage: some end, never a bogus frame */
	chain_a(s);
	for (i = 0; i < COPY_MAX; i++)
		s->stack[i] = (uint8_t)(i * 37 + 11);
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_true(r.n >= 1 && r.end != UNWIND_END_ENTRY);
	unwinder__free(u);
	free(s);
}

static void test_unknown_process(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;

	chain_a(s);
	assert_int_equal(unwinder__unwind(u, 0x3ffffff0, &s->in, &r), -ESRCH);
	assert_int_equal(r.n, 0);
	unwinder__free(u);
	free(s);
}

static void put(struct sample *s, uint64_t addr, uint64_t v)
{
	memcpy(s->stack + (addr - s->in.sp), &v, sizeof(v));
}

/* Code in an anonymous executable mapping has no CFI: JIT code, stepped
 * by its frame pointer. */
static void test_jit_region_is_stepped_by_frame_pointer(void **state)
{
	uint64_t sp = 0x7ffc00000000;
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(jit != MAP_FAILED);
	s->in = (struct unwind_input){ (uint64_t)jit + 0x10, sp, sp + 0x40, s->stack, 0x100 };
	put(s, sp + 0x40, sp + 0x80);		   /* saved rbp */
	put(s, sp + 0x48, (uint64_t)jit + 0x20);   /* return address */
	put(s, sp + 0x80, sp + 0xc0);		   /* saved rbp */
	put(s, sp + 0x88, (uint64_t)jit + 0x1000); /* past the mapping */
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.ips[0], (uint64_t)jit + 0x10);
	assert_int_equal(r.ips[1], (uint64_t)jit + 0x20);
	assert_int_equal(r.fp_steps, 2);
	assert_int_equal(r.end, UNWIND_END_NOT_MAPPED);
	/* a frame pointer below sp leads nowhere */
	s->in.bp = sp - 0x40;
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.end, UNWIND_END_NO_CFI);
	/* one that loops back to itself */
	s->in.bp = sp + 0x40;
	put(s, sp + 0x40, sp + 0x40);
	put(s, sp + 0x48, (uint64_t)jit + 0x20);
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_true(r.n <= 3);
	munmap(jit, 4096);
	unwinder__free(u);
	free(s);
}

static struct sample *sig_sample;

NOFP static void on_signal(int sig)
{
	capture(sig_sample);
	__asm__ volatile("" ::: "memory");
}

NOFP static void chain_signal(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

static void test_walks_through_a_signal_frame(void **state)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct unwinder *u = unwinder__new(NULL, 0);
	struct unwind_result r;
	char buf[4096];

	sig_sample = sample_new();
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	chain_signal();
	signal(SIGUSR1, SIG_DFL);
	assert_int_equal(unwinder__unwind(u, getpid(), &sig_sample->in, &r), 0);
	names(&r, buf, sizeof(buf));
	/* the handler returns to the trampoline's first byte (which the
	 * symbolizer, naming the call before a return address, does not
	 * name); after the signal frame come the interrupted functions */
	assert_contains(buf, " capture on_signal ");
	assert_contains(buf, " raise chain_signal test_walks_through_a_signal_frame ");
	assert_contains(buf, " main __libc_start_call_main");
	assert_int_equal(r.end, UNWIND_END_ENTRY);
	unwinder__free(u);
	free(sig_sample);
}

static void *thread_main(void *arg)
{
	chain_a(arg);
	return NULL;
}

static void test_thread_ends_at_its_entry(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;
	pthread_t t;
	char buf[4096];

	assert_int_equal(pthread_create(&t, NULL, thread_main, s), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* the thread's stack is gone, its copy is not */
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	names(&r, buf, sizeof(buf));
	assert_contains(buf, " capture chain_c chain_b chain_a thread_main start_thread");
	assert_int_equal(r.end, UNWIND_END_ENTRY);
	unwinder__free(u);
	free(s);
}

/* vdso_function - the address of @name in this process's vDSO. */
static uint64_t vdso_function(const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	void *copy = malloc(len);
	struct elfsym *e;
	uint64_t v;

	assert_non_null(copy);
	memcpy(copy, eh, len);
	e = elfsym__open_mem(copy, len);
	assert_non_null(e);
	assert_int_equal(elfsym__find(e, name, &v), 0);
	elfsym__free(e);
	free(copy);
	return (uint64_t)eh + v;
}

/* A sample at the first byte of a vDSO function called from capture():
 * the vDSO's CFI (trapd's own) leads back into the chain. */
static void test_vdso_frame(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new(), *v = sample_new();
	struct unwind_result r;
	char buf[4096];

	chain_a(s);
	v->in = (struct unwind_input){ vdso_function("clock_gettime"), s->in.sp - 8, s->in.bp,
				       v->stack, s->in.stack_len };
	memcpy(v->stack, &s->in.ip, 8);
	memcpy(v->stack + 8, s->stack, s->in.stack_len - 8);
	assert_int_equal(unwinder__unwind(u, getpid(), &v->in, &r), 0);
	names(&r, buf, sizeof(buf));
	assert_contains(buf, "clock_gettime capture chain_c chain_b chain_a ");
	assert_int_equal(r.end, UNWIND_END_ENTRY);
	unwinder__free(u);
	free(s);
	free(v);
}

static void test_deep_stack_ends_at_depth(void **state)
{
	struct unwinder *u = unwinder__new(NULL, 0);
	struct sample *s = sample_new();
	struct unwind_result r;

	recurse(s, UNWINDER_MAX_FRAMES + 10);
	assert_int_equal(unwinder__unwind(u, getpid(), &s->in, &r), 0);
	assert_int_equal(r.n, UNWINDER_MAX_FRAMES);
	assert_int_equal(r.end, UNWIND_END_DEPTH);
	unwinder__free(u);
	free(s);
}

static void test_end_names(void **state)
{
	assert_string_equal(unwinder__end_name(UNWIND_END_ENTRY), "entry");
	assert_string_equal(unwinder__end_name(UNWIND_END_STACK_SHORT), "stack_short");
	assert_string_equal(unwinder__end_name(UNWIND_END_DEPTH), "depth");
	assert_string_equal(unwinder__end_name(UNWIND_END_NR), "unknown");
	assert_true(unwinder__supported());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwinds_own_chain_without_frame_pointers),
		cmocka_unit_test(test_short_copy_ends_stack_short),
		cmocka_unit_test(test_garbage_ip_is_not_mapped),
		cmocka_unit_test(test_unknown_process),
		cmocka_unit_test(test_jit_region_is_stepped_by_frame_pointer),
		cmocka_unit_test(test_walks_through_a_signal_frame),
		cmocka_unit_test(test_thread_ends_at_its_entry),
		cmocka_unit_test(test_vdso_frame),
		cmocka_unit_test(test_deep_stack_ends_at_depth),
		cmocka_unit_test(test_end_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
