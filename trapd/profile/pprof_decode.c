// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pprof_decode.c - decode pprof's profile.proto into struct profile (the
 * pprof_decode half of pprof.h).
 *
 * profile.proto allows top-level fields in any order and its messages
 * refer to each other by id, so the decoder makes one pass over the
 * top-level fields per table: strings and scalars first, then mappings
 * (with comments and the top level's string indexes), functions,
 * locations and samples, each pass resolving references through what the
 * previous ones built. File ids (any nonzero uint64, any order) map to
 * the profile's dense 1-based ids through sorted tables, file string
 * indexes through an array. The input is untrusted: every index and id
 * is checked, and the profile's caps bound what is allocated.
 */
#include "trapd/profile/pprof.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/profile/pb.h"
#include "trapd/profile/pprof_proto.h"

/* A file id and the dense profile id it became. */
struct id_entry {
	uint64_t file_id;
	uint32_t id;
	size_t at; /* byte offset of the message, for "duplicate id" */
};

struct id_map {
	const char *what; /* "mapping", "function", "location" */
	size_t max;
	struct id_entry *v;
	size_t n, cap;
	/* Once sealed, if the file ids are exactly 1..n: direct[id - 1] is
	 * the profile id (4 bytes an entry: lookups stay in cache). */
	uint32_t *direct;
};

struct decoder {
	const uint8_t *buf;
	size_t len;
	char *err;
	size_t errlen;
	struct profile *p;
	uint32_t *strmap; /* file string index -> profile string index */
	size_t nstr, strcap;
	struct id_map mappings, functions, locations;
	uint32_t nsample_types; /* seen so far */
	int offcpu_index;	/* of the sample type named off_cpu; -1: none */
};

/* fail - pb_errorf's "byte N: ..." message, but returning @code. */
static int fail(const struct pb_reader *r, size_t at, int code, const char *what)
{
	if (code == -ENOMEM)
		pb_errorf(r, at, "%s: out of memory", what);
	else if (code == -E2BIG)
		pb_errorf(r, at, "%s: over a size cap of the profile (profile.h)", what);
	else
		pb_errorf(r, at, "%s: %s", what, strerror(-code));
	return code;
}

/* --- id maps --- */

static int id_map_add(const struct pb_reader *r, struct id_map *m, uint64_t file_id, int64_t id,
		      size_t at)
{
	struct id_entry *nv;
	size_t ncap;

	if (m->n == m->cap) {
		if (m->n >= m->max)
			return fail(r, at, -E2BIG, m->what);
		ncap = m->cap ? m->cap * 2 : 64;
		nv = realloc(m->v, ncap * sizeof(*nv));
		if (!nv)
			return fail(r, at, -ENOMEM, m->what);
		m->v = nv;
		m->cap = ncap;
	}
	m->v[m->n].file_id = file_id;
	m->v[m->n].id = (uint32_t)id;
	m->v[m->n].at = at;
	m->n++;
	return 0;
}

static int id_entry_cmp(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	if (x->file_id != y->file_id)
		return x->file_id < y->file_id ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* id_map_seal - sort the map for lookups; a duplicate file id is an error. */
static int id_map_seal(struct decoder *d, struct id_map *m)
{
	struct pb_reader r;
	size_t i;

	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), id_entry_cmp);
	for (i = 1; i < m->n; i++) {
		if (m->v[i].file_id == m->v[i - 1].file_id) {
			pb_reader_init(&r, d->buf, d->len, d->err, d->errlen);
			return pb_errorf(&r, m->v[i].at, "duplicate %s id %llu", m->what,
					 (unsigned long long)m->v[i].file_id);
		}
	}
	/* Ids are unique and nonzero, so a last id of n means exactly 1..n. */
	if (!m->n || m->v[m->n - 1].file_id != m->n)
		return 0;
	m->direct = malloc(m->n * sizeof(*m->direct));
	if (!m->direct)
		return 0; /* the binary search still works */
	for (i = 0; i < m->n; i++)
		m->direct[i] = m->v[i].id;
	free(m->v);
	m->v = NULL;
	return 0;
}

/* id_map_find - the profile id of @file_id, 0 if there is none. */
static uint32_t id_map_find(const struct id_map *m, uint64_t file_id)
{
	size_t lo = 0, hi = m->n, mid;

	if (m->direct)
		return file_id >= 1 && file_id <= m->n ? m->direct[file_id - 1] : 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->v[mid].file_id == file_id)
			return m->v[mid].id;
		if (m->v[mid].file_id < file_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* --- typed field readers --- */

static int read_uint(struct pb_reader *r, enum pb_wire wire, const char *what, uint64_t *v)
{
	if (wire != PB_WIRE_VARINT)
		return pb_errorf(r, r->pos, "%s has wire type %u, expected a varint", what, wire);
	return pb_read_varint(r, v);
}

/* check_string - @v must be an index into the file's string table. */
static int check_string(const struct decoder *d, const struct pb_reader *r, size_t at,
			const char *what, uint64_t v)
{
	if (v < d->nstr)
		return 0;
	return pb_errorf(r, at, "%s: string index %llu out of range (%zu strings)", what,
			 (unsigned long long)v, d->nstr);
}

static int read_message(struct pb_reader *r, enum pb_wire wire, const char *what,
			struct pb_reader *sub)
{
	if (wire != PB_WIRE_LEN)
		return pb_errorf(r, r->pos, "%s has wire type %u, expected a message", what, wire);
	return pb_read_len(r, sub);
}

/* One scalar field of a message read by read_fields. */
struct field_spec {
	uint32_t field;
	bool string; /* a string index: checked, and mapped to the profile's */
	const char *name;
};

/* read_fields - read the message at @r into @vals: vals[i] is the value of
 * @spec[i] (the last one wins, 0 when absent); other fields are skipped. */
static int read_fields(struct decoder *d, struct pb_reader *r, enum pb_wire wire, const char *what,
		       const struct field_spec *spec, size_t n, uint64_t *vals)
{
	struct pb_reader sub;
	enum pb_wire w;
	uint32_t field;
	size_t i, at;
	int err;

	memset(vals, 0, n * sizeof(*vals));
	err = read_message(r, wire, what, &sub);
	while (!err && pb_reader_more(&sub)) {
		err = pb_read_tag(&sub, &field, &w);
		if (err)
			break;
		for (i = 0; i < n && spec[i].field != field; i++)
			;
		if (i == n) {
			err = pb_skip(&sub, w);
			continue;
		}
		at = sub.pos;
		err = read_uint(&sub, w, spec[i].name, &vals[i]);
		if (!err && spec[i].string) {
			err = check_string(d, &sub, at, spec[i].name, vals[i]);
			if (!err)
				vals[i] = d->strmap[vals[i]];
		}
	}
	return err;
}

/* --- pass 1: string table and scalars --- */

static int grow_strmap(struct decoder *d, const struct pb_reader *r, size_t at)
{
	uint32_t *nm;
	size_t ncap;

	if (d->nstr < d->strcap)
		return 0;
	if (d->nstr >= PROFILE_MAX_STRINGS)
		return fail(r, at, -E2BIG, "string_table");
	ncap = d->strcap ? d->strcap * 2 : 256;
	nm = realloc(d->strmap, ncap * sizeof(*nm));
	if (!nm)
		return fail(r, at, -ENOMEM, "string_table");
	d->strmap = nm;
	d->strcap = ncap;
	return 0;
}

static int add_string(struct decoder *d, struct pb_reader *r, enum pb_wire wire)
{
	char tmp[PROFILE_MAX_STRING_LEN + 1];
	struct pb_reader s;
	size_t at = r->pos, n;
	int64_t idx;
	int err;

	err = read_message(r, wire, "string_table entry", &s);
	if (err)
		return err;
	/* A C string ends at the first NUL; what follows cannot be kept. */
	n = strnlen((const char *)s.buf + s.pos, s.end - s.pos);
	if (n > PROFILE_MAX_STRING_LEN)
		return fail(r, at, -E2BIG, "string longer than PROFILE_MAX_STRING_LEN");
	if (d->nstr == 0 && n != 0)
		return pb_errorf(r, at, "string_table[0] must be the empty string");
	err = grow_strmap(d, r, at);
	if (err)
		return err;
	memcpy(tmp, s.buf + s.pos, n);
	tmp[n] = '\0';
	idx = profile__string(d->p, tmp);
	if (idx < 0)
		return fail(r, at, (int)idx, "string_table");
	d->strmap[d->nstr++] = (uint32_t)idx;
	return 0;
}

static int pass_strings(struct decoder *d, struct pb_reader *r, uint32_t field, enum pb_wire wire)
{
	uint64_t v;
	int err;

	switch (field) {
	case F_PROFILE_STRING_TABLE:
		return add_string(d, r, wire);
	case F_PROFILE_TIME_NANOS:
		err = read_uint(r, wire, "time_nanos", &v);
		d->p->time_ns = (int64_t)v;
		return err;
	case F_PROFILE_DURATION_NANOS:
		err = read_uint(r, wire, "duration_nanos", &v);
		d->p->duration_ns = (int64_t)v;
		return err;
	case F_PROFILE_PERIOD:
		err = read_uint(r, wire, "period", &v);
		d->p->period_ns = (int64_t)v;
		return err;
	default:
		return pb_skip(r, wire);
	}
}

/* finish_strings - an absent string table reads as [""]. */
static int finish_strings(struct decoder *d)
{
	if (d->nstr)
		return 0;
	d->strmap = malloc(sizeof(*d->strmap));
	if (!d->strmap)
		return -ENOMEM;
	d->strmap[0] = 0;
	d->nstr = d->strcap = 1;
	return 0;
}

/* --- pass 2: mappings, comments, the top level's string indexes --- */

enum { MAP_ID, MAP_START, MAP_LIMIT, MAP_OFFSET, MAP_FILENAME, MAP_BUILD_ID, MAP_HAS_FN, MAP_N };

static const struct field_spec mapping_spec[MAP_N] = {
	[MAP_ID] = { F_MAPPING_ID, false, "mapping id" },
	[MAP_START] = { F_MAPPING_MEMORY_START, false, "mapping memory_start" },
	[MAP_LIMIT] = { F_MAPPING_MEMORY_LIMIT, false, "mapping memory_limit" },
	[MAP_OFFSET] = { F_MAPPING_FILE_OFFSET, false, "mapping file_offset" },
	[MAP_FILENAME] = { F_MAPPING_FILENAME, true, "mapping filename" },
	[MAP_BUILD_ID] = { F_MAPPING_BUILD_ID, true, "mapping build_id" },
	[MAP_HAS_FN] = { F_MAPPING_HAS_FUNCTIONS, false, "mapping has_functions" },
};

static int decode_mapping(struct decoder *d, struct pb_reader *r, enum pb_wire wire)
{
	struct profile_mapping m = { 0 };
	uint64_t v[MAP_N];
	size_t at = r->pos;
	int64_t id;
	int err;

	err = read_fields(d, r, wire, "mapping", mapping_spec, MAP_N, v);
	if (err)
		return err;
	if (!v[MAP_ID])
		return pb_errorf(r, at, "mapping without an id (or id 0)");
	m.start = v[MAP_START];
	m.limit = v[MAP_LIMIT];
	m.file_offset = v[MAP_OFFSET];
	m.filename = (uint32_t)v[MAP_FILENAME];
	m.build_id = (uint32_t)v[MAP_BUILD_ID];
	m.has_functions = v[MAP_HAS_FN] != 0;
	id = profile__add_mapping(d->p, &m);
	if (id < 0)
		return fail(r, at, (int)id, "mapping");
	return id_map_add(r, &d->mappings, v[MAP_ID], id, at);
}

static const struct field_spec value_type_spec[] = {
	{ F_VALUE_TYPE_TYPE, true, "value type" },
	{ F_VALUE_TYPE_UNIT, true, "value unit" },
};

static int decode_comments(struct decoder *d, struct pb_reader *r, enum pb_wire wire)
{
	struct pb_reader vals;
	size_t at;
	uint64_t v;
	int err;

	err = pb_read_repeated(r, wire, &vals);
	while (!err && pb_reader_more(&vals)) {
		at = vals.pos;
		err = pb_read_varint(&vals, &v);
		if (!err)
			err = check_string(d, r, at, "comment", v);
		if (err)
			break;
		err = profile__add_comment(d->p, profile__str(d->p, d->strmap[v]));
		if (err)
			return fail(r, at, err, "comment");
	}
	return err;
}

static int pass_mappings(struct decoder *d, struct pb_reader *r, uint32_t field, enum pb_wire wire)
{
	size_t at = r->pos;
	uint64_t v[2];
	int err;

	switch (field) {
	case F_PROFILE_MAPPING:
		return decode_mapping(d, r, wire);
	case F_PROFILE_SAMPLE_TYPE:
		err = read_fields(d, r, wire, "sample_type", value_type_spec, 2, v);
		if (!err && d->offcpu_index < 0 &&
		    strcmp(profile__str(d->p, (uint32_t)v[0]), pprof_well_known[WK_OFF_CPU]) == 0)
			d->offcpu_index = (int)d->nsample_types;
		d->nsample_types++;
		return err;
	case F_PROFILE_PERIOD_TYPE:
		return read_fields(d, r, wire, "period_type", value_type_spec, 2, v);
	case F_PROFILE_DROP_FRAMES:
	case F_PROFILE_KEEP_FRAMES:
	case F_PROFILE_DEFAULT_SAMPLE_TYPE:
		err = read_uint(r, wire, "top-level string index", &v[0]);
		return err ? err : check_string(d, r, at, "top-level string index", v[0]);
	case F_PROFILE_COMMENT:
		return decode_comments(d, r, wire);
	default:
		return pb_skip(r, wire);
	}
}

/* --- pass 3: functions --- */

enum { FN_ID, FN_NAME, FN_SYSTEM_NAME, FN_FILENAME, FN_START_LINE, FN_N };

static const struct field_spec function_spec[FN_N] = {
	[FN_ID] = { F_FUNCTION_ID, false, "function id" },
	[FN_NAME] = { F_FUNCTION_NAME, true, "function name" },
	[FN_SYSTEM_NAME] = { F_FUNCTION_SYSTEM_NAME, true, "function system_name" },
	[FN_FILENAME] = { F_FUNCTION_FILENAME, true, "function filename" },
	[FN_START_LINE] = { F_FUNCTION_START_LINE, false, "function start_line" },
};

static int pass_functions(struct decoder *d, struct pb_reader *r, uint32_t field, enum pb_wire wire)
{
	uint64_t v[FN_N];
	size_t at = r->pos;
	int64_t id;
	int err;

	if (field != F_PROFILE_FUNCTION)
		return pb_skip(r, wire);
	err = read_fields(d, r, wire, "function", function_spec, FN_N, v);
	if (err)
		return err;
	if (!v[FN_ID])
		return pb_errorf(r, at, "function without an id (or id 0)");
	id = profile__add_function_at(d->p, (uint32_t)v[FN_NAME], (uint32_t)v[FN_SYSTEM_NAME],
				      (uint32_t)v[FN_FILENAME], (int64_t)v[FN_START_LINE]);
	if (id < 0)
		return fail(r, at, (int)id, "function");
	return id_map_add(r, &d->functions, v[FN_ID], id, at);
}

/* --- pass 4: locations --- */

enum { LN_FUNCTION, LN_LINE, LN_N };

static const struct field_spec line_spec[LN_N] = {
	[LN_FUNCTION] = { F_LINE_FUNCTION_ID, false, "line function_id" },
	[LN_LINE] = { F_LINE_LINE, false, "line line" },
};

/* What a location refers to, resolved once its id is known (its fields
 * come in any order). Lines keep pprof's ids until then. */
struct location_refs {
	uint64_t id, mapping, address;
	struct profile_line lines[PROFILE_MAX_INLINE_DEPTH]; /* innermost first */
	uint32_t nlines;
	uint64_t bad_function; /* the first line function that does not exist */
	bool too_many_lines;
};

/* add_line - a Line of the location; one without a function says nothing
 * a profile can hold, and is dropped. */
static int add_line(struct decoder *d, struct pb_reader *sub, enum pb_wire w,
		    struct location_refs *l)
{
	uint64_t v[LN_N];
	uint32_t fn;
	int err;

	err = read_fields(d, sub, w, "line", line_spec, LN_N, v);
	if (err || !v[LN_FUNCTION])
		return err;
	fn = id_map_find(&d->functions, v[LN_FUNCTION]);
	if (!fn && !l->bad_function)
		l->bad_function = v[LN_FUNCTION];
	if (l->nlines == PROFILE_MAX_INLINE_DEPTH) {
		l->too_many_lines = true;
		return 0;
	}
	l->lines[l->nlines++] = (struct profile_line){ fn, (int64_t)v[LN_LINE] };
	return 0;
}

static int read_location(struct decoder *d, struct pb_reader *sub, struct location_refs *l)
{
	enum pb_wire w;
	uint32_t field;
	int err = 0;

	while (!err && pb_reader_more(sub)) {
		err = pb_read_tag(sub, &field, &w);
		if (err)
			break;
		if (field == F_LOCATION_ID)
			err = read_uint(sub, w, "location id", &l->id);
		else if (field == F_LOCATION_MAPPING_ID)
			err = read_uint(sub, w, "location mapping_id", &l->mapping);
		else if (field == F_LOCATION_ADDRESS)
			err = read_uint(sub, w, "location address", &l->address);
		else if (field == F_LOCATION_LINE)
			err = add_line(d, sub, w, l);
		else
			err = pb_skip(sub, w);
	}
	return err;
}

static int pass_locations(struct decoder *d, struct pb_reader *r, uint32_t field, enum pb_wire wire)
{
	struct location_refs l = { 0 };
	uint32_t mapping = 0;
	struct pb_reader sub;
	size_t at = r->pos;
	int64_t id;
	int err;

	if (field != F_PROFILE_LOCATION)
		return pb_skip(r, wire);
	err = read_message(r, wire, "location", &sub);
	if (!err)
		err = read_location(d, &sub, &l);
	if (err)
		return err;
	if (!l.id)
		return pb_errorf(r, at, "location without an id (or id 0)");
	if (l.mapping && !(mapping = id_map_find(&d->mappings, l.mapping)))
		return pb_errorf(r, at, "location %llu refers to unknown mapping %llu",
				 (unsigned long long)l.id, (unsigned long long)l.mapping);
	if (l.bad_function)
		return pb_errorf(r, at, "location %llu refers to unknown function %llu",
				 (unsigned long long)l.id, (unsigned long long)l.bad_function);
	if (l.too_many_lines)
		return pb_errorf(r, at, "location %llu has more than %u lines (inlined functions)",
				 (unsigned long long)l.id, PROFILE_MAX_INLINE_DEPTH);
	id = profile__add_location_lines(d->p, mapping, l.address, l.lines, l.nlines);
	if (id < 0)
		return fail(r, at, (int)id, "location");
	return id_map_add(r, &d->locations, l.id, id, at);
}

/* --- pass 5: samples --- */

/* A sample being decoded: its stack in profile ids, count and labels. */
struct sample_acc {
	uint32_t locs[PROFILE_MAX_DEPTH];
	uint32_t n;
	bool have_value;
	uint32_t nvalues; /* read so far (a packed list may come in pieces) */
	struct profile_sample s;
};

static int decode_sample_locs(struct decoder *d, struct pb_reader *r, enum pb_wire wire,
			      struct sample_acc *a)
{
	struct pb_reader vals;
	uint64_t v;
	size_t at;
	int err;

	err = pb_read_repeated(r, wire, &vals);
	while (!err && pb_reader_more(&vals)) {
		at = vals.pos;
		err = pb_read_varint(&vals, &v);
		if (err)
			break;
		if (a->n == PROFILE_MAX_DEPTH)
			return fail(r, at, -E2BIG, "sample deeper than PROFILE_MAX_DEPTH");
		a->locs[a->n] = id_map_find(&d->locations, v);
		if (!a->locs[a->n])
			return pb_errorf(r, at, "sample refers to unknown location %llu",
					 (unsigned long long)v);
		a->n++;
	}
	return err;
}

static int decode_sample_values(const struct decoder *d, struct pb_reader *r, enum pb_wire wire,
				struct sample_acc *a)
{
	struct pb_reader vals;
	uint64_t v;
	int err;

	err = pb_read_repeated(r, wire, &vals);
	while (!err && pb_reader_more(&vals)) {
		err = pb_read_varint(&vals, &v);
		/* The first value is the count, whatever the sample type. */
		if (!err && !a->have_value && d->offcpu_index != 0)
			a->s.count = (int64_t)v;
		if (!err && (int)a->nvalues == d->offcpu_index)
			a->s.offcpu_ns = (int64_t)v;
		a->have_value = true;
		a->nvalues++;
	}
	return err;
}

enum { LABEL_KEY, LABEL_STR, LABEL_NUM, LABEL_NUM_UNIT, LABEL_N };

static const struct field_spec label_spec[LABEL_N] = {
	[LABEL_KEY] = { F_LABEL_KEY, true, "label key" },
	[LABEL_STR] = { F_LABEL_STR, true, "label str" },
	[LABEL_NUM] = { F_LABEL_NUM, false, "label num" },
	[LABEL_NUM_UNIT] = { F_LABEL_NUM_UNIT, true, "label num_unit" },
};

static int decode_label(struct decoder *d, struct pb_reader *r, enum pb_wire wire,
			struct profile_sample *s)
{
	const char *key;
	uint64_t v[LABEL_N];
	int err;

	err = read_fields(d, r, wire, "label", label_spec, LABEL_N, v);
	if (err)
		return err;
	key = profile__str(d->p, (uint32_t)v[LABEL_KEY]);
	/* Labels trapd does not model are dropped. The numeric ones (pid,
	 * tid, run) are kept as written, negative included; one without a num
	 * reads as 0 (not recorded), and the last of repeated keys wins. */
	if (strcmp(key, pprof_well_known[WK_PID]) == 0)
		s->pid = (int64_t)v[LABEL_NUM];
	else if (strcmp(key, pprof_well_known[WK_TID]) == 0)
		s->tid = (int64_t)v[LABEL_NUM];
	else if (strcmp(key, pprof_well_known[WK_RUN]) == 0)
		s->run = (int64_t)v[LABEL_NUM];
	else if (strcmp(key, pprof_well_known[WK_COMM]) == 0)
		s->comm = (uint32_t)v[LABEL_STR];
	else if (strcmp(key, pprof_well_known[WK_CGROUP]) == 0)
		s->cgroup = (uint32_t)v[LABEL_STR];
	else if (strcmp(key, pprof_well_known[WK_STATE]) == 0)
		s->state = (uint32_t)v[LABEL_STR];
	else if (strcmp(key, pprof_well_known[WK_CALL]) == 0)
		s->call = (uint32_t)v[LABEL_STR];
	else if (strcmp(key, pprof_well_known[WK_PHASE]) == 0)
		s->phase = (uint32_t)v[LABEL_STR];
	else if (strcmp(key, pprof_well_known[WK_PERIOD]) == 0)
		s->period_ns = (int64_t)v[LABEL_NUM] > 0 ? (int64_t)v[LABEL_NUM] : 0;
	return 0;
}

static int pass_samples(struct decoder *d, struct pb_reader *r, uint32_t field, enum pb_wire wire)
{
	struct sample_acc a = { .n = 0 };
	struct pb_reader sub;
	size_t at = r->pos;
	enum pb_wire w;
	uint32_t fnum;
	int err;

	if (field != F_PROFILE_SAMPLE)
		return pb_skip(r, wire);
	err = read_message(r, wire, "sample", &sub);
	while (!err && pb_reader_more(&sub)) {
		err = pb_read_tag(&sub, &fnum, &w);
		if (err)
			break;
		if (fnum == F_SAMPLE_LOCATION_ID)
			err = decode_sample_locs(d, &sub, w, &a);
		else if (fnum == F_SAMPLE_VALUE)
			err = decode_sample_values(d, &sub, w, &a);
		else if (fnum == F_SAMPLE_LABEL)
			err = decode_label(d, &sub, w, &a.s);
		else
			err = pb_skip(&sub, w);
	}
	if (err)
		return err;
	err = profile__add_sample(d->p, a.locs, a.n, &a.s);
	return err ? fail(r, at, err, "sample") : 0;
}

/* --- driver --- */

typedef int (*pass_fn)(struct decoder *d, struct pb_reader *r, uint32_t field, enum pb_wire wire);

/* run_pass - hand every top-level field to @fn, which consumes it. */
static int run_pass(struct decoder *d, pass_fn fn)
{
	struct pb_reader r;
	enum pb_wire wire;
	uint32_t field;
	int err = 0;

	pb_reader_init(&r, d->buf, d->len, d->err, d->errlen);
	while (!err && pb_reader_more(&r)) {
		err = pb_read_tag(&r, &field, &wire);
		if (!err)
			err = fn(d, &r, field, wire);
	}
	return err;
}

static int decode_all(struct decoder *d)
{
	int err;

	err = run_pass(d, pass_strings);
	if (!err)
		err = finish_strings(d);
	if (!err)
		err = run_pass(d, pass_mappings);
	if (!err)
		err = id_map_seal(d, &d->mappings);
	if (!err)
		err = run_pass(d, pass_functions);
	if (!err)
		err = id_map_seal(d, &d->functions);
	if (!err)
		err = run_pass(d, pass_locations);
	if (!err)
		err = id_map_seal(d, &d->locations);
	if (!err)
		err = run_pass(d, pass_samples);
	return err;
}

int pprof_decode(const void *buf, size_t len, struct profile **out, char *err, size_t errlen)
{
	struct decoder d = {
		.buf = buf,
		.len = len,
		.err = err,
		.errlen = errlen,
		.mappings = { .what = "mapping", .max = PROFILE_MAX_MAPPINGS },
		.functions = { .what = "function", .max = PROFILE_MAX_FUNCTIONS },
		.locations = { .what = "location", .max = PROFILE_MAX_LOCATIONS },
		.offcpu_index = -1,
	};
	int ret;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	d.p = profile__new();
	if (!d.p) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = decode_all(&d);
	if (ret == -ENOMEM && err && errlen && !err[0])
		snprintf(err, errlen, "out of memory");
	if (!ret) {
		*out = d.p;
		d.p = NULL;
	}
	profile__free(d.p);
	free(d.strmap);
	free(d.mappings.v);
	free(d.functions.v);
	free(d.locations.v);
	free(d.mappings.direct);
	free(d.functions.direct);
	free(d.locations.direct);
	return ret;
}
