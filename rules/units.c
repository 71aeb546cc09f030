// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* units.c - parse durations, frequencies, percentages, sizes and rates. */
#include "rules/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A unit suffix and how many base units (ns, Hz, hundredths of a percent,
 * bytes) one of it is. */
struct unit {
	const char *suffix;
	uint64_t scale;
};

#define FRAC_MAX_DIGITS 9

/* A decimal as written: whole + frac / 10^digits, parsed without floating
 * point so "141875.2m" is exactly 8512512 s. */
struct decimal {
	uint64_t whole;
	uint64_t frac;
	int digits;
};

/* parse_decimal - digits, optionally a point and more digits (at least one
 * digit in all). No sign, exponent or hex: people do not write those in a
 * duration. Fraction digits past the ninth must be digits but are
 * dropped. *end points after the number. */
static int parse_decimal(const char *s, struct decimal *d, const char **end)
{
	bool any = false;

	memset(d, 0, sizeof(*d));
	for (; isdigit((unsigned char)*s); s++, any = true)
		if (__builtin_mul_overflow(d->whole, 10, &d->whole) ||
		    __builtin_add_overflow(d->whole, (uint64_t)(*s - '0'), &d->whole))
			return -ERANGE;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, any = true) {
			if (d->digits == FRAC_MAX_DIGITS)
				continue;
			d->frac = d->frac * 10 + (uint64_t)(*s - '0');
			d->digits++;
		}
	}
	*end = s;
	return any ? 0 : -EINVAL;
}

/* scale_decimal - @d * @scale, rounded to the nearest integer; *exact
 * says whether nothing was rounded away. */
static int scale_decimal(const struct decimal *d, uint64_t scale, uint64_t *out, bool *exact)
{
	unsigned __int128 pow10 = 1, frac;
	uint64_t whole;
	int i;

	for (i = 0; i < d->digits; i++)
		pow10 *= 10;
	frac = (unsigned __int128)d->frac * scale;
	*exact = frac % pow10 == 0;
	frac = (frac + pow10 / 2) / pow10;
	if (__builtin_mul_overflow(d->whole, scale, &whole) || frac > UINT64_MAX ||
	    __builtin_add_overflow(whole, (uint64_t)frac, out))
		return -ERANGE;
	return 0;
}

/* parse_scaled - a decimal followed by one of @units (matched
 * case-insensitively when @fold) or by nothing (scale @bare). */
static int parse_scaled(const char *s, const struct unit *units, int fold, uint64_t bare,
			uint64_t *out, bool *exact)
{
	const struct unit *u;
	struct decimal d;
	const char *end;
	int err;

	if (!s)
		return -EINVAL;
	err = parse_decimal(s, &d, &end);
	if (err)
		return err;
	if (*end == '\0')
		return scale_decimal(&d, bare, out, exact);
	for (u = units; u->suffix; u++)
		if (fold ? strcasecmp(end, u->suffix) == 0 : strcmp(end, u->suffix) == 0)
			return scale_decimal(&d, u->scale, out, exact);
	return -EINVAL;
}

int units_parse_duration(const char *s, uint64_t *out_ns)
{
	static const struct unit units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", 1000000000 },
		{ "sec", 1000000000 },
		{ "m", 60000000000 },
		{ "min", 60000000000 },
		{ "h", 3600000000000 },
		{ "d", 86400000000000 },
		{ NULL, 0 },
	};
	uint64_t ns;
	bool exact;
	int err;

	err = parse_scaled(s, units, 0, 1000000000, &ns, &exact);
	if (err)
		return err;
	if (ns == 0)
		return -EINVAL;
	*out_ns = ns;
	return 0;
}

int units_parse_frequency(const char *s, uint64_t max_hz, uint64_t *out_hz)
{
	static const struct unit units[] = {
		{ "Hz", 1 },
		{ "kHz", 1000 },
		{ NULL, 0 },
	};
	uint64_t hz;
	bool exact;
	int err;

	err = parse_scaled(s, units, 1, 1, &hz, &exact);
	if (err)
		return err;
	if (!exact || hz == 0)
		return -EINVAL;
	if (hz > max_hz)
		return -ERANGE;
	*out_hz = hz;
	return 0;
}

int units_parse_percent(const char *s, uint64_t *out_centi)
{
	static const struct unit units[] = { { "%", 100 }, { NULL, 0 } };
	uint64_t c;
	bool exact;
	int err;

	err = parse_scaled(s, units, 0, 100, &c, &exact);
	if (err)
		return err;
	*out_centi = c;
	return 0;
}

int units_parse_size(const char *s, uint64_t *out_bytes)
{
	static const struct unit units[] = {
		{ "B", 1 },
		{ "k", 1ull << 10 },
		{ "K", 1ull << 10 },
		{ "KiB", 1ull << 10 },
		{ "MiB", 1ull << 20 },
		{ "M", 1ull << 20 },
		{ "GiB", 1ull << 30 },
		{ "G", 1ull << 30 },
		{ "TiB", 1ull << 40 },
		{ "kB", 1000 },
		{ "KB", 1000 },
		{ "MB", 1000000 },
		{ "GB", 1000000000 },
		{ "TB", 1000000000000 },
		{ NULL, 0 },
	};
	uint64_t b;
	bool exact;
	int err;

	err = parse_scaled(s, units, 0, 1, &b, &exact);
	if (err)
		return err;
	if (!exact)
		return -EINVAL;
	*out_bytes = b;
	return 0;
}

int units_parse_rate(const char *s, uint64_t *out_milli)
{
	static const struct unit units[] = { { "/s", 1000 }, { NULL, 0 } };
	uint64_t m;
	bool exact;
	int err;

	err = parse_scaled(s, units, 0, 1000, &m, &exact);
	if (err)
		return err;
	if (!exact)
		return -EINVAL;
	*out_milli = m;
	return 0;
}

/* The spellings both formatters use, largest first; units_parse_duration
 * reads every one of them. */
static const struct {
	const char *suffix;
	uint64_t scale;
} duration_units[] = {
	{ "h", 3600000000000ull }, { "m", 60000000000ull }, { "s", 1000000000ull },
	{ "ms", 1000000ull },	   { "us", 1000ull },	    { "ns", 1 },
};

#define N_DURATION_UNITS (sizeof(duration_units) / sizeof(duration_units[0]))

const char *units_format_duration(uint64_t ns, char *buf, int len)
{
	size_t i;

	/* The largest unit that states @ns exactly with at most three
	 * decimals, trailing zeros dropped: 1500ms -> "1.5s". */
	for (i = 0; duration_units[i].scale >= 1000; i++) {
		uint64_t scale = duration_units[i].scale, milli = scale / 1000;
		uint64_t whole = ns / scale, frac = ns % scale / milli;
		int digits = 3;

		if (ns < scale || ns % milli)
			continue;
		if (!frac) {
			snprintf(buf, len, "%llu%s", (unsigned long long)whole,
				 duration_units[i].suffix);
			return buf;
		}
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		snprintf(buf, len, "%llu.%0*llu%s", (unsigned long long)whole, digits,
			 (unsigned long long)frac, duration_units[i].suffix);
		return buf;
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

/* scaled_3sig - @ns in unit @u rounded to 3 significant digits (at least
 * the whole part), as *value / 10^*decimals. */
static void scaled_3sig(uint64_t ns, size_t u, uint64_t *value, int *decimals)
{
	uint64_t scale = duration_units[u].scale, whole = ns / scale, pow10 = 1;
	int d = whole >= 100 || scale == 1 ? 0 : whole >= 10 ? 1 : 2;
	int i;

	for (i = 0; i < d; i++)
		pow10 *= 10;
	*value = (uint64_t)(((unsigned __int128)ns * pow10 + scale / 2) / scale);
	*decimals = d;
}

const char *units_format_duration_short(uint64_t ns, char *buf, size_t len)
{
	uint64_t value, pow10;
	size_t u = 0;
	int d, i;

	while (u < N_DURATION_UNITS - 1 && ns < duration_units[u].scale)
		u++;
	scaled_3sig(ns, u, &value, &d);
	for (i = 0, pow10 = 1; i < d; i++)
		pow10 *= 10;
	/* Rounding up may reach the next unit: 999.6us is "1ms". */
	if (u > 0 && (unsigned __int128)value * duration_units[u].scale >=
			     (unsigned __int128)duration_units[u - 1].scale * pow10)
		scaled_3sig(ns, --u, &value, &d);
	while (d > 0 && value % 10 == 0) {
		value /= 10;
		d--;
	}
	for (i = 0, pow10 = 1; i < d; i++)
		pow10 *= 10;
	if (d)
		snprintf(buf, len, "%llu.%0*llu%s", (unsigned long long)(value / pow10), d,
			 (unsigned long long)(value % pow10), duration_units[u].suffix);
	else
		snprintf(buf, len, "%llu%s", (unsigned long long)value, duration_units[u].suffix);
	return buf;
}

const char *units_format_size(uint64_t b, char *buf, size_t len)
{
	static const char *const suffix[] = { "TiB", "GiB", "MiB", "KiB" };
	int i;

	for (i = 0; i < 4 && b; i++) {
		unsigned shift = (unsigned)(40 - 10 * i);

		if (b % (1ull << shift) == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(b >> shift), suffix[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)b);
	return buf;
}
