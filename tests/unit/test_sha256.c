// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sha256.c - SHA-256 against the FIPS 180-4 example vectors (as NIST's
 * "Cryptographic Standards and Guidelines: Examples with Intermediate
 * Values" and FIPS 180-2 appendix B give them), updates split anywhere,
 * HMAC-SHA256 against RFC 4231 test cases 1 to 7, and whole files. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "upload/sha256.h"

static void assert_digest(const uint8_t d[SHA256_DIGEST_LEN], const char *want)
{
	char hex[SHA256_HEX_LEN + 1];

	hex_lower(d, SHA256_DIGEST_LEN, hex);
	assert_string_equal(hex, want);
}

static void assert_sha256(const void *data, size_t len, const char *want)
{
	uint8_t d[SHA256_DIGEST_LEN];

	sha256(data, len, d);
	assert_digest(d, want);
}

static void test_fips_vectors(void **state)
{
	assert_sha256("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_sha256("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 448 bits: the padding needs a second block */
	assert_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* 896 bits */
	assert_sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
		      "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		      112, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void **state)
{
	char chunk[1000];
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_LEN];
	int i;

	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&c);
	for (i = 0; i < 1000; i++)
		sha256_update(&c, chunk, sizeof(chunk));
	sha256_final(&c, d);
	assert_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Around every block and padding boundary: lengths 0..130, each split at
 * every offset, equal the one-shot digest. */
static void test_split_updates(void **state)
{
	uint8_t msg[131], one[SHA256_DIGEST_LEN], two[SHA256_DIGEST_LEN];
	struct sha256_ctx c;
	size_t len, cut;

	for (len = 0; len < sizeof(msg); len++)
		msg[len] = (uint8_t)(len * 7 + 3);
	for (len = 0; len <= 130; len++) {
		sha256(msg, len, one);
		for (cut = 0; cut <= len; cut++) {
			sha256_init(&c);
			sha256_update(&c, msg, cut);
			sha256_update(&c, NULL, 0);
			sha256_update(&c, msg + cut, len - cut);
			sha256_final(&c, two);
			assert_memory_equal(one, two, sizeof(one));
		}
	}
	/* one byte at a time, over all 130 */
	sha256_init(&c);
	for (len = 0; len < 130; len++)
		sha256_update(&c, msg + len, 1);
	sha256_final(&c, two);
	sha256(msg, 130, one);
	assert_memory_equal(one, two, sizeof(one));
}

static void assert_hmac(const void *key, size_t klen, const void *data, size_t dlen,
			const char *want)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1];

	hmac_sha256(key, klen, data, dlen, d);
	hex_lower(d, sizeof(d), hex);
	/* test case 5 publishes only the first 128 bits */
	assert_int_equal(strncmp(hex, want, strlen(want)), 0);
}

static void test_rfc4231(void **state)
{
	uint8_t k20[20], k25[25], k131[131], d50[50];
	size_t i;

	memset(k20, 0x0b, sizeof(k20));
	assert_hmac(k20, 20, "Hi There", 8,
		    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	assert_hmac("Jefe", 4, "what do ya want for nothing?", 28,
		    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k20, 0xaa, sizeof(k20));
	memset(d50, 0xdd, sizeof(d50));
	assert_hmac(k20, 20, d50, 50,
		    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (i = 0; i < sizeof(k25); i++)
		k25[i] = (uint8_t)(i + 1);
	memset(d50, 0xcd, sizeof(d50));
	assert_hmac(k25, 25, d50, 50,
		    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k20, 0x0c, sizeof(k20));
	assert_hmac(k20, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b");
	/* keys longer than a block are hashed first */
	memset(k131, 0xaa, sizeof(k131));
	assert_hmac(k131, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
		    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	assert_hmac(
		k131, 131,
		"This is a test using a larger than block-size key and a larger than block-size "
		"data. The key needs to be hashed before being used by the HMAC algorithm.",
		152, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

/* A key of exactly one block is used as it is, not hashed. */
static void test_hmac_block_key(void **state)
{
	uint8_t key[SHA256_BLOCK_LEN + 1], hashed[SHA256_DIGEST_LEN], a[SHA256_DIGEST_LEN],
		b[SHA256_DIGEST_LEN];

	memset(key, 0x42, sizeof(key));
	hmac_sha256(key, SHA256_BLOCK_LEN, "x", 1, a);
	sha256(key, SHA256_BLOCK_LEN, hashed);
	hmac_sha256(hashed, sizeof(hashed), "x", 1, b);
	assert_memory_not_equal(a, b, sizeof(a));
	/* one byte more is hashed: the same as HMAC under its digest */
	hmac_sha256(key, sizeof(key), "x", 1, a);
	sha256(key, sizeof(key), hashed);
	hmac_sha256(hashed, sizeof(hashed), "x", 1, b);
	assert_memory_equal(a, b, sizeof(a));
}

static void test_hex_lower(void **state)
{
	const uint8_t in[] = { 0x00, 0x0f, 0xa5, 0xff };
	char out[9];

	memset(out, 'x', sizeof(out));
	hex_lower(in, sizeof(in), out);
	assert_string_equal(out, "000fa5ff");
	hex_lower(in, 0, out);
	assert_string_equal(out, "");
}

static int temp_file(const void *data, size_t len)
{
	char path[] = "/tmp/test_sha256.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void test_fd_matches_one_shot(void **state)
{
	size_t len = 200000 + 13; /* several reads, a partial last block */
	uint8_t *data = malloc(len), one[SHA256_DIGEST_LEN], got[SHA256_DIGEST_LEN];
	uint64_t bytes = 0;
	size_t i;
	int fd;

	assert_non_null(data);
	for (i = 0; i < len; i++)
		data[i] = (uint8_t)(i ^ (i >> 8));
	fd = temp_file(data, len);
	assert_int_equal(sha256_fd(fd, got, &bytes), 0);
	sha256(data, len, one);
	assert_memory_equal(one, got, sizeof(one));
	assert_int_equal(bytes, len);

	/* from the current offset, and without a byte count */
	assert_int_equal(lseek(fd, 1000, SEEK_SET), 1000);
	assert_int_equal(sha256_fd(fd, got, NULL), 0);
	sha256(data + 1000, len - 1000, one);
	assert_memory_equal(one, got, sizeof(one));
	close(fd);
	free(data);
}

static void test_fd_empty_and_errors(void **state)
{
	uint8_t got[SHA256_DIGEST_LEN], keep[SHA256_DIGEST_LEN];
	uint64_t bytes = 42;
	int fd = temp_file("", 0);

	assert_int_equal(sha256_fd(fd, got, &bytes), 0);
	assert_digest(got, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_int_equal(bytes, 0);
	close(fd);

	/* errors come back as negative errno and leave the outputs alone */
	memset(got, 0x5a, sizeof(got));
	memcpy(keep, got, sizeof(got));
	bytes = 42;
	assert_int_equal(sha256_fd(fd, got, &bytes), -EBADF);
	assert_int_equal(bytes, 42);
	assert_memory_equal(got, keep, sizeof(got));
	fd = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(sha256_fd(fd, got, &bytes), -EISDIR);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_vectors),
		cmocka_unit_test(test_million_a),
		cmocka_unit_test(test_split_updates),
		cmocka_unit_test(test_rfc4231),
		cmocka_unit_test(test_hmac_block_key),
		cmocka_unit_test(test_hex_lower),
		cmocka_unit_test(test_fd_matches_one_shot),
		cmocka_unit_test(test_fd_empty_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
