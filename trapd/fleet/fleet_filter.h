/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fleet_filter.h - which captures of a store a command wants: a time
 * range, hosts, rules, labels, triggers. Each kind given several times
 * means any of them; different kinds must all hold.
 *
 * The listing asks the filter twice: before it reads anything but keys
 * (fleet_filter__host, fleet_filter__day: the key layout prunes whole
 * hosts and days), and once a capture is described (fleet_filter__match).
 */
#ifndef TRAPD_FLEET_FILTER_H
#define TRAPD_FLEET_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/fleet/fleet_capture.h"

#define FLEET_FILTER_MAX 32 /* values of one kind */

struct fleet_filter {
	int64_t since_ns; /* 0: no start */
	int64_t until_ns; /* 0: no end */
	const char *hosts[FLEET_FILTER_MAX];
	size_t nhosts;
	const char *rules[FLEET_FILTER_MAX];
	size_t nrules;
	const char *labels[FLEET_FILTER_MAX]; /* "key=value" */
	size_t nlabels;
	const char *triggers[FLEET_FILTER_MAX];
	size_t ntriggers;
};

/* fleet_filter__add - the command line's @option ("--since", "--until",
 * "--host", "--rule", "--label", "--trigger") with @value (borrowed).
 * A time is ISO 8601 in UTC or a duration before @now_ns ("2h", "7d").
 * Returns 0, or -EINVAL with @err saying what was expected. */
int fleet_filter__add(struct fleet_filter *f, const char *option, const char *value, int64_t now_ns,
		      char *err, size_t errlen);

/* fleet_filter__host - whether host @host may hold wanted captures. */
bool fleet_filter__host(const struct fleet_filter *f, const char *host);

/* fleet_filter__day - whether day @day (YYYYMMDD) may hold wanted ones. */
bool fleet_filter__day(const struct fleet_filter *f, int day);

/* fleet_filter__needs_details - whether matching needs what a capture's
 * metadata or sidecar say (a rule, a label, a trigger, a time the key's
 * day cannot answer: a start after midnight, or an end). */
bool fleet_filter__needs_details(const struct fleet_filter *f);

/* fleet_filter__match - whether described capture @c is wanted. */
bool fleet_filter__match(const struct fleet_filter *f, const struct fleet_capture *c);

#endif
