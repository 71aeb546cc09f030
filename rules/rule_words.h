/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rule_words.h - a rule as words: the names of its signal ("cpu",
 * "psi.memory.full", "runqlat.p99.9"), the unit its values are in, and its
 * values, thresholds and scopes as a person reads them ("83.5%",
 * "above 5ms", "cgroup system.slice/x").
 *
 * One table of names serves both ways, so what the parser reads
 * (rule_signal__parse) and what messages, `trapd check` and the daemon
 * write (rule__signal_name) cannot drift apart. Needs only the model
 * (rules_model.h) and units.h: the evaluator's messages and the parser's
 * errors both use it.
 */
#ifndef TRAPD_RULE_WORDS_H
#define TRAPD_RULE_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "rules/rules_model.h"

/* Every signal name rule_signal__parse takes, for "expected one of"
 * messages. */
#define RULE_SIGNAL_LIST                                                                           \
	"cpu, cpu.quota, cpu.throttled, cpu.throttled_time, cpu.throttled_rate, psi.cpu.some, "    \
	"psi.cpu.full, psi.memory.some, psi.memory.full, psi.io.some, psi.io.full, process.cpu, "  \
	"process.rss, process.threads, process.fds, or a latency KIND.STAT: KIND runqlat, "        \
	"syscall, biolat or func, STAT p50, p90, p99, p99.9, max, count or rate"

/* rule_signal__parse - the signal named @name ("cpu", "psi.io.full",
 * "syscall.p99") into @r's signal and, as the name says, psi_resource and
 * psi_full or lat_kind and lat_stat. Returns 0, or -EINVAL with the rest
 * of "bad value 'V': ..." in @msg ("expected one of ..."; for a latency
 * KIND with a bad STAT, the STATs): @r is then unchanged. */
int rule_signal__parse(const char *name, struct rule *r, char *msg, size_t len);

/* rule__signal_name - "cpu", "psi.memory.full", "process.rss",
 * "runqlat.p99.9": @r's signal as the file spells it (a PSI or latency
 * signal needs the rule for its resource and kind, or kind and
 * statistic), or "unknown". Writes into @buf (32 bytes are enough);
 * returns @buf. */
const char *rule__signal_name(const struct rule *r, char *buf, size_t len);

/* rule_signal__unit - the base unit of @s. For RULE_SIGNAL_LATENCY the
 * unit depends on the statistic (this returns RULE_UNIT_NSEC, the unit
 * of percentiles and max): use rule__unit with the rule. */
enum rule_unit rule_signal__unit(enum rule_signal s);

/* rule__unit - the base unit of @r's values and thresholds: its signal's,
 * and for a latency signal its statistic's (nanoseconds for p50 .. max,
 * a count for count, thousandths per second for rate). */
enum rule_unit rule__unit(const struct rule *r);

/* rule_unit__to_double - @v in display units (percent, bytes, count, per
 * second, nanoseconds), for metadata. */
double rule_unit__to_double(enum rule_unit u, int64_t v);

/* rule__format_value - @v in @r's unit (rule__unit) as a person reads
 * it: "83.5%", "512MiB", "12", "2.5/s", "5ms", "2.08ms" (a duration that
 * takes more than 4 digits is rounded to 3). Returns @buf. */
const char *rule__format_value(const struct rule *r, int64_t v, char *buf, size_t len);

/* rule__format_threshold - "above 80%", "below 5ms": @r's direction
 * and threshold. Returns @buf. */
const char *rule__format_threshold(const struct rule *r, char *buf, size_t len);

/* rule_scope__format - "system", "cgroup system.slice/x", "pid 42",
 * "process nginx", "the run": @s in a sentence. Returns @buf. */
const char *rule_scope__format(const struct rule_scope *s, char *buf, size_t len);

/* rule_scope__value - "system", "cgroup:PATH", "pid:42", "process:NAME",
 * "run": @s as the file writes it in sample = and manual_sample =.
 * Returns @buf. */
const char *rule_scope__value(const struct rule_scope *s, char *buf, size_t len);

/* rule_record__name - "cpu", "offcpu", "cpu+offcpu": @r as the file
 * writes it; rule_record__parse - the reverse (-EINVAL: none of them;
 * "off-cpu" is taken for "offcpu"). */
const char *rule_record__name(enum rule_record r);
int rule_record__parse(const char *s, enum rule_record *out);

/* rule_unwind__name - "auto", "dwarf", "fp": @u as the file writes it in
 * unwind = and manual_unwind =. */
const char *rule_unwind__name(enum rule_unwind u);

/* rule_unwind__parse - the mode named @s (exactly as rule_unwind__name
 * writes it) into *@out. Returns 0 or -EINVAL (*@out unchanged). */
int rule_unwind__parse(const char *s, enum rule_unwind *out);

#endif
