/* cmd_control.c - `trapd arm` and `trapd status`: talk to a running
 * daemon over its control socket. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"
#include "rules/units.h"
#include "trapd/commands.h"
#include "trapd/control.h"
#include "trapd/log.h"

#define DEFAULT_SOCKET "/run/trapd/control.sock"

struct control_cmd {
	const char *socket;
	const char *rules; /* take the socket's path from this rules file */
	struct control_request req;
};

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
		"      --json           one JSON object instead of the table\n"
		"  -S, --socket PATH    the daemon's control socket (default %s)\n"
		"  -c, --config RULES   read the socket's path from the daemon's rules file\n"
		"  -h, --help           this text\n",
		DEFAULT_SOCKET);
}

/* parse - options shared by arm and status. Returns 0, 1 for --help,
 * -EINVAL (reported). */
static int parse(struct control_cmd *c, int argc, char **argv, bool arm)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "socket", required_argument, NULL, 'S' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
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
		} else if (opt == 'j' && !arm) {
			c->req.json = true;
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
				  argv[optind - 1], arm ? "arm" : "status");
			return -EINVAL;
		}
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
			  arm ? "arm" : "status");
		return -EINVAL;
	}
	return 0;
}

/* socket_from_rules - the control_socket of a rules file. */
static int socket_from_rules(const char *path, char *out, size_t len)
{
	struct rules_errors errs = { 0 };
	struct rules *r = NULL;
	size_t i;
	int e;

	e = rules__load(path, &r, &errs);
	for (i = 0; e && i < errs.n; i++)
		log_error("%s", errs.msgs[i]);
	rules_errors__free(&errs);
	if (e)
		return e;
	snprintf(out, len, "%s", r->global.control_socket);
	rules__free(r);
	return 0;
}

static int run(struct control_cmd *c)
{
	char path[4096], err[1024];
	int e;

	if (c->rules) {
		if (socket_from_rules(c->rules, path, sizeof(path)))
			return TRAPD_EXIT_USAGE;
		c->socket = path;
	}
	e = control__call(c->socket ? c->socket : DEFAULT_SOCKET, &c->req, stdout, err,
			  sizeof(err));
	if (!e)
		return TRAPD_EXIT_OK;
	log_error("%s", err);
	return e == -EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
}

int cmd_arm(int argc, char **argv)
{
	struct control_cmd c = { .req.verb = CONTROL_ARM };
	int e = parse(&c, argc, argv, true);

	if (e) {
		if (e > 0)
			usage_arm(stdout);
		return e > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	return run(&c);
}

int cmd_status(int argc, char **argv)
{
	struct control_cmd c = { .req.verb = CONTROL_STATUS };
	int e = parse(&c, argc, argv, false);

	if (e) {
		if (e > 0)
			usage_status(stdout);
		return e > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	return run(&c);
}
