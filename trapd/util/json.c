// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* json.c - streaming JSON writer. */
#include "trapd/util/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/util/utf8.h"

void json_init(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->first[0] = true;
	w->inline_[0] = false;
	w->pending_key = false;
	w->error = false;
}

/* before_value - separator and indentation before a value or a key. */
static void before_value(struct json_writer *w)
{
	int i;

	if (w->pending_key) {
		w->pending_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (!w->first[w->depth])
		fputs(w->inline_[w->depth] ? ", " : ",", w->out);
	if (w->inline_[w->depth]) {
		w->first[w->depth] = false;
		return;
	}
	w->first[w->depth] = false;
	fputc('\n', w->out);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

static void open_nest(struct json_writer *w, char c, bool one_line)
{
	before_value(w);
	fputc(c, w->out);
	if (w->depth + 1 >= JSON_MAX_DEPTH) {
		w->error = true;
		return;
	}
	w->depth++;
	w->first[w->depth] = true;
	w->inline_[w->depth] = one_line || w->inline_[w->depth - 1];
}

static void close_nest(struct json_writer *w, char c)
{
	bool empty;
	int i;

	if (w->depth == 0 || w->pending_key) {
		w->error = true;
		return;
	}
	empty = w->first[w->depth];
	w->depth--;
	if (!empty && !w->inline_[w->depth + 1]) {
		fputc('\n', w->out);
		for (i = 0; i < w->depth; i++)
			fputs("  ", w->out);
	}
	fputc(c, w->out);
}

void json_object_begin(struct json_writer *w)
{
	open_nest(w, '{', false);
}

void json_object_end(struct json_writer *w)
{
	close_nest(w, '}');
}

void json_array_begin(struct json_writer *w)
{
	open_nest(w, '[', false);
}

void json_array_begin_inline(struct json_writer *w)
{
	open_nest(w, '[', true);
}

void json_array_end(struct json_writer *w)
{
	close_nest(w, ']');
}

static void write_escaped(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (*s) {
		int n;

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s++, out);
		} else if (*s == '\n') {
			fputs("\\n", out);
			s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s++);
		} else if ((n = (int)utf8_valid(s, strnlen((const char *)s, 4))) > 0) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);
			s++;
		}
	}
	fputc('"', out);
}

void json_key(struct json_writer *w, const char *key)
{
	if (w->pending_key)
		w->error = true;
	before_value(w);
	write_escaped(w->out, key);
	fputs(": ", w->out);
	w->pending_key = true;
}

void json_string(struct json_writer *w, const char *s)
{
	before_value(w);
	write_escaped(w->out, s ? s : "");
}

void json_u64(struct json_writer *w, uint64_t v)
{
	before_value(w);
	fprintf(w->out, "%" PRIu64, v);
}

void json_i64(struct json_writer *w, int64_t v)
{
	before_value(w);
	fprintf(w->out, "%" PRId64, v);
}

void json_double(struct json_writer *w, double v)
{
	char buf[32];
	int prec;

	before_value(w);
	if (!isfinite(v)) {
		fputs("null", w->out);
		return;
	}
	/* The shortest spelling that reads back as @v: 199.98, not
	 * 199.97999999999999. */
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	fputs(buf, w->out);
}

void json_bool(struct json_writer *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
	before_value(w);
	fputs("null", w->out);
}

void json_kv_string(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}

void json_kv_u64(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_u64(w, v);
}

void json_kv_i64(struct json_writer *w, const char *key, int64_t v)
{
	json_key(w, key);
	json_i64(w, v);
}

int json_finish(struct json_writer *w)
{
	fputc('\n', w->out);
	if (w->error || w->depth != 0 || w->pending_key)
		return -EINVAL;
	return ferror(w->out) ? -EIO : 0;
}
