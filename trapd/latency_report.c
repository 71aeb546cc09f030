/* latency_report.c - a latency window as text and as JSON. */
#include "trapd/latency_report.h"

#include <stdlib.h>

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

void latency_report__text(FILE *f, const struct lat_hist *h, uint64_t span_ns,
			  const char *indent)
{
	char a[LAT_FORMAT_NS_LEN], span[LAT_FORMAT_NS_LEN], *hist;
	size_t i, need;

	fprintf(f, "%s", indent);
	for (i = 0; i < NQUANTILES; i++)
		fprintf(f, "%s %s  ", quantiles[i].label,
			lat_format_ns(lat_hist__percentile(h, quantiles[i].q), a, sizeof(a)));
	fprintf(f, "max %s  (%llu events in %s)\n", lat_format_ns(lat_hist__max(h), a, sizeof(a)),
		(unsigned long long)h->events, lat_format_ns(span_ns, span, sizeof(span)));
	need = lat_hist__format(h, indent, 30, NULL, 0);
	if (!need || !(hist = malloc(need + 1)))
		return;
	lat_hist__format(h, indent, 30, hist, need + 1);
	fputs(hist, f);
	free(hist);
}
