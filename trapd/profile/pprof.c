// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pprof.c - encode struct profile as pprof's profile.proto (see pprof.h);
 * the decoder is in pprof_decode.c.
 *
 * A single walk over the profile: sample types, samples (stack, [count,
 * count * period] (the sample's own period when it has one) and, when a
 * sample was off the CPU, its nanoseconds third; labels pid, tid, comm,
 * cgroup and, when set, run, state, call, phase and period (a number of
 * nanoseconds)),
 * mappings, locations, functions, the string table (the profile's own,
 * then any well-known string it lacks), time, duration, period type and
 * period, comments.
 */
#include "trapd/profile/pprof.h"

#include <stdbool.h>
#include <string.h>

#include "trapd/profile/pb.h"
#include "trapd/profile/pprof_proto.h"

const char *const pprof_well_known[WK_N] = {
	"samples", "count", "cpu",     "nanoseconds", "pid",  "tid",   "comm",
	"cgroup",  "run",   "off_cpu", "state",	      "call", "phase", "period",
};

struct encoder {
	const struct profile *p;
	struct pb_buf b;
	uint32_t wk[WK_N];	 /* index of each well-known string */
	const char *extra[WK_N]; /* well-known strings appended to the table */
	uint32_t nextra;
	bool offcpu; /* a sample was off the CPU: a third sample type */
	bool oncpu;  /* a sample was on the CPU */
	bool calls;  /* a sample has a call label */
	bool phases; /* a sample has a phase label or a period of its own */
};

/* has_runs - whether a sample of @p has a run label. */
static bool has_runs(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].run)
			return true;
	return false;
}

/* find_kinds - whether samples were on and off the CPU. */
static void find_kinds(struct encoder *e)
{
	size_t i;

	for (i = 0; i < e->p->nsamples; i++) {
		e->offcpu |= e->p->samples[i].offcpu_ns != 0;
		e->oncpu |= e->p->samples[i].offcpu_ns == 0;
		e->calls |= e->p->samples[i].call != 0;
		e->phases |= e->p->samples[i].phase != 0 || e->p->samples[i].period_ns != 0;
	}
}

/* needed - whether well-known string @k is written for this profile. */
static bool needed(const struct encoder *e, enum pprof_well_known k, bool runs)
{
	if (k == WK_RUN)
		return runs;
	if (k == WK_OFF_CPU || k == WK_STATE)
		return e->offcpu;
	if (k == WK_CALL)
		return e->calls;
	if (k == WK_PHASE || k == WK_PERIOD)
		return e->phases;
	return true;
}

/* find_well_known - index the well-known strings: those the profile lacks
 * are appended after its own table ("run", "off_cpu" and "state" only
 * when a sample needs them). */
static void find_well_known(struct encoder *e)
{
	const struct profile *p = e->p;
	bool found[WK_N] = { false };
	bool runs = has_runs(p);
	uint32_t i, k;

	for (i = 0; i < p->nstrings; i++) {
		for (k = 0; k < WK_N; k++) {
			if (!found[k] && strcmp(p->strings[i], pprof_well_known[k]) == 0) {
				e->wk[k] = i;
				found[k] = true;
			}
		}
	}
	for (k = 0; k < WK_N; k++) {
		if (found[k] || !needed(e, k, runs))
			continue;
		e->wk[k] = p->nstrings + e->nextra;
		e->extra[e->nextra++] = pprof_well_known[k];
	}
}

/* put_nz - a varint field, left out when zero (proto3's default). */
static void put_nz(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (v)
		pb_put_uint(b, field, v);
}

static void put_value_type(struct pb_buf *b, uint32_t field, uint32_t type, uint32_t unit)
{
	size_t mark = pb_msg_begin(b, field);

	put_nz(b, F_VALUE_TYPE_TYPE, type);
	put_nz(b, F_VALUE_TYPE_UNIT, unit);
	pb_msg_end(b, mark);
}

static void put_label_unit(struct encoder *e, enum pprof_well_known key, uint32_t str, int64_t num,
			   uint32_t unit)
{
	size_t mark = pb_msg_begin(&e->b, F_SAMPLE_LABEL);

	pb_put_uint(&e->b, F_LABEL_KEY, e->wk[key]);
	put_nz(&e->b, F_LABEL_STR, str);
	put_nz(&e->b, F_LABEL_NUM, (uint64_t)num);
	put_nz(&e->b, F_LABEL_NUM_UNIT, unit);
	pb_msg_end(&e->b, mark);
}

static void put_label(struct encoder *e, enum pprof_well_known key, uint32_t str, int64_t num)
{
	put_label_unit(e, key, str, num, 0);
}

/* saturating_mul - @a * @b, clamped to the int64 range. */
static int64_t saturating_mul(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_mul_overflow(a, b, &r))
		return r;
	return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static void encode_sample(struct encoder *e, const struct profile_sample *s)
{
	uint64_t values[3];
	size_t mark;

	values[0] = (uint64_t)s->count;
	values[1] = (uint64_t)saturating_mul(s->count, profile__sample_period(e->p, s));
	values[2] = (uint64_t)s->offcpu_ns;
	mark = pb_msg_begin(&e->b, F_PROFILE_SAMPLE);
	if (s->nlocs)
		pb_put_packed_u32(&e->b, F_SAMPLE_LOCATION_ID, profile__sample_locs(e->p, s),
				  s->nlocs);
	pb_put_packed_u64(&e->b, F_SAMPLE_VALUE, values, e->offcpu ? 3 : 2);
	put_label(e, WK_PID, 0, s->pid);
	put_label(e, WK_TID, 0, s->tid);
	if (s->run)
		put_label(e, WK_RUN, 0, s->run);
	if (s->comm)
		put_label(e, WK_COMM, s->comm, 0);
	if (s->cgroup)
		put_label(e, WK_CGROUP, s->cgroup, 0);
	if (s->state)
		put_label(e, WK_STATE, s->state, 0);
	if (s->call)
		put_label(e, WK_CALL, s->call, 0);
	if (s->phase)
		put_label(e, WK_PHASE, s->phase, 0);
	if (s->period_ns)
		put_label_unit(e, WK_PERIOD, 0, s->period_ns, e->wk[WK_NANOSECONDS]);
	pb_msg_end(&e->b, mark);
}

static void encode_mapping(struct pb_buf *b, uint32_t id, const struct profile_mapping *m)
{
	size_t mark = pb_msg_begin(b, F_PROFILE_MAPPING);

	pb_put_uint(b, F_MAPPING_ID, id);
	put_nz(b, F_MAPPING_MEMORY_START, m->start);
	put_nz(b, F_MAPPING_MEMORY_LIMIT, m->limit);
	put_nz(b, F_MAPPING_FILE_OFFSET, m->file_offset);
	put_nz(b, F_MAPPING_FILENAME, m->filename);
	put_nz(b, F_MAPPING_BUILD_ID, m->build_id);
	put_nz(b, F_MAPPING_HAS_FUNCTIONS, m->has_functions);
	pb_msg_end(b, mark);
}

/* encode_location - one Line per function of the inline chain,
 * innermost first, as pprof orders them. */
static void encode_location(struct pb_buf *b, const struct profile *p, uint32_t id)
{
	const struct profile_location *l = &p->locations[id - 1];
	size_t mark = pb_msg_begin(b, F_PROFILE_LOCATION), line;
	const struct profile_line *lines;
	uint32_t n, i;

	pb_put_uint(b, F_LOCATION_ID, id);
	put_nz(b, F_LOCATION_MAPPING_ID, l->mapping);
	put_nz(b, F_LOCATION_ADDRESS, l->address);
	lines = profile__location_lines(p, id, &n);
	for (i = 0; i < n; i++) {
		line = pb_msg_begin(b, F_LOCATION_LINE);
		pb_put_uint(b, F_LINE_FUNCTION_ID, lines[i].function);
		put_nz(b, F_LINE_LINE, (uint64_t)lines[i].line);
		pb_msg_end(b, line);
	}
	pb_msg_end(b, mark);
}

static void encode_function(struct pb_buf *b, uint32_t id, const struct profile_function *f)
{
	size_t mark = pb_msg_begin(b, F_PROFILE_FUNCTION);

	pb_put_uint(b, F_FUNCTION_ID, id);
	put_nz(b, F_FUNCTION_NAME, f->name);
	put_nz(b, F_FUNCTION_SYSTEM_NAME, f->system_name);
	put_nz(b, F_FUNCTION_FILENAME, f->filename);
	put_nz(b, F_FUNCTION_START_LINE, (uint64_t)f->start_line);
	pb_msg_end(b, mark);
}

static void encode_tables(struct encoder *e)
{
	const struct profile *p = e->p;
	uint32_t i;

	for (i = 0; i < p->nmappings && !e->b.err; i++)
		encode_mapping(&e->b, i + 1, &p->mappings[i]);
	for (i = 0; i < p->nlocations && !e->b.err; i++)
		encode_location(&e->b, p, i + 1);
	for (i = 0; i < p->nfunctions && !e->b.err; i++)
		encode_function(&e->b, i + 1, &p->functions[i]);
	for (i = 0; i < p->nstrings && !e->b.err; i++)
		pb_put_string(&e->b, F_PROFILE_STRING_TABLE, p->strings[i]);
	for (i = 0; i < e->nextra; i++)
		pb_put_string(&e->b, F_PROFILE_STRING_TABLE, e->extra[i]);
}

static void encode_comments(struct encoder *e)
{
	const struct profile *p = e->p;
	uint32_t i;
	size_t body = 0;

	if (!p->ncomments)
		return;
	for (i = 0; i < p->ncomments; i++)
		body += pb_varint_size(p->comments[i]);
	pb_put_tag(&e->b, F_PROFILE_COMMENT, PB_WIRE_LEN);
	pb_put_varint(&e->b, body);
	for (i = 0; i < p->ncomments; i++)
		pb_put_varint(&e->b, p->comments[i]);
}

int pprof_encode(const struct profile *p, void **out, size_t *len)
{
	struct encoder e = { .p = p };
	size_t i;
	int err;

	pb_buf_init(&e.b, PPROF_MAX_BYTES);
	find_kinds(&e);
	find_well_known(&e);
	put_value_type(&e.b, F_PROFILE_SAMPLE_TYPE, e.wk[WK_SAMPLES], e.wk[WK_COUNT]);
	put_value_type(&e.b, F_PROFILE_SAMPLE_TYPE, e.wk[WK_CPU], e.wk[WK_NANOSECONDS]);
	if (e.offcpu)
		put_value_type(&e.b, F_PROFILE_SAMPLE_TYPE, e.wk[WK_OFF_CPU], e.wk[WK_NANOSECONDS]);
	for (i = 0; i < p->nsamples && !e.b.err; i++)
		encode_sample(&e, &p->samples[i]);
	encode_tables(&e);
	put_nz(&e.b, F_PROFILE_TIME_NANOS, (uint64_t)p->time_ns);
	put_nz(&e.b, F_PROFILE_DURATION_NANOS, (uint64_t)p->duration_ns);
	put_value_type(&e.b, F_PROFILE_PERIOD_TYPE, e.wk[WK_CPU], e.wk[WK_NANOSECONDS]);
	put_nz(&e.b, F_PROFILE_PERIOD, (uint64_t)p->period_ns);
	encode_comments(&e);
	/* pprof tools show the last sample type unless told otherwise */
	if (e.offcpu)
		put_nz(&e.b, F_PROFILE_DEFAULT_SAMPLE_TYPE, e.wk[e.oncpu ? WK_CPU : WK_OFF_CPU]);
	err = pb_buf_release(&e.b, out, len);
	pb_buf_free(&e.b);
	return err;
}
