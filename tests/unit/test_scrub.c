// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_scrub.c - allocation that wipes on free (upload/scrub.h): realloc
 * keeps the content whether it moves or not, size 0 is not NULL, strdup
 * copies, and libcurl works on this heap: its global initialisation takes
 * it once (a second call does nothing), and a header list, an easy handle
 * and an escaped string go through it and back. Whether freed blocks are
 * really wiped cannot be read from C without undefined behaviour; the
 * integration test test_secrets_no_token_in_heap_after_uploader_stops
 * reads the daemon's heap from outside instead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <malloc.h>
#include <string.h>

#include "upload/scrub.h"

static void test_realloc_keeps_content(void **state)
{
	char *p = scrub_malloc(16), *q;
	size_t i;

	assert_non_null(p);
	memcpy(p, "0123456789abcde", 16);
	q = scrub_realloc(p, 8); /* shrinks in place */
	assert_ptr_equal(q, p);
	q = scrub_realloc(q, 1 << 20); /* must move */
	assert_non_null(q);
	assert_string_equal(q, "0123456789abcde");
	for (i = 16; i < (1u << 20); i++)
		q[i] = (char)i;
	q = scrub_realloc(q, 3 << 20);
	assert_string_equal(q, "0123456789abcde");
	assert_int_equal((unsigned char)q[100000], (unsigned char)(char)100000);
	scrub_free(q);
	p = scrub_realloc(NULL, 0);
	assert_non_null(p);
	assert_true(malloc_usable_size(p) >= 1);
	scrub_free(p);
	scrub_free(NULL);
}

static void test_strdup_calloc(void **state)
{
	char *s = scrub_strdup("Authorization: Bearer x");
	unsigned char *z = scrub_calloc(64, 4);
	size_t i;

	assert_string_equal(s, "Authorization: Bearer x");
	for (i = 0; i < 256; i++)
		assert_int_equal(z[i], 0);
	scrub_free(s);
	scrub_free(z);
}

static void test_curl_runs_on_it(void **state)
{
	struct curl_slist *l = NULL;
	char *e;
	CURL *c;

	assert_int_equal(scrub__curl_init(), 0);
	assert_int_equal(scrub__curl_init(), 0);
	l = curl_slist_append(l, "Authorization: Bearer secret");
	l = curl_slist_append(l, "X-Other: 1");
	assert_non_null(l);
	assert_string_equal(l->next->data, "X-Other: 1");
	c = curl_easy_init();
	assert_non_null(c);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_URL, "http://127.0.0.1:9/?sig=s"), CURLE_OK);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_HTTPHEADER, l), CURLE_OK);
	e = curl_easy_escape(c, "a b/c", 0);
	assert_string_equal(e, "a%20b%2Fc");
	curl_free(e);
	curl_easy_cleanup(c);
	curl_slist_free_all(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realloc_keeps_content),
		cmocka_unit_test(test_strdup_calloc),
		cmocka_unit_test(test_curl_runs_on_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
