// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* curl_lib.c - libcurl opened on first use (curl_lib.h). */
#include "upload/curl_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct curl_lib curl_lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_result = -ENOENT;
static char load_error[256];

/* resolve - @name's address in @h into *@slot; false (with the reason
 * kept) when libcurl lacks it. */
static bool resolve(void *h, const char *name, void *slot)
{
	void *sym = dlsym(h, name);

	if (!sym) {
		snprintf(load_error, sizeof(load_error), "%s has no %s", CURL_LIB_SONAME, name);
		return false;
	}
	/* POSIX: a data pointer from dlsym converts to a function pointer */
	memcpy(slot, &sym, sizeof(sym));
	return true;
}

static void load(void)
{
	void *h = dlopen(CURL_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	struct curl_lib l;

	if (!h) {
		snprintf(load_error, sizeof(load_error), "%s", dlerror());
		return;
	}
	if (!resolve(h, "curl_global_init_mem", &l.global_init_mem) ||
	    !resolve(h, "curl_easy_init", &l.easy_init) ||
	    !resolve(h, "curl_easy_setopt", &l.easy_setopt) ||
	    !resolve(h, "curl_easy_perform", &l.easy_perform) ||
	    !resolve(h, "curl_easy_getinfo", &l.easy_getinfo) ||
	    !resolve(h, "curl_easy_cleanup", &l.easy_cleanup) ||
	    !resolve(h, "curl_easy_reset", &l.easy_reset) ||
	    !resolve(h, "curl_easy_strerror", &l.easy_strerror) ||
	    !resolve(h, "curl_slist_append", &l.slist_append) ||
	    !resolve(h, "curl_slist_free_all", &l.slist_free_all)) {
		dlclose(h);
		return;
	}
	curl_lib = l;
	load_result = 0;
}

int curl_lib__load(void)
{
	pthread_once(&load_once, load);
	return load_result;
}

const char *curl_lib__error(void)
{
	return load_error;
}
