// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend_s3.c - s3://BUCKET/PREFIX: Amazon S3 and the stores that speak
 * its API (MinIO, Ceph RGW, OpenStack Swift's s3api), each object one
 * PUT Object request signed with AWS Signature Version 4 (sigv4.h) over
 * the whole payload: the SHA-256 of the file goes in x-amz-content-sha256
 * and into the signature, so the store refuses a body altered on the way.
 * Metadata travels as x-amz-meta-* headers, signed too.
 *
 * Without an endpoint the object goes to https://BUCKET.s3.REGION.amazonaws.com/KEY
 * (virtual-hosted style); with one, to ENDPOINT/BUCKET/KEY (path style,
 * which every compatible store understands) unless path_style = false.
 */
#include "upload/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "upload/http_request.h"
#include "upload/listing.h"
#include "upload/object.h"
#include "upload/secret.h"
#include "upload/sigv4.h"

struct upload_backend {
	const struct upload_config *cfg;
	char scheme[8];	     /* "http" or "https" */
	char host[256];	     /* as sent in Host: "127.0.0.1:8080" */
	char base_path[512]; /* "" or "/BUCKET", or the endpoint's path before it */
	char *access_key_id, *secret_key, *session_token;
};

/* split_endpoint - "https://host[:port][/path]" into @b's scheme, host
 * and base path. */
static int split_endpoint(struct upload_backend *b, const char *url, char *err, size_t errlen)
{
	const char *rest;
	size_t hl;

	if (!strncmp(url, "https://", 8))
		snprintf(b->scheme, sizeof(b->scheme), "https");
	else if (!strncmp(url, "http://", 7))
		snprintf(b->scheme, sizeof(b->scheme), "http");
	else
		goto bad;
	rest = url + strlen(b->scheme) + 3;
	hl = strcspn(rest, "/?#");
	if (!hl || hl >= sizeof(b->host) || strchr(rest + hl, '?') || strchr(rest + hl, '#'))
		goto bad;
	snprintf(b->host, sizeof(b->host), "%.*s", (int)hl, rest);
	snprintf(b->base_path, sizeof(b->base_path), "%s", rest + hl);
	hl = strlen(b->base_path);
	while (hl && b->base_path[hl - 1] == '/')
		b->base_path[--hl] = '\0';
	return 0;
bad:
	snprintf(err, errlen, "endpoint %s: expected http(s)://HOST[:PORT][/PATH]", url);
	return -EINVAL;
}

static int read_secrets(struct upload_backend *b, char *err, size_t errlen)
{
	const struct upload_config *cfg = b->cfg;
	int e;

	e = upload_secret__read(&cfg->access_key_id, "access_key_id", &b->access_key_id, err,
				errlen);
	if (!e)
		e = upload_secret__read(&cfg->secret_key, "secret_access_key", &b->secret_key, err,
					errlen);
	if (e == -ENOENT) {
		snprintf(err, errlen,
			 "s3 needs access_key_id_file or _env, and secret_access_key_file or "
			 "_env");
		return -EINVAL;
	}
	if (!e) {
		e = upload_secret__read(&cfg->session_token, "session_token", &b->session_token,
					err, errlen);
		if (e == -ENOENT)
			e = 0;
	}
	return e;
}

static void s3_close(struct upload_backend *b)
{
	if (!b)
		return;
	upload_secret__free(b->access_key_id);
	upload_secret__free(b->secret_key);
	upload_secret__free(b->session_token);
	free(b);
}

static int s3_open(const struct upload_config *cfg, struct upload_backend **out, char *err,
		   size_t errlen)
{
	struct upload_backend *b;
	char url[512];
	bool path_style = cfg->endpoint ? cfg->path_style : false;
	int e;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->cfg = cfg;
	if (cfg->endpoint)
		snprintf(url, sizeof(url), "%s", cfg->endpoint);
	else
		snprintf(url, sizeof(url), "https://s3.%s.amazonaws.com", cfg->region);
	e = split_endpoint(b, url, err, errlen);
	if (!e && !path_style) { /* BUCKET.host */
		char host[sizeof(b->host)];

		if (snprintf(host, sizeof(host), "%s.%s", cfg->bucket, b->host) >=
		    (int)sizeof(host))
			e = -ENAMETOOLONG;
		memcpy(b->host, host, sizeof(host));
	} else if (!e) {
		size_t n = strlen(b->base_path);

		snprintf(b->base_path + n, sizeof(b->base_path) - n, "/%s", cfg->bucket);
	}
	if (!e)
		e = read_secrets(b, err, errlen);
	if (e) {
		s3_close(b);
		return e;
	}
	*out = b;
	return 0;
}

/* One request to the store: what sign() signs and s3_send() sends. */
struct s3_call {
	const char *method;
	const char *key;		 /* under the prefix; NULL: the bucket itself */
	const char *query;		 /* not encoded yet (sigv4.h); NULL: none */
	const char *payload_sha;	 /* of the body; SIGV4_EMPTY_SHA256 without one */
	const struct upload_object *obj; /* a PUT's object (its type and metadata) */
	const char *what;		 /* for messages: the key, or "listing" */
};

/* sign - @call, signed: @s's headers and encoded path. */
static int sign(struct upload_backend *b, const struct s3_call *call, char *path, size_t pathlen,
		struct sigv4_signed *s, struct upload_result *res)
{
	struct sigv4_header extra[UPLOAD_META_MAX + 1];
	char names[UPLOAD_META_MAX][128], err[256];
	const struct upload_object *obj = call->obj;
	struct sigv4_request rq = {
		.method = call->method,
		.host = b->host,
		.path = path,
		.query = call->query,
		.headers = extra,
		.payload_sha256 = call->payload_sha,
		.region = b->cfg->region,
		.service = "s3",
		.access_key_id = b->access_key_id,
		.secret_key = b->secret_key,
		.session_token = b->session_token,
		.now = time(NULL),
	};
	size_t i;
	int e;

	if (!call->key)
		e = snprintf(path, pathlen, "%s", *b->base_path ? b->base_path : "/");
	else
		e = snprintf(path, pathlen, "%s/%s%s", b->base_path,
			     b->cfg->prefix ? b->cfg->prefix : "", call->key);
	if (e >= (int)pathlen)
		return -ENAMETOOLONG;
	if (obj) {
		extra[rq.nheaders++] = (struct sigv4_header){ "content-type", obj->content_type };
		for (i = 0; i < obj->nmeta && i < UPLOAD_META_MAX; i++)
			extra[rq.nheaders++] =
				(struct sigv4_header){ upload_meta__header(obj->meta[i].name,
									   UPLOAD_META_S3, names[i],
									   sizeof(names[i])),
						       obj->meta[i].value };
	}
	e = sigv4_sign(&rq, s, err, sizeof(err));
	if (e)
		snprintf(res->msg, sizeof(res->msg), "%s: cannot sign the request: %s", call->what,
			 err);
	return e;
}

/* s3_send - sign @call and send it as @rq (its body or download already
 * set by the caller, who releases it). */
static int s3_send(struct upload_backend *b, const struct s3_call *call, struct http_request *rq,
		   struct http_response *resp, struct upload_result *res)
{
	struct sigv4_signed s = { 0 };
	char path[UPLOAD_KEY_MAX + 1024], *url = NULL;
	size_t i;
	int e;

	e = sign(b, call, path, sizeof(path), &s, res);
	if (e)
		goto out;
	if (asprintf(&url, "%s://%s%s%s%s", b->scheme, b->host, s.encoded_path,
		     *s.encoded_query ? "?" : "", s.encoded_query) < 0) {
		url = NULL;
		e = -ENOMEM;
		snprintf(res->msg, sizeof(res->msg), "%s: out of memory", call->what);
		goto out;
	}
	rq->method = call->method;
	rq->url = url;
	for (i = 0; !e && i < s.nheaders; i++)
		e = http_request__line(rq, s.headers[i]);
	if (!e)
		e = http_request__send(rq, b->cfg, res, resp);
	else
		snprintf(res->msg, sizeof(res->msg), "%s: cannot build the request: %s", call->what,
			 strerror(-e));
out:
	free(url);
	sigv4_signed__free(&s);
	return e ? -EIO : 0;
}

static int s3_put(struct upload_backend *b, const struct upload_object *obj,
		  struct upload_result *res)
{
	struct s3_call call = { "PUT", obj->key, NULL, obj->sha256, obj, obj->key };
	struct http_request rq;
	int e;

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	http_request__init(&rq, "PUT", NULL);
	rq.body_fd = obj->fd;
	rq.body_size = obj->size;
	e = s3_send(b, &call, &rq, NULL, res);
	http_request__release(&rq);
	return e;
}

static int s3_get(struct upload_backend *b, const char *key, int fd, uint64_t max,
		  struct upload_result *res)
{
	struct s3_call call = { "GET", key, NULL, SIGV4_EMPTY_SHA256, NULL, key };
	struct http_request rq;
	int e;

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	http_request__init(&rq, "GET", NULL);
	rq.out_fd = fd;
	rq.out_max = max;
	e = s3_send(b, &call, &rq, NULL, res);
	http_request__release(&rq);
	return e;
}

/* list_query - ListObjectsV2's query for @q, not encoded yet (sigv4.h
 * encodes it as it signs). A token with '&' cannot be carried in it. */
static int list_query(const struct upload_backend *b, const struct upload_list_query *q, char *out,
		      size_t len)
{
	const char *prefix = b->cfg->prefix ? b->cfg->prefix : "";
	size_t n;

	if (strchr(q->prefix, '&') || strchr(prefix, '&'))
		return -EINVAL; /* sigv4.h splits the query at '&' */
	n = (size_t)snprintf(out, len, "list-type=2&prefix=%s%s", prefix, q->prefix);
	if (q->delimit && n < len)
		n += (size_t)snprintf(out + n, len - n, "&delimiter=/");
	if (q->page_size && n < len)
		n += (size_t)snprintf(out + n, len - n, "&max-keys=%u", q->page_size);
	if (q->token && n < len) {
		if (strchr(q->token, '&'))
			return -EINVAL;
		n += (size_t)snprintf(out + n, len - n, "&continuation-token=%s", q->token);
	}
	return n < len ? 0 : -ENAMETOOLONG;
}

static int s3_list(struct upload_backend *b, const struct upload_list_query *q,
		   struct upload_page *page, struct upload_result *res)
{
	char query[UPLOAD_KEY_MAX + UPLOAD_LIST_TOKEN_MAX + 256], err[256], *xml = NULL;
	struct s3_call call = { "GET", NULL, query, SIGV4_EMPTY_SHA256, NULL, "listing" };
	struct http_response resp;
	struct http_request rq;
	int fd = -1, e;

	memset(res, 0, sizeof(*res));
	memset(page, 0, sizeof(*page));
	res->outcome = UPLOAD_PERMANENT;
	if (list_query(b, q, query, sizeof(query))) {
		snprintf(res->msg, sizeof(res->msg),
			 "listing %.200s: prefix or token too long or "
			 "with '&'",
			 q->prefix);
		return -EIO;
	}
	fd = http_answer_fd();
	if (fd < 0) {
		snprintf(res->msg, sizeof(res->msg), "listing: no temporary file: %s",
			 strerror(-fd));
		return -EIO;
	}
	http_request__init(&rq, "GET", NULL);
	rq.out_fd = fd;
	rq.out_max = UPLOAD_LIST_BODY_MAX;
	e = s3_send(b, &call, &rq, &resp, res);
	http_request__release(&rq);
	if (!e && (e = http_answer_read(fd, resp.body_total, &xml)))
		snprintf(res->msg, sizeof(res->msg), "listing: reading the answer: %s",
			 strerror(-e));
	if (!e &&
	    (e = upload_list_parse_s3(xml, resp.body_total, b->cfg->prefix ? b->cfg->prefix : "",
				      page, err, sizeof(err)))) {
		res->outcome = UPLOAD_PERMANENT;
		snprintf(res->msg, sizeof(res->msg), "listing %.100s: %.250s", b->host, err);
	}
	free(xml);
	close(fd);
	return e ? -EIO : 0;
}

const struct upload_backend_ops upload_backend_s3 = {
	.name = "s3",
	.open = s3_open,
	.put = s3_put,
	.list = s3_list,
	.get = s3_get,
	.close = s3_close,
};
