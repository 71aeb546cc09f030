/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* symbudget.h - how much work one capture's symbolization may do.
 *
 * What a capture symbolizes is chosen by its targets: a process can map a
 * library with millions of symbols, name a debug file gigabytes long in
 * its .gnu_debuglink, or write a perf map as big as perf maps may be, and
 * many processes can each do so. A budget bounds the sum over one
 * capture: bytes of symbol and string tables read, bytes hashed to prove
 * a debug file, symbols kept, perf-map bytes across processes, and the
 * wall time spent. Work the budget refuses is skipped, never half done:
 * the frames it would have named keep their addresses, and the refusals
 * are counted for the capture's metadata.
 *
 * One budget belongs to one thread (the capture's symbolization worker).
 */
#ifndef TRAPD_SYMBUDGET_H
#define TRAPD_SYMBUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "trapd/symbolize/elfsym.h"

/* What was refused. */
enum symbudget_kind {
	SYMBUDGET_BYTES,	 /* symbol tables, string tables, debug files hashed */
	SYMBUDGET_SYMBOLS,	 /* symbols kept */
	SYMBUDGET_PERFMAP_BYTES, /* perf maps, all processes together */
	SYMBUDGET_TIME,		 /* wall time */
	SYMBUDGET_NR,
};

/* Defaults: enough for a host's usual binaries with debug files (libc's
 * debug file is ~6 MB of tables, a big C++ service a few hundred MB),
 * never enough for one target to hold the daemon for long. */
#define SYMBUDGET_DEFAULT_BYTES (512ull << 20)
#define SYMBUDGET_DEFAULT_SYMBOLS (4ull << 20)
#define SYMBUDGET_DEFAULT_PERFMAP_BYTES (64ull << 20)
#define SYMBUDGET_DEFAULT_TIME_NS (30ull * 1000000000ull)

struct symbudget {
	/* limits; 0: none */
	uint64_t max[SYMBUDGET_NR]; /* [SYMBUDGET_TIME] in ns from symbudget__start */
	/* spent */
	uint64_t used[SYMBUDGET_NR];	/* [SYMBUDGET_TIME]: ns, at the last check */
	uint64_t refused[SYMBUDGET_NR]; /* pieces of work refused */
	int64_t started_ns;		/* CLOCK_MONOTONIC */
	/* A share of a budget (symbudget__share): bounded by its own limits
	 * and what is left of @whole's, every charge and refusal counted in
	 * both; its wall time is the whole's. NULL: a whole budget. */
	struct symbudget *whole;
};

/* The share of a capture's budget the processes of one user may take
 * (symbolizer.c): the files they map, the perf maps they write. Another
 * user's processes keep the rest, whatever the first ones map first. */
#define SYMBUDGET_USER_SHARE 0.5

/* symbudget__share - make @share a part of @whole: @fraction of each of
 * its limits but the wall time (none when the whole has none). */
void symbudget__share(struct symbudget *share, struct symbudget *whole, double fraction);

/* symbudget__init - the default limits, clock not started. */
void symbudget__init(struct symbudget *b);

/* symbudget__start - the wall-time limit counts from now. */
void symbudget__start(struct symbudget *b);

/* symbudget__left - what is left of @kind (UINT64_MAX without a limit).
 * For SYMBUDGET_TIME, ns until the deadline. */
uint64_t symbudget__left(const struct symbudget *b, enum symbudget_kind kind);

/* symbudget__take - charge @amount of @kind if it fits: true. Otherwise
 * nothing is charged, the refusal is counted, false. A NULL budget
 * allows everything. */
bool symbudget__take(struct symbudget *b, enum symbudget_kind kind, uint64_t amount);

/* symbudget__charge - charge @amount of @kind that was spent anyway
 * (what a piece of work cost, known only after it). */
void symbudget__charge(struct symbudget *b, enum symbudget_kind kind, uint64_t amount);

/* symbudget__refuse - count a refusal of @kind found elsewhere. */
void symbudget__refuse(struct symbudget *b, enum symbudget_kind kind);

/* symbudget__expired - whether the wall time is spent (a refusal is
 * counted when it is). False for a NULL budget. */
bool symbudget__expired(struct symbudget *b);

/* symbudget__elf_limits - what one ELF load may read of what is left. */
void symbudget__elf_limits(const struct symbudget *b, struct elfsym_limits *out);

/* symbudget__charge_elf - charge what loading @e read and kept, and count
 * the tables it skipped for the limits. NULL @b or @e: nothing. */
void symbudget__charge_elf(struct symbudget *b, const struct elfsym *e);

/* symbudget__stop_clock - record the wall time spent so far as used. */
void symbudget__stop_clock(struct symbudget *b);

/* symbudget__hit - whether any limit refused work. */
bool symbudget__hit(const struct symbudget *b);

/* symbudget__kind_name - "bytes", "symbols", "perf_map_bytes", "time". */
const char *symbudget__kind_name(enum symbudget_kind kind);

#endif
