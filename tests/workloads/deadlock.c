// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* deadlock.c - a service that works, then deadlocks: for the off-CPU
 * tests of a `below` rule.
 *
 * Usage: deadlock SECONDS
 *
 * Two threads (dl-a, dl-b) burn CPU serving requests for SECONDS, then
 * each takes one lock and reaches for the other's (transfer_a_to_b,
 * transfer_b_to_a): they block forever, and the process uses no CPU.
 * Prints its pid first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t account_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t account_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold_one;
static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void serve_requests(double until)
{
	volatile uint64_t x = 0;

	while (now() < until)
		for (int i = 0; i < 100000; i++)
			x += i;
}

__attribute__((noinline)) static void transfer(pthread_mutex_t *from, pthread_mutex_t *to)
{
	pthread_mutex_lock(from);
	pthread_barrier_wait(&both_hold_one);
	pthread_mutex_lock(to); /* never returns */
	pthread_mutex_unlock(to);
	pthread_mutex_unlock(from);
}

__attribute__((noinline)) static void transfer_a_to_b(void)
{
	transfer(&account_a, &account_b);
}

__attribute__((noinline)) static void transfer_b_to_a(void)
{
	transfer(&account_b, &account_a);
}

static void *teller(void *arg)
{
	int first = arg != NULL;

	pthread_setname_np(pthread_self(), first ? "dl-a" : "dl-b");
	serve_requests(now() + seconds);
	if (first)
		transfer_a_to_b();
	else
		transfer_b_to_a();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc != 2 || (seconds = strtod(argv[1], NULL)) <= 0) {
		fprintf(stderr, "usage: deadlock SECONDS\n");
		return 2;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	pthread_barrier_init(&both_hold_one, NULL, 2);
	if (pthread_create(&a, NULL, teller, (void *)1) || pthread_create(&b, NULL, teller, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
