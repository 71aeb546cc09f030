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

#include "upload/http_request.h"
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

/* sign - the request for @obj, signed: @s's headers and encoded path. */
static int sign(struct upload_backend *b, const struct upload_object *obj, char *path,
		size_t pathlen, struct sigv4_signed *s, struct upload_result *res)
{
	struct sigv4_header extra[UPLOAD_META_MAX + 1];
	char names[UPLOAD_META_MAX][128], err[256];
	struct sigv4_request rq = {
		.method = "PUT",
		.host = b->host,
		.path = path,
		.headers = extra,
		.payload_sha256 = obj->sha256,
		.region = b->cfg->region,
		.service = "s3",
		.access_key_id = b->access_key_id,
		.secret_key = b->secret_key,
		.session_token = b->session_token,
		.now = time(NULL),
	};
	size_t i;
	int e;

	if (snprintf(path, pathlen, "%s/%s%s", b->base_path, b->cfg->prefix ? b->cfg->prefix : "",
		     obj->key) >= (int)pathlen)
		return -ENAMETOOLONG;
	extra[rq.nheaders++] = (struct sigv4_header){ "content-type", obj->content_type };
	for (i = 0; i < obj->nmeta && i < UPLOAD_META_MAX; i++)
		extra[rq.nheaders++] =
			(struct sigv4_header){ upload_meta__header(obj->meta[i].name,
								   UPLOAD_META_S3, names[i],
								   sizeof(names[i])),
					       obj->meta[i].value };
	e = sigv4_sign(&rq, s, err, sizeof(err));
	if (e)
		snprintf(res->msg, sizeof(res->msg), "%s: cannot sign the request: %s", obj->key,
			 err);
	return e;
}

static int s3_put(struct upload_backend *b, const struct upload_object *obj,
		  struct upload_result *res)
{
	struct sigv4_signed s = { 0 };
	struct http_request rq;
	char path[UPLOAD_KEY_MAX + 1024], *url = NULL;
	size_t i;
	int e;

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	e = sign(b, obj, path, sizeof(path), &s, res);
	if (e)
		goto out;
	if (asprintf(&url, "%s://%s%s%s%s", b->scheme, b->host, s.encoded_path,
		     *s.encoded_query ? "?" : "", s.encoded_query) < 0) {
		url = NULL;
		e = -ENOMEM;
		snprintf(res->msg, sizeof(res->msg), "%s: out of memory", obj->key);
		goto out;
	}
	http_request__init(&rq, "PUT", url);
	rq.body_fd = obj->fd;
	rq.body_size = obj->size;
	for (i = 0; !e && i < s.nheaders; i++)
		e = http_request__line(&rq, s.headers[i]);
	if (!e)
		e = http_request__send(&rq, b->cfg, res, NULL);
	else
		snprintf(res->msg, sizeof(res->msg), "%s: cannot build the request: %s", obj->key,
			 strerror(-e));
	http_request__release(&rq);
out:
	free(url);
	sigv4_signed__free(&s);
	return e ? -EIO : 0;
}

const struct upload_backend_ops upload_backend_s3 = {
	.name = "s3",
	.open = s3_open,
	.put = s3_put,
	.close = s3_close,
};
