// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_model.c - questions about loaded rules that need only the data
 * (rules_model.h): finding a rule, whether a process is pinned by more
 * than its name, what it captures by default, whether [upload] sends
 * credentials in clear text. */
#include "rules/rules_model.h"

#include <string.h>

const struct rule *rules__find(const struct rules *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nrules; i++)
		if (!strcmp(r->rules[i].name, name))
			return &r->rules[i];
	return NULL;
}

bool rule__pinned_by_name_only(const struct rule *r)
{
	bool named = r->scope.kind == RULE_SCOPE_PROCESS || r->sample.kind == RULE_SCOPE_PROCESS;

	/* a latency rule's process is filtered by comm in the kernel: it takes
	 * no pins, so there is nothing to advise (docs/rules.md says so) */
	if (r->signal == RULE_SIGNAL_LATENCY && r->scope.kind == RULE_SCOPE_PROCESS)
		return false;

	return named && !r->pin.user && !r->pin.exe && !r->pin.cgroup;
}

enum rule_record rules__record_default(const struct rule *r)
{
	bool waits;

	if (r->sample.kind == RULE_SCOPE_SYSTEM)
		return RULE_RECORD_CPU;
	switch (r->signal) {
	case RULE_SIGNAL_PSI:
	case RULE_SIGNAL_THROTTLED:
	case RULE_SIGNAL_THROTTLED_TIME:
	case RULE_SIGNAL_THROTTLED_RATE:
	case RULE_SIGNAL_LATENCY:
		waits = true;
		break;
	default:
		waits = !r->above;
	}
	return waits ? RULE_RECORD_BOTH : RULE_RECORD_CPU;
}

bool rules_upload__insecure(const struct rules_upload *u)
{
	const char *target = u->scheme == RULES_UPLOAD_HTTP ? u->url : u->endpoint;
	bool creds = u->auth_header_file || u->auth_header_env || u->sas_token_file ||
		     u->sas_token_env || u->scheme == RULES_UPLOAD_S3;

	if (u->scheme != RULES_UPLOAD_HTTP && u->scheme != RULES_UPLOAD_S3 &&
	    u->scheme != RULES_UPLOAD_AZBLOB)
		return false;
	return creds && target && !strncmp(target, "http://", 7);
}

bool rules__splits_calls(const struct rule *r)
{
	return r->signal == RULE_SIGNAL_LATENCY &&
	       (r->lat_kind == RULE_LAT_FUNC || r->lat_kind == RULE_LAT_SYSCALL);
}

void rules__slow_default(struct rule *r)
{
	bool duration = r->lat_stat != RULE_LAT_COUNT && r->lat_stat != RULE_LAT_RATE;

	r->split_calls = rules__splits_calls(r);
	r->slow_ns = 0;
	r->slow_pct = 0;
	if (!r->split_calls)
		return;
	if (duration && r->above && r->threshold > 0)
		r->slow_ns = (uint64_t)r->threshold;
	else
		r->slow_pct = 99;
}
