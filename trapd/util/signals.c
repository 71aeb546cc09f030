// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* signals.c - block signals and read them from an fd (signals.h). */
#include "trapd/util/signals.h"

#include <errno.h>
#include <signal.h>
#include <sys/signalfd.h>

int signals_open_fd(const int *signos, size_t n)
{
	sigset_t set;
	size_t i;
	int fd;

	sigemptyset(&set);
	for (i = 0; i < n; i++)
		sigaddset(&set, signos[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
