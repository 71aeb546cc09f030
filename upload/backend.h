/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* backend.h - where captures go once they are in the spool: one ops table
 * (curl's TLS backends are the model) and one source file per store:
 *
 *   backend_file.c    file:///DIR            a local or mounted directory
 *   backend_http.c    http(s)://HOST/PATH    PUT (or POST) to a web server
 *   backend_s3.c      s3://BUCKET/PREFIX     S3 and compatible, AWS SigV4
 *   backend_azblob.c  azblob://ACCOUNT/CONTAINER/PREFIX   Azure Blob, SAS
 *
 * A backend stores one object per call, synchronously, and says whether
 * the store confirmed it; retrying, ordering and the spool are the
 * uploader's business (uploader.h). Nothing here reads the rules file:
 * trapd/ fills struct upload_config from it.
 */
#ifndef TRAPD_UPLOAD_BACKEND_H
#define TRAPD_UPLOAD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum upload_scheme {
	UPLOAD_NONE,   /* no backend: captures stay in the spool */
	UPLOAD_FILE,   /* file:///DIR */
	UPLOAD_HTTP,   /* http:// or https:// */
	UPLOAD_S3,     /* s3://BUCKET[/PREFIX] */
	UPLOAD_AZBLOB, /* azblob://ACCOUNT/CONTAINER[/PREFIX] */
};

/* Where a secret comes from: a file (mode at most 0640, no access for
 * others) or an environment variable. Exactly one is set. */
struct upload_secret_source {
	const char *file;
	const char *env;
};

/* The backend's settings, all borrowed (trapd/ keeps the strings alive). */
struct upload_config {
	enum upload_scheme scheme;
	const char *url;       /* as configured, for messages */
	const char *dir;       /* file: the directory */
	const char *base;      /* http: the URL objects are PUT under (ends in '/') */
	bool post;	       /* http: POST every object to @url itself */
	const char *bucket;    /* s3 */
	const char *account;   /* azblob */
	const char *container; /* azblob */
	const char *prefix;    /* s3, azblob: "" or "a/b/" */
	const char *endpoint;  /* s3, azblob: "http(s)://host[:port][/path]"; NULL: the cloud's */
	const char *region;    /* s3 */
	bool path_style;       /* s3: /BUCKET/KEY on the endpoint rather than BUCKET.host */
	struct upload_secret_source access_key_id; /* s3 */
	struct upload_secret_source secret_key;	   /* s3 */
	struct upload_secret_source session_token; /* s3, optional */
	struct upload_secret_source sas_token;	   /* azblob */
	struct upload_secret_source auth_header;   /* http, optional: "Bearer ..." */
	const char *ca_file;			   /* NULL: the system's CAs */
	bool tls_verify;			   /* false only when configured so */
	uint64_t connect_timeout_ns;
	uint64_t stall_timeout_ns; /* abort when under 1 KiB/s for this long */
	uint64_t timeout_ns;	   /* one whole request */
	const int *abort;	   /* nonzero: stop the request under way (read atomically) */
	/* Keep the connection for the next request of this thread
	 * (http_request.h): a reader that makes thousands (a listing and its
	 * sidecars) does not connect, and shake TLS hands, each time. */
	bool keep_connection;
};

/* One metadata item. Names are lower-case words joined by '_' ("trapd_host",
 * "label_team"); each backend spells them as its store requires. Values
 * are printable ASCII (upload_meta__value makes them so). */
struct upload_meta {
	char name[64];
	char value[320];
};

#define UPLOAD_META_MAX 48

/* One object to store. */
struct upload_object {
	const char *key; /* under the configured prefix: "HOST/2026/11/22/SHA.pb.zst" */
	int fd;		 /* the content, read from offset 0 */
	uint64_t size;
	const char *sha256;	  /* of the content, 64 lower-case hex */
	const char *content_type; /* "application/zstd", "application/json" */
	const struct upload_meta *meta;
	size_t nmeta;
};

/* How a store answered. */
enum upload_outcome {
	UPLOAD_OK,	  /* stored and confirmed */
	UPLOAD_TRANSIENT, /* may work later: refused, timeout, 5xx, 408, 429 */
	UPLOAD_PERMANENT, /* will not work without a change: 4xx, bad TLS, bad config */
};

struct upload_result {
	enum upload_outcome outcome;
	long http_status; /* 0: no answer */
	char msg[384];	  /* what went wrong, never a secret */
};

struct upload_backend;
struct upload_list_query;
struct upload_page;

struct upload_backend_ops {
	const char *name; /* "file", "http", "s3", "azblob" */
	/* open - check @cfg, read secrets. Returns 0 or a negative errno,
	 * -EINVAL with @err saying which setting is wrong. */
	int (*open)(const struct upload_config *cfg, struct upload_backend **out, char *err,
		    size_t errlen);
	/* put - store @obj. Fills @res; returns 0 (UPLOAD_OK) or -EIO. */
	int (*put)(struct upload_backend *b, const struct upload_object *obj,
		   struct upload_result *res);
	/* list - one page of the keys under the configured prefix and
	 * @q->prefix (listing.h): keys relative to the configured prefix.
	 * Fills @page (the caller frees it with upload_page__free) and @res;
	 * returns 0, or -EIO (@res says why; @page is empty). NULL for a
	 * store that cannot be listed (http). */
	int (*list)(struct upload_backend *b, const struct upload_list_query *q,
		    struct upload_page *page, struct upload_result *res);
	/* get - the object at @key (under the configured prefix) written to
	 * @fd from its current offset, at most @max bytes (a larger object
	 * fails, UPLOAD_PERMANENT). Returns 0 or -EIO (@res says why: a
	 * missing object is UPLOAD_PERMANENT with http_status 404, a
	 * directory's too). NULL for http. */
	int (*get)(struct upload_backend *b, const char *key, int fd, uint64_t max,
		   struct upload_result *res);
	void (*close)(struct upload_backend *b);
};

extern const struct upload_backend_ops upload_backend_file;
extern const struct upload_backend_ops upload_backend_http;
extern const struct upload_backend_ops upload_backend_s3;
extern const struct upload_backend_ops upload_backend_azblob;

/* upload_backend__ops - the ops of @scheme, or NULL for UPLOAD_NONE. */
const struct upload_backend_ops *upload_backend__ops(enum upload_scheme scheme);

/* upload_object_url - where object @key of @c's store is, as a user names
 * it to `trapd report` and the fleet commands: s3://BUCKET/PREFIXKEY,
 * azblob://ACCOUNT/CONTAINER/PREFIXKEY, file:///DIR/KEY, or the http URL
 * it was PUT to (POSTed: the URL itself). Returns 0 or -ENAMETOOLONG. */
int upload_object_url(const struct upload_config *c, const char *key, char *buf, size_t len);

#endif
