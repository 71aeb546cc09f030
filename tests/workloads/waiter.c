// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waiter.c - threads that wait in known ways, for the off-CPU tests.
 *
 * Usage: waiter SECONDS [DEVICE]
 *
 * For SECONDS, each thread (named, so a profile tells them apart) spends
 * its time one way:
 *   waiter   the main thread: holds a mutex, sleeping in 10 ms naps
 *            (hold_lock_sleeping), then lets the others go
 *   w-mutex  blocked on that mutex (wait_for_lock)
 *   w-pipe   blocked reading a pipe nobody writes until the end
 *            (wait_for_pipe)
 *   w-sleep  1 ms naps (nap)
 *   w-disk   4 KiB O_DIRECT reads at random offsets of DEVICE
 *            (read_direct): uninterruptible waits for the device; only
 *            with DEVICE
 *   w-spin1, w-spin2  spinning, both on the first CPU (spin): each runs
 *            half the time and waits for the CPU (runnable) the other half
 *
 * So for each thread on-CPU + off-CPU time is SECONDS. Prints its pid on
 * stdout first, then "ready" once every thread waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAP_NS 1000000L
#define HOLD_NAP_NS 10000000L
#define BLOCK 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];
static double seconds;
static const char *device;
static atomic_int started;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap_ns(long ns)
{
	struct timespec ts = { 0, ns };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

__attribute__((noinline)) static void wait_for_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void wait_for_pipe(void)
{
	char c;

	while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
		;
}

__attribute__((noinline)) static void nap(double until)
{
	while (now() < until)
		nap_ns(NAP_NS);
}

__attribute__((noinline)) static void read_direct(int fd, off_t blocks, void *buf, double until)
{
	unsigned seed = 1;

	while (now() < until) {
		off_t at = (off_t)(rand_r(&seed) % blocks) * BLOCK;

		if (pread(fd, buf, BLOCK, at) != BLOCK) {
			perror("waiter: pread");
			exit(1);
		}
	}
}

__attribute__((noinline)) static void spin(double until)
{
	volatile uint64_t x = 0;

	while (now() < until)
		for (int i = 0; i < 10000; i++)
			x += i;
}

static void pin_to_first_cpu(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "waiter: cannot pin a spinner to CPU 0\n");
}

static void *disk_thread(void *arg)
{
	double until = now() + seconds;
	void *buf;
	off_t size;
	int fd;

	(void)arg;
	fd = open(device, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, BLOCK, BLOCK)) {
		perror("waiter: opening the device");
		exit(1);
	}
	size = lseek(fd, 0, SEEK_END);
	if (size < BLOCK) {
		fprintf(stderr, "waiter: %s is too small\n", device);
		exit(1);
	}
	atomic_fetch_add(&started, 1);
	read_direct(fd, size / BLOCK, buf, until);
	free(buf);
	close(fd);
	return NULL;
}

static void *thread(void *arg)
{
	const char *name = arg;
	double until = now() + seconds;

	pthread_setname_np(pthread_self(), name);
	if (!strcmp(name, "w-disk"))
		return disk_thread(NULL);
	if (!strncmp(name, "w-spin", 6))
		pin_to_first_cpu();
	atomic_fetch_add(&started, 1);
	if (!strcmp(name, "w-mutex"))
		wait_for_lock();
	else if (!strcmp(name, "w-pipe"))
		wait_for_pipe();
	else if (!strcmp(name, "w-sleep"))
		nap(until);
	else
		spin(until);
	return NULL;
}

__attribute__((noinline)) static void hold_lock_sleeping(double until)
{
	while (now() < until)
		nap_ns(HOLD_NAP_NS);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "w-mutex", "w-pipe",  "w-sleep",
					     "w-spin1", "w-spin2", "w-disk" };
	int n = sizeof(names) / sizeof(names[0]), i;
	pthread_t tids[6];
	double until;

	if (argc < 2 || argc > 3 || (seconds = strtod(argv[1], NULL)) <= 0) {
		fprintf(stderr, "usage: waiter SECONDS [DEVICE]\n");
		return 2;
	}
	device = argc == 3 ? argv[2] : NULL;
	if (!device)
		n--;
	if (pipe(pipefd))
		return 1;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	pthread_mutex_lock(&lock);
	until = now() + seconds;
	for (i = 0; i < n; i++)
		if (pthread_create(&tids[i], NULL, thread, (void *)names[i]))
			return 1;
	while (atomic_load(&started) < n)
		nap_ns(NAP_NS);
	printf("ready\n");
	fflush(stdout);
	hold_lock_sleeping(until);
	pthread_mutex_unlock(&lock);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
