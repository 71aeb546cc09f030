// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_fleet_capture.c - what a store anyone with write access can fill
 * gives a listing (trapd/fleet/fleet_capture.h), on arbitrary bytes: the
 * input as an object key, as a sidecar and, one "name=value" a line, as a
 * listing's metadata. No crash, no undefined behaviour, no leak; a key
 * taken is of the layout (a host without '/', a day that exists, 64
 * lower-case hex digits, the key without its suffix); every string of a
 * described capture ends within its array and labels stay within
 * FLEET_LABELS_MAX; a refused sidecar says why. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/fleet/fleet_capture.h"
#include "trapd/fleet/fleet_time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILL 0xa5 /* what a field nobody wrote holds */

static void check(int ok)
{
	if (!ok)
		abort();
}

/* ended - @s has its NUL within its @len bytes. */
static bool ended(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

static bool lower_hex(const char *s)
{
	for (; *s; s++)
		if (!(*s >= '0' && *s <= '9') && !(*s >= 'a' && *s <= 'f'))
			return false;
	return true;
}

/* check_key - @key was taken: what @c holds is what it says. */
static void check_key(const char *key, const struct fleet_capture *c, enum fleet_part part)
{
	const char *suffix = part == FLEET_PROFILE ? ".pb.zst" : ".json";
	char date[16];
	size_t n;

	check(part == FLEET_PROFILE || part == FLEET_SIDECAR);
	check(ended(c->key, sizeof(c->key)) && ended(c->host, sizeof(c->host)) &&
	      ended(c->sha256, sizeof(c->sha256)));
	check(strlen(c->sha256) == 64 && lower_hex(c->sha256));
	check(c->host[0] != '\0' && !strchr(c->host, '/'));
	/* the day exists, and the key names it */
	check(c->day >= 19700101 && c->day <= 99991231);
	check(fleet_time__day(fleet_time__day_start(c->day)) == c->day);
	check(fleet_time__next_day(c->day) > c->day);
	snprintf(date, sizeof(date), "/%04d/%02d/%02d/", c->day / 10000, c->day / 100 % 100,
		 c->day % 100);
	/* key = HOST/YYYY/MM/DD/SHA, the input = key + suffix */
	n = strlen(c->host);
	check(!strncmp(c->key, c->host, n) && !strncmp(c->key + n, date, 12) &&
	      !strcmp(c->key + n + 12, c->sha256));
	n = strlen(c->key);
	check(!strncmp(key, c->key, n) && !strcmp(key + n, suffix));
}

/* check_described - the strings of described @c end within their arrays
 * and its lookups find what it holds. */
static void check_described(const struct fleet_capture *c)
{
	const char *p;
	char rule[sizeof(c->rules)];
	size_t i, len;

	check(c->described);
	check(c->nlabels <= FLEET_LABELS_MAX);
	check(ended(c->trigger, sizeof(c->trigger)) && ended(c->rules, sizeof(c->rules)) &&
	      ended(c->capture_id, sizeof(c->capture_id)));
	for (i = 0; i < c->nlabels; i++) {
		check(ended(c->labels[i].key, sizeof(c->labels[i].key)));
		check(ended(c->labels[i].value, sizeof(c->labels[i].value)));
		check(c->labels[i].key[0] != '\0');
		check(fleet_capture__label(c, c->labels[i].key) != NULL);
	}
	/* every rule of the list is one of its rules */
	for (p = c->rules; *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		snprintf(rule, sizeof(rule), "%.*s", (int)len, p);
		check(fleet_capture__has_rule(c, rule));
	}
}

static void fuzz_key(const char *key)
{
	struct fleet_capture c;
	enum fleet_part part = (enum fleet_part)FILL;

	memset(&c, FILL, sizeof(c));
	if (!fleet_key__parse(key, &c, &part))
		check_key(key, &c, part);
}

static void fuzz_sidecar(const uint8_t *data, size_t size)
{
	struct fleet_capture c;
	char err[256];
	int e;

	/* the listing has the key's fields and perhaps what the metadata
	 * said: the sidecar sets everything it describes */
	memset(&c, FILL, sizeof(c));
	memset(err, FILL, sizeof(err));
	e = fleet_capture__from_sidecar(&c, (const char *)data, size, err, sizeof(err));
	check(e == 0 || e == -EBADMSG);
	if (e) {
		check(ended(err, sizeof(err)) && err[0] != '\0');
		return;
	}
	check(c.start_ns > 0);
	check_described(&c);
}

/* fuzz_meta - @text, one "name=value" a line, as a listing's metadata. */
static void fuzz_meta(const char *text)
{
	struct upload_meta meta[UPLOAD_META_MAX];
	struct fleet_capture c;
	size_t n = 0, len, eq;
	bool described;

	while (*text && n < UPLOAD_META_MAX) {
		len = strcspn(text, "\n");
		eq = strcspn(text, "=\n");
		snprintf(meta[n].name, sizeof(meta[n].name), "%.*s", (int)eq, text);
		snprintf(meta[n].value, sizeof(meta[n].value), "%.*s",
			 eq < len ? (int)(len - eq - 1) : 0, eq < len ? text + eq + 1 : "");
		n++;
		text += len + (text[len] == '\n');
	}
	memset(&c, 0, sizeof(c));
	described = fleet_capture__from_meta(&c, meta, n);
	check(described == c.described);
	if (described)
		check_described(&c);
	check(c.nlabels <= FLEET_LABELS_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	check(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	fuzz_key(text);
	fuzz_sidecar(data, size);
	fuzz_meta(text);
	free(text);
	return 0;
}
