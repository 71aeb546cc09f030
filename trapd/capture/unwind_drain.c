// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwind_drain.c - unwind the sampler's stack copies as they come
 * (unwind_drain.h). */
#include "trapd/capture/unwind_drain.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/prockey.h"
#include "trapd/util/clock.h"
#include "trapd/util/log.h"
#include "trapd/util/signals.h"

#define POLL_MS 50 /* the BPF side wakes this thread only when needed (copy_wakeup) */

/* Blocking sites asked for again in one window (recopy). */
#define RECOPY_MAX 256

struct unwind_drain {
	struct ring_buffer *rb;
	struct unwinder *uw;
	bool own_uw;
	struct sample_dump *agg;
	struct unwind_summary sum;
	uint32_t window;
	int err; /* first failure to count a sample */
	pthread_t thread;
	bool thread_started;
	atomic_bool stopping;
	_Atomic int64_t deadline_ns;	   /* walks stop then; 0 while the window runs */
	struct sampler *sampler;	   /* for sampler__recopy_site */
	struct unwind_result res;	   /* scratch: too big for the thread's stack frame */
	uint8_t patched[SAMPLER_COPY_MAX]; /* a copy with a call's return address back */
	unwind_drain_remap_fn remapped;
	void *remapped_ctx;
};

/* stack_id - a non-zero 64-bit name of the unwound stack @ips[0..n),
 * without SAMPLER_SITE_BIT (which names a blocking site). */
static uint64_t stack_id(const uint64_t *ips, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h ^= ips[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	h ^= n;
	h &= ~SAMPLER_SITE_BIT;
	return h ? h : 1;
}

/* count_end - the walk in d->res ended in its mapping. */
static void count_end(struct unwind_drain *d)
{
	struct unwind_summary *u = &d->sum;
	uint32_t i;

	if (!d->res.end_path[0]) /* the sampled pc itself was in no mapping */
		snprintf(d->res.end_path, sizeof(d->res.end_path), "[unmapped]");
	for (i = 0; i < u->nmappings; i++)
		if (!strcmp(u->mappings[i].path, d->res.end_path))
			break;
	if (i == u->nmappings) {
		if (i == UNWIND_SUMMARY_MAPPINGS) {
			u->ended_elsewhere++;
			return;
		}
		memcpy(u->mappings[i].path, d->res.end_path, sizeof(u->mappings[i].path));
		u->nmappings++;
	}
	u->mappings[i].ended[d->res.end < UNWIND_END_NR ? d->res.end : UNWIND_END_BAD_CFI]++;
}

/* stack_of - the stack bytes of copy @c to unwind: as copied, or when a
 * uretprobe of the window's calls hid a return address in them (its
 * trampoline's address in its place), a copy with the address put back,
 * so the walk goes on through the caller. */
static const uint8_t *stack_of(struct unwind_drain *d, const struct sampler_copy *c)
{
	const uint8_t *stack = (const uint8_t *)(c + 1);
	uint64_t off = c->call_ret_slot - c->sp;

	if (!c->call_ret_slot || c->call_ret_slot < c->sp || off + 8 > c->len ||
	    c->len > sizeof(d->patched))
		return stack;
	memcpy(d->patched, stack, c->len);
	memcpy(d->patched + off, &c->call_ret, sizeof(c->call_ret));
	return d->patched;
}

/* walk - unwind copy @c into d->res; its length (0: no user stack). */
static uint32_t walk(struct unwind_drain *d, const struct sampler_copy *c)
{
	struct unwind_input in = {
		.ip = c->ip,
		.sp = c->sp,
		.bp = c->bp,
		.stack = stack_of(d, c),
		.stack_len = c->len,
	};
	int64_t t0 = clock_mono_ns();
	int e;

	e = unwinder__unwind(d->uw, prockey_make(c->pid, c->life), &in, &d->res);
	d->sum.unwind_ns += (uint64_t)(clock_mono_ns() - t0);
	if (!e && d->res.maps_reread && d->remapped)
		d->remapped(prockey_make(c->pid, c->life), d->remapped_ctx);
	if (e == -ESRCH) {
		d->sum.no_maps++;
		return 0;
	}
	if (e) {
		if (!d->err)
			d->err = e;
		return 0;
	}
	d->sum.unwound++;
	d->sum.ended[d->res.end < UNWIND_END_NR ? d->res.end : UNWIND_END_BAD_CFI]++;
	d->sum.frames += d->res.n;
	d->sum.fp_steps += d->res.fp_steps;
	count_end(d);
	return d->res.n;
}

/* recopy - whether blocking site copy @c, walked into @n frames, is asked
 * for again: its walk found nothing or ran outside the process's
 * mappings (a process that had just exec'd is unwound with maps not yet
 * read or still its old image's, and a site's one copy would be lost for
 * the window). At most RECOPY_MAX a window, then a site keeps what it
 * got. */
static bool recopy(struct unwind_drain *d, const struct sampler_copy *c, uint32_t n)
{
	if (n && d->res.end != UNWIND_END_NOT_MAPPED)
		return false;
	if (d->sum.sites_recopied >= RECOPY_MAX)
		return false;
	sampler__recopy_site(d->sampler, c->site);
	d->sum.sites_recopied++;
	return true;
}

static int on_copy(void *ctx, void *data, size_t size)
{
	struct unwind_drain *d = ctx;
	const struct sampler_copy *c = data;
	struct sampler_record rec = { 0 };
	struct sampler_key key = { 0 };
	int64_t deadline = atomic_load(&d->deadline_ns);
	uint32_t n = 0;
	int e;

	if (size < sizeof(*c) || c->len > size - sizeof(*c) || c->len > SAMPLER_COPY_MAX) {
		d->sum.malformed++;
		return 0;
	}
	if (c->window != d->window) {
		d->sum.stale++;
		return 0;
	}
	d->sum.copies++;
	d->sum.copy_bytes_sum += c->len;
	if (deadline && clock_mono_ns() > deadline)
		d->sum.late++;
	else
		n = walk(d, c);
	if (c->site) {
		/* a blocking site: its stack, for the waits counted there;
		 * copied once a window, so one that did not unwind is asked
		 * for again */
		if (recopy(d, c, n))
			return 0;
		e = n ? sample_dump__add_site(d->agg, c->site, d->res.ips, n) : 0;
		if (e == -ENOSPC)
			d->sum.lost_memory++;
		else if (e && !d->err)
			d->err = e;
		return 0;
	}
	key.pid = c->pid;
	key.tid = c->tid;
	key.life = c->life;
	key.cgroup_id = c->cgroup_id;
	memcpy(key.comm, c->comm, sizeof(key.comm));
	key.kernel_stack = c->kernel_stack;
	key.py_stack = c->py_stack;
	key.call = c->call;
	key.user_stack = n ? stack_id(d->res.ips, n) : 0;
	rec.key = &key;
	rec.count = 1;
	rec.user_ips = n ? d->res.ips : NULL;
	rec.user_len = n;
	rec.unwound = true;
	e = sample_dump__add(d->agg, &rec);
	if (e == -ENOSPC)
		d->sum.lost_memory++;
	else if (e && !d->err)
		d->err = e;
	return 0;
}

static void *run(void *arg)
{
	struct unwind_drain *d = arg;

	while (!atomic_load(&d->stopping)) {
		ring_buffer__poll(d->rb, POLL_MS);
		/* poll consumes only a ring that woke it: copies sent without
		 * a wakeup (copy_wakeup) are taken here, at most POLL_MS late,
		 * while their process still lives */
		ring_buffer__consume(d->rb);
	}
	/* The window is closed: what is left in the ring is this window's. */
	ring_buffer__consume(d->rb);
	return NULL;
}

static int start_thread(struct unwind_drain *d)
{
	/* Signals go to the event loop's thread, never to this one. */
	int e = signals_thread_create(&d->thread, run, d);

	if (e)
		return -e;
	d->thread_started = true;
	return 0;
}

struct unwind_drain *unwind_drain__start(struct sampler *s, uint32_t copy_bytes,
					 struct unwinder *uw, uint64_t keep_cfi_bytes,
					 unwind_drain_remap_fn remapped, void *ctx,
					 prockey_current_fn lives, void *lives_ctx)
{
	struct unwind_drain *d;
	int fd = sampler__copies_fd(s), e = -ENOMEM;

	if (fd < 0 || !unwinder__supported()) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->sum.mode = UNWIND_MODE_DWARF;
	d->sum.copy_bytes = copy_bytes;
	d->window = sampler__window_seq(s);
	d->sampler = s;
	d->remapped = remapped;
	d->remapped_ctx = ctx;
	d->agg = sample_dump__new();
	if (uw) {
		unwinder__reset(uw, keep_cfi_bytes);
		d->uw = uw;
	} else {
		d->uw = unwinder__new("/proc", 0);
		d->own_uw = true;
	}
	if (!d->agg || !d->uw)
		goto fail;
	unwinder__check_lives(d->uw, lives, lives_ctx);
	d->rb = ring_buffer__new(fd, on_copy, d, NULL);
	if (!d->rb) {
		e = -errno;
		goto fail;
	}
	e = start_thread(d);
	if (e)
		goto fail;
	return d;
fail:
	unwind_drain__free(d);
	errno = -e;
	return NULL;
}

void unwind_drain__stop(struct unwind_drain *d)
{
	struct unwinder_stats st;

	if (!d || !d->thread_started)
		return;
	atomic_store(&d->deadline_ns, clock_mono_ns() + (int64_t)UNWIND_DRAIN_STOP_NS);
	atomic_store(&d->stopping, true);
	pthread_join(d->thread, NULL);
	d->thread_started = false;
	unwinder__get_stats(d->uw, &st);
	d->sum.files_loaded = st.files_loaded;
	d->sum.files_cached = st.files_cached;
	if (d->err)
		log_warn("unwinding stack copies: %s; some samples lost their user stack",
			 strerror(-d->err));
	if (d->sum.lost_memory)
		log_warn("%llu samples were dropped: their unwound stacks passed the memory bound",
			 (unsigned long long)d->sum.lost_memory);
	if (d->sum.late)
		log_warn("%llu stack copies were not unwound in time after the window closed",
			 (unsigned long long)d->sum.late);
}

const struct sample_dump *unwind_drain__samples(const struct unwind_drain *d)
{
	return d->agg;
}

const struct unwind_summary *unwind_drain__summary(const struct unwind_drain *d)
{
	return &d->sum;
}

void unwind_drain__free(struct unwind_drain *d)
{
	if (!d)
		return;
	unwind_drain__stop(d);
	ring_buffer__free(d->rb);
	if (d->own_uw)
		unwinder__free(d->uw);
	else if (d->uw)
		unwinder__check_lives(d->uw, NULL, NULL); /* kept: the next window's lives */
	sample_dump__free(d->agg);
	free(d);
}
