// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_fleet_capture.c - a capture in a store as a listing knows it
 * (trapd/fleet/fleet_capture.h): the keys of the uploader's layout and
 * the ones that are not (a host too long, a digest that is not 64
 * lower-case hex digits, dates that do not exist, other suffixes,
 * components missing or extra); a capture described by a listing's
 * metadata (%XX-decoded values, label_* as labels, bad numbers ignored,
 * no start: not described); described by a real sidecar (the golden
 * daemon sidecar copied into a store-like fixture directory: window,
 * samples, summed losses, rules once each, labels) and refused sidecars
 * (not JSON, no or another format, no window.start_ns); labels and rules
 * looked up exactly ("web" is not "web-cpu").
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
#include <sys/stat.h>
#include <unistd.h>

#include "trapd/fleet/fleet_capture.h"
#include "trapd/fleet/fleet_time.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HOST "web-1.example.com"
#define KEY HOST "/2026/11/22/" SHA
/* the golden sidecar's window.start_ns */
#define START_NS 1795327160698296842ll

/* --- keys ----------------------------------------------------------------- */

static void test_key_profile(void **state)
{
	struct fleet_capture c;
	enum fleet_part part = FLEET_SIDECAR;

	memset(&c, 0, sizeof(c));
	c.samples = 5;
	assert_int_equal(fleet_key__parse(KEY ".pb.zst", &c, &part), 0);
	assert_int_equal(part, FLEET_PROFILE);
	assert_string_equal(c.key, KEY);
	assert_string_equal(c.host, HOST);
	assert_string_equal(c.sha256, SHA);
	assert_int_equal(c.day, 20261122);
	/* the rest untouched */
	assert_int_equal(c.samples, 5);
	assert_false(c.described);
}

static void test_key_sidecar(void **state)
{
	struct fleet_capture c;
	enum fleet_part part = FLEET_PROFILE;

	memset(&c, 0, sizeof(c));
	assert_int_equal(fleet_key__parse("db_2/2028/02/29/" SHA ".json", &c, &part), 0);
	assert_int_equal(part, FLEET_SIDECAR);
	assert_string_equal(c.key, "db_2/2028/02/29/" SHA);
	assert_string_equal(c.host, "db_2");
	assert_string_equal(c.sha256, SHA);
	assert_int_equal(c.day, 20280229);
}

static void test_key_host_length(void **state)
{
	char host[FLEET_HOST_MAX + 1], key[UPLOAD_KEY_MAX];
	struct fleet_capture c;
	enum fleet_part part;

	/* the longest host the layout holds: 255 bytes (NAME_MAX) */
	memset(host, 'h', FLEET_HOST_MAX - 1);
	host[FLEET_HOST_MAX - 1] = '\0';
	snprintf(key, sizeof(key), "%s/2026/11/22/%s.pb.zst", host, SHA);
	assert_int_equal(fleet_key__parse(key, &c, &part), 0);
	assert_string_equal(c.host, host);
	assert_int_equal(strlen(c.key), FLEET_HOST_MAX - 1 + strlen("/2026/11/22/" SHA));
	/* one more: not a capture */
	memset(host, 'h', FLEET_HOST_MAX);
	host[FLEET_HOST_MAX] = '\0';
	snprintf(key, sizeof(key), "%s/2026/11/22/%s.pb.zst", host, SHA);
	assert_int_equal(fleet_key__parse(key, &c, &part), -EINVAL);
}

/* expect_not_a_key - @key is refused. */
static void expect_not_a_key(const char *key)
{
	struct fleet_capture c;
	enum fleet_part part;
	int e;

	memset(&c, 0, sizeof(c));
	e = fleet_key__parse(key, &c, &part);
	if (e != -EINVAL)
		fail_msg("'%s': %d (host '%s', sha '%s'), expected -EINVAL", key, e, c.host,
			 c.sha256);
}

static void test_key_digest_must_be_64_lower_hex(void **state)
{
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.json");
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeF.json");
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg.json");
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde.json");
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0.json");
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789abcdef0123456789abcdef 123456789abcdef0123456789abcdef.json");
	expect_not_a_key(HOST
			 "/2026/11/22/"
			 "0123456789abcdef0123456789abcdef/123456789abcdef0123456789abcdef.json");
	expect_not_a_key(HOST "/2026/11/22/.json");
	expect_not_a_key(HOST "/2026/11/22/deadbeef.pb.zst");
}

static void test_key_date_must_exist(void **state)
{
	expect_not_a_key(HOST "/2026/13/01/" SHA ".json");
	expect_not_a_key(HOST "/2026/00/01/" SHA ".json");
	expect_not_a_key(HOST "/2026/02/30/" SHA ".json");
	expect_not_a_key(HOST "/2026/02/29/" SHA ".json"); /* not a leap year */
	expect_not_a_key(HOST "/2026/04/31/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/00/" SHA ".json");
	expect_not_a_key(HOST "/1969/12/31/" SHA ".json");
	expect_not_a_key(HOST "/2026/1/22/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/2/" SHA ".json");
	expect_not_a_key(HOST "/26/11/22/" SHA ".json");
	expect_not_a_key(HOST "/2026-11-22/" SHA ".json");
	expect_not_a_key(HOST "/20261122/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/2x/" SHA ".json");
	expect_not_a_key(HOST "/+026/11/22/" SHA ".json");
	/* days whose ns an int64_t does not hold */
	expect_not_a_key(HOST "/2262/04/12/" SHA ".json");
	expect_not_a_key(HOST "/9999/12/31/" SHA ".json");
}

static void test_key_last_day(void **state)
{
	struct fleet_capture c;
	enum fleet_part part;

	memset(&c, 0, sizeof(c));
	assert_int_equal(fleet_key__parse(HOST "/2262/04/11/" SHA ".pb.zst", &c, &part), 0);
	assert_int_equal(c.day, 22620411);
	memset(&c, 0, sizeof(c));
	assert_int_equal(fleet_key__parse(HOST "/1970/01/01/" SHA ".pb.zst", &c, &part), 0);
	assert_int_equal(c.day, 19700101);
}

static void test_key_suffix(void **state)
{
	expect_not_a_key(KEY);
	expect_not_a_key(KEY ".");
	expect_not_a_key(KEY ".pb");
	expect_not_a_key(KEY ".pb.gz");
	expect_not_a_key(KEY ".JSON");
	expect_not_a_key(KEY ".Pb.zst");
	expect_not_a_key(KEY ".json.tmp");
	expect_not_a_key(KEY ".pb.zst.part");
	expect_not_a_key(KEY ".jso");
	expect_not_a_key(KEY "json");
	expect_not_a_key(KEY ".json ");
}

static void test_key_components(void **state)
{
	/* missing */
	expect_not_a_key("");
	expect_not_a_key("/");
	expect_not_a_key(SHA ".json");
	expect_not_a_key(HOST "/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/" SHA ".json");
	expect_not_a_key(HOST "/2026/" SHA ".json");
	expect_not_a_key("/2026/11/22/" SHA ".json"); /* no host */
	expect_not_a_key("2026/11/22/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/22/");
	expect_not_a_key(HOST "/2026/11/22");
	expect_not_a_key(HOST);
	/* extra */
	expect_not_a_key("prefix/" HOST "/2026/11/22/" SHA ".json");
	expect_not_a_key(HOST "/x/2026/11/22/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/22/x/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/22//" SHA ".json");
	expect_not_a_key(HOST "//2026/11/22/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/22/" SHA ".json/x");
	expect_not_a_key(HOST "/2026/11/22/" SHA ".pb.zst/" SHA ".json");
	expect_not_a_key(HOST "/2026/11/22/" SHA "/" SHA ".json");
}

/* --- metadata ------------------------------------------------------------- */

/* meta - fills @m[*@n] with @name = @value as a listing returns them. */
static void meta(struct upload_meta *m, size_t *n, const char *name, const char *value)
{
	assert_true(*n < UPLOAD_META_MAX);
	snprintf(m[*n].name, sizeof(m[*n].name), "%s", name);
	snprintf(m[*n].value, sizeof(m[*n].value), "%s", value);
	(*n)++;
}

static void test_meta_describes(void **state)
{
	struct upload_meta m[UPLOAD_META_MAX];
	struct fleet_capture c;
	size_t n = 0;

	meta(m, &n, "trapd_start", "2026-11-22T05:59:20.698Z");
	meta(m, &n, "trapd_duration_ns", "3000000000");
	meta(m, &n, "trapd_samples", "594");
	meta(m, &n, "trapd_lost", "3");
	meta(m, &n, "trapd_period_ns", "10101010");
	meta(m, &n, "trapd_trigger", "rule");
	meta(m, &n, "trapd_rules", "web-cpu,host-pressure");
	meta(m, &n, "trapd_capture_id", "0123456789abcdef0123456789abcdef");
	meta(m, &n, "trapd_host", "web-1");	      /* known, not kept */
	meta(m, &n, "something_else", "x");	      /* unknown: ignored */
	meta(m, &n, "label_team", "payments%20core"); /* %XX-decoded */
	meta(m, &n, "label_env", "prod");

	memset(&c, 0, sizeof(c));
	assert_true(fleet_capture__from_meta(&c, m, n));
	assert_true(c.described);
	assert_int_equal(c.start_ns, 1795327160698000000ll);
	assert_int_equal(c.duration_ns, 3000000000ull);
	assert_int_equal(c.samples, 594);
	assert_int_equal(c.lost, 3);
	assert_true(c.lost_known);
	assert_int_equal(c.period_ns, 10101010);
	assert_string_equal(c.trigger, "rule");
	assert_string_equal(c.rules, "web-cpu,host-pressure");
	assert_string_equal(c.capture_id, "0123456789abcdef0123456789abcdef");
	assert_int_equal(c.nlabels, 2);
	assert_string_equal(c.labels[0].key, "team");
	assert_string_equal(c.labels[0].value, "payments core");
	assert_string_equal(c.labels[1].key, "env");
	assert_string_equal(c.labels[1].value, "prod");
	assert_string_equal(fleet_capture__label(&c, "team"), "payments core");
	assert_true(fleet_capture__has_rule(&c, "host-pressure"));
}

static void test_meta_values_decoded(void **state)
{
	static const struct {
		const char *stored, *text;
	} cases[] = {
		{ "payments%20core", "payments core" },
		{ "100%25", "100%" },
		{ "caf%C3%A9", "caf\xc3\xa9" },
		{ "caf%c3%a9", "caf\xc3\xa9" },
		{ "tab%09and%0Anewline", "tab\tand\nnewline" },
		{ "%22quoted%22", "\"quoted\"" },
		/* not an escape: kept as it is */
		{ "50%", "50%" },
		{ "%2", "%2" },
		{ "%zz", "%zz" },
		{ "%g0", "%g0" },
		{ "a%%41", "a%A" },
		{ "", "" },
	};
	struct upload_meta m[2];
	struct fleet_capture c;
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = 0;
		meta(m, &n, "trapd_start", "2026-11-22");
		meta(m, &n, "label_x", cases[i].stored);
		memset(&c, 0, sizeof(c));
		assert_true(fleet_capture__from_meta(&c, m, n));
		assert_int_equal(c.nlabels, 1);
		if (strcmp(c.labels[0].value, cases[i].text))
			fail_msg("'%s' read as '%s', expected '%s'", cases[i].stored,
				 c.labels[0].value, cases[i].text);
	}
}

static void test_meta_round_trip_through_upload_meta(void **state)
{
	static const char *const values[] = {
		"payments core", "100% sure", "caf\xc3\xa9", "a\tb", "x=y,z", "\"q\"",
	};
	struct upload_meta m[UPLOAD_META_MAX];
	struct fleet_capture c;
	size_t i, n = 0;

	assert_int_equal(upload_meta__add(m, &n, UPLOAD_META_MAX, "trapd_start",
					  "2026-11-22T05:59:20Z"),
			 0);
	assert_int_equal(upload_meta__add(m, &n, UPLOAD_META_MAX, "trapd_rules", "web-cpu"), 0);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		assert_int_equal(upload_meta__add(m, &n, UPLOAD_META_MAX, "label_v", values[i]), 0);
	memset(&c, 0, sizeof(c));
	assert_true(fleet_capture__from_meta(&c, m, n));
	assert_int_equal(c.start_ns, 1795327160ll * 1000000000);
	assert_string_equal(c.rules, "web-cpu");
	assert_int_equal(c.nlabels, sizeof(values) / sizeof(values[0]));
	for (i = 0; i < c.nlabels; i++) {
		assert_string_equal(c.labels[i].key, "v");
		assert_string_equal(c.labels[i].value, values[i]);
	}
}

static void test_meta_bad_numbers_ignored(void **state)
{
	static const char *const bad[] = {
		"",
		"x",
		"12x",
		"-5",
		" 5",
		" -5",
		"\t-5",
		"+5",
		"5 ",
		"0x10",
		"1.5",
		"1e3",
		"99999999999999999999999",
	};
	struct upload_meta m[8];
	struct fleet_capture c;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		meta(m, &n, "trapd_start", "2026-11-22");
		meta(m, &n, "trapd_duration_ns", bad[i]);
		meta(m, &n, "trapd_samples", bad[i]);
		meta(m, &n, "trapd_lost", bad[i]);
		meta(m, &n, "trapd_period_ns", bad[i]);
		memset(&c, 0, sizeof(c));
		c.duration_ns = 1;
		c.samples = 2;
		c.period_ns = 4;
		assert_true(fleet_capture__from_meta(&c, m, n));
		if (c.duration_ns != 1 || c.samples != 2 || c.lost_known || c.period_ns != 4)
			fail_msg("'%s' taken as a number", bad[i]);
	}
	/* a period too large for its signed field */
	n = 0;
	meta(m, &n, "trapd_start", "2026-11-22");
	meta(m, &n, "trapd_period_ns", "9223372036854775808");
	memset(&c, 0, sizeof(c));
	assert_true(fleet_capture__from_meta(&c, m, n));
	assert_int_equal(c.period_ns, 0);
}

static void test_meta_without_start_not_described(void **state)
{
	struct upload_meta m[4];
	struct fleet_capture c;
	size_t n = 0;

	meta(m, &n, "trapd_samples", "594");
	meta(m, &n, "label_team", "payments");
	memset(&c, 0, sizeof(c));
	assert_false(fleet_capture__from_meta(&c, m, n));
	assert_false(c.described);

	/* a start that is not a time */
	meta(m, &n, "trapd_start", "yesterday");
	memset(&c, 0, sizeof(c));
	assert_false(fleet_capture__from_meta(&c, m, n));
	assert_false(c.described);

	memset(&c, 0, sizeof(c));
	assert_false(fleet_capture__from_meta(&c, m, 0));
	assert_false(c.described);
}

static void test_meta_labels_bounded(void **state)
{
	struct upload_meta m[UPLOAD_META_MAX];
	struct fleet_capture c;
	char name[64], value[320];
	size_t i, n = 0;

	meta(m, &n, "trapd_start", "2026-11-22");
	meta(m, &n, "label_", "no key: ignored");
	for (i = 0; i < FLEET_LABELS_MAX + 3; i++) {
		snprintf(name, sizeof(name), "label_k%zu", i);
		meta(m, &n, name, "v");
	}
	memset(&c, 0, sizeof(c));
	assert_true(fleet_capture__from_meta(&c, m, n));
	assert_int_equal(c.nlabels, FLEET_LABELS_MAX);
	assert_string_equal(c.labels[0].key, "k0");
	assert_string_equal(c.labels[FLEET_LABELS_MAX - 1].key, "k7");
	assert_null(fleet_capture__label(&c, "k8"));

	/* a value longer than a label holds is cut, NUL-terminated */
	memset(value, 'v', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	n = 0;
	meta(m, &n, "trapd_start", "2026-11-22");
	meta(m, &n, "label_long", value);
	meta(m, &n, "trapd_trigger", "a-trigger-much-longer-than-sixteen");
	memset(&c, 0, sizeof(c));
	assert_true(fleet_capture__from_meta(&c, m, n));
	assert_int_equal(strlen(c.labels[0].value), sizeof(c.labels[0].value) - 1);
	assert_int_equal(strlen(c.trigger), sizeof(c.trigger) - 1);
}

/* --- sidecars ------------------------------------------------------------- */

struct fixture {
	char dir[64];
	char sidecar[512]; /* DIR/KEY.json, the golden daemon sidecar */
	char *text;	   /* its text, NUL-terminated */
	size_t len;
};

static const char *srcdir(void)
{
	const char *d = getenv("TRAPD_SRCDIR");

	return d ? d : ".";
}

/* slurp - the whole file at @path, malloc'd and NUL-terminated. */
static char *slurp(const char *path, size_t *len)
{
	char *text = malloc(1 << 20);
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot read %s (run from the top of the tree or set TRAPD_SRCDIR)", path);
	assert_non_null(text);
	*len = fread(text, 1, (1 << 20) - 1, f);
	text[*len] = '\0';
	fclose(f);
	return text;
}

static void spit(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* setup - a store-like directory holding the golden daemon sidecar as
 * the sidecar of KEY. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[512], *golden;
	size_t len;
	int n;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_fleet_capture.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	n = snprintf(path, sizeof(path), "%s/%s", f->dir, HOST);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path + n, sizeof(path) - n, "/2026");
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path + n, sizeof(path) - n, "/2026/11");
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path + n, sizeof(path) - n, "/2026/11/22");
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(f->sidecar, sizeof(f->sidecar), "%s/%s.json", f->dir, KEY);

	snprintf(path, sizeof(path), "%s/tests/data/golden/metadata_daemon.json", srcdir());
	golden = slurp(path, &len);
	spit(f->sidecar, golden, len);
	free(golden);
	f->text = slurp(f->sidecar, &f->len);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[512];
	int n;

	unlink(f->sidecar);
	n = snprintf(path, sizeof(path), "%s/%s/2026/11/22", f->dir, HOST);
	while (n > 0 && rmdir(path) == 0 && strcmp(path, f->dir)) {
		*strrchr(path, '/') = '\0';
		n = (int)strlen(path);
	}
	free(f->text);
	free(f);
	return 0;
}

/* replaced - @text with its one @old replaced by @new (malloc'd). */
static char *replaced(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	size_t len = strlen(text) - strlen(old) + strlen(new) + 1;
	char *out = malloc(len);

	if (!at)
		fail_msg("'%s' not in the sidecar", old);
	assert_non_null(out);
	snprintf(out, len, "%.*s%s%s", (int)(at - text), text, new, at + strlen(old));
	return out;
}

/* from_key - a capture as the listing has it when it reads @f's sidecar. */
static struct fleet_capture from_key(const struct fixture *f)
{
	struct fleet_capture c;
	enum fleet_part part;

	memset(&c, 0, sizeof(c));
	/* the fixture's path under its directory is the key */
	assert_int_equal(fleet_key__parse(f->sidecar + strlen(f->dir) + 1, &c, &part), 0);
	assert_int_equal(part, FLEET_SIDECAR);
	c.has_sidecar = true;
	return c;
}

static void test_sidecar_golden(void **state)
{
	struct fixture *f = *state;
	struct fleet_capture c = from_key(f);
	char err[256] = "";

	if (fleet_capture__from_sidecar(&c, f->text, f->len, err, sizeof(err)))
		fail_msg("%s: %s", f->sidecar, err);
	assert_true(c.described);
	assert_int_equal(c.start_ns, START_NS);
	assert_int_equal(c.duration_ns, 3000000000ull);
	assert_int_equal(c.samples, 594);
	assert_true(c.lost_known);
	assert_int_equal(c.lost, 3); /* losses.over_cap, the others 0 */
	assert_int_equal(c.period_ns, 10101010);
	assert_string_equal(c.trigger, "rule");
	assert_string_equal(c.capture_id, "0123456789abcdef0123456789abcdef");
	assert_string_equal(c.rules, "web-cpu,host-pressure,idle-worker");
	assert_int_equal(c.nlabels, 2);
	assert_string_equal(fleet_capture__label(&c, "env"), "prod");
	assert_string_equal(fleet_capture__label(&c, "team"), "payments \"core\"");
	/* what the key said stays */
	assert_string_equal(c.key, KEY);
	assert_string_equal(c.host, HOST);
	assert_string_equal(c.sha256, SHA);
	assert_int_equal(c.day, 20261122);
	assert_true(c.has_sidecar);
	assert_int_equal(fleet_time__day(c.start_ns), c.day);
}

static void test_sidecar_rules_once_each(void **state)
{
	struct fixture *f = *state;
	struct fleet_capture c = from_key(f);
	char err[256] = "";
	/* web-cpu and host-pressure fired again before idle-worker */
	char *text =
		replaced(f->text, "\"triggers\": [",
			 "\"triggers\": [{\"rule\": \"web-cpu\"}, {\"rule\": \"host-pressure\"}, "
			 "{\"rule\": \"web-cpu\"}, {\"signal\": \"no rule\"}, ");

	spit(f->sidecar, text, strlen(text));
	free(text);
	free(f->text);
	f->text = slurp(f->sidecar, &f->len);
	if (fleet_capture__from_sidecar(&c, f->text, f->len, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(c.rules, "web-cpu,host-pressure,idle-worker");
	assert_true(fleet_capture__has_rule(&c, "idle-worker"));
	assert_false(fleet_capture__has_rule(&c, "web"));
}

/* expect_refused_bytes - @text (@len bytes) is -EBADMSG with a message
 * that holds @want, and describes nothing. */
static void expect_refused_bytes(const char *text, size_t len, const char *want)
{
	struct fleet_capture c;
	char err[256] = "";
	int e;

	memset(&c, 0, sizeof(c));
	e = fleet_capture__from_sidecar(&c, text, len, err, sizeof(err));
	if (e != -EBADMSG)
		fail_msg("%.60s...: %d, expected -EBADMSG", text, e);
	if (!strstr(err, want))
		fail_msg("%.60s...: \"%s\" does not say \"%s\"", text, err, want);
	assert_false(c.described);
	assert_int_equal(c.start_ns, 0);
	assert_int_equal(c.nlabels, 0);
}

static void expect_refused(const char *text, const char *want)
{
	expect_refused_bytes(text, strlen(text), want);
}

static void test_sidecar_not_json(void **state)
{
	struct fixture *f = *state;

	/* the golden sidecar cut short, as an interrupted upload leaves it */
	expect_refused_bytes(f->text, f->len / 2, "not JSON: line ");
	expect_refused_bytes(f->text, f->len - 2, "not JSON: line ");
	expect_refused("", "not JSON");
	expect_refused("trapd-capture/1", "not JSON");
	expect_refused("{\"format\": \"trapd-capture/1\",}", "not JSON");
	/* a NUL inside: the length counts, not the NUL */
	expect_refused_bytes("{}\0{}", 5, "not JSON");
}

static void test_sidecar_not_a_capture(void **state)
{
	struct fixture *f = *state;
	char *text;

	/* no format */
	text = replaced(f->text, "\"format\": \"trapd-capture/1\",", "");
	expect_refused(text, "not a capture's sidecar");
	free(text);
	/* another format */
	text = replaced(f->text, "\"trapd-capture/1\"", "\"trapd-baseline/1\"");
	expect_refused(text, "not a capture's sidecar");
	free(text);
	text = replaced(f->text, "\"trapd-capture/1\"", "\"trapd-capture\"");
	expect_refused(text, "not a capture's sidecar");
	free(text);
	text = replaced(f->text, "\"trapd-capture/1\"", "1");
	expect_refused(text, "not a capture's sidecar");
	free(text);
	/* no window.start_ns */
	text = replaced(f->text, "\"start_ns\": 1795327160698296842", "\"begin_ns\": 1");
	expect_refused(text, "window.start_ns");
	free(text);
	/* one that is not a time */
	text = replaced(f->text, "1795327160698296842", "\"1795327160698296842\"");
	expect_refused(text, "window.start_ns");
	free(text);
	text = replaced(f->text, "1795327160698296842", "0");
	expect_refused(text, "window.start_ns");
	free(text);
	text = replaced(f->text, "1795327160698296842", "-1");
	expect_refused(text, "window.start_ns");
	free(text);
	text = replaced(f->text, "1795327160698296842", "1.7e18");
	expect_refused(text, "window.start_ns");
	free(text);
	/* JSON, but not an object */
	expect_refused("[]", "not a capture's sidecar");
	expect_refused("\"trapd-capture/1\"", "not a capture's sidecar");
	expect_refused("{}", "not a capture's sidecar");
	expect_refused("{\"format\": \"trapd-capture/1\", \"window\": []}",
		       "not a capture's sidecar");
}

static void test_sidecar_smallest(void **state)
{
	static const char text[] =
		"{\"format\": \"trapd-capture/2\", \"window\": {\"start_ns\": 1}}";
	struct fleet_capture c;
	char err[256] = "";

	memset(&c, 0, sizeof(c));
	/* what the metadata said before is replaced */
	snprintf(c.rules, sizeof(c.rules), "old");
	snprintf(c.trigger, sizeof(c.trigger), "old");
	c.lost_known = true;
	c.lost = 9;
	c.nlabels = 1;
	if (fleet_capture__from_sidecar(&c, text, strlen(text), err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(c.described);
	assert_int_equal(c.start_ns, 1);
	assert_int_equal(c.duration_ns, 0);
	assert_int_equal(c.samples, 0);
	assert_int_equal(c.period_ns, 0);
	assert_false(c.lost_known);
	assert_int_equal(c.lost, 0);
	assert_string_equal(c.trigger, "");
	assert_string_equal(c.rules, "");
	assert_string_equal(c.capture_id, "");
	assert_int_equal(c.nlabels, 0);
}

static void test_sidecar_fields_bounded(void **state)
{
	char text[8192], rule[200], *p = text;
	size_t i, left = sizeof(text);
	struct fleet_capture c;
	char err[256] = "";
	int n;

	memset(rule, 'r', sizeof(rule) - 1);
	rule[sizeof(rule) - 1] = '\0';
	n = snprintf(p, left,
		     "{\"format\": \"trapd-capture/1\", \"window\": {\"start_ns\": 5},"
		     " \"trigger\": \"a-trigger-much-longer-than-sixteen\","
		     " \"losses\": {\"a\": 18446744073709551615, \"b\": 1, \"c\": -1,"
		     " \"d\": \"7\"}, \"triggers\": [");
	p += n, left -= (size_t)n;
	for (i = 0; i < 4; i++) {
		rule[0] = (char)('a' + i);
		n = snprintf(p, left, "%s{\"rule\": \"%s\"}", i ? ", " : "", rule);
		p += n, left -= (size_t)n;
	}
	n = snprintf(p, left, "], \"labels\": {");
	p += n, left -= (size_t)n;
	for (i = 0; i < FLEET_LABELS_MAX + 2; i++) {
		n = snprintf(p, left, "\"k%zu\": \"%s\", ", i, rule);
		p += n, left -= (size_t)n;
	}
	n = snprintf(p, left, "\"n\": 1}}");
	assert_true((size_t)n < left);

	memset(&c, 0, sizeof(c));
	if (fleet_capture__from_sidecar(&c, text, strlen(text), err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(strlen(c.trigger), sizeof(c.trigger) - 1);
	/* a sum that would wrap stops short of it */
	assert_true(c.lost_known);
	assert_int_equal(c.lost, UINT64_MAX);
	/* the rules that fit, the last one cut */
	assert_int_equal(strlen(c.rules), sizeof(c.rules) - 1);
	rule[0] = 'a';
	assert_true(fleet_capture__has_rule(&c, rule));
	rule[0] = 'c';
	assert_false(fleet_capture__has_rule(&c, rule));
	assert_int_equal(c.nlabels, FLEET_LABELS_MAX);
	for (i = 0; i < c.nlabels; i++)
		assert_int_equal(strlen(c.labels[i].value), sizeof(c.labels[i].value) - 1);
}

/* --- lookups -------------------------------------------------------------- */

static void test_label(void **state)
{
	struct fleet_capture c;

	memset(&c, 0, sizeof(c));
	assert_null(fleet_capture__label(&c, "team"));
	snprintf(c.labels[0].key, sizeof(c.labels[0].key), "team");
	snprintf(c.labels[0].value, sizeof(c.labels[0].value), "payments");
	snprintf(c.labels[1].key, sizeof(c.labels[1].key), "env");
	c.labels[1].value[0] = '\0';
	snprintf(c.labels[2].key, sizeof(c.labels[2].key), "team");
	snprintf(c.labels[2].value, sizeof(c.labels[2].value), "second");
	/* only the first nlabels count */
	c.nlabels = 2;
	assert_string_equal(fleet_capture__label(&c, "team"), "payments");
	assert_string_equal(fleet_capture__label(&c, "env"), "");
	assert_null(fleet_capture__label(&c, "tea"));
	assert_null(fleet_capture__label(&c, "teams"));
	assert_null(fleet_capture__label(&c, "Team"));
	assert_null(fleet_capture__label(&c, ""));
	c.nlabels = 3; /* the same key twice: the first */
	assert_string_equal(fleet_capture__label(&c, "team"), "payments");
}

static void test_has_rule(void **state)
{
	struct fleet_capture c;

	memset(&c, 0, sizeof(c));
	assert_false(fleet_capture__has_rule(&c, "web"));
	assert_false(fleet_capture__has_rule(&c, ""));
	snprintf(c.rules, sizeof(c.rules), "web-cpu,host-pressure,idle-worker");
	assert_true(fleet_capture__has_rule(&c, "web-cpu"));
	assert_true(fleet_capture__has_rule(&c, "host-pressure"));
	assert_true(fleet_capture__has_rule(&c, "idle-worker"));
	/* prefixes, suffixes, parts and lists are not rules */
	assert_false(fleet_capture__has_rule(&c, "web"));
	assert_false(fleet_capture__has_rule(&c, "cpu"));
	assert_false(fleet_capture__has_rule(&c, "host"));
	assert_false(fleet_capture__has_rule(&c, "idle-worker2"));
	assert_false(fleet_capture__has_rule(&c, "web-cpu,"));
	assert_false(fleet_capture__has_rule(&c, "web-cpu,host-pressure"));
	assert_false(fleet_capture__has_rule(&c, ""));
	/* a rule that the asked one is a prefix of, and the other way */
	snprintf(c.rules, sizeof(c.rules), "web");
	assert_true(fleet_capture__has_rule(&c, "web"));
	assert_false(fleet_capture__has_rule(&c, "web-cpu"));
	assert_false(fleet_capture__has_rule(&c, "we"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_profile),
		cmocka_unit_test(test_key_sidecar),
		cmocka_unit_test(test_key_host_length),
		cmocka_unit_test(test_key_digest_must_be_64_lower_hex),
		cmocka_unit_test(test_key_date_must_exist),
		cmocka_unit_test(test_key_last_day),
		cmocka_unit_test(test_key_suffix),
		cmocka_unit_test(test_key_components),
		cmocka_unit_test(test_meta_describes),
		cmocka_unit_test(test_meta_values_decoded),
		cmocka_unit_test(test_meta_round_trip_through_upload_meta),
		cmocka_unit_test(test_meta_bad_numbers_ignored),
		cmocka_unit_test(test_meta_without_start_not_described),
		cmocka_unit_test(test_meta_labels_bounded),
		cmocka_unit_test_setup_teardown(test_sidecar_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_rules_once_each, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_not_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_not_a_capture, setup, teardown),
		cmocka_unit_test(test_sidecar_smallest),
		cmocka_unit_test(test_sidecar_fields_bounded),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_has_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
