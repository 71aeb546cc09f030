/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile_fixture.h - synthetic profiles for the report tests (stacktree,
 * report, folded, flamegraph), built with the profile__ API the way a
 * capture builds them.
 *
 * Frames are given outermost first as strings:
 *   "name"          a user function in /usr/bin/app
 *   "k:name"        a kernel function (mapping [kernel.kallsyms])
 *   "libc+0xOFF"    an unresolved frame in libc.so.6 at file offset OFF
 *   "kaddr:0xADDR"  an unresolved kernel frame known by address only
 *   "inl:a>b>c"     one location in /usr/bin/app: function a, into which b
 *                   was inlined, into which c was (outermost first)
 * Any failure aborts the test (fail_msg), so callers need no checks.
 */
#ifndef TRAPD_TESTS_PROFILE_FIXTURE_H
#define TRAPD_TESTS_PROFILE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/profile/profile.h"

#define FX_APP_START 0x400000ull
#define FX_LIBC_START 0x7f0000000000ull
#define FX_KERNEL_START 0xffffffff81000000ull

static inline uint32_t fx_mapping(struct profile *p, const char *file, uint64_t start)
{
	struct profile_mapping m = { .start = start, .limit = start + 0x1000000 };
	int64_t id;

	m.filename = (uint32_t)profile__string(p, file);
	id = profile__add_mapping(p, &m);
	if (id <= 0)
		fail_msg("add_mapping %s: %lld", file, (long long)id);
	return (uint32_t)id;
}

static inline uint32_t fx_function_loc(struct profile *p, uint32_t map, uint64_t base,
				       const char *name)
{
	int64_t s = profile__string(p, name), fn, loc;

	if (s < 0)
		fail_msg("string %s: %lld", name, (long long)s);
	fn = profile__add_function(p, (uint32_t)s, (uint32_t)s, 0);
	if (fn <= 0)
		fail_msg("add_function %s: %lld", name, (long long)fn);
	loc = profile__add_location(p, map, base + (uint64_t)fn * 16, (uint32_t)fn);
	if (loc <= 0)
		fail_msg("add_location %s: %lld", name, (long long)loc);
	return (uint32_t)loc;
}

/* fx_inline_loc - the location of an inline chain "a>b>c" (outermost
 * first), each line numbered after its depth. */
static inline uint32_t fx_inline_loc(struct profile *p, const char *spec)
{
	struct profile_line lines[PROFILE_MAX_INLINE_DEPTH];
	char name[256], *next;
	const char *at = spec;
	uint32_t n = 0, i;
	int64_t s, fn, loc;

	while (at && n < PROFILE_MAX_INLINE_DEPTH) {
		next = strchr(at, '>');
		snprintf(name, sizeof(name), "%.*s", next ? (int)(next - at) : (int)strlen(at), at);
		s = profile__string(p, name);
		fn = s < 0 ? s : profile__add_function(p, (uint32_t)s, (uint32_t)s, 0);
		if (fn <= 0)
			fail_msg("add_function %s: %lld", name, (long long)fn);
		lines[n++] = (struct profile_line){ (uint32_t)fn, 10 + n };
		at = next ? next + 1 : NULL;
	}
	/* Innermost first, as profile__add_location_lines wants them. */
	for (i = 0; i < n / 2; i++) {
		struct profile_line t = lines[i];

		lines[i] = lines[n - 1 - i];
		lines[n - 1 - i] = t;
	}
	loc = profile__add_location_lines(p, fx_mapping(p, "/usr/bin/app", FX_APP_START),
					  FX_APP_START + 0x100000 + lines[0].function * 16ull,
					  lines, n);
	if (loc <= 0)
		fail_msg("add_location %s: %lld", spec, (long long)loc);
	return (uint32_t)loc;
}

/* fx_loc - the location for one frame spec (see the file comment). */
static inline uint32_t fx_loc(struct profile *p, const char *spec)
{
	int64_t loc;

	if (!strncmp(spec, "k:", 2))
		return fx_function_loc(p, fx_mapping(p, PROFILE_KERNEL_MAPPING, FX_KERNEL_START),
				       FX_KERNEL_START, spec + 2);
	if (!strncmp(spec, "libc+", 5))
		loc = profile__add_location(p,
					    fx_mapping(p, "/usr/lib/x86_64-linux-gnu/libc.so.6",
						       FX_LIBC_START),
					    FX_LIBC_START + strtoull(spec + 5, NULL, 16), 0);
	else if (!strncmp(spec, "inl:", 4))
		return fx_inline_loc(p, spec + 4);
	else if (!strncmp(spec, "kaddr:", 6))
		loc = profile__add_location(p, 0, strtoull(spec + 6, NULL, 16), 0);
	else
		return fx_function_loc(p, fx_mapping(p, "/usr/bin/app", FX_APP_START), FX_APP_START,
				       spec);
	if (loc <= 0)
		fail_msg("add_location %s: %lld", spec, (long long)loc);
	return (uint32_t)loc;
}

/* fx_stackv - add a sample of @count for @comm/@pid whose frames are the
 * @n specs in @frames, outermost first. */
static inline void fx_stackv(struct profile *p, const char *comm, int64_t pid, int64_t count,
			     const char *const *frames, uint32_t n)
{
	struct profile_sample tmpl = { .count = count, .pid = pid, .tid = pid };
	uint32_t *locs = calloc(n ? n : 1, sizeof(*locs)), i;
	int err;

	if (!locs)
		fail_msg("out of memory");
	tmpl.comm = (uint32_t)profile__string(p, comm);
	for (i = 0; i < n; i++)
		locs[n - 1 - i] = fx_loc(p, frames[i]);
	err = profile__add_sample(p, locs, n, &tmpl);
	free(locs);
	if (err)
		fail_msg("add_sample %s: %d", comm, err);
}

/* fx_stack - fx_stackv with the frames as arguments, ended by NULL. */
static inline void fx_stack(struct profile *p, const char *comm, int64_t pid, int64_t count, ...)
{
	const char *frames[64];
	uint32_t n = 0;
	va_list ap;

	va_start(ap, count);
	while (n < 64 && (frames[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	fx_stackv(p, comm, pid, count, frames, n);
}

/* fx_standard - the profile most tests share: three processes (two pids
 * named app), user and kernel frames, recursion (fib), unresolved frames,
 * a sample without frames, names needing escapes; 135 samples in all,
 * 10 s at 99 Hz, two comments. */
static inline struct profile *fx_standard(void)
{
	struct profile *p = profile__new();

	if (!p)
		fail_msg("profile__new");
	fx_stack(p, "app", 100, 60, "main", "burn_60", NULL);
	fx_stack(p, "app", 100, 30, "main", "burn_30", NULL);
	fx_stack(p, "app", 101, 10, "main", "burn_60", NULL);
	fx_stack(p, "app", 100, 8, "main", "fib", "fib", "fib", NULL);
	fx_stack(p, "app", 100, 2, "main", "fib", NULL);
	fx_stack(p, "app", 100, 3, "main", "fib", "helper", "fib", NULL);
	fx_stack(p, "app", 100, 5, "main", "write_out", "k:do_syscall_64", "k:__x64_sys_write",
		 NULL);
	fx_stack(p, "worker", 200, 7, "start_thread", "a&b", "operator<<", NULL);
	fx_stack(p, "worker", 200, 3, "start_thread", "libc+0x1234", NULL);
	fx_stack(p, "worker", 200, 1, NULL);
	fx_stack(p, "worker", 200, 2, "start_thread", "ns;weird", NULL);
	fx_stack(p, "swapper/0", 0, 4, "k:secondary_startup_64", "k:default_idle",
		 "kaddr:0xffffffff81abcdef", NULL);
	fx_stack(p, "app", 100, 0, "main", "never_counted", NULL);
	p->duration_ns = 10000000000ll;
	p->period_ns = 10101010;
	if (profile__add_comment(p, "trapd 0.1.0 capture 7f3a on host db-1") ||
	    profile__add_comment(p, "lost samples: 2 (map full)\nrule: cpu_high"))
		fail_msg("add_comment");
	return p;
}

#endif
