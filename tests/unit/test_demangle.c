// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_demangle.c - C++ and Rust names made readable (demangle.h), their
 * bounds against hostile names, the cache, and the symbolizer's use of
 * them (name demangled, system_name the symbol). Expected forms are
 * c++filt's and rustfilt's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/profile/profile.h"
#include "trapd/symbolize/demangle.h"
#include "trapd/symbolize/symbolizer.h"

static void expect(const char *mangled, const char *want)
{
	char out[DEMANGLE_MAX_OUTPUT + 1];

	assert_int_equal(demangle__name(mangled, out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

static void expect_err(const char *mangled, int err)
{
	char out[64] = "junk";

	assert_int_equal(demangle__name(mangled, out, sizeof(out)), err);
	assert_string_equal(out, "");
}

static void test_cxx_namespaces(void **state)
{
	expect("_ZN2v87Context6GlobalEv", "v8::Context::Global()");
	expect("_ZN7cxxspin5churnEi", "cxxspin::churn(int)");
	expect("_ZN1AC1Ev", "A::A()");
	expect("_ZN1AD2Ev", "A::~A()");
}

static void test_cxx_templates(void **state)
{
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	expect("_ZN7cxxspin11AccumulatorImE4stepEm",
	       "cxxspin::Accumulator<unsigned long>::step(unsigned long)");
}

static void test_cxx_operators(void **state)
{
	expect("_ZNK7cxxspin3VecplERKS0_", "cxxspin::Vec::operator+(cxxspin::Vec const&) const");
	expect("_ZN1XeqERKS_", "X::operator==(X const&)");
}

static void test_cxx_lambda_and_clone(void **state)
{
	expect("_ZZN7cxxspin3runEdENKUlmE_clEm.constprop.0",
	       "cxxspin::run(double)::{lambda(unsigned long)#1}::operator()(unsigned long) const "
	       "[clone .constprop.0]");
}

/* .symtab keeps the version of a symbol versioned with .symver. */
static void test_symbol_version_is_kept_after_the_name(void **state)
{
	expect("_ZNKSt5ctypeIcE13_M_widen_initEv@@GLIBCXX_3.4.11",
	       "std::ctype<char>::_M_widen_init() const@@GLIBCXX_3.4.11");
	expect("_ZN1AC1Ev@V1", "A::A()@V1");
	expect_err("_Zfoo@@V1", -EINVAL);
	expect_err("_Z@V1", -EINVAL);
}

static void test_rust_legacy_loses_its_hash(void **state)
{
	expect("_ZN4core3fmt9Formatter3pad17h2c7c6b0c4b8e5f6aE", "core::fmt::Formatter::pad");
	expect("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h5a8b9bc1f1c4bd3aE",
	       "std::rt::lang_start::{{closure}}");
}

static void test_rust_v0(void **state)
{
	expect("_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar");
	expect("_RINvNtC3std3mem8align_ofjEC3foo", "std::mem::align_of::<usize>");
}

/* A binder of 2^60 lifetimes kept libiberty printing for hours (found by
 * fuzz_demangle); a handful is a name. */
static void test_rust_binders_are_bounded(void **state)
{
	expect_err("_RINvCs1233_7mycrate3fooFGPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPQ_EE", -EINVAL);
	expect_err("_RNvC3foo3barFGzzzzzzzzzz_E", -EINVAL);
	expect("_RINvNtC3std3mem8align_ofFG0_RL0_hEuEC3foo",
	       "std::mem::align_of::<for<'a, 'b> fn(&'b u8)>");
}

static void test_plain_names_are_not_demangled(void **state)
{
	expect_err("main", -EINVAL);
	expect_err("burn_60", -EINVAL);
	expect_err("_start", -EINVAL);
	expect_err("", -EINVAL);
}

static void test_malformed_names_are_refused(void **state)
{
	expect_err("_Z", -EINVAL);
	expect_err("_Zfoo", -EINVAL);
	expect_err("_ZN3foo", -EINVAL);
	expect_err("_R", -EINVAL);
	expect_err("_RNvC", -EINVAL);
	/* A Rust hash one digit short is no Rust symbol, nor a C++ one. */
	expect_err("_ZN4core3fmt9Formatter3pad17h2c7c6b0c4b8e5f6E", -EINVAL);
}

/* nested - "_ZN" "1a" x @n "Ev": a::a::...::a(), 4 + 2 @n + 1 bytes. */
static char *nested(size_t n)
{
	char *s = malloc(2 * n + 6);
	size_t i, off = 3;

	assert_non_null(s);
	memcpy(s, "_ZN", 3);
	for (i = 0; i < n; i++, off += 2)
		memcpy(s + off, "1a", 2);
	memcpy(s + off, "Ev", 3);
	return s;
}

static void test_overlong_input_stays_mangled(void **state)
{
	char *ok = nested((DEMANGLE_MAX_INPUT - 5) / 2), *big = nested(DEMANGLE_MAX_INPUT);
	char *out = malloc(DEMANGLE_MAX_OUTPUT + 1);

	assert_non_null(out);
	assert_true(strlen(ok) <= DEMANGLE_MAX_INPUT);
	assert_int_equal(demangle__name(ok, out, DEMANGLE_MAX_OUTPUT + 1), 0);
	assert_memory_equal(out, "a::a::a::", 9);
	assert_true(strlen(big) > DEMANGLE_MAX_INPUT);
	assert_int_equal(demangle__name(big, out, DEMANGLE_MAX_OUTPUT + 1), -E2BIG);
	free(ok);
	free(big);
	free(out);
}

/* A short name can stand for a long one: each "S_" repeats a 100-byte
 * class name. The output stops at the bound, the name stays mangled. */
static void test_overlong_output_stays_mangled(void **state)
{
	char in[DEMANGLE_MAX_INPUT + 1], out[DEMANGLE_MAX_OUTPUT + 1];
	size_t off;

	off = (size_t)snprintf(in, sizeof(in), "_Z1f100");
	memset(in + off, 'x', 100);
	off += 100;
	while (off + 2 < sizeof(in) - 1) {
		memcpy(in + off, "S_", 2);
		off += 2;
	}
	in[off] = '\0';
	assert_int_equal(demangle__name(in, out, sizeof(out)), -E2BIG);
	assert_string_equal(out, "");
	/* and a buffer too small for an ordinary name */
	assert_int_equal(demangle__name("_ZN2v87Context6GlobalEv", out, 8), -E2BIG);
	assert_int_equal(demangle__name("_ZN2v87Context6GlobalEv", out, 0), -E2BIG);
}

struct deep_run {
	const char *in;
	int err;
};

static void *deep_thread(void *arg)
{
	struct deep_run *r = arg;
	char out[DEMANGLE_MAX_OUTPUT + 1];

	r->err = demangle__name(r->in, out, sizeof(out));
	return NULL;
}

/* run_with_stack - demangle @in on a thread with @stack bytes of stack. */
static int run_with_stack(const char *in, size_t stack)
{
	struct deep_run r = { .in = in, .err = 1 };
	pthread_attr_t attr;
	pthread_t t;

	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstacksize(&attr, stack), 0);
	assert_int_equal(pthread_create(&t, &attr, deep_thread, &r), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
	return r.err;
}

/* The deepest name accepted, a chain of pointers, on a small stack: it
 * is refused rather than overflowing, and demangled where it fits. */
static void test_deep_names_respect_the_stack(void **state)
{
	char in[DEMANGLE_MAX_INPUT + 1];
	size_t off = (size_t)snprintf(in, sizeof(in), "_Z1f");

	memset(in + off, 'P', DEMANGLE_MAX_INPUT - off - 1);
	in[DEMANGLE_MAX_INPUT - 1] = 'i';
	in[DEMANGLE_MAX_INPUT] = '\0';
	assert_int_equal(run_with_stack(in, 256u << 10), -ENOSPC);
	assert_int_equal(run_with_stack(in, 2u << 20), 0);
}

static void test_cache_returns_the_same_names(void **state)
{
	struct demangle_cache *c = demangle_cache__new(4);
	struct demangle_cache_stats st;
	const char *plain = "burn_60", *bad = "_Zfoo";
	char name[32];
	int i;

	assert_non_null(c);
	assert_ptr_equal(demangle_cache__get(c, plain), plain);
	assert_ptr_equal(demangle_cache__get(c, bad), bad);
	assert_ptr_equal(demangle_cache__get(c, bad), bad);
	assert_string_equal(demangle_cache__get(c, "_ZN2v87Context6GlobalEv"),
			    "v8::Context::Global()");
	assert_string_equal(demangle_cache__get(c, "_ZN2v87Context6GlobalEv"),
			    "v8::Context::Global()");
	demangle_cache__get_stats(c, &st);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.demangled, 1);
	/* Past its size it starts again, and still answers right. */
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "_Z4fn%02dv", i);
		assert_memory_equal(demangle_cache__get(c, name), "fn", 2);
	}
	demangle_cache__get_stats(c, &st);
	assert_true(st.resets >= 2);
	assert_string_equal(demangle_cache__get(c, "_Z4fn09v"), "fn09()");
	demangle_cache__free(c);
	demangle_cache__free(NULL);
}

/* A function of our own under a C++ symbol, named through the
 * symbolizer: the profile shows it demangled and keeps the symbol as its
 * system name. A C function beside it keeps one name for both. */
__attribute__((noinline, used)) void cxx_marker(void) __asm__("_ZN9demangled6markerEv");
__attribute__((noinline, used)) void cxx_marker(void)
{
	__asm__ volatile("");
}

static void test_symbolizer_keeps_both_names(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct profile *p = profile__new();
	uint64_t ips[2] = { (uint64_t)(uintptr_t)&cxx_marker,
			    (uint64_t)(uintptr_t)&test_symbolizer_keeps_both_names + 1 };
	const struct profile_function *f;
	uint32_t locs[2];

	assert_non_null(s);
	assert_non_null(p);
	assert_int_equal(symbolizer__snapshot(s, getpid()), 0);
	assert_int_equal(symbolizer__user_stack(s, p, getpid(), ips, 2, locs), 0);
	f = &p->functions[p->locations[locs[0] - 1].function - 1];
	assert_string_equal(profile__str(p, f->name), "demangled::marker()");
	assert_string_equal(profile__str(p, f->system_name), "_ZN9demangled6markerEv");
	f = &p->functions[p->locations[locs[1] - 1].function - 1];
	assert_string_equal(profile__str(p, f->name), "test_symbolizer_keeps_both_names");
	assert_int_equal(f->name, f->system_name);
	profile__free(p);
	symbolizer__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx_namespaces),
		cmocka_unit_test(test_cxx_templates),
		cmocka_unit_test(test_cxx_operators),
		cmocka_unit_test(test_cxx_lambda_and_clone),
		cmocka_unit_test(test_symbol_version_is_kept_after_the_name),
		cmocka_unit_test(test_rust_legacy_loses_its_hash),
		cmocka_unit_test(test_rust_v0),
		cmocka_unit_test(test_rust_binders_are_bounded),
		cmocka_unit_test(test_plain_names_are_not_demangled),
		cmocka_unit_test(test_malformed_names_are_refused),
		cmocka_unit_test(test_overlong_input_stays_mangled),
		cmocka_unit_test(test_overlong_output_stays_mangled),
		cmocka_unit_test(test_deep_names_respect_the_stack),
		cmocka_unit_test(test_cache_returns_the_same_names),
		cmocka_unit_test(test_symbolizer_keeps_both_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
