// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pb.c - protobuf wire-format writer and bounded reader (see pb.h). */
#include "trapd/profile/pb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- writer --- */

void pb_buf_init(struct pb_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void pb_buf_free(struct pb_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

int pb_buf_release(struct pb_buf *b, void **out, size_t *len)
{
	if (b->err)
		return b->err;
	if (!b->data) {
		/* An empty message is valid; hand over a real allocation. */
		b->data = malloc(1);
		if (!b->data)
			return b->err = -ENOMEM;
	}
	*out = b->data;
	*len = b->len;
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	return 0;
}

/* reserve - make room for @n more bytes, doubling up to the cap. */
static int reserve(struct pb_buf *b, size_t n)
{
	size_t need, ncap;
	uint8_t *nd;

	if (b->err)
		return b->err;
	if (n > b->max - b->len)
		return b->err = -E2BIG;
	need = b->len + n;
	if (need <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap = ncap > b->max / 2 ? b->max : ncap * 2;
	if (ncap > b->max)
		ncap = b->max;
	nd = realloc(b->data, ncap);
	if (!nd)
		return b->err = -ENOMEM;
	b->data = nd;
	b->cap = ncap;
	return 0;
}

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* encode_varint - write @v at @dst (room for 10 bytes); returns its size. */
static size_t encode_varint(uint8_t *dst, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		dst[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	dst[n++] = (uint8_t)v;
	return n;
}

int pb_put_raw(struct pb_buf *b, const void *data, size_t n)
{
	int err = reserve(b, n);

	if (err)
		return err;
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	return 0;
}

int pb_put_varint(struct pb_buf *b, uint64_t v)
{
	int err = reserve(b, pb_varint_size(v));

	if (err)
		return err;
	b->len += encode_varint(b->data + b->len, v);
	return 0;
}

int pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
	return pb_put_varint(b, (uint64_t)field << 3 | wire);
}

int pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_put_tag(b, field, PB_WIRE_VARINT);
	return pb_put_varint(b, v);
}

int pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n)
{
	pb_put_tag(b, field, PB_WIRE_LEN);
	pb_put_varint(b, n);
	return pb_put_raw(b, data, n);
}

int pb_put_string(struct pb_buf *b, uint32_t field, const char *s)
{
	return pb_put_bytes(b, field, s, strlen(s));
}

int pb_put_packed_u32(struct pb_buf *b, uint32_t field, const uint32_t *v, size_t n)
{
	size_t i, body = 0;

	if (!n)
		return b->err;
	for (i = 0; i < n; i++)
		body += pb_varint_size(v[i]);
	pb_put_tag(b, field, PB_WIRE_LEN);
	pb_put_varint(b, body);
	for (i = 0; i < n; i++)
		pb_put_varint(b, v[i]);
	return b->err;
}

int pb_put_packed_u64(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, body = 0;

	if (!n)
		return b->err;
	for (i = 0; i < n; i++)
		body += pb_varint_size(v[i]);
	pb_put_tag(b, field, PB_WIRE_LEN);
	pb_put_varint(b, body);
	for (i = 0; i < n; i++)
		pb_put_varint(b, v[i]);
	return b->err;
}

size_t pb_msg_begin(struct pb_buf *b, uint32_t field)
{
	size_t mark;

	pb_put_tag(b, field, PB_WIRE_LEN);
	mark = b->len;
	/* One byte for the length: enough for bodies under 128 bytes. */
	pb_put_raw(b, "", 1);
	return mark;
}

int pb_msg_end(struct pb_buf *b, size_t mark)
{
	size_t body, extra;
	int err;

	if (b->err)
		return b->err;
	body = b->len - mark - 1;
	extra = pb_varint_size(body) - 1;
	if (extra) {
		err = reserve(b, extra);
		if (err)
			return err;
		memmove(b->data + mark + 1 + extra, b->data + mark + 1, body);
		b->len += extra;
	}
	encode_varint(b->data + mark, body);
	return 0;
}

/* --- reader --- */

void pb_reader_init(struct pb_reader *r, const void *buf, size_t len, char *err, size_t errlen)
{
	r->buf = buf;
	r->pos = 0;
	r->end = len;
	r->err = err;
	r->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
}

int pb_errorf(const struct pb_reader *r, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errlen)
		return -EBADMSG;
	n = snprintf(r->err, r->errlen, "byte %zu: ", at);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

int pb_read_varint(struct pb_reader *r, uint64_t *v)
{
	size_t at = r->pos, i;
	uint64_t x = 0;
	uint8_t c;

	for (i = 0; i < 10; i++) {
		if (r->pos >= r->end)
			return pb_errorf(r, at, "truncated varint");
		c = r->buf[r->pos++];
		/* The tenth byte holds bit 63 only. */
		if (i == 9 && c > 1)
			return pb_errorf(r, at, "varint longer than 10 bytes or past 64 bits");
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return pb_errorf(r, at, "varint longer than 10 bytes");
}

int pb_read_tag(struct pb_reader *r, uint32_t *field, enum pb_wire *wire)
{
	size_t at = r->pos;
	uint64_t key;
	int err;

	err = pb_read_varint(r, &key);
	if (err)
		return err;
	if ((key >> 3) == 0 || (key >> 3) > PB_MAX_FIELD)
		return pb_errorf(r, at, "invalid field number %llu",
				 (unsigned long long)(key >> 3));
	switch (key & 7) {
	case PB_WIRE_VARINT:
	case PB_WIRE_FIXED64:
	case PB_WIRE_LEN:
	case PB_WIRE_FIXED32:
		break;
	case PB_WIRE_SGROUP:
	case PB_WIRE_EGROUP:
		return pb_errorf(r, at, "field %u uses groups (wire type %u), not supported",
				 (unsigned)(key >> 3), (unsigned)(key & 7));
	default:
		return pb_errorf(r, at, "field %u has unknown wire type %u", (unsigned)(key >> 3),
				 (unsigned)(key & 7));
	}
	*field = (uint32_t)(key >> 3);
	*wire = (enum pb_wire)(key & 7);
	return 0;
}

int pb_read_len(struct pb_reader *r, struct pb_reader *sub)
{
	size_t at = r->pos;
	uint64_t n;
	int err;

	err = pb_read_varint(r, &n);
	if (err)
		return err;
	if (n > r->end - r->pos)
		return pb_errorf(r, at, "length %llu runs past the end (%zu bytes left)",
				 (unsigned long long)n, r->end - r->pos);
	*sub = *r;
	sub->end = r->pos + n;
	r->pos += n;
	return 0;
}

int pb_read_repeated(struct pb_reader *r, enum pb_wire wire, struct pb_reader *vals)
{
	uint64_t ignored;
	size_t at = r->pos;
	int err;

	if (wire == PB_WIRE_LEN)
		return pb_read_len(r, vals);
	if (wire != PB_WIRE_VARINT)
		return pb_errorf(r, at, "repeated varint field has wire type %u", wire);
	err = pb_read_varint(r, &ignored);
	if (err)
		return err;
	*vals = *r;
	vals->pos = at;
	vals->end = r->pos;
	return 0;
}

/* skip_fixed - move past @n bytes of a fixed-size value. */
static int skip_fixed(struct pb_reader *r, size_t n)
{
	if (r->end - r->pos < n)
		return pb_errorf(r, r->pos, "truncated fixed%zu value", n * 8);
	r->pos += n;
	return 0;
}

int pb_skip(struct pb_reader *r, enum pb_wire wire)
{
	struct pb_reader sub;
	uint64_t ignored;

	switch (wire) {
	case PB_WIRE_VARINT:
		return pb_read_varint(r, &ignored);
	case PB_WIRE_FIXED64:
		return skip_fixed(r, 8);
	case PB_WIRE_LEN:
		return pb_read_len(r, &sub);
	case PB_WIRE_FIXED32:
		return skip_fixed(r, 4);
	default:
		return pb_errorf(r, r->pos, "cannot skip wire type %u", wire);
	}
}
