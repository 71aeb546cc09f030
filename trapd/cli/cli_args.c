// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cli_args.c - checked number arguments for command-line options. */
#include "trapd/cli/cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/did_you_mean.h"
#include "rules/units.h"
#include "trapd/capture/sampler.h"
#include "trapd/capture/unwind_summary.h"
#include "trapd/profile/profile_diff.h"
#include "trapd/util/log.h"

int cli_parse_count(const char *s, const char *option, const char *expected, long lo, long hi,
		    long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		if (expected)
			log_error("bad %s '%s': expected %s", option, s, expected);
		else
			log_error("bad %s '%s': expected a whole number from %ld to %ld", option, s,
				  lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cli_parse_top(const char *s, size_t *out)
{
	long v;

	if (cli_parse_count(s, "--top", "a number of rows from 0 (all) to 1000000", 0, CLI_TOP_MAX,
			    &v))
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

int cli_parse_number(const char *s, const char *option, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%' && !end[1])
		end++;
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
		log_error("bad %s '%s': expected a number from %g to %g", option, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cli_parse_comparison(const char *option, const char *s, struct profile_diff_options *o)
{
	if (!strcmp(option, "--max-regress"))
		return cli_parse_number(s, option, 0.001, 1e6, &o->max_regress_pct);
	if (!strcmp(option, "--min-share"))
		return cli_parse_number(s, option, 0, 100, &o->min_share_pct);
	if (!strcmp(option, "--alpha"))
		return cli_parse_number(s, option, 1e-12, 0.5, &o->alpha);
	if (!strcmp(option, "--judge-cpu-time")) {
		o->judge_cpu_time = true;
		return 0;
	}
	if (!strcmp(option, "--by")) {
		if (strcmp(s, "self") && strcmp(s, "total")) {
			log_error("bad --by '%s': expected self or total", s);
			return -EINVAL;
		}
		o->by_total = !strcmp(s, "total");
		return 0;
	}
	log_error("%s: not an option of the comparison", option);
	return -EINVAL;
}

const char *cli_meant_option(const struct option *longopts, const char *arg, char *buf, size_t len)
{
	char typed[DID_YOU_MEAN_MAX_LEN + 1];
	struct did_you_mean d;
	const char *meant;
	size_t n;

	if (!longopts || strncmp(arg, "--", 2))
		return NULL;
	n = strcspn(arg + 2, "="); /* --durration=3s */
	if (n >= sizeof(typed))
		return NULL;
	memcpy(typed, arg + 2, n);
	typed[n] = '\0';
	did_you_mean__init(&d, typed);
	for (; longopts->name; longopts++)
		did_you_mean__offer(&d, longopts->name);
	meant = did_you_mean__best(&d);
	if (!meant)
		return NULL;
	snprintf(buf, len, "--%s", meant);
	return buf;
}

int cli_bad_option(const char *command, const struct option *longopts, int opt, const char *arg)
{
	const char *meant;
	char buf[DID_YOU_MEAN_MAX_LEN + 3];

	if (opt == ':') {
		log_error("option '%s' needs a value; see 'trapd %s --help'", arg, command);
		return -EINVAL;
	}
	meant = cli_meant_option(longopts, arg, buf, sizeof(buf));
	if (meant)
		log_error("unknown option '%s'; did you mean '%s'? See 'trapd %s --help'", arg,
			  meant, command);
	else
		log_error("unknown option '%s'; see 'trapd %s --help'", arg, command);
	return -EINVAL;
}

int cli_parse_unwind(const char *s, enum unwind_mode *out)
{
	if (!unwind_mode_parse(s, out))
		return 0;
	log_error("bad --unwind '%s': expected dwarf, fp or auto", s);
	return -EINVAL;
}

int cli_parse_stack_copy(const char *s, uint32_t *out)
{
	uint64_t size = 0;

	if (units_parse_size(s, &size) || size < 1024 || size > SAMPLER_COPY_MAX) {
		log_error("bad --stack-copy '%s': expected a size from 1KiB to %uKiB", s,
			  SAMPLER_COPY_MAX / 1024);
		return -EINVAL;
	}
	*out = (uint32_t)size;
	return 0;
}
