// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* symbudget.c - a capture's symbolization budget (symbudget.h). */
#include "trapd/symbolize/symbudget.h"

#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

void symbudget__init(struct symbudget *b)
{
	memset(b, 0, sizeof(*b));
	b->max[SYMBUDGET_BYTES] = SYMBUDGET_DEFAULT_BYTES;
	b->max[SYMBUDGET_SYMBOLS] = SYMBUDGET_DEFAULT_SYMBOLS;
	b->max[SYMBUDGET_PERFMAP_BYTES] = SYMBUDGET_DEFAULT_PERFMAP_BYTES;
	b->max[SYMBUDGET_TIME] = SYMBUDGET_DEFAULT_TIME_NS;
}

void symbudget__start(struct symbudget *b)
{
	b->started_ns = now_ns();
	b->used[SYMBUDGET_TIME] = 0;
}

/* spent_ns - wall time since the start, recorded as used. */
static uint64_t spent_ns(struct symbudget *b)
{
	int64_t d = b->started_ns ? now_ns() - b->started_ns : 0;

	b->used[SYMBUDGET_TIME] = d > 0 ? (uint64_t)d : 0;
	return b->used[SYMBUDGET_TIME];
}

void symbudget__share(struct symbudget *share, struct symbudget *whole, double fraction)
{
	int k;

	memset(share, 0, sizeof(*share));
	share->whole = whole;
	for (k = 0; k < SYMBUDGET_NR; k++) {
		if (k == SYMBUDGET_TIME || !whole->max[k])
			continue;
		share->max[k] = (uint64_t)((double)whole->max[k] * fraction);
		if (!share->max[k])
			share->max[k] = 1; /* 0 would mean no limit */
	}
}

/* own_left - what is left of @b's own limit of @kind. */
static uint64_t own_left(const struct symbudget *b, enum symbudget_kind kind)
{
	uint64_t used;

	if (!b->max[kind])
		return UINT64_MAX;
	used = b->used[kind];
	if (kind == SYMBUDGET_TIME && b->started_ns) {
		int64_t d = now_ns() - b->started_ns;

		used = d > 0 ? (uint64_t)d : 0;
	}
	return used >= b->max[kind] ? 0 : b->max[kind] - used;
}

uint64_t symbudget__left(const struct symbudget *b, enum symbudget_kind kind)
{
	uint64_t left = UINT64_MAX, l;

	for (; b; b = b->whole) {
		l = own_left(b, kind);
		if (l < left)
			left = l;
	}
	return left;
}

bool symbudget__take(struct symbudget *b, enum symbudget_kind kind, uint64_t amount)
{
	if (!b)
		return true;
	if (amount > symbudget__left(b, kind)) {
		symbudget__refuse(b, kind);
		return false;
	}
	symbudget__charge(b, kind, amount);
	return true;
}

void symbudget__charge(struct symbudget *b, enum symbudget_kind kind, uint64_t amount)
{
	for (; b && kind != SYMBUDGET_TIME; b = b->whole)
		b->used[kind] += amount;
}

void symbudget__refuse(struct symbudget *b, enum symbudget_kind kind)
{
	for (; b; b = b->whole)
		b->refused[kind]++;
}

bool symbudget__expired(struct symbudget *b)
{
	while (b && b->whole)
		b = b->whole; /* a share's clock is the whole's */
	if (!b || !b->max[SYMBUDGET_TIME] || !b->started_ns)
		return false;
	if (spent_ns(b) < b->max[SYMBUDGET_TIME])
		return false;
	b->refused[SYMBUDGET_TIME]++;
	return true;
}

void symbudget__elf_limits(const struct symbudget *b, struct elfsym_limits *out)
{
	out->table_bytes = symbudget__left(b, SYMBUDGET_BYTES);
	out->table_entries = symbudget__left(b, SYMBUDGET_SYMBOLS);
}

void symbudget__charge_elf(struct symbudget *b, const struct elfsym *e)
{
	unsigned over;

	if (!b || !e)
		return;
	symbudget__charge(b, SYMBUDGET_BYTES, elfsym__table_bytes(e));
	symbudget__charge(b, SYMBUDGET_SYMBOLS, elfsym__count(e));
	over = elfsym__over_limits(e);
	if (over & ELFSYM_OVER_BYTES)
		symbudget__refuse(b, SYMBUDGET_BYTES);
	if (over & ELFSYM_OVER_ENTRIES)
		symbudget__refuse(b, SYMBUDGET_SYMBOLS);
}

void symbudget__stop_clock(struct symbudget *b)
{
	if (b)
		spent_ns(b);
}

bool symbudget__hit(const struct symbudget *b)
{
	int i;

	for (i = 0; b && i < SYMBUDGET_NR; i++)
		if (b->refused[i])
			return true;
	return false;
}

const char *symbudget__kind_name(enum symbudget_kind kind)
{
	static const char *const names[SYMBUDGET_NR] = {
		[SYMBUDGET_BYTES] = "bytes",
		[SYMBUDGET_SYMBOLS] = "symbols",
		[SYMBUDGET_PERFMAP_BYTES] = "perf_map_bytes",
		[SYMBUDGET_TIME] = "time",
	};

	return kind < SYMBUDGET_NR ? names[kind] : "?";
}
