/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cli_args.h - number arguments of command-line options, checked and
 * reported the same way by every command ("bad --top 'x': expected ...").
 */
#ifndef TRAPD_CLI_ARGS_H
#define TRAPD_CLI_ARGS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

/* cli_parse_count - @s as a whole decimal number from @lo to @hi into
 * *@out. On failure logs "bad OPTION 'S': expected EXPECTED" (@expected
 * NULL: "a whole number from LO to HI") and returns -EINVAL. */
int cli_parse_count(const char *s, const char *option, const char *expected, long lo, long hi,
		    long *out);

/* CLI_TOP_MAX - the most rows a --top asks for. */
#define CLI_TOP_MAX 1000000

/* cli_parse_top - a --top N (rows of a table; 0 means all) into *@out.
 * On failure logs what was expected and returns -EINVAL. */
int cli_parse_top(const char *s, size_t *out);

/* cli_parse_number - @s as a finite number from @lo to @hi, optionally
 * followed by '%' ("10", "2.5%"), into *@out. On failure logs "bad OPTION
 * 'S': expected a number from LO to HI" and returns -EINVAL. */
int cli_parse_number(const char *s, const char *option, double lo, double hi, double *out);

/* cli_bad_option - getopt_long (optstring starting with ':') returned
 * @opt, ':' or '?', for the argument @arg: log "option 'ARG' needs a
 * value" or "unknown option 'ARG'" (with the option of @longopts it most
 * likely meant, if one is close: cli_meant_option), each pointing at
 * 'trapd COMMAND --help'. Returns -EINVAL. */
int cli_bad_option(const char *command, const struct option *longopts, int opt, const char *arg);

/* cli_meant_option - "--NAME" into @buf: the option of @longopts (NULL:
 * none) that the unknown long option @arg most likely meant
 * (rules/did_you_mean.h), or NULL. */
const char *cli_meant_option(const struct option *longopts, const char *arg, char *buf, size_t len);

struct profile_diff_options;

/* cli_parse_comparison - the value @s of @option, one of the comparison's
 * "--max-regress", "--min-share", "--alpha" or "--by" (trapd diff and trapd ci),
 * into @o, within the bounds the comparison takes. On failure logs what
 * was expected and returns -EINVAL. */
int cli_parse_comparison(const char *option, const char *s, struct profile_diff_options *o);

enum unwind_mode;

/* cli_parse_unwind - an --unwind MODE (dwarf, fp or auto) into *@out.
 * On failure logs what was expected and returns -EINVAL. */
int cli_parse_unwind(const char *s, enum unwind_mode *out);

/* cli_parse_stack_copy - a --stack-copy SIZE (1KiB to the sampler's
 * most) into *@out. On failure logs what was expected and returns
 * -EINVAL. */
int cli_parse_stack_copy(const char *s, uint32_t *out);

#endif
