// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sigv4.c - AWS Signature Version 4 for S3 (sigv4.h): check the request,
 * put its headers and query in canonical order without allocating, then
 * build the canonical request, the string to sign, the signature and the
 * headers to send. */
#include "upload/sigv4.h"
#include "upload/sha256.h"
#include "upload/scrub.h"
#include "upload/uri.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALGORITHM "AWS4-HMAC-SHA256"
#define TERMINATOR "aws4_request"
#define TOKEN_HEADER "x-amz-security-token"
#define REDACTED "<redacted>"
#define NFIXED 4    /* host, x-amz-content-sha256, x-amz-date, x-amz-security-token */
#define SHOW_MAX 64 /* bytes of a caller's name quoted in a message */

/* A header to sign: the caller's name (any case) and value (untrimmed). */
struct hdr {
	const char *name;
	const char *value;
};

/* A query parameter: spans of the caller's query string. */
struct param {
	const char *name, *value;
	size_t nlen, vlen;
};

/* Everything checked and put in order before anything is allocated. */
struct plan {
	struct hdr h[SIGV4_MAX_HEADERS + NFIXED];
	size_t nh;
	struct param q[SIGV4_MAX_PARAMS];
	size_t nq;
	char date[17]; /* 20130524T000000Z */
};

/* A growing string with a hard cap of SIGV4_MAX_STRING; the first error
 * (-E2BIG or -ENOMEM) sticks and later writes do nothing. */
struct sbuf {
	char *p;
	size_t len, cap;
	int err;
};

/* Headers sigv4_sign sets itself, so a caller may not pass them. */
static const char *const own_headers[] = {
	"authorization", "host", "x-amz-content-sha256", "x-amz-date", TOKEN_HEADER, NULL,
};

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errlen, int code,
						      const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* --- bytes ------------------------------------------------------------ */

static bool is_alnum(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* RFC 9110 tchar: what a header name is made of. */
static bool is_tchar(unsigned char c)
{
	return is_alnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* name_cmp - compare header names as their lowercase forms compare,
 * whatever the locale. */
static int name_cmp(const char *a, const char *b)
{
	while (*a && lower(*a) == lower(*b))
		a++, b++;
	return lower(*a) - lower(*b);
}

static bool printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* enc_char - character @i (0 to 2) of the URI encoding of byte @c. */
static unsigned char enc_char(unsigned char c, size_t i)
{
	static const char hex[] = "0123456789ABCDEF";

	if (uri_unreserved(c))
		return c;
	return i == 0 ? '%' : hex[i == 1 ? c >> 4 : c & 0xf];
}

/* enc_cmp - compare the URI encodings of two byte strings (AWS sorts
 * query parameters by them) without writing them out. */
static int enc_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	size_t ai = 0, aj = 0, bi = 0, bj = 0;

	while (ai < an && bi < bn) {
		unsigned char ca = a[ai], cb = b[bi], x = enc_char(ca, aj), y = enc_char(cb, bj);

		if (x != y)
			return x < y ? -1 : 1;
		if (++aj == (uri_unreserved(ca) ? 1u : 3u))
			ai++, aj = 0;
		if (++bj == (uri_unreserved(cb) ? 1u : 3u))
			bi++, bj = 0;
	}
	return (ai < an) - (bi < bn);
}

/* value_problem - 0 if @v can be signed as a header value, else what is
 * wrong: -1 blank, or the first byte that cannot be sent (CR, LF, other
 * controls, non-ASCII). */
static int value_problem(const char *v)
{
	bool blank = true;

	for (; *v; v++) {
		unsigned char c = *v;

		if (c != '\t' && (c < 0x20 || c >= 0x7f))
			return c;
		if (!is_blank(c))
			blank = false;
	}
	return blank ? -1 : 0;
}

bool sigv4_header_value_ok(const char *value)
{
	return value && value_problem(value) == 0;
}

bool sigv4_meta_key_ok(const char *key)
{
	size_t n = 0;

	if (!key)
		return false;
	for (; key[n]; n++)
		if (!((key[n] >= 'a' && key[n] <= 'z') || (key[n] >= '0' && key[n] <= '9') ||
		      key[n] == '-'))
			return false;
	return n > 0 && n <= SIGV4_META_KEY_MAX;
}

/* --- checks (no allocation) ------------------------------------------- */

/* check_value - @v as the value of header @name; the value itself is never
 * quoted, as it may be a credential. */
static int check_value(const char *name, const char *v, char *err, size_t errlen)
{
	int c = v ? value_problem(v) : -1;

	if (c == '\r' || c == '\n')
		return fail(err, errlen, -EINVAL, "header %s: value contains CR or LF", name);
	if (c > 0)
		return fail(
			err, errlen, -EINVAL,
			"header %s: value has byte 0x%02x; only printable ASCII, spaces and tabs can be signed",
			name, c);
	if (c < 0)
		return fail(err, errlen, -EINVAL, "header %s: value is empty", name);
	return 0;
}

/* check_name - extra header @i's @name is an HTTP token we do not set. */
static int check_name(size_t i, const char *name, char *err, size_t errlen)
{
	size_t n;

	if (!name || !*name)
		return fail(err, errlen, -EINVAL, "header #%zu has no name", i);
	for (n = 0; name[n]; n++)
		if (!is_tchar(name[n]))
			return fail(
				err, errlen, -EINVAL,
				"header #%zu (\"%.*s\"...): byte 0x%02x is not allowed in a header name",
				i, (int)(n < SHOW_MAX ? n : SHOW_MAX), name,
				(unsigned char)name[n]);
	for (n = 0; own_headers[n]; n++)
		if (!name_cmp(name, own_headers[n]))
			return fail(err, errlen, -EINVAL, "header %s is set by sigv4_sign itself",
				    own_headers[n]);
	return 0;
}

/* check_scope - @s can be a part of the credential scope "AKID/date/
 * region/service/aws4_request", which servers split at '/' and ','. */
static int check_scope(const char *what, const char *s, char *err, size_t errlen)
{
	if (!s || !*s)
		return fail(err, errlen, -EINVAL, "%s is empty", what);
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || *s == '/' || *s == ',')
			return fail(err, errlen, -EINVAL,
				    "%s has byte 0x%02x, not allowed in a credential scope", what,
				    (unsigned char)*s);
	return 0;
}

static int check_payload(const char *h, char *err, size_t errlen)
{
	size_t n = 0;

	if (h && !strcmp(h, SIGV4_UNSIGNED_PAYLOAD))
		return 0;
	for (; h && ((h[n] >= '0' && h[n] <= '9') || (h[n] >= 'a' && h[n] <= 'f')); n++)
		;
	if (!h || n != SHA256_HEX_LEN || h[n])
		return fail(
			err, errlen, -EINVAL,
			"payload_sha256 must be 64 lowercase hex digits or " SIGV4_UNSIGNED_PAYLOAD);
	return 0;
}

static int check_host(const char *host, char *err, size_t errlen)
{
	int ret = check_value("host", host, err, errlen);

	if (ret)
		return ret;
	if (strpbrk(host, " \t/"))
		return fail(err, errlen, -EINVAL, "host has a space, tab or '/'");
	return 0;
}

static int check_method(const char *m, char *err, size_t errlen)
{
	const char *p = m;

	for (; p && is_tchar(*p); p++)
		;
	if (!m || !*m || *p)
		return fail(err, errlen, -EINVAL, "method is not an HTTP token");
	return 0;
}

static int amz_date(time_t now, char date[17], char *err, size_t errlen)
{
	struct tm tm;

	if (now < 0 || !gmtime_r(&now, &tm) || tm.tm_year + 1900 > 9999 ||
	    strftime(date, 17, "%Y%m%dT%H%M%SZ", &tm) != 16)
		return fail(err, errlen, -EINVAL, "now (%lld) is not a time that can be signed",
			    (long long)now);
	return 0;
}

static int param_cmp(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	int c = enc_cmp(x->name, x->nlen, y->name, y->nlen);

	return c ? c : enc_cmp(x->value, x->vlen, y->value, y->vlen);
}

/* plan_query - split @q into parameters and sort them by encoded name. */
static int plan_query(const char *q, struct plan *pl, char *err, size_t errlen)
{
	const char *end, *eq;
	size_t i;

	for (pl->nq = 0; q && *q; q = *end ? end + 1 : end) {
		struct param *x;

		end = strchrnul(q, '&');
		if (end == q)
			continue;
		if (pl->nq == SIGV4_MAX_PARAMS)
			return fail(err, errlen, -EINVAL, "query has more than %d parameters",
				    SIGV4_MAX_PARAMS);
		x = &pl->q[pl->nq];
		eq = memchr(q, '=', end - q);
		x->name = q;
		x->nlen = eq ? (size_t)(eq - q) : (size_t)(end - q);
		x->value = eq ? eq + 1 : end;
		x->vlen = eq ? (size_t)(end - eq - 1) : 0;
		if (!x->nlen)
			return fail(err, errlen, -EINVAL, "query: a parameter has no name");
		pl->nq++;
	}
	qsort(pl->q, pl->nq, sizeof(pl->q[0]), param_cmp);
	for (i = 1; i < pl->nq; i++) {
		const struct param *a = &pl->q[i - 1], *b = &pl->q[i];

		if (enc_cmp(a->name, a->nlen, b->name, b->nlen))
			continue;
		if (!printable(b->name, b->nlen))
			return fail(err, errlen, -EINVAL, "query: a parameter name is given twice");
		return fail(err, errlen, -EINVAL, "query: parameter %.*s is given twice",
			    (int)(b->nlen < SHOW_MAX ? b->nlen : SHOW_MAX), b->name);
	}
	return 0;
}

static int hdr_cmp(const void *a, const void *b)
{
	return name_cmp(((const struct hdr *)a)->name, ((const struct hdr *)b)->name);
}

/* plan_headers - every header to sign, checked and sorted by name. */
static int plan_headers(const struct sigv4_request *r, struct plan *pl, char *err, size_t errlen)
{
	size_t i;
	int ret;

	if (r->nheaders > SIGV4_MAX_HEADERS)
		return fail(err, errlen, -EINVAL, "more than %d extra headers", SIGV4_MAX_HEADERS);
	if (r->nheaders && !r->headers)
		return fail(err, errlen, -EINVAL, "nheaders is %zu but headers is NULL",
			    r->nheaders);
	pl->nh = 0;
	pl->h[pl->nh++] = (struct hdr){ "host", r->host };
	pl->h[pl->nh++] = (struct hdr){ "x-amz-content-sha256", r->payload_sha256 };
	pl->h[pl->nh++] = (struct hdr){ "x-amz-date", pl->date };
	if (r->session_token && *r->session_token)
		pl->h[pl->nh++] = (struct hdr){ TOKEN_HEADER, r->session_token };
	for (i = 0; i < r->nheaders; i++) {
		const struct sigv4_header *h = &r->headers[i];

		ret = check_name(i, h->name, err, errlen);
		if (!ret)
			ret = check_value(h->name, h->value, err, errlen);
		if (ret)
			return ret;
		pl->h[pl->nh++] = (struct hdr){ h->name, h->value };
	}
	qsort(pl->h, pl->nh, sizeof(pl->h[0]), hdr_cmp);
	for (i = 1; i < pl->nh; i++)
		if (!name_cmp(pl->h[i - 1].name, pl->h[i].name))
			return fail(err, errlen, -EINVAL, "header %s is given twice",
				    pl->h[i].name);
	return 0;
}

/* check_request - everything sigv4_sign needs, checked; @pl filled. */
static int check_request(const struct sigv4_request *r, struct plan *pl, char *err, size_t errlen)
{
	int ret;

	if ((ret = check_method(r->method, err, errlen)) ||
	    (ret = check_host(r->host, err, errlen)) ||
	    (ret = check_payload(r->payload_sha256, err, errlen)) ||
	    (ret = check_scope("region", r->region, err, errlen)) ||
	    (ret = check_scope("service", r->service, err, errlen)) ||
	    (ret = check_scope("access_key_id", r->access_key_id, err, errlen)))
		return ret;
	if (!r->path || r->path[0] != '/')
		return fail(err, errlen, -EINVAL, "path must start with '/'");
	if (!r->secret_key || !*r->secret_key)
		return fail(err, errlen, -EINVAL, "secret_key is empty");
	if (r->session_token && *r->session_token &&
	    (ret = check_value(TOKEN_HEADER, r->session_token, err, errlen)))
		return ret;
	if ((ret = amz_date(r->now, pl->date, err, errlen)) ||
	    (ret = plan_query(r->query, pl, err, errlen)))
		return ret;
	return plan_headers(r, pl, err, errlen);
}

/* --- building --------------------------------------------------------- */

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (b->err)
		return;
	if (n >= SIGV4_MAX_STRING - b->len) {
		b->err = -E2BIG;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		for (cap = b->cap ? b->cap : 256; cap < b->len + n + 1; cap *= 2)
			;
		/* a string may hold a session token: a moved one is wiped */
		p = scrub_realloc(b->p, cap < SIGV4_MAX_STRING ? cap : SIGV4_MAX_STRING);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap < SIGV4_MAX_STRING ? cap : SIGV4_MAX_STRING;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void sb_putc(struct sbuf *b, char c)
{
	sb_putn(b, &c, 1);
}

/* sb_put_encoded - S3's UriEncode(): '/' kept only with @keep_slash. */
static void sb_put_encoded(struct sbuf *b, const char *s, size_t n, bool keep_slash)
{
	char e[3];
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (uri_unreserved(c) || (keep_slash && c == '/')) {
			sb_putc(b, c);
			continue;
		}
		e[0] = enc_char(c, 0), e[1] = enc_char(c, 1), e[2] = enc_char(c, 2);
		sb_putn(b, e, 3);
	}
}

static void sb_put_lower(struct sbuf *b, const char *s)
{
	for (; *s; s++)
		sb_putc(b, lower(*s));
}

/* sb_put_value - @v trimmed, each inner run of spaces and tabs one space. */
static void sb_put_value(struct sbuf *b, const char *v)
{
	bool gap = false;

	for (; is_blank(*v); v++)
		;
	for (; *v; v++) {
		if (is_blank(*v)) {
			gap = true;
			continue;
		}
		if (gap)
			sb_putc(b, ' ');
		gap = false;
		sb_putc(b, *v);
	}
}

/* sb_take - hand the string over to *@dst ("" if nothing was written);
 * on a sticky error free it instead. Returns 0 or the error. */
static int sb_take(struct sbuf *b, char **dst)
{
	int ret;

	sb_putn(b, "", 0);
	ret = b->err;
	if (ret)
		scrub_free(b->p);
	else
		*dst = b->p;
	memset(b, 0, sizeof(*b));
	return ret;
}

static void put_query(struct sbuf *b, const struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nq; i++) {
		if (i)
			sb_putc(b, '&');
		sb_put_encoded(b, pl->q[i].name, pl->q[i].nlen, false);
		sb_putc(b, '=');
		sb_put_encoded(b, pl->q[i].value, pl->q[i].vlen, false);
	}
}

static void put_signed_headers(struct sbuf *b, const struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nh; i++) {
		if (i)
			sb_putc(b, ';');
		sb_put_lower(b, pl->h[i].name);
	}
}

/* put_canonical_request - AWS's CanonicalRequest; with @redact the
 * session token's value is written as REDACTED. */
static void put_canonical_request(struct sbuf *b, const struct sigv4_request *r,
				  const struct plan *pl, const struct sigv4_signed *out,
				  bool redact)
{
	size_t i;

	sb_puts(b, r->method);
	sb_putc(b, '\n');
	sb_puts(b, out->encoded_path);
	sb_putc(b, '\n');
	sb_puts(b, out->encoded_query);
	sb_putc(b, '\n');
	for (i = 0; i < pl->nh; i++) {
		sb_put_lower(b, pl->h[i].name);
		sb_putc(b, ':');
		if (redact && !name_cmp(pl->h[i].name, TOKEN_HEADER))
			sb_puts(b, REDACTED);
		else
			sb_put_value(b, pl->h[i].value);
		sb_putc(b, '\n');
	}
	sb_putc(b, '\n');
	put_signed_headers(b, pl);
	sb_putc(b, '\n');
	sb_puts(b, r->payload_sha256);
}

static void put_scope(struct sbuf *b, const struct sigv4_request *r, const char *date)
{
	sb_putn(b, date, 8);
	sb_putc(b, '/');
	sb_puts(b, r->region);
	sb_putc(b, '/');
	sb_puts(b, r->service);
	sb_puts(b, "/" TERMINATOR);
}

/* sign - the signature of @sts: HMAC chained from "AWS4" + secret through
 * the date, region, service and terminator. Key material is wiped. */
static void sign(const struct sigv4_request *r, const char *date, const char *sts,
		 char hex[SHA256_HEX_LEN + 1])
{
	uint8_t k[SHA256_BLOCK_LEN], a[SHA256_DIGEST_LEN], b[SHA256_DIGEST_LEN];
	size_t slen = strlen(r->secret_key), klen;
	struct sha256_ctx c;

	if (4 + slen > SHA256_BLOCK_LEN) {
		/* HMAC hashes a key longer than a block: do it here, with no copy */
		sha256_init(&c);
		sha256_update(&c, "AWS4", 4);
		sha256_update(&c, r->secret_key, slen);
		sha256_final(&c, k);
		explicit_bzero(&c, sizeof(c));
		klen = SHA256_DIGEST_LEN;
	} else {
		memcpy(k, "AWS4", 4);
		memcpy(k + 4, r->secret_key, slen);
		klen = 4 + slen;
	}
	hmac_sha256(k, klen, date, 8, a);
	hmac_sha256(a, sizeof(a), r->region, strlen(r->region), b);
	hmac_sha256(b, sizeof(b), r->service, strlen(r->service), a);
	hmac_sha256(a, sizeof(a), TERMINATOR, strlen(TERMINATOR), b);
	hmac_sha256(b, sizeof(b), sts, strlen(sts), a);
	hex_lower(a, sizeof(a), hex);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(a, sizeof(a));
	explicit_bzero(b, sizeof(b));
}

/* build_strings - encoded path and query, canonical request, string to
 * sign, signature and authorization into @out. */
static int build_strings(const struct sigv4_request *r, const struct plan *pl,
			 struct sigv4_signed *out, const char **what)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[SHA256_HEX_LEN + 1];
	struct sbuf b = { 0 };
	char *real = NULL;
	int ret;

	*what = "encoded path";
	sb_put_encoded(&b, r->path, strlen(r->path), true);
	if ((ret = sb_take(&b, &out->encoded_path)))
		return ret;
	*what = "encoded query";
	put_query(&b, pl);
	if ((ret = sb_take(&b, &out->encoded_query)))
		return ret;
	*what = "canonical request";
	put_canonical_request(&b, r, pl, out, false);
	if ((ret = sb_take(&b, &real)))
		return ret;
	sha256(real, strlen(real), d);
	scrub_free(real); /* the session token, unredacted */
	hex_lower(d, sizeof(d), hex);
	put_canonical_request(&b, r, pl, out, true);
	if ((ret = sb_take(&b, &out->canonical_request)))
		return ret;
	*what = "string to sign";
	sb_puts(&b, ALGORITHM "\n");
	sb_puts(&b, pl->date);
	sb_putc(&b, '\n');
	put_scope(&b, r, pl->date);
	sb_putc(&b, '\n');
	sb_puts(&b, hex);
	if ((ret = sb_take(&b, &out->string_to_sign)))
		return ret;
	sign(r, pl->date, out->string_to_sign, out->signature);
	*what = "authorization";
	sb_puts(&b, ALGORITHM " Credential=");
	sb_puts(&b, r->access_key_id);
	sb_putc(&b, '/');
	put_scope(&b, r, pl->date);
	sb_puts(&b, ", SignedHeaders=");
	put_signed_headers(&b, pl);
	sb_puts(&b, ", Signature=");
	sb_puts(&b, out->signature);
	return sb_take(&b, &out->authorization);
}

/* build_headers - the "name: value" lines to send, in signed order, then
 * authorization. */
static int build_headers(const struct plan *pl, struct sigv4_signed *out, const char **what)
{
	struct sbuf b = { 0 };
	size_t i;
	int ret;

	*what = "header lines";
	out->headers = calloc(pl->nh + 2, sizeof(*out->headers));
	if (!out->headers)
		return -ENOMEM;
	for (i = 0; i < pl->nh; i++) {
		sb_put_lower(&b, pl->h[i].name);
		sb_puts(&b, ": ");
		sb_put_value(&b, pl->h[i].value);
		if ((ret = sb_take(&b, &out->headers[i])))
			return ret;
		out->nheaders++;
	}
	sb_puts(&b, "authorization: ");
	sb_puts(&b, out->authorization);
	if ((ret = sb_take(&b, &out->headers[i])))
		return ret;
	out->nheaders++;
	return 0;
}

int sigv4_sign(const struct sigv4_request *req, struct sigv4_signed *out, char *err, size_t errlen)
{
	const char *what = "";
	struct plan pl;
	int ret;

	if (!out)
		return fail(err, errlen, -EINVAL, "no output");
	memset(out, 0, sizeof(*out));
	if (!req)
		return fail(err, errlen, -EINVAL, "no request");
	ret = check_request(req, &pl, err, errlen);
	if (ret)
		return ret;
	memcpy(out->amz_date, pl.date, sizeof(out->amz_date));
	ret = build_strings(req, &pl, out, &what);
	if (!ret)
		ret = build_headers(&pl, out, &what);
	if (!ret)
		return 0;
	sigv4_signed__free(out);
	if (ret == -E2BIG)
		return fail(err, errlen, ret, "%s would be longer than %d bytes", what,
			    SIGV4_MAX_STRING - 1);
	return fail(err, errlen, ret, "out of memory building the %s", what);
}

void sigv4_signed__free(struct sigv4_signed *s)
{
	size_t i;

	if (!s)
		return;
	/* wiped: the headers hold a session token, the authorization the
	 * access key id and a signature still good for minutes */
	scrub_free(s->authorization);
	scrub_free(s->canonical_request);
	scrub_free(s->string_to_sign);
	scrub_free(s->encoded_path);
	scrub_free(s->encoded_query);
	for (i = 0; s->headers && s->headers[i]; i++)
		scrub_free(s->headers[i]);
	free(s->headers);
	explicit_bzero(s, sizeof(*s));
}
