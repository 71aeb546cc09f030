// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_upload_listing.c - one page of a store's listing from its XML
 * answer (upload/listing.h): real answers of OpenStack Swift's S3 API
 * (ListObjectsV2) and of Azurite (List Blobs) saved under
 * tests/data/listing/ (first, middle and last pages, with and without a
 * delimiter, empty), then what a server could send instead: entities and
 * character references, bad numbers, control bytes, over-long keys,
 * tokens and ETags, a truncated answer with no token, keys outside the
 * prefix, every cap, malformed XML, and answers of 16 MiB that must
 * still parse in well under a second.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upload/listing.h"
#include "upload/object.h"

#define SHA_DB "8b5b9db0c13db24256c829aa364aa90c6d2eba318b9232a4ab9313b954d3555f"
#define SHA_WEB "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed"
#define SHA_WEB26 "3fc4ccfe745870e2c0d99f71f30ff0656c8dedd41cc1d7d3d376b0dbe685e2f3"
#define CAFE "r&d-caf\xc3\xa9" /* the host part of a key with '&' and 'é' */
#define S3_MODIFIED "2026-11-27T17:34:45.000Z"
#define AZ_MODIFIED "Fri, 27 Nov 2026 17:34:44 GMT"
#define MD5_EMPTY "d41d8cd98f00b204e9800998ecf8427e"

/* Seconds a 16 MiB answer may take: well under one in a normal build, a
 * few under a sanitizer. Anything quadratic takes hours either way. */
#if defined(__SANITIZE_ADDRESS__)
#define PARSE_SECONDS_MAX 5.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PARSE_SECONDS_MAX 5.0
#endif
#endif
#ifndef PARSE_SECONDS_MAX
#define PARSE_SECONDS_MAX 1.0
#endif

/* Hand-written answers: the smallest a parser takes. */
#define S3(body) "<ListBucketResult>" body "</ListBucketResult>"
#define S3_ITEM(key, size) "<Contents><Key>" key "</Key><Size>" size "</Size></Contents>"
#define LAST "<IsTruncated>false</IsTruncated>"
#define AZ(body) "<EnumerationResults>" body "</EnumerationResults>"
#define AZ_BLOB_OPEN(name)                                                                         \
	"<Blob><Name>" name "</Name><Properties><Content-Length>1</Content-Length></Properties>"
#define AZ_BLOB(name, extra) AZ_BLOB_OPEN(name) extra "</Blob>"

enum fmt { S3, AZBLOB };

static const char *datadir(void)
{
	const char *d = getenv("TRAPD_TESTDATA");

	return d ? d : "tests/data";
}

/* read_fixture - tests/data/listing/@name, in a buffer of exactly its
 * size (no NUL after it: the parsers must not need one). */
static char *read_fixture(const char *name, size_t *len)
{
	char path[512], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/listing/%s", datadir(), name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read %s (run from the top of the tree or set TRAPD_TESTDATA)",
			 path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* parse_n - @len bytes of @xml, copied to a buffer of exactly that size. */
static int parse_n(enum fmt fmt, const char *xml, size_t len, const char *strip,
		   struct upload_page *pg, char *err, size_t errlen)
{
	char *copy = malloc(len ? len : 1);
	int e;

	assert_non_null(copy);
	memcpy(copy, xml, len);
	if (fmt == S3)
		e = upload_list_parse_s3(copy, len, strip, pg, err, errlen);
	else
		e = upload_list_parse_azblob(copy, len, strip, pg, err, errlen);
	free(copy);
	return e;
}

static void parse_ok(enum fmt fmt, const char *xml, const char *strip, struct upload_page *pg)
{
	char err[512] = "";
	int e = parse_n(fmt, xml, strlen(xml), strip, pg, err, sizeof(err));

	if (e)
		fail_msg("%s: %d (%s)", xml, e, err);
}

static void parse_fixture(enum fmt fmt, const char *name, const char *strip, struct upload_page *pg)
{
	char err[512] = "";
	size_t len;
	char *xml = read_fixture(name, &len);
	int e = fmt == S3 ? upload_list_parse_s3(xml, len, strip, pg, err, sizeof(err))
			  : upload_list_parse_azblob(xml, len, strip, pg, err, sizeof(err));

	free(xml);
	if (e)
		fail_msg("%s: %d (%s)", name, e, err);
}

static void assert_empty(const struct upload_page *pg)
{
	assert_null(pg->items);
	assert_int_equal(pg->nitems, 0);
	assert_null(pg->prefixes);
	assert_int_equal(pg->nprefixes, 0);
	assert_null(pg->next);
}

/* expect_fail_n - @len bytes of @xml are refused with @code, a message
 * holding @want, and an empty page. */
static void expect_fail_n(enum fmt fmt, const char *xml, size_t len, int code, const char *want)
{
	struct upload_page pg;
	char err[512] = "";
	int e = parse_n(fmt, xml, len, "", &pg, err, sizeof(err));

	if (e != code)
		fail_msg("%.*s: %d (%s), expected %d", (int)len, xml, e, err, code);
	if (!strstr(err, want))
		fail_msg("%.*s: message \"%s\" does not say \"%s\"", (int)len, xml, err, want);
	assert_empty(&pg);
}

static void expect_fail(enum fmt fmt, const char *xml, int code, const char *want)
{
	expect_fail_n(fmt, xml, strlen(xml), code, want);
}

static void expect_item(const struct upload_page *pg, size_t i, const char *key, uint64_t size,
			const char *etag, const char *modified)
{
	assert_true(i < pg->nitems);
	assert_string_equal(pg->items[i].key, key);
	assert_int_equal(pg->items[i].size, size);
	assert_string_equal(pg->items[i].etag, etag);
	assert_string_equal(pg->items[i].modified, modified);
}

static void expect_meta(const struct upload_listed *it, size_t i, const char *name,
			const char *value)
{
	assert_true(i < it->nmeta);
	assert_string_equal(it->meta[i].name, name);
	assert_string_equal(it->meta[i].value, value);
}

/* The metadata every fixture blob was stored with (tests/data/listing). */
static void expect_fixture_meta(const struct upload_listed *it)
{
	assert_int_equal(it->nmeta, 4);
	expect_meta(it, 0, "trapd_host", "web-1");
	expect_meta(it, 1, "trapd_rules", "cpu_hot");
	expect_meta(it, 2, "label_team", "r&d <ops>");
	expect_meta(it, 3, "buildid", "7"); /* sent as x-ms-meta-BuildId */
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* --- real answers ------------------------------------------------------ */

static void test_s3_real_first_page(void **state)
{
	struct upload_page pg;

	parse_fixture(S3, "s3-page1.xml", "p/", &pg);
	assert_int_equal(pg.nitems, 2);
	expect_item(&pg, 0, "db 2/2026/11/25/" SHA_DB ".json", 6080,
		    "15dfe3b3c2e84837343bc94e17199659", S3_MODIFIED);
	expect_item(&pg, 1, CAFE "/2026/11/25/" SHA_DB ".pb.zst", 9500,
		    "f62f6714d963a6ef5d86f27fbfbb61b0", S3_MODIFIED);
	assert_null(pg.items[0].meta); /* S3 does not list metadata */
	assert_int_equal(pg.items[0].nmeta, 0);
	assert_int_equal(pg.nprefixes, 0);
	/* Swift's token: the base64 of the last key listed */
	assert_string_equal(pg.next, "cC9yJmQtY2Fmw6kvMjAyNi8xMS8yNS84YjViOWRiMGMxM2RiMjQyNTZjODI5"
				     "YWEzNjRhYTkwYzZkMmViYTMxOGI5MjMyYTRhYjkzMTNiOTU0ZDM1NTVmLnBi"
				     "LnpzdA==");
	upload_page__free(&pg);
	assert_empty(&pg);
}

static void test_s3_real_pages_to_the_last(void **state)
{
	struct upload_page pg;

	parse_fixture(S3, "s3-page2.xml", "p/", &pg);
	assert_int_equal(pg.nitems, 2);
	expect_item(&pg, 0, "top.txt", 0, MD5_EMPTY, S3_MODIFIED);
	expect_item(&pg, 1, "web-1/2026/11/25/" SHA_WEB ".json", 1520,
		    "6a8a590c9ca43a4f896961f630c0aa4a", S3_MODIFIED);
	assert_string_equal(pg.next,
			    "cC93ZWItMS8yMDI2LzExLzI1Lzc2OTJjM2FkMzU0MGJiODAzYzAyMGIzYWVl"
			    "NjZjZDg4ODcxMjMyMzRlYTBjNmU3MTQzYzBhZGQ3M2ZmNDMxZWQuanNvbg==");
	upload_page__free(&pg);

	parse_fixture(S3, "s3-last.xml", "p/", &pg);
	assert_int_equal(pg.nitems, 2);
	expect_item(&pg, 0, "web-1/2026/11/25/" SHA_WEB ".pb.zst", 380,
		    "6f19fd04c3db38abff0f0399ff1d1395", S3_MODIFIED);
	expect_item(&pg, 1, "web-1/2026/11/26/" SHA_WEB26 ".pb.zst", 3420,
		    "2bdc2e3e4bb545f01edf48dfe7be0177", S3_MODIFIED);
	assert_null(pg.next); /* IsTruncated false: the last page */
	upload_page__free(&pg);
}

static void test_s3_real_delimited(void **state)
{
	struct upload_page pg;

	/* Swift interleaves CommonPrefixes and Contents in key order */
	parse_fixture(S3, "s3-delimited.xml", "p/", &pg);
	assert_int_equal(pg.nprefixes, 3);
	assert_string_equal(pg.prefixes[0], "db 2/");
	assert_string_equal(pg.prefixes[1], CAFE "/");
	assert_string_equal(pg.prefixes[2], "web-1/");
	assert_int_equal(pg.nitems, 1);
	expect_item(&pg, 0, "top.txt", 0, MD5_EMPTY, S3_MODIFIED);
	assert_null(pg.next);
	upload_page__free(&pg);

	parse_fixture(S3, "s3-delimited-page1.xml", "p/", &pg);
	assert_int_equal(pg.nprefixes, 2);
	assert_string_equal(pg.prefixes[0], "db 2/");
	assert_string_equal(pg.prefixes[1], CAFE "/");
	assert_int_equal(pg.nitems, 0);
	assert_null(pg.items);
	assert_string_equal(pg.next, "cC9yJmQtY2Fmw6kv"); /* base64("p/r&d-café/") */
	upload_page__free(&pg);
}

static void test_s3_real_empty(void **state)
{
	struct upload_page pg;

	parse_fixture(S3, "s3-empty.xml", "p/", &pg);
	assert_empty(&pg);
	upload_page__free(&pg);
	parse_fixture(S3, "s3-empty.xml", "", &pg);
	assert_empty(&pg);
}

static void test_s3_keys_outside_strip_left_out(void **state)
{
	struct upload_page pg;

	parse_fixture(S3, "s3-page2.xml", "p/web-1/", &pg);
	assert_int_equal(pg.nitems, 1);
	expect_item(&pg, 0, "2026/11/25/" SHA_WEB ".json", 1520, "6a8a590c9ca43a4f896961f630c0aa4a",
		    S3_MODIFIED);
	assert_non_null(pg.next); /* the listing still goes on */
	upload_page__free(&pg);

	parse_fixture(S3, "s3-page2.xml", "", &pg);
	assert_int_equal(pg.nitems, 2);
	assert_string_equal(pg.items[0].key, "p/top.txt");
	upload_page__free(&pg);

	parse_fixture(S3, "s3-page2.xml", "q/", &pg);
	assert_int_equal(pg.nitems, 0);
	assert_non_null(pg.next);
	upload_page__free(&pg);

	/* a prefix that is the strip itself is no deeper level: left out */
	parse_fixture(S3, "s3-delimited.xml", "p/web-1/", &pg);
	assert_int_equal(pg.nprefixes, 0);
	assert_int_equal(pg.nitems, 0);
	upload_page__free(&pg);

	parse_fixture(S3, "s3-delimited.xml", "p/r", &pg);
	assert_int_equal(pg.nprefixes, 1);
	assert_string_equal(pg.prefixes[0], "&d-caf\xc3\xa9/");
	upload_page__free(&pg);

	/* a key equal to the strip (a "folder" object) is not listed */
	parse_ok(S3, S3(LAST S3_ITEM("p/", "0") S3_ITEM("p/a", "1")), "p/", &pg);
	assert_int_equal(pg.nitems, 1);
	assert_string_equal(pg.items[0].key, "a");
	upload_page__free(&pg);
}

static void test_azblob_real_first_page(void **state)
{
	struct upload_page pg;

	parse_fixture(AZBLOB, "azblob-page1.xml", "p/", &pg);
	assert_int_equal(pg.nitems, 2);
	/* Azure's ETags come unquoted */
	expect_item(&pg, 0, "db 2/2026/11/25/" SHA_DB ".json", 6080, "0x21BE10EEBD96600",
		    AZ_MODIFIED);
	expect_item(&pg, 1, CAFE "/2026/11/25/" SHA_DB ".pb.zst", 9500, "0x1BFB6D1DE203050",
		    AZ_MODIFIED);
	expect_fixture_meta(&pg.items[0]);
	expect_fixture_meta(&pg.items[1]);
	assert_int_equal(pg.nprefixes, 0);
	/* Azurite's marker: the last name listed, entities decoded */
	assert_string_equal(pg.next, "p/" CAFE "/2026/11/25/" SHA_DB ".pb.zst");
	upload_page__free(&pg);
	assert_empty(&pg);
}

static void test_azblob_real_pages_to_the_last(void **state)
{
	struct upload_page pg;

	parse_fixture(AZBLOB, "azblob-page2.xml", "p/", &pg);
	assert_int_equal(pg.nitems, 2);
	expect_item(&pg, 0, "top.txt", 0, "0x25545F7BD3272E0", AZ_MODIFIED);
	expect_item(&pg, 1, "web-1/2026/11/25/" SHA_WEB ".json", 1520, "0x236049236F66660",
		    AZ_MODIFIED);
	expect_fixture_meta(&pg.items[1]);
	assert_string_equal(pg.next, "p/web-1/2026/11/25/" SHA_WEB ".json");
	upload_page__free(&pg);

	parse_fixture(AZBLOB, "azblob-last.xml", "p/", &pg);
	assert_int_equal(pg.nitems, 2);
	expect_item(&pg, 0, "web-1/2026/11/25/" SHA_WEB ".pb.zst", 380, "0x21E148971639BA0",
		    AZ_MODIFIED);
	expect_item(&pg, 1, "web-1/2026/11/26/" SHA_WEB26 ".pb.zst", 3420, "0x255FB42C555EE80",
		    AZ_MODIFIED);
	expect_fixture_meta(&pg.items[1]);
	assert_null(pg.next); /* <NextMarker/> */
	upload_page__free(&pg);
}

static void test_azblob_real_delimited(void **state)
{
	struct upload_page pg;

	parse_fixture(AZBLOB, "azblob-delimited.xml", "p/", &pg);
	assert_int_equal(pg.nprefixes, 3);
	assert_string_equal(pg.prefixes[0], "db 2/");
	assert_string_equal(pg.prefixes[1], CAFE "/");
	assert_string_equal(pg.prefixes[2], "web-1/");
	assert_int_equal(pg.nitems, 1);
	expect_item(&pg, 0, "top.txt", 0, "0x25545F7BD3272E0", AZ_MODIFIED);
	expect_fixture_meta(&pg.items[0]);
	assert_null(pg.next);
	upload_page__free(&pg);

	/* a page of prefixes only, whose marker is a blob inside the last */
	parse_fixture(AZBLOB, "azblob-delimited-page1.xml", "p/", &pg);
	assert_int_equal(pg.nprefixes, 2);
	assert_string_equal(pg.prefixes[1], CAFE "/");
	assert_int_equal(pg.nitems, 0);
	assert_string_equal(pg.next, "p/" CAFE "/2026/11/25/" SHA_DB ".pb.zst");
	upload_page__free(&pg);

	parse_fixture(AZBLOB, "azblob-delimited-page2.xml", "p/", &pg);
	assert_int_equal(pg.nprefixes, 1);
	assert_string_equal(pg.prefixes[0], "web-1/");
	assert_int_equal(pg.nitems, 1);
	assert_string_equal(pg.items[0].key, "top.txt");
	assert_null(pg.next);
	upload_page__free(&pg);

	parse_fixture(AZBLOB, "azblob-delimited.xml", "p/web-1/", &pg);
	assert_int_equal(pg.nprefixes, 0);
	assert_int_equal(pg.nitems, 0);
	upload_page__free(&pg);
}

static void test_azblob_real_empty(void **state)
{
	struct upload_page pg;

	parse_fixture(AZBLOB, "azblob-empty.xml", "p/", &pg); /* <Blobs/><NextMarker/> */
	assert_empty(&pg);
}

/* --- what a server could send instead ------------------------------- */

static void test_entities_and_character_references_decoded(void **state)
{
	struct upload_page pg;

	parse_ok(S3,
		 S3(LAST "<Contents><Key>a&amp;b&lt;c&gt;d&quot;e&apos;f&#65;&#x42;&#233;&#x20AC;"
			 "&#x1F600;&#0000065;&#x10FFFF;</Key><Size>1</Size>"
			 "<ETag>&quot;abc&quot;</ETag></Contents>"),
		 "", &pg);
	assert_int_equal(pg.nitems, 1);
	assert_string_equal(pg.items[0].key, "a&b<c>d\"e'fAB\xc3\xa9\xe2\x82\xac"
					     "\xf0\x9f\x98\x80"
					     "A\xf4\x8f\xbf\xbf");
	assert_string_equal(pg.items[0].etag, "abc");
	upload_page__free(&pg);

	/* raw quotes too; a lone quote is kept as sent */
	parse_ok(S3, S3(LAST "<Contents><Key>k</Key><Size>1</Size><ETag>\"q\"</ETag></Contents>"),
		 "", &pg);
	assert_string_equal(pg.items[0].etag, "q");
	upload_page__free(&pg);
	parse_ok(S3, S3(LAST "<Contents><Key>k</Key><Size>1</Size><ETag>\"</ETag></Contents>"), "",
		 &pg);
	assert_string_equal(pg.items[0].etag, "\"");
	upload_page__free(&pg);
}

static void test_bad_references_refused(void **state)
{
	static const char *const bad[] = {
		"&#0;",
		"&#x0;",
		"&#x1f;",
		"&#9;",
		"&#10;",
		"&#127;",
		"&#xD800;",
		"&#xDFFF;",
		"&#xFFFE;",
		"&#xFFFF;",
		"&#x110000;",
		"&#99999999999999999999;",
		"&#xFFFFFFFFF41;",
		"&nbsp;",
		"&",
		"a & b",
		"&#;",
		"&#x;",
		"&#65",
		"&amp",
		"&#X41;",
		"&#-1;",
		"&#x-1;",
		"&#6 5;",
		"&AMP;",
		"&#a;",
	};
	char xml[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(xml, sizeof(xml), S3(LAST S3_ITEM("k%s", "1")), bad[i]);
		expect_fail(S3, xml, -EBADMSG, "at byte");
		snprintf(xml, sizeof(xml), AZ("<NextMarker>m%s</NextMarker>"), bad[i]);
		expect_fail(AZBLOB, xml, -EBADMSG, "at byte");
	}
	/* where: the byte of the '&' */
	expect_fail(S3, S3(S3_ITEM("k&#1;", "1")), -EBADMSG,
		    "a bad character reference at byte 34");
	expect_fail(S3, S3(S3_ITEM("k&nbsp;", "1")), -EBADMSG,
		    "an unknown entity or a bare '&' at byte 34");
	/* text nobody reads is not decoded: an unknown element may hold anything */
	{
		struct upload_page pg;

		parse_ok(S3, S3(LAST "<Owner>&nbsp; &#0;</Owner>"), "", &pg);
		assert_empty(&pg);
	}
}

static void test_bad_numbers_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"abc",
		"-1",
		"+5",
		"12a",
		"1 2",
		"0x10",
		"1e3",
		"1.5",
		" - 1",
		"&#49;x",
		"18446744073709551616",
		"99999999999999999999999",
	};
	char xml[256];
	struct upload_page pg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(xml, sizeof(xml), S3(LAST S3_ITEM("k", "%s")), bad[i]);
		expect_fail(S3, xml, -EBADMSG, "<Size> of 'k': ");
		snprintf(xml, sizeof(xml),
			 AZ("<Blobs><Blob><Name>b</Name><Properties><Content-Length>%s"
			    "</Content-Length></Properties></Blob></Blobs>"),
			 bad[i]);
		expect_fail(AZBLOB, xml, -EBADMSG, "<Content-Length> of 'b': ");
	}
	expect_fail(S3, S3(LAST S3_ITEM("k", "18446744073709551616")), -EBADMSG, "out of range");
	expect_fail_n(S3, S3(LAST S3_ITEM("k", "12\0x")),
		      sizeof(S3(LAST S3_ITEM("k", "12\0x"))) - 1, -EBADMSG, "not a number");

	/* white space around a number is fine; so is the largest one */
	parse_ok(S3, S3(LAST S3_ITEM("a", "\n  42\t ") S3_ITEM("b", "18446744073709551615")), "",
		 &pg);
	assert_int_equal(pg.items[0].size, 42);
	assert_true(pg.items[1].size == UINT64_MAX);
	upload_page__free(&pg);
	parse_ok(S3, S3(LAST S3_ITEM("a", "&#52;2")), "", &pg);
	assert_int_equal(pg.items[0].size, 42);
	upload_page__free(&pg);
}

static void test_control_bytes_in_keys_refused(void **state)
{
	static const char *const bad[] = { "a\x01z", "a\tz", "a\nz", "a\rz", "a\x7fz", "a\x1bz" };
	struct upload_page pg;
	char xml[256];
	size_t i;
	int n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(xml, sizeof(xml), S3(LAST S3_ITEM("p/%s", "1")), bad[i]);
		expect_fail(S3, xml, -EBADMSG, "a control byte");
		snprintf(xml, sizeof(xml), AZ("<Blobs>" AZ_BLOB("q/%s", "") "</Blobs>"), bad[i]);
		expect_fail(AZBLOB, xml, -EBADMSG, "a control byte");
		/* even outside the strip: the page is bad */
		assert_int_equal(parse_n(AZBLOB, xml, strlen(xml), "p/", &pg, NULL, 0), -EBADMSG);
		snprintf(xml, sizeof(xml),
			 S3(LAST "<CommonPrefixes><Prefix>%s/</Prefix></CommonPrefixes>"), bad[i]);
		expect_fail(S3, xml, -EBADMSG, "a control byte");
	}
	/* shown escaped in the message */
	expect_fail(S3, S3(LAST S3_ITEM("p/a\x01z", "1")), -EBADMSG,
		    "<Key> 'p/a\\x01z' of <Contents> 1: a control byte");
	/* a NUL, which would cut the key short */
	n = snprintf(xml, sizeof(xml), S3(LAST S3_ITEM("p/aXz", "1")));
	*strchr(xml, 'X') = '\0';
	expect_fail_n(S3, xml, (size_t)n, -EBADMSG, "a control byte");
	/* the rest of the text of an answer may hold them */
	parse_ok(S3, S3("\n\t" LAST "\r\n" S3_ITEM("k", "1") "\n"), "", &pg);
	assert_int_equal(pg.nitems, 1);
	upload_page__free(&pg);
}

/* doc_with_key - an S3 answer with one object of a key of @n 'k' bytes
 * after @lead, and its length. */
static char *doc_with_key(const char *lead, size_t n, size_t *len)
{
	const char *head = "<ListBucketResult>" LAST "<Contents><Key>";
	const char *tail = "</Key><Size>1</Size></Contents></ListBucketResult>";
	size_t h = strlen(head), l = strlen(lead), t = strlen(tail);
	char *doc = malloc(h + l + n + t + 1);

	assert_non_null(doc);
	memcpy(doc, head, h);
	memcpy(doc + h, lead, l);
	memset(doc + h + l, 'k', n);
	memcpy(doc + h + l + n, tail, t + 1);
	*len = h + l + n + t;
	return doc;
}

static void test_key_longer_than_the_cap_refused(void **state)
{
	struct upload_page pg;
	char err[256];
	size_t len;
	char *doc;

	doc = doc_with_key("p/", UPLOAD_KEY_MAX - 2, &len);
	assert_int_equal(parse_n(S3, doc, len, "p/", &pg, err, sizeof(err)), 0);
	assert_int_equal(strlen(pg.items[0].key), UPLOAD_KEY_MAX - 2);
	upload_page__free(&pg);
	free(doc);

	doc = doc_with_key("p/", UPLOAD_KEY_MAX - 1, &len);
	expect_fail_n(S3, doc, len, -EBADMSG, "<Key> of <Contents> 1: longer than 1024 bytes");
	free(doc);
	/* the key as sent counts, not what is left after the strip */
	doc = doc_with_key("p/", UPLOAD_KEY_MAX - 1, &len);
	assert_int_equal(parse_n(S3, doc, len, "p/", &pg, err, sizeof(err)), -EBADMSG);
	free(doc);
	/* far longer than any buffer */
	doc = doc_with_key("", 100000, &len);
	expect_fail_n(S3, doc, len, -EBADMSG, "longer than 1024 bytes");
	free(doc);

	expect_fail(S3, S3(LAST S3_ITEM("", "1")), -EBADMSG, "<Key> of <Contents> 1 is empty");
	expect_fail(S3, S3(LAST "<CommonPrefixes><Prefix/></CommonPrefixes>"), -EBADMSG,
		    "<Prefix> of <CommonPrefixes> is empty");
}

static void test_s3_truncated_needs_a_token(void **state)
{
	struct upload_page pg;

	expect_fail(S3, S3("<IsTruncated>true</IsTruncated>" S3_ITEM("k", "1")), -EBADMSG,
		    "<IsTruncated> is true but no <NextContinuationToken>");
	expect_fail(S3,
		    S3("<IsTruncated>true</IsTruncated><NextContinuationToken/>" S3_ITEM("k", "1")),
		    -EBADMSG, "no <NextContinuationToken>");
	expect_fail(
		S3,
		S3("<IsTruncated>true</IsTruncated><NextContinuationToken></NextContinuationToken>"),
		-EBADMSG, "no <NextContinuationToken>");
	expect_fail(S3, S3(S3_ITEM("k", "1")), -EBADMSG, "ListBucketResult: no <IsTruncated>");
	expect_fail(S3, S3("<IsTruncated>yes</IsTruncated>"), -EBADMSG,
		    "<IsTruncated>: neither true nor false");
	expect_fail(S3, S3("<IsTruncated>True</IsTruncated>"), -EBADMSG, "neither");
	expect_fail(S3, S3("<IsTruncated/>"), -EBADMSG, "neither");
	/* ListObjects v1 names its next page otherwise: not taken for v2's */
	expect_fail(S3, S3("<IsTruncated>true</IsTruncated><NextMarker>k</NextMarker>"), -EBADMSG,
		    "no <NextContinuationToken>");

	/* a token on a last page is no next page */
	parse_ok(S3, S3("<NextContinuationToken>t</NextContinuationToken>" LAST), "", &pg);
	assert_empty(&pg);
	/* either order, white space around the word */
	parse_ok(S3,
		 S3("<IsTruncated> true\n</IsTruncated><NextContinuationToken>a&amp;b"
		    "</NextContinuationToken>"),
		 "", &pg);
	assert_string_equal(pg.next, "a&b");
	upload_page__free(&pg);
}

static void test_azblob_empty_or_absent_marker_is_the_last_page(void **state)
{
	static const char *const last[] = {
		AZ("<Blobs/>"),
		AZ("<Blobs></Blobs><NextMarker />"),
		AZ("<Blobs /><NextMarker></NextMarker>"),
		AZ("<NextMarker\n/>"),
		AZ(""),
	};
	struct upload_page pg;
	size_t i;

	for (i = 0; i < sizeof(last) / sizeof(last[0]); i++) {
		parse_ok(AZBLOB, last[i], "", &pg);
		assert_empty(&pg);
	}
	/* Azure's real markers are opaque */
	parse_ok(AZBLOB, AZ("<NextMarker>2!96!MDAwMDIwIXAvd2ViLTEvIQ--</NextMarker>"), "", &pg);
	assert_string_equal(pg.next, "2!96!MDAwMDIwIXAvd2ViLTEvIQ--");
	upload_page__free(&pg);
	/* S3's names mean nothing here, nor Azure's in an S3 answer */
	parse_ok(AZBLOB, AZ("<NextContinuationToken>t</NextContinuationToken>"), "", &pg);
	assert_empty(&pg);
	expect_fail(S3, S3("<NextMarker>t</NextMarker>"), -EBADMSG, "no <IsTruncated>");
}

static void test_tokens_etags_and_dates_have_caps(void **state)
{
	char xml[UPLOAD_LIST_TOKEN_MAX + 256], val[UPLOAD_LIST_TOKEN_MAX + 2];
	struct upload_page pg;

	memset(val, 't', UPLOAD_LIST_TOKEN_MAX);
	val[UPLOAD_LIST_TOKEN_MAX] = '\0';
	snprintf(xml, sizeof(xml), AZ("<NextMarker>%s</NextMarker>"), val);
	parse_ok(AZBLOB, xml, "", &pg);
	assert_int_equal(strlen(pg.next), UPLOAD_LIST_TOKEN_MAX);
	upload_page__free(&pg);
	snprintf(xml, sizeof(xml), AZ("<NextMarker>%st</NextMarker>"), val);
	expect_fail(AZBLOB, xml, -EBADMSG, "<NextMarker>: longer than 4096 bytes");
	snprintf(xml, sizeof(xml),
		 S3("<IsTruncated>true</IsTruncated><NextContinuationToken>%st"
		    "</NextContinuationToken>"),
		 val);
	expect_fail(S3, xml, -EBADMSG, "<NextContinuationToken>: longer than 4096 bytes");
	expect_fail(AZBLOB, AZ("<NextMarker>a\x01</NextMarker>"), -EBADMSG, "a control byte");

	/* an ETag of 127 bytes without its quotes fits, 128 does not */
	memset(val, 'e', UPLOAD_ETAG_MAX);
	val[UPLOAD_ETAG_MAX - 1] = '\0';
	snprintf(xml, sizeof(xml),
		 S3(LAST "<Contents><Key>k</Key><Size>1</Size><ETag>\"%s\"</ETag>"
			 "</Contents>"),
		 val);
	parse_ok(S3, xml, "", &pg);
	assert_int_equal(strlen(pg.items[0].etag), UPLOAD_ETAG_MAX - 1);
	upload_page__free(&pg);
	snprintf(xml, sizeof(xml),
		 S3(LAST "<Contents><Key>k</Key><Size>1</Size><ETag>%se</ETag>"
			 "</Contents>"),
		 val);
	expect_fail(S3, xml, -EBADMSG, "<ETag> of 'k': longer than 127 bytes");
	expect_fail(S3, S3(LAST "<Contents><Key>k</Key><Size>1</Size><ETag>a\nb</ETag></Contents>"),
		    -EBADMSG, "<ETag> of 'k': a control byte");

	/* a date of 39 bytes fits, 40 does not */
	memset(val, 'd', 40);
	val[39] = '\0';
	snprintf(xml, sizeof(xml),
		 S3(LAST "<Contents><Key>k</Key><Size>1</Size><LastModified>%s</LastModified>"
			 "</Contents>"),
		 val);
	parse_ok(S3, xml, "", &pg);
	assert_int_equal(strlen(pg.items[0].modified), 39);
	upload_page__free(&pg);
	snprintf(xml, sizeof(xml),
		 AZ("<Blobs><Blob><Name>b</Name><Properties><Content-Length>1</Content-Length>"
		    "<Last-Modified>%sd</Last-Modified></Properties></Blob></Blobs>"),
		 val);
	expect_fail(AZBLOB, xml, -EBADMSG, "<Last-Modified> of 'b': longer than 39 bytes");
}

/* many - an answer of @n objects (or prefixes) named k0, k1, ... */
static char *many(enum fmt fmt, bool prefixes, size_t n, size_t *len)
{
	char *doc = NULL;
	FILE *f = open_memstream(&doc, len);
	size_t i;

	assert_non_null(f);
	fputs(fmt == S3 ? "<ListBucketResult>" LAST : "<EnumerationResults><Blobs>", f);
	for (i = 0; i < n; i++) {
		if (fmt == S3 && prefixes)
			fprintf(f, "<CommonPrefixes><Prefix>k%zu/</Prefix></CommonPrefixes>", i);
		else if (fmt == S3)
			fprintf(f, S3_ITEM("k%zu", "%zu"), i, i);
		else if (prefixes)
			fprintf(f, "<BlobPrefix><Name>k%zu/</Name></BlobPrefix>", i);
		else
			fprintf(f, AZ_BLOB("k%zu", ""), i);
	}
	fputs(fmt == S3 ? "</ListBucketResult>" : "</Blobs></EnumerationResults>", f);
	assert_int_equal(fclose(f), 0);
	return doc;
}

static void test_items_and_prefixes_over_the_cap_refused(void **state)
{
	static const enum fmt fmts[] = { S3, AZBLOB };
	struct upload_page pg;
	char err[256];
	size_t i, len;
	char *doc;

	for (i = 0; i < 4; i++) {
		enum fmt fmt = fmts[i / 2];
		bool prefixes = i % 2;

		doc = many(fmt, prefixes, UPLOAD_LIST_ITEMS_MAX, &len);
		assert_int_equal(parse_n(fmt, doc, len, "", &pg, err, sizeof(err)), 0);
		assert_int_equal(prefixes ? pg.nprefixes : pg.nitems, UPLOAD_LIST_ITEMS_MAX);
		if (prefixes)
			assert_string_equal(pg.prefixes[4999], "k4999/");
		else
			assert_string_equal(pg.items[4999].key, "k4999");
		upload_page__free(&pg);
		free(doc);

		doc = many(fmt, prefixes, UPLOAD_LIST_ITEMS_MAX + 1, &len);
		expect_fail_n(fmt, doc, len, -E2BIG,
			      prefixes ? "more than 5000 prefixes" : "more than 5000 objects");
		/* those left out do not count */
		assert_int_equal(parse_n(fmt, doc, len, "k1", &pg, err, sizeof(err)), 0);
		upload_page__free(&pg);
		free(doc);
	}
}

static void test_answer_over_the_body_cap_refused(void **state)
{
	struct upload_page pg;
	char err[256] = "";
	char *doc = malloc(UPLOAD_LIST_BODY_MAX + 1);

	assert_non_null(doc);
	memset(doc, ' ', UPLOAD_LIST_BODY_MAX + 1);
	assert_int_equal(upload_list_parse_s3(doc, UPLOAD_LIST_BODY_MAX + 1, "", &pg, err,
					      sizeof(err)),
			 -E2BIG);
	assert_string_equal(err, "ListBucketResult: an answer of 16777217 bytes, over 16777216");
	assert_empty(&pg);
	assert_int_equal(upload_list_parse_azblob(doc, UPLOAD_LIST_BODY_MAX + 1, "", &pg, err,
						  sizeof(err)),
			 -E2BIG);
	assert_empty(&pg);
	free(doc);
}

static void test_azblob_metadata(void **state)
{
	struct upload_page pg;

	parse_ok(AZBLOB,
		 AZ("<Blobs>" AZ_BLOB("a", "<Metadata><Team.Name>x</Team.Name><_-_>refused</_-_>"
					   "<empty/><also_empty></also_empty>"
					   "<ctl>a&#x41;\x01</ctl><n>&lt;&#233;&gt;</n>"
					   "<Encrypted>true</Encrypted></Metadata>") "</Blobs>"),
		 "", &pg);
	assert_int_equal(pg.items[0].nmeta, 5);
	expect_meta(&pg.items[0], 0, "team_name", "x");
	expect_meta(&pg.items[0], 1, "empty", "");
	expect_meta(&pg.items[0], 2, "also_empty", "");
	expect_meta(&pg.items[0], 3, "n", "<\xc3\xa9>");
	expect_meta(&pg.items[0], 4, "encrypted", "true");
	upload_page__free(&pg);

	/* none: no array */
	parse_ok(AZBLOB, AZ("<Blobs>" AZ_BLOB("a", "<Metadata/>") AZ_BLOB("b", "") "</Blobs>"), "",
		 &pg);
	assert_null(pg.items[0].meta);
	assert_int_equal(pg.items[0].nmeta, 0);
	assert_null(pg.items[1].meta);
	upload_page__free(&pg);
	/* only names upload_meta__name refuses: none either */
	parse_ok(AZBLOB,
		 AZ("<Blobs>" AZ_BLOB("a", "<Metadata><_>x</_><__/></Metadata>") "</Blobs>"), "",
		 &pg);
	assert_null(pg.items[0].meta);
	assert_int_equal(pg.items[0].nmeta, 0);
	upload_page__free(&pg);
}

static void test_azblob_metadata_caps(void **state)
{
	char xml[8192], big[400], many_meta[4096];
	struct upload_page pg;
	size_t i, o = 0;

	/* a value cut to fit, never inside a character: 318 bytes and 'é' */
	memset(big, 'v', 318);
	memcpy(big + 318, "\xc3\xa9zz", 5);
	snprintf(xml, sizeof(xml),
		 AZ("<Blobs>" AZ_BLOB("a", "<Metadata><big>%s</big></Metadata>") "</Blobs>"), big);
	parse_ok(AZBLOB, xml, "", &pg);
	assert_int_equal(strlen(pg.items[0].meta[0].value), 318);
	upload_page__free(&pg);
	memset(big, 'v', 330);
	big[330] = '\0';
	snprintf(xml, sizeof(xml),
		 AZ("<Blobs>" AZ_BLOB("a", "<Metadata><big>%s</big></Metadata>") "</Blobs>"), big);
	parse_ok(AZBLOB, xml, "", &pg);
	assert_int_equal(strlen(pg.items[0].meta[0].value), sizeof(pg.items[0].meta[0].value) - 1);
	upload_page__free(&pg);

	/* at most UPLOAD_META_MAX, the rest ignored */
	for (i = 0; i < UPLOAD_META_MAX + 5; i++)
		o += (size_t)snprintf(many_meta + o, sizeof(many_meta) - o, "<m%zu>%zu</m%zu>", i,
				      i, i);
	snprintf(xml, sizeof(xml), AZ("<Blobs>" AZ_BLOB("a", "<Metadata>%s</Metadata>") "</Blobs>"),
		 many_meta);
	parse_ok(AZBLOB, xml, "", &pg);
	assert_int_equal(pg.items[0].nmeta, UPLOAD_META_MAX);
	expect_meta(&pg.items[0], UPLOAD_META_MAX - 1, "m47", "47");
	upload_page__free(&pg);

	/* a value is text, not elements */
	expect_fail(AZBLOB,
		    AZ("<Blobs>" AZ_BLOB("a", "<Metadata><m><x/></m></Metadata>") "</Blobs>"),
		    -EBADMSG, "<m> holds an element");
}

static void test_items_need_a_key_and_a_size(void **state)
{
	expect_fail(S3, S3(LAST "<Contents><Size>1</Size></Contents>"), -EBADMSG,
		    "<Contents> 1 has no key");
	expect_fail(S3, S3(LAST S3_ITEM("a", "1") "<Contents><Key>b</Key></Contents>"), -EBADMSG,
		    "'b' has no <Size>");
	expect_fail(AZBLOB, AZ("<Blobs><Blob><Name>b</Name></Blob></Blobs>"), -EBADMSG,
		    "'b' has no <Content-Length>");
	expect_fail(AZBLOB, AZ("<Blobs><Blob/></Blobs>"), -EBADMSG, "<Blob> 1 has no key");
	/* S3's <Size> outside <Contents>, Azure's outside <Properties>: unknown */
	expect_fail(
		AZBLOB,
		AZ("<Blobs><Blob><Name>b</Name><Content-Length>1</Content-Length></Blob></Blobs>"),
		-EBADMSG, "has no <Content-Length>");
}

static void test_twice_in_one_place_refused(void **state)
{
	expect_fail(S3, S3(LAST "<Contents><Key>a</Key><Key>b</Key><Size>1</Size></Contents>"),
		    -EBADMSG, "<Key> twice in 'a'");
	expect_fail(S3, S3(LAST "<Contents><Key>a</Key><Size>1</Size><Size>2</Size></Contents>"),
		    -EBADMSG, "<Size> twice in 'a'");
	expect_fail(S3, S3(LAST LAST), -EBADMSG, "<IsTruncated> twice in the answer");
	expect_fail(AZBLOB, AZ("<NextMarker>a</NextMarker><NextMarker>b</NextMarker>"), -EBADMSG,
		    "<NextMarker> twice in the answer");
}

static void test_garbage_refused(void **state)
{
	static const struct {
		enum fmt fmt;
		const char *xml, *want;
	} bad[] = {
		{ S3, "", "ListBucketResult: not in the answer, which has no element" },
		{ S3, "   \n", "has no element" },
		{ S3, "hello", "has no element" },
		{ S3, "<?xml version=\"1.0\"?>", "has no element" },
		{ S3, "<Error><Code>AccessDenied</Code></Error>",
		  "ListBucketResult: not the answer's root, which is <Error>" },
		{ AZBLOB, S3(LAST), "EnumerationResults: not the answer's root" },
		{ S3, AZ(""), "not the answer's root, which is <EnumerationResults>" },
		{ S3, "<listbucketresult></listbucketresult>", "not the answer's root" },
		{ S3, "<ListBucketResult>", "cut short: <ListBucketResult> not closed" },
		{ S3, "<ListBucketResult>" LAST "<Contents><Key>a</Key><Size>1</Size>",
		  "cut short: <Contents> not closed" },
		{ S3, "<ListBucketResult>" LAST "<Contents><Key>a</Ke", "never ends" },
		{ S3, "<ListBucketResult><Contents></Key></Contents></ListBucketResult>",
		  "</Key> at byte 28 closes <Contents>" },
		{ S3, "</ListBucketResult>", "closes nothing" },
		{ S3, "<ListBucketResult></ListBucketResult >x", "no <IsTruncated>" },
		{ S3, "<ListBucketResult><Contents><Key>a<b/>c</Key></Contents></ListBucketResult>",
		  "<Key> holds an element at byte 34" },
		{ S3, "<!DOCTYPE x [<!ENTITY e \"k\">]><ListBucketResult/>",
		  "a DOCTYPE or CDATA at byte 0" },
		{ S3, "<ListBucketResult><Contents><Key><![CDATA[k]]></Key>", "DOCTYPE or CDATA" },
		{ S3, "<ListBucketResult><!-- never closed -></ListBucketResult>",
		  "a comment at byte 18 never ends" },
		{ S3, "<?xml version='1.0'<ListBucketResult/>",
		  "a processing instruction at byte 0 never ends" },
		{ S3, "<ListBucketResult a=\"x></ListBucketResult>",
		  "the tag at byte 0 never ends" },
		{ S3, "<ListBucketResult a='x\"></ListBucketResult>", "never ends" },
		{ S3, "<ListBucketResult <Contents>", "never ends" },
		{ S3, "<>", "a tag at byte 0 has no name" },
		{ S3, "< ListBucketResult/>", "has no name" },
		{ S3, "<ListBucketResult></>", "has no name" },
		{ S3, "<List\"BucketResult/>", "bad element name" },
		{ S3, "<List=BucketResult/>", "bad element name" },
		{ S3,
		  "<List\x01"
		  "BucketResult/>",
		  "bad element name" },
		{ S3, "<ListBucketResult" LAST, "bad element name" },
		{ AZBLOB, "<EnumerationResults><Blobs><Blob><Name>a</Name></Blobs>",
		  "</Blobs> at byte 47 closes <Blob>" },
		{ AZBLOB, "<EnumerationResults><Blobs><Blob><Name>a&b</Name>", "bare '&'" },
		{ AZBLOB, "<EnumerationResults><NextMarker>a\x7f</NextMarker></EnumerationResults>",
		  "a control byte" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_fail(bad[i].fmt, bad[i].xml, -EBADMSG, bad[i].want);
	/* a NUL in the middle of a tag */
	expect_fail_n(S3, "<List\0BucketResult/>", 20, -EBADMSG, "bad element name");
	/* a failure after some objects leaves none behind */
	expect_fail(S3, S3(LAST S3_ITEM("a", "1") S3_ITEM("b", "2") S3_ITEM("c", "x")), -EBADMSG,
		    "<Size> of 'c': not a number");
}

static void test_nesting_has_a_bound(void **state)
{
	char xml[1024] = "<ListBucketResult>";
	size_t i;

	for (i = 1; i < 32; i++)
		memcpy(xml + strlen(xml), "<a>", 4);
	expect_fail(S3, xml, -EBADMSG, "cut short: <a> not closed");
	memcpy(xml + strlen(xml), "<a>", 4);
	expect_fail(S3, xml, -EBADMSG, "elements nested over 32 deep at byte 111");
}

static void test_self_closing_elements_attributes_and_comments(void **state)
{
	struct upload_page pg;

	parse_ok(S3,
		 "\xef\xbb\xbf" /* a byte order mark: text before the root */
		 "<?xml version='1.0' encoding='UTF-8'?>\n"
		 "<!-- the answer -->\n"
		 "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\" a='>' "
		 "b=\"/>\" c = \"'\">\n"
		 "  <Name>b</Name>\n  <Prefix/>\n  <KeyCount>1</KeyCount>\n"
		 "  <IsTruncated>false</IsTruncated>\n"
		 "  <Contents x=\"1\">\n"
		 "    <Key>p/a<!-- a comment cuts no key --></Key>\n"
		 "    <LastModified>2026-01-02T03:04:05.000Z</LastModified>\n"
		 "    <ETag>&quot;e&quot;</ETag>\n"
		 "    <Size>\n      5\n    </Size>\n"
		 "    <Owner><ID>x</ID><DisplayName>y&nbsp;</DisplayName></Owner>\n"
		 "    <StorageClass/>\n"
		 "    <?pi anywhere?>\n"
		 "  </Contents>\n"
		 "  <CommonPrefixes><Prefix>p/d/</Prefix></CommonPrefixes>\n"
		 "  <Unknown><Contents><Key>p/hidden</Key></Contents></Unknown>\n"
		 "</ListBucketResult>\n"
		 "trailing bytes after the root are not read <",
		 "p/", &pg);
	assert_int_equal(pg.nitems, 1);
	expect_item(&pg, 0, "a", 5, "e", "2026-01-02T03:04:05.000Z");
	assert_int_equal(pg.nprefixes, 1);
	assert_string_equal(pg.prefixes[0], "d/");
	assert_null(pg.next);
	upload_page__free(&pg);

	parse_ok(AZBLOB,
		 "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
		 "<EnumerationResults ServiceEndpoint=\"https://acct.blob.core.windows.net/\" "
		 "ContainerName=\"c\"><Prefix>p/</Prefix><Marker /><MaxResults>2</MaxResults>"
		 "<Blobs><Blob><Name>p/a</Name><Properties><Content-Length>7</Content-Length>"
		 "<Etag>0x8DC5B0F3A1B2C3D</Etag><Content-MD5 /></Properties><Metadata />"
		 "<OrMetadata/></Blob><BlobPrefix><Name>p/d/</Name></BlobPrefix></Blobs>"
		 "<NextMarker /></EnumerationResults>",
		 "p/", &pg);
	assert_int_equal(pg.nitems, 1);
	expect_item(&pg, 0, "a", 7, "0x8DC5B0F3A1B2C3D", "");
	assert_int_equal(pg.items[0].nmeta, 0);
	assert_int_equal(pg.nprefixes, 1);
	assert_string_equal(pg.prefixes[0], "d/");
	assert_null(pg.next);
	upload_page__free(&pg);

	/* the root may be empty */
	parse_ok(S3, "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>", "",
		 &pg);
	assert_empty(&pg);
	parse_ok(AZBLOB, "<EnumerationResults/>", "", &pg);
	assert_empty(&pg);
}

static void test_error_names_what_and_where(void **state)
{
	struct upload_page pg;
	char err[256], small[24];

	assert_int_equal(parse_n(S3, S3(LAST S3_ITEM("web-1/2026/11/25/a.json", "x")),
				 strlen(S3(LAST S3_ITEM("web-1/2026/11/25/a.json", "x"))), "", &pg,
				 err, sizeof(err)),
			 -EBADMSG);
	assert_string_equal(err, "ListBucketResult: <Size> of 'web-1/2026/11/25/a.json': not a "
				 "number");
	/* before the key is known: the item's number */
	assert_int_equal(
		parse_n(S3, S3(LAST S3_ITEM("a", "1") "<Contents><Size>-1</Size></Contents>"),
			strlen(S3(LAST S3_ITEM("a", "1") "<Contents><Size>-1</Size></Contents>")),
			"", &pg, err, sizeof(err)),
		-EBADMSG);
	assert_string_equal(err, "ListBucketResult: <Size> of <Contents> 2: not a number");
	/* a small buffer is cut, a NULL one is fine */
	assert_int_equal(parse_n(S3, "x", 1, "", &pg, small, sizeof(small)), -EBADMSG);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(parse_n(AZBLOB, "x", 1, "", &pg, NULL, 0), -EBADMSG);
	assert_int_equal(parse_n(AZBLOB, "x", 1, "", &pg, err, 0), -EBADMSG);
}

static void test_page_free_twice_and_null(void **state)
{
	struct upload_page pg;

	upload_page__free(NULL);
	parse_fixture(AZBLOB, "azblob-page1.xml", "", &pg);
	upload_page__free(&pg);
	assert_empty(&pg);
	upload_page__free(&pg);
	assert_empty(&pg);
	/* the page is zeroed first: what was in it is the caller's */
	pg.next = (char *)"not ours";
	parse_ok(S3, S3(LAST), "", &pg);
	assert_empty(&pg);
}

/* --- 16 MiB answers --------------------------------------------------- */

/* fill - @doc of UPLOAD_LIST_BODY_MAX bytes: @head, @unit repeated, then
 * @tail (each cut to fit). Returns @doc. */
static char *fill(char *doc, const char *head, const char *unit, const char *tail)
{
	size_t h = strlen(head), u = strlen(unit), t = strlen(tail), o = h;

	memcpy(doc, head, h);
	while (o + u <= UPLOAD_LIST_BODY_MAX - t) {
		memcpy(doc + o, unit, u);
		o += u;
	}
	memset(doc + o, ' ', UPLOAD_LIST_BODY_MAX - t - o); /* text nobody reads */
	memcpy(doc + UPLOAD_LIST_BODY_MAX - t, tail, t);
	return doc;
}

static void test_largest_answers_parse_in_linear_time(void **state)
{
	static const struct {
		enum fmt fmt;
		const char *head, *unit, *tail;
		int code;
	} shapes[] = {
		/* one key of 16 MiB */
		{ S3, "<ListBucketResult><Contents><Key>", "k",
		  "</Key></Contents></ListBucketResult>", -EBADMSG },
		/* millions of elements nobody asked for */
		{ S3, "<ListBucketResult>" LAST, "<Owner><ID>i</ID></Owner>", "</ListBucketResult>",
		  0 },
		{ S3, "<ListBucketResult>" LAST, "<a/>", "</ListBucketResult>", 0 },
		{ AZBLOB, "<EnumerationResults><Blobs>" AZ_BLOB_OPEN("a") "<Metadata>",
		  "<m>&amp;&#65;</m>", "</Metadata></Blob></Blobs></EnumerationResults>", 0 },
		/* a metadata value of millions of references */
		{ AZBLOB, "<EnumerationResults><Blobs>" AZ_BLOB_OPEN("a") "<Metadata><m>",
		  "&amp;&#x1F600;", "</m></Metadata></Blob></Blobs></EnumerationResults>", 0 },
		{ S3, "<ListBucketResult>" LAST, "<!-- c -->", "</ListBucketResult>", 0 },
		{ S3, "<ListBucketResult>" LAST, "<?p?>", "</ListBucketResult>", 0 },
		{ S3, "<ListBucketResult>" LAST "<x a=\"", "> ", "\"/></ListBucketResult>", 0 },
		/* never closed: one search to the end, then the failure */
		{ S3, "<ListBucketResult><!--", "-", "", -EBADMSG },
		{ S3, "<ListBucketResult><?", "?", "", -EBADMSG },
		{ S3, "<ListBucketResult><x a=\"", "a", "", -EBADMSG },
		{ S3, "<ListBucketResult", " a=\"\"", "", -EBADMSG },
		{ S3, "<ListBucketResult>" LAST, "<a>", "</ListBucketResult>", -EBADMSG },
		{ S3, "<ListBucketResult>" LAST, "<", "", -EBADMSG },
		{ S3, "<ListBucketResult>" LAST "<Contents><Key>k</Key><Size>", "0", "</Size>",
		  -EBADMSG },
	};
	char *doc = malloc(UPLOAD_LIST_BODY_MAX), err[256];
	struct upload_page pg;
	struct timespec t0;
	size_t i;
	double took;
	int e;

	assert_non_null(doc);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		fill(doc, shapes[i].head, shapes[i].unit, shapes[i].tail);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		e = parse_n(shapes[i].fmt, doc, UPLOAD_LIST_BODY_MAX, "", &pg, err, sizeof(err));
		took = seconds_since(&t0);
		upload_page__free(&pg);
		if (e != shapes[i].code)
			fail_msg("shape %zu (%s...): %d (%s), expected %d", i, shapes[i].unit, e,
				 err, shapes[i].code);
		if (took > PARSE_SECONDS_MAX)
			fail_msg("shape %zu (%s...): %.2f s", i, shapes[i].unit, took);
	}

	free(doc);
}

/* most_metadata - an Azure answer of UPLOAD_LIST_ITEMS_MAX objects of
 * UPLOAD_META_MAX metadata items each, and its length. */
static char *most_metadata(size_t *len)
{
	char *doc = NULL;
	FILE *f = open_memstream(&doc, len);
	size_t k, m;

	assert_non_null(f);
	fputs("<EnumerationResults><Blobs>", f);
	for (k = 0; k < UPLOAD_LIST_ITEMS_MAX; k++) {
		fprintf(f, AZ_BLOB_OPEN("k%zu") "<Metadata>", k);
		for (m = 0; m < UPLOAD_META_MAX; m++)
			fprintf(f, "<m%zu>v</m%zu>", m, m);
		fputs("</Metadata></Blob>", f);
	}
	fputs("</Blobs></EnumerationResults>", f);
	assert_int_equal(fclose(f), 0);
	return doc;
}

/* The most a page holds: 92 MB of struct upload_meta from 3 MB of XML. */
static void test_most_metadata_parses_in_linear_time(void **state)
{
	struct upload_page pg;
	struct timespec t0;
	char err[256];
	size_t len;
	char *doc = most_metadata(&len);
	double took;
	int e;

	assert_true(len <= UPLOAD_LIST_BODY_MAX);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	e = parse_n(AZBLOB, doc, len, "", &pg, err, sizeof(err));
	took = seconds_since(&t0);
	free(doc);
	if (e)
		fail_msg("%d (%s)", e, err);
	assert_int_equal(pg.nitems, UPLOAD_LIST_ITEMS_MAX);
	assert_int_equal(pg.items[UPLOAD_LIST_ITEMS_MAX - 1].nmeta, UPLOAD_META_MAX);
	expect_meta(&pg.items[UPLOAD_LIST_ITEMS_MAX - 1], UPLOAD_META_MAX - 1, "m47", "v");
	upload_page__free(&pg);
	if (took > PARSE_SECONDS_MAX)
		fail_msg("%d objects with metadata: %.2f s", UPLOAD_LIST_ITEMS_MAX, took);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_s3_real_first_page),
		cmocka_unit_test(test_s3_real_pages_to_the_last),
		cmocka_unit_test(test_s3_real_delimited),
		cmocka_unit_test(test_s3_real_empty),
		cmocka_unit_test(test_s3_keys_outside_strip_left_out),
		cmocka_unit_test(test_azblob_real_first_page),
		cmocka_unit_test(test_azblob_real_pages_to_the_last),
		cmocka_unit_test(test_azblob_real_delimited),
		cmocka_unit_test(test_azblob_real_empty),
		cmocka_unit_test(test_entities_and_character_references_decoded),
		cmocka_unit_test(test_bad_references_refused),
		cmocka_unit_test(test_bad_numbers_refused),
		cmocka_unit_test(test_control_bytes_in_keys_refused),
		cmocka_unit_test(test_key_longer_than_the_cap_refused),
		cmocka_unit_test(test_s3_truncated_needs_a_token),
		cmocka_unit_test(test_azblob_empty_or_absent_marker_is_the_last_page),
		cmocka_unit_test(test_tokens_etags_and_dates_have_caps),
		cmocka_unit_test(test_items_and_prefixes_over_the_cap_refused),
		cmocka_unit_test(test_answer_over_the_body_cap_refused),
		cmocka_unit_test(test_azblob_metadata),
		cmocka_unit_test(test_azblob_metadata_caps),
		cmocka_unit_test(test_items_need_a_key_and_a_size),
		cmocka_unit_test(test_twice_in_one_place_refused),
		cmocka_unit_test(test_garbage_refused),
		cmocka_unit_test(test_nesting_has_a_bound),
		cmocka_unit_test(test_self_closing_elements_attributes_and_comments),
		cmocka_unit_test(test_error_names_what_and_where),
		cmocka_unit_test(test_page_free_twice_and_null),
		cmocka_unit_test(test_largest_answers_parse_in_linear_time),
		cmocka_unit_test(test_most_metadata_parses_in_linear_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
