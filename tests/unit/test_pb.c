// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_pb.c - protobuf wire primitives: varints, tags, caps, nested
 * messages, packed and unpacked repeated fields, and every way a reader
 * must refuse malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/profile/pb.h"

static void test_varint_encoding_matches_protobuf(void **state)
{
	static const uint8_t want[] = { 0x00, 0x01, 0x7f, 0x80, 0x01, 0xac, 0x02, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	struct pb_buf b;

	pb_buf_init(&b, 1024);
	assert_int_equal(pb_put_varint(&b, 0), 0);
	assert_int_equal(pb_put_varint(&b, 1), 0);
	assert_int_equal(pb_put_varint(&b, 127), 0);
	assert_int_equal(pb_put_varint(&b, 128), 0);
	assert_int_equal(pb_put_varint(&b, 300), 0);
	assert_int_equal(pb_put_varint(&b, UINT64_MAX), 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_int_equal(pb_varint_size(0), 1);
	assert_int_equal(pb_varint_size(127), 1);
	assert_int_equal(pb_varint_size(128), 2);
	assert_int_equal(pb_varint_size(UINT64_MAX), 10);
	pb_buf_free(&b);
}

static void test_varints_round_trip(void **state)
{
	static const uint64_t vals[] = {
		0, 1, 127, 128, 16383, 16384, 1ull << 32, (uint64_t)-1ll, 1ull << 63, UINT64_MAX - 1
	};
	struct pb_reader r;
	struct pb_buf b;
	uint64_t v;
	size_t i;

	pb_buf_init(&b, 1024);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		pb_put_varint(&b, vals[i]);
	assert_int_equal(pb_buf_error(&b), 0);
	pb_reader_init(&r, b.data, b.len, NULL, 0);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_int_equal(pb_read_varint(&r, &v), 0);
		assert_true(v == vals[i]);
	}
	assert_false(pb_reader_more(&r));
	pb_buf_free(&b);
}

static void test_truncated_varint_names_its_offset(void **state)
{
	static const uint8_t in[] = { 0x05, 0x96, 0x81 };
	struct pb_reader r;
	char err[128];
	uint64_t v;

	pb_reader_init(&r, in, sizeof(in), err, sizeof(err));
	assert_int_equal(pb_read_varint(&r, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(pb_read_varint(&r, &v), -EBADMSG);
	assert_string_equal(err, "byte 1: truncated varint");
}

static void test_overlong_varint_is_refused(void **state)
{
	uint8_t eleven[11], ten_big[10];
	struct pb_reader r;
	char err[128];
	uint64_t v;

	memset(eleven, 0x80, sizeof(eleven));
	eleven[10] = 0x01;
	pb_reader_init(&r, eleven, sizeof(eleven), err, sizeof(err));
	assert_int_equal(pb_read_varint(&r, &v), -EBADMSG);
	assert_non_null(strstr(err, "byte 0: varint longer than 10 bytes"));
	/* Ten bytes whose last carries bits past 63. */
	memset(ten_big, 0xff, sizeof(ten_big));
	ten_big[9] = 0x02;
	pb_reader_init(&r, ten_big, sizeof(ten_big), err, sizeof(err));
	assert_int_equal(pb_read_varint(&r, &v), -EBADMSG);
}

static void test_tags_reject_groups_unknown_wire_types_and_field_zero(void **state)
{
	static const uint8_t group[] = { 0x0b }, egroup[] = { 0x0c }, six[] = { 0x0e },
			     zero[] = { 0x00 }, ok[] = { 0x92, 0x01 };
	struct pb_reader r;
	enum pb_wire wire;
	uint32_t field;
	char err[128];

	pb_reader_init(&r, group, 1, err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), -EBADMSG);
	assert_non_null(strstr(err, "groups"));
	pb_reader_init(&r, egroup, 1, err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), -EBADMSG);
	pb_reader_init(&r, six, 1, err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), -EBADMSG);
	assert_non_null(strstr(err, "unknown wire type 6"));
	pb_reader_init(&r, zero, 1, err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), -EBADMSG);
	assert_non_null(strstr(err, "invalid field number 0"));
	pb_reader_init(&r, ok, 2, err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(field, 18);
	assert_int_equal(wire, PB_WIRE_LEN);
}

static void test_fixed_fields_are_skipped_and_checked(void **state)
{
	struct pb_reader r;
	struct pb_buf b;
	enum pb_wire wire;
	uint32_t field;
	uint64_t v;
	char err[128];

	pb_buf_init(&b, 1024);
	pb_put_tag(&b, 1, PB_WIRE_FIXED64);
	pb_put_raw(&b, "12345678", 8);
	pb_put_tag(&b, 2, PB_WIRE_FIXED32);
	pb_put_raw(&b, "1234", 4);
	pb_put_uint(&b, 3, 42);
	pb_put_tag(&b, 4, PB_WIRE_FIXED32);
	pb_put_raw(&b, "12", 2);
	pb_reader_init(&r, b.data, b.len, err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(pb_skip(&r, wire), 0);
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(pb_skip(&r, wire), 0);
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(field, 3);
	assert_int_equal(pb_read_varint(&r, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(pb_skip(&r, wire), -EBADMSG);
	assert_non_null(strstr(err, "truncated fixed32"));
	pb_buf_free(&b);
}

static void test_length_past_the_end_is_refused(void **state)
{
	static const uint8_t in[] = { 0x0a, 0x05, 'a', 'b' };
	struct pb_reader r, sub;
	enum pb_wire wire;
	uint32_t field;
	char err[128];

	pb_reader_init(&r, in, sizeof(in), err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(pb_read_len(&r, &sub), -EBADMSG);
	assert_string_equal(err, "byte 1: length 5 runs past the end (2 bytes left)");
}

static void test_cap_gives_e2big_and_sticks(void **state)
{
	char big[100];
	struct pb_buf b;
	void *out = NULL;
	size_t len;

	memset(big, 'x', sizeof(big));
	pb_buf_init(&b, 64);
	assert_int_equal(pb_put_raw(&b, big, 60), 0);
	assert_int_equal(pb_put_raw(&b, big, 5), -E2BIG);
	assert_int_equal(b.len, 60);
	/* Later writes that would fit still fail: the error is sticky. */
	assert_int_equal(pb_put_varint(&b, 1), -E2BIG);
	assert_int_equal(pb_buf_error(&b), -E2BIG);
	assert_int_equal(pb_buf_release(&b, &out, &len), -E2BIG);
	assert_null(out);
	assert_true(b.cap <= 64);
	pb_buf_free(&b);
}

static void test_empty_buffer_is_released_as_empty_message(void **state)
{
	struct pb_buf b;
	void *out = NULL;
	size_t len = 99;

	pb_buf_init(&b, 64);
	assert_int_equal(pb_buf_release(&b, &out, &len), 0);
	assert_non_null(out);
	assert_int_equal(len, 0);
	free(out);
	pb_buf_free(&b);
}

/* put_nested - field 1 { field 2 { field 3: @n bytes } } */
static void put_nested(struct pb_buf *b, const char *body, size_t n)
{
	size_t outer = pb_msg_begin(b, 1), inner = pb_msg_begin(b, 2);

	pb_put_bytes(b, 3, body, n);
	pb_msg_end(b, inner);
	pb_put_uint(b, 4, 7);
	pb_msg_end(b, outer);
}

/* check_nested - read back what put_nested wrote. */
static void check_nested(struct pb_reader *r, const char *body, size_t n)
{
	struct pb_reader outer, inner, bytes;
	enum pb_wire wire;
	uint32_t field;
	uint64_t v;

	assert_int_equal(pb_read_tag(r, &field, &wire), 0);
	assert_int_equal(field, 1);
	assert_int_equal(pb_read_len(r, &outer), 0);
	assert_int_equal(pb_read_tag(&outer, &field, &wire), 0);
	assert_int_equal(field, 2);
	assert_int_equal(pb_read_len(&outer, &inner), 0);
	assert_int_equal(pb_read_tag(&inner, &field, &wire), 0);
	assert_int_equal(field, 3);
	assert_int_equal(pb_read_len(&inner, &bytes), 0);
	assert_int_equal(bytes.end - bytes.pos, n);
	assert_memory_equal(bytes.buf + bytes.pos, body, n);
	assert_false(pb_reader_more(&inner));
	assert_int_equal(pb_read_tag(&outer, &field, &wire), 0);
	assert_int_equal(field, 4);
	assert_int_equal(pb_read_varint(&outer, &v), 0);
	assert_int_equal(v, 7);
	assert_false(pb_reader_more(&outer));
}

static void test_nested_messages_of_every_length_size(void **state)
{
	static const size_t sizes[] = { 0, 1, 120, 127, 128, 300, 16380, 16384, 70000 };
	size_t i, n = sizeof(sizes) / sizeof(sizes[0]);
	struct pb_reader r;
	struct pb_buf b;
	char *body = malloc(70000);

	assert_non_null(body);
	for (i = 0; i < 70000; i++)
		body[i] = (char)(i * 7);
	pb_buf_init(&b, 1 << 20);
	for (i = 0; i < n; i++)
		put_nested(&b, body, sizes[i]);
	assert_int_equal(pb_buf_error(&b), 0);
	pb_reader_init(&r, b.data, b.len, NULL, 0);
	for (i = 0; i < n; i++)
		check_nested(&r, body, sizes[i]);
	assert_false(pb_reader_more(&r));
	pb_buf_free(&b);
	free(body);
}

static void test_message_end_past_cap_fails(void **state)
{
	char body[200];
	struct pb_buf b;
	size_t mark;

	memset(body, 'y', sizeof(body));
	/* tag + 1 reserved byte + 200 = 202: the 2-byte length needs 203. */
	pb_buf_init(&b, 202);
	mark = pb_msg_begin(&b, 1);
	assert_int_equal(pb_put_raw(&b, body, sizeof(body)), 0);
	assert_int_equal(pb_msg_end(&b, mark), -E2BIG);
	pb_buf_free(&b);
}

static void test_repeated_fields_read_packed_and_unpacked(void **state)
{
	static const uint32_t ids[] = { 1, 300, 70000 };
	static const uint64_t big[] = { UINT64_MAX, 0 };
	uint64_t got[8], v;
	struct pb_reader r, vals;
	struct pb_buf b;
	enum pb_wire wire;
	uint32_t field;
	size_t n = 0;

	pb_buf_init(&b, 1024);
	pb_put_packed_u32(&b, 1, ids, 3);
	pb_put_uint(&b, 1, 5);
	pb_put_packed_u64(&b, 1, big, 2);
	pb_put_packed_u32(&b, 1, ids, 0); /* writes nothing */
	pb_reader_init(&r, b.data, b.len, NULL, 0);
	while (pb_reader_more(&r)) {
		assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
		assert_int_equal(field, 1);
		assert_int_equal(pb_read_repeated(&r, wire, &vals), 0);
		while (pb_reader_more(&vals)) {
			assert_int_equal(pb_read_varint(&vals, &v), 0);
			assert_true(n < 8);
			got[n++] = v;
		}
	}
	assert_int_equal(n, 6);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 300);
	assert_int_equal(got[2], 70000);
	assert_int_equal(got[3], 5);
	assert_true(got[4] == UINT64_MAX);
	assert_int_equal(got[5], 0);
	pb_buf_free(&b);
}

static void test_repeated_field_of_wrong_wire_type_fails(void **state)
{
	static const uint8_t in[] = { 0x0d, 1, 2, 3, 4 };
	struct pb_reader r, vals;
	enum pb_wire wire;
	uint32_t field;
	char err[128];

	pb_reader_init(&r, in, sizeof(in), err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(pb_read_repeated(&r, wire, &vals), -EBADMSG);
	assert_non_null(strstr(err, "wire type 5"));
}

static void test_submessage_errors_report_absolute_offsets(void **state)
{
	/* field 1 { field 2: truncated varint } at bytes 2.. */
	static const uint8_t in[] = { 0x0a, 0x02, 0x10, 0x80, 0x00 };
	struct pb_reader r, sub;
	enum pb_wire wire;
	uint32_t field;
	uint64_t v;
	char err[128];

	pb_reader_init(&r, in, sizeof(in), err, sizeof(err));
	assert_int_equal(pb_read_tag(&r, &field, &wire), 0);
	assert_int_equal(pb_read_len(&r, &sub), 0);
	assert_int_equal(pb_read_tag(&sub, &field, &wire), 0);
	/* The varint continues past the submessage's end: byte 3. */
	assert_int_equal(pb_read_varint(&sub, &v), -EBADMSG);
	assert_string_equal(err, "byte 3: truncated varint");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_encoding_matches_protobuf),
		cmocka_unit_test(test_varints_round_trip),
		cmocka_unit_test(test_truncated_varint_names_its_offset),
		cmocka_unit_test(test_overlong_varint_is_refused),
		cmocka_unit_test(test_tags_reject_groups_unknown_wire_types_and_field_zero),
		cmocka_unit_test(test_fixed_fields_are_skipped_and_checked),
		cmocka_unit_test(test_length_past_the_end_is_refused),
		cmocka_unit_test(test_cap_gives_e2big_and_sticks),
		cmocka_unit_test(test_empty_buffer_is_released_as_empty_message),
		cmocka_unit_test(test_nested_messages_of_every_length_size),
		cmocka_unit_test(test_message_end_past_cap_fails),
		cmocka_unit_test(test_repeated_fields_read_packed_and_unpacked),
		cmocka_unit_test(test_repeated_field_of_wrong_wire_type_fails),
		cmocka_unit_test(test_submessage_errors_report_absolute_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
