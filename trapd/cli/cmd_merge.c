// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_merge.c - `trapd merge STORE --group-by KEY`: the captures of a
 * store that the filters want, summed into one profile per group (per
 * host, rule, label, day, trigger), each with a sidecar that lists its
 * members; `trapd report` and `trapd diff` read them as any capture.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trapd/cli/cli_args.h"
#include "trapd/cli/cli_store.h"
#include "trapd/cli/commands.h"
#include "trapd/fleet/fetch.h"
#include "trapd/fleet/fleet_merge.h"
#include "trapd/fleet/fleet_time.h"
#include "trapd/profile/profile_file.h"
#include "trapd/profile/profile_merge.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/json.h"
#include "trapd/util/log.h"
#include "upload/safe_text.h"
#include "upload/sha256.h"

#define GROUPS_MAX 10000
#define GROUPS_OF_ONE 64 /* groups one capture can be in */

enum { OPT_GROUP_BY = 256, OPT_OUTPUT };

struct merge_cmd {
	struct cli_store_args store;
	struct fleet_group_key keys[FLEET_GROUP_KEYS_MAX];
	size_t nkeys;
	const char *out_dir;
};

/* One group: its name and its members (indexes into the catalog). */
struct group {
	char name[FLEET_GROUP_NAME_MAX];
	char file[FLEET_GROUP_NAME_MAX + 16]; /* its files' name, without suffix */
	size_t *members;
	size_t n, cap;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd merge STORE [--group-by KEY]... [filters] [-o DIR]\n\n"
		"Sum the captures of STORE that the filters want into one profile per\n"
		"group: DIR/GROUP.pb.zst, with DIR/GROUP.json listing its members. KEY is\n"
		"host, rule, day, trigger or label:NAME (a [labels] key, e.g. label:role);\n"
		"several make groups of each combination; none makes one group, 'all'.\n"
		"Captures taken at different frequencies are summed by time: each\n"
		"group's counts are of its highest frequency's period.\n\n" CLI_STORE_HELP
		"\nOutput:\n"
		"  -o, --output DIR   where the merged captures go (default: .)\n"
		"  -h, --help         this text\n\n"
		"Examples:\n"
		"  trapd merge rules.ini --rule web-cpu --group-by label:role --since 7d -o week\n"
		"  trapd merge s3://trapd-captures/fleet --group-by host --group-by day\n"
		"  trapd diff last-week/label-role-web.pb.zst week/label-role-web.pb.zst\n");
}

static int parse(int argc, char **argv, struct merge_cmd *c)
{
	static const struct option longopts[] = {
		CLI_STORE_LONGOPTS,
		{ "group-by", required_argument, NULL, OPT_GROUP_BY },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int opt, e;

	opterr = 0;
	optind = 0;
	c->out_dir = ".";
	while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == 'o') {
			c->out_dir = optarg;
		} else if (opt == OPT_GROUP_BY) {
			if (c->nkeys == FLEET_GROUP_KEYS_MAX) {
				log_error("--group-by: at most %d keys", FLEET_GROUP_KEYS_MAX);
				return -EINVAL;
			}
			if (fleet_group_key__parse(optarg, &c->keys[c->nkeys++], err,
						   sizeof(err))) {
				log_error("%s", err);
				return -EINVAL;
			}
		} else if ((e = cli_store__option(&c->store, opt, optarg)) <= 0) {
			if (!e)
				cli_bad_option("merge", longopts, opt, argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind + 1 != argc) {
		log_error("expected one STORE; usage: trapd merge STORE [--group-by KEY] (see "
			  "--help)");
		return -EINVAL;
	}
	c->store.store = argv[optind];
	return 0;
}

/* --- grouping --------------------------------------------------------------- */

static struct group *find_group(struct group **groups, size_t *n, const char *name)
{
	struct group *v;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*groups)[i].name, name))
			return &(*groups)[i];
	if (*n == GROUPS_MAX || !(v = realloc(*groups, (*n + 1) * sizeof(*v))))
		return NULL;
	*groups = v;
	memset(&v[*n], 0, sizeof(v[*n]));
	snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
	return &v[(*n)++];
}

static int add_member(struct group *g, size_t idx)
{
	size_t *v;

	if (g->n == g->cap) {
		v = realloc(g->members, (g->cap * 2 + 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->members = v;
		g->cap = g->cap * 2 + 16;
	}
	g->members[g->n++] = idx;
	return 0;
}

static int group_all(const struct merge_cmd *c, const struct fleet_catalog *cat,
		     struct group **groups, size_t *ngroups)
{
	static char names[GROUPS_OF_ONE][FLEET_GROUP_NAME_MAX];
	struct group *g;
	size_t i, j, n;

	for (i = 0; i < cat->n; i++) {
		n = fleet_merge__groups(&cat->items[i], c->keys, c->nkeys, names, GROUPS_OF_ONE);
		for (j = 0; j < n; j++) {
			g = find_group(groups, ngroups, names[j]);
			if (!g || add_member(g, i)) {
				log_error("merge: more than %d groups, or out of memory",
					  GROUPS_MAX);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/* name_files - each group's file name; two groups whose names make the
 * same one ("role=a b" and "role=a_b") both get a digest of their own
 * name after it, so that neither replaces the other. */
static void name_files(struct group *groups, size_t n)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	size_t i, j;
	bool clash;

	for (i = 0; i < n; i++)
		fleet_merge__file_name(groups[i].name, groups[i].file, FLEET_GROUP_NAME_MAX);
	for (i = 0; i < n; i++) {
		for (j = 0, clash = false; j < n && !clash; j++)
			clash = j != i && !strcmp(groups[i].file, groups[j].file);
		if (!clash)
			continue;
		sha256(groups[i].name, strlen(groups[i].name), d);
		hex_lower(d, 4, hex);
		snprintf(groups[i].file + strlen(groups[i].file), 16, "-%.8s", hex);
	}
}

/* --- one group ---------------------------------------------------------------- */

struct merged {
	const struct cli_store *s;
	const struct group *g;
	const struct profile *p;
	bool *used;	 /* members summed (others were left out) */
	int64_t samples; /* of the group's period */
	uint64_t bytes;	 /* members' profiles read, decompressed */
};

static int write_sidecar(FILE *f, void *ctx)
{
	const struct merged *m = ctx;
	const struct fleet_catalog *cat = &m->s->catalog;
	char buf[UPLOAD_KEY_MAX + 600];
	struct json_writer w;
	size_t i;

	json_init(&w, f);
	json_object_begin(&w);
	json_kv_string(&w, "format", "trapd-merge/1");
	json_kv_string(&w, "trapd_version", TRAPD_VERSION);
	json_kv_string(&w, "store", m->s->store->name);
	json_kv_string(&w, "group", m->g->name);
	json_kv_i64(&w, "period_ns", m->p->period_ns);
	json_kv_i64(&w, "samples", m->samples);
	json_kv_i64(&w, "cpu_ns", profile__cpu_ns(m->p));
	json_kv_i64(&w, "duration_ns", m->p->duration_ns);
	json_key(&w, "members");
	json_array_begin(&w);
	for (i = 0; i < m->g->n; i++) {
		const struct fleet_capture *c = &cat->items[m->g->members[i]];

		if (!m->used[i])
			continue;
		json_object_begin(&w);
		snprintf(buf, sizeof(buf), "%s%s.pb.zst", m->s->store->url_base, c->key);
		json_kv_string(&w, "url", buf);
		json_kv_string(&w, "host", c->host);
		json_kv_string(&w, "start", fleet_time__format(c->start_ns, buf, sizeof(buf)));
		json_kv_string(&w, "rules", c->rules);
		json_kv_u64(&w, "samples", c->samples);
		json_kv_i64(&w, "period_ns", c->period_ns);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_object_end(&w);
	return json_finish(&w);
}

static int64_t shortest_period(const struct fleet_catalog *cat, const struct group *g)
{
	int64_t p = 0;
	size_t i;

	for (i = 0; i < g->n; i++) {
		int64_t q = cat->items[g->members[i]].period_ns;

		if (q > 0 && (!p || q < p))
			p = q;
	}
	return p;
}

/* over_bounds - why summing @p (NULL: before it is read) into @m's group
 * would pass what a group may cost (fleet_merge.h), or NULL. */
static const char *over_bounds(const struct merged *m, const struct profile *dst,
			       const struct profile *p, char *why, size_t len)
{
	if (m->bytes > FLEET_GROUP_MAX_BYTES)
		snprintf(why, len, "the group has read %llu MiB of profiles, its bound",
			 FLEET_GROUP_MAX_BYTES >> 20);
	else if (!p)
		return NULL;
	else if (dst->nstrings + (uint64_t)p->nstrings > FLEET_GROUP_MAX_STRINGS)
		snprintf(why, len, "the group would hold more than %u strings",
			 FLEET_GROUP_MAX_STRINGS);
	else if (dst->nsamples + (uint64_t)p->nsamples > FLEET_GROUP_MAX_SAMPLES)
		snprintf(why, len, "the group would hold more than %u samples",
			 FLEET_GROUP_MAX_SAMPLES);
	else
		return NULL;
	return why;
}

/* add_member_profile - fetch member @i of @m's group and sum it in.
 * Returns 0, 1 (left out: not there, not its digest, unreadable, or past
 * a bound; warned) or a negative errno (logged). */
static int add_member_profile(struct cli_store *s, struct merged *m, struct profile *dst, size_t i)
{
	const struct fleet_capture *c = &s->catalog.items[m->g->members[i]];
	char path[PATH_MAX], err[1600], why[128];
	struct profile *p = NULL;
	size_t bytes = 0;
	int e;

	if (over_bounds(m, dst, NULL, why, sizeof(why))) { /* nothing more is read for it */
		log_warn("%s%s: left out of %s: %s", s->store->url_base, c->key, m->g->name, why);
		return 1;
	}
	e = fleet_fetch__profile(s->store, s->cache, c->key, false, path, sizeof(path), err,
				 sizeof(err));
	if (e == -ENOENT || e == -EBADMSG) {
		log_warn("%s: left out", err);
		return 1;
	}
	if (!e)
		e = profile_file__read_bounded(path, FLEET_PROFILE_MAX, &bytes, &p, err,
					       sizeof(err));
	m->bytes += bytes;
	if (e == -EBADMSG || e == -E2BIG) {
		/* the cache's path means nothing to the user: the capture's URL */
		log_warn("%s%s: %s: left out", s->store->url_base, c->key,
			 strstr(err, ": ") ? strstr(err, ": ") + 2 : err);
		return 1;
	}
	if (!e && over_bounds(m, dst, p, why, sizeof(why))) {
		log_warn("%s%s: left out of %s: %s", s->store->url_base, c->key, m->g->name, why);
		profile__free(p);
		return 1;
	}
	if (!e && (e = profile_merge__add_by_time(dst, p)))
		snprintf(err, sizeof(err), "%s%s: cannot be summed: %s", s->store->url_base, c->key,
			 strerror(-e));
	profile__free(p);
	if (e)
		log_error("%s", err);
	return e;
}

/* merge_group - the group's profile and sidecar into @dir. */
static int merge_group(const struct merge_cmd *c, struct cli_store *s, const struct group *g)
{
	struct merged m = { .s = s, .g = g, .used = calloc(g->n, sizeof(bool)) };
	char file[PATH_MAX], side[PATH_MAX], err[512];
	char shown[4 * FLEET_GROUP_NAME_MAX];
	struct profile *dst = profile__new();
	size_t i, used = 0;
	int e = dst && m.used ? 0 : -ENOMEM;

	if (!e)
		dst->period_ns = shortest_period(&s->catalog, g);
	for (i = 0; !e && i < g->n; i++) {
		e = add_member_profile(s, &m, dst, i);
		if (!e)
			m.used[i] = true, used++;
		else if (e == 1)
			e = 0;
	}
	m.p = dst;
	/* its time in periods of the group, as `trapd report --phase all`
	 * counts it: a history's samples are of the recorder's rate */
	m.samples =
		dst->period_ns > 0 ? profile__cpu_ns(dst) / dst->period_ns : profile__total(dst);
	snprintf(file, sizeof(file), "%s/%s.pb.zst", c->out_dir, g->file);
	snprintf(side, sizeof(side), "%s/%s.json", c->out_dir, g->file);
	if (!e && !used) {
		log_error("%s: no capture of the group could be read", g->name);
		e = -ENOENT;
	}
	if (!e && ((e = profile_file__write(file, dst, err, sizeof(err))) ||
		   (e = atomic_file_write(side, write_sidecar, &m, err, sizeof(err)))))
		log_error("%s", err);
	if (!e)
		printf("%-40s  %8zu  %10lld  %10.2fs  %s\n",
		       safe_text_str(g->name, shown, sizeof(shown)), used, (long long)m.samples,
		       (double)m.samples * (double)dst->period_ns / 1e9, file);
	profile__free(dst);
	free(m.used);
	return e;
}

/* prefetch - every profile into the cache, --jobs at a time, before the
 * groups read them one by one. */
static void prefetch(const struct merge_cmd *c, struct cli_store *s)
{
	const char **keys = calloc(s->catalog.n, sizeof(*keys));
	size_t i;

	if (!keys)
		return; /* read one by one only */
	for (i = 0; i < s->catalog.n; i++)
		keys[i] = s->catalog.items[i].key;
	fleet_fetch__profiles(s->store, s->cache, keys, s->catalog.n,
			      s->store->cfg.scheme == UPLOAD_FILE ? 1
			      : c->store.jobs			  ? c->store.jobs
								  : CLI_STORE_DEFAULT_JOBS);
	free(keys);
}

int cmd_merge(int argc, char **argv)
{
	struct merge_cmd c = { 0 };
	struct group *groups = NULL;
	size_t ngroups = 0, i;
	struct cli_store s;
	int e, status;

	e = parse(argc, argv, &c);
	if (e) {
		if (e > 0)
			usage(stdout);
		return e > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (mkdir(c.out_dir, 0755) && errno != EEXIST) {
		log_error("-o %s: %s", c.out_dir, strerror(errno));
		return TRAPD_EXIT_USAGE;
	}
	status = cli_store__list(&c.store, true, &s);
	if (!status && !s.catalog.n) {
		log_error("%s: no capture matches the filters", s.store->name);
		status = TRAPD_EXIT_FAILURE;
	}
	if (!status)
		prefetch(&c, &s);
	if (!status && group_all(&c, &s.catalog, &groups, &ngroups))
		status = TRAPD_EXIT_FAILURE;
	if (!status)
		name_files(groups, ngroups);
	if (!status)
		printf("%-40s  %8s  %10s  %11s  %s\n", "GROUP", "CAPTURES", "SAMPLES", "CPU TIME",
		       "FILE");
	for (i = 0; !status && i < ngroups; i++)
		if (merge_group(&c, &s, &groups[i]))
			status = TRAPD_EXIT_FAILURE;
	for (i = 0; i < ngroups; i++)
		free(groups[i].members);
	free(groups);
	cli_store__close(&s);
	return status;
}
