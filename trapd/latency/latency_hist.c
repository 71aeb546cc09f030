// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_hist.c - bucket bounds, sums, deltas, percentiles, the sliding
 * window and text renderings of the latency histograms (bpf/latency.h). */
#include "trapd/latency/latency_hist.h"

#include "rules/units.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAST_BUCKET (LAT_NBUCKETS - 1)
/* The last bucket is open-ended; where its nominal range would end. */
#define LAST_NOMINAL_END (1ull << LAT_MAX_EXP)
/* Text rows: value 0, then one per power of two 2^0 .. 2^(LAT_MAX_EXP-1). */
#define LAT_ROWS (LAT_MAX_EXP + 1)
#define WINDOW_MAX_SLOTS 65536u

_Static_assert(LAT_NBUCKETS <= 65536, "bucket numbers fit the window's uint16_t");
_Static_assert(LAT_NBUCKETS / LAT_SUBS + LAT_SUB_BITS == LAT_ROWS, "text rows cover the buckets");

static uint64_t bucket_width(uint32_t b)
{
	return b < LAT_SUBS ? 1 : 1ull << (b / LAT_SUBS - 1);
}

uint64_t lat_bucket__lo(uint32_t b)
{
	if (b >= LAT_NBUCKETS)
		return UINT64_MAX;
	if (b < LAT_SUBS)
		return b;
	return (uint64_t)(LAT_SUBS + b % LAT_SUBS) << (b / LAT_SUBS - 1);
}

uint64_t lat_bucket__hi(uint32_t b)
{
	if (b >= LAST_BUCKET)
		return UINT64_MAX;
	return lat_bucket__lo(b) + bucket_width(b);
}

void lat_hist__reset(struct lat_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void lat_hist__sum_rows(struct lat_hist *out, const struct lat_row *rows, unsigned nrows,
			uint64_t epoch)
{
	unsigned r, b;

	lat_hist__reset(out);
	for (r = 0; r < nrows; r++) {
		const struct lat_row *row = &rows[r];

		for (b = 0; b < LAT_NBUCKETS; b++)
			out->counts[b] += row->counts[b];
		out->events += row->events;
		out->sum_ns += row->sum_ns;
		if (row->max_epoch == epoch && row->max_ns > out->max_ns)
			out->max_ns = row->max_ns;
	}
}

static int check_monotonic(const struct lat_hist *now, const struct lat_hist *before)
{
	unsigned b;

	if (now->events < before->events || now->sum_ns < before->sum_ns)
		return -ERANGE;
	for (b = 0; b < LAT_NBUCKETS; b++)
		if (now->counts[b] < before->counts[b])
			return -ERANGE;
	return 0;
}

int lat_hist__delta(struct lat_hist *out, const struct lat_hist *now, const struct lat_hist *before)
{
	unsigned b;

	if (check_monotonic(now, before)) {
		if (out != now)
			memcpy(out, now, sizeof(*out));
		return -ERANGE;
	}
	/* Element by element, so @out may alias either input. */
	for (b = 0; b < LAT_NBUCKETS; b++)
		out->counts[b] = now->counts[b] - before->counts[b];
	out->events = now->events - before->events;
	out->sum_ns = now->sum_ns - before->sum_ns;
	out->max_ns = now->max_ns;
	return 0;
}

/* rank_of - the nearest rank ceil(@q * @n), in 1..@n. A product a few
 * rounding errors above an integer is that integer: 0.07 * 100 is
 * 7.000000000000001 in doubles, and whoever wrote 0.07 meant rank 7. */
static uint64_t rank_of(double q, uint64_t n)
{
	double x;
	uint64_t r;

	if (!(q > 0))
		return 1;
	if (q >= 1)
		return n;
	x = q * (double)n;
	if (x >= (double)n)
		return n;
	r = (uint64_t)x;
	if ((double)r < x)
		r++;
	if (r > 1 && (double)(r - 1) >= x * (1 - 4 * DBL_EPSILON))
		r--;
	return r ? r : 1;
}

/* place_in_bucket - where the @k-th (1-based) of the @c values of bucket
 * @b most likely lies, taking them as spread evenly over the bucket: the
 * expected k-th of c uniform values over [lo, hi) is lo + width*k/(c+1).
 * In the bucket that holds max_ns the max is one of the values and the
 * others spread over [lo, max]: lo + (max-lo)*k/c, which puts the top rank
 * on max_ns. Integer arithmetic only; width-1 buckets come out exact. */
static uint64_t place_in_bucket(const struct lat_hist *h, uint32_t b, uint64_t k, uint64_t c)
{
	uint64_t lo = lat_bucket__lo(b), hi = lat_bucket__hi(b), width;

	if (h->max_ns >= lo && (b == LAST_BUCKET || h->max_ns < hi))
		return lo + (uint64_t)((unsigned __int128)(h->max_ns - lo) * k / c);
	width = b == LAST_BUCKET ? LAST_NOMINAL_END - lo : hi - lo;
	return lo + (uint64_t)((unsigned __int128)width * k / ((unsigned __int128)c + 1));
}

uint64_t lat_hist__percentile(const struct lat_hist *h, double q)
{
	uint64_t n = 0, r, below = 0;
	uint32_t b;

	/* The counts, not h->events: a read racing the probe may see them
	 * disagree, and the walk below must stay inside the counts. */
	for (b = 0; b < LAT_NBUCKETS; b++)
		n += h->counts[b];
	if (!n)
		return 0;
	r = rank_of(q, n);
	for (b = 0; b < LAST_BUCKET; b++) {
		if (h->counts[b] >= r - below)
			break;
		below += h->counts[b];
	}
	return place_in_bucket(h, b, r - below, h->counts[b]);
}

uint64_t lat_hist__max(const struct lat_hist *h)
{
	uint32_t b = LAT_NBUCKETS;
	uint64_t lo;

	while (b > 0 && !h->counts[b - 1])
		b--;
	if (!b)
		return h->max_ns;
	lo = lat_bucket__lo(b - 1);
	return h->max_ns > lo ? h->max_ns : lo;
}

/* --- the sliding window ---------------------------------------------- */

/* One interval, sparse: @n counts, then their @n bucket numbers as
 * uint16_t in the same allocation (10 bytes per non-empty bucket). */
struct lat_interval {
	uint64_t span_ns;
	uint64_t events;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint32_t n;
	uint32_t pad;
	uint64_t counts[];
};

struct lat_window {
	struct lat_hist hist; /* the sum of the kept intervals */
	uint64_t span_ns;     /* ...and of their lengths */
	unsigned slots;
	unsigned filled;
	unsigned next;		    /* the slot the next push writes */
	struct lat_interval **ring; /* @slots entries, NULL when empty */
};

static uint16_t *interval_buckets(const struct lat_interval *iv)
{
	return (uint16_t *)(iv->counts + iv->n);
}

static struct lat_interval *interval_new(const struct lat_hist *delta, uint64_t span_ns)
{
	struct lat_interval *iv;
	uint32_t b, n = 0, i = 0;

	for (b = 0; b < LAT_NBUCKETS; b++)
		n += delta->counts[b] != 0;
	iv = malloc(sizeof(*iv) + n * (sizeof(uint64_t) + sizeof(uint16_t)));
	if (!iv)
		return NULL;
	iv->span_ns = span_ns;
	iv->events = delta->events;
	iv->sum_ns = delta->sum_ns;
	iv->max_ns = delta->max_ns;
	iv->n = n;
	iv->pad = 0;
	for (b = 0; b < LAT_NBUCKETS; b++) {
		if (!delta->counts[b])
			continue;
		iv->counts[i] = delta->counts[b];
		interval_buckets(iv)[i++] = (uint16_t)b;
	}
	return iv;
}

/* hist_add, hist_sub - add or take away @iv's counters. Taking away an
 * interval once added is exact integer arithmetic, so the running sum
 * never drifts. */
static void hist_add(struct lat_hist *h, const struct lat_interval *iv)
{
	const uint16_t *buckets = interval_buckets(iv);
	uint32_t i;

	for (i = 0; i < iv->n; i++)
		h->counts[buckets[i]] += iv->counts[i];
	h->events += iv->events;
	h->sum_ns += iv->sum_ns;
}

static void hist_sub(struct lat_hist *h, const struct lat_interval *iv)
{
	const uint16_t *buckets = interval_buckets(iv);
	uint32_t i;

	for (i = 0; i < iv->n; i++)
		h->counts[buckets[i]] -= iv->counts[i];
	h->events -= iv->events;
	h->sum_ns -= iv->sum_ns;
}

static uint64_t window_max(const struct lat_window *w)
{
	uint64_t max = 0;
	unsigned i;

	for (i = 0; i < w->slots; i++)
		if (w->ring[i] && w->ring[i]->max_ns > max)
			max = w->ring[i]->max_ns;
	return max;
}

struct lat_window *lat_window__new(unsigned slots)
{
	struct lat_window *w = NULL;

	if (slots < 1 || slots > WINDOW_MAX_SLOTS) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		goto cleanup;
	w->ring = calloc(slots, sizeof(*w->ring));
	if (!w->ring)
		goto cleanup;
	w->slots = slots;
	return w;
cleanup:
	free(w);
	errno = ENOMEM;
	return NULL;
}

void lat_window__clear(struct lat_window *w)
{
	unsigned i;

	for (i = 0; i < w->slots; i++) {
		free(w->ring[i]);
		w->ring[i] = NULL;
	}
	lat_hist__reset(&w->hist);
	w->span_ns = 0;
	w->filled = 0;
	w->next = 0;
}

void lat_window__free(struct lat_window *w)
{
	if (!w)
		return;
	lat_window__clear(w);
	free(w->ring);
	free(w);
}

int lat_window__push(struct lat_window *w, const struct lat_hist *delta, uint64_t span_ns)
{
	struct lat_interval *iv, *old;
	bool rescan = false;

	iv = interval_new(delta, span_ns);
	if (!iv)
		return -ENOMEM;
	old = w->ring[w->next];
	if (old) {
		hist_sub(&w->hist, old);
		w->span_ns -= old->span_ns;
		/* Only losing the interval that held the max needs a scan. */
		rescan = old->max_ns && old->max_ns >= w->hist.max_ns;
		free(old);
	} else {
		w->filled++;
	}
	w->ring[w->next] = iv;
	w->next = (w->next + 1) % w->slots;
	hist_add(&w->hist, iv);
	w->span_ns += iv->span_ns;
	if (rescan)
		w->hist.max_ns = window_max(w);
	else if (iv->max_ns > w->hist.max_ns)
		w->hist.max_ns = iv->max_ns;
	return 0;
}

const struct lat_hist *lat_window__hist(const struct lat_window *w)
{
	return &w->hist;
}

uint64_t lat_window__span(const struct lat_window *w)
{
	return w->span_ns;
}

unsigned lat_window__filled(const struct lat_window *w)
{
	return w->filled;
}

/* --- text -------------------------------------------------------------- */

/* A bounded text buffer that, like snprintf, keeps counting what the
 * whole text needs once it is full. */
struct text_out {
	char *buf;
	size_t len;
	size_t need;
};

static void __attribute__((format(printf, 2, 3)))
text_printf(struct text_out *o, const char *fmt, ...)
{
	size_t room = o->need < o->len ? o->len - o->need : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->need : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->need += (size_t)n;
}

static void text_repeat(struct text_out *o, char c, unsigned n)
{
	for (; n > 0; n--, o->need++) {
		if (o->need + 1 < o->len) {
			o->buf[o->need] = c;
			o->buf[o->need + 1] = '\0';
		}
	}
}

/* The rows of lat_hist__format and the widths of their columns. */
struct text_layout {
	uint64_t rows[LAT_ROWS];
	int first;
	int last;
	uint64_t top; /* the largest row */
	int lo_width;
	int hi_width;
	int count_width;
};

static uint32_t row_of_bucket(uint32_t b)
{
	if (b >= LAT_SUBS)
		return b / LAT_SUBS + LAT_SUB_BITS;
	return b ? lat_log2(b) + 1 : 0;
}

/* row_label - the bounds of row @r: [0, 1) then [2^(r-1), 2^r); the top
 * row holds the open-ended last bucket, so its hi is "inf". */
static void row_label(int r, bool hi, char *buf, size_t len)
{
	uint64_t v;

	if (hi && r == LAT_ROWS - 1) {
		snprintf(buf, len, "inf");
		return;
	}
	v = hi ? 1ull << r : r ? 1ull << (r - 1) : 0;
	units_format_duration_short(v, buf, len);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* layout_rows - merge the buckets into rows; false when all are empty. */
static bool layout_rows(struct text_layout *t, const struct lat_hist *h)
{
	char label[UNITS_DURATION_SHORT_LEN], count[24];
	uint32_t b;
	int r;

	memset(t, 0, sizeof(*t));
	t->first = -1;
	for (b = 0; b < LAT_NBUCKETS; b++)
		t->rows[row_of_bucket(b)] += h->counts[b];
	for (r = 0; r < LAT_ROWS; r++) {
		if (!t->rows[r])
			continue;
		if (t->first < 0)
			t->first = r;
		t->last = r;
		if (t->rows[r] > t->top)
			t->top = t->rows[r];
	}
	if (t->first < 0)
		return false;
	for (r = t->first; r <= t->last; r++) {
		row_label(r, false, label, sizeof(label));
		t->lo_width = max_int(t->lo_width, (int)strlen(label));
		row_label(r, true, label, sizeof(label));
		t->hi_width = max_int(t->hi_width, (int)strlen(label));
		t->count_width = max_int(t->count_width, snprintf(count, sizeof(count), "%llu",
								  (unsigned long long)t->rows[r]));
	}
	return true;
}

static void format_row(struct text_out *o, const struct text_layout *t, int r, const char *indent,
		       unsigned bar_width)
{
	char lo[UNITS_DURATION_SHORT_LEN], hi[UNITS_DURATION_SHORT_LEN];
	uint64_t bar;

	bar = (uint64_t)((unsigned __int128)t->rows[r] * bar_width / t->top);
	if (t->rows[r] && !bar && bar_width)
		bar = 1;
	row_label(r, false, lo, sizeof(lo));
	row_label(r, true, hi, sizeof(hi));
	text_printf(o, "%s%*s .. %-*s  |", indent, t->lo_width, lo, t->hi_width, hi);
	text_repeat(o, '#', (unsigned)bar);
	text_repeat(o, ' ', bar_width - (unsigned)bar);
	text_printf(o, "|  %*llu\n", t->count_width, (unsigned long long)t->rows[r]);
}

size_t lat_hist__format(const struct lat_hist *h, const char *indent, unsigned bar_width, char *buf,
			size_t len)
{
	struct text_out o = { .buf = buf, .len = len };
	struct text_layout t;
	int r;

	if (len > 0)
		buf[0] = '\0';
	if (!layout_rows(&t, h))
		return 0;
	for (r = t.first; r <= t.last; r++)
		format_row(&o, &t, r, indent ? indent : "", bar_width);
	return o.need;
}
