// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* store.c - a store of captures opened for reading (store.h).
 *
 * A URL becomes a small [upload] section, parsed by rules/ as a rules
 * file's would be: one parser of store settings, one set of checks, one
 * message style, for the uploader and for the readers.
 */
#include "trapd/fleet/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rules/rules.h"
#include "trapd/util/log.h"
#include "trapd/util/store_config.h"
#include "upload/http_request.h"

#define SETTINGS_MAX 4096

bool fleet_store__is_url(const char *s)
{
	return !strncmp(s, "s3://", 5) || !strncmp(s, "azblob://", 9) || !strncmp(s, "file://", 7);
}

/* printable - no byte a line of the generated section could be broken
 * by: the spec and the environment are the user's, but they must not
 * add keys. */
static bool printable(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* insecure_allowed - whether the environment says credentials may go to
 * a plain http:// endpoint: TRAPD_ALLOW_INSECURE_CREDENTIALS=yes, the
 * same opt-in as a rules file's allow_insecure_credentials. No address is
 * trusted without it, the loopback interface included: any local user
 * can bind a port there that the store's server is not holding. */
static bool insecure_allowed(void)
{
	const char *v = getenv("TRAPD_ALLOW_INSECURE_CREDENTIALS");

	return v && (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"));
}

static const char *env_first(const char *a, const char *b, const char *c)
{
	const char *v = a ? getenv(a) : NULL;

	if (!v || !*v)
		v = b ? getenv(b) : NULL;
	if (!v || !*v)
		v = c ? getenv(c) : NULL;
	return v && *v ? v : NULL;
}

/* url_endpoint - @url's endpoint: @endpoint (--endpoint), else the
 * environment's for its kind of store; NULL for the cloud's own. */
static const char *url_endpoint(const char *url, const char *endpoint)
{
	if (endpoint)
		return endpoint;
	if (!strncmp(url, "s3://", 5))
		return env_first("TRAPD_STORE_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
	if (!strncmp(url, "azblob://", 9))
		return env_first("TRAPD_STORE_ENDPOINT", NULL, NULL);
	return NULL;
}

/* check_cleartext - an s3:// or azblob:// URL always carries credentials
 * from the environment: refuse a plain http:// @endpoint for them unless
 * TRAPD_ALLOW_INSECURE_CREDENTIALS says so, in the URL's own words (the
 * rules' message would name a key the user never wrote). */
static int check_cleartext(const char *url, const char *endpoint, char *err, size_t errlen)
{
	if (!endpoint || strncmp(endpoint, "http://", 7) || insecure_allowed())
		return 0;
	snprintf(err, errlen,
		 "%s: endpoint %s is plain http://: the credentials (%s) would go in clear "
		 "text to anyone on the path, or to any local user holding that port; use "
		 "https://, or set TRAPD_ALLOW_INSECURE_CREDENTIALS=yes for an endpoint you trust",
		 url, endpoint,
		 !strncmp(url, "s3://", 5) ? "AWS_SECRET_ACCESS_KEY" : "AZURE_STORAGE_SAS_TOKEN");
	return -EINVAL;
}

/* url_settings - the [upload] section that says what @url, its @endpoint
 * and the environment say, into @out. */
static int url_settings(const char *url, const char *endpoint, char *out, size_t len)
{
	bool s3 = !strncmp(url, "s3://", 5), az = !strncmp(url, "azblob://", 9);
	const char *region = env_first("AWS_REGION", "AWS_DEFAULT_REGION", NULL);
	size_t n;

	if (!printable(url) || !printable(endpoint) || !printable(region))
		return -EINVAL;
	n = (size_t)snprintf(out, len, "[upload]\nurl = %s\n", url);
	if (endpoint && (s3 || az) && n < len)
		n += (size_t)snprintf(out + n, len - n, "endpoint = %s\n%s", endpoint,
				      insecure_allowed() ? "allow_insecure_credentials = yes\n"
							 : "");
	if (s3 && n < len)
		n += (size_t)snprintf(out + n, len - n,
				      "region = %s\naccess_key_id_env = AWS_ACCESS_KEY_ID\n"
				      "secret_access_key_env = AWS_SECRET_ACCESS_KEY\n%s",
				      region ? region : "us-east-1",
				      getenv("AWS_SESSION_TOKEN")
					      ? "session_token_env = AWS_SESSION_TOKEN\n"
					      : "");
	if (az && n < len)
		n += (size_t)snprintf(out + n, len - n,
				      "sas_token_env = AZURE_STORAGE_SAS_TOKEN\n");
	return n < len ? 0 : -ENAMETOOLONG;
}

static int first_error(struct rules_errors *errs, int e, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", errs->n ? errs->msgs[0] : strerror(-e));
	rules_errors__free(errs);
	return e == -EINVAL || e == -ENOENT || e == -EACCES ? e : -EINVAL;
}

static int load_settings(const char *name, const char *text, struct rules **out, char *err,
			 size_t errlen)
{
	struct rules_errors errs = { 0 };
	int e = rules__parse_for(name, text, strlen(text), RULES_FOR_DAEMON, out, &errs);

	if (e)
		return first_error(&errs, e, err, errlen);
	rules_errors__free(&errs);
	return 0;
}

static int load_file(const char *path, struct rules **out, char *err, size_t errlen)
{
	struct rules_errors errs = { 0 };
	int e = rules__load_for(path, RULES_FOR_DAEMON, out, &errs);

	if (e)
		return first_error(&errs, e, err, errlen);
	rules_errors__free(&errs);
	if (!(*out)->upload.line) {
		snprintf(err, errlen, "%s: no [upload] section: it names no store", path);
		rules__free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

static int replace(char **field, const char *value)
{
	char *v = strdup(value ? value : "");

	if (!v)
		return -ENOMEM;
	free(*field);
	*field = v;
	return 0;
}

/* with_config - the URL's bucket or container and prefix, with every
 * other setting from TRAPD_STORE_CONFIG's [upload]. */
static int with_config(const char *config, struct rules *from_url, struct rules **out, char *err,
		       size_t errlen)
{
	struct rules_upload *u = &from_url->upload, *f;
	int e = load_file(config, out, err, errlen);

	if (e)
		return e;
	f = &(*out)->upload;
	if (f->scheme != u->scheme) {
		snprintf(err, errlen, "TRAPD_STORE_CONFIG=%s: its [upload] is not a %s store",
			 config, u->scheme == RULES_UPLOAD_S3 ? "s3" : "azblob");
		return -EINVAL;
	}
	e = replace(&f->url, u->url);
	if (!e)
		e = replace(&f->bucket, u->bucket);
	if (!e)
		e = replace(&f->container, u->container);
	if (!e)
		e = replace(&f->account, u->account);
	if (!e)
		e = replace(&f->prefix, u->prefix);
	return e;
}

/* settings - the rules that name @spec's store into *@out. */
static int settings(const char *spec, const char *endpoint, struct rules **out, char *err,
		    size_t errlen)
{
	const char *config = getenv("TRAPD_STORE_CONFIG");
	char text[SETTINGS_MAX], dir[PATH_MAX + 16];
	struct rules *from_url = NULL;
	struct stat st;
	int e;

	if (!strncmp(spec, "http://", 7) || !strncmp(spec, "https://", 8)) {
		snprintf(
			err, errlen,
			"%s: a web server cannot be listed; give a directory, s3://BUCKET, "
			"azblob://ACCOUNT/CONTAINER (with --endpoint for a store of your own) or a "
			"rules file",
			spec);
		return -EINVAL;
	}
	if (!fleet_store__is_url(spec)) {
		if (stat(spec, &st)) {
			snprintf(err, errlen,
				 "%s: %s (expected a rules file, a directory or a "
				 "store URL)",
				 spec, strerror(errno));
			return -EINVAL;
		}
		if (!S_ISDIR(st.st_mode))
			return load_file(spec, out, err, errlen);
		if (!realpath(spec, dir + 7))
			return -errno;
		memcpy(dir, "file://", 7);
		spec = dir;
	}
	endpoint = url_endpoint(spec, endpoint);
	if (!config) {
		e = check_cleartext(spec, endpoint, err, errlen);
		if (e)
			return e;
	}
	e = url_settings(spec, endpoint, text, sizeof(text));
	if (e) {
		snprintf(err, errlen,
			 "%s: a control character in the store URL, its endpoint or "
			 "region, or too long",
			 spec);
		return -EINVAL;
	}
	e = load_settings(spec, text, &from_url, err, errlen);
	if (e || !config || !strncmp(spec, "file://", 7)) {
		*out = from_url;
		return e;
	}
	e = with_config(config, from_url, out, err, errlen);
	rules__free(from_url);
	return e;
}

static void name_store(struct fleet_store *s)
{
	upload_object_url(&s->cfg, "", s->url_base, sizeof(s->url_base));
	snprintf(s->name, sizeof(s->name), "%s", s->url_base);
}

int fleet_store__open(const char *spec, const char *endpoint, struct fleet_store **out, char *err,
		      size_t errlen)
{
	struct fleet_store *s = calloc(1, sizeof(*s));
	int e;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	e = settings(spec, endpoint, &s->rules, err, errlen);
	if (!e) {
		store_config__from_rules(s->rules, &s->cfg);
		s->cfg.keep_connection = true; /* a listing's many requests, one connection */
		s->ops = upload_backend__ops(s->cfg.scheme);
		if (!s->ops || !s->ops->list || !s->ops->get) {
			snprintf(err, errlen,
				 "%s: a %s store cannot be listed or read; trapd reads "
				 "directories, s3:// and azblob:// stores",
				 s->cfg.url, s->ops ? s->ops->name : "missing");
			e = -ENOTSUP;
		}
	}
	if (!e)
		e = s->ops->open(&s->cfg, &s->backend, err, errlen);
	if (e) {
		fleet_store__close(s);
		return e;
	}
	name_store(s);
	if (s->rules->upload.allow_insecure_credentials &&
	    rules_upload__insecure(&s->rules->upload))
		log_warn("%s: the credentials go over plain http:// to %s, as allowed; anyone on "
			 "the path can read and reuse them",
			 s->name,
			 s->cfg.scheme == UPLOAD_HTTP ? s->rules->upload.url
						      : s->rules->upload.endpoint);
	*out = s;
	return 0;
}

void fleet_store__close(struct fleet_store *s)
{
	if (!s)
		return;
	if (s->backend)
		s->ops->close(s->backend);
	http_request__drop_connection();
	rules__free(s->rules);
	free(s);
}

int fleet_store__list(struct fleet_store *s, const struct upload_list_query *q,
		      struct upload_page *page, char *err, size_t errlen)
{
	struct upload_result res;
	int e;

	__atomic_fetch_add(&s->requests, 1, __ATOMIC_RELAXED);
	e = s->ops->list(s->backend, q, page, &res);
	if (e)
		snprintf(err, errlen, "%s", res.msg);
	return e;
}

int fleet_store__get(struct fleet_store *s, const char *key, int fd, uint64_t max, char *err,
		     size_t errlen)
{
	struct upload_result res;
	int e;

	__atomic_fetch_add(&s->requests, 1, __ATOMIC_RELAXED);
	e = s->ops->get(s->backend, key, fd, max, &res);
	if (e)
		snprintf(err, errlen, "%s", res.msg);
	if (e && res.http_status == 404)
		return -ENOENT;
	return e;
}

int fleet_store__split_url(const char *url, char *store, size_t storelen, char *key, size_t keylen)
{
	const char *p = url + strlen(url);
	int slashes = 0;

	if (!fleet_store__is_url(url))
		return -EINVAL;
	/* the key is the last five components: HOST/YYYY/MM/DD/SHA.pb.zst */
	while (p > url && slashes < 5)
		if (*--p == '/')
			slashes++;
	if (slashes < 5 || p < strstr(url, "://") + 3)
		return -EINVAL;
	if (snprintf(store, storelen, "%.*s", (int)(p - url), url) >= (int)storelen ||
	    snprintf(key, keylen, "%s", p + 1) >= (int)keylen)
		return -ENAMETOOLONG;
	return 0;
}
