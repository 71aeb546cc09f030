// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_captures.c - `trapd captures ls STORE`: the captures of a store of
 * the fleet's captures, filtered, as a table or as JSON, without
 * downloading them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rules/units.h"
#include "trapd/cli/cli_args.h"
#include "trapd/cli/cli_json.h"
#include "trapd/cli/cli_store.h"
#include "trapd/cli/commands.h"
#include "trapd/fleet/fleet_time.h"
#include "trapd/util/json.h"
#include "trapd/util/log.h"
#include "upload/safe_text.h"

enum { OPT_JSON = 256, OPT_BRIEF };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd captures ls STORE [filters] [--json]\n\n"
		"List the captures in a store the uploader writes to, oldest first: when\n"
		"they started, the host, what triggered them, the rules that fired, the\n"
		"window's length, the samples stored and lost, the labels and the\n"
		"capture's URL (give it to trapd report or trapd diff). Only keys and,\n"
		"where the store lists no metadata (S3, directories), the sidecars are\n"
		"read; sidecars are cached, so the next listing reads only new ones.\n\n" CLI_STORE_HELP
		"\nOutput:\n"
		"      --json         one JSON object: captures, problems, requests\n"
		"  -h, --help         this text\n\n"
		"Examples:\n"
		"  trapd captures ls /etc/trapd/rules.ini --since 1d --rule web-cpu\n"
		"  trapd captures ls s3://trapd-captures/fleet --label role=db --json\n"
		"  trapd captures ls /srv/captures --host web-1 --since 2026-11-20\n");
}

static int parse(int argc, char **argv, struct cli_store_args *a, bool *json, bool *brief)
{
	static const struct option longopts[] = {
		CLI_STORE_LONGOPTS,
		{ "json", no_argument, NULL, OPT_JSON },
		{ "brief", no_argument, NULL, OPT_BRIEF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, e;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == OPT_JSON || opt == OPT_BRIEF) {
			*(opt == OPT_JSON ? json : brief) = true;
			continue;
		}
		e = cli_store__option(a, opt, optarg);
		if (e < 0)
			return e;
		if (!e) {
			cli_bad_option("captures ls", longopts, opt, argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind + 1 != argc) {
		log_error(optind >= argc
				  ? "no STORE given; usage: trapd captures ls STORE (see "
				    "--help)"
				  : "unexpected argument '%s': trapd captures ls reads one STORE",
			  optind < argc ? argv[optind + 1] : "");
		return -EINVAL;
	}
	a->store = argv[optind];
	return 0;
}

/* labels_text - "k=v,k=v", made safe to print. */
static const char *labels_text(const struct fleet_capture *c, char *out, size_t len)
{
	char raw[1024];
	size_t i, used = 0;

	raw[0] = '\0';
	for (i = 0; i < c->nlabels && used < sizeof(raw); i++)
		used += (size_t)snprintf(raw + used, sizeof(raw) - used, "%s%s=%s", i ? "," : "",
					 c->labels[i].key, c->labels[i].value);
	return safe_text_str(*raw ? raw : "-", out, len);
}

static void print_table(const struct cli_store *s)
{
	const struct fleet_catalog *cat = &s->catalog;
	char when[32], dur[32], lost[24], samples[24], labels[1200], host[300], rules[400],
		trig[40], key[4 * UPLOAD_KEY_MAX];
	size_t i;

	printf("%-20s  %-14s  %-7s  %-16s  %8s  %8s  %6s  %-20s  %s\n", "START (UTC)", "HOST",
	       "TRIGGER", "RULES", "DURATION", "SAMPLES", "LOST", "LABELS", "CAPTURE");
	for (i = 0; i < cat->n; i++) {
		const struct fleet_capture *c = &cat->items[i];

		units_format_duration_short(c->duration_ns, dur, sizeof(dur));
		snprintf(lost, sizeof(lost), c->lost_known ? "%llu" : "-",
			 (unsigned long long)c->lost);
		snprintf(samples, sizeof(samples), c->described ? "%llu" : "-",
			 (unsigned long long)c->samples);
		if (!c->described) { /* --brief: the key's day, nothing read */
			snprintf(when, sizeof(when), "%04d-%02d-%02d", c->day / 10000,
				 c->day / 100 % 100, c->day % 100);
			snprintf(dur, sizeof(dur), "-");
		}
		if (c->described)
			fleet_time__format(c->start_ns, when, sizeof(when));
		safe_text_str(c->key, key, sizeof(key)); /* a directory's keys are anyone's */
		printf("%-20s  %-14s  %-7s  %-16s  %8s  %8s  %6s  %-20s  %s%s.pb.zst\n", when,
		       safe_text_str(c->host, host, sizeof(host)),
		       safe_text_str(*c->trigger ? c->trigger : "-", trig, sizeof(trig)),
		       safe_text_str(*c->rules ? c->rules : "-", rules, sizeof(rules)), dur,
		       samples, lost, labels_text(c, labels, sizeof(labels)), s->store->url_base,
		       key);
	}
}

static void json_capture(struct json_writer *w, const struct cli_store *s,
			 const struct fleet_capture *c)
{
	char buf[UPLOAD_KEY_MAX + 600];
	size_t i;

	json_object_begin(w);
	snprintf(buf, sizeof(buf), "%s%s.pb.zst", s->store->url_base, c->key);
	json_kv_string(w, "url", buf);
	json_kv_string(w, "key", c->key);
	json_kv_string(w, "host", c->host);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02d", c->day / 10000, c->day / 100 % 100,
		 c->day % 100);
	json_kv_string(w, "day", buf);
	json_key(w, "described"); /* false: --brief, only the key's fields are known */
	json_bool(w, c->described);
	json_kv_string(w, "start", fleet_time__format(c->start_ns, buf, sizeof(buf)));
	json_kv_i64(w, "start_ns", c->start_ns);
	json_kv_u64(w, "duration_ns", c->duration_ns);
	json_kv_string(w, "trigger", c->trigger);
	json_key(w, "rules");
	json_array_begin_inline(w);
	for (const char *p = c->rules; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
		json_string(w, buf);
		p += n + (p[n] == ',');
	}
	json_array_end(w);
	json_key(w, "labels");
	json_object_begin(w);
	for (i = 0; i < c->nlabels; i++)
		json_kv_string(w, c->labels[i].key, c->labels[i].value);
	json_object_end(w);
	json_kv_u64(w, "samples", c->samples);
	json_key(w, "lost");
	if (c->lost_known)
		json_u64(w, c->lost);
	else
		json_null(w);
	json_kv_i64(w, "period_ns", c->period_ns);
	json_kv_string(w, "sha256", c->sha256);
	json_kv_u64(w, "size", c->profile_size);
	json_object_end(w);
}

static int print_json(const struct cli_store *s)
{
	const struct fleet_catalog *cat = &s->catalog;
	struct json_writer w;
	size_t i;

	json_init(&w, stdout);
	json_object_begin(&w);
	json_kv_string(&w, "store", s->store->name);
	json_key(&w, "captures");
	json_array_begin(&w);
	for (i = 0; i < cat->n; i++)
		json_capture(&w, s, &cat->items[i]);
	json_array_end(&w);
	json_key(&w, "problems");
	json_array_begin(&w);
	for (i = 0; i < cat->nproblems; i++)
		json_string(&w, cat->problems[i]);
	json_array_end(&w);
	json_key(&w, "listing");
	json_object_begin(&w);
	json_kv_u64(&w, "requests", s->store->requests);
	json_kv_u64(&w, "pages", cat->pages);
	json_kv_u64(&w, "objects", cat->objects);
	json_kv_u64(&w, "sidecars_read", cat->sidecars_read);
	json_kv_u64(&w, "sidecars_cached", cat->sidecars_cached);
	json_kv_u64(&w, "left_out", cat->problems_total);
	json_object_end(&w);
	json_object_end(&w);
	return json_finish(&w) ? TRAPD_EXIT_FAILURE : TRAPD_EXIT_OK;
}

static int cmd_ls(int argc, char **argv)
{
	struct cli_store_args a = { 0 };
	struct cli_store s;
	bool json = false, brief = false;
	int e, status;

	e = parse(argc, argv, &a, &json, &brief);
	if (e)
		return e > 0 ? (usage(stdout), TRAPD_EXIT_OK) : TRAPD_EXIT_USAGE;
	status = cli_store__list(&a, !brief, &s);
	if (!status && json) {
		status = print_json(&s);
	} else if (!status) {
		print_table(&s);
		log_info("%zu capture%s from %s: %llu requests, %llu sidecars read, %llu from the "
			 "cache",
			 s.catalog.n, s.catalog.n == 1 ? "" : "s", s.store->name,
			 (unsigned long long)s.store->requests,
			 (unsigned long long)s.catalog.sidecars_read,
			 (unsigned long long)s.catalog.sidecars_cached);
	}
	cli_store__close(&s);
	return status;
}

int cmd_captures(int argc, char **argv)
{
	bool json = cli_wants_json(argc, argv);

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return TRAPD_EXIT_OK;
	}
	if (argc < 2 || strcmp(argv[1], "ls")) {
		log_error("usage: trapd captures ls STORE [filters] [--json] (see --help)");
		return TRAPD_EXIT_USAGE;
	}
	if (json)
		cli_json_errors_begin();
	argv[1] = "captures ls";
	return json ? cli_json_errors_end(cmd_ls(argc - 1, argv + 1)) : cmd_ls(argc - 1, argv + 1);
}
