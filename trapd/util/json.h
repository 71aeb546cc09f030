/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* json.h - a small streaming JSON writer for the metadata sidecar and
 * --json outputs. It tracks nesting so commas and indentation are always
 * right; strings are escaped (control characters, quotes, backslashes;
 * invalid UTF-8 bytes become U+FFFD so the output is always valid JSON).
 */
#ifndef TRAPD_JSON_H
#define TRAPD_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;
	bool first[JSON_MAX_DEPTH];   /* no member written yet at this depth */
	bool inline_[JSON_MAX_DEPTH]; /* this depth is written on one line */
	bool pending_key;	      /* a key was written; its value comes next */
	bool error;		      /* nesting misuse; output is not valid */
};

void json_init(struct json_writer *w, FILE *out);
void json_object_begin(struct json_writer *w);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w);
void json_array_end(struct json_writer *w);
/* json_array_begin_inline - an array written on one line, "[1, 2]", and
 * everything nested in it too: for short tuples such as [time, value]. */
void json_array_begin_inline(struct json_writer *w);
/* json_key - the next value is the member @key of the current object. */
void json_key(struct json_writer *w, const char *key);
void json_string(struct json_writer *w, const char *s);
void json_u64(struct json_writer *w, uint64_t v);
void json_i64(struct json_writer *w, int64_t v);
void json_double(struct json_writer *w, double v);
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);

/* Shorthands for a member: key then value. */
void json_kv_string(struct json_writer *w, const char *key, const char *s);
void json_kv_u64(struct json_writer *w, const char *key, uint64_t v);
void json_kv_i64(struct json_writer *w, const char *key, int64_t v);

/* json_finish - newline at the end; returns 0, or -EINVAL if the nesting
 * was unbalanced, or -EIO if the stream failed. */
int json_finish(struct json_writer *w);

#endif
