// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pycode.c - names and lines of Python code objects (pycode.h). */
#include "trapd/symbolize/pycode.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "upload/safe_text.h"

/* PyASCIIObject.state: the bits read */
#define STATE_KIND(s) (((s) >> 2) & 7)
#define STATE_COMPACT(s) (((s) >> 5) & 1)
#define STATE_ASCII(s) (((s) >> 6) & 1)

/* The location table (3.11+, Objects/locations.md): each entry starts
 * with a byte 1CCCCLLL: code C, and L + 1 code units covered. */
enum {
	LOC_ONE_LINE0 = 10, /* 10-12: the line moves by 0, 1, 2; two column bytes */
	LOC_NO_COLUMNS = 13,
	LOC_LONG = 14,
	LOC_NONE = 15,
};

static void put_utf8(char *out, size_t *o, size_t cap, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp >= 0xd800 && cp < 0xe000) ||
	    cp > 0x10ffff)
		cp = '?';
	n = safe_text_utf8_encode(cp, b);
	if (*o + n < cap) {
		memcpy(out + *o, b, n);
		*o += n;
	}
}

/* decode_str - @s as UTF-8 into @out; false when it is no string this
 * interpreter made (wrong type, not compact, a bad kind, characters its
 * kind does not allow, no characters at all). */
static bool decode_str(const struct sampler_py_str *s, const struct pyruntime *rt, char *out,
		       size_t cap)
{
	unsigned kind = STATE_KIND(s->state);
	size_t i, o = 0, nchars;
	uint32_t cp;

	out[0] = '\0';
	if (s->type != rt->unicode_type || !STATE_COMPACT(s->state) ||
	    (kind != 1 && kind != 2 && kind != 4) || (STATE_ASCII(s->state) && kind != 1))
		return false;
	if (s->copied > sizeof(s->data) || s->copied % kind || !s->length)
		return false;
	nchars = s->copied / kind;
	if (nchars > s->length)
		return false;
	for (i = 0; i < nchars; i++) {
		if (kind == 1) {
			cp = s->data[i];
		} else if (kind == 2) {
			uint16_t u;

			memcpy(&u, s->data + 2 * i, 2);
			cp = u;
		} else {
			memcpy(&cp, s->data + 4 * i, 4);
		}
		if (STATE_ASCII(s->state) && cp >= 0x80)
			return false;
		put_utf8(out, &o, cap, cp);
	}
	if (nchars < s->length && o + 3 < cap) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return o > 0;
}

enum pycode_error pycode__decode(const struct sampler_py_code *rec, size_t size,
				 const struct pyruntime *rt, struct pycode *out)
{
	const size_t head = offsetof(struct sampler_py_code, lines);

	memset(out, 0, offsetof(struct pycode, firstlineno));
	out->firstlineno = 0;
	out->lines = NULL;
	out->nlines = 0;
	out->lines_cut = false;
	out->co_code = rt->layout.co_code;
	if (size < head || rec->lines_copied > size - head ||
	    rec->lines_copied > SAMPLER_PY_LINES_MAX)
		return PYCODE_TRUNCATED;
	if (rec->type != rt->code_type)
		return PYCODE_NOT_CODE;
	if (!decode_str(&rec->qualname, rt, out->qualname, sizeof(out->qualname)))
		return PYCODE_BAD_NAME;
	if (!decode_str(&rec->filename, rt, out->filename, sizeof(out->filename)))
		return PYCODE_BAD_FILENAME;
	out->firstlineno = rec->firstlineno > 0 ? rec->firstlineno : 0;
	if (rec->lines_type == rt->bytes_type && rec->lines_copied <= rec->lines_size) {
		out->lines = rec->lines;
		out->nlines = rec->lines_copied;
		out->lines_cut = rec->lines_copied < rec->lines_size;
	}
	return PYCODE_OK;
}

/* varint - a location table varint: 6 bits a byte, low first, 0x40 says
 * more follow. False past the table or past 32 bits. */
static bool varint(const uint8_t *t, size_t n, size_t *i, uint32_t *out)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (*i >= n || shift > 30)
			return false;
		b = t[(*i)++];
		v |= (uint32_t)(b & 0x3f) << shift;
		shift += 6;
	} while (b & 0x40);
	*out = v;
	return true;
}

static bool svarint(const uint8_t *t, size_t n, size_t *i, int32_t *out)
{
	uint32_t v;

	if (!varint(t, n, i, &v))
		return false;
	*out = v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
	return true;
}

int32_t pycode__line_at(const uint8_t *t, size_t n, int32_t firstlineno, uint32_t index)
{
	int64_t line = firstlineno;
	uint64_t addr = 0;
	size_t i = 0;
	uint32_t skip;
	int32_t delta;

	while (i < n) {
		uint8_t b = t[i++];
		unsigned code = (b >> 3) & 15, len = (b & 7) + 1;
		bool none = false;

		if (!(b & 0x80))
			return 0; /* not the start of an entry: a bad table */
		delta = 0;
		if (code == LOC_NONE) {
			none = true;
		} else if (code == LOC_LONG) {
			if (!svarint(t, n, &i, &delta) || !varint(t, n, &i, &skip) ||
			    !varint(t, n, &i, &skip) || !varint(t, n, &i, &skip))
				return 0;
		} else if (code == LOC_NO_COLUMNS) {
			if (!svarint(t, n, &i, &delta))
				return 0;
		} else if (code >= LOC_ONE_LINE0) {
			delta = (int32_t)(code - LOC_ONE_LINE0);
			i += 2;
		} else {
			i += 1; /* short form: a column byte */
		}
		if (i > n)
			return 0;
		line += delta;
		if (index < addr + len)
			return none || line <= 0 || line > INT32_MAX ? 0 : (int32_t)line;
		addr += len;
	}
	return 0;
}

int32_t pycode__line(const struct pycode *c, uint32_t instr_off)
{
	if (!c->lines || instr_off == SAMPLER_PY_INSTR_UNKNOWN || instr_off < c->co_code)
		return 0;
	return pycode__line_at(c->lines, c->nlines, c->firstlineno, (instr_off - c->co_code) / 2);
}

const char *pycode__error_name(enum pycode_error e)
{
	switch (e) {
	case PYCODE_OK:
		return "ok";
	case PYCODE_NOT_CODE:
		return "not a code object";
	case PYCODE_BAD_NAME:
		return "unreadable qualified name";
	case PYCODE_BAD_FILENAME:
		return "unreadable file name";
	case PYCODE_TRUNCATED:
		return "truncated record";
	}
	return "?";
}
