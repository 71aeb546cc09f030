// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sha256.c - SHA-256 as FIPS 180-4 section 6.2 describes it, HMAC-SHA256
 * as RFC 2104 does, and the hashing of a whole file. */
#include "upload/sha256.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define SHA256_FD_CHUNK (16 * 1024) /* on the stack */

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

/* FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the
 * square roots of the first 8 primes. */
static const uint32_t H0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static inline uint32_t rotr(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* compress - FIPS 180-4 6.2.2: fold one 64-byte block into the state. */
static void compress(uint32_t h[8], const uint8_t *block)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int t;

	for (t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3];
	e = h[4], f = h[5], g = h[6], hh = h[7];
	for (t = 0; t < 64; t++) {
		t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] +
		     w[t];
		t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
	/* the schedule holds message (maybe key) material */
	explicit_bzero(w, sizeof(w));
}

void sha256_init(struct sha256_ctx *c)
{
	memcpy(c->h, H0, sizeof(c->h));
	c->bytes = 0;
	c->buflen = 0;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->bytes += len;
	if (c->buflen) {
		size_t take = SHA256_BLOCK_LEN - c->buflen;

		if (take > len)
			take = len;
		memcpy(c->buf + c->buflen, p, take);
		c->buflen += take;
		p += take;
		len -= take;
		if (c->buflen < SHA256_BLOCK_LEN)
			return;
		compress(c->h, c->buf);
		c->buflen = 0;
	}
	for (; len >= SHA256_BLOCK_LEN; p += SHA256_BLOCK_LEN, len -= SHA256_BLOCK_LEN)
		compress(c->h, p);
	if (len) {
		memcpy(c->buf, p, len);
		c->buflen = len;
	}
}

/* FIPS 180-4 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the length
 * in bits as a 64-bit big-endian number. */
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN])
{
	uint64_t bits = c->bytes * 8;
	int i;

	c->buf[c->buflen++] = 0x80;
	if (c->buflen > SHA256_BLOCK_LEN - 8) {
		memset(c->buf + c->buflen, 0, SHA256_BLOCK_LEN - c->buflen);
		compress(c->h, c->buf);
		c->buflen = 0;
	}
	memset(c->buf + c->buflen, 0, SHA256_BLOCK_LEN - 8 - c->buflen);
	store_be32(c->buf + 56, bits >> 32);
	store_be32(c->buf + 60, (uint32_t)bits);
	compress(c->h, c->buf);
	for (i = 0; i < 8; i++)
		store_be32(out + 4 * i, c->h[i]);
	explicit_bzero(c, sizeof(*c));
}

void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN])
{
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, out);
}

/* RFC 2104: H(K ^ opad, H(K ^ ipad, text)), K zero-padded to a block. */
void hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
		 uint8_t out[SHA256_DIGEST_LEN])
{
	uint8_t k[SHA256_BLOCK_LEN] = { 0 }, pad[SHA256_BLOCK_LEN], inner[SHA256_DIGEST_LEN];
	struct sha256_ctx c;
	int i;

	if (keylen > SHA256_BLOCK_LEN)
		sha256(key, keylen, k);
	else if (keylen)
		memcpy(k, key, keylen);

	for (i = 0; i < SHA256_BLOCK_LEN; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&c);
	sha256_update(&c, pad, sizeof(pad));
	sha256_update(&c, data, len);
	sha256_final(&c, inner);

	for (i = 0; i < SHA256_BLOCK_LEN; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&c);
	sha256_update(&c, pad, sizeof(pad));
	sha256_update(&c, inner, sizeof(inner));
	sha256_final(&c, out);

	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));
	explicit_bzero(inner, sizeof(inner));
	explicit_bzero(&c, sizeof(c)); /* its state is keyed: it could sign */
}

int sha256_fd(int fd, uint8_t out[SHA256_DIGEST_LEN], uint64_t *bytes)
{
	uint8_t buf[SHA256_FD_CHUNK];
	struct sha256_ctx c;
	ssize_t n;

	sha256_init(&c);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		sha256_update(&c, buf, n);
	}
	if (bytes)
		*bytes = c.bytes;
	sha256_final(&c, out);
	return 0;
}

void hex_lower(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * n] = '\0';
}
