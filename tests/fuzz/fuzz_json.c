// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_json.c - the JSON reader on arbitrary bytes: no crash, no undefined
 * behaviour, no leak; every accessor agrees with the others on every value
 * of a parsed tree; and the tree written back with trapd's JSON writer
 * parses again to the same values. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static void walk(const struct json_value *v);

/* walk_object - every member reached by index, by key and by path is the
 * same value. */
static void walk_object(const struct json_value *v)
{
	size_t i, n = json_len(v);
	const char *key;

	for (i = 0; i < n; i++) {
		key = json_member_key(v, i);
		check(key != NULL);
		check(json_get(v, key) == json_index(v, i));
		if (!strchr(key, '.'))
			check(json_path(v, key) == json_index(v, i));
		walk(json_index(v, i));
	}
	check(json_member_key(v, n) == NULL);
}

static void walk_number(const struct json_value *v)
{
	const char *text = json_number_text(v);
	uint64_t u;
	int64_t i;
	double d;
	int ru = json_number_u64(v, &u), ri = json_number_i64(v, &i);

	check(text != NULL && text[0] != '\0' && json_len(v) == 0);
	check(ru == 0 || ru == -EINVAL || ru == -ERANGE);
	check(ri == 0 || ri == -EINVAL || ri == -ERANGE);
	check((ru == -EINVAL) == (ri == -EINVAL));
	if (!ru && !ri)
		check(u == (uint64_t)i && i >= 0);
	/* strtod and the conversion both round the same exact integer. */
	if (!json_number_double(v, &d)) {
		check(ri || d == (double)i);
		check(ru || d == (double)u);
	}
}

/* walk - touch every accessor on @v and everything below it. */
static void walk(const struct json_value *v)
{
	enum json_type t = json_type(v);
	const char *s = json_str(v);
	bool b;
	size_t i;

	check(t != JSON_ABSENT && json_type_name(t) != NULL);
	check((s != NULL) == (t == JSON_STRING));
	check((json_number_text(v) != NULL) == (t == JSON_NUMBER));
	check((json_boolean(v, &b) == 0) == (t == JSON_BOOL));
	if (s)
		check(strlen(s) == json_len(v));
	if (t == JSON_NUMBER)
		walk_number(v);
	if (t == JSON_OBJECT)
		walk_object(v);
	if (t == JSON_ARRAY) {
		for (i = 0; i < json_len(v); i++) {
			check(json_member_key(v, i) == NULL);
			walk(json_index(v, i));
		}
	}
	check(json_index(v, json_len(v)) == NULL);
	if (t != JSON_OBJECT)
		check(json_get(v, "") == NULL);
}

/* write - @v through trapd's writer. A number that fits an integer is
 * written as one, any other as a double; too large for a double, as null. */
static void write(struct json_writer *w, const struct json_value *v)
{
	uint64_t u;
	int64_t i;
	double d;
	size_t k;
	bool b;

	switch (json_type(v)) {
	case JSON_BOOL:
		json_boolean(v, &b);
		json_bool(w, b);
		break;
	case JSON_NUMBER:
		if (!json_number_u64(v, &u))
			json_u64(w, u);
		else if (!json_number_i64(v, &i))
			json_i64(w, i);
		else if (!json_number_double(v, &d))
			json_double(w, d);
		else
			json_null(w);
		break;
	case JSON_STRING:
		json_string(w, json_str(v));
		break;
	case JSON_ARRAY:
		json_array_begin(w);
		for (k = 0; k < json_len(v); k++)
			write(w, json_index(v, k));
		json_array_end(w);
		break;
	case JSON_OBJECT:
		json_object_begin(w);
		for (k = 0; k < json_len(v); k++) {
			json_key(w, json_member_key(v, k));
			write(w, json_index(v, k));
		}
		json_object_end(w);
		break;
	default:
		json_null(w);
	}
}

static bool same_number(const struct json_value *a, const struct json_value *b)
{
	uint64_t ua, ub;
	int64_t ia, ib;
	double da, db;

	if (!json_number_u64(a, &ua))
		return !json_number_u64(b, &ub) && ua == ub;
	if (!json_number_i64(a, &ia))
		return !json_number_i64(b, &ib) && ia == ib;
	if (json_number_double(a, &da))
		return json_type(b) == JSON_NULL;
	return !json_number_double(b, &db) && da == db;
}

/* same - @b, read back from what write made of @a, has @a's values. */
static bool same(const struct json_value *a, const struct json_value *b)
{
	bool ba, bb;
	size_t i;

	if (json_type(a) == JSON_NUMBER)
		return same_number(a, b);
	if (json_type(a) != json_type(b) || json_len(a) != json_len(b))
		return false;
	if (json_type(a) == JSON_STRING)
		return !strcmp(json_str(a), json_str(b));
	if (json_type(a) == JSON_BOOL)
		return !json_boolean(a, &ba) && !json_boolean(b, &bb) && ba == bb;
	for (i = 0; i < json_len(a); i++) {
		if (json_type(a) == JSON_OBJECT &&
		    strcmp(json_member_key(a, i), json_member_key(b, i)))
			return false;
		if (!same(json_index(a, i), json_index(b, i)))
			return false;
	}
	return true;
}

/* round_trip - write @root with trapd's writer and read it back. The
 * writer nests at most JSON_MAX_DEPTH - 1 levels; deeper trees are skipped. */
static void round_trip(const struct json_value *root)
{
	struct json_value *back = NULL;
	struct json_writer w;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	check(f != NULL);
	json_init(&w, f);
	write(&w, root);
	ret = json_finish(&w);
	fclose(f);
	if (!ret) {
		if (json_parse(text, len, &back, err, sizeof(err))) {
			fprintf(stderr, "written back, not read: %s\n%s\n", err, text);
			abort();
		}
		check(same(root, back));
		json_free(back);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value *root = NULL, *again = NULL;
	char err[128], path[33];
	int ret;

	ret = json_parse((const char *)data, size, &root, err, sizeof(err));
	check(ret == 0 || ret == -EINVAL);
	check((ret == 0) == (root != NULL));
	check(ret == 0 || strncmp(err, "line ", 5) == 0);
	/* Without a message buffer: the same answer. */
	check(json_parse((const char *)data, size, &again, NULL, 0) == ret);
	json_free(again);
	if (ret)
		return 0;
	walk(root);
	/* The input's first bytes as a path: any answer, no crash. */
	snprintf(path, sizeof(path), "%.*s", (int)(size < 32 ? size : 32), (const char *)data);
	json_type(json_path(root, path));
	round_trip(root);
	json_free(root);
	return 0;
}
