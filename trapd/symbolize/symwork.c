// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* symwork.c - the capture's symbolization thread (symwork.h).
 *
 * One mutex guards the queue and the flags; the worker drops it while it
 * works, so the loop's calls take microseconds whatever the worker does.
 */
#include "trapd/symbolize/symwork.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "trapd/util/log.h"
#include "trapd/util/signals.h"

/* Processes a window can announce faster than they are snapshotted (a
 * build forking compilers): beyond this many waiting, they go unnamed. */
#define SYMWORK_QUEUE 4096

struct symwork {
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int queue[SYMWORK_QUEUE]; /* pids, a ring */
	unsigned head, len;
	uint64_t dropped;
	symwork_job_fn job; /* set once by symwork__finish */
	void *job_ctx;
	int64_t finish_ns; /* CLOCK_MONOTONIC when the job was queued */
	bool stop;
	bool done;
	int fd; /* eventfd: written when the job has run */
	struct symbolizer *sym;
	struct symbudget budget;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* next_pid - wait for a pid to snapshot (true) or for the end of the
 * queue once the job is set or a stop is asked (false). Called and
 * returns with the lock held. */
static bool next_pid(struct symwork *w, int *pid)
{
	while (!w->len && !w->job && !w->stop)
		pthread_cond_wait(&w->wake, &w->lock);
	if (w->stop || !w->len)
		return false;
	*pid = w->queue[w->head];
	w->head = (w->head + 1) % SYMWORK_QUEUE;
	w->len--;
	/* the wall-time budget runs from the window's close, queue included */
	if (w->job && !w->budget.started_ns)
		w->budget.started_ns = w->finish_ns;
	return true;
}

static void *run(void *arg)
{
	struct symwork *w = arg;
	uint64_t one = 1;
	bool run_job;
	int pid, e;

	pthread_mutex_lock(&w->lock);
	while (next_pid(w, &pid)) {
		pthread_mutex_unlock(&w->lock);
		e = symbolizer__snapshot(w->sym, pid);
		if (e && e != -ESRCH)
			log_debug("snapshot of pid %d: %s", pid, strerror(-e));
		pthread_mutex_lock(&w->lock);
	}
	run_job = !w->stop && w->job;
	if (run_job && !w->budget.started_ns)
		w->budget.started_ns = w->finish_ns;
	pthread_mutex_unlock(&w->lock);
	if (run_job)
		w->job(w->sym, &w->budget, w->job_ctx);
	if (write(w->fd, &one, sizeof(one)) < 0)
		log_debug("symwork: eventfd: %s", strerror(errno));
	return NULL;
}

struct symwork *symwork__start(struct symbolizer *sym, const struct symbudget *budget)
{
	struct symwork *w = calloc(1, sizeof(*w));
	int e;

	if (!w) {
		symbolizer__free(sym);
		errno = ENOMEM;
		return NULL;
	}
	w->sym = sym;
	if (budget)
		w->budget = *budget;
	else
		symbudget__init(&w->budget);
	w->budget.started_ns = 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->fd < 0) {
		e = errno;
		symwork__free(w);
		errno = e;
		return NULL;
	}
	symbolizer__use_budget(sym, &w->budget);
	/* Signals are the loop's: the worker never takes one. */
	e = signals_thread_create(&w->thread, run, w);
	if (e) {
		symwork__free(w);
		errno = e;
		return NULL;
	}
	w->thread_started = true;
	return w;
}

int symwork__snapshot(struct symwork *w, int pid)
{
	int e = 0;

	pthread_mutex_lock(&w->lock);
	if (w->job || w->stop) {
		e = -EALREADY;
	} else if (w->len == SYMWORK_QUEUE) {
		w->dropped++;
		e = -ENOSPC;
	} else {
		w->queue[(w->head + w->len) % SYMWORK_QUEUE] = pid;
		w->len++;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return e;
}

int symwork__finish(struct symwork *w, symwork_job_fn job, void *ctx)
{
	int e = 0;

	pthread_mutex_lock(&w->lock);
	if (w->job || w->stop) {
		e = -EALREADY;
	} else {
		w->job = job;
		w->job_ctx = ctx;
		w->finish_ns = now_ns();
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return e;
}

int symwork__fd(const struct symwork *w)
{
	return w->fd;
}

bool symwork__done(struct symwork *w)
{
	uint64_t n;

	if (!w->done && read(w->fd, &n, sizeof(n)) == (ssize_t)sizeof(n))
		w->done = true;
	return w->done;
}

void symwork__wait(struct symwork *w)
{
	if (w->thread_started && !w->done) {
		pthread_join(w->thread, NULL);
		w->thread_started = false;
		w->done = true;
	}
}

uint64_t symwork__snapshots_dropped(struct symwork *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = w->dropped;
	pthread_mutex_unlock(&w->lock);
	return n;
}

void symwork__free(struct symwork *w)
{
	if (!w)
		return;
	if (w->thread_started) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
	if (w->fd >= 0)
		close(w->fd);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	symbolizer__free(w->sym);
	free(w);
}
