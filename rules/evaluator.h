/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* evaluator.h - when a rule fires.
 *
 * A breach (the value above, or below, the threshold) must hold for the
 * rule's `for` before the rule fires. A fired rule fires again only once
 * the value has been back past its clear level for `clear_for` (so a value
 * hovering at the threshold does not flap), its cooldown has passed, and
 * neither its own nor the global per-hour and per-day limits are reached.
 * Dry-run fires count like real ones, so a dry run shows what a real run
 * would have done.
 *
 * Pure logic over times the caller passes (CLOCK_MONOTONIC ns): the tests
 * drive it on a simulated clock.
 */
#ifndef TRAPD_EVALUATOR_H
#define TRAPD_EVALUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/rules_model.h"

#define EVAL_HISTORY_MAX 512 /* the most points of signal history a rule keeps */
#define EVAL_FIRES_MAX 1024  /* fire times remembered for the daily limits */
#define EVAL_WHY_LEN 320

enum rule_state {
	RULE_STATE_NO_DATA,  /* no value yet, or the signal cannot be read */
	RULE_STATE_ARMED,    /* watching, not in breach */
	RULE_STATE_HOLDING,  /* in breach for less than `for` */
	RULE_STATE_FIRED,    /* fired; waits for the value to clear */
	RULE_STATE_COOLDOWN, /* cleared, or ready, but its cooldown is running */
	RULE_STATE_LIMITED,  /* would fire, but a per-hour or per-day limit is reached */
};

/* Fire times of the last day, oldest first: the per-hour and per-day
 * limits count in it. One per rule and one for all rules. */
struct eval_fires {
	int64_t t[EVAL_FIRES_MAX];
	size_t head; /* index of the oldest */
	size_t n;
};

struct eval_point {
	int64_t t_ns;
	int64_t value;
};

/* What the last decision was, in figures that rule_eval__why words. A
 * rule is decided at every poll and its reason read seldom (`trapd
 * status`, a log line), so the reasons of every poll are worded only
 * when asked; a fire, a limit and a read error, rare, are worded as they
 * happen (EVAL_REASON_TEXT). */
enum eval_reason {
	EVAL_REASON_TEXT,	   /* the words are in why[] */
	EVAL_REASON_ARMED,	   /* "50% is not above 80%" */
	EVAL_REASON_ARMED_COOLING, /* the same, "; cooling down for 59s more" */
	EVAL_REASON_HOLDING,	   /* "above 80% for 5s of 10s" */
	EVAL_REASON_COOLING,	   /* "above 80%, but cooling down for 1s more" */
	EVAL_REASON_LATCHED,	   /* "fired; re-arms once the value is back to or below 60%" */
	EVAL_REASON_CLEARING,	   /* "fired; clear for 3s of 5s" */
};

/* The evaluation state of one rule. */
struct rule_eval {
	enum rule_state state;
	bool have_value;
	int64_t value; /* last value read */
	int64_t value_ns;
	int64_t breach_since; /* -1: not in breach */
	int64_t clear_since;  /* while FIRED: since when the value is clear; -1 */
	int64_t last_fired;   /* -1: never */
	uint64_t fired;	      /* fires (dry-run included) since the daemon started */
	uint64_t suppressed;  /* breaches held long enough but stopped by a limit */
	struct eval_fires fires;
	enum eval_reason reason; /* why it is not firing (or fired), for `trapd status` */
	int64_t reason_ns;	 /* the span it names: held, cooldown left, clear */
	char why[EVAL_WHY_LEN];	 /* the words of EVAL_REASON_TEXT */
	/* the recent values, oldest first, in a ring of hist_cap points sized
	 * by what [global] history needs (rule_eval__size_history) */
	struct eval_point *history;
	size_t hist_cap;
	size_t hist_head;
	size_t hist_n;
};

enum eval_verdict {
	EVAL_NONE,
	EVAL_FIRE,    /* capture now */
	EVAL_DRY_RUN, /* it would capture now; dry run: log only */
};

/* rule_eval__init - a rule that has seen nothing yet, keeping no history
 * until rule_eval__size_history gives it room. */
void rule_eval__init(struct rule_eval *e);

/* rule_eval__history_points - the points of history @g asks a rule to
 * keep: one per poll over `history`, and one more for the reading at its
 * start; at most EVAL_HISTORY_MAX (the rules file is checked for that). */
size_t rule_eval__history_points(const struct rules_global *g);

/* rule_eval__size_history - room for @points of history (at most
 * EVAL_HISTORY_MAX), keeping the newest points already held. Returns 0
 * or -ENOMEM (the history is then unchanged). */
int rule_eval__size_history(struct rule_eval *e, size_t points);

/* rule_eval__free - free the history @e owns (@e may be reused after
 * rule_eval__init). A struct rule_eval owns its history: move it, never
 * copy it. */
void rule_eval__free(struct rule_eval *e);

/* evaluator__observe - feed @r's signal at @now: @err is 0 and @value its
 * value, or the negative errno of a failed read (the rule waits in
 * NO_DATA; a breach in progress is forgotten). @global_fires counts every
 * rule's fires against @g's limits. Returns what to do now; the caller
 * logs the verdict with rule_eval__why (which also says why nothing
 * happens). */
enum eval_verdict evaluator__observe(struct rule_eval *e, const struct rule *r,
				     const struct rules_global *g, struct eval_fires *global_fires,
				     int64_t now, int err, int64_t value);

/* evaluator__record_fire - count a fire of @r at @now that did not come
 * from evaluator__observe (`trapd arm RULE`): it starts the rule's
 * cooldown and counts against the limits. */
void evaluator__record_fire(struct rule_eval *e, struct eval_fires *global_fires, int64_t now);

/* rule_eval__why - the reason of @e's last decision over @r, in words:
 * why @r is not firing, or why it fired. Returns @buf. */
const char *rule_eval__why(const struct rule_eval *e, const struct rule *r, char *buf, size_t len);

/* rule_eval__say - make @fmt the reason, for what the evaluator does not
 * see (a signal waiting for its second reading, a read error's text). */
void rule_eval__say(struct rule_eval *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* eval_fires__count - fires within the last @span_ns before @now. */
size_t eval_fires__count(const struct eval_fires *f, int64_t now, int64_t span_ns);

/* rule_eval__history - copy the points of the last @span_ns before @now
 * into @out (at most @max, oldest first). Returns how many. */
size_t rule_eval__history(const struct rule_eval *e, int64_t now, int64_t span_ns,
			  struct eval_point *out, size_t max);

/* rule_state__name - "armed", "holding", "fired", "cooling down",
 * "limited", "no data". */
const char *rule_state__name(enum rule_state s);

#endif
