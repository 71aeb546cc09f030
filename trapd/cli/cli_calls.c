// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cli_calls.c - `trapd capture --calls --slow` (cli_calls.h). */
#include "trapd/cli/cli_calls.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "rules/units.h"
#include "trapd/latency/latency_spec.h"
#include "trapd/util/log.h"

#define SLOW_MAX_NS (24ull * 3600 * 1000000000)

void cli_parse_calls(const char *s, struct cli_calls *c)
{
	c->text = s;
}

int cli_parse_slow(const char *s, struct call_threshold *out)
{
	char *end;
	double q;

	*out = (struct call_threshold){ 0 };
	if (s[0] == 'p' && isdigit((unsigned char)s[1])) {
		errno = 0;
		q = strtod(s + 1, &end);
		if (!errno && !*end && q > 0 && q < 100) {
			out->percentile = q;
			return 0;
		}
	} else if (!units_parse_duration(s, &out->ns) && out->ns > 0 && out->ns <= SLOW_MAX_NS) {
		return 0;
	}
	log_error("bad --slow '%s': expected a duration from 1ns to 1d (like 20ms) or a "
		  "percentile of the window's calls (like p99 or p99.9)",
		  s);
	return -EINVAL;
}

/* rule_of - the latency rule whose probe would measure @c->text. */
static int rule_of(const struct cli_calls *c, struct rule *r)
{
	const char *t = c->text;

	memset(r, 0, sizeof(*r));
	r->signal = RULE_SIGNAL_LATENCY;
	if (!strncmp(t, "func:", 5) && t[5] == '/' && strrchr(t + 5, ':') > t + 5 &&
	    strrchr(t, ':')[1]) {
		r->lat_kind = RULE_LAT_FUNC;
		r->lat_function = (char *)(t + 5);
		return 0;
	}
	if (!strcmp(t, "syscall") || (!strncmp(t, "syscall:", 8) && t[8])) {
		r->lat_kind = RULE_LAT_SYSCALL;
		r->lat_syscalls = t[7] ? (char *)(t + 8) : NULL;
		return 0;
	}
	log_error("bad --calls '%s': expected func:/ABS/PATH:SYMBOL, syscall:NAME[,NAME...] or "
		  "syscall",
		  t);
	return -EINVAL;
}

int cli_resolve_calls(struct cli_calls *c)
{
	struct latency_spec_anchor anchor;
	char err[PATH_MAX + 256];
	struct rule r;

	if (rule_of(c, &r))
		return -EINVAL;
	if (latency_spec__resolve(&r, NULL, &c->spec, &anchor, err, sizeof(err))) {
		log_error("--calls %s: %s", c->text, err);
		return -EINVAL;
	}
	return sampler_calls__of(&c->spec, &r, &c->calls, c->what, sizeof(c->what));
}
