// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* http_request.c - one HTTP request through libcurl (http_request.h). */
#include "upload/http_request.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "upload/curl_lib.h"
#include "upload/safe_text.h"
#include "upload/scrub.h"

#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull
#define STALL_BYTES_PER_SEC 1024L

struct body {
	int fd;
	uint64_t size, off;
	int error; /* errno of a failed read: the capture file, not the network */
};

void http_request__init(struct http_request *rq, const char *method, const char *url)
{
	memset(rq, 0, sizeof(*rq));
	rq->method = method;
	rq->url = url;
	rq->body_fd = -1;
	rq->out_fd = -1;
}

int http_request__line(struct http_request *rq, const char *line)
{
	if (rq->nheaders == HTTP_REQUEST_HEADERS_MAX)
		return -E2BIG;
	rq->headers[rq->nheaders] = scrub_strdup(line);
	if (!rq->headers[rq->nheaders])
		return -ENOMEM;
	rq->nheaders++;
	return 0;
}

/* Sized first, not asprintf: glibc grows its buffer through copies it
 * frees unwiped, and @value may be a credential. */
int http_request__header(struct http_request *rq, const char *name, const char *value)
{
	size_t n = strlen(name) + 2 + strlen(value) + 1;
	char *h;

	if (rq->nheaders == HTTP_REQUEST_HEADERS_MAX)
		return -E2BIG;
	h = scrub_malloc(n);
	if (!h)
		return -ENOMEM;
	snprintf(h, n, "%s: %s", name, value);
	rq->headers[rq->nheaders++] = h;
	return 0;
}

int http_request__meta(struct http_request *rq, const struct upload_meta *meta, size_t n,
		       enum upload_meta_style style)
{
	char name[128];
	size_t i;
	int e = 0;

	for (i = 0; !e && i < n; i++)
		e = http_request__header(rq,
					 upload_meta__header(meta[i].name, style, name,
							     sizeof(name)),
					 meta[i].value);
	return e;
}

void http_request__release(struct http_request *rq)
{
	while (rq->nheaders) {
		scrub_free(rq->headers[--rq->nheaders]);
		rq->headers[rq->nheaders] = NULL;
	}
}

/* read_body - curl asks for the next piece of the body: pread, so a
 * rewind (seek_body) needs no state but the offset. */
static size_t read_body(char *buf, size_t size, size_t n, void *ctx)
{
	struct body *b = ctx;
	size_t want = size * n;
	ssize_t got;

	if (b->off >= b->size)
		return 0;
	if (want > b->size - b->off)
		want = (size_t)(b->size - b->off);
	do
		got = pread(b->fd, buf, want, (off_t)b->off);
	while (got < 0 && errno == EINTR);
	if (got <= 0) { /* an error, or the file shrank under us */
		b->error = got < 0 ? errno : EIO;
		return CURL_READFUNC_ABORT;
	}
	b->off += (uint64_t)got;
	return (size_t)got;
}

static int seek_body(void *ctx, curl_off_t offset, int origin)
{
	struct body *b = ctx;

	if (origin != SEEK_SET || offset < 0 || (uint64_t)offset > b->size)
		return CURL_SEEKFUNC_FAIL;
	b->off = (uint64_t)offset;
	return CURL_SEEKFUNC_OK;
}

/* Where an answer's body goes: its start into @resp (for messages), and
 * a 2xx body whole into @fd when the request downloads. */
struct sink {
	struct http_response *resp;
	CURL *curl;
	int fd;
	uint64_t max;
	int error;    /* errno of a failed write to @fd */
	bool too_big; /* the body passed @max */
};

static void keep_start(struct http_response *resp, const char *data, size_t len)
{
	size_t room = HTTP_RESPONSE_KEEP - resp->body_len;

	if (len > room)
		len = room;
	memcpy(resp->body + resp->body_len, data, len);
	resp->body_len += len;
	resp->body[resp->body_len] = '\0';
}

/* write_out - a 2xx body's piece to the download's fd, within its cap. */
static int write_out(struct sink *s, const char *data, size_t len)
{
	ssize_t w;

	if (len > s->max - s->resp->body_total) {
		s->too_big = true;
		return -EFBIG;
	}
	while (len) {
		w = write(s->fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->error = w < 0 ? errno : EIO;
			return -EIO;
		}
		data += w;
		len -= (size_t)w;
		s->resp->body_total += (uint64_t)w;
	}
	return 0;
}

static size_t keep_response(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	long status = 0;

	keep_start(s->resp, data, size * n);
	if (s->fd < 0)
		return size * n; /* the rest is read and dropped */
	curl_lib.easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status >= 300)
		return size * n;
	return write_out(s, data, size * n) ? 0 : size * n; /* 0 stops the transfer */
}

static int check_abort(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	const int *abort_flag = ctx;

	return abort_flag && __atomic_load_n(abort_flag, __ATOMIC_RELAXED) ? 1 : 0;
}

int http_answer_fd(void)
{
	int fd = memfd_create("trapd-answer", MFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int http_answer_read(int fd, uint64_t len, char **out)
{
	char *buf;
	size_t got = 0;
	ssize_t n;

	*out = NULL;
	if (len > SIZE_MAX - 1)
		return -EFBIG;
	buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	while (got < len) {
		n = pread(fd, buf + got, (size_t)len - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return -EIO;
		}
		got += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

enum upload_outcome http_classify(long status, int curl_code)
{
	if (status >= 200 && status < 300)
		return UPLOAD_OK;
	if (status == 408 || status == 429 || status >= 500)
		return UPLOAD_TRANSIENT;
	if (status > 0)
		return UPLOAD_PERMANENT;
	switch (curl_code) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_READ_ERROR: /* the capture file itself */
	case CURLE_FILE_COULDNT_READ_FILE:
	case CURLE_WRITE_ERROR: /* a download's file, or an answer over its cap */
		return UPLOAD_PERMANENT;
	default: /* refused, unresolved, timed out, reset, aborted: try again later */
		return UPLOAD_TRANSIENT;
	}
}

const char *http_url_for_message(const char *url, char *buf, size_t len)
{
	size_t keep = strcspn(url, "?#"), host_len;
	const char *scheme_end = strstr(url, "://"), *host, *at = NULL;

	if (scheme_end && scheme_end < url + keep) {
		host = scheme_end + 3;
		host_len = strcspn(host, "/?#");
		at = memrchr(host, '@', host_len);
	}
	if (!at) {
		snprintf(buf, len, "%.*s", (int)keep, url);
		return buf;
	}
	/* scheme://, then the host and path without "user:password@" */
	snprintf(buf, len, "%.*s%.*s", (int)(host - url), url, (int)(url + keep - (at + 1)),
		 at + 1);
	return buf;
}

/* setup - the options of every request: timeouts, TLS, no signals (we
 * run on the uploader's thread), no redirects (a redirected PUT would
 * need its body again and rarely means what it says). */
static int setup(CURL *c, const struct http_request *rq, const struct upload_config *cfg,
		 struct curl_slist *hdrs, struct body *body, struct sink *sink)
{
	CURLcode e = CURLE_OK;

#define SET(opt, val)                                                                              \
	do {                                                                                       \
		if (e == CURLE_OK)                                                                 \
			e = curl_lib.easy_setopt(c, opt, val);                                     \
	} while (0)
	SET(CURLOPT_URL, rq->url);
	SET(CURLOPT_PATH_AS_IS, 1L); /* the path goes as signed, "/./" and all */
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->connect_timeout_ns / NSEC_PER_MSEC));
	SET(CURLOPT_TIMEOUT_MS, (long)(cfg->timeout_ns / NSEC_PER_MSEC));
	SET(CURLOPT_LOW_SPEED_LIMIT, STALL_BYTES_PER_SEC);
	SET(CURLOPT_LOW_SPEED_TIME, (long)(cfg->stall_timeout_ns / NSEC_PER_SEC));
	SET(CURLOPT_SSL_VERIFYPEER, cfg->tls_verify ? 1L : 0L);
	SET(CURLOPT_SSL_VERIFYHOST, cfg->tls_verify ? 2L : 0L);
	if (cfg->ca_file)
		SET(CURLOPT_CAINFO, cfg->ca_file);
	SET(CURLOPT_HTTPHEADER, hdrs);
	SET(CURLOPT_WRITEFUNCTION, keep_response);
	SET(CURLOPT_WRITEDATA, sink);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, check_abort);
	SET(CURLOPT_XFERINFODATA, (void *)cfg->abort);
	SET(CURLOPT_USERAGENT, "trapd/" TRAPD_VERSION);
	if (!strcmp(rq->method, "HEAD"))
		SET(CURLOPT_NOBODY, 1L);
	else if (strcmp(rq->method, "GET"))
		SET(CURLOPT_CUSTOMREQUEST, rq->method);
	if (rq->body_fd >= 0) {
		SET(CURLOPT_READFUNCTION, read_body);
		SET(CURLOPT_READDATA, body);
		SET(CURLOPT_SEEKFUNCTION, seek_body);
		SET(CURLOPT_SEEKDATA, body);
		if (!strcmp(rq->method, "POST")) {
			SET(CURLOPT_POST, 1L);
			SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_size);
		} else {
			SET(CURLOPT_UPLOAD, 1L);
			SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)rq->body_size);
		}
	}
#undef SET
	return e == CURLE_OK ? 0 : -EINVAL;
}

/* build_headers - @rq's headers, and no "Expect: 100-continue": a store
 * that answers 4xx does so after the body either way, and some proxies
 * stall a second on it. */
static struct curl_slist *build_headers(const struct http_request *rq)
{
	struct curl_slist *l = NULL, *n;
	size_t i;

	for (i = 0; i <= rq->nheaders; i++) {
		n = curl_lib.slist_append(l, i < rq->nheaders ? rq->headers[i] : "Expect:");
		if (!n) {
			curl_lib.slist_free_all(l);
			return NULL;
		}
		l = n;
	}
	return l;
}

/* put_field - ": TEXT" into @out at @used, TEXT made safe; returns the
 * new length. */
static size_t put_field(const char *text, size_t n, char *out, size_t len, size_t used)
{
	if (used + 2 >= len)
		return used;
	memcpy(out + used, ": ", 2);
	used += 2;
	safe_text(text, n, out + used, len - used);
	return used + strlen(out + used);
}

const char *http_answer_detail(const char *body, char *out, size_t len)
{
	const char *code = strstr(body, "<Code>"), *msg = strstr(body, "<Message>");
	size_t used = 0;

	if (!len)
		return out;
	out[0] = '\0';
	if (code)
		used = put_field(code + 6, strcspn(code + 6, "<\r\n"), out, len, used);
	if (msg)
		put_field(msg + 9, strcspn(msg + 9, "<\r\n"), out, len, used);
	return out;
}

/* describe - "PUT URL: " and what happened, into @res->msg. */
static void describe(const struct http_request *rq, CURLcode code, const char *curl_err,
		     const struct http_response *resp, struct upload_result *res)
{
	char url[512], detail[256], why[160];

	http_url_for_message(rq->url, url, sizeof(url));
	if (!res->http_status) {
		/* curl's error text can quote what the server sent */
		safe_text_str(*curl_err ? curl_err : curl_lib.easy_strerror(code), why,
			      sizeof(why));
		snprintf(res->msg, sizeof(res->msg), "%s %.200s: %s", rq->method, url, why);
		return;
	}
	snprintf(res->msg, sizeof(res->msg), "%s %.200s: HTTP %ld%.150s", rq->method, url,
		 res->http_status, http_answer_detail(resp->body, detail, sizeof(detail)));
}

/* The handle of a request with keep_connection, kept for the next one of
 * this thread: libcurl reuses its connection when the host is the same. */
static __thread CURL *kept;

void http_request__drop_connection(void)
{
	if (kept)
		curl_lib.easy_cleanup(kept);
	kept = NULL;
}

/* handle - a fresh handle, or the kept one reset to no options (its
 * connection stays). */
static CURL *handle(const struct upload_config *cfg)
{
	if (!cfg->keep_connection)
		return curl_lib.easy_init();
	if (kept)
		curl_lib.easy_reset(kept);
	else
		kept = curl_lib.easy_init();
	return kept;
}

static void release(CURL *c)
{
	if (c && c != kept)
		curl_lib.easy_cleanup(c);
}

int http_request__send(const struct http_request *rq, const struct upload_config *cfg,
		       struct upload_result *res, struct http_response *resp)
{
	char curl_err[CURL_ERROR_SIZE] = "";
	struct http_response local;
	struct body body = { rq->body_fd, rq->body_size, 0, 0 };
	struct sink sink = { .fd = rq->out_fd, .max = rq->out_max };
	struct curl_slist *hdrs = NULL;
	CURLcode code = CURLE_OUT_OF_MEMORY;
	CURL *c = NULL;

	if (!resp)
		resp = &local;
	memset(res, 0, sizeof(*res));
	if (scrub__curl_init())
		goto out; /* CURLE_OUT_OF_MEMORY: transient, as libcurl's own failures are */
	resp->status = 0;
	resp->body_len = 0;
	resp->body_total = 0;
	resp->body[0] = '\0';
	c = handle(cfg);
	sink.resp = resp;
	sink.curl = c;
	hdrs = build_headers(rq);
	if (!c || !hdrs)
		goto out;
	if (setup(c, rq, cfg, hdrs, &body, &sink)) {
		code = CURLE_BAD_FUNCTION_ARGUMENT;
		goto out;
	}
	curl_lib.easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	code = curl_lib.easy_perform(c);
	if (code == CURLE_OK)
		curl_lib.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->http_status);
out:
	if (body.error) {
		code = CURLE_READ_ERROR;
		snprintf(curl_err, sizeof(curl_err), "reading the file to send: %s",
			 strerror(body.error));
	} else if (code == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(curl_err, sizeof(curl_err), "stopped: the uploader is shutting down");
	} else if (sink.too_big || sink.error) {
		code = CURLE_WRITE_ERROR;
		res->http_status = 0; /* the answer is not the whole story */
		if (sink.too_big)
			snprintf(curl_err, sizeof(curl_err), "the answer is larger than %llu bytes",
				 (unsigned long long)rq->out_max);
		else
			snprintf(curl_err, sizeof(curl_err), "writing the answer: %s",
				 strerror(sink.error));
	}
	resp->status = res->http_status;
	res->outcome = http_classify(res->http_status, code);
	if (res->outcome != UPLOAD_OK)
		describe(rq, code, curl_err, resp, res);
	curl_lib.slist_free_all(hdrs);
	release(c);
	return res->outcome == UPLOAD_OK ? 0 : -EIO;
}
