/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sigv4.h - AWS Signature Version 4 for S3 requests: header-based
 * authentication, payload sent in a single chunk, payload hash signed (or
 * "UNSIGNED-PAYLOAD"). We sign ourselves rather than through libcurl so
 * every step is unit-tested against AWS's published examples, and the
 * caller sends exactly what was signed:
 *
 *	struct sigv4_header extra[] = { { "x-amz-meta-host", "db7" } };
 *	struct sigv4_request r = {
 *		.method = "PUT", .host = "127.0.0.1:8080",
 *		.path = "/traps/db7/20261122T061328Z.pb.zst",
 *		.headers = extra, .nheaders = 1,
 *		.payload_sha256 = hex, .region = "us-east-1", .service = "s3",
 *		.access_key_id = id, .secret_key = secret, .now = time(NULL),
 *	};
 *	struct sigv4_signed s;
 *
 *	if (sigv4_sign(&r, &s, err, sizeof(err)) < 0)
 *		return ...;
 *	URL: "http://" host s.encoded_path ("?" s.encoded_query when not "")
 *	headers: every line of s.headers (it has authorization and host)
 *	sigv4_signed__free(&s);
 *
 * Canonicalisation, as AWS documents it for S3 and as Swift's s3api
 * verifies it:
 * - path: URI-encoded once, '/' kept; query names and values encoded with
 *   '/' encoded too. Encoding keeps A-Z a-z 0-9 - _ . ~ and writes every
 *   other byte as %XX, uppercase hex. Path and query are taken literally,
 *   never decoded: "%" becomes "%25".
 * - query: split at '&'; a parameter's name ends at its first '=' ("a" is
 *   "a="); empty pieces ("a&&b") are dropped; sorted by encoded name. A
 *   name given twice is an error (servers keep one of them).
 * - headers: names lowercased and sorted; values trimmed of spaces and
 *   tabs, inner runs of them collapsed to one space. Signed are host,
 *   x-amz-content-sha256, x-amz-date, x-amz-security-token (with a session
 *   token) and every extra header. A name given twice is an error.
 *
 * Refused with -EINVAL and a message saying which field: header names that
 * are not HTTP tokens, values with CR, LF or other bytes outside printable
 * ASCII and tab (encode non-ASCII metadata yourself), empty values, extra
 * headers that sigv4_sign sets itself, malformed scope parts.
 *
 * Secrets: the secret key is in no output and no message; no header value
 * is ever quoted in a message. A session token is sent, so it is in
 * headers[] (do not log those), but canonical_request shows it as
 * "<redacted>" (the signature is computed over the real one).
 *
 * libcurl: set CURLOPT_PATH_AS_IS, or curl rewrites "/./" and "/../" in an
 * object name and the signature no longer matches.
 */
#ifndef TRAPD_SIGV4_H
#define TRAPD_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define SIGV4_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"
#define SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SIGV4_MAX_HEADERS 64	     /* extra headers in one request */
#define SIGV4_MAX_PARAMS 64	     /* query parameters in one request */
#define SIGV4_MAX_STRING (64 * 1024) /* bytes in any output string */
#define SIGV4_META_KEY_MAX 128

struct sigv4_header {
	const char *name; /* any case */
	const char *value;
};

struct sigv4_request {
	const char *method;		    /* "PUT", "GET", "HEAD": an HTTP token */
	const char *host;		    /* the Host header exactly as sent: "127.0.0.1:8080" */
	const char *path;		    /* "/bucket/dir/my file.pb.zst", NOT encoded yet */
	const char *query;		    /* "a=b&c", NOT encoded yet; NULL or "": none */
	const struct sigv4_header *headers; /* extra headers to sign and send */
	size_t nheaders;
	const char *payload_sha256; /* 64 lowercase hex, or SIGV4_UNSIGNED_PAYLOAD */
	const char *region;	    /* "us-east-1" */
	const char *service;	    /* "s3" */
	const char *access_key_id;
	const char *secret_key;
	const char *session_token; /* an STS token, or NULL or "": none */
	time_t now;		   /* UTC seconds */
};

struct sigv4_signed {
	char amz_date[17];  /* "20130524T000000Z" */
	char signature[65]; /* 64 lowercase hex, as in authorization */
	char *authorization; /* "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..." */
	char *canonical_request; /* for tests and debug logs: holds no secret (see above) */
	char *string_to_sign;
	char *encoded_path;  /* the path for the URL, encoded exactly as signed */
	char *encoded_query; /* the query for the URL, as signed; "" if none */
	char **headers;	     /* "name: value" lines to send, authorization last; NULL-terminated */
	size_t nheaders;
};

/* sigv4_sign - canonicalise and sign @req into @out. Every check is made
 * before anything is allocated. Returns 0, or a negative errno with @err
 * (if not NULL) saying what is wrong and @out zeroed (so freeing it is
 * harmless): -EINVAL for a request that cannot be signed, -E2BIG when an
 * output string would pass SIGV4_MAX_STRING, -ENOMEM. On success the
 * caller owns @out and frees it with sigv4_signed__free(). */
int sigv4_sign(const struct sigv4_request *req, struct sigv4_signed *out, char *err, size_t errlen);

/* sigv4_signed__free - wipe and free what sigv4_sign() allocated in @s
 * (every string of it, and those it grew through, is wiped: scrub.h) and
 * zero it. @s may be NULL or already freed. */
void sigv4_signed__free(struct sigv4_signed *s);

/* sigv4_header_value_ok - whether @value can be signed and sent as a
 * header value: printable ASCII, spaces and tabs, not blank. */
bool sigv4_header_value_ok(const char *value);

/* sigv4_meta_key_ok - whether @key is a safe user-metadata key to send as
 * "x-amz-meta-KEY": 1 to SIGV4_META_KEY_MAX of a-z 0-9 '-'. S3 lowercases
 * metadata names, and WSGI servers such as Swift cannot tell '_' from '-',
 * so neither uppercase nor '_' is allowed. */
bool sigv4_meta_key_ok(const char *key);

#endif
