/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cli_calls.h - `trapd capture --calls SPEC --slow LINE`: the calls a
 * manual capture splits its samples by (call_split.h), as a func or
 * syscall rule's capture does, resolved on this host the way the rule's
 * probe is (latency_spec.h).
 *
 *	--calls func:/ABS/PATH:SYMBOL   a user function's calls
 *	--calls syscall:NAME[,NAME...]  those system calls
 *	--calls syscall                 every system call
 *	--slow 20ms | p95               where slow starts (default p99)
 */
#ifndef TRAPD_CLI_CALLS_H
#define TRAPD_CLI_CALLS_H

#include <limits.h>

#include "trapd/capture/call_split.h"
#include "trapd/capture/sampler.h"
#include "trapd/latency/latency_probe.h"

struct cli_calls {
	const char *text;		/* --calls as given; NULL: not asked */
	struct call_threshold slow;	/* --slow; default p99 */
	struct latency_probe_spec spec; /* resolved (owns the binary's path) */
	struct sampler_calls calls;	/* what the sampler numbers */
	char what[PATH_MAX + 320];	/* "func /path:symbol", "syscall read" */
};

/* cli_parse_calls - --calls SPEC into @c (checked when resolved). */
void cli_parse_calls(const char *s, struct cli_calls *c);

/* cli_parse_slow - --slow LINE: a duration (1ns to 1d) or pNN (0 < NN <
 * 100). Returns 0 or -EINVAL (reported). */
int cli_parse_slow(const char *s, struct call_threshold *out);

/* cli_resolve_calls - resolve c->text on this host into c->calls and
 * c->what. Returns 0, or -EINVAL (reported: a malformed SPEC, no such
 * binary, function or system call). */
int cli_resolve_calls(struct cli_calls *c);

#endif
