/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* guard.h - watching rules and capturing when they fire: the engine the
 * daemon and `trapd ci -c RULES` share.
 *
 * A guard holds the rules in force (a struct watch), the latency probes
 * they share, the sampler (loaded once, disarmed, so a fire arms it in
 * microseconds) and the capture a fire starts or joins (struct trap).
 * Its owner runs the event loop: it adds the guard's fds to its epoll
 * (guard__open puts the PSI triggers and, while a capture runs, the
 * session's fd there), passes them back with guard__dispatch, calls
 * guard__observe_all at every poll tick and guard__tick after each
 * wakeup, and waits no longer than guard__timeout_ms.
 *
 * Finished captures go to the spool directory of the rules in force,
 * written in the background (trap.h): the guard watches each one's fd
 * and tells the owner through its hooks, as it does of each fire.
 */
#ifndef TRAPD_GUARD_H
#define TRAPD_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/evaluator.h"
#include "rules/signal.h"
#include "trapd/capture/history.h"
#include "trapd/capture/overhead.h"
#include "trapd/guard/trap.h"
#include "trapd/guard/watch.h"
#include "trapd/latency/latency_set.h"

struct guard;

/* What the owner hears. Both may be NULL. */
struct guard_hooks {
	/* @wr fired (EVAL_FIRE, after the capture started or joined, or
	 * could not: @err says why, "" when it did) or would have
	 * (EVAL_DRY_RUN). */
	void (*fired)(struct guard *g, const struct watched_rule *wr, enum eval_verdict v,
		      int64_t now, const char *err, void *ctx);
	/* capture @id is written to @path, or lost (@path NULL, @err says
	 * why); captures are written in the background, so this may come
	 * while the next capture runs */
	void (*captured)(struct guard *g, const char *id, const char *path, const char *err,
			 void *ctx);
	void *ctx;
};

struct guard {
	struct watch *watch;	     /* the rules in force */
	struct latency_set *latency; /* the probes latency rules share */
	struct trap trap;	     /* the capture, if one runs; trap.sampler is ours */
	struct signal_env env;
	struct guard_hooks hooks;
	uint64_t sampler_freq;		      /* the kept sampler's maps are sized for this */
	uint64_t sampler_window;	      /* ...and this */
	uint64_t sampler_copy;		      /* ...and stack copies of this many bytes (0: none) */
	struct unwind_tables *sampler_tables; /* ...and these tables (a reference; NULL: none) */
	/* the kernel walk's tables (unwind_tables.h), shared by the capture
	 * sampler and the recorder: a reference, and the rows they hold */
	struct unwind_tables *tables;
	uint64_t tables_rows;
	uint64_t capture_errors;	  /* fires that could not start a capture */
	struct history_opts history_opts; /* the flight recorder's, as opened */
	struct overhead overhead;	  /* what sampling costs here, measured at open */
	int epfd;			  /* the owner's */
	bool session_watched;		  /* the trap's session fd is in epfd */
};

/* guard__watch_fd - add @fd to @epfd for @events (or change them if it
 * is there already). Returns 0 or a negative errno. */
int guard__watch_fd(int epfd, int fd, uint32_t events);

/* guard__init - an empty guard for the owner's @epfd, reading signals as
 * @env says. Returns 0 or -ENOMEM. */
int guard__init(struct guard *g, const struct signal_env *env, int epfd,
		const struct guard_hooks *hooks);

/* guard__new_watch - @rules (taken over, freed on failure) as a watch
 * whose latency rules use @g's probes; NULL with errno set. */
struct watch *guard__new_watch(struct guard *g, struct rules *rules);

/* guard__open - put @w in force (the first one): load the sampler, open
 * the PSI triggers and add them to the epoll. Returns 0 or a negative
 * errno (logged). */
int guard__open(struct guard *g, struct watch *w);

/* guard__replace - a reload: @w in force instead of the old rules, with
 * the state of every unchanged rule adopted (*@kept says how many); the
 * sampler grows if @w asks for more. Returns the old watch: free it with
 * watch__free once done comparing. */
struct watch *guard__replace(struct guard *g, struct watch *w, size_t *kept);

/* guard__arm_timer - set @timerfd to tick every poll_interval of the
 * rules in force. Returns 0 or a negative errno. */
int guard__arm_timer(struct guard *g, int timerfd);

/* guard__observe_all - the poll tick: read and judge every rule. */
void guard__observe_all(struct guard *g, int64_t now);

/* guard__dispatch - handle @fd if it is the guard's (the session's or a
 * PSI trigger). Returns whether it was. */
bool guard__dispatch(struct guard *g, int fd);

/* guard__timeout_ms - how long the owner may wait: -1 (no capture runs)
 * or until the capture's next deadline. */
int guard__timeout_ms(struct guard *g);

/* guard__tick - after each wakeup: finish the capture once its window
 * is over. */
void guard__tick(struct guard *g);

/* guard__fire - start a capture for @f, or join the running one; @wr
 * is the rule behind it, or NULL. Returns 0 or a negative errno with
 * @err filled. */
int guard__fire(struct guard *g, struct trap_fire *f, struct watched_rule *wr, int64_t now,
		char *err, size_t errlen);

/* guard__stop - cut the running capture short, saying @why, and write
 * it, then wait for every capture still being written: nothing is lost. */
void guard__stop(struct guard *g, const char *why);

/* guard__release - free everything (call guard__stop first). */
void guard__release(struct guard *g);

#endif
