/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), with no
 * crypto library behind them: uploads are named by the SHA-256 of their
 * content and signed with AWS Signature Version 4 (sigv4.h), and both are
 * unit-tested against the published vectors.
 *
 * Streaming use:
 *
 *	struct sha256_ctx c;
 *	uint8_t d[SHA256_DIGEST_LEN];
 *	char hex[SHA256_HEX_LEN + 1];
 *
 *	sha256_init(&c);
 *	sha256_update(&c, part1, n1);
 *	sha256_update(&c, part2, n2);
 *	sha256_final(&c, d);
 *	hex_lower(d, sizeof(d), hex);
 */
#ifndef TRAPD_SHA256_H
#define TRAPD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_BLOCK_LEN 64
#define SHA256_HEX_LEN (2 * SHA256_DIGEST_LEN) /* without the NUL */

struct sha256_ctx {
	uint32_t h[8];		       /* the chaining state H0..H7 */
	uint64_t bytes;		       /* message length so far */
	uint8_t buf[SHA256_BLOCK_LEN]; /* a partial block */
	size_t buflen;		       /* bytes in buf, < SHA256_BLOCK_LEN */
};

/* sha256_init - start a new digest in @c. */
void sha256_init(struct sha256_ctx *c);

/* sha256_update - add @len bytes at @data (may be NULL when @len is 0). */
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);

/* sha256_final - finish the digest into @out and wipe @c; @c must be
 * initialised again before another use. */
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);

/* sha256 - the digest of @len bytes at @data, in one call. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);

/* hmac_sha256 - HMAC-SHA256 (RFC 2104) of @len bytes at @data under the
 * @keylen-byte @key; a key longer than a block (64 bytes) is hashed first.
 * Intermediate key material is wiped before returning. */
void hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
		 uint8_t out[SHA256_DIGEST_LEN]);

/* sha256_fd - the digest of everything @fd reads from its current offset
 * to end of file, with read(2) (interrupted reads are retried). Stores the
 * byte count in @bytes unless it is NULL. Returns 0 or a negative errno
 * from read(2); @out and @bytes are left alone on error. */
int sha256_fd(int fd, uint8_t out[SHA256_DIGEST_LEN], uint64_t *bytes);

/* hex_lower - write the @n bytes at @in as 2 * @n lowercase hex digits and
 * a NUL into @out, which must hold 2 * @n + 1 bytes. */
void hex_lower(const uint8_t *in, size_t n, char *out);

#endif
