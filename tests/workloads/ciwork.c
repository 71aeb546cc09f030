// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ciwork.c - a benchmark for the CI trap's tests: three functions with
 * known shares of the work, one of which can be made slower.
 *
 * Usage: ciwork [-s SLOW_PCT] [-f CHILDREN] [-o ORPHAN_SECONDS] [-x STATUS]
 *               ITERATIONS
 * Each iteration runs parse_input (40 % of the work), compute_hash (40 %,
 * times 1 + SLOW_PCT/100) and render_output (20 %). -f runs the
 * iterations in CHILDREN forked processes instead, in child_work (so a
 * profile shows whether children were sampled); -o leaves an orphan (a
 * grandchild that sleeps ORPHAN_SECONDS) behind; -x exits with STATUS
 * after the work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNIT 100000ul

static volatile unsigned long sink;
static long slow_pct;

static inline __attribute__((always_inline)) void spin(unsigned long n)
{
	unsigned long x = sink;

	while (n--)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

__attribute__((noinline)) void parse_input(void)
{
	spin(4 * UNIT);
}
__attribute__((noinline)) void compute_hash(void)
{
	spin(4 * UNIT * (100 + slow_pct) / 100);
}
__attribute__((noinline)) void render_output(void)
{
	spin(2 * UNIT);
}

__attribute__((noinline)) void iterate(long n)
{
	for (long i = 0; i < n; i++) {
		parse_input();
		compute_hash();
		render_output();
	}
}

/* A leaf of its own: a sample in a leaf without its own frame loses the
 * leaf's caller (frame pointers), so the children's work is named here. */
__attribute__((noinline)) void child_work(long n)
{
	spin(10 * UNIT * (unsigned long)n);
}

static void leave_orphan(unsigned seconds)
{
	pid_t p = fork();

	if (p == 0) {
		if (fork() == 0) {
			sleep(seconds);
			_exit(0);
		}
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

int main(int argc, char **argv)
{
	long children = 0, status = 0, orphan = 0, n;
	int opt;

	while ((opt = getopt(argc, argv, "s:f:o:x:")) != -1) {
		switch (opt) {
		case 's':
			slow_pct = strtol(optarg, NULL, 10);
			break;
		case 'f':
			children = strtol(optarg, NULL, 10);
			break;
		case 'o':
			orphan = strtol(optarg, NULL, 10);
			break;
		case 'x':
			status = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
				"usage: ciwork [-s PCT] [-f N] [-o SEC] [-x STATUS] ITER\n");
			return 2;
		}
	}
	n = optind < argc ? strtol(argv[optind], NULL, 10) : 100;
	if (orphan > 0)
		leave_orphan((unsigned)orphan);
	if (children <= 0) {
		iterate(n);
	} else {
		for (long c = 0; c < children; c++)
			if (fork() == 0) {
				child_work(n / children);
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
	}
	return (int)status;
}
