// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* capture_loop.c - the foreground loop of a command-line capture. */
#include "trapd/capture/capture_loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "trapd/util/clock.h"
#include "trapd/util/signals.h"

/* handle_signals - a started command gets a signal too, and the window
 * ends; SIGCHLD is the command's exit, seen by the session. Returns the
 * signal that ended the window, or 0. */
static int handle_signals(struct session *s, int sigfd)
{
	struct signalfd_siginfo si;

	while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			session__handle(s);
			continue;
		}
		session__signal_command(s, (int)si.ssi_signo);
		session__end(s, "interrupted");
		return (int)si.ssi_signo;
	}
	return 0;
}

int capture_loop__run(struct session *s, int sigfd)
{
	int signo = 0;

	for (;;) {
		int64_t now = clock_mono_ns();
		struct pollfd fds[2] = {
			{ .fd = session__fd(s), .events = POLLIN },
			{ .fd = sigfd, .events = POLLIN },
		};

		if (session__tick(s, now))
			break;
		if (poll(fds, 2, session__timeout_ms(s, now)) < 0 && errno != EINTR)
			break;
		if (fds[0].revents)
			session__handle(s);
		if (fds[1].revents && !signo)
			signo = handle_signals(s, sigfd);
	}
	return signo;
}

int capture_loop__block_signals(int *sigfd)
{
	static const int signos[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

	*sigfd = signals_open_fd(signos, sizeof(signos) / sizeof(signos[0]));
	return *sigfd < 0 ? *sigfd : 0;
}
