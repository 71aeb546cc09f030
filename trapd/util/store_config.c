// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* store_config.c - a rules file's [upload] as upload/'s configuration
 * (store_config.h). */
#include "trapd/util/store_config.h"

#include <string.h>

static enum upload_scheme scheme_of(enum rules_upload_scheme s)
{
	switch (s) {
	case RULES_UPLOAD_FILE:
		return UPLOAD_FILE;
	case RULES_UPLOAD_HTTP:
		return UPLOAD_HTTP;
	case RULES_UPLOAD_S3:
		return UPLOAD_S3;
	case RULES_UPLOAD_AZBLOB:
		return UPLOAD_AZBLOB;
	default:
		return UPLOAD_NONE;
	}
}

void store_config__from_rules(const struct rules *r, struct upload_config *cfg)
{
	const struct rules_upload *u = &r->upload;

	memset(cfg, 0, sizeof(*cfg));
	cfg->scheme = scheme_of(u->scheme);
	cfg->url = u->url;
	cfg->dir = u->dir;
	cfg->base = u->base;
	cfg->post = u->post;
	cfg->bucket = u->bucket;
	cfg->account = u->account;
	cfg->container = u->container;
	cfg->prefix = u->prefix;
	cfg->endpoint = u->endpoint;
	cfg->region = u->region;
	cfg->path_style = u->path_style;
	cfg->access_key_id =
		(struct upload_secret_source){ u->access_key_id_file, u->access_key_id_env };
	cfg->secret_key = (struct upload_secret_source){ u->secret_access_key_file,
							 u->secret_access_key_env };
	cfg->session_token =
		(struct upload_secret_source){ u->session_token_file, u->session_token_env };
	cfg->sas_token = (struct upload_secret_source){ u->sas_token_file, u->sas_token_env };
	cfg->auth_header = (struct upload_secret_source){ u->auth_header_file, u->auth_header_env };
	cfg->ca_file = u->ca_file;
	cfg->tls_verify = u->tls_verify;
	cfg->connect_timeout_ns = u->connect_timeout_ns;
	cfg->stall_timeout_ns = u->stall_timeout_ns;
	cfg->timeout_ns = u->timeout_ns;
}
