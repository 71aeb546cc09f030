// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* history.c - the flight recorder (see history.h).
 *
 * One thread owns the sampler, the symbolizer and the kernel-name
 * resolver; the ring is shared with the event loop (slices) and the
 * capture workers (building them) under one mutex, held only to move
 * pointers. A second in the ring is immutable and reference counted, so
 * a slice keeps its seconds however the ring moves on.
 *
 * The symbolizer is renewed every window (a generation): the processes
 * it remembers are those seen in the last one, and the sampler is re-armed
 * then too, which clears its table of processes already announced.
 */
#include "trapd/capture/history.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rules/proc_stat.h"
#include "trapd/capture/capture.h"
#include "trapd/capture/overhead.h"
#include "trapd/capture/pyframes.h"
#include "trapd/capture/sample_dump.h"
#include "trapd/capture/sampler.h"
#include "trapd/profile/profile_merge.h"
#include "trapd/symbolize/knames.h"
#include "trapd/symbolize/prockey.h"
#include "trapd/symbolize/symbolizer.h"
#include "trapd/symbolize/symbudget.h"
#include "trapd/symbolize/symcache.h"
#include "trapd/util/clock.h"
#include "trapd/util/log.h"
#include "upload/safe_text.h"

#define SEC 1000000000ll
/* Processes snapshotted in one generation, remembered to read each once;
 * past this one is read again at each second a frame of its falls
 * outside what was read. */
#define SNAPPED_MAX 4096
/* Processes that exec'd since they were last read, to read again at the
 * drain their samples are in: the old image's mappings, kept to name the
 * samples before the exec, could hold the new image's addresses. */
#define EXECD_MAX 256
/* The most seconds history__recent merges (a live view asks for a few). */
#define RECENT_SECONDS_MAX 60

/* Processes the recorder read (their maps, their files) in a second,
 * by name: a fork storm is one name. */
#define READERS_MAX 16

struct reader_cost {
	char comm[16];
	uint64_t ns;	/* the recorder's thread CPU reading them */
	uint32_t pids;	/* how many were read */
	uint32_t a_pid; /* one of them */
};

struct second {
	int refs;	    /* the ring's and slices'; under the history's lock */
	int64_t start, end; /* CLOCK_REALTIME ns */
	struct profile *p;  /* NULL: no sample that second */
	uint64_t samples;
	size_t bytes;
};

struct history {
	pthread_mutex_t lock; /* the ring, the counters, refs */
	int refs;	      /* the owner's (until close) and each slice's */
	struct second **ring; /* oldest at head */
	size_t cap, head, n;
	size_t bytes;
	struct history_stats st;

	/* the thread's own */
	struct history_opts o;
	struct pyframes *py;			 /* the Python frames of the window's samples */
	uint64_t walk_seen[SAMPLER_WALK_NR + 1]; /* the armed sampler's walk counters, counted */
	uint64_t freq_hz;			 /* now: o.freq_hz, or lower to keep the budget */
	struct sampler *sampler;
	struct symbolizer *sym;
	struct knames *kn;
	struct symbudget budget;
	int64_t generation;   /* CLOCK_MONOTONIC ns its symbolizer began */
	int64_t second_from;  /* CLOCK_REALTIME ns the second in progress began */
	uint64_t lost_before; /* the sampler's losses counted before this generation */
	/* the budget: the sampler's BPF statistics at the last drain, and
	 * the seconds in a row over it */
	uint64_t bpf_ns, sample_runs, cpu_ns;
	int64_t measured_at;
	uint64_t cost_ns[HISTORY_OVER_BUDGET_SECONDS], span_ns[HISTORY_OVER_BUDGET_SECONDS];
	uint64_t bpf_sum[HISTORY_OVER_BUDGET_SECONDS], irq_sum[HISTORY_OVER_BUDGET_SECONDS];
	unsigned int cost_at;
	int over, under; /* seconds in a row over the budget, under half of it */
	/* who cost the recorder the most: processes read in the second in
	 * progress, by name, and each past second's costliest */
	struct reader_cost readers[READERS_MAX];
	size_t nreaders;
	struct reader_cost top[HISTORY_OVER_BUDGET_SECONDS];
	uint32_t snapped[SNAPPED_MAX];
	size_t nsnapped;
	uint32_t execd[EXECD_MAX];
	size_t nexecd;
	struct cgroup_names cgroups; /* names of cgroups, kept for a generation */
	pthread_t thread;
	bool running;
	int stop_fd, cut_fd;
};

size_t history__profile_bytes(const struct profile *p)
{
	size_t b = sizeof(*p), i;

	if (!p)
		return 0;
	for (i = 0; i < p->nstrings; i++)
		b += strlen(p->strings[i]) + 1 + sizeof(char *) + 16; /* + its index slot */
	b += p->nmappings * (sizeof(*p->mappings) + 16);
	b += p->nfunctions * (sizeof(*p->functions) + 16);
	b += p->nlocations * (sizeof(*p->locations) + 16);
	b += p->nlines * sizeof(*p->lines);
	b += p->nsamples * sizeof(*p->samples);
	b += p->nstack_locs * sizeof(*p->stack_locs);
	return b;
}

static void second_put(struct second *s)
{
	if (s && --s->refs == 0) {
		profile__free(s->p);
		free(s);
	}
}

/* history_put - drop a reference (the lock not held). */
static void history_put(struct history *h)
{
	size_t i;
	int left;

	pthread_mutex_lock(&h->lock);
	left = --h->refs;
	pthread_mutex_unlock(&h->lock);
	if (left)
		return;
	for (i = 0; i < h->n; i++)
		second_put(h->ring[(h->head + i) % h->cap]);
	free(h->ring);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* evict_oldest - under the lock. */
static void evict_oldest(struct history *h)
{
	struct second *s = h->ring[h->head];

	h->bytes -= s->bytes;
	h->st.samples -= s->samples;
	h->head = (h->head + 1) % h->cap;
	h->n--;
	second_put(s);
}

/* push - @s into the ring, the oldest out past the window or the bytes. */
static void push(struct history *h, struct second *s)
{
	pthread_mutex_lock(&h->lock);
	if (h->n == h->cap)
		evict_oldest(h);
	while (h->n && h->bytes + s->bytes > h->o.max_bytes) {
		evict_oldest(h);
		h->st.evicted_for_bytes++;
	}
	h->ring[(h->head + h->n++) % h->cap] = s;
	h->bytes += s->bytes;
	h->st.samples += s->samples;
	h->st.seconds = h->n;
	h->st.bytes = h->bytes;
	pthread_mutex_unlock(&h->lock);
}

static int kernel_names(void *ctx, const uint64_t *addrs, uint32_t n,
			char (*names)[SYMBOLIZER_KNAME_LEN])
{
	return knames__resolve(ctx, addrs, n, names);
}

/* life_is_current - on the recorder's thread: whether @pid's life @life
 * (prockey.h) is the one it lives, by the recorder's sampler. */
static bool life_is_current(int pid, uint32_t life, void *ctx)
{
	struct history *h = ctx;

	return !h->sampler ||
	       sampler_lives__current(sampler__lives_fd(h->sampler), (uint32_t)pid, life);
}

/* python_found - a snapshot found a CPython interpreter: its frames are
 * walked from now on. */
static void python_found(int pid, const struct pyruntime *rt, void *py)
{
	pyframes__found(py, pid, rt);
}

/* on_py_code - a code object's first sample in the window. */
static void on_py_code(const void *rec, size_t size, void *ctx)
{
	struct history *h = ctx;

	if (pyframes__add_code(h->py, rec, size, sampler__window_seq(h->sampler)) == -E2BIG)
		log_debug("history: more Python code objects than a window keeps");
}

/* new_generation - a fresh symbolizer (the processes of the last window
 * forgotten) with a budget of its own. */
static int new_generation(struct history *h)
{
	struct symbolizer *sym = symbolizer__new(h->o.proc_root);

	if (!sym)
		return -errno;
	symbolizer__check_lives(sym, life_is_current, h);
	if (h->o.symcache && symbolizer__use_cache(sym, h->o.symcache))
		log_debug("history: no symbol cache; files are read for the recorder alone");
	symbudget__init(&h->budget);
	h->budget.max[SYMBUDGET_TIME] = h->o.window_ns + 10 * SEC;
	symbudget__start(&h->budget);
	symbolizer__use_budget(sym, &h->budget);
	if (h->kn)
		symbolizer__use_kernel_names(sym, kernel_names, h->kn);
	symbolizer__on_python(sym, python_found, h->py);
	symbolizer__free(h->sym);
	h->sym = sym;
	/* the window re-armed: code objects are announced anew, and the
	 * interpreters found registered for it */
	pyframes__drop_codes(h->py);
	if (h->sampler)
		pyframes__window(h->py, sampler__window_seq(h->sampler));
	h->generation = clock_mono_ns();
	h->nsnapped = h->nexecd = 0;
	cgroup_names__release(&h->cgroups);
	return 0;
}

static bool has_pid(const uint32_t *pids, size_t n, uint32_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* add_pid - put @pid into the set @pids of *@n while it has room (@max). */
static void add_pid(uint32_t *pids, size_t *n, size_t max, uint32_t pid)
{
	if (*n < max)
		pids[(*n)++] = pid;
}

/* take_pid - remove @pid from the set @pids of *@n; whether it was in. */
static bool take_pid(uint32_t *pids, size_t *n, uint32_t pid)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (pids[i] == pid) {
			pids[i] = pids[--*n];
			return true;
		}
	}
	return false;
}

static uint64_t thread_cpu_ns(void);

/* charge_reader - @ns of reading @pid (named @comm) to its name. */
static void charge_reader(struct history *h, uint32_t pid, const char *comm, uint64_t ns)
{
	struct reader_cost *r = NULL;
	size_t i;

	for (i = 0; i < h->nreaders && !r; i++)
		if (!strncmp(h->readers[i].comm, comm, sizeof(r->comm)))
			r = &h->readers[i];
	if (!r && h->nreaders < READERS_MAX)
		r = &h->readers[h->nreaders++];
	if (!r) { /* full: the cheapest name goes */
		r = &h->readers[0];
		for (i = 1; i < READERS_MAX; i++)
			if (h->readers[i].ns < r->ns)
				r = &h->readers[i];
	}
	if (strncmp(r->comm, comm, sizeof(r->comm))) {
		memset(r, 0, sizeof(*r));
		snprintf(r->comm, sizeof(r->comm), "%s", comm);
	}
	r->ns += ns;
	r->pids++;
	r->a_pid = pid;
}

/* snapshot - symbolizer__snapshot of process @key (prockey.h), its cost
 * charged to its name (@comm, or procfs's when NULL). */
static int snapshot(struct history *h, int key, const char *comm)
{
	uint32_t pid = (uint32_t)prockey_pid(key);
	char name[PROC_STAT_COMM_LEN];
	uint64_t t0;
	int e;

	if (!comm) { /* before it is read: a short-lived process is gone after */
		if (proc_stat_read_comm(h->o.proc_root ? h->o.proc_root : "/proc", (pid_t)pid,
					name))
			snprintf(name, sizeof(name), "?");
		comm = name;
	}
	t0 = thread_cpu_ns();
	e = symbolizer__snapshot(h->sym, key);
	charge_reader(h, pid, comm, thread_cpu_ns() - t0);
	return e;
}

/* snap - read the maps of @rec's process, once per generation while the
 * set has room: a process seen for the first time in this generation; one
 * that exec'd; one announced before its loader mapped its libraries, when
 * a frame falls outside the mappings read then. When all its frames are
 * in them, reading again could name nothing more. */
static void snap(struct history *h, const struct sampler_record *rec)
{
	int key = prockey_make(rec->key->pid, rec->key->life);

	if (key == PROCKEY_NONE || has_pid(h->snapped, h->nsnapped, (uint32_t)key))
		return;
	if (!take_pid(h->execd, &h->nexecd, (uint32_t)key) &&
	    symbolizer__maps_hold(h->sym, key, rec->user_ips, rec->user_len))
		return;
	add_pid(h->snapped, &h->nsnapped, SNAPPED_MAX, (uint32_t)key);
	snapshot(h, key, rec->key->comm);
}

/* on_event - a process the sampler announces: new, or exec'd. Either may
 * be announced before its loader has mapped the image's libraries (an
 * exec always is; a new process when its first sample fell in its
 * loader), so the maps read now may hold the executable alone: the pid
 * is read now and left unmarked, for snap to read again when its samples
 * need it. */
static void on_event(const struct sampler_event *ev, void *ctx)
{
	struct history *h = ctx;
	int key = prockey_make(ev->pid, ev->life);

	if (key == PROCKEY_NONE)
		return;
	take_pid(h->snapped, &h->nsnapped, (uint32_t)key);
	if (snapshot(h, key, NULL) == -ESRCH) {
		/* gone already (a short-lived process): no read will find it */
		add_pid(h->snapped, &h->nsnapped, SNAPPED_MAX, (uint32_t)key);
		return;
	}
	if (ev->kind == SAMPLER_EVENT_EXEC && !has_pid(h->execd, h->nexecd, (uint32_t)key))
		add_pid(h->execd, &h->nexecd, EXECD_MAX, (uint32_t)key);
}

static int snap_record(const struct sampler_record *rec, void *ctx)
{
	snap(ctx, rec);
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

/* second_of - the drained window @d as a second of the ring. */
static struct second *second_of(struct history *h, const struct sample_dump *d, int64_t now_real)
{
	struct second *s = calloc(1, sizeof(*s));
	int64_t n;

	if (!s)
		return NULL;
	s->refs = 1;
	s->start = h->second_from;
	s->end = now_real;
	s->p = profile__new();
	if (!s->p) {
		free(s);
		return NULL;
	}
	s->p->period_ns = (int64_t)(SEC / h->freq_hz);
	s->p->time_ns = s->start;
	s->p->duration_ns = s->end - s->start;
	sample_dump__for_each(d, snap_record, h);
	pyframes__new_profile(h->py);
	n = capture_add_samples(d, h->sym, h->py, s->p, &h->cgroups);
	if (n <= 0) {
		if (n < 0)
			log_debug("history: a second lost: %s", strerror((int)-n));
		profile__free(s->p);
		s->p = NULL;
	} else {
		s->samples = (uint64_t)n;
		s->bytes = history__profile_bytes(s->p);
	}
	return s;
}

/* costliest - the name whose reading cost the recorder the most in the
 * last HISTORY_OVER_BUDGET_SECONDS, in words into @buf ("" if none). */
static const char *costliest(const struct history *h, char *buf, size_t len)
{
	const struct reader_cost *best = NULL;
	char name[4 * sizeof(best->comm)];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < HISTORY_OVER_BUDGET_SECONDS; i++)
		if (h->top[i].ns && (!best || h->top[i].ns > best->ns))
			best = &h->top[i];
	if (best)
		snprintf(buf, len,
			 "; most of it reading processes named '%s' (%u in a second, pid %u "
			 "among them): %.1f ms",
			 safe_text_str(best->comm, name, sizeof(name)), best->pids, best->a_pid,
			 best->ns / 1e6);
	return buf;
}

/* recorder_opts - what the recorder's sampler is opened and retargeted
 * with, at @freq_hz: a retarget keeps everything else (the kernel walk,
 * trapd's own process left out). */
static struct sampler_opts recorder_opts(const struct history *h, uint64_t freq_hz)
{
	return (struct sampler_opts){
		.freq_hz = freq_hz,
		.window_ns = 2 * SEC, /* drained every second: room for two */
		.target = SAMPLER_TARGET_ALL,
		.cgroup_fd = -1,
		.record = SAMPLER_RECORD_CPU,
		.one_window = true, /* no off-CPU time, no calls */
		.walk_tables = h->o.walk_tables,
		.skip_self = true,
	};
}

/* retarget - the recorder's sampler at @freq_hz. */
static int retarget(struct history *h, uint64_t freq_hz)
{
	struct sampler_opts so = recorder_opts(h, freq_hz);
	char err[256];
	if (sampler__retarget(h->sampler, &so, err, sizeof(err))) {
		log_warn("history: cannot change the frequency to %llu Hz: %s",
			 (unsigned long long)freq_hz, err);
		return -1;
	}
	h->freq_hz = freq_hz;
	return 0;
}

/* decided - @why (and what cost the most) for status and the log. */
static void decided(struct history *h, bool lowered, const char *why)
{
	char who[160];

	costliest(h, who, sizeof(who));
	if (lowered)
		log_warn("history: %s%s", why, who);
	else
		log_info("history: %s", why);
	pthread_mutex_lock(&h->lock);
	h->st.freq_hz = h->freq_hz;
	if (lowered)
		h->st.lowered++;
	else
		h->st.raised++;
	snprintf(h->st.decision, sizeof(h->st.decision), "%s%s", why, lowered ? who : "");
	pthread_mutex_unlock(&h->lock);
}

/* lower - the budget was exceeded for HISTORY_OVER_BUDGET_SECONDS in a
 * row (@share of the host): the frequency whose cost fits
 * OVERHEAD_CAP_SHARE of it, by the measured cost per sample, at most
 * half the one before. */
static void lower(struct history *h, double share)
{
	uint64_t from = h->freq_hz, to;
	double fit = (double)from * h->o.max_pct * OVERHEAD_CAP_SHARE / share;
	char why[200];

	if (from <= 1)
		return;
	to = fit < 1 ? 1 : fit > (double)(from / 2) ? from / 2 : (uint64_t)fit;
	if (retarget(h, to))
		return;
	/* from the frequency asked for, through every step (each measured
	 * anew: a host that starts more processes costs more a sample) */
	snprintf(why, sizeof(why),
		 "lowered from %llu to %llu Hz%s: it took %.3f%% of the host, over max_overhead "
		 "%g%%",
		 (unsigned long long)h->o.freq_hz, (unsigned long long)to,
		 from != h->o.freq_hz ? " in steps" : "", share, h->o.max_pct);
	decided(h, true, why);
}

/* raise_freq - lowered before, the cost stayed under half the budget for
 * HISTORY_UNDER_BUDGET_SECONDS (@share of the host now, @scaled of it
 * what grows with the frequency: BPF and interrupts): back towards the
 * frequency asked for, as far as the cost projected fits
 * OVERHEAD_CAP_SHARE of the budget, and at least twice as high (under
 * half the budget, twice the cost still fits it). */
static void raise_freq(struct history *h, double share, double scaled)
{
	uint64_t from = h->freq_hz, to = h->o.freq_hz;
	double room = h->o.max_pct * OVERHEAD_CAP_SHARE - (share - scaled), fit;
	char why[200];

	fit = scaled > 0 ? (double)from * room / scaled : (double)to;
	if (fit < (double)to)
		to = fit > (double)(2 * from) ? (uint64_t)fit : 2 * from;
	if (to > h->o.freq_hz)
		to = h->o.freq_hz;
	if (to <= from || retarget(h, to))
		return;
	snprintf(why, sizeof(why),
		 "raised from %llu to %llu Hz (%llu asked for): it took %.3f%% of the host for "
		 "%d s, under half of max_overhead %g%%",
		 (unsigned long long)from, (unsigned long long)to, (unsigned long long)h->o.freq_hz,
		 share, HISTORY_UNDER_BUDGET_SECONDS, h->o.max_pct);
	decided(h, false, why);
}

/* fold_readers - the second's costliest name into the ring @k, and a new
 * second's table. */
static void fold_readers(struct history *h, unsigned int k)
{
	size_t i;

	memset(&h->top[k], 0, sizeof(h->top[k]));
	for (i = 0; i < h->nreaders; i++)
		if (h->readers[i].ns > h->top[k].ns)
			h->top[k] = h->readers[i];
	h->nreaders = 0;
}

/* measure - the recorder's cost since the last drain (its thread's CPU,
 * the BPF run time of its sampler, its interrupts), kept for the last
 * HISTORY_OVER_BUDGET_SECONDS; the frequency is lowered when all of them
 * were over the budget. */
static void measure(struct history *h)
{
	uint64_t run_ns, sample_runs, cpu = thread_cpu_ns(), cost = 0, span = 0, bpf = 0, irq = 0;
	int64_t now = clock_mono_ns();
	unsigned int i, k = h->cost_at % HISTORY_OVER_BUDGET_SECONDS;
	struct sampler_cost c;
	double share, second;

	/* its process hooks too: they run only because the recorder does */
	sampler__bpf_cost(h->sampler, &c);
	run_ns = c.sample_ns + c.hook_ns;
	sample_runs = c.sample_runs;
	if (h->measured_at) {
		h->bpf_sum[k] = run_ns - h->bpf_ns;
		h->irq_sum[k] = sample_runs - h->sample_runs;
		h->cost_ns[k] = (cpu - h->cpu_ns) + h->bpf_sum[k] + h->irq_sum[k] * h->o.irq_ns;
		h->span_ns[k] = (uint64_t)(now - h->measured_at);
		h->cost_at++;
	}
	h->bpf_ns = run_ns;
	h->sample_runs = sample_runs;
	h->cpu_ns = cpu;
	h->measured_at = now;
	for (i = 0; i < HISTORY_OVER_BUDGET_SECONDS; i++) {
		cost += h->cost_ns[i];
		span += h->span_ns[i];
		bpf += h->bpf_sum[i];
		irq += h->irq_sum[i];
	}
	share = overhead__share(cost, span, h->o.ncpus);
	pthread_mutex_lock(&h->lock);
	h->st.share_pct = share;
	h->st.bpf_ns_per_second = span ? bpf * SEC / span : 0;
	h->st.interrupts_per_second = span ? irq * SEC / span : 0;
	pthread_mutex_unlock(&h->lock);
	fold_readers(h, k);
	if (h->o.max_pct <= 0 || h->cost_at < HISTORY_OVER_BUDGET_SECONDS)
		return;
	second = overhead__share(h->cost_ns[k], h->span_ns[k], h->o.ncpus);
	h->over = second > h->o.max_pct ? h->over + 1 : 0;
	/* under: the last seconds' share (a renewal's one costly second is
	 * the window's, not the rate's), each second for a while */
	h->under = h->freq_hz < h->o.freq_hz && share < h->o.max_pct / 2 ? h->under + 1 : 0;
	if (h->over >= HISTORY_OVER_BUDGET_SECONDS && share > h->o.max_pct) {
		lower(h, share);
		h->over = h->under = 0;
	} else if (h->under >= HISTORY_UNDER_BUDGET_SECONDS) {
		raise_freq(h, share, overhead__share(bpf + irq * h->o.irq_ns, span, h->o.ncpus));
		h->over = h->under = 0;
	}
}

/* count_walks - add a drain's kernel walks to the stats (the lock held):
 * @st counts since the sampler was armed, which a renewal (@rearmed)
 * does again from zero. */
static void count_walks(struct history *h, const struct sampler_stats *st, bool rearmed)
{
	int i;

	h->st.walking = sampler__can_walk(h->sampler);
	for (i = 0; i < SAMPLER_WALK_NR; i++) {
		h->st.walk_ends[i] += st->v[SAMPLER_STAT_WALK_ENTRY + i] - h->walk_seen[i];
		h->walk_seen[i] = st->v[SAMPLER_STAT_WALK_ENTRY + i];
	}
	h->st.walk_fp_frames += st->v[SAMPLER_STAT_WALK_FP_FRAMES] - h->walk_seen[SAMPLER_WALK_NR];
	h->walk_seen[SAMPLER_WALK_NR] = st->v[SAMPLER_STAT_WALK_FP_FRAMES];
	sampler__walk_tables_stats(h->sampler, &h->st.tables);
	if (rearmed)
		memset(h->walk_seen, 0, sizeof(h->walk_seen));
}

/* drain - the second in progress moved out of the sampler, symbolized and
 * put in the ring. Every window the sampler is re-armed and the
 * symbolizer renewed. */
static void drain(struct history *h)
{
	bool renew = clock_mono_ns() - h->generation >= (int64_t)h->o.window_ns;
	struct sample_dump *d = sample_dump__new();
	uint64_t cpu0 = thread_cpu_ns(), lost, took;
	int64_t now_real = clock_real_ns();
	struct second *s = NULL;
	struct sampler_stats walks;
	int err;

	if (!d)
		return;
	if (renew)
		sampler__stop(h->sampler);
	err = sample_dump__collect(d, h->sampler);
	lost = h->lost_before + sampler__samples_lost(sample_dump__stats(d));
	walks = *sample_dump__stats(d);
	if (renew) {
		h->lost_before = lost;
		if (sampler__start(h->sampler))
			log_warn("history: re-arming the recorder's sampler failed");
	}
	if (!err)
		s = second_of(h, d, now_real);
	h->second_from = now_real;
	sample_dump__free(d);
	if (renew && new_generation(h))
		log_warn("history: a new symbolizer: %s", strerror(errno));
	if (s)
		push(h, s);
	took = thread_cpu_ns() - cpu0;
	pthread_mutex_lock(&h->lock);
	count_walks(h, &walks, renew);
	h->st.drains++;
	h->st.drain_ns_last = took;
	if (took > h->st.drain_ns_max)
		h->st.drain_ns_max = took;
	h->st.lost = lost;
	h->st.thread_cpu_ns = thread_cpu_ns();
	pthread_mutex_unlock(&h->lock);
	measure(h);
}

static bool readable(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v);
}

static void *run(void *arg)
{
	struct history *h = arg;
	int64_t next = clock_mono_ns() + SEC, now;
	struct pollfd pfd[3] = {
		{ .fd = h->stop_fd, .events = POLLIN },
		{ .fd = h->cut_fd, .events = POLLIN },
		{ .fd = sampler__events_fd(h->sampler), .events = POLLIN },
	};
	bool cut;

	for (;;) {
		now = clock_mono_ns();
		if (poll(pfd, 3, next > now ? (int)((next - now + 999999) / 1000000) : 0) < 0 &&
		    errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		if (pfd[2].revents)
			sampler__drain_events(h->sampler, on_event, h);
		cut = pfd[1].revents && readable(h->cut_fd);
		now = clock_mono_ns();
		if (cut || now >= next) {
			drain(h);
			next = clock_mono_ns() + SEC;
		}
	}
	return NULL;
}

static int open_sampler(struct history *h, char *err, size_t errlen)
{
	struct sampler_opts so = recorder_opts(h, h->o.freq_hz);
	int e;

	h->sampler = sampler__open(&so, err, errlen);
	if (!h->sampler)
		return -errno;
	e = pyframes__watch(h->py, sampler__py_procs_fd(h->sampler));
	if (e) {
		snprintf(err, errlen, "the recorder's Python frames: %s", strerror(-e));
		return e;
	}
	sampler__on_py_code(h->sampler, on_py_code, h);
	e = sampler__start(h->sampler);
	if (e)
		snprintf(err, errlen, "arming the recorder's sampler: %s", strerror(-e));
	else
		pyframes__window(h->py, sampler__window_seq(h->sampler));
	return e;
}

struct history *history__open(const struct history_opts *o, char *err, size_t errlen)
{
	struct history *h = calloc(1, sizeof(*h));
	int e;

	if (!h || pthread_mutex_init(&h->lock, NULL)) {
		free(h);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	h->refs = 1;
	h->o = *o;
	h->freq_hz = o->freq_hz;
	if (h->o.ncpus < 1)
		h->o.ncpus = 1;
	h->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->cut_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->cap = (size_t)(o->window_ns / SEC) + 1;
	h->ring = calloc(h->cap, sizeof(*h->ring));
	h->st.freq_hz = o->freq_hz;
	if (h->stop_fd < 0 || h->cut_fd < 0 || !h->ring) {
		e = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	cgroup_names__init(&h->cgroups);
	h->py = pyframes__new();
	if (!h->py) {
		e = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	h->kn = knames__open();
	if (!h->kn)
		log_debug("history: kernel names from BPF unavailable (%s); using kallsyms",
			  strerror(errno));
	e = new_generation(h);
	if (e) {
		snprintf(err, errlen, "a symbolizer for the recorder: %s", strerror(-e));
		goto fail;
	}
	e = open_sampler(h, err, errlen);
	if (e)
		goto fail;
	h->second_from = clock_real_ns();
	e = -pthread_create(&h->thread, NULL, run, h);
	if (e) {
		snprintf(err, errlen, "starting the recorder's thread: %s", strerror(-e));
		goto fail;
	}
	h->running = true;
	return h;
fail:
	history__close(h);
	errno = -e;
	return NULL;
}

void history__close(struct history *h)
{
	uint64_t one = 1;

	if (!h)
		return;
	if (h->running) {
		if (write(h->stop_fd, &one, sizeof(one)) != sizeof(one))
			log_warn("history: cannot stop the recorder's thread");
		pthread_join(h->thread, NULL);
	}
	sampler__free(h->sampler);
	symbolizer__free(h->sym);
	pyframes__free(h->py); /* after the symbolizer, which registers with it */
	knames__free(h->kn);
	cgroup_names__release(&h->cgroups);
	if (h->stop_fd >= 0)
		close(h->stop_fd);
	if (h->cut_fd >= 0)
		close(h->cut_fd);
	h->sampler = NULL;
	h->sym = NULL;
	h->py = NULL;
	h->kn = NULL;
	h->stop_fd = h->cut_fd = -1;
	history_put(h);
}

void history__stats(struct history *h, struct history_stats *out)
{
	pthread_mutex_lock(&h->lock);
	*out = h->st;
	pthread_mutex_unlock(&h->lock);
}

/* take_seconds - a reference to each of the ring's @count seconds from
 * the @first oldest on, into @out, under the held lock. */
static void take_seconds(struct history *h, size_t first, size_t count, struct second **out)
{
	size_t i;

	for (i = 0; i < count; i++) {
		out[i] = h->ring[(h->head + first + i) % h->cap];
		out[i]->refs++;
	}
}

/* put_seconds - drop the references to @secs[0..n) (the lock not held). */
static void put_seconds(struct history *h, struct second *const *secs, size_t n)
{
	size_t i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < n; i++)
		second_put(secs[i]);
	pthread_mutex_unlock(&h->lock);
}

struct history_slice {
	struct history *h;
	int64_t until;
	struct second **secs;
	size_t n;
};

struct history_slice *history__slice(struct history *h, int64_t until_real_ns)
{
	struct history_slice *s = calloc(1, sizeof(*s));
	uint64_t one = 1;

	if (!s)
		return NULL;
	pthread_mutex_lock(&h->lock);
	s->secs = calloc(h->n ? h->n : 1, sizeof(*s->secs));
	if (!s->secs) {
		pthread_mutex_unlock(&h->lock);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	take_seconds(h, 0, h->n, s->secs);
	s->n = h->n;
	h->refs++;
	pthread_mutex_unlock(&h->lock);
	s->h = h;
	s->until = until_real_ns;
	/* The second in progress ends at the decision. */
	if (h->cut_fd >= 0 && write(h->cut_fd, &one, sizeof(one)) != sizeof(one))
		log_debug("history: cannot cut the second in progress");
	return s;
}

/* add_second - @sec merged into *@out, made on the first: by time, as
 * the recorder's frequency may have been lowered between seconds. */
static int add_second(struct profile **out, const struct second *sec)
{
	if (!sec->p)
		return 0;
	if (!*out) {
		*out = profile__new();
		if (!*out)
			return -ENOMEM;
	}
	return profile_merge__add_by_time(*out, sec->p);
}

#define LATE_MAX 4

/* late_seconds - the ring's seconds drained after the slice was taken
 * that began before its decision (the second in progress, cut then),
 * with a reference each, into @out; how many. */
static size_t late_seconds(struct history_slice *s, struct second **out)
{
	int64_t last = s->n ? s->secs[s->n - 1]->end : INT64_MIN;
	struct history *h = s->h;
	struct second *sec;
	size_t i, n = 0;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < h->n && n < LATE_MAX; i++) {
		sec = h->ring[(h->head + i) % h->cap];
		if (sec->start >= last && sec->start < s->until) {
			sec->refs++;
			out[n++] = sec;
		}
	}
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* build_from - @secs[0..n) that began before @until, merged into *@out;
 * their span into *@first and *@end. */
static int build_from(struct second *const *secs, size_t n, int64_t until, struct profile **out,
		      int64_t *first, int64_t *end)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		if (secs[i]->start >= until)
			continue;
		if (!*first)
			*first = secs[i]->start;
		*end = secs[i]->end;
		err = add_second(out, secs[i]);
	}
	return err;
}

/* finish_build - the merged seconds' span and the recorder's period on
 * *@out, or nothing on @err. */
static int finish_build(const struct history *h, struct profile **out, int err, int64_t first,
			int64_t end)
{
	if (err) {
		profile__free(*out);
		*out = NULL;
		return err;
	}
	if (*out) {
		(*out)->time_ns = first;
		(*out)->duration_ns = end > first ? end - first : 0;
		if (!(*out)->period_ns)
			(*out)->period_ns = (int64_t)(SEC / h->st.freq_hz);
	}
	return 0;
}

int history_slice__build(struct history_slice *s, struct profile **out)
{
	struct second *late[LATE_MAX] = { NULL };
	size_t nlate = late_seconds(s, late);
	int64_t first = 0, end = 0;
	int err;

	*out = NULL;
	err = build_from(s->secs, s->n, s->until, out, &first, &end);
	if (!err)
		err = build_from(late, nlate, s->until, out, &first, &end);
	put_seconds(s->h, late, nlate);
	return finish_build(s->h, out, err, first, end);
}

int history__recent(struct history *h, uint32_t seconds, struct profile **out)
{
	struct second *secs[RECENT_SECONDS_MAX] = { NULL };
	int64_t first = 0, end = 0;
	size_t n;
	int err;

	if (seconds > RECENT_SECONDS_MAX)
		seconds = RECENT_SECONDS_MAX;
	pthread_mutex_lock(&h->lock);
	n = h->n < seconds ? h->n : seconds;
	take_seconds(h, h->n - n, n, secs);
	pthread_mutex_unlock(&h->lock);
	*out = NULL;
	err = build_from(secs, n, INT64_MAX, out, &first, &end);
	put_seconds(h, secs, n);
	return finish_build(h, out, err, first, end);
}

void history_slice__free(struct history_slice *s)
{
	if (!s)
		return;
	put_seconds(s->h, s->secs, s->n);
	history_put(s->h);
	free(s->secs);
	free(s);
}

void history_slice__stats(const struct history_slice *s, struct history_stats *out)
{
	history__stats(s->h, out);
}
