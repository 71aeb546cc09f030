/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* profile.h - the in-memory CPU profile every capture is built into and
 * every report is read from.
 *
 * It mirrors pprof's profile.proto closely so encoding and decoding are
 * mechanical: strings are interned in a table whose entry 0 is "", and
 * mappings, functions and locations are numbered from 1 (0 means "none").
 * A location holds a list of lines, innermost first as in pprof: when the
 * compiler inlined functions into the one its address is in, line[0] is
 * the innermost inlined function and the last line that function; a
 * location without inlining has one line. Each sample points at a run of
 * location ids, leaf first, and carries the
 * labels trapd records for every sample (pid, tid, comm, cgroup), and,
 * when one profile holds several runs of a command (profile_merge.h),
 * the run it came from, or, when a capture holds the seconds before its
 * trigger (profile_phase.h), the phase and the period it was sampled at. A capture that recorded time off the CPU holds
 * its off-CPU samples beside the on-CPU ones: their weight is
 * nanoseconds (offcpu_ns), their count 0, and they carry the state the
 * task waited in; profile_view.h turns either kind (or both) into the
 * counts every view reads.
 *
 * Every table has a hard cap (PROFILE_MAX_*) so a hostile capture file
 * cannot make the reader allocate without bound; adders return -E2BIG past
 * it.
 */
#ifndef TRAPD_PROFILE_H
#define TRAPD_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_MAX_STRINGS (1u << 22)
#define PROFILE_MAX_STRING_LEN 4096
#define PROFILE_MAX_MAPPINGS (1u << 20)
#define PROFILE_MAX_FUNCTIONS (1u << 22)
#define PROFILE_MAX_LOCATIONS (1u << 23)
#define PROFILE_MAX_LINES (1u << 24)
/* Lines of one location: the deepest chain of inlining kept. */
#define PROFILE_MAX_INLINE_DEPTH 32
#define PROFILE_MAX_SAMPLES (1u << 23)
#define PROFILE_MAX_STACK_LOCS (1u << 26)
#define PROFILE_MAX_DEPTH 512

struct profile_mapping {
	uint64_t start;
	uint64_t limit;
	uint64_t file_offset;
	uint32_t filename; /* string index */
	uint32_t build_id; /* string index, lower-case hex; 0 = unknown */
	bool has_functions;
};

struct profile_function {
	uint32_t name;	      /* string index: demangled/display name */
	uint32_t system_name; /* string index: symbol as in the binary */
	uint32_t filename;    /* string index: source or object file */
	int64_t start_line;   /* line of its declaration in @filename, 0 = unknown */
};

/* One function of a location's inline chain. */
struct profile_line {
	uint32_t function; /* function id, never 0 */
	int64_t line;	   /* source line, 0 = unknown */
};

struct profile_location {
	uint64_t address;
	uint32_t mapping; /* mapping id, 0 = none */
	/* function id, 0 = unresolved (address only): the function the
	 * address is in, which is the last of its lines */
	uint32_t function;
	uint32_t first_line; /* index into profile.lines */
	uint32_t nlines;     /* 0 exactly when @function is 0 */
};

struct profile_sample {
	size_t first_loc; /* index into profile.stack_locs */
	uint32_t nlocs;	  /* number of location ids; leaf first */
	int64_t count;	  /* samples; value[1] is count * period */
	/* Time off the CPU in nanoseconds (value[2], "off_cpu"), 0 for an
	 * on-CPU sample; such a sample has a count of 0. */
	int64_t offcpu_ns;
	uint32_t state; /* string index: the task state of @offcpu_ns, 0 = none */
	/* string index: the call it was taken in ("slow", "fast", "outside",
	 * "unknown": call_split.h), 0 = not recorded */
	uint32_t call;
	int64_t pid;
	int64_t tid;
	int64_t run;	 /* 1-based run of `trapd ci --runs`; 0 = not recorded */
	uint32_t comm;	 /* string index */
	uint32_t cgroup; /* string index: cgroup path, 0 = not recorded */
	/* string index: the part of the capture it belongs to ("before":
	 * the flight recorder's history, "during": the window;
	 * profile_phase.h), 0 = not recorded */
	uint32_t phase;
	/* its own sampling period when it is not the profile's (the history
	 * is sampled at a lower rate than the window): a count of it is
	 * count x period_ns of CPU time. 0 = the profile's period_ns. */
	int64_t period_ns;
};

struct profile {
	char **strings;
	uint32_t nstrings;
	struct profile_mapping *mappings; /* [id - 1] */
	uint32_t nmappings;
	struct profile_function *functions; /* [id - 1] */
	uint32_t nfunctions;
	struct profile_location *locations; /* [id - 1] */
	uint32_t nlocations;
	struct profile_line *lines; /* of all locations, back to back */
	uint32_t nlines;
	struct profile_sample *samples;
	size_t nsamples;
	uint32_t *stack_locs; /* location ids of all samples, back to back */
	size_t nstack_locs;
	uint32_t *comments; /* string indexes */
	uint32_t ncomments;

	int64_t period_ns;   /* sampling period */
	int64_t time_ns;     /* window start, ns since the epoch */
	int64_t duration_ns; /* window length */
	/* What the counts weigh (enum profile_view, profile_view.h): 0 is
	 * on-CPU samples, as read; a time view makes them nanoseconds. */
	int view;

	/* private: interning indexes */
	struct profile_index *string_index;
	struct profile_index *mapping_index;
	struct profile_index *function_index;
	struct profile_index *location_index;

	/* private: capacities of the arrays above */
	uint32_t strings_cap, mappings_cap, functions_cap, locations_cap, lines_cap, comments_cap;
	size_t samples_cap, stack_locs_cap;
};

/* profile__new - an empty profile (string 0 is ""). NULL and errno set on
 * failure. Free with profile__free. */
struct profile *profile__new(void);
void profile__free(struct profile *p);

/* profile__string - intern @s (NULL counts as ""); returns its index (>= 0)
 * or a negative errno (-E2BIG for too many or too long strings). */
int64_t profile__string(struct profile *p, const char *s);

/* profile__str - the string at @idx, or "" when @idx is out of range. */
const char *profile__str(const struct profile *p, uint32_t idx);

/* profile__add_mapping - add @m (deduplicated on every field); returns its
 * id (>= 1) or a negative errno. String indexes must be valid. */
int64_t profile__add_mapping(struct profile *p, const struct profile_mapping *m);

/* profile__add_function - add a function (deduplicated on name, system
 * name and filename); returns its id (>= 1) or a negative errno. */
int64_t profile__add_function(struct profile *p, uint32_t name, uint32_t system_name,
			      uint32_t filename);

/* profile__add_function_at - profile__add_function with the line its
 * declaration starts at in @filename (0 = unknown; part of the identity). */
int64_t profile__add_function_at(struct profile *p, uint32_t name, uint32_t system_name,
				 uint32_t filename, int64_t start_line);

/* profile__add_location - add a location in one function, line unknown
 * (0: unresolved), deduplicated on mapping, address and lines; returns its
 * id (>= 1) or a negative errno. */
int64_t profile__add_location(struct profile *p, uint32_t mapping, uint64_t address,
			      uint32_t function);

/* profile__add_location_lines - add a location whose inline chain is
 * @lines[0..n), innermost first (n = 0: unresolved; at most
 * PROFILE_MAX_INLINE_DEPTH, each function an existing id), deduplicated
 * on mapping, address and lines. Returns its id (>= 1) or a negative
 * errno. @lines is copied. */
int64_t profile__add_location_lines(struct profile *p, uint32_t mapping, uint64_t address,
				    const struct profile_line *lines, uint32_t n);

/* profile__location_lines - the lines of location @loc_id, innermost
 * first, their number in *@n (0 for an unresolved or invalid id). */
const struct profile_line *profile__location_lines(const struct profile *p, uint32_t loc_id,
						   uint32_t *n);

/* profile__add_sample - append a sample whose stack is @locs[0..n) (leaf
 * first, ids must exist); labels and count are copied from @tmpl (its
 * first_loc and nlocs are ignored). Returns 0 or a negative errno. */
int profile__add_sample(struct profile *p, const uint32_t *locs, uint32_t n,
			const struct profile_sample *tmpl);

/* profile__add_comment - append a free-text comment (pprof shows them). */
int profile__add_comment(struct profile *p, const char *text);

/* profile__sample_locs - the location ids of sample @s, leaf first. */
static inline const uint32_t *profile__sample_locs(const struct profile *p,
						   const struct profile_sample *s)
{
	/* A profile whose stacks are all empty has no array: NULL + 0 is UB. */
	return p->stack_locs ? p->stack_locs + s->first_loc : NULL;
}

/* profile__location_name - the display name of location @loc_id: its
 * function's name, or, for an unresolved frame, "file+0xoffset" (or the
 * bare address) written into @buf. Returns a string that lives as long as
 * @p or @buf. */
const char *profile__location_name(const struct profile *p, uint32_t loc_id, char *buf, size_t len);

/* The kernel's frames all belong to one mapping with this file name; a
 * module's functions are named "function [module]". */
#define PROFILE_KERNEL_MAPPING "[kernel.kallsyms]"

/* profile__location_is_kernel - whether @loc_id is a kernel frame (its
 * mapping is PROFILE_KERNEL_MAPPING, or it has no mapping and a kernel
 * half address). */
bool profile__location_is_kernel(const struct profile *p, uint32_t loc_id);

/* profile__total - the sum of all sample counts. */
int64_t profile__total(const struct profile *p);

/* profile__sample_period - the period a count of @s (a sample of @p)
 * stands for: its own when it has one (profile.h: a capture's history),
 * else @p's. */
static inline int64_t profile__sample_period(const struct profile *p,
					     const struct profile_sample *s)
{
	return s->period_ns > 0 ? s->period_ns : p->period_ns;
}

/* profile__cpu_ns - the on-CPU time @p's counts stand for: each count of
 * its sample's own period, or of @p's (saturating). */
int64_t profile__cpu_ns(const struct profile *p);

#endif
