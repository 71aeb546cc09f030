/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* daemon.h - `trapd daemon`: one event loop (epoll) over a poll timer, a
 * signalfd, kernel PSI trigger fds, the control socket and the running
 * capture. It reads every rule's signal at each poll tick (PSI trigger
 * rules also the moment the kernel reports a stall), evaluates it, and
 * arms the sampler when a rule fires.
 *
 * Finished captures go to the spool; the uploader's thread (upload/
 * uploader.h) sends them to the [upload] backend, so no network wait
 * ever holds up the loop.
 *
 * Signals: SIGHUP reloads the rules file (a bad file is rejected and the
 * old rules keep running), SIGUSR1 arms a manual capture, SIGTERM and
 * SIGINT stop: a running capture is cut short and written, not lost.
 */
#ifndef TRAPD_DAEMON_H
#define TRAPD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/signal.h"
#include "trapd/daemon/control.h"
#include "trapd/daemon/control_server.h"
#include "trapd/daemon/top_cache.h"
#include "trapd/guard/guard.h"
#include "upload/uploader.h"

struct daemon {
	const char *rules_path;
	struct guard guard;	   /* the rules in force and the capture (guard.h) */
	struct uploader *uploader; /* NULL: no [upload], captures stay in the spool */
	int epfd;
	int timerfd;
	int sigfd;
	struct control_server ctl; /* the control socket and its connections */
	char ctl_path[PATH_MAX];   /* the socket in use (a reload does not move it) */
	bool ctl_bad_config;	   /* it could not open for a reason the config must fix */
	bool stopping;
	int64_t started_real; /* realtime ns */
	int64_t loaded_real;  /* when the rules in force were loaded */
	uint64_t reloads;
	uint64_t reloads_rejected;
	uint64_t manual_arms;
	struct top_cache top; /* `trapd top`'s answers, kept a moment */
};

/* daemon__run - load @rules_path, run until SIGTERM/SIGINT, return an exit
 * status: 0 after a clean stop, 2 when the rules file is bad at start
 * (every error printed) or its control socket cannot be made safely (a
 * directory not root's alone, a file in its place: control_socket.h), 1
 * for a runtime failure (another daemon on the socket...). */
int daemon__run(const char *rules_path, const struct signal_env *env);

#endif
