// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fleet_time.c - UTC times and days (fleet_time.h). */
#include "trapd/fleet/fleet_time.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS 1000000000ll

/* digits - @n decimal digits at @s into *@v. */
static const char *digits(const char *s, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++, s++) {
		if (*s < '0' || *s > '9')
			return NULL;
		*v = *v * 10 + (*s - '0');
	}
	return s;
}

/* fraction - ".123456789" at @s into ns; returns what follows. */
static const char *fraction(const char *s, int64_t *ns)
{
	int64_t scale = NS / 10;

	*ns = 0;
	if (*s != '.')
		return s;
	for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
		*ns += (*s - '0') * scale;
	return s;
}

/* clock_part - "THH:MM[:SS[.frac]]" at @s into @tm and *@frac. */
static const char *clock_part(const char *s, struct tm *tm, int64_t *frac)
{
	if (*s != 'T' && *s != ' ')
		return s;
	s = digits(s + 1, 2, &tm->tm_hour);
	if (s && *s == ':')
		s = digits(s + 1, 2, &tm->tm_min);
	else
		return NULL;
	if (s && *s == ':') {
		s = digits(s + 1, 2, &tm->tm_sec);
		if (s)
			s = fraction(s, frac);
	}
	return s;
}

int fleet_time__parse_iso(const char *s, int64_t *ns)
{
	struct tm tm = { 0 }, check;
	int64_t frac = 0;
	time_t t;

	s = digits(s, 4, &tm.tm_year);
	if (s && *s == '-')
		s = digits(s + 1, 2, &tm.tm_mon);
	else
		return -EINVAL;
	if (s && *s == '-')
		s = digits(s + 1, 2, &tm.tm_mday);
	else
		return -EINVAL;
	if (s)
		s = clock_part(s, &tm, &frac);
	if (s && *s == 'Z')
		s++;
	if (!s || *s || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || tm.tm_sec > 60 || tm.tm_year < 1970)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	check = tm;
	t = timegm(&tm);
	if (t == (time_t)-1 || tm.tm_mday != check.tm_mday) /* 2026-02-30 */
		return -EINVAL;
	if (t > (INT64_MAX - frac) / NS) /* past 2262-04-11: no int64_t of ns */
		return -EINVAL;
	*ns = (int64_t)t * NS + frac;
	return 0;
}

int fleet_time__day(int64_t ns)
{
	time_t t = (time_t)(ns / NS);
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		return 0;
	return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

int64_t fleet_time__day_start(int day)
{
	struct tm tm = { .tm_year = day / 10000 - 1900,
			 .tm_mon = day / 100 % 100 - 1,
			 .tm_mday = day % 100 };

	return (int64_t)timegm(&tm) * NS;
}

int fleet_time__next_day(int day)
{
	/* in days, not ns: the day after 2262-04-11 has no int64_t of ns */
	struct tm tm = { .tm_year = day / 10000 - 1900,
			 .tm_mon = day / 100 % 100 - 1,
			 .tm_mday = day % 100 + 1 };

	timegm(&tm);
	return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}

const char *fleet_time__format(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / NS);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
	return buf;
}
