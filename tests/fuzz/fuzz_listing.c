// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_listing - the parsers of a store's listing (upload/listing.h) on
 * arbitrary bytes, both of them on every input: they return 0, -EBADMSG,
 * -E2BIG or -ENOMEM; on failure the page is empty and the message is
 * set, bounded and safe to show; on success every key and prefix is
 * non-empty, at most UPLOAD_KEY_MAX bytes and free of control bytes, the
 * counts are within the caps, every fixed-size field holds its NUL,
 * metadata names are canonical, and the next token is NULL or a clean
 * string of at most UPLOAD_LIST_TOKEN_MAX bytes. Freeing the page leaves
 * it zeroed, and leaks show.
 *
 * An input whose first byte is a control byte other than white space
 * uses it to pick the strip prefix and is parsed from the second byte;
 * any other input is parsed whole with the strip "p/", so the real
 * answers of tests/data/listing/ are seeds as they are
 * (tests/fuzz/corpus/listing/). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upload/listing.h"
#include "upload/object.h"
#include "upload/safe_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const strips[] = {
	"p/", "", "p/web-1/", "p/r&d-caf\xc3\xa9/", "k", "p/web-1/2026/11/25/",
};

/* check_clean - @s is a string of 1 to @max bytes, none of them a control byte. */
static void check_clean(const char *s, size_t max)
{
	size_t n, i;

	if (!s)
		abort();
	n = strnlen(s, max + 1);
	if (!n || n > max)
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

static void check_item(const struct upload_listed *it)
{
	struct upload_meta canon;
	size_t i;

	check_clean(it->key, UPLOAD_KEY_MAX);
	if (!memchr(it->etag, '\0', sizeof(it->etag)) ||
	    !memchr(it->modified, '\0', sizeof(it->modified)))
		abort();
	if (it->nmeta > UPLOAD_META_MAX || (!it->meta) != (!it->nmeta))
		abort();
	for (i = 0; i < it->nmeta; i++) {
		if (!memchr(it->meta[i].name, '\0', sizeof(it->meta[i].name)) ||
		    !memchr(it->meta[i].value, '\0', sizeof(it->meta[i].value)))
			abort();
		if (upload_meta__name(it->meta[i].name, canon.name, sizeof(canon.name)) ||
		    strcmp(canon.name, it->meta[i].name))
			abort();
	}
}

static void check_page(const struct upload_page *pg, int e, const char *err, size_t errlen)
{
	size_t i;

	if (e) {
		if (e != -EBADMSG && e != -E2BIG && e != -ENOMEM)
			abort();
		if (pg->items || pg->nitems || pg->prefixes || pg->nprefixes || pg->next)
			abort();
		if (!memchr(err, '\0', errlen) || !*err || !safe_text_is_safe(err, strlen(err)))
			abort();
		return;
	}
	if (pg->nitems > UPLOAD_LIST_ITEMS_MAX || pg->nprefixes > UPLOAD_LIST_ITEMS_MAX)
		abort();
	if ((!pg->items) != (!pg->nitems) || (!pg->prefixes) != (!pg->nprefixes))
		abort();
	for (i = 0; i < pg->nitems; i++)
		check_item(&pg->items[i]);
	for (i = 0; i < pg->nprefixes; i++)
		check_clean(pg->prefixes[i], UPLOAD_KEY_MAX);
	if (pg->next)
		check_clean(pg->next, UPLOAD_LIST_TOKEN_MAX);
}

static void run(int (*parse)(const char *, size_t, const char *, struct upload_page *, char *,
			     size_t),
		const char *xml, size_t len, const char *strip)
{
	struct upload_page pg;
	char err[512];
	int e;

	memset(&pg, 0xa5, sizeof(pg)); /* the parser zeroes it first */
	err[0] = '\0';
	e = parse(xml, len, strip, &pg, err, sizeof(err));
	check_page(&pg, e, err, sizeof(err));
	upload_page__free(&pg);
	if (pg.items || pg.nitems || pg.prefixes || pg.nprefixes || pg.next)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *strip = strips[0];

	if (size && data[0] < 0x20 && data[0] != '\t' && data[0] != '\n' && data[0] != '\r') {
		strip = strips[data[0] % (sizeof(strips) / sizeof(strips[0]))];
		data++;
		size--;
	}
	/* libFuzzer's buffer ends where the input does: ASan sees a read past */
	run(upload_list_parse_s3, (const char *)data, size, strip);
	run(upload_list_parse_azblob, (const char *)data, size, strip);
	return 0;
}
