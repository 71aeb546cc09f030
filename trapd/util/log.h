/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* log.h - the one logging module of trapd.
 *
 * Messages go to stderr (with colour only when stderr is a terminal and
 * NO_COLOR is unset or empty, https://no-color.org) or to syslog when log_use_syslog() was called (the daemon, not on a terminal).
 * libbpf's own messages are routed here by log_route_libbpf().
 *
 * One message is one line, at most LOG_LINE_MAX - 1 bytes: control
 * characters (newlines and tabs too), invalid UTF-8 and bidirectional
 * controls in it are written as \xHH (upload/safe_text.h), and a longer
 * message is cut and ends in "...".
 */
#ifndef TRAPD_LOG_H
#define TRAPD_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#define LOG_LINE_MAX 8192 /* bytes of one message, escapes included */

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
	LOG_LVL_LIBBPF, /* -vv: libbpf's own debug output too */
};

/* log_set_level - messages above @level are dropped. Default: LOG_LVL_INFO. */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* log_use_colour - whether text written to @fd may carry ANSI colour: @fd
 * is a terminal and NO_COLOR is unset or empty (https://no-color.org).
 * Every part of trapd that colours its output asks this. */
bool log_use_colour(int fd);

/* log_use_syslog - send messages to syslog under @ident from now on.
 * Errors go to stderr as well: whoever started the program (a script, a
 * unit's ExecStart) reads there why it stopped, whether or not a syslog
 * daemon keeps what is sent to it. */
void log_use_syslog(const char *ident);

/* log_syslog_listening - whether a syslog daemon listens on /dev/log (a
 * host without one drops what syslog(3) sends, silently). */
bool log_syslog_listening(void);

/* log_keep_first_error - while @on, the first error message is kept (see
 * log_first_error) instead of written; later errors, and every other
 * level, are written as usual. For a --json command, which prints its
 * error as JSON on stdout at its end (trapd/cli_json.h). Turning it on
 * forgets a message kept before. */
void log_keep_first_error(bool on);

/* log_first_error - the message kept since log_keep_first_error(true),
 * made safe as every line is, or NULL if no error came. */
const char *log_first_error(void);

/* log_route_libbpf - print libbpf's warnings (and, at LOG_LVL_LIBBPF,
 * its debug output) through this module. */
void log_route_libbpf(void);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* log_at - log_msg only if @level is on: the arguments are not evaluated
 * (nor the message formatted) otherwise, so a debug line may call
 * something costly. log_msg keeps the printf-format checking. An error
 * is always on. */
#define log_at(level, ...)                                                                         \
	do {                                                                                       \
		if ((level) <= log_get_level())                                                    \
			log_msg((level), __VA_ARGS__);                                             \
	} while (0)

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...) log_at(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_at(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_at(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
