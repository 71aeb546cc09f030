/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* json_read.h - a small, strict JSON reader (RFC 8259) for capture
 * sidecars, baselines and other documents trapd wrote earlier but that may
 * since have been truncated, corrupted or edited by hand: the input is
 * untrusted.
 *
 * json_parse builds a read-only tree of the whole document in one arena,
 * freed at once with json_free. What it rejects, with "line L, column C:
 * what was wrong" (columns count characters, the first is 1):
 *  - anything RFC 8259 does not allow: trailing garbage, leading zeros,
 *    "+1", ".5", "1.", single quotes, comments, trailing commas, a byte
 *    order mark, unescaped control characters, invalid UTF-8 (overlong
 *    forms, encoded surrogates, code points above U+10FFFF), unknown
 *    escapes, unpaired \uD800-\uDFFF surrogates;
 *  - containers nested deeper than JSON_READ_MAX_DEPTH;
 *  - an object with the same key twice (RFC 8259 leaves the meaning open;
 *    trapd never writes one, so it is taken as corruption);
 *  - \u0000 in a string or key (RFC 8259 lets an implementation limit the
 *    characters of strings): every string is then a plain C string, which
 *    cannot read short, and trapd's writer cannot produce one anyway.
 *
 * Every accessor accepts NULL (and a value of the wrong type) and answers
 * NULL, 0, JSON_ABSENT or -EINVAL, so lookups chain:
 *	json_str(json_path(root, "window.start"))
 * Values belong to their document: they stay valid until json_free.
 */
#ifndef TRAPD_JSON_READ_H
#define TRAPD_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_READ_MAX_DEPTH 64 /* nested arrays and objects, the outermost included */

enum json_type {
	JSON_ABSENT, /* no value: a NULL pointer, a missing member */
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value;

/* json_parse - parse the @len bytes at @text (no NUL needed) into a tree.
 * On success returns 0 and sets *@out (free it with json_free). On failure
 * *@out is NULL and returns -EINVAL (@err: "line L, column C: ...") or
 * -ENOMEM. The caller bounds @len: the tree takes up to ~40 times it (a
 * long array of 0s), a sidecar about 4 times. */
int json_parse(const char *text, size_t len, struct json_value **out, char *err, size_t errlen);

/* json_read_file - json_parse the whole file at @path, which may not be
 * larger than @max_bytes (-EFBIG). Returns 0 or a negative errno with @err
 * starting with the path ("PATH: line 3, column 14: ..."). */
int json_read_file(const char *path, size_t max_bytes, struct json_value **out, char *err,
		   size_t errlen);

/* json_free - free a document: @root must be what json_parse or
 * json_read_file returned (or NULL). Every value in it goes with it. */
void json_free(struct json_value *root);

/* json_type - @v's type; JSON_ABSENT for NULL. */
enum json_type json_type(const struct json_value *v);

/* json_type_name - "null", "an array", ... for messages ("expected a
 * string, found an array"). */
const char *json_type_name(enum json_type type);

/* json_len - elements of an array, members of an object, bytes of a
 * string; 0 for anything else. */
size_t json_len(const struct json_value *v);

/* json_get - the member @key of object @obj; NULL if absent or @obj is
 * not an object. O(log n). */
const struct json_value *json_get(const struct json_value *obj, const char *key);

/* json_index - element @i of an array, or the value of member @i of an
 * object (members in document order); NULL if out of range. */
const struct json_value *json_index(const struct json_value *v, size_t i);

/* json_member_key - the key of member @i of object @obj, or NULL. With
 * json_index, walks an object whose keys are not known (labels). */
const char *json_member_key(const struct json_value *obj, size_t i);

/* json_path - follow @path, member names separated by dots, from @v:
 * "window.start"; a component that is a decimal number indexes an array
 * ("triggers.0.rule"). NULL if any step is missing. Keys containing a dot
 * need json_get. */
const struct json_value *json_path(const struct json_value *v, const char *path);

/* json_str - a string's text, NUL-terminated valid UTF-8; NULL if @v is
 * not a string. */
const char *json_str(const struct json_value *v);

/* json_boolean - 0 and *@out for true or false; -EINVAL otherwise. */
int json_boolean(const struct json_value *v, bool *out);

/* json_number_text - a number as written in the document ("-1.5e3"), or
 * NULL if @v is not a number. */
const char *json_number_text(const struct json_value *v);

/* json_number_i64, json_number_u64 - a number written as an integer (no
 * fraction, no exponent: "1.0" and "1e3" are -EINVAL) into *@out. Returns
 * 0, -EINVAL (not an integer, not a number) or -ERANGE (does not fit:
 * negative for u64). */
int json_number_i64(const struct json_value *v, int64_t *out);
int json_number_u64(const struct json_value *v, uint64_t *out);

/* json_number_double - a number's nearest double into *@out. Returns 0,
 * -EINVAL (not a number) or -ERANGE (too large for a double; tiny values
 * read as 0 or subnormals). */
int json_number_double(const struct json_value *v, double *out);

#endif
