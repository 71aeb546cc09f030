// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* metadata.c - write the capture's JSON sidecar. */
#include "trapd/capture/metadata.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "trapd/capture/overhead.h"
#include "trapd/capture/run_record.h"
#include "trapd/capture/sampler.h"
#include "trapd/latency/latency_report.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/json.h"

static void iso8601(int64_t ns, char buf[64], size_t len)
{
	time_t secs = (time_t)(ns / 1000000000);
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ns % 1000000000 / 1000000));
}

static void emit_target(struct json_writer *w, const struct capture_target *t)
{
	static const char *const kinds[] = { "system", "pid", "cgroup", "command" };
	char *const *a;

	json_key(w, "target");
	json_object_begin(w);
	json_kv_string(w, "kind", kinds[t->kind]);
	switch (t->kind) {
	case CAPTURE_TARGET_PID:
		json_kv_i64(w, "pid", t->pid);
		break;
	case CAPTURE_TARGET_CGROUP:
		json_kv_string(w, "cgroup", t->cgroup.relative);
		json_kv_string(w, "path", t->cgroup.path);
		json_kv_u64(w, "cgroup_version", t->cgroup.version);
		break;
	case CAPTURE_TARGET_COMMAND:
		json_kv_i64(w, "pid", t->pid);
		json_key(w, "argv");
		json_array_begin(w);
		for (a = t->argv; a && *a; a++)
			json_string(w, *a);
		json_array_end(w);
		json_kv_i64(w, "exit_status", t->exit_status);
		break;
	default:
		break;
	}
	json_object_end(w);
}

static void emit_history(struct json_writer *w, const struct capture_trigger *t)
{
	size_t i;

	json_key(w, "history");
	json_array_begin(w);
	for (i = 0; t->history_t && t->history_v && i < t->nhistory; i++) {
		json_array_begin_inline(w);
		json_double(w, t->history_t[i]);
		json_double(w, t->history_v[i]);
		json_array_end(w);
	}
	json_array_end(w);
}

static void emit_trigger(struct json_writer *w, const struct capture_trigger *t)
{
	char when[64];

	json_object_begin(w);
	json_kv_string(w, "rule", t->rule);
	json_kv_string(w, "signal", t->signal);
	json_kv_string(w, "scope", t->scope);
	json_kv_string(w, "direction", t->above ? "above" : "below");
	json_key(w, "threshold");
	json_double(w, t->threshold);
	json_key(w, "value");
	json_double(w, t->value);
	json_kv_string(w, "unit", t->unit);
	iso8601(t->at_ns, when, sizeof(when));
	json_kv_string(w, "at", when);
	json_kv_i64(w, "at_ns", t->at_ns);
	json_key(w, "joined");
	json_bool(w, t->joined);
	emit_history(w, t);
	if (t->latency) {
		json_key(w, "latency");
		latency_report__json(w, t->latency, t->latency_span_ns);
	}
	json_object_end(w);
}

/* emit_context - why the capture was taken and how it is labelled: always
 * present (empty for `trapd capture`) so consumers need no defaults. */
static void emit_context(struct json_writer *w, const struct capture_info *info)
{
	size_t i;

	json_key(w, "labels");
	json_object_begin(w);
	for (i = 0; info->labels && i < info->nlabels; i++)
		json_kv_string(w, info->labels[2 * i], info->labels[2 * i + 1]);
	json_object_end(w);
	json_kv_string(w, "trigger", info->trigger ? info->trigger : "manual");
	json_key(w, "triggers");
	json_array_begin(w);
	for (i = 0; info->triggers && i < info->ntriggers; i++)
		emit_trigger(w, &info->triggers[i]);
	json_array_end(w);
}

static void emit_window(struct json_writer *w, const struct capture_info *info)
{
	char when[64];

	json_key(w, "window");
	json_object_begin(w);
	iso8601(info->start_ns, when, sizeof(when));
	json_kv_string(w, "start", when);
	iso8601(info->start_ns + info->duration_ns, when, sizeof(when));
	json_kv_string(w, "end", when);
	json_kv_i64(w, "start_ns", info->start_ns);
	json_kv_i64(w, "duration_ns", info->duration_ns);
	json_kv_i64(w, "arm_ns", info->arm_ns);
	json_kv_i64(w, "late_ns", info->late_ns);
	json_kv_string(w, "end_reason", info->end_reason ? info->end_reason : "duration");
	json_object_end(w);
}

/* emit_sym_files - "mappings": how well each object's frames were named,
 * the most frames first, so an unnamed frame's cause is at hand. */
static void emit_sym_files(struct json_writer *w, const struct capture_info *info)
{
	const struct symbolizer_file_stats *f;
	size_t i, shown = info->nsym_files;

	if (shown > METADATA_MAX_SYM_FILES)
		shown = METADATA_MAX_SYM_FILES;
	json_key(w, "mappings");
	json_array_begin(w);
	for (i = 0; i < shown; i++) {
		f = &info->sym_files[i];
		json_object_begin(w);
		json_kv_string(w, "path", f->path);
		json_kv_string(w, "build_id", f->build_id);
		json_kv_u64(w, "frames", f->frames);
		json_kv_u64(w, "named", f->named);
		if (f->fde_grouped)
			json_kv_u64(w, "fde_grouped", f->fde_grouped);
		json_kv_string(w, "source", f->source);
		if (f->debug_file[0])
			json_kv_string(w, "debug_file", f->debug_file);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_u64(w, "mappings_not_shown", info->nsym_files - shown);
}

/* emit_leaf_callers - "leaf_callers": samples by what the frame-pointer
 * walk and its repair made of their leaf's caller, and "stack_roots":
 * samples with user frames by whether the walk reached the code that
 * starts a process or thread (leafcaller.h); "user_stacks_cut": samples
 * whose user stack was cut at a word that is no user address. */
static void emit_leaf_callers(struct json_writer *w, const struct capture_info *info)
{
	int v;

	json_key(w, "leaf_callers");
	json_object_begin(w);
	for (v = LEAF_INTACT; v < LEAF_NR; v++)
		json_kv_u64(w, leafcaller_verdict_name(v), info->leaf[v]);
	json_object_end(w);
	json_key(w, "stack_roots");
	json_object_begin(w);
	for (v = STACK_ROOTED; v < STACK_ROOT_NR; v++)
		json_kv_u64(w, stack_root_name(v), info->roots[v]);
	json_object_end(w);
	json_kv_u64(w, "user_stacks_cut", info->user_stacks_cut);
}

static uint64_t cut_short(const struct unwind_mapping *m)
{
	uint64_t n = 0;
	int i;

	for (i = UNWIND_END_ENTRY + 1; i < UNWIND_END_NR; i++)
		n += m->ended[i];
	return n;
}

static int mapping_cmp(const void *a, const void *b)
{
	uint64_t x = cut_short(a), y = cut_short(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* emit_unwind_mappings - "by_mapping": where walks ended, the mappings
 * that cut the most walks short first, with only the reasons that
 * occurred. */
static void emit_unwind_mappings(struct json_writer *w, const struct unwind_summary *u)
{
	struct unwind_mapping sorted[UNWIND_SUMMARY_MAPPINGS];
	uint32_t n = u->nmappings <= UNWIND_SUMMARY_MAPPINGS ? u->nmappings : 0, k;
	int i;

	memcpy(sorted, u->mappings, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), mapping_cmp);
	json_key(w, "by_mapping");
	json_array_begin(w);
	for (k = 0; k < n; k++) {
		json_object_begin(w);
		json_kv_string(w, "path", sorted[k].path);
		for (i = 0; i < UNWIND_END_NR; i++)
			if (sorted[k].ended[i])
				json_kv_u64(w, unwinder__end_name(i), sorted[k].ended[i]);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_u64(w, "ended_elsewhere", u->ended_elsewhere);
}

void metadata_kernel_walk(struct json_writer *w, const uint64_t *ends, uint64_t fp_frames,
			  uint64_t copied, const struct unwind_tables_stats *t)
{
	uint64_t walks = copied;
	int i;

	for (i = 0; i < SAMPLER_WALK_NR; i++)
		walks += ends[i];
	json_key(w, "kernel_walk");
	json_object_begin(w);
	json_kv_u64(w, "walks", walks);
	json_kv_u64(w, "copied", copied);
	json_key(w, "ended");
	json_object_begin(w);
	for (i = 0; i < SAMPLER_WALK_NR; i++)
		json_kv_u64(w, sampler__walk_end_name(i), ends[i]);
	json_object_end(w);
	json_kv_u64(w, "frame_pointer_frames", fp_frames);
	json_key(w, "tables");
	json_object_begin(w);
	json_kv_u64(w, "files", t->files);
	json_kv_u64(w, "files_without", t->files_without);
	json_kv_u64(w, "files_failed", t->files_failed);
	json_kv_u64(w, "files_too_big", t->files_too_big);
	json_kv_u64(w, "files_evicted", t->files_evicted);
	json_kv_u64(w, "requests_dropped", t->requests_dropped);
	json_kv_u64(w, "rows", t->rows_used);
	json_kv_u64(w, "rows_max", t->rows_max);
	json_kv_u64(w, "build_ns", t->build_ns);
	json_object_end(w);
	json_object_end(w);
}

/* emit_unwind - "unwind": how user stacks were walked and, in DWARF
 * mode, how complete the walks were: how many reached a thread or
 * process entry, and why the others stopped (unwinder.h). */
static void emit_unwind(struct json_writer *w, const struct unwind_summary *u)
{
	int i;

	json_key(w, "unwind");
	json_object_begin(w);
	json_kv_string(w, "mode", unwind_mode_name(u->mode));
	if (u->why)
		json_kv_string(w, "auto_fp_because", u->why);
	if (u->mode == UNWIND_MODE_DWARF || (u->mode == UNWIND_MODE_KERNEL && u->copy_bytes)) {
		json_kv_u64(w, "stack_copy_bytes", u->copy_bytes);
		json_kv_u64(w, "copies", u->copies);
		json_kv_u64(w, "copied_bytes", u->copy_bytes_sum);
		json_kv_u64(w, "unwound", u->unwound);
		json_kv_u64(w, "frames", u->frames);
		json_kv_u64(w, "frame_pointer_steps", u->fp_steps);
		json_key(w, "ended");
		json_object_begin(w);
		for (i = 0; i < UNWIND_END_NR; i++)
			json_kv_u64(w, unwinder__end_name(i), u->ended[i]);
		json_object_end(w);
		json_kv_u64(w, "not_unwound_late", u->late);
		json_kv_u64(w, "no_maps", u->no_maps);
		json_kv_u64(w, "lost_memory", u->lost_memory);
		json_kv_u64(w, "sites_recopied", u->sites_recopied);
		json_kv_u64(w, "stale", u->stale);
		json_kv_u64(w, "malformed", u->malformed);
		json_kv_u64(w, "unwind_ns", u->unwind_ns);
		json_kv_u64(w, "cfi_files_loaded", u->files_loaded);
		json_kv_u64(w, "cfi_files_cached", u->files_cached);
		emit_unwind_mappings(w, u);
	}
	if (u->mode == UNWIND_MODE_KERNEL)
		metadata_kernel_walk(w, u->walk_ends, u->walk_fp_frames, u->walk_copied,
				     &u->tables);
	json_object_end(w);
}

/* emit_budget - what symbolizing cost against its budget, and what the
 * budget refused: a capture whose frames stayed unnamed says why. */
static void emit_budget(struct json_writer *w, const struct symbudget *b)
{
	static const char *const parts[] = { "limits", "used", "refused" };
	const uint64_t *v;
	int i, k;

	if (!b)
		return;
	json_key(w, "budget");
	json_object_begin(w);
	json_key(w, "hit");
	json_bool(w, symbudget__hit(b));
	for (k = 0; k < 3; k++) {
		v = k == 0 ? b->max : k == 1 ? b->used : b->refused;
		json_key(w, parts[k]);
		json_object_begin(w);
		for (i = 0; i < SYMBUDGET_NR; i++)
			json_kv_u64(w, symbudget__kind_name(i), v[i]);
		json_object_end(w);
	}
	json_object_end(w);
}

/* emit_python - the Python frames: what the sampler walked and what
 * became of them (a section of its own: none of it loses a sample). */
static void emit_python(struct json_writer *w, const struct capture_info *info)
{
	const struct pyframes_stats *py = &info->python;
	const uint64_t *v = info->stats.v;

	json_key(w, "python");
	json_object_begin(w);
	json_kv_u64(w, "interpreters", info->symbols.python_found);
	json_kv_u64(w, "interpreters_not_walkable", info->symbols.python_refused);
	json_kv_u64(w, "samples_walked", v[SAMPLER_STAT_PY_WALKED]);
	json_kv_u64(w, "samples_with_frames", py->samples);
	json_kv_u64(w, "no_thread_state", v[SAMPLER_STAT_PY_NO_THREAD]);
	json_kv_u64(w, "no_python_frame", v[SAMPLER_STAT_PY_NO_FRAME]);
	json_kv_u64(w, "truncated", v[SAMPLER_STAT_PY_TRUNCATED]);
	json_kv_u64(w, "unreadable", v[SAMPLER_STAT_PY_BAD_READ]);
	json_kv_u64(w, "frames", py->frames);
	json_kv_u64(w, "frames_named", py->named);
	json_kv_u64(w, "frames_with_line", py->with_line);
	json_kv_u64(w, "frames_unannounced", py->unannounced);
	json_kv_u64(w, "frames_refused", py->refused);
	json_kv_u64(w, "samples_without_eval_frame", py->unplaced);
	json_kv_u64(w, "code_objects", py->codes);
	json_kv_u64(w, "code_objects_lost", v[SAMPLER_STAT_PY_CODES_LOST]);
	json_kv_u64(w, "code_objects_dropped", py->codes_dropped);
	json_object_end(w);
}

/* emit_off_cpu - the time the target spent off the CPU, by the state it
 * waited in, when the window recorded it (its own section: a capture
 * without it is an on-CPU capture, as before). */
static void emit_off_cpu(struct json_writer *w, const struct capture_info *info)
{
	const uint64_t *v = info->stats.v;
	int i;

	if (!(info->record & SAMPLER_RECORD_OFFCPU))
		return;
	json_key(w, "off_cpu");
	json_object_begin(w);
	json_key(w, "on_cpu_samples");
	json_bool(w, info->record & SAMPLER_RECORD_CPU);
	json_key(w, "ns");
	json_object_begin(w);
	for (i = SAMPLER_OFFCPU_SLEEPING; i < SAMPLER_OFFCPU_NR; i++)
		json_kv_u64(w, sampler__offcpu_state_name((uint32_t)i), info->offcpu_ns[i]);
	json_object_end(w);
	json_kv_u64(w, "switches", v[SAMPLER_STAT_OFFCPU_SWITCHES]);
	json_kv_u64(w, "sites_copied", v[SAMPLER_STAT_OFFCPU_SITES]);
	json_kv_u64(w, "throttled", v[SAMPLER_STAT_OFFCPU_THROTTLED]);
	json_kv_u64(w, "takes_per_cpu_hz", info->overhead ? info->overhead->offcpu_takes_hz : 0);
	json_key(w, "waiting_at_start");
	json_object_begin(w);
	json_kv_u64(w, "threads_read", info->waiting.threads);
	json_kv_u64(w, "waiting", info->waiting.waiting);
	json_kv_u64(w, "counted", info->waiting.added);
	json_kv_u64(w, "skipped", info->waiting.skipped);
	json_kv_u64(w, "kernel_frames_unnamed", info->waiting.unnamed);
	json_object_end(w);
	json_kv_u64(w, "tasks_full", v[SAMPLER_STAT_OFFCPU_TASKS_FULL]);
	json_kv_u64(w, "lost", v[SAMPLER_STAT_OFFCPU_LOST]);
	json_object_end(w);
}

/* emit_by_class - @key: an object of @v by call class (call_split.h). */
static void emit_by_class(struct json_writer *w, const char *key, const uint64_t *v)
{
	int k;

	json_key(w, key);
	json_object_begin(w);
	for (k = 0; k < CALL_CLASS_NR; k++)
		json_kv_u64(w, call_class__name((enum call_class)k), v[k]);
	json_object_end(w);
}

/* emit_calls - the calls the samples were split by, when they were:
 * where slow started, the window's calls and the samples of each class. */
static void emit_calls(struct json_writer *w, const struct capture_info *info)
{
	const struct capture_calls *c = &info->calls;
	const uint64_t *v = info->stats.v;

	if (!c->what)
		return;
	json_key(w, "calls");
	json_object_begin(w);
	json_kv_string(w, "what", c->what);
	if (c->threshold.ns) {
		json_kv_u64(w, "slow_from_ns", c->threshold.ns);
	} else {
		json_key(w, "slow_from_percentile");
		json_double(w, c->threshold.percentile);
	}
	json_key(w, "threshold_ns");
	if (c->stats.threshold_ns != UINT64_MAX)
		json_u64(w, c->stats.threshold_ns);
	else
		json_null(w);
	json_kv_u64(w, "calls", c->stats.calls);
	json_kv_u64(w, "p50_ns", c->stats.p50_ns);
	json_kv_u64(w, "p99_ns", c->stats.p99_ns);
	json_kv_u64(w, "max_ns", c->stats.max_ns);
	json_kv_u64(w, "sampled", c->stats.sampled);
	json_kv_u64(w, "slow", c->stats.slow);
	json_kv_u64(w, "fast", c->stats.fast);
	json_kv_u64(w, "open_at_close", c->stats.open);
	emit_by_class(w, "samples", c->samples);
	if (info->record & SAMPLER_RECORD_OFFCPU)
		emit_by_class(w, "off_cpu_ns", c->offcpu_ns);
	json_kv_u64(w, "untracked", v[SAMPLER_STAT_CALLS_UNTRACKED]);
	json_kv_u64(w, "durations_lost", v[SAMPLER_STAT_CALL_TIMES_FULL]);
	json_object_end(w);
}

static void emit_counts(struct json_writer *w, const struct capture_info *info)
{
	int i;

	json_key(w, "samples");
	json_object_begin(w);
	json_kv_u64(w, "stored", info->samples_stored);
	json_kv_u64(w, "idle", info->stats.v[SAMPLER_STAT_IDLE]);
	json_kv_u64(w, "stack_copies", info->stats.v[SAMPLER_STAT_COPIES]);
	json_kv_u64(w, "distinct_stacks", info->stacks_distinct);
	json_object_end(w);
	/* Every loss counter, zero or not, so consumers need no defaults. */
	json_key(w, "losses");
	json_object_begin(w);
	for (i = SAMPLER_STAT_OVER_CAP; i < SAMPLER_STAT_PY_WALKED; i++)
		if (i != SAMPLER_STAT_COPIES)
			json_kv_u64(w, sampler__stat_name(i), info->stats.v[i]);
	json_object_end(w);
	emit_python(w, info);
	emit_off_cpu(w, info);
	emit_calls(w, info);
	json_key(w, "symbols");
	json_object_begin(w);
	json_kv_u64(w, "user_frames", info->symbols.user_frames);
	json_kv_u64(w, "user_named", info->symbols.user_named);
	json_kv_u64(w, "kernel_frames", info->symbols.kernel_frames);
	json_kv_u64(w, "kernel_named", info->symbols.kernel_named);
	json_kv_u64(w, "pids_without_maps", info->symbols.pids_without_maps);
	json_kv_u64(w, "files_loaded", info->symbols.files_loaded);
	json_kv_u64(w, "files_cached", info->symbols.files_cached);
	json_kv_u64(w, "snapshot_ns", info->symbols.snapshot_ns);
	json_kv_i64(w, "build_ns", info->build_ns);
	json_kv_u64(w, "snapshots_dropped", info->snapshots_dropped);
	emit_budget(w, info->budget);
	emit_sym_files(w, info);
	json_object_end(w);
	emit_leaf_callers(w, info);
	emit_unwind(w, &info->unwind);
}

/* emit_recorded_history - the flight recorder's seconds before the trigger, when
 * the daemon kept them: the profile's "before" phase. */
static void emit_recorded_history(struct json_writer *w, const struct capture_history *h)
{
	if (!h->present)
		return;
	json_key(w, "history");
	json_object_begin(w);
	json_kv_string(w, "phase", "before");
	json_kv_u64(w, "frequency_hz", h->freq_hz);
	json_kv_u64(w, "period_ns", h->freq_hz ? 1000000000ull / h->freq_hz : 0);
	json_kv_i64(w, "start_ns", h->start_ns);
	json_kv_i64(w, "duration_ns", h->duration_ns);
	json_kv_u64(w, "samples", h->samples);
	json_key(w, "missing");
	if (h->missing)
		json_string(w, h->missing);
	else
		json_null(w);
	json_key(w, "lowered");
	if (h->lowered[0])
		json_string(w, h->lowered);
	else
		json_null(w);
	json_object_end(w);
}

/* emit_overhead - the window's budget: what was asked, what it sampled
 * at and why, and what it measured. */
static void emit_overhead(struct json_writer *w, const struct overhead_window *o)
{
	if (!o)
		return;
	json_key(w, "overhead");
	json_object_begin(w);
	json_kv_u64(w, "asked_hz", o->asked_hz);
	json_kv_u64(w, "frequency_hz", o->freq_hz);
	json_key(w, "capped");
	if (o->capped[0])
		json_string(w, o->capped);
	else
		json_null(w);
	json_key(w, "max_pct");
	json_double(w, o->max_pct);
	json_kv_u64(w, "estimated_sample_ns", o->sample_ns);
	json_kv_u64(w, "interrupt_ns", o->o->irq_ns);
	json_key(w, "interrupt_measured");
	json_bool(w, o->o->irq_measured);
	json_kv_u64(w, "interrupts", o->interrupts);
	json_kv_u64(w, "bpf_ns", o->bpf_ns);
	json_key(w, "measured_pct");
	json_double(w, o->share_pct);
	json_key(w, "steady_pct");
	json_double(w, o->steady_pct);
	json_kv_u64(w, "hooks_bpf_ns", o->hooks_ns);
	json_key(w, "hooks_pct");
	json_double(w, o->hooks_pct);
	json_key(w, "ended_early");
	json_bool(w, o->over);
	json_object_end(w);
}

int metadata_emit(FILE *out, const struct capture_info *info, const char *profile_path)
{
	struct json_writer w;
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	json_init(&w, out);
	json_object_begin(&w);
	json_kv_string(&w, "format", METADATA_FORMAT);
	json_kv_string(&w, "capture_id", info->id);
	json_kv_string(&w, "trapd_version", TRAPD_VERSION);
	json_kv_string(&w, "host", u.nodename);
	json_kv_string(&w, "kernel", u.release);
	json_kv_string(&w, "arch", u.machine);
	emit_context(&w, info);
	emit_target(&w, &info->target);
	json_key(&w, "scope_widened");
	if (info->scope_widened)
		json_string(&w, info->scope_widened);
	else
		json_null(&w);
	emit_window(&w, info);
	json_kv_u64(&w, "frequency_hz", info->freq_hz);
	json_kv_u64(&w, "period_ns", info->period_ns);
	json_kv_u64(&w, "cpus", (uint64_t)info->ncpus);
	emit_counts(&w, info);
	emit_recorded_history(&w, &info->history);
	emit_overhead(&w, info->overhead);
	if (info->ci)
		run_record__emit(&w, info->ci);
	json_key(&w, "profile");
	json_object_begin(&w);
	json_kv_string(&w, "file", basename(profile_path));
	json_kv_string(&w, "format", "pprof+zstd");
	json_kv_u64(&w, "bytes", info->profile_bytes);
	json_object_end(&w);
	json_object_end(&w);
	return json_finish(&w);
}

struct emit_args {
	const struct capture_info *info;
	const char *profile_path;
};

static int fill_metadata(FILE *f, void *ctx)
{
	const struct emit_args *a = ctx;

	return metadata_emit(f, a->info, a->profile_path);
}

int metadata_write(const char *path, const struct capture_info *info, const char *profile_path,
		   char *err, size_t errlen)
{
	struct emit_args a = { info, profile_path };

	return atomic_file_write(path, fill_metadata, &a, err, errlen);
}
