// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_profile.c - interning, caps and queries of the in-memory profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trapd/profile/profile.h"

static void test_strings_are_interned(void **state)
{
	struct profile *p = profile__new();
	int64_t a, b, c;

	assert_non_null(p);
	assert_int_equal(profile__string(p, ""), 0);
	assert_int_equal(profile__string(p, NULL), 0);
	a = profile__string(p, "main");
	b = profile__string(p, "burn");
	c = profile__string(p, "main");
	assert_true(a > 0);
	assert_int_not_equal(a, b);
	assert_int_equal(a, c);
	assert_string_equal(profile__str(p, (uint32_t)b), "burn");
	assert_string_equal(profile__str(p, 9999), "");
	profile__free(p);
}

static void test_many_strings_survive_growth(void **state)
{
	struct profile *p = profile__new();
	char buf[32];
	int i;

	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		assert_int_equal(profile__string(p, buf), i + 1);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		assert_int_equal(profile__string(p, buf), i + 1);
	}
	profile__free(p);
}

static void test_overlong_string_is_refused(void **state)
{
	struct profile *p = profile__new();
	char big[PROFILE_MAX_STRING_LEN + 2];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(profile__string(p, big), -E2BIG);
	profile__free(p);
}

static void test_locations_and_samples(void **state)
{
	struct profile *p = profile__new();
	struct profile_mapping m = { .start = 0x1000, .limit = 0x2000, .file_offset = 0 };
	struct profile_sample tmpl = { .count = 3, .pid = 7, .tid = 8 };
	int64_t map, fn, l1, l2, l3;
	uint32_t locs[2];
	char buf[64];

	m.filename = (uint32_t)profile__string(p, "/usr/bin/app");
	map = profile__add_mapping(p, &m);
	assert_int_equal(map, 1);
	assert_int_equal(profile__add_mapping(p, &m), 1);
	fn = profile__add_function(p, (uint32_t)profile__string(p, "burn"), 0, 0);
	assert_int_equal(fn, 1);
	l1 = profile__add_location(p, (uint32_t)map, 0x1010, (uint32_t)fn);
	l2 = profile__add_location(p, (uint32_t)map, 0x1800, 0);
	l3 = profile__add_location(p, (uint32_t)map, 0x1010, (uint32_t)fn);
	assert_int_equal(l1, 1);
	assert_int_equal(l2, 2);
	assert_int_equal(l3, 1);
	assert_int_equal(profile__add_location(p, 5, 0, 0), -EINVAL);
	assert_string_equal(profile__location_name(p, 1, buf, sizeof(buf)), "burn");
	assert_string_equal(profile__location_name(p, 2, buf, sizeof(buf)), "app+0x800");
	locs[0] = 1;
	locs[1] = 2;
	tmpl.comm = (uint32_t)profile__string(p, "app");
	assert_int_equal(profile__add_sample(p, locs, 2, &tmpl), 0);
	locs[1] = 3;
	assert_int_equal(profile__add_sample(p, locs, 2, &tmpl), -EINVAL);
	assert_int_equal(p->nsamples, 1);
	assert_int_equal(profile__total(p), 3);
	assert_int_equal(profile__sample_locs(p, &p->samples[0])[1], 2);
	assert_false(profile__location_is_kernel(p, 1));
	profile__free(p);
}

static void test_sample_keeps_its_run(void **state)
{
	struct profile *p = profile__new();
	struct profile_sample tmpl = { .count = 1, .pid = 7, .tid = 7, .run = 3 };

	assert_non_null(p);
	assert_int_equal(profile__add_sample(p, NULL, 0, &tmpl), 0);
	tmpl.run = 0;
	assert_int_equal(profile__add_sample(p, NULL, 0, &tmpl), 0);
	assert_int_equal(p->samples[0].run, 3);
	assert_int_equal(p->samples[1].run, 0);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings_are_interned),
		cmocka_unit_test(test_many_strings_survive_growth),
		cmocka_unit_test(test_overlong_string_is_refused),
		cmocka_unit_test(test_locations_and_samples),
		cmocka_unit_test(test_sample_keeps_its_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
