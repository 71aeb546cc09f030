// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_control.c - `trapd arm`, `trapd status` and `trapd upload`: talk
 * to a running daemon over its control socket (`trapd upload --direct`
 * sends the spool itself, without one). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rules/rules.h"
#include "rules/units.h"
#include "trapd/cli/cli_json.h"
#include "trapd/cli/commands.h"
#include "trapd/daemon/control.h"
#include "trapd/daemon/shipping.h"
#include "trapd/util/log.h"
#include "upload/spool.h"

#define DEFAULT_SOCKET "/run/trapd/control.sock"

struct control_cmd {
	const char *socket;
	const char *rules; /* take the socket's path from this rules file */
	bool direct;	   /* upload: no daemon, send the spool from here */
	struct control_request req;
};

static const char *const verb_names[] = { "status", "arm", "upload" };

static void usage_arm(FILE *out)
{
	fprintf(out,
		"Usage: trapd arm [RULE] [-d DUR] [-S SOCKET | -c RULES]\n\n"
		"Ask the running daemon for a capture now: as RULE would capture (its\n"
		"scope and frequency; it counts against the rule's cooldown and limits),\n"
		"or without RULE as [global] manual_* say. A capture already running is\n"
		"joined and extended instead.\n\n"
		"Options:\n"
		"  -d, --duration DUR   window length instead of the rule's: 500ms, 30s, 2m\n"
		"  -S, --socket PATH    the daemon's control socket (default %s)\n"
		"  -c, --config RULES   read the socket's path from the daemon's rules file\n"
		"  -h, --help           this text\n\n"
		"Examples:\n"
		"  trapd arm\n"
		"  trapd arm web-cpu -d 30s\n",
		DEFAULT_SOCKET);
}

static void usage_status(FILE *out)
{
	fprintf(out,
		"Usage: trapd status [--json] [-S SOCKET | -c RULES]\n\n"
		"Show the running daemon's rules (state, value, threshold, last fire and\n"
		"why it is not firing), the capture in progress and the spool.\n\n"
		"Options:\n"
		"      --json           one JSON object instead of the table; an error is\n"
		"                       one too: {\"error\": {\"message\": ..., \"exit_status\": N}}\n"
		"  -S, --socket PATH    the daemon's control socket (default %s)\n"
		"  -c, --config RULES   read the socket's path from the daemon's rules file\n"
		"  -h, --help           this text\n",
		DEFAULT_SOCKET);
}

static void usage_upload(FILE *out)
{
	fprintf(out,
		"Usage: trapd upload [--failed] [-S SOCKET | -c RULES]\n"
		"       trapd upload --direct -c RULES [--failed]\n\n"
		"Send the spool's captures to the [upload] backend now, without waiting\n"
		"for the backoff after a failure. With --failed, captures the backend\n"
		"refused for good (a 403, say, since fixed) are tried again too.\n"
		"The first form asks the running daemon; --direct sends from this process\n"
		"and exits when the spool is empty (0) or a capture could not go (1).\n\n"
		"Options:\n"
		"      --failed         also retry captures marked failed\n"
		"      --direct         no daemon: upload from here (needs -c)\n"
		"  -S, --socket PATH    the daemon's control socket (default %s)\n"
		"  -c, --config RULES   the daemon's rules file\n"
		"  -h, --help           this text\n\n"
		"Examples:\n"
		"  trapd upload --failed\n"
		"  trapd upload --direct -c /etc/trapd/rules.ini\n",
		DEFAULT_SOCKET);
}

/* parse - options shared by arm, status and upload. Returns 0, 1 for
 * --help, -EINVAL (reported). */
static int parse(struct control_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "socket", required_argument, NULL, 'S' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "failed", no_argument, NULL, 'f' },
		{ "direct", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum control_verb verb = c->req.verb;
	bool arm = verb == CONTROL_ARM;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, arm ? "d:S:c:h" : "S:c:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == 'S') {
			c->socket = optarg;
		} else if (opt == 'c') {
			c->rules = optarg;
		} else if (opt == 'j' && verb == CONTROL_STATUS) {
			c->req.json = true;
		} else if (opt == 'f' && verb == CONTROL_UPLOAD) {
			c->req.failed = true;
		} else if (opt == 'D' && verb == CONTROL_UPLOAD) {
			c->direct = true;
		} else if (opt == 'd' && arm) {
			if (units_parse_duration(optarg, &c->req.duration_ns)) {
				log_error("bad duration '%s': expected a length like 500ms, 10s or "
					  "2m",
					  optarg);
				return -EINVAL;
			}
		} else {
			log_error("%s '%s'; see 'trapd %s --help'",
				  opt == ':' || (opt == '?' && optopt && strchr("dSc", optopt))
					  ? "missing value for"
					  : "unknown option",
				  argv[optind - 1], verb_names[verb]);
			return -EINVAL;
		}
	}
	if (c->direct && !c->rules) {
		log_error("--direct needs the rules file: -c RULES");
		return -EINVAL;
	}
	if (arm && optind < argc) {
		if (strlen(argv[optind]) >= sizeof(c->req.rule)) {
			log_error("no rule can be named '%s' (too long)", argv[optind]);
			return -EINVAL;
		}
		snprintf(c->req.rule, sizeof(c->req.rule), "%s", argv[optind++]);
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'; see 'trapd %s --help'", argv[optind],
			  verb_names[verb]);
		return -EINVAL;
	}
	return 0;
}

/* load_rules - @path loaded, its errors printed. */
static int load_rules(const char *path, struct rules **r)
{
	struct rules_errors errs = { 0 };
	size_t i;
	int e;

	e = rules__load(path, r, &errs);
	for (i = 0; e && i < errs.n; i++)
		log_error("%s", errs.msgs[i]);
	rules_errors__free(&errs);
	return e;
}

/* socket_from_rules - the control_socket of a rules file. */
static int socket_from_rules(const char *path, char *out, size_t len)
{
	struct rules *r = NULL;
	int e = load_rules(path, &r);

	if (e)
		return e;
	snprintf(out, len, "%s", r->global.control_socket);
	rules__free(r);
	return 0;
}

int cli_control_socket(const char *socket, const char *rules, char *out, size_t len)
{
	if (rules)
		return socket_from_rules(rules, out, len);
	snprintf(out, len, "%s", socket ? socket : DEFAULT_SOCKET);
	return 0;
}

/* drained - whether a direct upload is over: the spool was looked at and
 * nothing is left to send, or a transient failure (no point waiting out
 * a backoff here). */
static bool drained(const struct uploader_status *st)
{
	return st->transient_failures || (st->scans && !st->pending && !st->in_flight[0]);
}

/* upload_direct - `trapd upload --direct`: the uploader on this process
 * until the spool is drained. */
static int upload_direct(struct control_cmd *c)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	struct uploader *u = NULL;
	struct uploader_status st;
	struct rules *r = NULL;
	char err[512];
	int e;

	if (load_rules(c->rules, &r))
		return TRAPD_EXIT_USAGE;
	if (c->req.failed && spool_clear_failed(r->global.spool_dir, NULL) < 0)
		log_warn("%s: cannot clear the failed marks", r->global.spool_dir);
	e = shipping__start(r, true, &u, err, sizeof(err));
	if (!e && !u) {
		log_error("%s: no [upload] section: captures stay in the spool", c->rules);
		e = -EINVAL;
	} else if (e == -EPERM && !shipping__spool_trusted(r, err, sizeof(err))) {
		log_error("%s: %s", c->rules, err); /* the spool, not [upload] */
	} else if (e) {
		log_error("%s:%d: [upload]: %s", c->rules, r->upload.line, err);
	}
	if (e) {
		rules__free(r);
		return e == -ENOMEM ? TRAPD_EXIT_FAILURE : TRAPD_EXIT_USAGE;
	}
	do {
		nanosleep(&tick, NULL);
		uploader__status(u, &st);
	} while (!drained(&st));
	uploader__stop(u);
	printf("%llu sent, %llu pending, %llu failed\n", (unsigned long long)st.sent,
	       (unsigned long long)st.pending, (unsigned long long)st.failed);
	rules__free(r);
	return st.pending || st.failed ? TRAPD_EXIT_FAILURE : TRAPD_EXIT_OK;
}

static int run(struct control_cmd *c)
{
	char path[4096], err[1024];
	int e;

	if (c->direct)
		return upload_direct(c);
	if (cli_control_socket(c->socket, c->rules, path, sizeof(path)))
		return TRAPD_EXIT_USAGE;
	e = control__call(path, &c->req, stdout, err, sizeof(err));
	if (!e)
		return TRAPD_EXIT_OK;
	log_error("%s", err);
	return e == -EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
}

int cmd_arm(int argc, char **argv)
{
	struct control_cmd c = { .req.verb = CONTROL_ARM };
	int e = parse(&c, argc, argv);

	if (e) {
		if (e > 0)
			usage_arm(stdout);
		return e > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	return run(&c);
}

/* Under --json, an error is a JSON object on stdout (cli_json.h). */
int cmd_status(int argc, char **argv)
{
	struct control_cmd c = { .req.verb = CONTROL_STATUS };
	bool json = cli_wants_json(argc, argv);
	int e;

	if (json)
		cli_json_errors_begin();
	e = parse(&c, argc, argv);
	if (e > 0) {
		usage_status(stdout);
		e = TRAPD_EXIT_OK;
	} else {
		e = e ? TRAPD_EXIT_USAGE : run(&c);
	}
	return json ? cli_json_errors_end(e) : e;
}

int cmd_upload(int argc, char **argv)
{
	struct control_cmd c = { .req.verb = CONTROL_UPLOAD };
	int e = parse(&c, argc, argv);

	if (e) {
		if (e > 0)
			usage_upload(stdout);
		return e > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	return run(&c);
}
