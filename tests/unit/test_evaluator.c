// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_evaluator.c - the firing rules on a simulated clock: for, clear,
 * clear_for, cooldown, per-rule and global limits, dry run, no data,
 * history. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rules/evaluator.h"

#define S(x) ((int64_t)(x)*1000000000ll)
#define PCT(x) ((int64_t)(x)*100) /* centi-percent */

struct fixture {
	struct rule rule;
	struct rules_global global;
	struct rule_eval eval;
	struct eval_fires global_fires;
};

static struct fixture fx;

/* why - the rule's reason in words, as `trapd status` shows it. */
static const char *why(void)
{
	static char buf[EVAL_WHY_LEN];

	return rule_eval__why(&fx.eval, &fx.rule, buf, sizeof(buf));
}

/* A cgroup CPU rule: above 80%, clear at 80%, no for, no cooldown, no
 * limits; each test changes what it is about. */
static int setup(void **state)
{
	memset(&fx, 0, sizeof(fx));
	snprintf(fx.rule.name, sizeof(fx.rule.name), "web");
	fx.rule.signal = RULE_SIGNAL_CPU;
	fx.rule.above = true;
	fx.rule.threshold = PCT(80);
	fx.rule.clear = PCT(80);
	fx.rule.window_ns = S(10);
	fx.rule.freq_hz = 99;
	rule_eval__init(&fx.eval);
	*state = &fx;
	return 0;
}

static enum eval_verdict observe(int64_t t, int64_t value)
{
	return evaluator__observe(&fx.eval, &fx.rule, &fx.global, &fx.global_fires, t, 0, value);
}

/* feed - the same value every second from @from to @to (inclusive);
 * returns the time of the first fire, or -1. */
static int64_t feed(int64_t from, int64_t to, int64_t value)
{
	int64_t t, fired = -1;

	for (t = from; t <= to; t += S(1))
		if (observe(t, value) != EVAL_NONE && fired < 0)
			fired = t;
	return fired;
}

static void test_fires_at_once_without_for(void **state)
{
	assert_int_equal(observe(S(0), PCT(50)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_ARMED);
	assert_string_equal(why(), "50% is not above 80%");
	assert_int_equal(observe(S(1), PCT(81)), EVAL_FIRE);
	assert_int_equal(fx.eval.state, RULE_STATE_FIRED);
	assert_string_equal(why(), "fired: 81% above 80% for 0s");
	assert_int_equal(fx.eval.fired, 1);
	assert_int_equal(fx.eval.last_fired, S(1));
}

static void test_threshold_itself_is_not_a_breach(void **state)
{
	assert_int_equal(feed(S(0), S(30), PCT(80)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_ARMED);
}

static void test_breach_must_hold_for(void **state)
{
	fx.rule.for_ns = S(10);
	assert_int_equal(feed(S(0), S(5), PCT(90)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_HOLDING);
	assert_string_equal(why(), "above 80% for 5s of 10s");
	/* an interruption starts the count again */
	assert_int_equal(observe(S(6), PCT(70)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_ARMED);
	assert_int_equal(feed(S(7), S(16), PCT(90)), -1);
	assert_int_equal(observe(S(17), PCT(90)), EVAL_FIRE);
}

static void test_fired_rule_waits_for_clear_level(void **state)
{
	fx.rule.clear = PCT(60);
	assert_int_equal(observe(S(0), PCT(90)), EVAL_FIRE);
	/* staying in breach never fires twice */
	assert_int_equal(feed(S(1), S(100), PCT(90)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_FIRED);
	assert_string_equal(why(), "fired; re-arms once the value is back to or below 60%");
	/* hovering between clear and threshold keeps it latched */
	assert_int_equal(feed(S(101), S(110), PCT(70)), -1);
	assert_int_equal(feed(S(111), S(120), PCT(85)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_FIRED);
	/* back to the clear level re-arms; the next breach fires */
	assert_int_equal(observe(S(121), PCT(60)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_ARMED);
	assert_int_equal(observe(S(122), PCT(85)), EVAL_FIRE);
	assert_int_equal(fx.eval.fired, 2);
}

static void test_clear_must_hold_clear_for(void **state)
{
	fx.rule.clear_for_ns = S(5);
	assert_int_equal(observe(S(0), PCT(90)), EVAL_FIRE);
	assert_int_equal(feed(S(1), S(4), PCT(10)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_FIRED);
	assert_string_equal(why(), "fired; clear for 3s of 5s");
	/* a blip back up restarts the clear count */
	assert_int_equal(observe(S(5), PCT(90)), EVAL_NONE);
	assert_int_equal(feed(S(6), S(10), PCT(10)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_FIRED);
	assert_int_equal(observe(S(11), PCT(10)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_ARMED);
	assert_int_equal(observe(S(12), PCT(90)), EVAL_FIRE);
}

static void test_cooldown_delays_the_next_fire(void **state)
{
	fx.rule.cooldown_ns = S(60);
	assert_int_equal(observe(S(0), PCT(90)), EVAL_FIRE);
	assert_int_equal(observe(S(1), PCT(10)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_COOLDOWN);
	assert_string_equal(why(), "10% is not above 80%; cooling down for 59s more");
	/* a new breach during the cooldown waits for it */
	assert_int_equal(feed(S(2), S(59), PCT(90)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_COOLDOWN);
	assert_string_equal(why(), "above 80%, but cooling down for 1s more");
	assert_int_equal(observe(S(60), PCT(90)), EVAL_FIRE);
}

static void test_rule_limit_per_hour(void **state)
{
	int64_t t = 0;
	int i;

	fx.rule.max_per_hour = 2;
	for (i = 0; i < 2; i++, t += S(10)) {
		assert_int_equal(observe(t, PCT(90)), EVAL_FIRE);
		assert_int_equal(observe(t + S(1), PCT(10)), EVAL_NONE);
	}
	assert_int_equal(feed(t, t + S(30), PCT(90)), -1);
	assert_int_equal(fx.eval.state, RULE_STATE_LIMITED);
	assert_string_equal(why(),
			    "above 80% for 30s, but the rule's limit of 2 per hour is reached");
	assert_int_equal(fx.eval.suppressed, 1); /* one breach, counted once */
	/* an hour after the first fire, a still-held breach fires */
	assert_int_equal(feed(t + S(31), S(3600) - S(1), PCT(90)), -1);
	assert_int_equal(observe(S(3600), PCT(90)), EVAL_FIRE);
	assert_int_equal(fx.eval.fired, 3);
}

static void test_rule_limit_per_day(void **state)
{
	int64_t t;

	fx.rule.max_per_day = 3;
	for (t = 0; t < S(3 * 3600); t += S(3600)) {
		assert_int_equal(observe(t, PCT(90)), EVAL_FIRE);
		assert_int_equal(observe(t + S(1), PCT(10)), EVAL_NONE);
	}
	assert_int_equal(observe(S(5 * 3600), PCT(90)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_LIMITED);
	assert_non_null(strstr(why(), "the rule's limit of 3 per day"));
	assert_int_equal(observe(S(24 * 3600) + S(1), PCT(90)), EVAL_FIRE);
}

static void test_global_limit_spans_rules(void **state)
{
	struct rule other = fx.rule;
	struct rule_eval other_eval;
	char other_why[EVAL_WHY_LEN];

	rule_eval__init(&other_eval);
	snprintf(other.name, sizeof(other.name), "db");
	fx.global.max_per_hour = 1;
	assert_int_equal(observe(S(0), PCT(90)), EVAL_FIRE);
	assert_int_equal(evaluator__observe(&other_eval, &other, &fx.global, &fx.global_fires, S(5),
					    0, PCT(95)),
			 EVAL_NONE);
	assert_int_equal(other_eval.state, RULE_STATE_LIMITED);
	assert_non_null(strstr(rule_eval__why(&other_eval, &other, other_why, sizeof(other_why)),
			       "the global limit of 1 per hour"));
	assert_int_equal(evaluator__observe(&other_eval, &other, &fx.global, &fx.global_fires,
					    S(3600) + S(1), 0, PCT(95)),
			 EVAL_FIRE);
}

static void test_dry_run_counts_like_a_fire(void **state)
{
	fx.rule.max_per_hour = 1;
	fx.rule.dry_run = true;
	assert_int_equal(observe(S(0), PCT(90)), EVAL_DRY_RUN);
	assert_int_equal(observe(S(1), PCT(10)), EVAL_NONE);
	assert_int_equal(observe(S(2), PCT(90)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_LIMITED);
	/* the global switch does the same */
	setup(state);
	fx.global.dry_run = true;
	assert_int_equal(observe(S(0), PCT(90)), EVAL_DRY_RUN);
}

static void test_below_rule(void **state)
{
	fx.rule.above = false;
	fx.rule.threshold = PCT(5);
	fx.rule.clear = PCT(20);
	fx.rule.for_ns = S(3);
	assert_int_equal(observe(S(0), PCT(50)), EVAL_NONE);
	assert_string_equal(why(), "50% is not below 5%");
	assert_int_equal(feed(S(1), S(3), PCT(1)), -1);
	assert_string_equal(why(), "below 5% for 2s of 3s");
	assert_int_equal(observe(S(4), PCT(1)), EVAL_FIRE);
	/* back to 10%: between threshold and clear, still latched */
	assert_int_equal(observe(S(5), PCT(10)), EVAL_NONE);
	assert_string_equal(why(), "fired; re-arms once the value is back to or above 20%");
	assert_int_equal(observe(S(6), PCT(20)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_ARMED);
}

static void test_read_error_forgets_the_breach(void **state)
{
	fx.rule.for_ns = S(10);
	assert_int_equal(feed(S(0), S(8), PCT(90)), -1);
	assert_int_equal(evaluator__observe(&fx.eval, &fx.rule, &fx.global, &fx.global_fires, S(9),
					    -ENOENT, 0),
			 EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_NO_DATA);
	assert_false(fx.eval.have_value);
	assert_string_equal(why(), "no value: No such file or directory");
	/* the breach starts over once values come back */
	assert_int_equal(feed(S(10), S(19), PCT(90)), -1);
	assert_int_equal(observe(S(20), PCT(90)), EVAL_FIRE);
}

static void test_error_keeps_a_fired_rule_latched(void **state)
{
	assert_int_equal(observe(S(0), PCT(90)), EVAL_FIRE);
	evaluator__observe(&fx.eval, &fx.rule, &fx.global, &fx.global_fires, S(1), -EAGAIN, 0);
	assert_int_equal(fx.eval.state, RULE_STATE_FIRED);
	assert_int_equal(observe(S(2), PCT(90)), EVAL_NONE);
}

static void test_manual_fire_starts_cooldown_and_counts(void **state)
{
	fx.rule.cooldown_ns = S(30);
	fx.global.max_per_hour = 2;
	evaluator__record_fire(&fx.eval, &fx.global_fires, S(0));
	assert_int_equal(observe(S(1), PCT(90)), EVAL_NONE);
	assert_int_equal(fx.eval.state, RULE_STATE_COOLDOWN);
	assert_int_equal(observe(S(30), PCT(90)), EVAL_FIRE);
	assert_int_equal(eval_fires__count(&fx.global_fires, S(30), S(3600)), 2);
}

static void test_history_keeps_the_recent_values(void **state)
{
	struct eval_point pts[EVAL_HISTORY_MAX];
	size_t n;

	assert_int_equal(rule_eval__size_history(&fx.eval, EVAL_HISTORY_MAX), 0);
	feed(S(0), S(999), PCT(10));
	n = rule_eval__history(&fx.eval, S(999), S(60), pts, EVAL_HISTORY_MAX);
	assert_int_equal(n, 61); /* 939..999 inclusive */
	assert_int_equal(pts[0].t_ns, S(939));
	assert_int_equal(pts[n - 1].t_ns, S(999));
	/* the ring keeps at most EVAL_HISTORY_MAX points */
	n = rule_eval__history(&fx.eval, S(999), S(5000), pts, EVAL_HISTORY_MAX);
	assert_int_equal(n, EVAL_HISTORY_MAX);
	assert_int_equal(pts[0].t_ns, S(1000 - EVAL_HISTORY_MAX));
	/* and copies no more than asked */
	assert_int_equal(rule_eval__history(&fx.eval, S(999), S(60), pts, 5), 5);
	rule_eval__free(&fx.eval);
}

/* The history is as long as [global] history needs at one point per
 * poll, not the most any file could ask for: 60s at 1s is 61 points. */
static void test_history_sized_by_what_it_holds(void **state)
{
	struct rules_global g = { .poll_interval_ns = S(1), .history_ns = S(60) };
	struct eval_point pts[EVAL_HISTORY_MAX];
	size_t n;

	assert_int_equal(rule_eval__history_points(&g), 61);
	g.history_ns = S(3600); /* never more than the most */
	assert_int_equal(rule_eval__history_points(&g), EVAL_HISTORY_MAX);
	g.history_ns = S(60);
	/* nothing kept before it is sized: the evaluator still decides */
	feed(S(0), S(9), PCT(10));
	assert_int_equal(rule_eval__history(&fx.eval, S(9), S(60), pts, EVAL_HISTORY_MAX), 0);
	assert_int_equal(rule_eval__size_history(&fx.eval, rule_eval__history_points(&g)), 0);
	assert_int_equal(fx.eval.hist_cap, 61);
	feed(S(10), S(199), PCT(10));
	n = rule_eval__history(&fx.eval, S(199), S(3600), pts, EVAL_HISTORY_MAX);
	assert_int_equal(n, 61);
	assert_int_equal(pts[0].t_ns, S(139));
	/* shrinking (a reload with a shorter history) keeps the newest */
	assert_int_equal(rule_eval__size_history(&fx.eval, 10), 0);
	n = rule_eval__history(&fx.eval, S(199), S(3600), pts, EVAL_HISTORY_MAX);
	assert_int_equal(n, 10);
	assert_int_equal(pts[0].t_ns, S(190));
	assert_int_equal(pts[9].t_ns, S(199));
	/* growing keeps them all, and the ring goes on after them */
	assert_int_equal(rule_eval__size_history(&fx.eval, 20), 0);
	feed(S(200), S(204), PCT(10));
	n = rule_eval__history(&fx.eval, S(204), S(3600), pts, EVAL_HISTORY_MAX);
	assert_int_equal(n, 15);
	assert_int_equal(pts[0].t_ns, S(190));
	assert_int_equal(pts[14].t_ns, S(204));
	rule_eval__free(&fx.eval);
	assert_null(fx.eval.history);
}

static void test_fire_ring_forgets_after_a_day(void **state)
{
	struct eval_fires f = { 0 };
	struct rule_eval e;
	int64_t t;

	rule_eval__init(&e);
	for (t = 0; t < EVAL_FIRES_MAX + 10; t++)
		evaluator__record_fire(&e, &f, S(t));
	assert_int_equal(f.n, EVAL_FIRES_MAX);
	assert_int_equal(eval_fires__count(&f, S(t), S(3600)), EVAL_FIRES_MAX);
	assert_int_equal(eval_fires__count(&f, S(t), S(10)), 9); /* t-9..t-1: t-10 is out */
	evaluator__record_fire(&e, &f, S(t) + S(86400) + S(3600));
	assert_int_equal(f.n, 1);
}

static void test_state_names(void **state)
{
	assert_string_equal(rule_state__name(RULE_STATE_ARMED), "armed");
	assert_string_equal(rule_state__name(RULE_STATE_COOLDOWN), "cooling down");
	assert_string_equal(rule_state__name(RULE_STATE_LIMITED), "limited");
	assert_string_equal(rule_state__name((enum rule_state)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fires_at_once_without_for, setup),
		cmocka_unit_test_setup(test_threshold_itself_is_not_a_breach, setup),
		cmocka_unit_test_setup(test_breach_must_hold_for, setup),
		cmocka_unit_test_setup(test_fired_rule_waits_for_clear_level, setup),
		cmocka_unit_test_setup(test_clear_must_hold_clear_for, setup),
		cmocka_unit_test_setup(test_cooldown_delays_the_next_fire, setup),
		cmocka_unit_test_setup(test_rule_limit_per_hour, setup),
		cmocka_unit_test_setup(test_rule_limit_per_day, setup),
		cmocka_unit_test_setup(test_global_limit_spans_rules, setup),
		cmocka_unit_test_setup(test_dry_run_counts_like_a_fire, setup),
		cmocka_unit_test_setup(test_below_rule, setup),
		cmocka_unit_test_setup(test_read_error_forgets_the_breach, setup),
		cmocka_unit_test_setup(test_error_keeps_a_fired_rule_latched, setup),
		cmocka_unit_test_setup(test_manual_fire_starts_cooldown_and_counts, setup),
		cmocka_unit_test_setup(test_history_keeps_the_recent_values, setup),
		cmocka_unit_test_setup(test_history_sized_by_what_it_holds, setup),
		cmocka_unit_test_setup(test_fire_ring_forgets_after_a_day, setup),
		cmocka_unit_test_setup(test_state_names, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
