// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend_http.c - http(s)://HOST/PATH: each object PUT to the base URL
 * followed by its key (a WebDAV-style store: nginx's dav_methods PUT, a
 * bucket behind a presigning proxy), or POSTed to the URL itself for a
 * collector that names objects on its own (method = post; the key is in
 * an X-Trapd-Object header). Metadata travels as X-Trapd-* headers, and
 * an Authorization header can come from a secret (auth_header_file or
 * _env, e.g. "Bearer TOKEN"). */
#include "upload/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upload/http_request.h"
#include "upload/object.h"
#include "upload/secret.h"
#include "upload/uri.h"

struct upload_backend {
	const struct upload_config *cfg;
	char *auth; /* NULL: none */
};

static int http_open(const struct upload_config *cfg, struct upload_backend **out, char *err,
		     size_t errlen)
{
	struct upload_backend *b;
	int e;

	*out = NULL;
	if (!cfg->base || (strncmp(cfg->base, "http://", 7) && strncmp(cfg->base, "https://", 8))) {
		snprintf(err, errlen, "url %s: expected http:// or https://", cfg->url);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->cfg = cfg;
	e = upload_secret__read(&cfg->auth_header, "auth_header", &b->auth, err, errlen);
	if (e && e != -ENOENT) {
		free(b);
		return e;
	}
	*out = b;
	return 0;
}

static int http_put(struct upload_backend *b, const struct upload_object *obj,
		    struct upload_result *res)
{
	const struct upload_config *cfg = b->cfg;
	char url[4096], path[3 * UPLOAD_KEY_MAX + 1];
	struct http_request rq;
	int e;

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	if (cfg->post)
		snprintf(url, sizeof(url), "%s", cfg->url); /* as configured, no '/' added */
	else if (uri_encode(obj->key, true, path, sizeof(path)) ||
		 snprintf(url, sizeof(url), "%s%s", cfg->base, path) >= (int)sizeof(url)) {
		snprintf(res->msg, sizeof(res->msg), "%s: key too long for a URL", obj->key);
		return -EIO;
	}
	http_request__init(&rq, cfg->post ? "POST" : "PUT", url);
	rq.body_fd = obj->fd;
	rq.body_size = obj->size;
	e = http_request__header(&rq, "Content-Type", obj->content_type);
	if (!e && cfg->post)
		e = http_request__header(&rq, "X-Trapd-Object", obj->key);
	if (!e)
		e = http_request__meta(&rq, obj->meta, obj->nmeta, UPLOAD_META_HTTP);
	if (!e && b->auth)
		e = http_request__header(&rq, "Authorization", b->auth);
	if (!e)
		e = http_request__send(&rq, cfg, res, NULL);
	else
		snprintf(res->msg, sizeof(res->msg), "%s: cannot build the request: %s", obj->key,
			 strerror(-e));
	http_request__release(&rq);
	return e ? -EIO : 0;
}

static void http_close(struct upload_backend *b)
{
	if (!b)
		return;
	upload_secret__free(b->auth);
	free(b);
}

const struct upload_backend_ops upload_backend_http = {
	.name = "http",
	.open = http_open,
	.put = http_put,
	.close = http_close,
};
