/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pb.h - protobuf wire-format primitives: a capped writer and a bounded
 * reader, enough to encode and decode pprof's profile.proto by hand.
 *
 * Writer: struct pb_buf is a growable byte buffer with a hard cap. Every
 * writer returns 0 or a negative errno and also keeps the first error
 * (sticky), so a run of writes can be checked once with pb_buf_error().
 * A submessage is written in place: pb_msg_begin() reserves one byte for
 * its length, pb_msg_end() fills it in and, for bodies of 128 bytes or
 * more, moves the body up to make room for a longer length varint.
 * Submessages nest; end them in reverse order of beginning.
 *
 * Reader: struct pb_reader is a cursor over [pos, end) of a const buffer.
 * Offsets are absolute (from the start of the outermost buffer), so a
 * submessage reader reports errors at the byte where they are in the
 * input. Nothing is read past end: truncated varints, lengths past the end
 * and unknown or group wire types are errors (-EBADMSG) described in the
 * reader's message buffer as "byte N: what". Fixed64/fixed32 fields are
 * skipped like any unknown field.
 */
#ifndef TRAPD_PB_H
#define TRAPD_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_WIRE_VARINT = 0,
	PB_WIRE_FIXED64 = 1,
	PB_WIRE_LEN = 2,
	PB_WIRE_SGROUP = 3,
	PB_WIRE_EGROUP = 4,
	PB_WIRE_FIXED32 = 5,
};

/* Field numbers are at most 2^29 - 1 (protobuf language guide). */
#define PB_MAX_FIELD ((1u << 29) - 1)

/* --- writer --- */

struct pb_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	size_t max; /* hard cap on len */
	int err;    /* first error, sticky */
};

/* pb_buf_init - an empty buffer that refuses to grow past @max bytes.
 * Nothing is allocated until the first write. */
void pb_buf_init(struct pb_buf *b, size_t max);

/* pb_buf_free - release the bytes (NULL-safe); the buffer is empty again. */
void pb_buf_free(struct pb_buf *b);

/* pb_buf_release - hand the bytes to the caller: *out gets a malloc'd
 * buffer of *len bytes (free with free()), @b is left empty. Returns 0, or
 * the buffer's sticky error (then nothing is handed over). */
int pb_buf_release(struct pb_buf *b, void **out, size_t *len);

/* pb_buf_error - the first error any write hit (0 if none). */
static inline int pb_buf_error(const struct pb_buf *b)
{
	return b->err;
}

/* pb_varint_size - how many bytes the varint encoding of @v takes (1..10). */
size_t pb_varint_size(uint64_t v);

/* pb_put_raw - append @n bytes; -E2BIG past the cap, -ENOMEM. */
int pb_put_raw(struct pb_buf *b, const void *data, size_t n);

/* pb_put_varint - append @v as a varint (negative int64 values are cast
 * to uint64 by the caller and take ten bytes, as protobuf says). */
int pb_put_varint(struct pb_buf *b, uint64_t v);

/* pb_put_tag - append the key of field @field with wire type @wire. */
int pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire);

/* pb_put_uint - a varint field (uint64, int64 cast, bool). Writes even a
 * zero value; callers skip defaults themselves when they want to. */
int pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);

/* pb_put_bytes - a length-delimited field holding @n bytes at @data. */
int pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n);

/* pb_put_string - a length-delimited field holding the C string @s. */
int pb_put_string(struct pb_buf *b, uint32_t field, const char *s);

/* pb_put_packed_u32 / pb_put_packed_u64 - a packed repeated varint field
 * holding @n values (nothing at all when @n is 0). */
int pb_put_packed_u32(struct pb_buf *b, uint32_t field, const uint32_t *v, size_t n);
int pb_put_packed_u64(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

/* pb_msg_begin - start submessage field @field; returns the mark to hand
 * to pb_msg_end (meaningless if the buffer is in error, which pb_msg_end
 * then returns). */
size_t pb_msg_begin(struct pb_buf *b, uint32_t field);

/* pb_msg_end - close the submessage started at @mark: everything written
 * since pb_msg_begin becomes its body. Returns 0 or the sticky error. */
int pb_msg_end(struct pb_buf *b, size_t mark);

/* --- reader --- */

struct pb_reader {
	const uint8_t *buf; /* the outermost buffer: offsets count from here */
	size_t pos;	    /* next byte to read */
	size_t end;	    /* one past the last byte of this message */
	char *err;	    /* where error messages go (may be NULL) */
	size_t errlen;
};

/* pb_reader_init - a reader over @len bytes at @buf; error messages are
 * written to @err (@errlen bytes, may be 0). */
void pb_reader_init(struct pb_reader *r, const void *buf, size_t len, char *err, size_t errlen);

/* pb_reader_more - whether bytes are left in this message. */
static inline bool pb_reader_more(const struct pb_reader *r)
{
	return r->pos < r->end;
}

/* pb_errorf - write "byte @at: <message>" to the reader's message buffer
 * and return -EBADMSG, so callers can `return pb_errorf(...)`. */
int pb_errorf(const struct pb_reader *r, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* pb_read_varint - read one varint into *v. -EBADMSG when it runs past
 * the end, is longer than 10 bytes or overflows 64 bits. */
int pb_read_varint(struct pb_reader *r, uint64_t *v);

/* pb_read_tag - read a field key: *field (1..PB_MAX_FIELD) and *wire.
 * Group (3, 4) and undefined (6, 7) wire types are -EBADMSG. */
int pb_read_tag(struct pb_reader *r, uint32_t *field, enum pb_wire *wire);

/* pb_read_len - read a length-delimited field's length and point @sub at
 * its bytes (sub->pos..sub->end, same buffer and message sink); @r moves
 * past them. -EBADMSG when the length runs past the end. */
int pb_read_len(struct pb_reader *r, struct pb_reader *sub);

/* pb_read_repeated - the values of one occurrence of a repeated varint
 * field, packed (@wire PB_WIRE_LEN) or not (PB_WIRE_VARINT): @vals is set
 * to a reader over them, to be drained with pb_read_varint. Any other wire
 * type is -EBADMSG. */
int pb_read_repeated(struct pb_reader *r, enum pb_wire wire, struct pb_reader *vals);

/* pb_skip - skip the value of a field of wire type @wire. */
int pb_skip(struct pb_reader *r, enum pb_wire wire);

#endif
