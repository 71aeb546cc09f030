// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* scrub.c - allocation that wipes on free, for credentials and libcurl
 * (scrub.h). */
#include "upload/scrub.h"

#include <curl/curl.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "upload/curl_lib.h"

void *scrub_malloc(size_t size)
{
	return malloc(size);
}

void *scrub_calloc(size_t n, size_t size)
{
	return calloc(n, size);
}

char *scrub_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

void scrub_free(void *p)
{
	if (!p)
		return;
	explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

void *scrub_realloc(void *p, size_t size)
{
	size_t have = p ? malloc_usable_size(p) : 0;
	void *q;

	if (!size)
		size = 1;
	if (p && size <= have)
		return p; /* shrinking in place: the tail is wiped with the block */
	q = malloc(size);
	if (!q)
		return NULL;
	if (p) {
		memcpy(q, p, have);
		scrub_free(p);
	}
	return q;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_result = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
	if (curl_lib__load())
		return;
	curl_result = curl_lib.global_init_mem(CURL_GLOBAL_DEFAULT, scrub_malloc, scrub_free,
					       scrub_realloc, scrub_strdup, scrub_calloc);
}

int scrub__curl_init(void)
{
	pthread_once(&curl_once, curl_init_once);
	if (curl_lib__load())
		return -ELIBACC;
	return curl_result == CURLE_OK ? 0 : -EIO;
}
