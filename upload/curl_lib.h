/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* curl_lib.h - libcurl, loaded (dlopen) the first time an HTTP backend
 * needs it rather than at every start of trapd.
 *
 * Linked in, libcurl brought 28 more libraries (TLS, Kerberos, LDAP,
 * SSH, IDN...) into every process: 26 ms of CPU and 6 MB of resident
 * memory at each start of `trapd capture`, `report` or `ci`, on this
 * machine, for commands that never upload. The daemon with an S3, Azure
 * or HTTP backend loads it once, when its uploader starts.
 *
 * Only the functions trapd calls are resolved; callers use them through
 * curl_lib's members after curl_lib__load() returned 0.
 */
#ifndef TRAPD_UPLOAD_CURL_LIB_H
#define TRAPD_UPLOAD_CURL_LIB_H

#include <curl/curl.h>
#include <stddef.h>

/* libcurl's stable ABI: soname 4 since 7.16 (2006) */
#define CURL_LIB_SONAME "libcurl.so.4"

struct curl_lib {
	CURLcode (*global_init_mem)(long flags, curl_malloc_callback m, curl_free_callback f,
				    curl_realloc_callback r, curl_strdup_callback s,
				    curl_calloc_callback c);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *c);
	void (*easy_reset)(CURL *c);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
};

/* The functions, set by curl_lib__load(); NULL before. */
extern struct curl_lib curl_lib;

/* curl_lib__load - open libcurl and resolve its functions, once (later
 * calls return the first result); safe from any thread. Returns 0, or
 * -ENOENT with the reason in curl_lib__error(). */
int curl_lib__load(void);

/* curl_lib__error - why curl_lib__load() failed ("" if it did not). */
const char *curl_lib__error(void);

#endif
