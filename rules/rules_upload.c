// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_upload.c - the [upload] section: its keys, the url split into the
 * parts each backend needs, and the checks that the keys set fit the
 * url's scheme and each other (s3 needs both keys of its credentials,
 * azblob a SAS token; a key that does not apply to the scheme is an
 * error, as a typo would be), then printing and freeing the section.
 * Whether two sections are alike is rules_print.c's. */
#include "rules/rules_upload.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/units.h"

#define U(f) offsetof(struct rules_upload, f)
#define SEC NSEC_PER_SEC
#define MIN NSEC_PER_MIN
#define HOUR NSEC_PER_HOUR
#define URL_MAX 2048

const struct rules_key rules_upload_keys[UK_NR] = {
	[UK_URL] = { "url", KEY_TEXT, U(url), 0, URL_MAX, NULL },
	[UK_METHOD] = { "method", KEY_TEXT, U(method), 0, 8, NULL },
	[UK_ENDPOINT] = { "endpoint", KEY_TEXT, U(endpoint), 0, URL_MAX, NULL },
	[UK_REGION] = { "region", KEY_TEXT, U(region), 0, 64, NULL },
	[UK_PATH_STYLE] = { "path_style", KEY_BOOL, U(path_style), 0, 0, "true" },
	[UK_ACCESS_KEY_ID_FILE] = { "access_key_id_file", KEY_PATH, U(access_key_id_file), 0,
				    PATH_MAX_BYTES, NULL },
	[UK_ACCESS_KEY_ID_ENV] = { "access_key_id_env", KEY_ENV, U(access_key_id_env), 0, 0, NULL },
	[UK_SECRET_ACCESS_KEY_FILE] = { "secret_access_key_file", KEY_PATH,
					U(secret_access_key_file), 0, PATH_MAX_BYTES, NULL },
	[UK_SECRET_ACCESS_KEY_ENV] = { "secret_access_key_env", KEY_ENV, U(secret_access_key_env),
				       0, 0, NULL },
	[UK_SESSION_TOKEN_FILE] = { "session_token_file", KEY_PATH, U(session_token_file), 0,
				    PATH_MAX_BYTES, NULL },
	[UK_SESSION_TOKEN_ENV] = { "session_token_env", KEY_ENV, U(session_token_env), 0, 0, NULL },
	[UK_SAS_TOKEN_FILE] = { "sas_token_file", KEY_PATH, U(sas_token_file), 0, PATH_MAX_BYTES,
				NULL },
	[UK_SAS_TOKEN_ENV] = { "sas_token_env", KEY_ENV, U(sas_token_env), 0, 0, NULL },
	[UK_AUTH_HEADER_FILE] = { "auth_header_file", KEY_PATH, U(auth_header_file), 0,
				  PATH_MAX_BYTES, NULL },
	[UK_AUTH_HEADER_ENV] = { "auth_header_env", KEY_ENV, U(auth_header_env), 0, 0, NULL },
	[UK_CA_FILE] = { "ca_file", KEY_PATH, U(ca_file), 0, PATH_MAX_BYTES, NULL },
	[UK_TLS_VERIFY] = { "tls_verify", KEY_BOOL, U(tls_verify), 0, 0, "true" },
	[UK_ALLOW_INSECURE_CREDENTIALS] = { "allow_insecure_credentials", KEY_BOOL,
					    U(allow_insecure_credentials), 0, 0, "false" },
	[UK_CONNECT_TIMEOUT] = { "connect_timeout", KEY_DURATION, U(connect_timeout_ns), SEC,
				 10 * MIN, "10s" },
	[UK_STALL_TIMEOUT] = { "stall_timeout", KEY_DURATION, U(stall_timeout_ns), SEC, HOUR,
			       "30s" },
	[UK_TIMEOUT] = { "timeout", KEY_DURATION, U(timeout_ns), SEC, 24 * HOUR, "10m" },
	[UK_RETRY_MIN] = { "retry_min", KEY_DURATION, U(retry_min_ns), 100 * NSEC_PER_MSEC, HOUR,
			   "1s" },
	[UK_RETRY_MAX] = { "retry_max", KEY_DURATION, U(retry_max_ns), 100 * NSEC_PER_MSEC,
			   24 * HOUR, "5m" },
};

/* Which schemes each key applies to (bits of enum rules_upload_scheme). */
#define ONLY(s) (1u << (s))
#define ANY_REMOTE (ONLY(RULES_UPLOAD_HTTP) | ONLY(RULES_UPLOAD_S3) | ONLY(RULES_UPLOAD_AZBLOB))
static const unsigned key_schemes[UK_NR] = {
	[UK_URL] = ~0u,
	[UK_METHOD] = ONLY(RULES_UPLOAD_HTTP),
	[UK_ENDPOINT] = ONLY(RULES_UPLOAD_S3) | ONLY(RULES_UPLOAD_AZBLOB),
	[UK_REGION] = ONLY(RULES_UPLOAD_S3),
	[UK_PATH_STYLE] = ONLY(RULES_UPLOAD_S3),
	[UK_ACCESS_KEY_ID_FILE] = ONLY(RULES_UPLOAD_S3),
	[UK_ACCESS_KEY_ID_ENV] = ONLY(RULES_UPLOAD_S3),
	[UK_SECRET_ACCESS_KEY_FILE] = ONLY(RULES_UPLOAD_S3),
	[UK_SECRET_ACCESS_KEY_ENV] = ONLY(RULES_UPLOAD_S3),
	[UK_SESSION_TOKEN_FILE] = ONLY(RULES_UPLOAD_S3),
	[UK_SESSION_TOKEN_ENV] = ONLY(RULES_UPLOAD_S3),
	[UK_SAS_TOKEN_FILE] = ONLY(RULES_UPLOAD_AZBLOB),
	[UK_SAS_TOKEN_ENV] = ONLY(RULES_UPLOAD_AZBLOB),
	[UK_AUTH_HEADER_FILE] = ONLY(RULES_UPLOAD_HTTP),
	[UK_AUTH_HEADER_ENV] = ONLY(RULES_UPLOAD_HTTP),
	[UK_CA_FILE] = ANY_REMOTE,
	[UK_TLS_VERIFY] = ANY_REMOTE,
	[UK_ALLOW_INSECURE_CREDENTIALS] = ANY_REMOTE,
	[UK_CONNECT_TIMEOUT] = ANY_REMOTE,
	[UK_STALL_TIMEOUT] = ANY_REMOTE,
	[UK_TIMEOUT] = ANY_REMOTE,
	[UK_RETRY_MIN] = ~0u,
	[UK_RETRY_MAX] = ~0u,
};

static const char *const scheme_names[] = {
	[RULES_UPLOAD_NONE] = "none",	  [RULES_UPLOAD_FILE] = "file",
	[RULES_UPLOAD_HTTP] = "http",	  [RULES_UPLOAD_S3] = "s3",
	[RULES_UPLOAD_AZBLOB] = "azblob",
};

int rules_upload__defaults(struct rules_upload *u)
{
	char msg[MSG_MAX];
	int k, err;

	for (k = 0; k < UK_NR; k++) {
		if (!rules_upload_keys[k].dflt)
			continue;
		err = rules_key__parse(&rules_upload_keys[k], u, rules_upload_keys[k].dflt, msg,
				       sizeof(msg));
		if (err)
			return err;
	}
	return 0;
}

/* --- the url ------------------------------------------------------------ */

static bool all_of(const char *s, size_t n, const char *set, bool lower_alnum)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(lower_alnum && (islower(c) || isdigit(c))) && !strchr(set, c))
			return false;
	}
	return true;
}

/* take - a new string of @n bytes at @s into *@to. */
static int take(char **to, const char *s, size_t n)
{
	free(*to);
	*to = strndup(s, n);
	return *to ? 0 : -ENOMEM;
}

/* take_prefix - @s ("" or "a/b" or "a/b/") as "" or "a/b/". */
static int take_prefix(char **to, const char *s, char *msg, size_t len)
{
	size_t n = strlen(s);

	if (strstr(s, "//") || s[0] == '/' ||
	    !all_of(s, n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.~/!*'()", true)) {
		snprintf(msg, len,
			 "the prefix may hold letters, digits and -_.~/!*'() "
			 "without empty parts");
		return -EINVAL;
	}
	free(*to);
	if (asprintf(to, "%s%s", s, n && s[n - 1] != '/' ? "/" : "") < 0) {
		*to = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int split_s3(struct rules_upload *u, const char *rest, char *msg, size_t len)
{
	size_t n = strcspn(rest, "/");

	if (n < 3 || n > 63 || !all_of(rest, n, ".-", true) || !isalnum((unsigned char)rest[0]) ||
	    !isalnum((unsigned char)rest[n - 1]) || memmem(rest, n, "..", 2)) {
		snprintf(msg, len,
			 "s3://BUCKET: a bucket name is 3 to 63 lower-case letters, "
			 "digits, '.' and '-'");
		return -EINVAL;
	}
	u->scheme = RULES_UPLOAD_S3;
	return take(&u->bucket, rest, n) ?: take_prefix(&u->prefix, rest + n + !!rest[n], msg, len);
}

static int split_azblob(struct rules_upload *u, const char *rest, char *msg, size_t len)
{
	size_t a = strcspn(rest, "/"), c = rest[a] ? strcspn(rest + a + 1, "/") : 0;
	const char *cont = rest + a + 1;

	if (a < 3 || a > 24 || !all_of(rest, a, "", true)) {
		snprintf(msg, len,
			 "azblob://ACCOUNT/CONTAINER: an account name is 3 to 24 "
			 "lower-case letters and digits");
		return -EINVAL;
	}
	if (!rest[a] || c < 3 || c > 63 || !all_of(cont, c, "-", true) || cont[0] == '-' ||
	    cont[c - 1] == '-' || memmem(cont, c, "--", 2)) {
		snprintf(msg, len,
			 "azblob://ACCOUNT/CONTAINER: a container name is 3 to 63 "
			 "lower-case letters, digits and single '-'");
		return -EINVAL;
	}
	u->scheme = RULES_UPLOAD_AZBLOB;
	return take(&u->account, rest, a) ?: take(&u->container, cont, c)
				?: take_prefix(&u->prefix, cont + c + !!cont[c], msg, len);
}

/* split_http - the base URL: with a host, no query or fragment. */
static int split_http(struct rules_upload *u, const char *url, const char *rest, char *msg,
		      size_t len)
{
	size_t host = strcspn(rest, "/?#");

	if (!host || rest[0] == ':' || strpbrk(rest, "?#@")) {
		snprintf(msg, len, "http(s)://HOST[:PORT]/PATH without user, query or fragment");
		return -EINVAL;
	}
	u->scheme = RULES_UPLOAD_HTTP;
	free(u->base);
	if (asprintf(&u->base, "%s%s", url, rest[host] && url[strlen(url) - 1] == '/' ? "" : "/") <
	    0) {
		u->base = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int split_url(struct rules_upload *u, char *msg, size_t len)
{
	const char *url = u->url;

	if (!strncmp(url, "file://", 7)) {
		size_t n = strlen(url);

		if (url[7] != '/' || strstr(url, "/../") || strstr(url, "/./") ||
		    (n >= 10 && !strcmp(url + n - 3, "/..")) || !strcmp(url + n - 2, "/.")) {
			snprintf(msg, len, "expected file:///ABSOLUTE/DIR");
			return -EINVAL;
		}
		u->scheme = RULES_UPLOAD_FILE;
		return take(&u->dir, url + 7, strlen(url + 7));
	}
	if (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8))
		return split_http(u, url, strstr(url, "://") + 3, msg, len);
	if (!strncmp(url, "s3://", 5))
		return split_s3(u, url + 5, msg, len);
	if (!strncmp(url, "azblob://", 9))
		return split_azblob(u, url + 9, msg, len);
	snprintf(msg, len,
		 "expected file:///DIR, http(s)://HOST/PATH, s3://BUCKET[/PREFIX] or "
		 "azblob://ACCOUNT/CONTAINER[/PREFIX]");
	return -EINVAL;
}

/* --- the checks ------------------------------------------------------------ */

static void error_at(struct rules_parser *p, int k, const char *msg)
{
	int line = p->uline[k] ? p->uline[k] : p->upload_line;

	rules_parser__error(p, line, "[upload]", rules_upload_keys[k].name, "%s", msg);
}

/* one_of - exactly one of @file and @env set (or neither, when @optional). */
static void one_of(struct rules_parser *p, int file, int env, bool optional, const char *scheme)
{
	char msg[MSG_MAX];

	if (p->uline[file] && p->uline[env]) {
		snprintf(msg, sizeof(msg), "%s is set too; use one of them",
			 rules_upload_keys[file].name);
		error_at(p, env, msg);
	} else if (!optional && !p->uline[file] && !p->uline[env])
		rules_parser__error(p, p->upload_line, "[upload]", NULL, "%s needs %s or %s",
				    scheme, rules_upload_keys[file].name,
				    rules_upload_keys[env].name);
}

static void check_scheme_keys(struct rules_parser *p)
{
	struct rules_upload *u = &p->r->upload;
	char msg[MSG_MAX];
	int k;

	for (k = 0; k < UK_NR; k++) {
		if (!p->uline[k] || key_schemes[k] & ONLY(u->scheme))
			continue;
		snprintf(msg, sizeof(msg), "does not apply to %s:// urls", scheme_names[u->scheme]);
		error_at(p, k, msg);
	}
	switch (u->scheme) {
	case RULES_UPLOAD_S3:
		one_of(p, UK_ACCESS_KEY_ID_FILE, UK_ACCESS_KEY_ID_ENV, false, "s3");
		one_of(p, UK_SECRET_ACCESS_KEY_FILE, UK_SECRET_ACCESS_KEY_ENV, false, "s3");
		one_of(p, UK_SESSION_TOKEN_FILE, UK_SESSION_TOKEN_ENV, true, "s3");
		break;
	case RULES_UPLOAD_AZBLOB:
		one_of(p, UK_SAS_TOKEN_FILE, UK_SAS_TOKEN_ENV, false, "azblob");
		break;
	case RULES_UPLOAD_HTTP:
		one_of(p, UK_AUTH_HEADER_FILE, UK_AUTH_HEADER_ENV, true, "http");
		break;
	default:
		break;
	}
}

static void check_values(struct rules_parser *p)
{
	struct rules_upload *u = &p->r->upload;
	const char *ep = u->endpoint;
	char msg[MSG_MAX], q[96];

	if (u->method && strcmp(u->method, "put") && strcmp(u->method, "post")) {
		snprintf(msg, sizeof(msg), "bad value '%s': expected put or post",
			 rules_value__quote(u->method, q, sizeof(q)));
		error_at(p, UK_METHOD, msg);
	}
	u->post = u->method && !strcmp(u->method, "post");
	if (ep && ((strncmp(ep, "http://", 7) && strncmp(ep, "https://", 8)) ||
		   strpbrk(ep, "?#@") || !strstr(ep, "://")[3] || strstr(ep, "://")[3] == '/')) {
		snprintf(msg, sizeof(msg), "bad value '%s': expected http(s)://HOST[:PORT][/PATH]",
			 rules_value__quote(ep, q, sizeof(q)));
		error_at(p, UK_ENDPOINT, msg);
	}
	if (u->region && !all_of(u->region, strlen(u->region), "-", true)) {
		snprintf(msg, sizeof(msg), "bad value '%s': expected a region like us-east-1",
			 rules_value__quote(u->region, q, sizeof(q)));
		error_at(p, UK_REGION, msg);
	}
	if (!u->region && u->scheme == RULES_UPLOAD_S3 && !(u->region = strdup("us-east-1")))
		rules_parser__nomem(p);
	if (!p->ubad[UK_RETRY_MIN] && !p->ubad[UK_RETRY_MAX] && u->retry_min_ns > u->retry_max_ns) {
		char d[32];

		if (p->uline[UK_RETRY_MAX]) {
			error_at(p, UK_RETRY_MAX, "is shorter than retry_min");
		} else {
			snprintf(msg, sizeof(msg), "is longer than retry_max (%s, the default)",
				 units_format_duration(u->retry_max_ns, d, sizeof(d)));
			error_at(p, UK_RETRY_MIN, msg);
		}
	}
}

/* credential_key - the first credential key of @scheme the file sets
 * (UK_NR: none): what would travel with every request. */
static int credential_key(const struct rules_parser *p, enum rules_upload_scheme scheme)
{
	static const int keys[] = {
		UK_AUTH_HEADER_FILE,	   UK_AUTH_HEADER_ENV,	     UK_SAS_TOKEN_FILE,
		UK_SAS_TOKEN_ENV,	   UK_ACCESS_KEY_ID_FILE,    UK_ACCESS_KEY_ID_ENV,
		UK_SECRET_ACCESS_KEY_FILE, UK_SECRET_ACCESS_KEY_ENV, UK_SESSION_TOKEN_FILE,
		UK_SESSION_TOKEN_ENV,
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (p->uline[keys[i]] && key_schemes[keys[i]] & ONLY(scheme))
			return keys[i];
	return UK_NR;
}

/* check_cleartext - credentials over plain http:// (the url, or the
 * endpoint of s3 and azblob) can be read and replayed by anyone on the
 * path: an error unless allow_insecure_credentials says the network is
 * trusted (the daemon then warns at start, rules_upload__insecure). */
static void check_cleartext(struct rules_parser *p)
{
	struct rules_upload *u = &p->r->upload;
	int where = u->scheme == RULES_UPLOAD_HTTP ? UK_URL : UK_ENDPOINT;
	int cred = credential_key(p, u->scheme);
	char msg[MSG_MAX];

	if (cred == UK_NR || u->allow_insecure_credentials || !rules_upload__insecure(u))
		return;
	snprintf(msg, sizeof(msg),
		 "http:// would send the credentials (%s) in clear text to anyone on the path; "
		 "use https://, or set allow_insecure_credentials = yes for a network you trust",
		 rules_upload_keys[cred].name);
	error_at(p, where, msg);
}

void rules_upload__check(struct rules_parser *p)
{
	struct rules_upload *u = &p->r->upload;
	char msg[MSG_MAX], q[96];
	int e;

	u->line = p->upload_line;
	if (!p->upload_line)
		return;
	if (!u->url) {
		if (!p->ubad[UK_URL])
			rules_parser__error(p, p->upload_line, "[upload]", NULL,
					    "no url; say where captures go (url = s3://BUCKET, "
					    "...) or remove the section");
		return;
	}
	e = split_url(u, msg, sizeof(msg));
	if (e == -ENOMEM) {
		rules_parser__nomem(p);
		return;
	}
	if (e) {
		char full[MSG_MAX + 128];

		snprintf(full, sizeof(full), "bad value '%s': %s",
			 rules_value__quote(u->url, q, sizeof(q)), msg);
		error_at(p, UK_URL, full);
		return;
	}
	check_scheme_keys(p);
	check_values(p);
	check_cleartext(p);
}

/* --- printing, freeing ------------------------------------------------------ */

void rules_upload__print(const struct rules_upload *u, FILE *out)
{
	int k;

	if (!u->url)
		return;
	fputs("\n[upload]\n", out);
	for (k = 0; k < UK_NR; k++) {
		const struct rules_key *key = &rules_upload_keys[k];
		bool pointer =
			key->type == KEY_PATH || key->type == KEY_TEXT || key->type == KEY_ENV;

		if (!(key_schemes[k] & ONLY(u->scheme)))
			continue;
		if (pointer && !*(char *const *)((const char *)u + key->off))
			continue;
		if (k == UK_ALLOW_INSECURE_CREDENTIALS && !u->allow_insecure_credentials)
			continue; /* an exception, shown only where made */
		rules_key__print(key, u, out);
	}
}

void rules_upload__free(struct rules_upload *u)
{
	int k;

	for (k = 0; k < UK_NR; k++)
		rules_key__free(&rules_upload_keys[k], u);
	free(u->dir);
	free(u->base);
	free(u->bucket);
	free(u->account);
	free(u->container);
	free(u->prefix);
	memset(u, 0, sizeof(*u));
}
