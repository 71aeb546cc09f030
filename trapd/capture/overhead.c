// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* overhead.c - what trapd's sampling costs the host (see overhead.h). */
#include "trapd/capture/overhead.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trapd/util/clock.h"
#include "trapd/util/cpus.h"
#include "trapd/util/log.h"

/* The calibration loop's work per run: about 10 ms here. */
#define CALIBRATE_RUN_NS 10000000ull

static volatile uint64_t sink;

static void spin(uint64_t n)
{
	uint64_t x = sink;

	while (n--)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static int64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* run_delay - the time this thread has waited on a run queue, ns
 * (/proc/thread-self/schedstat, open at @fd); 0 when unknown. */
static int64_t run_delay(int fd)
{
	unsigned long long run, wait;
	char buf[96];
	ssize_t n;

	if (fd < 0 || (n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (int64_t)wait : 0;
}

/* timed - the time @iters of work took, with @fd (a sampling event on
 * this thread) enabled when >= 0: the thread's CPU time, which counts
 * the interrupts it took (unless the kernel accounts interrupt time
 * apart) and not the time others ran (a busy host), and in *@wall the
 * time it was on a CPU, which counts both: the wall time less the time
 * it waited for one (schedstat, @sched_fd), so that others running on a
 * busy host do not count as the interrupts' cost. */
static int64_t timed(int fd, int sched_fd, uint64_t iters, int64_t *wall)
{
	int64_t t0, t1, w0, d0;

	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	d0 = run_delay(sched_fd);
	w0 = clock_mono_ns();
	t0 = thread_ns();
	spin(iters);
	t1 = thread_ns();
	*wall = clock_mono_ns() - w0 - (run_delay(sched_fd) - d0);
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return t1 - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int overhead__calibrate(uint64_t period_ns, int rounds, uint64_t *irq_ns)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period_ns,
		.disabled = 1,
	};
	uint64_t iters = 1000000, cpu[16], wall[16], counted = 0, k;
	int64_t plain, busy, wplain, wbusy;
	int fd, sched_fd, i, n = 0;

	if (rounds < 1 || rounds > 16 || !period_ns)
		return -EINVAL;
	fd = (int)syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	plain = timed(-1, sched_fd, iters, &wplain);
	if (plain > 0)
		iters = iters * CALIBRATE_RUN_NS / (uint64_t)plain + 1;
	for (i = 0; i < rounds; i++) {
		plain = timed(-1, sched_fd, iters, &wplain);
		busy = timed(fd, sched_fd, iters, &wbusy);
		if (read(fd, &counted, sizeof(counted)) != sizeof(counted) || counted < period_ns)
			continue;
		/* cpu-clock counted the thread's time: one interrupt a period */
		k = counted / period_ns;
		cpu[n] = busy > plain ? (uint64_t)(busy - plain) / k : 0;
		wall[n++] = wbusy > wplain ? (uint64_t)(wbusy - wplain) / k : 0;
	}
	close(fd);
	if (sched_fd >= 0)
		close(sched_fd);
	if (!n)
		return -EIO;
	qsort(cpu, (size_t)n, sizeof(cpu[0]), cmp_u64);
	qsort(wall, (size_t)n, sizeof(wall[0]), cmp_u64);
	/* The thread's time, unless the kernel kept the interrupts out of it
	 * (IRQ_TIME_ACCOUNTING): then its time on a CPU (without schedstat,
	 * the wall time, which others' running inflates: an estimate on the
	 * safe side). */
	*irq_ns = cpu[n / 2] * 2 >= wall[n / 2] ? cpu[n / 2] : wall[n / 2];
	return 0;
}

void overhead__open(struct overhead *o)
{
	int e;

	memset(o, 0, sizeof(*o));
	o->stats_fd = -1;
	o->ncpus = cpus_online_count();
	e = overhead__calibrate(OVERHEAD_CALIBRATE_PERIOD_NS, 5, &o->irq_ns);
	o->irq_measured = !e;
	if (e) {
		o->irq_ns = OVERHEAD_DEFAULT_IRQ_NS;
		log_warn("cannot measure what a sampling interrupt costs here (%s); the overhead "
			 "budget counts %d ns",
			 strerror(-e), OVERHEAD_DEFAULT_IRQ_NS);
	} else {
		log_info("a sampling interrupt costs about %.1f us here (measured)",
			 (double)o->irq_ns / 1000.0);
	}
}

void overhead__close(struct overhead *o)
{
	if (o->stats_fd >= 0)
		close(o->stats_fd);
	o->stats_fd = -1;
	o->stats_holds = 0;
}

void overhead__hold_stats(struct overhead *o)
{
	if (o->stats_holds++ || o->stats_refused)
		return;
	o->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (o->stats_fd >= 0)
		return;
	o->stats_refused = true;
	log_warn("cannot switch on BPF run-time statistics (%s): the overhead budget counts %d ns "
		 "of BPF a sample",
		 strerror(errno), OVERHEAD_DEFAULT_BPF_NS);
}

void overhead__release_stats(struct overhead *o)
{
	if (o->stats_holds <= 0 || --o->stats_holds)
		return;
	if (o->stats_fd >= 0)
		close(o->stats_fd);
	o->stats_fd = -1;
}

double overhead__share(uint64_t ns, uint64_t elapsed_ns, int ncpus)
{
	if (!elapsed_ns || ncpus < 1)
		return 0;
	return (double)ns / (double)elapsed_ns / ncpus * 100.0;
}

uint64_t overhead__sample_ns(const struct overhead *o, uint64_t bpf_ns)
{
	return o->irq_ns + (bpf_ns ? bpf_ns : OVERHEAD_DEFAULT_BPF_NS);
}

uint64_t overhead__cap_freq(uint64_t want_hz, int sampled_cpus, int ncpus, uint64_t sample_ns,
			    double max_pct)
{
	double per_hz, max_hz;

	if (sampled_cpus < 1 || ncpus < 1 || !sample_ns)
		return want_hz;
	/* share = hz x cpus x sample_ns / 1e9 / ncpus x 100 */
	per_hz = (double)sampled_cpus * (double)sample_ns / 1e9 / ncpus * 100.0;
	max_hz = max_pct / per_hz;
	if ((double)want_hz <= max_hz)
		return want_hz;
	return max_hz < 1 ? 1 : (uint64_t)max_hz;
}

uint64_t overhead__offcpu_takes_hz(double max_pct, uint64_t take_ns)
{
	double hz;

	if (max_pct <= 0)
		return 0;
	hz = max_pct / 100.0 * OVERHEAD_OFFCPU_SHARE * 1e9 /
	     (double)(take_ns ? take_ns : OVERHEAD_DEFAULT_BPF_NS);
	return hz < 1 ? 1 : (uint64_t)hz;
}

uint64_t overhead_window__choose(struct overhead_window *w, struct overhead *o, double max_pct,
				 const struct sampler *s, uint64_t bpf_hint_ns, uint64_t want_hz)
{
	struct sampler_cost c = { 0 };
	uint64_t bpf = 0;
	double est;

	memset(w, 0, sizeof(*w));
	w->asked_hz = w->freq_hz = want_hz;
	if (!o || max_pct <= 0)
		return want_hz;
	w->o = o;
	w->max_pct = max_pct;
	if (s)
		sampler__bpf_cost(s, &c);
	if (c.sample_runs >= 1000)
		bpf = c.sample_ns / c.sample_runs;
	if (bpf_hint_ns > bpf)
		bpf = bpf_hint_ns;
	w->sample_ns = overhead__sample_ns(o, bpf);
	w->offcpu_takes_hz = overhead__offcpu_takes_hz(max_pct, bpf);
	/* every online CPU takes the interrupts, whatever the target */
	w->freq_hz = overhead__cap_freq(want_hz, o->ncpus, o->ncpus, w->sample_ns,
					max_pct * OVERHEAD_CAP_SHARE);
	if (w->freq_hz < want_hz) {
		est = (double)want_hz * (double)w->sample_ns / 1e7;
		snprintf(w->capped, sizeof(w->capped),
			 "%llu Hz would take about %.0f%% of the host (%.1f us a sample on each of "
			 "%d CPUs); %llu Hz keeps it within max_capture_overhead %g%%",
			 (unsigned long long)want_hz, est, (double)w->sample_ns / 1000.0, o->ncpus,
			 (unsigned long long)w->freq_hz, max_pct);
	}
	return w->freq_hz;
}

void overhead_window__start(struct overhead_window *w, const struct sampler *s, int64_t now)
{
	struct sampler_cost c;

	if (!w->o)
		return;
	overhead__hold_stats(w->o);
	w->holds_stats = true;
	sampler__bpf_cost(s, &c);
	w->bpf0 = c.sample_ns;
	w->runs0 = c.sample_runs;
	w->hooks0 = c.hook_ns;
	w->start_mono = now;
	w->next_check = now + OVERHEAD_WARMUP_NS;
}

void overhead_window__end(struct overhead_window *w)
{
	if (w->holds_stats)
		overhead__release_stats(w->o);
	w->holds_stats = false;
}

bool overhead_window__check(struct overhead_window *w, const struct sampler *s, int64_t now,
			    bool force)
{
	struct sampler_cost c;
	uint64_t bpf, irqs;

	if (!w->o || (!force && now < w->next_check) || now <= w->start_mono)
		return w->over;
	w->next_check = now + 250000000ll;
	sampler__bpf_cost(s, &c);
	w->bpf_ns = c.sample_ns - w->bpf0;
	w->interrupts = c.sample_runs - w->runs0;
	w->share_pct = overhead__share(w->bpf_ns + w->interrupts * w->o->irq_ns,
				       (uint64_t)(now - w->start_mono), w->o->ncpus);
	/* the hooks' cost is the host's events: shown, never judged */
	w->hooks_ns = c.hook_ns - w->hooks0;
	w->hooks_pct = overhead__share(w->hooks_ns, (uint64_t)(now - w->start_mono), w->o->ncpus);
	if (!w->steady_from) {
		/* the first check: the rate from here on is the window's own */
		w->steady_from = now;
		w->bpf1 = c.sample_ns;
		w->runs1 = c.sample_runs;
		return w->over;
	}
	bpf = c.sample_ns - w->bpf1;
	irqs = c.sample_runs - w->runs1;
	w->steady_pct = overhead__share(bpf + irqs * w->o->irq_ns, (uint64_t)(now - w->steady_from),
					w->o->ncpus);
	if (!force && now - w->steady_from >= OVERHEAD_WARMUP_NS && w->steady_pct > w->max_pct)
		w->over = true;
	return w->over;
}
