// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* symbench.c - how fast trapd's symbolizer names the frames of real
 * samples; bench/symbolize runs it against `perf script` on the same
 * perf.data.
 *
 * Usage: symbench [-k kallsyms|bpf] [-c CACHE_BYTES] [-f] SAMPLES
 *
 * SAMPLES has one sample per line: "PID CHAIN...", the callchain exactly
 * as perf recorded it (hex, as `perf script -D` prints it), perf's context
 * markers included: PERF_CONTEXT_KERNEL says kernel frames follow,
 * PERF_CONTEXT_USER user frames. Leaf first, like trapd's sampler.
 *
 * Two timed passes over every sample, each built the way a capture builds
 * its profile (capture.c): a new symbolizer, a snapshot of every pid, then
 * each sample's user and kernel frames symbolized into a new profile and
 * the sample added. Reading SAMPLES is not timed.
 *   cold  with a new symbol cache: every ELF file mapped by the processes
 *         is opened and its symbols loaded and sorted
 *   warm  with the cache the cold pass filled, through a new symbolizer:
 *         what the daemon's next capture of the same processes costs
 * Kernel frames are named from /proc/kallsyms, read by each symbolizer
 * (perf reads it too), or with -k bpf by the kernel itself through the
 * BPF resolver trapd capture uses (loaded in each pass, as each capture
 * does; inside the timing).
 *
 * Prints one line per pass on stdout, "cold KEY=VALUE ..." and "warm
 * KEY=VALUE ...", times in ns; the keys are those of print_pass. The
 * processes must still be alive: snapshots read /proc/PID/maps.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trapd/profile/profile.h"
#include "trapd/symbolize/knames.h"
#include "trapd/symbolize/symbolizer.h"
#include "trapd/symbolize/symcache.h"
#include "trapd/util/log.h"

/* What the command line asks for. */
struct bench_opts {
	bool bpf_names;	    /* -k bpf */
	bool file_stats;    /* -f */
	size_t cache_bytes; /* -c */
};

/* Far more than the tables of a few big programs take (python3, node and
 * their libraries: 8 MB): a warm pass must find everything the cold pass
 * loaded. */
#define DEFAULT_CACHE_BYTES (1ull << 30)
#define MAX_LINE_FRAMES PROFILE_MAX_DEPTH

/* One sample: its kernel frames at ips[first..first+nk), then its user
 * frames at ips[first+nk..first+nk+nu). */
struct bench_sample {
	int pid;
	uint32_t nk, nu;
	size_t first;
};

struct bench_input {
	struct bench_sample *samples;
	size_t n, cap;
	uint64_t *ips;
	size_t nips, ips_cap;
	int *pids; /* distinct, in order of first appearance */
	size_t npids, pids_cap;
	uint64_t dropped; /* frames of other contexts (guest, hypervisor) or past the depth */
};

struct pass_result {
	uint64_t ns;	    /* the whole pass */
	uint64_t setup_ns;  /* a new symbolizer and profile (-k bpf: the BPF resolver loaded) */
	uint64_t snap_ns;   /* the snapshots (cold: where ELF files are loaded) */
	uint64_t user_ns;   /* symbolizer__user_stack calls */
	uint64_t kernel_ns; /* symbolizer__kernel_stack calls (kallsyms read on the first) */
	uint32_t snap_failed;
	struct symbolizer_stats sym;
	struct symcache_stats cache; /* counters of this pass alone; entries and bytes after it */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- reading the samples ------------------------------------------------ */

/* grow - make room for one more element of @size in *@arr. */
static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 1024;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int add_pid(struct bench_input *in, int pid)
{
	size_t i;
	int err;

	/* A linear scan: a benchmark records a handful of processes. */
	for (i = 0; i < in->npids; i++)
		if (in->pids[i] == pid)
			return 0;
	err = grow((void **)&in->pids, in->npids, &in->pids_cap, sizeof(*in->pids));
	if (err)
		return err;
	in->pids[in->npids++] = pid;
	return 0;
}

static int add_ip(struct bench_input *in, uint64_t ip)
{
	int err = grow((void **)&in->ips, in->nips, &in->ips_cap, sizeof(*in->ips));

	if (err)
		return err;
	in->ips[in->nips++] = ip;
	return 0;
}

/* split_chain - sort the entries of one raw callchain (the words of
 * @rest) into kernel and user frames by perf's context markers. */
static int split_chain(char *rest, uint64_t *k, uint32_t *nk, uint64_t *u, uint32_t *nu,
		       uint64_t *dropped)
{
	uint64_t ctx = 0, v;
	char *end;

	*nk = *nu = 0;
	for (;;) {
		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (*rest == '\n' || *rest == '\0')
			return 0;
		errno = 0;
		v = strtoull(rest, &end, 16);
		if (end == rest || errno || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
			return -EINVAL;
		rest = end;
		if (v >= (uint64_t)PERF_CONTEXT_MAX)
			ctx = v;
		else if (ctx == (uint64_t)PERF_CONTEXT_KERNEL && *nk < MAX_LINE_FRAMES)
			k[(*nk)++] = v;
		else if (ctx == (uint64_t)PERF_CONTEXT_USER && *nu < MAX_LINE_FRAMES)
			u[(*nu)++] = v;
		else
			(*dropped)++;
	}
}

static int add_line(struct bench_input *in, char *line)
{
	uint64_t k[MAX_LINE_FRAMES], u[MAX_LINE_FRAMES];
	struct bench_sample s = { 0 };
	uint32_t i;
	char *end;
	long pid;
	int err;

	errno = 0;
	pid = strtol(line, &end, 10);
	if (end == line || errno || pid <= 0 || pid > INT32_MAX)
		return -EINVAL;
	err = split_chain(end, k, &s.nk, u, &s.nu, &in->dropped);
	if (err)
		return err;
	s.pid = (int)pid;
	s.first = in->nips;
	for (i = 0; i < s.nk && !err; i++)
		err = add_ip(in, k[i]);
	for (i = 0; i < s.nu && !err; i++)
		err = add_ip(in, u[i]);
	if (!err)
		err = add_pid(in, s.pid);
	if (!err)
		err = grow((void **)&in->samples, in->n, &in->cap, sizeof(*in->samples));
	if (!err)
		in->samples[in->n++] = s;
	return err;
}

/* read_input - every sample of @path. On a malformed line, *@bad_line
 * says which. */
static int read_input(const char *path, struct bench_input *in, size_t *bad_line)
{
	size_t len = 0, lineno = 0;
	char *line = NULL;
	FILE *f;
	int err = 0;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (getline(&line, &len, f) > 0) {
		lineno++;
		err = add_line(in, line);
		if (err) {
			*bad_line = lineno;
			break;
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	fclose(f);
	return err;
}

static void free_input(struct bench_input *in)
{
	free(in->samples);
	free(in->ips);
	free(in->pids);
}

/* --- one pass ----------------------------------------------------------- */

static int names_from_bpf(void *ctx, const uint64_t *addrs, uint32_t n,
			  char (*names)[SYMBOLIZER_KNAME_LEN])
{
	return knames__resolve(ctx, addrs, n, names);
}

/* symbolize_sample - like capture.c's add_record: user frames, then
 * kernel frames, then the sample itself. */
static int symbolize_sample(struct symbolizer *s, struct profile *p, const struct bench_input *in,
			    const struct bench_sample *smp, struct pass_result *r)
{
	const uint64_t *ips = in->ips + smp->first;
	struct profile_sample tmpl = { .count = 1, .pid = smp->pid, .tid = smp->pid };
	uint32_t locs[2 * MAX_LINE_FRAMES];
	uint64_t t0, t1, t2;
	int err;

	t0 = now_ns();
	err = symbolizer__user_stack(s, p, smp->pid, ips + smp->nk, smp->nu, locs + smp->nk);
	t1 = now_ns();
	if (!err)
		err = symbolizer__kernel_stack(s, p, ips, smp->nk, locs);
	t2 = now_ns();
	r->user_ns += t1 - t0;
	r->kernel_ns += t2 - t1;
	if (err)
		return err;
	return profile__add_sample(p, locs, smp->nk + smp->nu, &tmpl);
}

static void snapshot_all(struct symbolizer *s, const struct bench_input *in, struct pass_result *r)
{
	size_t i;
	int err;

	for (i = 0; i < in->npids; i++) {
		err = symbolizer__snapshot(s, in->pids[i]);
		if (err) {
			/* Its frames stay unnamed; the script warns about it. */
			r->snap_failed++;
			log_warn("symbench: pid %d: no snapshot: %s", in->pids[i], strerror(-err));
		}
	}
}

/* print_files - how many frames of each mapped file got a name, and
 * from where (to compare with perf's per-DSO counts). */
static void print_files(struct symbolizer *s, const char *pass)
{
	const struct symbolizer_file_stats *fs;
	size_t i, n;

	fs = symbolizer__file_stats(s, &n);
	for (i = 0; fs && i < n; i++)
		fprintf(stderr, "%s file frames=%" PRIu64 " named=%" PRIu64 " source=\"%s\" %s\n",
			pass, fs[i].frames, fs[i].named, fs[i].source, fs[i].path);
}

/* run_pass - symbolize every sample of @in through a new symbolizer
 * using @cache; times and counters into @r. */
static int run_pass(const struct bench_input *in, struct symcache *cache,
		    const struct bench_opts *o, const char *name, struct pass_result *r)
{
	struct symcache_stats before;
	struct symbolizer *s = NULL;
	struct profile *p = NULL;
	struct knames *kn = NULL;
	uint64_t t0, t1, t2;
	size_t i;
	int err = 0;

	memset(r, 0, sizeof(*r));
	symcache__get_stats(cache, &before);
	t0 = now_ns();
	s = symbolizer__new("/proc");
	p = profile__new();
	if (!s || !p) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = symbolizer__use_cache(s, cache);
	if (err)
		goto cleanup;
	if (o->bpf_names) {
		kn = knames__open();
		if (!kn) {
			err = -errno;
			log_error("symbench: cannot load the BPF kernel name resolver: %s",
				  strerror(errno));
			goto cleanup;
		}
		symbolizer__use_kernel_names(s, names_from_bpf, kn);
	}
	t1 = now_ns();
	snapshot_all(s, in, r);
	t2 = now_ns();
	r->setup_ns = t1 - t0;
	r->snap_ns = t2 - t1;
	for (i = 0; i < in->n && !err; i++)
		err = symbolize_sample(s, p, in, &in->samples[i], r);
	r->ns = now_ns() - t0;
	symbolizer__get_stats(s, &r->sym);
	symcache__get_stats(cache, &r->cache);
	r->cache.hits -= before.hits;
	r->cache.build_id_hits -= before.build_id_hits;
	r->cache.loads -= before.loads;
	r->cache.evictions -= before.evictions;
	if (o->file_stats)
		print_files(s, name);
cleanup:
	/* Freeing is not timed: a capture writes its profile first. */
	symbolizer__free(s);
	profile__free(p);
	knames__free(kn);
	return err;
}

static void print_pass(const char *name, const struct pass_result *r)
{
	uint64_t frames = r->sym.user_frames + r->sym.kernel_frames;

	printf("%s frames=%" PRIu64 " ns=%" PRIu64 " fps=%.0f setup_ns=%" PRIu64 " snap_ns=%" PRIu64
	       " user_ns=%" PRIu64 " kernel_ns=%" PRIu64 " user_frames=%" PRIu64
	       " user_named=%" PRIu64 " kernel_frames=%" PRIu64 " kernel_named=%" PRIu64
	       " snap_failed=%u loads=%" PRIu64 " hits=%" PRIu64 " build_id_hits=%" PRIu64
	       " evictions=%" PRIu64 " cache_entries=%zu cache_bytes=%zu\n",
	       name, frames, r->ns, r->ns ? frames * 1e9 / (double)r->ns : 0.0, r->setup_ns,
	       r->snap_ns, r->user_ns, r->kernel_ns, r->sym.user_frames, r->sym.user_named,
	       r->sym.kernel_frames, r->sym.kernel_named, r->snap_failed, r->cache.loads,
	       r->cache.hits, r->cache.build_id_hits, r->cache.evictions, r->cache.entries,
	       r->cache.bytes);
}

/* --- main --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: symbench [-k kallsyms|bpf] [-c CACHE_BYTES] [-f] SAMPLES\n"
		"  SAMPLES: one line per sample, \"PID CHAIN...\" (perf's raw callchain, hex)\n"
		"  prints a cold and a warm pass: frames, ns, frames per second, cache counters\n"
		"  -k  where kernel names come from (default kallsyms)\n"
		"  -c  bytes of unreferenced tables the cache keeps (default 1 GiB)\n"
		"  -f  also print, on stderr, the frames and names of every mapped file\n");
}

/* parse_args - options into @o; the SAMPLES path, or NULL after
 * printing why. */
static const char *parse_args(int argc, char **argv, struct bench_opts *o)
{
	unsigned long long v;
	char *end;
	int c;

	while ((c = getopt(argc, argv, "k:c:fh")) != -1) {
		switch (c) {
		case 'k':
			if (strcmp(optarg, "kallsyms") && strcmp(optarg, "bpf")) {
				fprintf(stderr, "symbench: -k takes kallsyms or bpf, not '%s'\n",
					optarg);
				return NULL;
			}
			o->bpf_names = !strcmp(optarg, "bpf");
			break;
		case 'c':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end) {
				fprintf(stderr, "symbench: -c takes a number of bytes, not '%s'\n",
					optarg);
				return NULL;
			}
			o->cache_bytes = (size_t)v;
			break;
		case 'f':
			o->file_stats = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return NULL;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return NULL;
	}
	return argv[optind];
}

int main(int argc, char **argv)
{
	struct bench_opts opts = { .cache_bytes = DEFAULT_CACHE_BYTES };
	struct bench_input in = { 0 };
	size_t bad_line = 0;
	struct pass_result cold, warm;
	struct symcache *cache = NULL;
	const char *path;
	int err, ret = 1;

	path = parse_args(argc, argv, &opts);
	if (!path)
		return 2;
	log_route_libbpf();
	err = read_input(path, &in, &bad_line);
	if (err) {
		if (bad_line)
			fprintf(stderr, "symbench: %s:%zu: not \"PID HEX...\"\n", path, bad_line);
		else
			fprintf(stderr, "symbench: cannot read %s: %s\n", path, strerror(-err));
		goto cleanup;
	}
	if (!in.n) {
		fprintf(stderr, "symbench: %s holds no samples\n", path);
		goto cleanup;
	}
	cache = symcache__new(opts.cache_bytes);
	if (!cache) {
		fprintf(stderr, "symbench: cannot make a symbol cache: %s\n", strerror(errno));
		goto cleanup;
	}
	err = run_pass(&in, cache, &opts, "cold", &cold);
	if (!err)
		err = run_pass(&in, cache, &opts, "warm", &warm);
	if (err) {
		fprintf(stderr, "symbench: a pass failed: %s\n", strerror(-err));
		goto cleanup;
	}
	print_pass("cold", &cold);
	print_pass("warm", &warm);
	if (in.dropped)
		fprintf(stderr,
			"symbench: %" PRIu64 " frames of other contexts (guest, hypervisor) "
			"or past %d frames left out\n",
			in.dropped, MAX_LINE_FRAMES);
	ret = 0;
cleanup:
	symcache__free(cache);
	free_input(&in);
	return ret;
}
