// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* signals.c - block signals and read them from an fd (signals.h). */
#include "trapd/util/signals.h"

#include <errno.h>
#include <pthread.h>
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

int signals_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	/* the new thread inherits the mask in force when it is created */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}
