// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* hookload - load a BPF object and attach the programs named, until
 * SIGINT or SIGTERM (bench/latency's "empty": trapd's hooks with empty
 * bodies, bench/empty_hooks.bpf.c). Prints "attached" once they are.
 * Usage: hookload OBJECT PROGRAM... */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int named(const char *name, int argc, char **argv)
{
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;

	if (argc < 3) {
		fprintf(stderr, "usage: hookload OBJECT PROGRAM...\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "hookload: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, named(bpf_program__name(p), argc, argv));
	if (bpf_object__load(obj)) {
		fprintf(stderr, "hookload: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj)
	{
		if (named(bpf_program__name(p), argc, argv) && !bpf_program__attach(p)) {
			fprintf(stderr, "hookload: cannot attach %s: %s\n", bpf_program__name(p),
				strerror(errno));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
