/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fleet_time.h - times as captures in a store carry them and as users
 * write them: ISO 8601 in UTC ("2026-11-25", "2026-11-25T10:30",
 * "2026-11-25T10:30:00.123Z") and days as the store's keys name them
 * (YYYYMMDD).
 */
#ifndef TRAPD_FLEET_TIME_H
#define TRAPD_FLEET_TIME_H

#include <stddef.h>
#include <stdint.h>

/* fleet_time__parse_iso - @s (a date, or a date and a time with optional
 * seconds, fraction and "Z"; a space may stand for the 'T') in UTC into
 * ns since the epoch. Returns 0 or -EINVAL. */
int fleet_time__parse_iso(const char *s, int64_t *ns);

/* fleet_time__day - the day (YYYYMMDD) of @ns. */
int fleet_time__day(int64_t ns);

/* fleet_time__day_start - the first ns of day @day (YYYYMMDD). */
int64_t fleet_time__day_start(int day);

/* fleet_time__next_day - the day after @day (YYYYMMDD). */
int fleet_time__next_day(int day);

/* fleet_time__format - @ns as "2026-11-25T10:30:00Z" into @buf. Returns
 * @buf. */
const char *fleet_time__format(int64_t ns, char *buf, size_t len);

#endif
