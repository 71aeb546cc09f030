// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* daemon_status.c - what `trapd status` shows: the daemon, the capture in
 * progress, the spool, and for each rule its state, value, last fire and
 * why it is not firing. As text for people, as JSON for scripts.
 *
 * Text that others chose (a server's error, a spool file's name, a
 * process's name in a rule's why or a capture's target) goes through
 * safe_text (upload/safe_text.h) in both forms: the text lands on a
 * terminal, and a JSON string decoded by a script would too. */
#include "trapd/daemon/daemon_status.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rules/units.h"
#include "trapd/capture/history.h"
#include "trapd/capture/metadata.h"
#include "trapd/latency/latency_report.h"
#include "trapd/symbolize/symcache.h"
#include "trapd/util/clock.h"
#include "trapd/util/json.h"
#include "upload/safe_text.h"
#include "upload/spool.h"

#define NSEC_PER_SEC 1000000000ll
#define HOUR_NS (3600 * NSEC_PER_SEC)
#define DAY_NS (24 * HOUR_NS)

static void iso8601(int64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* span - a time span for people, to the second: "42s", "5m12s", "3h04m",
 * "2d03h". */
static const char *span(int64_t ns, char *buf, size_t len)
{
	long long s = ns > 0 ? ns / NSEC_PER_SEC : 0;

	if (s < 60)
		snprintf(buf, len, "%llds", s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
	return buf;
}

/* ago - "12s ago", "never". */
static const char *ago(int64_t then, int64_t now, char *buf, size_t len)
{
	char d[32];

	if (then < 0)
		return "never";
	snprintf(buf, len, "%s ago", span(now - then, d, sizeof(d)));
	return buf;
}

/* shown - @s as it may be shown (safe_text), in @buf. */
static const char *shown(const char *s, char *buf, size_t len)
{
	return safe_text_str(s, buf, len);
}

/* --- text ---------------------------------------------------------------- */

/* last_capture - where the last capture written is now: its URL once the
 * uploader has sent it (its spool file is gone), else its spool path. */
static const char *last_capture(struct daemon *d, char *buf, size_t len)
{
	const char *path = d->guard.trap.last_path, *name = strrchr(path, '/');
	struct uploader_status st;

	name = name ? name + 1 : path;
	if (!d->uploader)
		return path;
	uploader__status(d->uploader, &st);
	if (strcmp(st.last_sent, name))
		return path;
	snprintf(buf, len, "%s", st.last_sent_url);
	return buf;
}

static void text_capture(struct daemon *d, FILE *f, int64_t now)
{
	const struct trap *t = &d->guard.trap;
	char url[1024], d1[32], d2[32], when[40], b1[1024], b2[256];
	size_t i;

	if (!trap__running(t)) {
		fprintf(f, "capture:  none running");
		if (t->written) {
			iso8601(t->last_real, when, sizeof(when));
			fprintf(f, "; last %s at %s",
				shown(last_capture(d, url, sizeof(url)), b1, sizeof(b1)), when);
		}
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "capture:  %s running for %s, ends in %s, sampling %s; ",
		shown(t->id, b2, sizeof(b2)), span(now - t->started, d1, sizeof(d1)),
		span(session__deadline(t->session) - now, d2, sizeof(d2)),
		shown(t->sample_desc, b1, sizeof(b1)));
	if (t->manual)
		fprintf(f, "manual (%s)%s", shown(t->manual_reason, b2, sizeof(b2)),
			t->ntriggers ? ", " : "");
	for (i = 0; i < t->ntriggers; i++)
		fprintf(f, "%s%s%s", i ? ", " : "rules ",
			shown(t->triggers[i].rule, b2, sizeof(b2)),
			t->triggers[i].joined ? " (joined)" : "");
	fprintf(f, "\n");
}

/* text_latency - each latency rule's window as a small histogram. */
static void text_latency(struct daemon *d, FILE *f)
{
	char sig[48];
	size_t i;

	for (i = 0; i < d->guard.watch->n; i++) {
		const struct watched_rule *wr = &d->guard.watch->w[i];
		const struct lat_hist *h;
		uint64_t span = 0;

		if (!wr->lat)
			continue;
		fprintf(f, "\n%s (%s):\n", wr->rule->name,
			rule__signal_name(wr->rule, sig, sizeof(sig)));
		h = latency_source__window(wr->lat, &span);
		if (h)
			latency_report__text(f, h, span, "  ");
		else
			fprintf(f, "  nothing measured yet\n");
	}
}

static void text_rules(struct daemon *d, FILE *f, int64_t now)
{
	char sig[48], val[48], thr[64], last[48], name[4 * RULE_NAME_MAX], why[4 * EVAL_WHY_LEN];
	char reason[EVAL_WHY_LEN];
	size_t i;

	if (!d->guard.watch->n) {
		fprintf(f, "\nno rules: only manual captures (trapd arm, SIGUSR1)\n");
		return;
	}
	fprintf(f, "\n%-20s %-18s %-12s %-10s %-14s %-12s %s\n", "RULE", "SIGNAL", "STATE", "VALUE",
		"THRESHOLD", "LAST FIRED", "WHY");
	for (i = 0; i < d->guard.watch->n; i++) {
		const struct watched_rule *wr = &d->guard.watch->w[i];
		const struct rule *r = wr->rule;

		fprintf(f, "%-20s %-18s %-12s %-10s %-14s %-12s %s%s\n",
			shown(r->name, name, sizeof(name)), rule__signal_name(r, sig, sizeof(sig)),
			rule_state__name(wr->eval.state),
			wr->eval.have_value
				? rule__format_value(r, wr->eval.value, val, sizeof(val))
				: "-",
			rule__format_threshold(r, thr, sizeof(thr)),
			ago(wr->eval.last_fired, now, last, sizeof(last)),
			shown(rule_eval__why(&wr->eval, r, reason, sizeof(reason)), why,
			      sizeof(why)),
			r->dry_run || d->guard.watch->rules->global.dry_run ? " [dry run]" : "");
	}
	text_latency(d, f);
}

/* text_symbols - the symbol cache kept between captures. */
static void text_symbols(const struct daemon *d, FILE *f)
{
	struct symcache_stats st;

	symcache__get_stats(d->guard.trap.symcache, &st);
	fprintf(f,
		"symbols:  %zu files cached, %.1f MiB (cap %.1f MiB); %llu loaded, "
		"%llu found cached, %llu evicted\n",
		st.entries, st.bytes / 1048576.0,
		d->guard.watch->rules->global.symbol_cache_bytes / 1048576.0,
		(unsigned long long)st.loads, (unsigned long long)(st.hits + st.build_id_hits),
		(unsigned long long)st.evictions);
}

static void json_symbols(const struct daemon *d, struct json_writer *w)
{
	struct symcache_stats st;

	symcache__get_stats(d->guard.trap.symcache, &st);
	json_key(w, "symbol_cache");
	json_object_begin(w);
	json_kv_u64(w, "files", st.entries);
	json_kv_u64(w, "bytes", st.bytes);
	json_kv_u64(w, "max_bytes", d->guard.watch->rules->global.symbol_cache_bytes);
	json_kv_u64(w, "loads", st.loads);
	json_kv_u64(w, "hits", st.hits);
	json_kv_u64(w, "build_id_hits", st.build_id_hits);
	json_kv_u64(w, "evictions", st.evictions);
	json_object_end(w);
}

/* text_history - the flight recorder: what it keeps and what it costs. */
static void text_history(const struct daemon *d, FILE *f)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	struct history_stats st;

	if (!d->guard.trap.history) {
		fprintf(f, "history:  %s\n",
			g->history_freq_hz ? "not running (see the log)"
					   : "off ([global] history_frequency)");
		return;
	}
	history__stats(d->guard.trap.history, &st);
	fprintf(f,
		"history:  %llu Hz, %llu s kept (window %llu s), %llu samples, %.1f MiB "
		"(cap %.1f MiB); drain %.2f ms (max %.2f ms), thread %.3f s CPU; %llu lost; "
		"%.3f%% of the host (max %g%%)\n",
		(unsigned long long)st.freq_hz, (unsigned long long)st.seconds,
		(unsigned long long)(g->history_window_ns / NSEC_PER_SEC),
		(unsigned long long)st.samples, st.bytes / 1048576.0,
		g->history_max_bytes / 1048576.0, st.drain_ns_last / 1e6, st.drain_ns_max / 1e6,
		st.thread_cpu_ns / 1e9, (unsigned long long)st.lost, st.share_pct,
		(double)g->max_overhead_centi / 100);
	if (st.decision[0])
		fprintf(f, "          %s (lowered %llu times, raised %llu)\n", st.decision,
			(unsigned long long)st.lowered, (unsigned long long)st.raised);
}

/* text_overhead - the budget: what a sample costs here, and what it did. */
static void text_overhead(const struct daemon *d, FILE *f)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	const struct overhead *o = &d->guard.overhead;

	fprintf(f,
		"overhead: a sampling interrupt costs %.1f us (%s); BPF run time %s; captures "
		"within %g%% of the host: %llu capped, %llu ended early\n",
		(double)o->irq_ns / 1000.0, o->irq_measured ? "measured" : "assumed",
		o->stats_refused   ? "not measured (the kernel refused its statistics)"
		: o->stats_fd >= 0 ? "measured (statistics on)"
				   : "measured while sampling (statistics off now)",
		(double)g->max_capture_overhead_centi / 100,
		(unsigned long long)d->guard.trap.capped,
		(unsigned long long)d->guard.trap.ended_early);
}

static void json_overhead(const struct daemon *d, struct json_writer *w)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	const struct overhead *o = &d->guard.overhead;

	json_key(w, "overhead");
	json_object_begin(w);
	json_kv_u64(w, "interrupt_ns", o->irq_ns);
	json_key(w, "interrupt_measured");
	json_bool(w, o->irq_measured);
	json_key(w, "bpf_stats");
	json_bool(w, o->stats_fd >= 0);
	json_key(w, "max_overhead_pct");
	json_double(w, (double)g->max_overhead_centi / 100);
	json_key(w, "max_capture_overhead_pct");
	json_double(w, (double)g->max_capture_overhead_centi / 100);
	json_kv_u64(w, "captures_capped", d->guard.trap.capped);
	json_kv_u64(w, "captures_ended_early", d->guard.trap.ended_early);
	json_object_end(w);
}

/* json_walk - the recorder's kernel walks and tables (history_stats). */
static void json_walk(struct json_writer *w, const struct history_stats *st)
{
	if (!st->walking) {
		json_key(w, "kernel_walk");
		json_null(w);
		return;
	}
	metadata_kernel_walk(w, st->walk_ends, st->walk_fp_frames, 0, &st->tables);
}

static void json_history(const struct daemon *d, struct json_writer *w)
{
	struct history_stats st;

	json_key(w, "history");
	if (!d->guard.trap.history) {
		json_null(w);
		return;
	}
	history__stats(d->guard.trap.history, &st);
	json_object_begin(w);
	json_kv_u64(w, "frequency_hz", st.freq_hz);
	json_kv_u64(w, "seconds", st.seconds);
	json_kv_u64(w, "window_seconds",
		    d->guard.watch->rules->global.history_window_ns / NSEC_PER_SEC);
	json_kv_u64(w, "samples", st.samples);
	json_kv_u64(w, "bytes", st.bytes);
	json_kv_u64(w, "max_bytes", d->guard.watch->rules->global.history_max_bytes);
	json_kv_u64(w, "drains", st.drains);
	json_kv_u64(w, "drain_ns_last", st.drain_ns_last);
	json_kv_u64(w, "drain_ns_max", st.drain_ns_max);
	json_kv_u64(w, "thread_cpu_ns", st.thread_cpu_ns);
	json_kv_u64(w, "evicted_for_bytes", st.evicted_for_bytes);
	json_kv_u64(w, "lost", st.lost);
	json_walk(w, &st);
	json_key(w, "share_pct");
	json_double(w, st.share_pct);
	json_kv_u64(w, "bpf_ns_per_second", st.bpf_ns_per_second);
	json_kv_u64(w, "interrupts_per_second", st.interrupts_per_second);
	json_kv_u64(w, "lowered", st.lowered);
	json_kv_u64(w, "raised", st.raised);
	json_kv_string(w, "decision", st.decision);
	json_object_end(w);
}

static void text_upload(struct daemon *d, FILE *f, int64_t real)
{
	struct uploader_status st;
	char when[40], in[32], b[4 * sizeof(st.last_error)];

	if (!d->uploader) {
		fprintf(f, "upload:   %s\n",
			d->guard.watch->rules->upload.url
				? "not running: [upload] could not start (see the log)"
				: "none configured: captures stay in the spool");
		return;
	}
	uploader__status(d->uploader, &st);
	fprintf(f, "upload:   %s: %llu pending, %llu failed, %llu sent (%llu bytes)",
		shown(d->guard.watch->rules->upload.url, b, sizeof(b)),
		(unsigned long long)st.pending, (unsigned long long)st.failed,
		(unsigned long long)st.sent, (unsigned long long)st.bytes_sent);
	if (st.in_flight[0])
		fprintf(f, "; sending %s", shown(st.in_flight, b, sizeof(b)));
	if (st.next_try_real_ns)
		fprintf(f, "; %u failures in a row, next try in %s", st.failures_in_a_row,
			span(st.next_try_real_ns - real, in, sizeof(in)));
	fprintf(f, "\n");
	if (st.last_error[0]) {
		iso8601(st.last_error_real_ns, when, sizeof(when));
		fprintf(f, "          last error at %s: %s\n", when,
			shown(st.last_error, b, sizeof(b)));
	}
}

static void status_text(struct daemon *d, FILE *f)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	int64_t now = clock_mono_ns(), real = (int64_t)time(NULL) * NSEC_PER_SEC;
	char up[32], when[40], cap[32], path[4 * PATH_MAX];
	struct spool_usage u;

	iso8601(d->loaded_real, when, sizeof(when));
	fprintf(f, "trapd daemon %s, pid %d, up %s\n", TRAPD_VERSION, (int)getpid(),
		span(real - d->started_real, up, sizeof(up)));
	fprintf(f, "rules:    %s, %zu rules, loaded %s (%llu reloads, %llu rejected)%s\n",
		shown(d->rules_path, path, sizeof(path)), d->guard.watch->n, when,
		(unsigned long long)d->reloads, (unsigned long long)d->reloads_rejected,
		g->dry_run ? "; DRY RUN" : "");
	text_capture(d, f, now);
	fprintf(f,
		"captures: %llu written, %zu being written, %llu failed, %llu could not start, "
		"%llu manual; %zu fired in the last hour (limit %u), %zu today (limit %u)\n",
		(unsigned long long)d->guard.trap.written, d->guard.trap.npending,
		(unsigned long long)d->guard.trap.failed,
		(unsigned long long)d->guard.capture_errors, (unsigned long long)d->manual_arms,
		eval_fires__count(&d->guard.watch->global_fires, now, HOUR_NS), g->max_per_hour,
		eval_fires__count(&d->guard.watch->global_fires, now, DAY_NS), g->max_per_day);
	snprintf(cap, sizeof(cap), "%llu MiB", (unsigned long long)(g->spool_max_bytes >> 20));
	if (!spool_usage(g->spool_dir, &u))
		fprintf(f,
			"spool:    %s: %llu captures, %llu bytes (cap %s, %u files), %llu dropped\n",
			shown(g->spool_dir, path, sizeof(path)), (unsigned long long)u.captures,
			(unsigned long long)u.bytes, cap, g->spool_max_files,
			(unsigned long long)d->guard.trap.dropped);
	else
		fprintf(f, "spool:    %s: not created yet\n",
			shown(g->spool_dir, path, sizeof(path)));
	text_symbols(d, f);
	text_history(d, f);
	text_overhead(d, f);
	text_upload(d, f, real);
	text_rules(d, f, now);
}

/* --- JSON ---------------------------------------------------------------- */

static void json_capture(struct daemon *d, struct json_writer *w, int64_t now)
{
	const struct trap *t = &d->guard.trap;
	size_t i;

	json_key(w, "capture");
	if (!trap__running(t)) {
		json_null(w);
		return;
	}
	json_object_begin(w);
	json_kv_string(w, "id", t->id);
	json_kv_string(w, "sampling", t->sample_desc);
	json_kv_i64(w, "running_ns", now - t->started);
	json_kv_i64(w, "ends_in_ns", session__deadline(t->session) - now);
	json_key(w, "manual");
	json_bool(w, t->manual);
	json_key(w, "rules");
	json_array_begin(w);
	for (i = 0; i < t->ntriggers; i++)
		json_string(w, t->triggers[i].rule);
	json_array_end(w);
	json_object_end(w);
}

/* json_latency - "latency": the rule's window, null until measured. */
static void json_latency(struct json_writer *w, const struct latency_source *src)
{
	uint64_t span = 0;
	const struct lat_hist *h = latency_source__window(src, &span);

	json_key(w, "latency");
	if (h)
		latency_report__json(w, h, span);
	else
		json_null(w);
}

static void json_rule(struct daemon *d, struct json_writer *w, const struct watched_rule *wr,
		      int64_t now)
{
	const struct rule *r = wr->rule;
	enum rule_unit u = rule__unit(r);
	char sig[48], reason[EVAL_WHY_LEN], why[4 * EVAL_WHY_LEN];

	json_object_begin(w);
	json_kv_string(w, "name", r->name);
	json_kv_string(w, "signal", rule__signal_name(r, sig, sizeof(sig)));
	json_kv_string(w, "state", rule_state__name(wr->eval.state));
	json_key(w, "value");
	if (wr->eval.have_value)
		json_double(w, rule_unit__to_double(u, wr->eval.value));
	else
		json_null(w);
	json_kv_string(w, "direction", r->above ? "above" : "below");
	json_key(w, "threshold");
	json_double(w, rule_unit__to_double(u, r->threshold));
	json_key(w, "last_fired_ago_ns");
	if (wr->eval.last_fired >= 0)
		json_i64(w, now - wr->eval.last_fired);
	else
		json_null(w);
	json_kv_u64(w, "fired", wr->eval.fired);
	json_kv_u64(w, "suppressed", wr->eval.suppressed);
	json_kv_string(w, "why",
		       shown(rule_eval__why(&wr->eval, r, reason, sizeof(reason)), why,
			     sizeof(why)));
	json_key(w, "psi_trigger");
	json_bool(w, wr->trigger_fd >= 0);
	json_key(w, "dry_run");
	json_bool(w, r->dry_run || d->guard.watch->rules->global.dry_run);
	if (wr->lat)
		json_latency(w, wr->lat);
	json_object_end(w);
}

static void json_upload(struct daemon *d, struct json_writer *w)
{
	struct uploader_status st;
	char b[4 * sizeof(st.last_error)];

	json_key(w, "upload");
	if (!d->uploader) {
		json_null(w);
		return;
	}
	uploader__status(d->uploader, &st);
	json_object_begin(w);
	json_kv_string(w, "url", d->guard.watch->rules->upload.url);
	json_kv_u64(w, "pending", st.pending);
	json_kv_u64(w, "failed", st.failed);
	json_kv_u64(w, "sent", st.sent);
	json_kv_u64(w, "bytes_sent", st.bytes_sent);
	json_kv_u64(w, "attempts", st.attempts);
	json_kv_u64(w, "transient_failures", st.transient_failures);
	json_kv_u64(w, "failures_in_a_row", st.failures_in_a_row);
	json_key(w, "last_sent");
	if (st.last_sent[0]) {
		json_object_begin(w);
		json_kv_string(w, "name", st.last_sent);
		json_kv_string(w, "url", st.last_sent_url);
		json_object_end(w);
	} else {
		json_null(w);
	}
	json_key(w, "in_flight");
	if (st.in_flight[0])
		json_string(w, shown(st.in_flight, b, sizeof(b)));
	else
		json_null(w);
	json_key(w, "next_try_real_ns");
	if (st.next_try_real_ns)
		json_i64(w, st.next_try_real_ns);
	else
		json_null(w);
	json_key(w, "last_error");
	if (st.last_error[0])
		json_string(w, shown(st.last_error, b, sizeof(b)));
	else
		json_null(w);
	json_object_end(w);
}

static void status_json(struct daemon *d, FILE *f)
{
	const struct rules_global *g = &d->guard.watch->rules->global;
	int64_t now = clock_mono_ns();
	struct json_writer w;
	struct spool_usage u;
	size_t i;

	json_init(&w, f);
	json_object_begin(&w);
	json_kv_string(&w, "version", TRAPD_VERSION);
	json_kv_i64(&w, "pid", getpid());
	/* from the kernel: false means no core file, no ptrace by others */
	json_key(&w, "dumpable");
	json_bool(&w, prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) > 0);
	json_kv_string(&w, "rules_file", d->rules_path);
	json_kv_u64(&w, "reloads", d->reloads);
	json_kv_u64(&w, "reloads_rejected", d->reloads_rejected);
	json_capture(d, &w, now);
	json_kv_u64(&w, "captures_written", d->guard.trap.written);
	json_kv_u64(&w, "captures_being_written", d->guard.trap.npending);
	json_kv_u64(&w, "captures_failed", d->guard.trap.failed);
	json_kv_u64(&w, "capture_errors", d->guard.capture_errors);
	json_kv_u64(&w, "manual_arms", d->manual_arms);
	/* `trapd top`'s requests, and those the loop built an answer for */
	json_key(&w, "top_answers");
	json_object_begin(&w);
	json_kv_u64(&w, "asked", d->top.asked);
	json_kv_u64(&w, "built", d->top.built);
	json_object_end(&w);
	/* rules by process name: ticks that listed /proc, and those the
	 * kernel's process events let skip it (this watch, since a reload) */
	json_key(&w, "process_scans");
	json_object_begin(&w);
	json_kv_u64(&w, "listed", d->guard.watch->scans);
	json_kv_u64(&w, "skipped", d->guard.watch->scans_skipped);
	json_key(&w, "by_events");
	json_bool(&w, d->guard.watch->events != NULL);
	json_object_end(&w);
	json_kv_u64(&w, "fired_last_hour",
		    eval_fires__count(&d->guard.watch->global_fires, now, HOUR_NS));
	spool_usage(g->spool_dir, &u);
	json_key(&w, "spool");
	json_object_begin(&w);
	json_kv_string(&w, "dir", g->spool_dir);
	json_kv_u64(&w, "captures", u.captures);
	json_kv_u64(&w, "bytes", u.bytes);
	json_kv_u64(&w, "dropped", d->guard.trap.dropped);
	json_object_end(&w);
	json_symbols(d, &w);
	json_history(d, &w);
	json_overhead(d, &w);
	json_upload(d, &w);
	json_key(&w, "rules");
	json_array_begin(&w);
	for (i = 0; i < d->guard.watch->n; i++)
		json_rule(d, &w, &d->guard.watch->w[i], now);
	json_array_end(&w);
	json_object_end(&w);
	json_finish(&w);
}

int daemon__status(struct daemon *d, bool json, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);

	if (!f)
		return -ENOMEM;
	if (json)
		status_json(d, f);
	else
		status_text(d, f);
	return fclose(f) ? -ENOMEM : 0;
}
