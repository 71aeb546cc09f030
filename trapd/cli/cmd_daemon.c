// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cmd_daemon.c - `trapd daemon -c RULES`: the always-on guard. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "trapd/cli/commands.h"
#include "trapd/daemon/daemon.h"
#include "trapd/util/log.h"
#include "trapd/util/privileges.h"

static void usage(FILE *out)
{
	fprintf(out, "Usage: trapd daemon -c RULES [--log auto|stderr|syslog]\n\n"
		     "Watch the signals the rules file names (cgroup CPU, PSI, processes) and,\n"
		     "when a rule fires, sample stacks for its window and write the capture to\n"
		     "the spool directory. Runs in the foreground (systemd: trapd.service).\n\n"
		     "Options:\n"
		     "  -c, --config RULES  the rules file (docs/rules.md); check it first with\n"
		     "                      'trapd check -c RULES'\n"
		     "      --log WHERE     stderr, syslog, or auto (default): stderr on a\n"
		     "                      terminal, under systemd's journal or where no syslog\n"
		     "                      daemon listens, syslog otherwise; errors reach\n"
		     "                      stderr whichever is chosen\n"
		     "  -h, --help          this text\n\n"
		     "Signals:\n"
		     "  SIGHUP   reload RULES; a file with errors is rejected, the old rules stay\n"
		     "  SIGUSR1  a manual capture ([global] manual_duration, manual_sample)\n"
		     "  SIGTERM  stop; a running capture is cut short and written\n\n"
		     "Examples:\n"
		     "  trapd daemon -c /etc/trapd/rules.ini\n"
		     "  trapd status\n"
		     "  trapd arm web-cpu -d 30s\n");
}

/* use_syslog - auto: stderr when someone reads it (a terminal, or the
 * journal, which sets JOURNAL_STREAM for the services it captures) or
 * when no syslog daemon listens (what is sent to none is lost). */
static bool use_syslog(const char *where)
{
	if (!strcmp(where, "syslog"))
		return true;
	if (!strcmp(where, "stderr"))
		return false;
	return !isatty(STDERR_FILENO) && !getenv("JOURNAL_STREAM") && log_syslog_listening();
}

int cmd_daemon(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct signal_env env = SIGNAL_ENV_LIVE;
	const char *rules = NULL, *log_to = "auto";
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			rules = optarg;
			break;
		case 'l':
			log_to = optarg;
			if (strcmp(log_to, "auto") && strcmp(log_to, "stderr") &&
			    strcmp(log_to, "syslog")) {
				log_error("bad --log '%s': expected auto, stderr or syslog",
					  log_to);
				return TRAPD_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return TRAPD_EXIT_OK;
		default:
			log_error("%s '%s'; see 'trapd daemon --help'",
				  optopt == 'c' ? "option -c needs a value" : "unknown option",
				  argv[optind - 1]);
			return TRAPD_EXIT_USAGE;
		}
	}
	if (!rules || optind < argc) {
		log_error(rules ? "unexpected argument '%s'; see 'trapd daemon --help'"
				: "say which rules file: trapd daemon -c RULES%s",
			  rules ? argv[optind] : "");
		return TRAPD_EXIT_USAGE;
	}
	if (!privileges__can_sample())
		return TRAPD_EXIT_FAILURE;
	if (use_syslog(log_to))
		log_use_syslog("trapd");
	/* Not dumpable: a crash writes no core holding the uploader's
	 * credentials, and no other user may ptrace the daemon or read its
	 * /proc/PID/mem or environ (LimitCORE=0 in trapd.service too). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		log_warn("cannot make the daemon non-dumpable: %s; a crash may write "
			 "credentials to a core file",
			 strerror(errno));
	/* One malloc arena: every capture's symbolizer runs on a thread of
	 * its own, and glibc would give those threads arenas of their own
	 * that keep their pages; in one arena, what a capture freed is
	 * reused by the next and malloc_trim returns the rest. */
	if (!mallopt(M_ARENA_MAX, 1))
		log_debug("cannot limit malloc arenas");
	return daemon__run(rules, &env);
}
