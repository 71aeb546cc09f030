/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* signals.h - signals read from an fd: an event loop takes its signals
 * as events (signalfd), never in a handler, so they are blocked first
 * and every thread started afterwards inherits the block.
 */
#ifndef TRAPD_SIGNALS_H
#define TRAPD_SIGNALS_H

#include <pthread.h>
#include <stddef.h>

/* signals_open_fd - block the @n signals @signos and return a
 * non-blocking, close-on-exec signalfd for them, or a negative errno. */
int signals_open_fd(const int *signos, size_t n);

/* signals_thread_create - pthread_create(@t, NULL, @fn, @arg) for a
 * thread that takes no signal: they are the event loop's, whatever the
 * caller's mask was. Returns 0 or pthread_create's (positive) error. */
int signals_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
