/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* http_request.h - one HTTP request through libcurl for the backends that
 * speak HTTP (http, s3, azblob): the body streamed from a file, timeouts
 * and TLS from struct upload_config, and the answer sorted into
 * confirmed, transient or permanent (backend.h) with a message that
 * names the request but never a secret (the query string, which carries
 * Azure's SAS token, is left out of every message).
 */
#ifndef TRAPD_UPLOAD_HTTP_REQUEST_H
#define TRAPD_UPLOAD_HTTP_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "upload/backend.h"
#include "upload/object.h"

#define HTTP_REQUEST_HEADERS_MAX (UPLOAD_META_MAX + 16)
#define HTTP_RESPONSE_KEEP 4096 /* bytes of an answer's body kept for messages */

struct http_request {
	const char *method; /* "PUT", "POST", "GET", "HEAD" */
	const char *url;
	char *headers[HTTP_REQUEST_HEADERS_MAX]; /* "Name: value", owned (may hold secrets) */
	size_t nheaders;
	int body_fd; /* -1: no body */
	uint64_t body_size;
	/* Downloads (GET): a 2xx answer's body is written to @out_fd, at
	 * most @out_max bytes of it; a longer one fails the request
	 * (UPLOAD_PERMANENT, "larger than"). -1: bodies are kept in struct
	 * http_response only, as far as HTTP_RESPONSE_KEEP. */
	int out_fd;
	uint64_t out_max;
};

/* What came back, for the caller that wants more than the outcome. */
struct http_response {
	long status;
	char body[HTTP_RESPONSE_KEEP + 1]; /* the start of it, NUL-terminated */
	size_t body_len;
	uint64_t body_total; /* bytes written to the request's out_fd */
};

/* http_request__init - @rq for @method on @url, no headers, no body, no
 * download (out_fd -1). */
void http_request__init(struct http_request *rq, const char *method, const char *url);

/* http_request__header - add "@name: @value" (a copy). Returns 0, -E2BIG
 * (HTTP_REQUEST_HEADERS_MAX already) or -ENOMEM. */
int http_request__header(struct http_request *rq, const char *name, const char *value);

/* http_request__line - add a whole "Name: value" @line (a copy). */
int http_request__line(struct http_request *rq, const char *line);

/* http_request__meta - add @n metadata items as @style's headers. */
int http_request__meta(struct http_request *rq, const struct upload_meta *meta, size_t n,
		       enum upload_meta_style style);

/* http_request__release - wipe and free @rq's headers (an Authorization
 * header is a secret; they are scrub.h blocks); @rq is empty again. */
void http_request__release(struct http_request *rq);

/* http_request__send - send @rq with @cfg's timeouts, TLS settings and
 * abort flag; fill @res (and @resp when not NULL). libcurl is set up on
 * the first call (scrub__curl_init: its heap is wiped on free). @resp's
 * body is the server's, raw; @res->msg is safe to show. With an @rq->out_fd,
 * @resp->body holds a 2xx answer's start too, and @resp->body_total
 * counts what went to the fd. Returns 0 when the server answered 2xx
 * (and the fd took the whole body), -EIO otherwise. */
int http_request__send(const struct http_request *rq, const struct upload_config *cfg,
		       struct upload_result *res, struct http_response *resp);

/* http_request__drop_connection - close the connection a request with
 * @cfg->keep_connection kept on this thread, if any (its handle and its
 * memory go). Call it when the thread is done with the store. */
void http_request__drop_connection(void);

/* http_answer_fd - a file in memory (memfd) for an answer to be read
 * whole (a listing): give it as @rq->out_fd. Returns the fd or a negative
 * errno. */
int http_answer_fd(void);

/* http_answer_read - the @len bytes written to @fd (from http_answer_fd)
 * as a new NUL-terminated string in *@out (the caller frees it). Returns
 * 0, -EIO (fewer bytes than @len) or -ENOMEM. */
int http_answer_read(int fd, uint64_t len, char **out);

/* http_classify - the outcome of an answer with HTTP @status (0: none,
 * then @curl_code says why). Exposed for tests. */
enum upload_outcome http_classify(long status, int curl_code);

/* http_answer_detail - ": CODE: MESSAGE" from an S3 or Azure error body
 * (<Code>, <Message>), each cut at the first '<' or line end and made
 * safe to show (safe_text.h: no control bytes, no invalid UTF-8); "" when
 * the body has neither. @body is untrusted (tests/fuzz/fuzz_http_answer.c).
 * Returns @out. */
const char *http_answer_detail(const char *body, char *out, size_t len);

/* http_url_for_message - @url without its query and userinfo. Returns
 * @buf. */
const char *http_url_for_message(const char *url, char *buf, size_t len);

#endif
