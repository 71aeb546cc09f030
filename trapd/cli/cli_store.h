/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cli_store.h - what the commands that read a store of captures share
 * (`trapd captures ls`, `trapd merge`): the STORE argument, the filters
 * (--since, --until, --host, --rule, --label, --trigger), --endpoint,
 * --page-size and --cache-dir, and the listing itself with its problems
 * and failures reported.
 */
#ifndef TRAPD_CLI_STORE_H
#define TRAPD_CLI_STORE_H

#include <getopt.h>
#include <stdbool.h>

#include "trapd/fleet/catalog.h"

enum {
	CLI_STORE_OPT_SINCE = 1000,
	CLI_STORE_OPT_UNTIL,
	CLI_STORE_OPT_HOST,
	CLI_STORE_OPT_RULE,
	CLI_STORE_OPT_LABEL,
	CLI_STORE_OPT_TRIGGER,
	CLI_STORE_OPT_ENDPOINT,
	CLI_STORE_OPT_PAGE_SIZE,
	CLI_STORE_OPT_CACHE_DIR,
	CLI_STORE_OPT_JOBS,
};

#define CLI_STORE_DEFAULT_JOBS 8

/* The options, for a command's struct option table. */
#define CLI_STORE_LONGOPTS                                                                         \
	{ "since", required_argument, NULL, CLI_STORE_OPT_SINCE },                                 \
		{ "until", required_argument, NULL, CLI_STORE_OPT_UNTIL },                         \
		{ "host", required_argument, NULL, CLI_STORE_OPT_HOST },                           \
		{ "rule", required_argument, NULL, CLI_STORE_OPT_RULE },                           \
		{ "label", required_argument, NULL, CLI_STORE_OPT_LABEL },                         \
		{ "trigger", required_argument, NULL, CLI_STORE_OPT_TRIGGER },                     \
		{ "endpoint", required_argument, NULL, CLI_STORE_OPT_ENDPOINT },                   \
		{ "page-size", required_argument, NULL, CLI_STORE_OPT_PAGE_SIZE },                 \
		{ "cache-dir", required_argument, NULL, CLI_STORE_OPT_CACHE_DIR },                 \
	{                                                                                          \
		"jobs", required_argument, NULL, CLI_STORE_OPT_JOBS                                \
	}

/* The options' help, for a command's usage text. */
#define CLI_STORE_HELP                                                                             \
	"STORE is a rules file (its [upload] section: the uploader's own store and\n"              \
	"credentials), a directory, s3://BUCKET[/PREFIX] or azblob://ACCOUNT/CONTAINER[/PREFIX]\n" \
	"(settings and credentials from the environment: see the README's fleet section).\n\n"     \
	"Filters (repeat one for any of its values; all kinds must hold):\n"                       \
	"      --since T, --until T   captures that started in the range: a UTC time\n"            \
	"                             (2026-11-25, 2026-11-25T10:30Z) or a time ago (2h, 7d)\n"    \
	"      --host H               captures of host H\n"                                        \
	"      --rule R               captures rule R fired\n"                                     \
	"      --label K=V            captures whose [labels] have K = V\n"                        \
	"      --trigger T            rule or manual\n\n"                                          \
	"Store options:\n"                                                                         \
	"      --endpoint URL         the store's endpoint for an s3:// or azblob:// STORE\n"      \
	"      --page-size N          keys asked for a page of the listing (1-5000)\n"             \
	"      --cache-dir DIR        where sidecars and profiles read are kept\n"                 \
	"                             (default: TRAPD_CACHE_DIR or ~/.cache/trapd)\n"              \
	"      --jobs N               requests to an s3 or azblob store at once (1-32,\n"          \
	"                             default 8), each on its own connection\n"

struct cli_store_args {
	const char *store;
	const char *endpoint;
	const char *cache_dir;
	unsigned page_size;
	unsigned jobs; /* 0: CLI_STORE_DEFAULT_JOBS */
	struct fleet_filter filter;
};

/* cli_store__option - take @opt with @arg into @a if it is one of the
 * options above. Returns 1 (taken), 0 (not one of them) or -EINVAL
 * (reported). */
int cli_store__option(struct cli_store_args *a, int opt, const char *arg);

/* What a listing opened: free with cli_store__close. */
struct cli_store {
	struct fleet_store *store;
	struct fleet_cache *cache;
	struct fleet_catalog catalog;
};

/* cli_store__list - open @a's store and cache, list the captures its
 * filter wants (described when @details) into @out, and warn of each
 * capture left out. Returns an exit status: 0, 1 (the listing failed), 2
 * (a bad store or setting). */
int cli_store__list(const struct cli_store_args *a, bool details, struct cli_store *out);

void cli_store__close(struct cli_store *s);

/* cli_store__resolve - *@arg as a local capture file: itself, or, for a
 * capture's URL (s3://..., azblob://..., file://.../HOST/YYYY/MM/DD/
 * SHA256.pb.zst), its profile and sidecar fetched into the cache, *@arg
 * then pointing at @buf. A spool capture's path that is gone is named
 * with where the capture went. Returns 0 or an exit status (logged): 2
 * for a bad URL or setting or a path gone from the spool, 1 when the
 * store did not give it. */
int cli_store__resolve(const char **arg, char *buf, size_t len);

#endif
