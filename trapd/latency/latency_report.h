/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* latency_report.h - a latency window as people and scripts read it: the
 * summary line and text histogram of `trapd status`, and the JSON object
 * that status --json and a capture's metadata carry (so a report can show
 * the distribution that fired a rule next to its flame graph).
 *
 * JSON form:
 *   { "events": N, "window_ns": NS, "rate_per_sec": R,
 *     "p50_ns": .., "p90_ns": .., "p99_ns": .., "p99_9_ns": .., "max_ns": ..,
 *     "mean_ns": ..,
 *     "buckets": [[LO_NS, HI_NS, COUNT], ...] }    non-empty buckets only,
 *                                                  HI exclusive
 */
#ifndef TRAPD_LATENCY_REPORT_H
#define TRAPD_LATENCY_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "trapd/latency/latency_hist.h"
#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

/* latency_report__json - @h over @span_ns as the object above. */
void latency_report__json(struct json_writer *w, const struct lat_hist *h, uint64_t span_ns);

/* latency_report__text - "p50 1.2ms  p90 ...  max ...  (N events in 10s)"
 * and the text histogram below it, every line starting with @indent. */
void latency_report__text(FILE *f, const struct lat_hist *h, uint64_t span_ns, const char *indent);

/* latency_report__from_json - the histogram of an object in the form
 * above, read back from a sidecar (untrusted: a bucket must be one of
 * lat_bucket__lo/hi's, named once, with a count; events is their sum).
 * Returns 0, or -EINVAL with @err saying what is wrong. */
int latency_report__from_json(const struct json_value *obj, struct lat_hist *out, uint64_t *span_ns,
			      char *err, size_t errlen);

#endif
