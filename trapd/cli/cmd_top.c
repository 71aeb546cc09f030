// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_top.c - `trapd top`: the hottest functions of the last seconds,
 * from a running daemon's flight recorder, redrawn every second. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "trapd/cli/cli_args.h"
#include "trapd/cli/commands.h"
#include "trapd/cli/top_view.h"
#include "trapd/daemon/control.h"
#include "trapd/profile/pprof.h"
#include "trapd/util/log.h"

struct top_cmd {
	const char *socket;
	const char *rules;
	uint32_t seconds;
	enum top_by by;
	size_t rows; /* 0: what the terminal holds */
	bool once;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: trapd top [-s SECONDS] [--by function|process|cgroup] [-n ROWS]\n"
		"                 [--once] [-S SOCKET | -c RULES]\n\n"
		"Show what the host ran in the last seconds, from the running daemon's\n"
		"flight recorder ([global] history_frequency), redrawn every second until\n"
		"Ctrl-C: the hottest functions (self and total), or the processes or\n"
		"cgroups using the most CPU with their hottest function. Shares are of one\n"
		"CPU: a process busy on two CPUs is at 200%%.\n\n"
		"Options:\n"
		"  -s, --seconds N      the last N seconds (1 to %d, default %d)\n"
		"      --by WHAT        function (default), process or cgroup\n"
		"  -n, --rows N         rows shown (default: what the terminal holds, or 20)\n"
		"      --once           print one screen and exit (scripts, logs)\n"
		"  -S, --socket PATH    the daemon's control socket\n"
		"  -c, --config RULES   read the socket's path from the daemon's rules file\n"
		"  -h, --help           this text\n\n"
		"Examples:\n"
		"  trapd top\n"
		"  trapd top --by process -s 10\n"
		"  trapd top --once --by cgroup -n 5\n",
		CONTROL_TOP_MAX_SECONDS, CONTROL_TOP_DEFAULT_SECONDS);
}

enum { OPT_BY = 256, OPT_ONCE };

/* the options, by their long names (cli_bad_option suggests among them) */
static const struct option longopts[] = {
	{ "seconds", required_argument, NULL, 's' }, { "rows", required_argument, NULL, 'n' },
	{ "by", required_argument, NULL, OPT_BY },   { "once", no_argument, NULL, OPT_ONCE },
	{ "socket", required_argument, NULL, 'S' },  { "config", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },	     { NULL, 0, NULL, 0 },
};

static int parse_option(struct top_cmd *c, int opt, char **argv)
{
	size_t n;
	char *end;

	switch (opt) {
	case 's':
		n = strtoul(optarg, &end, 10);
		if (*end || !n || n > CONTROL_TOP_MAX_SECONDS || optarg[0] == '-') {
			log_error("bad --seconds '%s': expected 1 to %d", optarg,
				  CONTROL_TOP_MAX_SECONDS);
			return -EINVAL;
		}
		c->seconds = (uint32_t)n;
		return 0;
	case 'n':
		return cli_parse_top(optarg, &c->rows);
	case OPT_BY:
		if (top_by__parse(optarg, &c->by)) {
			log_error("bad --by '%s': expected function, process or cgroup", optarg);
			return -EINVAL;
		}
		return 0;
	case OPT_ONCE:
		c->once = true;
		return 0;
	case 'S':
		c->socket = optarg;
		return 0;
	case 'c':
		c->rules = optarg;
		return 0;
	default:
		return cli_bad_option("top", longopts, opt, argv[optind - 1]);
	}
}

static int parse_args(struct top_cmd *c, int argc, char **argv)
{
	int opt;

	c->seconds = CONTROL_TOP_DEFAULT_SECONDS;
	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":s:n:S:c:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (parse_option(c, opt, argv))
			return -EINVAL;
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'; see 'trapd top --help'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* fetch - the recorder's last seconds from the daemon. Returns 0, or the
 * negative errno of control__call (-EINVAL: the daemon said usage) or of
 * decoding, with @err filled. */
static int fetch(const char *path, uint32_t seconds, struct profile **out, char *err, size_t errlen)
{
	struct control_request req = { .verb = CONTROL_TOP, .seconds = seconds };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int e;

	if (!m)
		return -ENOMEM;
	e = control__call(path, &req, m, err, errlen);
	fclose(m);
	if (!e && pprof_decode(buf, len, out, err, errlen))
		e = -EPROTO;
	free(buf);
	return e;
}

/* screen_size - the terminal's rows and columns, or 24 x 100. */
static void screen_size(size_t *rows, size_t *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 100;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* draw - one screen, written at once (no flicker): cleared first on a
 * terminal. */
static int draw(const struct top_cmd *c, const struct profile *p, bool tty)
{
	size_t rows, cols, len = 0;
	char *buf = NULL;
	FILE *m = open_memstream(&buf, &len);
	int e;

	if (!m)
		return -ENOMEM;
	screen_size(&rows, &cols);
	if (!tty)
		cols = 160;
	e = top_view__write(m, p, c->by, c->rows ? c->rows : tty && rows > 5 ? rows - 4 : 20, cols);
	fclose(m);
	if (!e) {
		if (tty)
			fputs("\033[H\033[2J", stdout);
		fwrite(buf, 1, len, stdout);
		fflush(stdout);
	}
	free(buf);
	return e;
}

/* pause_a_second - until the next redraw, or a signal. */
static void pause_a_second(void)
{
	struct timespec ts = { 1, 0 };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cmd_top(int argc, char **argv)
{
	struct top_cmd c = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct profile *p;
	char path[4096], err[1024];
	bool tty;
	int e;

	e = parse_args(&c, argc, argv);
	if (e) {
		if (e > 0)
			usage(stdout);
		return e > 0 ? TRAPD_EXIT_OK : TRAPD_EXIT_USAGE;
	}
	if (cli_control_socket(c.socket, c.rules, path, sizeof(path)))
		return TRAPD_EXIT_USAGE;
	tty = !c.once && isatty(STDOUT_FILENO);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		p = NULL;
		e = fetch(path, c.seconds, &p, err, sizeof(err));
		if (e) {
			log_error("%s", err);
			return e == -EINVAL ? TRAPD_EXIT_USAGE : TRAPD_EXIT_FAILURE;
		}
		e = draw(&c, p, tty);
		profile__free(p);
		if (e) {
			log_error("out of memory");
			return TRAPD_EXIT_FAILURE;
		}
		if (c.once)
			break;
		pause_a_second();
		if (!tty)
			printf("\n");
	}
	return TRAPD_EXIT_OK;
}
