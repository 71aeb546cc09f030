// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* backend_azblob.c - azblob://ACCOUNT/CONTAINER/PREFIX: Azure Blob
 * Storage, each object a block blob written with one Put Blob request,
 * authorised by a SAS token (sas_token_file or _env; it needs write and
 * create permission on the container). The token goes in the query
 * string, which no message ever shows. Metadata travels as x-ms-meta-*
 * headers, whose names Azure wants to be C identifiers (object.h makes
 * them so). The endpoint defaults to https://ACCOUNT.blob.core.windows.net;
 * an emulator such as Azurite is http://127.0.0.1:10000/ACCOUNT. */
#include "upload/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upload/http_request.h"
#include "upload/listing.h"
#include "upload/object.h"
#include "upload/secret.h"
#include "upload/uri.h"

#define AZBLOB_API_VERSION "2021-08-06"

struct upload_backend {
	const struct upload_config *cfg;
	char endpoint[512]; /* no trailing '/' */
	char *sas;	    /* without a leading '?' */
};

static int azblob_open(const struct upload_config *cfg, struct upload_backend **out, char *err,
		       size_t errlen)
{
	struct upload_backend *b;
	size_t n;
	int e;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->cfg = cfg;
	if (cfg->endpoint)
		snprintf(b->endpoint, sizeof(b->endpoint), "%s", cfg->endpoint);
	else
		snprintf(b->endpoint, sizeof(b->endpoint), "https://%s.blob.core.windows.net",
			 cfg->account);
	n = strlen(b->endpoint);
	while (n && b->endpoint[n - 1] == '/')
		b->endpoint[--n] = '\0';
	e = upload_secret__read(&cfg->sas_token, "sas_token", &b->sas, err, errlen);
	if (e == -ENOENT)
		snprintf(err, errlen, "azblob needs sas_token_file or sas_token_env");
	if (!e && b->sas[0] == '?')
		memmove(b->sas, b->sas + 1, strlen(b->sas));
	if (!e && (!strstr(b->sas, "sig=") || strpbrk(b->sas, " \t\r\n#"))) {
		e = -EINVAL;
		snprintf(err, errlen,
			 "sas_token: not a SAS token (expected a query string with sv=, sp=, "
			 "se= and sig=)");
	}
	if (e) {
		upload_secret__free(b->sas);
		free(b);
		return e == -ENOENT ? -EINVAL : e;
	}
	*out = b;
	return 0;
}

/* blob_url - ENDPOINT/CONTAINER/PREFIXKEY?SAS into @url. */
static int blob_url(const struct upload_backend *b, const char *key, char *url, size_t len)
{
	char name[UPLOAD_KEY_MAX + 256], path[3 * sizeof(name)];

	if (snprintf(name, sizeof(name), "%s%s", b->cfg->prefix ? b->cfg->prefix : "", key) >=
		    (int)sizeof(name) ||
	    uri_encode(name, true, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (snprintf(url, len, "%s/%s/%s?%s", b->endpoint, b->cfg->container, path, b->sas) >=
	    (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int azblob_put(struct upload_backend *b, const struct upload_object *obj,
		      struct upload_result *res)
{
	char url[UPLOAD_SECRET_MAX + 4 * UPLOAD_KEY_MAX + 1024];
	struct http_request rq;
	int e = blob_url(b, obj->key, url, sizeof(url));

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	http_request__init(&rq, "PUT", url);
	rq.body_fd = obj->fd;
	rq.body_size = obj->size;
	if (!e)
		e = http_request__header(&rq, "x-ms-blob-type", "BlockBlob");
	if (!e)
		e = http_request__header(&rq, "x-ms-version", AZBLOB_API_VERSION);
	if (!e)
		e = http_request__header(&rq, "Content-Type", obj->content_type);
	if (!e)
		e = http_request__meta(&rq, obj->meta, obj->nmeta, UPLOAD_META_AZBLOB);
	if (!e)
		e = http_request__send(&rq, b->cfg, res, NULL);
	else
		snprintf(res->msg, sizeof(res->msg), "%s: cannot build the request: %s", obj->key,
			 strerror(-e));
	http_request__release(&rq);
	explicit_bzero(url, sizeof(url));
	return e ? -EIO : 0;
}

static int azblob_get(struct upload_backend *b, const char *key, int fd, uint64_t max,
		      struct upload_result *res)
{
	char url[UPLOAD_SECRET_MAX + 4 * UPLOAD_KEY_MAX + 1024];
	struct http_request rq;
	int e = blob_url(b, key, url, sizeof(url));

	memset(res, 0, sizeof(*res));
	res->outcome = UPLOAD_PERMANENT;
	http_request__init(&rq, "GET", url);
	rq.out_fd = fd;
	rq.out_max = max;
	if (!e)
		e = http_request__header(&rq, "x-ms-version", AZBLOB_API_VERSION);
	if (!e)
		e = http_request__send(&rq, b->cfg, res, NULL);
	else
		snprintf(res->msg, sizeof(res->msg), "%s: cannot build the request: %s", key,
			 strerror(-e));
	http_request__release(&rq);
	explicit_bzero(url, sizeof(url));
	return e ? -EIO : 0;
}

/* add_param - "&NAME=VALUE", the value URI-encoded, at @url's end. */
static int add_param(char *url, size_t len, const char *name, const char *value)
{
	char enc[3 * (UPLOAD_KEY_MAX + UPLOAD_LIST_TOKEN_MAX)];
	size_t n = strlen(url);

	if (uri_encode(value, true, enc, sizeof(enc)))
		return -ENAMETOOLONG;
	if (snprintf(url + n, len - n, "&%s=%s", name, enc) >= (int)(len - n))
		return -ENAMETOOLONG;
	return 0;
}

/* list_url - List Blobs of the container for @q, with the SAS. */
static int list_url(const struct upload_backend *b, const struct upload_list_query *q, char *url,
		    size_t len)
{
	char prefix[UPLOAD_KEY_MAX + 256], num[16];
	int e = 0;

	if (snprintf(prefix, sizeof(prefix), "%s%s", b->cfg->prefix ? b->cfg->prefix : "",
		     q->prefix) >= (int)sizeof(prefix) ||
	    snprintf(url, len, "%s/%s?restype=container&comp=list&%s", b->endpoint,
		     b->cfg->container, b->sas) >= (int)len)
		return -ENAMETOOLONG;
	if (*prefix)
		e = add_param(url, len, "prefix", prefix);
	if (!e && q->delimit)
		e = add_param(url, len, "delimiter", "/");
	if (!e && q->metadata)
		e = add_param(url, len, "include", "metadata");
	snprintf(num, sizeof(num), "%u", q->page_size);
	if (!e && q->page_size)
		e = add_param(url, len, "maxresults", num);
	if (!e && q->token)
		e = add_param(url, len, "marker", q->token);
	return e;
}

static int azblob_list(struct upload_backend *b, const struct upload_list_query *q,
		       struct upload_page *page, struct upload_result *res)
{
	char url[UPLOAD_SECRET_MAX + 3 * (2 * UPLOAD_KEY_MAX + UPLOAD_LIST_TOKEN_MAX) + 1024];
	char err[256], *xml = NULL;
	struct http_response resp;
	struct http_request rq;
	int fd, e = list_url(b, q, url, sizeof(url));

	memset(res, 0, sizeof(*res));
	memset(page, 0, sizeof(*page));
	res->outcome = UPLOAD_PERMANENT;
	if (e) {
		snprintf(res->msg, sizeof(res->msg), "listing %.200s: prefix or marker too long",
			 q->prefix);
		return -EIO;
	}
	fd = http_answer_fd();
	if (fd < 0) {
		snprintf(res->msg, sizeof(res->msg), "listing: no temporary file: %s",
			 strerror(-fd));
		return -EIO;
	}
	http_request__init(&rq, "GET", url);
	rq.out_fd = fd;
	rq.out_max = UPLOAD_LIST_BODY_MAX;
	e = http_request__header(&rq, "x-ms-version", AZBLOB_API_VERSION);
	if (!e)
		e = http_request__send(&rq, b->cfg, res, &resp);
	else
		snprintf(res->msg, sizeof(res->msg), "listing: cannot build the request");
	http_request__release(&rq);
	explicit_bzero(url, sizeof(url));
	if (!e && (e = http_answer_read(fd, resp.body_total, &xml)))
		snprintf(res->msg, sizeof(res->msg), "listing: reading the answer: %s",
			 strerror(-e));
	if (!e && (e = upload_list_parse_azblob(xml, resp.body_total,
						b->cfg->prefix ? b->cfg->prefix : "", page, err,
						sizeof(err)))) {
		res->outcome = UPLOAD_PERMANENT;
		snprintf(res->msg, sizeof(res->msg), "listing container %s: %s", b->cfg->container,
			 err);
	}
	free(xml);
	close(fd);
	return e ? -EIO : 0;
}

static void azblob_close(struct upload_backend *b)
{
	if (!b)
		return;
	upload_secret__free(b->sas);
	free(b);
}

const struct upload_backend_ops upload_backend_azblob = {
	.name = "azblob",
	.open = azblob_open,
	.put = azblob_put,
	.list = azblob_list,
	.get = azblob_get,
	.close = azblob_close,
};
