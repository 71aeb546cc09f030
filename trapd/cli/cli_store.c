// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cli_store.c - the options and the listing of the commands that read a
 * store (cli_store.h). */
#include "trapd/cli/cli_store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "trapd/cli/cli_args.h"
#include "trapd/fleet/fetch.h"
#include "trapd/util/exit_status.h"
#include "trapd/util/log.h"
#include "upload/spool.h"

static const char *const filter_names[] = {
	[CLI_STORE_OPT_SINCE - CLI_STORE_OPT_SINCE] = "--since",
	[CLI_STORE_OPT_UNTIL - CLI_STORE_OPT_SINCE] = "--until",
	[CLI_STORE_OPT_HOST - CLI_STORE_OPT_SINCE] = "--host",
	[CLI_STORE_OPT_RULE - CLI_STORE_OPT_SINCE] = "--rule",
	[CLI_STORE_OPT_LABEL - CLI_STORE_OPT_SINCE] = "--label",
	[CLI_STORE_OPT_TRIGGER - CLI_STORE_OPT_SINCE] = "--trigger",
};

int cli_store__option(struct cli_store_args *a, int opt, const char *arg)
{
	struct timespec now;
	char err[256];
	long n;

	switch (opt) {
	case CLI_STORE_OPT_ENDPOINT:
		a->endpoint = arg;
		return 1;
	case CLI_STORE_OPT_CACHE_DIR:
		a->cache_dir = arg;
		return 1;
	case CLI_STORE_OPT_JOBS:
		if (cli_parse_count(arg, "--jobs", "a number of requests at once", 1,
				    FLEET_LIST_JOBS_MAX, &n))
			return -EINVAL;
		a->jobs = (unsigned)n;
		return 1;
	case CLI_STORE_OPT_PAGE_SIZE:
		if (cli_parse_count(arg, "--page-size", "a number of keys", 1, 5000, &n))
			return -EINVAL;
		a->page_size = (unsigned)n;
		return 1;
	case CLI_STORE_OPT_SINCE ... CLI_STORE_OPT_TRIGGER:
		clock_gettime(CLOCK_REALTIME, &now);
		if (fleet_filter__add(&a->filter, filter_names[opt - CLI_STORE_OPT_SINCE], arg,
				      (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec, err,
				      sizeof(err))) {
			log_error("%s", err);
			return -EINVAL;
		}
		return 1;
	default:
		return 0;
	}
}

static void warn_problems(const struct fleet_catalog *cat)
{
	size_t i;

	for (i = 0; i < cat->nproblems; i++)
		log_warn("%s", cat->problems[i]);
	if (cat->problems_total > cat->nproblems)
		log_warn("... and %llu more captures left out",
			 (unsigned long long)(cat->problems_total - cat->nproblems));
}

int cli_store__list(const struct cli_store_args *a, bool details, struct cli_store *out)
{
	struct fleet_list_options o = { .page_size = a->page_size,
					.details = details,
					.jobs = a->jobs ? a->jobs : CLI_STORE_DEFAULT_JOBS };
	char err[1024];
	int e;

	memset(out, 0, sizeof(*out));
	e = fleet_store__open(a->store, a->endpoint, &out->store, err, sizeof(err));
	if (e) {
		log_error("%s", err);
		return e == -EINVAL || e == -ENOTSUP || e == -ENOENT ? TRAPD_EXIT_USAGE
								     : TRAPD_EXIT_FAILURE;
	}
	e = fleet_cache__open(a->cache_dir, 0, &out->cache, err, sizeof(err));
	if (e) {
		log_error("%s", err);
		return TRAPD_EXIT_USAGE;
	}
	/* a directory's sidecars are read where they are, not cached, by one */
	if (out->store->cfg.scheme == UPLOAD_FILE)
		o.jobs = 1;
	e = fleet_catalog__list(out->store,
				out->store->cfg.scheme == UPLOAD_FILE ? NULL : out->cache,
				&a->filter, &o, &out->catalog, err, sizeof(err));
	if (e) {
		log_error("%s", err);
		return TRAPD_EXIT_FAILURE;
	}
	warn_problems(&out->catalog);
	return TRAPD_EXIT_OK;
}

void cli_store__close(struct cli_store *s)
{
	fleet_catalog__free(&s->catalog);
	fleet_cache__close(s->cache);
	fleet_store__close(s->store);
	memset(s, 0, sizeof(*s));
}

/* gone_from_spool - a spool capture's path that no longer exists: say
 * where the capture went when its spool remembers (spool_note_sent), or
 * why such a path goes. Returns an exit status, 0 when @path is not that. */
static int gone_from_spool(const char *path)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX], url[1024], ymd[8];
	struct stat st;
	int e;

	if (!stat(path, &st) || errno != ENOENT || !spool_name_date(name, ymd))
		return 0;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	e = spool_find_sent(dir, name, url, sizeof(url));
	if (!e)
		log_error("%s: no longer in the spool: it was uploaded to %s; read it there "
			  "(trapd report %s)",
			  path, url, url);
	else if (e == -ENOENT)
		log_error("%s: no longer in the spool %s: a capture leaves it once the store "
			  "has it, or when the spool passes its bounds (the daemon's log says "
			  "which); `trapd captures ls RULES --since %.4s-%.2s-%.2s` lists the "
			  "store's",
			  path, dir, ymd, ymd + 4, ymd + 6);
	else
		return 0;
	return TRAPD_EXIT_USAGE;
}

int cli_store__resolve(const char **arg, char *buf, size_t len)
{
	char err[1024];
	int e;

	if (!fleet_store__is_url(*arg))
		return gone_from_spool(*arg);
	e = fleet_fetch__resolve(*arg, buf, len, err, sizeof(err));
	if (e) {
		log_error("%s", err);
		return e == -EINVAL || e == -ENOTSUP ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
	}
	log_debug("%s is %s", *arg, buf);
	*arg = buf;
	return 0;
}
