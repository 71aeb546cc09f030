// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sigv4.c - AWS SigV4 signing of S3 requests.
 *
 * The four examples AWS publishes in "Signature Calculations for the
 * Authorization Header: Transferring Payload in a Single Chunk" (S3 API
 * reference: GET Object, PUT Object, GET Bucket Lifecycle, GET Bucket list
 * objects) with their canonical requests, strings to sign and signatures.
 * Then vectors for what those examples leave out (encoded paths and
 * queries, a session token, x-amz-meta headers, blank runs, long secrets),
 * whose signatures were computed by curl 7.88.1's own signer:
 *
 *	curl --path-as-is --aws-sigv4 aws:amz:us-east-1:s3 --user AKID:SECRET
 *	     -H 'Host: examplebucket.s3.amazonaws.com'
 *	     -H 'x-amz-date: 20130524T000000Z' -H 'x-amz-content-sha256: <empty>'
 *	     [-X PUT] [-H 'x-amz-...'] http://127.0.0.1:PORT<encoded path and query>
 *
 * against a listener that printed the Authorization header. curl 7.88
 * signs only host and x-amz-* headers and takes the path and query as
 * given, so only such requests are compared. Then canonicalisation
 * details, every refusal, and the secret appearing nowhere.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "upload/sha256.h"
#include "upload/sigv4.h"

#define AKID "AKIAIOSFODNN7EXAMPLE"
#define SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define HOST "examplebucket.s3.amazonaws.com"
#define T20130524 1369353600 /* 2013-05-24T00:00:00Z */
#define SCOPE "20130524/us-east-1/s3/aws4_request"
#define CREDENTIAL "AWS4-HMAC-SHA256 Credential=" AKID "/" SCOPE ", SignedHeaders="

/* example_request - the AWS examples' constant parts. */
static struct sigv4_request example_request(const char *method, const char *path, const char *query,
					    const char *payload)
{
	return (struct sigv4_request){
		.method = method,
		.host = HOST,
		.path = path,
		.query = query,
		.payload_sha256 = payload,
		.region = "us-east-1",
		.service = "s3",
		.access_key_id = AKID,
		.secret_key = SECRET,
		.now = T20130524,
	};
}

static void sign_ok(const struct sigv4_request *r, struct sigv4_signed *s)
{
	char err[256] = "";
	int ret = sigv4_sign(r, s, err, sizeof(err));

	if (ret)
		fail_msg("sigv4_sign: %d %s", ret, err);
}

/* sign_err - sign @r expecting @code; @out must come back zeroed and the
 * message must not be empty. Returns the message. */
static const char *sign_err(const struct sigv4_request *r, int code)
{
	static char err[512];
	struct sigv4_signed s, zero;

	memset(&s, 0x5a, sizeof(s));
	memset(&zero, 0, sizeof(zero));
	err[0] = '\0';
	assert_int_equal(sigv4_sign(r, &s, err, sizeof(err)), code);
	assert_memory_equal(&s, &zero, sizeof(s));
	assert_true(err[0] != '\0');
	assert_null(strstr(err, SECRET));
	sigv4_signed__free(&s);
	return err;
}

/* --- AWS's published examples -------------------------------------------- */

static void test_aws_get_object(void **state)
{
	struct sigv4_header h[] = { { "Range", "bytes=0-9" } };
	struct sigv4_request r = example_request("GET", "/test.txt", NULL, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;

	r.headers = h;
	r.nheaders = 1;
	sign_ok(&r, &s);
	assert_string_equal(s.canonical_request,
			    "GET\n"
			    "/test.txt\n"
			    "\n"
			    "host:examplebucket.s3.amazonaws.com\n"
			    "range:bytes=0-9\n"
			    "x-amz-content-sha256:" SIGV4_EMPTY_SHA256 "\n"
			    "x-amz-date:20130524T000000Z\n"
			    "\n"
			    "host;range;x-amz-content-sha256;x-amz-date\n" SIGV4_EMPTY_SHA256);
	assert_string_equal(s.string_to_sign,
			    "AWS4-HMAC-SHA256\n"
			    "20130524T000000Z\n" SCOPE "\n"
			    "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
	assert_string_equal(s.signature,
			    "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
	assert_string_equal(
		s.authorization, CREDENTIAL
		"host;range;x-amz-content-sha256;x-amz-date, "
		"Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
	assert_string_equal(s.amz_date, "20130524T000000Z");
	assert_string_equal(s.encoded_path, "/test.txt");
	assert_string_equal(s.encoded_query, "");
	sigv4_signed__free(&s);
}

static void test_aws_put_object(void **state)
{
	static const char body[] = "Welcome to Amazon S3.";
	struct sigv4_header h[] = {
		{ "Date", "Fri, 24 May 2013 00:00:00 GMT" },
		{ "x-amz-storage-class", "REDUCED_REDUNDANCY" },
	};
	uint8_t d[SHA256_DIGEST_LEN];
	char payload[SHA256_HEX_LEN + 1];
	struct sigv4_request r;
	struct sigv4_signed s;

	sha256(body, strlen(body), d);
	hex_lower(d, sizeof(d), payload);
	assert_string_equal(payload,
			    "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
	r = example_request("PUT", "/test$file.text", NULL, payload);
	r.headers = h;
	r.nheaders = 2;
	sign_ok(&r, &s);
	assert_string_equal(
		s.canonical_request,
		"PUT\n"
		"/test%24file.text\n"
		"\n"
		"date:Fri, 24 May 2013 00:00:00 GMT\n"
		"host:examplebucket.s3.amazonaws.com\n"
		"x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
		"x-amz-date:20130524T000000Z\n"
		"x-amz-storage-class:REDUCED_REDUNDANCY\n"
		"\n"
		"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
		"44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
	assert_string_equal(s.string_to_sign,
			    "AWS4-HMAC-SHA256\n"
			    "20130524T000000Z\n" SCOPE "\n"
			    "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
	assert_string_equal(
		s.authorization, CREDENTIAL
		"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
		"Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
	assert_string_equal(s.encoded_path, "/test%24file.text");
	sigv4_signed__free(&s);
}

static void test_aws_get_bucket_lifecycle(void **state)
{
	struct sigv4_request r = example_request("GET", "/", "lifecycle", SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;

	sign_ok(&r, &s);
	assert_string_equal(s.canonical_request,
			    "GET\n"
			    "/\n"
			    "lifecycle=\n"
			    "host:examplebucket.s3.amazonaws.com\n"
			    "x-amz-content-sha256:" SIGV4_EMPTY_SHA256 "\n"
			    "x-amz-date:20130524T000000Z\n"
			    "\n"
			    "host;x-amz-content-sha256;x-amz-date\n" SIGV4_EMPTY_SHA256);
	assert_string_equal(s.string_to_sign,
			    "AWS4-HMAC-SHA256\n"
			    "20130524T000000Z\n" SCOPE "\n"
			    "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca");
	assert_string_equal(
		s.authorization, CREDENTIAL
		"host;x-amz-content-sha256;x-amz-date, "
		"Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
	assert_string_equal(s.encoded_query, "lifecycle=");
	sigv4_signed__free(&s);
}

static void test_aws_list_objects(void **state)
{
	/* given out of order: the canonical query sorts it */
	struct sigv4_request r =
		example_request("GET", "/", "prefix=J&max-keys=2", SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;

	sign_ok(&r, &s);
	assert_string_equal(s.canonical_request,
			    "GET\n"
			    "/\n"
			    "max-keys=2&prefix=J\n"
			    "host:examplebucket.s3.amazonaws.com\n"
			    "x-amz-content-sha256:" SIGV4_EMPTY_SHA256 "\n"
			    "x-amz-date:20130524T000000Z\n"
			    "\n"
			    "host;x-amz-content-sha256;x-amz-date\n" SIGV4_EMPTY_SHA256);
	assert_string_equal(s.string_to_sign,
			    "AWS4-HMAC-SHA256\n"
			    "20130524T000000Z\n" SCOPE "\n"
			    "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
	assert_string_equal(
		s.authorization, CREDENTIAL
		"host;x-amz-content-sha256;x-amz-date, "
		"Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
	assert_string_equal(s.encoded_query, "max-keys=2&prefix=J");
	sigv4_signed__free(&s);
}

/* --- against curl 7.88.1 ------------------------------------------------- */

struct curl_vector {
	const char *method, *path, *query, *token;
	struct sigv4_header h[3];
	size_t nh;
	const char *url;       /* encoded path and query, as sent to curl */
	const char *signature; /* what curl computed */
};

static void test_curl_vectors(void **state)
{
	static const struct curl_vector v[] = {
		{ "GET",
		  "/bucket/my file+x=y~z.pb.zst",
		  NULL,
		  NULL,
		  { { 0 } },
		  0,
		  "/bucket/my%20file%2Bx%3Dy~z.pb.zst",
		  "78bd3350af707251ea15805eb293303c3ba74bf8dec0328863ea63b1d630087e" },
		{ "GET",
		  "/bucket/dir/\xc3\xbcn\xc3\xaf\xe2\x82\xac.txt",
		  NULL,
		  NULL,
		  { { 0 } },
		  0,
		  "/bucket/dir/%C3%BCn%C3%AF%E2%82%AC.txt",
		  "f6a76fcd4447e35e0be03b71bf5c192400fea093efa32f8e027eb9b176ac3f56" },
		{ "GET",
		  "/bucket/a%2Fb/c",
		  "prefix=a/b c&list-type=2&marker=&x",
		  NULL,
		  { { 0 } },
		  0,
		  "/bucket/a%252Fb/c?list-type=2&marker=&prefix=a%2Fb%20c&x=",
		  "8c5a339a91caa71b5eb6e6eca8d7f1b1a179d824e0572820533d94ba463ef5c7" },
		{ "PUT",
		  "/bucket/obj",
		  NULL,
		  "FwoGZXIvYXdzEBYaDH+/tok=en",
		  { { 0 } },
		  0,
		  "/bucket/obj",
		  "fe0054fb3c2cda344ace30276570c2d55bcafbecc094e7cca317b3318f7c4508" },
		{ "PUT",
		  "/bucket/obj",
		  NULL,
		  NULL,
		  { { "x-amz-meta-host", "db7" },
		    { "X-Amz-Meta-Zone", "eu-west-1a" },
		    { "x-amz-storage-class", "STANDARD" } },
		  3,
		  "/bucket/obj",
		  "e443d6270b65acba550ceea257fdfe658d60305e7e8347c36489c0e84139a1a1" },
		{ "PUT",
		  "/bucket/obj",
		  NULL,
		  NULL,
		  { { "x-amz-meta-note", "  a   b\t c  " } },
		  1,
		  "/bucket/obj",
		  "842d60d4269061955513ea41665212fe61ca3399ca9cb557904ee97c7dc3c8b7" },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct sigv4_request r =
			example_request(v[i].method, v[i].path, v[i].query, SIGV4_EMPTY_SHA256);
		struct sigv4_signed s;
		char url[256];

		r.session_token = v[i].token;
		r.headers = v[i].h;
		r.nheaders = v[i].nh;
		sign_ok(&r, &s);
		snprintf(url, sizeof(url), "%s%s%s", s.encoded_path, *s.encoded_query ? "?" : "",
			 s.encoded_query);
		assert_string_equal(url, v[i].url);
		assert_string_equal(s.signature, v[i].signature);
		sigv4_signed__free(&s);
	}
}

/* "AWS4" + secret is the first HMAC key: 64 bytes are used as they are,
 * more are hashed first. */
static void test_curl_long_secrets(void **state)
{
	static const char alpha[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+"
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+";
	static const struct {
		size_t len;
		const char *signature;
	} v[] = {
		{ 60, "8103f202144322717f14b8f73b8249b506466917b8093b311416d1f4a8d5d4e9" },
		{ 61, "5e2d7821dd9d1fe68176cd169e0ff8cb5916829588534f5f8c2b48409e29569f" },
		{ 100, "fad677dc981e7d42457e898e05665cd765c57cb592541d318b350f57724a7bf8" },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct sigv4_request r =
			example_request("GET", "/test.txt", NULL, SIGV4_EMPTY_SHA256);
		struct sigv4_signed s;
		char secret[sizeof(alpha)];

		snprintf(secret, sizeof(secret), "%.*s", (int)v[i].len, alpha);
		r.secret_key = secret;
		sign_ok(&r, &s);
		assert_string_equal(s.signature, v[i].signature);
		sigv4_signed__free(&s);
	}
}

/* --- canonicalisation ---------------------------------------------------- */

static void assert_path(const char *path, const char *want)
{
	struct sigv4_request r = example_request("GET", path, NULL, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;

	sign_ok(&r, &s);
	assert_string_equal(s.encoded_path, want);
	/* the second line of the canonical request is the same path */
	assert_true(!strncmp(s.canonical_request + 4, want, strlen(want)));
	assert_int_equal(s.canonical_request[4 + strlen(want)], '\n');
	sigv4_signed__free(&s);
}

static void test_path_encoding(void **state)
{
	assert_path("/", "/");
	assert_path("/bucket/dir/my file.pb.zst", "/bucket/dir/my%20file.pb.zst");
	assert_path("/b/a+b=c~d", "/b/a%2Bb%3Dc~d");
	assert_path("/b/-_.~AZaz09", "/b/-_.~AZaz09");
	/* UTF-8 bytes one by one, uppercase hex */
	assert_path("/b/\xc3\xa9\xe2\x82\xac", "/b/%C3%A9%E2%82%AC");
	/* encoded once: a '%' is data */
	assert_path("/b/100%", "/b/100%25");
	assert_path("/b/a%20b", "/b/a%2520b");
	/* '/' kept as it is, empty segments and dots too (S3 does not
	 * normalise object names) */
	assert_path("/b//k/./../", "/b//k/./../");
	assert_path("/b/*'()!@$&;,:?#[]", "/b/%2A%27%28%29%21%40%24%26%3B%2C%3A%3F%23%5B%5D");
	assert_path("/b/\x01\x7f\xff", "/b/%01%7F%FF");
}

static void assert_query(const char *query, const char *want)
{
	struct sigv4_request r = example_request("GET", "/", query, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;
	char line[512];

	sign_ok(&r, &s);
	assert_string_equal(s.encoded_query, want);
	snprintf(line, sizeof(line), "GET\n/\n%s\n", want);
	assert_true(!strncmp(s.canonical_request, line, strlen(line)));
	sigv4_signed__free(&s);
}

static void test_query_canonical(void **state)
{
	assert_query(NULL, "");
	assert_query("", "");
	assert_query("&&", "");
	assert_query("a", "a=");
	assert_query("a=", "a=");
	assert_query("b=2&a=1", "a=1&b=2");
	assert_query("c&b=&a", "a=&b=&c=");
	assert_query("x&&y", "x=&y=");
	/* the first '=' ends the name; later ones are data */
	assert_query("token=ab==&k=a=b", "k=a%3Db&token=ab%3D%3D");
	/* values encode '/', spaces as %20, '+' as %2B */
	assert_query("prefix=a/b c+d", "prefix=a%2Fb%20c%2Bd");
	assert_query("list-type=2&prefix=dir%2F", "list-type=2&prefix=dir%252F");
	/* byte order of the encoded names: uppercase first, a name before its
	 * extensions, an encoded byte ('%') before letters */
	assert_query("b=1&B=2&a-b=3&a=4&ab=5", "B=2&a=4&a-b=3&ab=5&b=1");
	assert_query("ab=1&a{=2", "a%7B=2&ab=1");
	assert_query("\xc3\xa9=1&z=2", "%C3%A9=1&z=2");
	assert_query(
		"versionId=3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY+MTRCxf3vjVBH40Nr8X8gdRQBpUMLUo",
		"versionId=3HL4kqtJlcpXroDTDmJ%2BrmSpXd3dIbrHY%2BMTRCxf3vjVBH40Nr8X8gdRQBpUMLUo");
}

static void test_query_refused(void **state)
{
	struct sigv4_request r = example_request("GET", "/", NULL, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;
	char big[SIGV4_MAX_PARAMS * 8];
	size_t i, n = 0;

	r.query = "a=1&b=2&a=3";
	assert_non_null(strstr(sign_err(&r, -EINVAL), "a is given twice"));
	r.query = "a&a=";
	sign_err(&r, -EINVAL);
	r.query = "=v";
	assert_non_null(strstr(sign_err(&r, -EINVAL), "no name"));
	r.query = "a=1&=";
	sign_err(&r, -EINVAL);
	for (i = 0; i <= SIGV4_MAX_PARAMS; i++)
		n += snprintf(big + n, sizeof(big) - n, "p%zu&", i);
	r.query = big;
	assert_non_null(strstr(sign_err(&r, -EINVAL), "more than 64 parameters"));
	/* exactly the limit is fine */
	big[n - 1] = '\0';
	*strrchr(big, '&') = '\0';
	sign_ok(&r, &s);
	sigv4_signed__free(&s);
}

static void test_header_trim_collapse(void **state)
{
	struct sigv4_header h[] = {
		{ "X-Amz-Meta-Note", "  several   inner\t\tblanks \t here  " },
		{ "content-type", "\ttext/plain;  charset=utf-8" },
		{ "X-AMZ-META-A", "1" },
	};
	struct sigv4_request r = example_request("PUT", "/k", NULL, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;

	r.headers = h;
	r.nheaders = 3;
	sign_ok(&r, &s);
	assert_string_equal(s.canonical_request,
			    "PUT\n/k\n\n"
			    "content-type:text/plain; charset=utf-8\n"
			    "host:examplebucket.s3.amazonaws.com\n"
			    "x-amz-content-sha256:" SIGV4_EMPTY_SHA256 "\n"
			    "x-amz-date:20130524T000000Z\n"
			    "x-amz-meta-a:1\n"
			    "x-amz-meta-note:several inner blanks here\n"
			    "\n"
			    "content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-a;"
			    "x-amz-meta-note\n" SIGV4_EMPTY_SHA256);
	/* and they are sent as signed */
	assert_int_equal(s.nheaders, 7);
	assert_string_equal(s.headers[0], "content-type: text/plain; charset=utf-8");
	assert_string_equal(s.headers[1], "host: examplebucket.s3.amazonaws.com");
	assert_string_equal(s.headers[2], "x-amz-content-sha256: " SIGV4_EMPTY_SHA256);
	assert_string_equal(s.headers[3], "x-amz-date: 20130524T000000Z");
	assert_string_equal(s.headers[4], "x-amz-meta-a: 1");
	assert_string_equal(s.headers[5], "x-amz-meta-note: several inner blanks here");
	assert_true(!strncmp(s.headers[6], "authorization: AWS4-HMAC-SHA256 Credential=", 43));
	assert_string_equal(s.headers[6] + strlen("authorization: "), s.authorization);
	assert_null(s.headers[7]);
	sigv4_signed__free(&s);
}

static void test_session_token(void **state)
{
	static const char token[] = "IQoJb3JpZ2luX2VjEHoaCXVzLWVhc3QtMSJHMEUCIQD+/sts=";
	struct sigv4_request r = example_request("PUT", "/k", NULL, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s, none;
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1], real[1024], *at;
	size_t i;
	bool sent = false;

	sign_ok(&r, &none);
	r.session_token = token;
	sign_ok(&r, &s);
	assert_non_null(
		strstr(s.authorization,
		       "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"));
	assert_string_not_equal(s.signature, none.signature);
	for (i = 0; i < s.nheaders; i++)
		sent |= !strcmp(s.headers[i],
				"x-amz-security-token: IQoJb3JpZ2luX2VjEHoaCXVzLWVhc3Qt"
				"MSJHMEUCIQD+/sts=");
	assert_true(sent);

	/* the canonical request hides the token, but what was hashed had it */
	assert_null(strstr(s.canonical_request, token));
	at = strstr(s.canonical_request, "x-amz-security-token:<redacted>\n");
	assert_non_null(at);
	snprintf(real, sizeof(real), "%.*s%s%s", (int)(at - s.canonical_request + 21),
		 s.canonical_request, token, at + 21 + strlen("<redacted>"));
	sha256(real, strlen(real), d);
	hex_lower(d, sizeof(d), hex);
	assert_string_equal(s.string_to_sign + strlen(s.string_to_sign) - SHA256_HEX_LEN, hex);

	/* an empty token is no token */
	sigv4_signed__free(&s);
	r.session_token = "";
	sign_ok(&r, &s);
	assert_string_equal(s.signature, none.signature);
	sigv4_signed__free(&s);
	sigv4_signed__free(&none);
}

static void test_unsigned_payload_and_dates(void **state)
{
	struct sigv4_request r = example_request("PUT", "/k", NULL, SIGV4_UNSIGNED_PAYLOAD);
	struct sigv4_signed s;
	const char *end;

	r.now = 0;
	sign_ok(&r, &s);
	end = s.canonical_request + strlen(s.canonical_request) - strlen("\nUNSIGNED-PAYLOAD");
	assert_string_equal(end, "\nUNSIGNED-PAYLOAD");
	assert_non_null(strstr(s.canonical_request, "x-amz-content-sha256:UNSIGNED-PAYLOAD\n"));
	assert_string_equal(s.amz_date, "19700101T000000Z");
	assert_non_null(strstr(s.authorization, "/19700101/us-east-1/s3/aws4_request, "));
	sigv4_signed__free(&s);

	r.now = 1700000000;
	sign_ok(&r, &s);
	assert_string_equal(s.amz_date, "20231114T221320Z");
	assert_non_null(strstr(s.canonical_request, "x-amz-date:20231114T221320Z\n"));
	assert_non_null(strstr(s.string_to_sign, "\n20231114/us-east-1/s3/aws4_request\n"));
	sigv4_signed__free(&s);
}

/* --- refusals ------------------------------------------------------------ */

static const char *sign_with_header(const char *name, const char *value)
{
	struct sigv4_header h[] = { { "x-amz-meta-ok", "fine" }, { name, value } };
	struct sigv4_request r = example_request("PUT", "/k", NULL, SIGV4_EMPTY_SHA256);

	r.headers = h;
	r.nheaders = 2;
	return sign_err(&r, -EINVAL);
}

static void test_bad_headers_refused(void **state)
{
	const char *e;

	e = sign_with_header("x-amz-meta-a", "line\r\nx-injected: 1");
	assert_non_null(strstr(e, "header x-amz-meta-a: value contains CR or LF"));
	assert_null(strstr(e, "injected"));
	e = sign_with_header("x-amz-meta-a", "line\nnext");
	assert_non_null(strstr(e, "CR or LF"));
	e = sign_with_header("x-amz-meta-a", "bell\a");
	assert_non_null(strstr(e, "byte 0x07"));
	e = sign_with_header("x-amz-meta-a", "caf\xc3\xa9");
	assert_non_null(strstr(e, "byte 0xc3"));
	e = sign_with_header("x-amz-meta-a", "del\x7f");
	assert_non_null(strstr(e, "byte 0x7f"));
	e = sign_with_header("x-amz-meta-a", " \t ");
	assert_non_null(strstr(e, "x-amz-meta-a: value is empty"));
	sign_with_header("x-amz-meta-a", "");
	sign_with_header("x-amz-meta-a", NULL);

	e = sign_with_header("x-amz-meta a", "v");
	assert_non_null(strstr(e, "header #1 (\"x-amz-meta\"...): byte 0x20"));
	e = sign_with_header("x-amz-meta-a:", "v");
	assert_non_null(strstr(e, "byte 0x3a"));
	e = sign_with_header("x-amz-meta-a\r\n", "v");
	assert_non_null(strstr(e, "byte 0x0d"));
	e = sign_with_header("", "v");
	assert_non_null(strstr(e, "header #1 has no name"));
	sign_with_header(NULL, "v");

	/* what sigv4_sign sets itself */
	assert_non_null(strstr(sign_with_header("Host", "evil"), "host is set by sigv4_sign"));
	sign_with_header("X-Amz-Date", "20130524T000000Z");
	sign_with_header("x-amz-content-sha256", SIGV4_EMPTY_SHA256);
	sign_with_header("X-Amz-Security-Token", "t");
	sign_with_header("Authorization", "AWS4-HMAC-SHA256 x");

	/* a name twice, whatever the case */
	e = sign_with_header("X-AMZ-META-OK", "again");
	assert_non_null(strstr(e, "is given twice"));
}

static void test_bad_requests_refused(void **state)
{
	struct sigv4_header h[] = { { "x-amz-meta-a", "1" } };
	struct sigv4_request good = example_request("PUT", "/k", NULL, SIGV4_EMPTY_SHA256), r;
	struct sigv4_signed s;
	char err[64];

#define REFUSE(field, val, text)                                                                   \
	do {                                                                                       \
		r = good;                                                                          \
		r.field = val;                                                                     \
		assert_non_null(strstr(sign_err(&r, -EINVAL), text));                              \
	} while (0)
	REFUSE(method, NULL, "method");
	REFUSE(method, "", "method");
	REFUSE(method, "P UT", "method");
	REFUSE(host, NULL, "host");
	REFUSE(host, "a b", "host has a space");
	REFUSE(host, "h/x", "'/'");
	REFUSE(host, "h\r\nx-evil: 1", "header host: value contains CR or LF");
	REFUSE(path, NULL, "path must start with '/'");
	REFUSE(path, "k", "path must start with '/'");
	REFUSE(query, "=", "no name");
	REFUSE(payload_sha256, NULL, "payload_sha256");
	REFUSE(payload_sha256, "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
	       "payload_sha256");
	REFUSE(payload_sha256, "e3b0", "payload_sha256");
	REFUSE(payload_sha256, SIGV4_EMPTY_SHA256 "0", "payload_sha256");
	REFUSE(payload_sha256, "unsigned-payload", "payload_sha256");
	REFUSE(region, "", "region is empty");
	REFUSE(region, "us/east", "region has byte 0x2f");
	REFUSE(service, "s 3", "service has byte 0x20");
	REFUSE(service, NULL, "service is empty");
	REFUSE(access_key_id, "AK,ID", "access_key_id has byte 0x2c");
	REFUSE(access_key_id, "AK/ID", "access_key_id has byte 0x2f");
	REFUSE(secret_key, NULL, "secret_key is empty");
	REFUSE(secret_key, "", "secret_key is empty");
	REFUSE(session_token, "tok\nen", "x-amz-security-token: value contains CR or LF");
	REFUSE(now, -1, "now (-1)");
	REFUSE(nheaders, 1, "headers is NULL");
	REFUSE(nheaders, SIGV4_MAX_HEADERS + 1, "more than 64 extra headers");
#undef REFUSE

	/* Swift's "account:user" access keys are fine */
	r = good;
	r.access_key_id = "test:tester";
	r.headers = h;
	r.nheaders = 1;
	sign_ok(&r, &s);
	assert_non_null(strstr(s.authorization, "Credential=test:tester/20130524/"));
	sigv4_signed__free(&s);

	assert_int_equal(sigv4_sign(NULL, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(sigv4_sign(&good, NULL, err, sizeof(err)), -EINVAL);
	/* no message buffer is fine too */
	r = good;
	r.method = NULL;
	assert_int_equal(sigv4_sign(&r, &s, NULL, 0), -EINVAL);
	assert_null(s.authorization);
}

/* Outputs are capped; passing the cap after some were built frees them. */
static void test_too_big(void **state)
{
	struct sigv4_request r = example_request("GET", NULL, NULL, SIGV4_EMPTY_SHA256);
	size_t n = SIGV4_MAX_STRING / 3 + 1;
	char *path = malloc(n + 2), *query = malloc(n + 3);

	assert_non_null(path);
	assert_non_null(query);
	path[0] = '/';
	memset(path + 1, ' ', n);
	path[n + 1] = '\0';
	r.path = path;
	assert_non_null(strstr(sign_err(&r, -E2BIG), "encoded path would be longer than 65535"));

	/* path and query each fit, the canonical request holding both does not */
	path[n * 2 / 3] = '\0';
	memcpy(query, "q=", 2);
	memset(query + 2, ' ', n * 2 / 3);
	query[2 + n * 2 / 3] = '\0';
	r.query = query;
	assert_non_null(strstr(sign_err(&r, -E2BIG), "canonical request would be longer"));
	free(path);
	free(query);
}

/* assert_no_secret - neither the secret nor its URI-encoded form in @s. */
static void assert_no_secret(const char *s)
{
	assert_null(strstr(s, SECRET));
	assert_null(strstr(s, "wJalrXUtnFEMI%2FK7MDENG%2FbPxRfiCYEXAMPLEKEY"));
	assert_null(strstr(s, "wJalrXUtnFEMI"));
}

/* The secret key is in no output and no message, whatever is signed. */
static void test_secret_appears_nowhere(void **state)
{
	struct sigv4_header h[] = { { "x-amz-meta-a", "1" }, { "Content-Type", "text/plain" } };
	struct sigv4_request r = example_request("PUT", "/b/k", "a=1&b", SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;
	char err[512];
	size_t i;

	r.session_token = "session-token";
	r.headers = h;
	r.nheaders = 2;
	sign_ok(&r, &s);
	assert_no_secret(s.authorization);
	assert_no_secret(s.canonical_request);
	assert_no_secret(s.string_to_sign);
	assert_no_secret(s.encoded_path);
	assert_no_secret(s.encoded_query);
	assert_no_secret(s.signature);
	assert_no_secret(s.amz_date);
	for (i = 0; i < s.nheaders; i++)
		assert_no_secret(s.headers[i]);
	sigv4_signed__free(&s);

	/* nor in any message, in which no header value is quoted either */
	r.session_token = "private\r\n";
	assert_int_equal(sigv4_sign(&r, &s, err, sizeof(err)), -EINVAL);
	assert_no_secret(err);
	assert_null(strstr(err, "private"));
	r.session_token = NULL;
	h[1].value = "private\x01";
	assert_int_equal(sigv4_sign(&r, &s, err, sizeof(err)), -EINVAL);
	assert_no_secret(err);
	assert_null(strstr(err, "private"));
	h[1].value = "text/plain";
	r.region = "bad region";
	assert_int_equal(sigv4_sign(&r, &s, err, sizeof(err)), -EINVAL);
	assert_no_secret(err);
}

/* Refusals are found before anything is allocated, so the output is
 * zeroed (sign_err checks it byte by byte) and freeing it, once or twice,
 * does nothing; valgrind (make BUILD=... unit under valgrind) sees no
 * leak on any path here. */
static void test_free_is_harmless(void **state)
{
	struct sigv4_request r = example_request("GET", "/k", NULL, SIGV4_EMPTY_SHA256);
	struct sigv4_signed s;

	sigv4_signed__free(NULL);
	sign_ok(&r, &s);
	sigv4_signed__free(&s);
	sigv4_signed__free(&s);
	assert_null(s.headers);
	assert_int_equal(s.nheaders, 0);
}

static void test_value_and_meta_checks(void **state)
{
	assert_true(sigv4_header_value_ok("text/plain; charset=utf-8"));
	assert_true(sigv4_header_value_ok(" a\tb "));
	assert_false(sigv4_header_value_ok(NULL));
	assert_false(sigv4_header_value_ok(""));
	assert_false(sigv4_header_value_ok(" \t"));
	assert_false(sigv4_header_value_ok("a\r\nb"));
	assert_false(sigv4_header_value_ok("caf\xc3\xa9"));

	assert_true(sigv4_meta_key_ok("host"));
	assert_true(sigv4_meta_key_ok("rule-name-2"));
	assert_false(sigv4_meta_key_ok(NULL));
	assert_false(sigv4_meta_key_ok(""));
	assert_false(sigv4_meta_key_ok("Host"));
	assert_false(sigv4_meta_key_ok("rule_name"));
	assert_false(sigv4_meta_key_ok("a b"));
	assert_false(sigv4_meta_key_ok("a:b"));
	{
		char k[SIGV4_META_KEY_MAX + 2];

		memset(k, 'k', sizeof(k));
		k[SIGV4_META_KEY_MAX] = '\0';
		assert_true(sigv4_meta_key_ok(k));
		k[SIGV4_META_KEY_MAX] = 'k';
		k[SIGV4_META_KEY_MAX + 1] = '\0';
		assert_false(sigv4_meta_key_ok(k));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aws_get_object),
		cmocka_unit_test(test_aws_put_object),
		cmocka_unit_test(test_aws_get_bucket_lifecycle),
		cmocka_unit_test(test_aws_list_objects),
		cmocka_unit_test(test_curl_vectors),
		cmocka_unit_test(test_curl_long_secrets),
		cmocka_unit_test(test_path_encoding),
		cmocka_unit_test(test_query_canonical),
		cmocka_unit_test(test_query_refused),
		cmocka_unit_test(test_header_trim_collapse),
		cmocka_unit_test(test_session_token),
		cmocka_unit_test(test_unsigned_payload_and_dates),
		cmocka_unit_test(test_bad_headers_refused),
		cmocka_unit_test(test_bad_requests_refused),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_secret_appears_nowhere),
		cmocka_unit_test(test_free_is_harmless),
		cmocka_unit_test(test_value_and_meta_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
