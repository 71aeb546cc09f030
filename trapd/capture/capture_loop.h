/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* capture_loop.h - the foreground loop of a command-line capture (`trapd
 * capture`, `trapd ci`): signals arrive through a signalfd, the session's
 * events through its fd, and the window ends at its deadline, when the
 * target exits, or on SIGINT, SIGTERM or SIGHUP, which a started command
 * gets too (a kill of trapd alone must not orphan it).
 */
#ifndef TRAPD_CAPTURE_LOOP_H
#define TRAPD_CAPTURE_LOOP_H

#include "trapd/capture/session.h"

/* capture_loop__block_signals - block SIGINT, SIGTERM, SIGHUP and SIGCHLD
 * and return a non-blocking signalfd for them in *@sigfd. Returns 0 or a
 * negative errno. */
int capture_loop__block_signals(int *sigfd);

/* capture_loop__run - follow @s until its window ends. Returns 0, or the
 * number of the signal that ended it (it was passed on to a command). */
int capture_loop__run(struct session *s, int sigfd);

#endif
