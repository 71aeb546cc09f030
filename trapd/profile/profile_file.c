// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* profile_file.c - capture files on disk (see profile_file.h): pprof
 * compressed with zstd (or gzip), written atomically, read back whatever
 * the compression.
 *
 * Writing goes through atomic_file, so a reader sees the old file or the
 * new one, never a part. Reading is bounded: a file, and the data it
 * decompresses to, larger than the cap is refused before it is all in
 * memory (a zstd or gzip bomb).
 */
#include "trapd/profile/profile_file.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/read_all.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "trapd/profile/pprof.h"

#define ZSTD_LEVEL 3

static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
static const uint8_t gzip_magic[2] = { 0x1f, 0x8b };

/* A growable output buffer refusing to hold more than max bytes. */
struct outbuf {
	uint8_t *data;
	size_t len, cap, max;
};

/* outbuf_grow - make room for more output: double the capacity, up to
 * max + 1 so that "more than max" can be seen. -E2BIG when full. */
static int outbuf_grow(struct outbuf *ob, size_t hint)
{
	size_t ncap, limit = ob->max + 1;
	uint8_t *nd;

	if (ob->cap >= limit)
		return -E2BIG;
	ncap = ob->cap ? (ob->cap > limit / 2 ? limit : ob->cap * 2) : hint;
	if (ncap < 4096)
		ncap = 4096;
	if (ncap > limit)
		ncap = limit;
	nd = realloc(ob->data, ncap);
	if (!nd)
		return -ENOMEM;
	ob->data = nd;
	ob->cap = ncap;
	return 0;
}

static bool has_magic(const void *buf, size_t len, const uint8_t *magic, size_t n)
{
	return len >= n && memcmp(buf, magic, n) == 0;
}

/* --- compression --- */

static int zstd_compress(const void *in, size_t len, void **out, size_t *outlen)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(len), n;
	void *buf = NULL;
	int ret = -ENOMEM;

	if (!c)
		goto cleanup;
	buf = malloc(bound);
	if (!buf)
		goto cleanup;
	/* The checksum lets a reader tell corruption from a valid profile. */
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(c, buf, bound, in, len);
	if (ZSTD_isError(n)) {
		ret = -EIO;
		goto cleanup;
	}
	*out = buf;
	*outlen = n;
	buf = NULL;
	ret = 0;
cleanup:
	free(buf);
	ZSTD_freeCCtx(c);
	return ret;
}

static int gzip_compress(const void *in, size_t len, void **out, size_t *outlen)
{
	z_stream zs = { 0 };
	void *buf = NULL;
	size_t bound;
	int ret;

	if (len > UINT_MAX)
		return -E2BIG;
	/* windowBits 31: a gzip container around the deflate stream. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&zs, len);
	ret = -ENOMEM;
	if (bound > UINT_MAX || !(buf = malloc(bound)))
		goto cleanup;
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = buf;
	zs.avail_out = (uInt)bound;
	ret = -EIO;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		goto cleanup;
	*out = buf;
	*outlen = zs.total_out;
	buf = NULL;
	ret = 0;
cleanup:
	free(buf);
	deflateEnd(&zs);
	return ret;
}

typedef int (*compress_fn)(const void *in, size_t len, void **out, size_t *outlen);

static int write_compressed(const char *path, const struct profile *p, compress_fn compress,
			    const char *what, char *err, size_t errlen)
{
	void *raw = NULL, *packed = NULL;
	size_t rawlen, packedlen;
	int ret;

	ret = pprof_encode(p, &raw, &rawlen);
	if (ret) {
		snprintf(err, errlen, "%s: encoding the profile: %s", path, strerror(-ret));
		goto cleanup;
	}
	ret = compress(raw, rawlen, &packed, &packedlen);
	if (ret) {
		snprintf(err, errlen, "%s: %s compression failed: %s", path, what, strerror(-ret));
		goto cleanup;
	}
	ret = atomic_file_write_bytes(path, packed, packedlen, err, errlen);
cleanup:
	free(raw);
	free(packed);
	return ret;
}

int profile_file__write(const char *path, const struct profile *p, char *err, size_t errlen)
{
	return write_compressed(path, p, zstd_compress, "zstd", err, errlen);
}

int profile_file__write_gzip(const char *path, const struct profile *p, char *err, size_t errlen)
{
	return write_compressed(path, p, gzip_compress, "gzip", err, errlen);
}

/* --- decompression --- */

/* unzstd - decompress every frame of @in into @ob. @why gets the reason
 * of a failure. */
static int unzstd(const uint8_t *in, size_t len, struct outbuf *ob, char *why, size_t whylen)
{
	unsigned long long declared = ZSTD_getFrameContentSize(in, len);
	ZSTD_inBuffer zin = { in, len, 0 };
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	size_t hint = len * 4, r = 1;
	ZSTD_outBuffer zout;
	int ret = 0;

	if (!dc)
		return -ENOMEM;
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR) {
		if (declared > ob->max) {
			snprintf(why, whylen, "zstd frame declares %llu bytes, over the cap of %zu",
				 declared, ob->max);
			ret = -E2BIG;
			goto cleanup;
		}
		hint = (size_t)declared + 1; /* + 1: room to see the end */
	}
	for (;;) {
		if (ob->len == ob->cap && (ret = outbuf_grow(ob, hint)))
			break;
		zout = (ZSTD_outBuffer){ ob->data, ob->cap, ob->len };
		r = ZSTD_decompressStream(dc, &zout, &zin);
		ob->len = zout.pos;
		if (ZSTD_isError(r)) {
			snprintf(why, whylen, "corrupt zstd data: %s", ZSTD_getErrorName(r));
			ret = -EBADMSG;
			goto cleanup;
		}
		/* All input read and the output not full: nothing is pending. */
		if (zin.pos == zin.size && zout.pos < zout.size)
			break;
	}
	if (ret == -E2BIG)
		snprintf(why, whylen, "zstd data decompresses to more than %zu bytes", ob->max);
	else if (!ret && r != 0) {
		snprintf(why, whylen, "truncated zstd data");
		ret = -EBADMSG;
	}
cleanup:
	ZSTD_freeDCtx(dc);
	return ret;
}

/* gunzip_step - one inflate call into @ob; 1 when a member ended. */
static int gunzip_step(z_stream *zs, struct outbuf *ob, char *why, size_t whylen)
{
	size_t room;
	int r, ret;

	if (ob->len == ob->cap) {
		ret = outbuf_grow(ob, (size_t)zs->avail_in * 4);
		if (ret) {
			if (ret == -E2BIG)
				snprintf(why, whylen,
					 "gzip data decompresses to more than %zu bytes", ob->max);
			return ret;
		}
	}
	room = ob->cap - ob->len;
	zs->next_out = ob->data + ob->len;
	zs->avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
	r = inflate(zs, Z_NO_FLUSH);
	ob->len = (size_t)(zs->next_out - ob->data);
	if (r == Z_STREAM_END)
		return 1;
	if (r == Z_OK || (r == Z_BUF_ERROR && zs->avail_in && !zs->avail_out))
		return 0;
	if (r == Z_BUF_ERROR)
		snprintf(why, whylen, "truncated gzip data");
	else if (r == Z_MEM_ERROR)
		return -ENOMEM;
	else
		snprintf(why, whylen, "corrupt gzip data: %s", zs->msg ? zs->msg : "error");
	return -EBADMSG;
}

/* gunzip - decompress every gzip member of @in into @ob. */
static int gunzip(const uint8_t *in, size_t len, struct outbuf *ob, char *why, size_t whylen)
{
	z_stream zs = { 0 };
	int ret;

	if (len > UINT_MAX)
		return -E2BIG;
	/* windowBits 47: a gzip (or zlib) header, detected automatically. */
	if (inflateInit2(&zs, 47) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	for (;;) {
		ret = gunzip_step(&zs, ob, why, whylen);
		if (ret < 0)
			break;
		if (ret == 0)
			continue;
		ret = 0;
		if (!zs.avail_in)
			break;
		/* Concatenated members read as one stream, as gzip -d does. */
		if (!has_magic(zs.next_in, zs.avail_in, gzip_magic, sizeof(gzip_magic))) {
			snprintf(why, whylen, "%u bytes of trailing garbage after gzip data",
				 zs.avail_in);
			ret = -EBADMSG;
			break;
		}
		inflateReset(&zs);
	}
	inflateEnd(&zs);
	return ret;
}

/* --- reading --- */

/* decode - profile_file__decode, the bytes decompressed into *@bytes. */
static int decode(const void *buf, size_t len, size_t max_bytes, const char *name,
		  struct profile **out, size_t *bytes, char *err, size_t errlen)
{
	struct outbuf ob = { .max = max_bytes };
	char why[256] = "";
	const char *kind = "pprof data";
	int ret = 0;

	*out = NULL;
	if (!len) {
		snprintf(err, errlen, "%s: empty file", name);
		return -EBADMSG;
	}
	if (len > max_bytes) {
		snprintf(err, errlen, "%s: %zu bytes, over the cap of %zu", name, len, max_bytes);
		return -E2BIG;
	}
	if (has_magic(buf, len, zstd_magic, sizeof(zstd_magic))) {
		kind = "pprof data in zstd frame";
		ret = unzstd(buf, len, &ob, why, sizeof(why));
	} else if (has_magic(buf, len, gzip_magic, sizeof(gzip_magic))) {
		kind = "pprof data in gzip stream";
		ret = gunzip(buf, len, &ob, why, sizeof(why));
	}
	if (!ret && ob.len > max_bytes) {
		snprintf(why, sizeof(why), "decompresses to more than %zu bytes", max_bytes);
		ret = -E2BIG;
	}
	if (ret) {
		snprintf(err, errlen, "%s: %s", name, why[0] ? why : strerror(-ret));
		goto cleanup;
	}
	if (ob.data)
		ret = pprof_decode(ob.data, ob.len, out, why, sizeof(why));
	else
		ret = pprof_decode(buf, len, out, why, sizeof(why));
	if (ret == -EBADMSG && !ob.data)
		snprintf(err, errlen, "%s: neither zstd, gzip nor a pprof profile (%s)", name, why);
	else if (ret)
		snprintf(err, errlen, "%s: %s: %s", name, kind, why[0] ? why : strerror(-ret));
cleanup:
	*bytes = ob.data ? ob.len : len;
	free(ob.data);
	return ret;
}

int profile_file__decode(const void *buf, size_t len, size_t max_bytes, const char *name,
			 struct profile **out, char *err, size_t errlen)
{
	size_t bytes;

	return decode(buf, len, max_bytes, name, out, &bytes, err, errlen);
}

int profile_file__read_bounded(const char *path, size_t max_bytes, size_t *bytes,
			       struct profile **out, char *err, size_t errlen)
{
	size_t len = 0, scratch;
	char *data = NULL;
	int fd, ret;

	*out = NULL;
	if (!bytes)
		bytes = &scratch;
	*bytes = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = read_all(fd, max_bytes, &data, &len, NULL);
	close(fd);
	if (ret == -EFBIG) {
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
		ret = -E2BIG;
	} else if (ret) {
		snprintf(err, errlen, "%s: reading: %s", path, strerror(-ret));
	} else {
		ret = decode(data, len, max_bytes, path, out, bytes, err, errlen);
	}
	free(data);
	return ret;
}

int profile_file__read(const char *path, struct profile **out, char *err, size_t errlen)
{
	return profile_file__read_bounded(path, PROFILE_FILE_MAX_BYTES, NULL, out, err, errlen);
}

int profile_file__sidecar_path(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);
	const char *ext = ".pb.zst";
	size_t el = strlen(ext);

	if (atomic_file_is_stream(path)) {
		if (len)
			out[0] = '\0'; /* a stream has no file next to it */
		return -ENOENT;
	}
	if (n > el && strcmp(path + n - el, ext) == 0)
		n -= el;
	if ((size_t)snprintf(out, len, "%.*s.json", (int)n, path) >= len)
		return -ENAMETOOLONG;
	return 0;
}
