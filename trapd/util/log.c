// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* log.c - levels, stderr or syslog, libbpf routing, the first error kept
 * for a --json command. Every line is made safe before it is written
 * (upload/safe_text.h): a message quotes what servers, targets and files
 * chose (an error body, a process name, a path), and a terminal or a log
 * viewer must not take any of it as an escape sequence or a second line.
 * The callers that know which part is foreign escape it themselves; this
 * is the net under all of them. */
#include "trapd/util/log.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "upload/safe_text.h"

static enum log_level current_level = LOG_LVL_INFO;
static bool to_syslog;
static bool keep_first_error;
static bool first_error_kept;
static char first_error[LOG_LINE_MAX];

void log_set_level(enum log_level level)
{
	current_level = level;
}

enum log_level log_get_level(void)
{
	return current_level;
}

void log_keep_first_error(bool on)
{
	if (on)
		first_error_kept = false;
	keep_first_error = on;
}

const char *log_first_error(void)
{
	return first_error_kept ? first_error : NULL;
}

void log_use_syslog(const char *ident)
{
	openlog(ident, LOG_PID, LOG_DAEMON);
	to_syslog = true;
}

bool log_syslog_listening(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	close(fd);
	return ok;
}

static int syslog_priority(enum log_level level)
{
	switch (level) {
	case LOG_LVL_ERROR:
		return LOG_ERR;
	case LOG_LVL_WARN:
		return LOG_WARNING;
	case LOG_LVL_INFO:
		return LOG_INFO;
	default:
		return LOG_DEBUG;
	}
}

static const char *level_prefix(enum log_level level, bool colour)
{
	static const char *const plain[] = { "error: ", "warning: ", "", "debug: ", "debug: " };
	static const char *const tinted[] = { "\033[1;31merror:\033[0m ",
					      "\033[1;33mwarning:\033[0m ", "",
					      "\033[2mdebug:\033[0m ", "\033[2mdebug:\033[0m " };
	return colour ? tinted[level] : plain[level];
}

bool log_use_colour(int fd)
{
	const char *no_colour = getenv("NO_COLOR");

	return isatty(fd) && !(no_colour && *no_colour);
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	char raw[LOG_LINE_MAX], line[LOG_LINE_MAX];
	int n;

	if (level > current_level)
		return;
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	if (n < 0)
		return;
	/* a line longer than the buffer is cut; safe_text marks the cut */
	safe_text(raw, (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw), line, sizeof(line));
	if (level == LOG_LVL_ERROR && keep_first_error && !first_error_kept) {
		snprintf(first_error, sizeof(first_error), "%s", line);
		first_error_kept = true;
		return;
	}
	if (to_syslog) {
		syslog(syslog_priority(level), "%s", line);
		if (level != LOG_LVL_ERROR)
			return;
	}
	/* asked again for every line: a line written is rare enough, and a
	 * test (or a caller) may change stderr or NO_COLOR on the way */
	fprintf(stderr, "trapd: %s%s\n", level_prefix(level, log_use_colour(STDERR_FILENO)), line);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

/* libbpf's messages end with a newline of their own, and a verifier log
 * is many lines in one message: print it line by line, whole. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	enum log_level mine = level == LIBBPF_WARN ? LOG_LVL_WARN : LOG_LVL_LIBBPF;
	char *text = NULL, *line, *next;

	if (mine > current_level)
		return 0;
	if (vasprintf(&text, fmt, ap) < 0)
		return 0;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		log_msg(mine, "libbpf: %s", line);
	}
	free(text);
	return 0;
}

void log_route_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
