// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* latency_report.c - a latency window as text and as JSON. */
#include "trapd/latency/latency_report.h"

#include <errno.h>
#include <stdlib.h>

#include "rules/units.h"

static const struct {
	const char *key;
	const char *label;
	double q;
} quantiles[] = {
	{ "p50_ns", "p50", 0.5 },
	{ "p90_ns", "p90", 0.9 },
	{ "p99_ns", "p99", 0.99 },
	{ "p99_9_ns", "p99.9", 0.999 },
};

#define NQUANTILES (sizeof(quantiles) / sizeof(quantiles[0]))

void latency_report__json(struct json_writer *w, const struct lat_hist *h, uint64_t span_ns)
{
	uint32_t b;
	size_t i;

	json_object_begin(w);
	json_kv_u64(w, "events", h->events);
	json_kv_u64(w, "window_ns", span_ns);
	json_key(w, "rate_per_sec");
	json_double(w, span_ns ? (double)h->events * 1e9 / (double)span_ns : 0.0);
	for (i = 0; i < NQUANTILES; i++)
		json_kv_u64(w, quantiles[i].key, lat_hist__percentile(h, quantiles[i].q));
	json_kv_u64(w, "max_ns", lat_hist__max(h));
	json_kv_u64(w, "mean_ns", h->events ? h->sum_ns / h->events : 0);
	json_key(w, "buckets");
	json_array_begin(w);
	for (b = 0; b < LAT_NBUCKETS; b++) {
		if (!h->counts[b])
			continue;
		json_array_begin_inline(w);
		json_u64(w, lat_bucket__lo(b));
		json_u64(w, lat_bucket__hi(b));
		json_u64(w, h->counts[b]);
		json_array_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

void latency_report__text(FILE *f, const struct lat_hist *h, uint64_t span_ns, const char *indent)
{
	char a[UNITS_DURATION_SHORT_LEN], span[UNITS_DURATION_SHORT_LEN], *hist;
	size_t i, need;

	fprintf(f, "%s", indent);
	for (i = 0; i < NQUANTILES; i++)
		fprintf(f, "%s %s  ", quantiles[i].label,
			units_format_duration_short(lat_hist__percentile(h, quantiles[i].q), a,
						    sizeof(a)));
	fprintf(f, "max %s  (%llu events in %s)\n",
		units_format_duration_short(lat_hist__max(h), a, sizeof(a)),
		(unsigned long long)h->events,
		units_format_duration_short(span_ns, span, sizeof(span)));
	need = lat_hist__format(h, indent, 30, NULL, 0);
	if (!need || !(hist = malloc(need + 1)))
		return;
	lat_hist__format(h, indent, 30, hist, need + 1);
	fputs(hist, f);
	free(hist);
}

/* bucket_from_json - one [LO, HI, COUNT] into @out. */
static int bucket_from_json(const struct json_value *v, struct lat_hist *out, size_t i, char *err,
			    size_t errlen)
{
	uint64_t lo, hi, count;
	uint32_t b;

	if (json_type(v) != JSON_ARRAY || json_len(v) != 3 ||
	    json_number_u64(json_index(v, 0), &lo) || json_number_u64(json_index(v, 1), &hi) ||
	    json_number_u64(json_index(v, 2), &count)) {
		snprintf(err, errlen, "buckets[%zu]: expected [LO_NS, HI_NS, COUNT]", i);
		return -EINVAL;
	}
	b = lat_bucket_of(lo);
	if (lat_bucket__lo(b) != lo || lat_bucket__hi(b) != hi) {
		snprintf(err, errlen, "buckets[%zu]: [%llu, %llu) is not a bucket", i,
			 (unsigned long long)lo, (unsigned long long)hi);
		return -EINVAL;
	}
	if (out->counts[b] || !count || out->events + count < out->events) {
		snprintf(err, errlen, "buckets[%zu]: %s", i,
			 out->counts[b] ? "named twice"
			 : !count	? "count 0"
					: "counts overflow");
		return -EINVAL;
	}
	out->counts[b] = count;
	out->events += count;
	return 0;
}

int latency_report__from_json(const struct json_value *obj, struct lat_hist *out, uint64_t *span_ns,
			      char *err, size_t errlen)
{
	const struct json_value *buckets = json_get(obj, "buckets");
	size_t i;
	int e;

	lat_hist__reset(out);
	*span_ns = 0;
	if (!buckets || json_type(buckets) != JSON_ARRAY) {
		snprintf(err, errlen, "no \"buckets\" array");
		return -EINVAL;
	}
	for (i = 0; i < json_len(buckets); i++) {
		e = bucket_from_json(json_index(buckets, i), out, i, err, errlen);
		if (e)
			return e;
	}
	/* Optional figures: absent or malformed, the buckets still stand. */
	if (json_number_u64(json_get(obj, "window_ns"), span_ns))
		*span_ns = 0;
	if (json_number_u64(json_get(obj, "max_ns"), &out->max_ns))
		out->max_ns = 0;
	return 0;
}
