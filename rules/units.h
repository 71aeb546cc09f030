/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* units.h - quantities written as people write them: 500ms, 10s, 2m, 999Hz,
 * 80%, 512MiB, 5/s.
 *
 * Shared by the command line and the rules file, so both accept the same
 * spellings. Every parser takes the whole string (no trailing garbage, no
 * leading space), returns 0 or -EINVAL (malformed) / -ERANGE (too large),
 * and leaves *out untouched on error. Numbers are plain decimals ("1.5",
 * no sign or exponent), parsed exactly: no floating point is involved.
 */
#ifndef TRAPD_UNITS_H
#define TRAPD_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* units_parse_duration - "250us", "500ms", "10s", "2m", "1h", "1.5s"; a bare
 * number means seconds. Result in nanoseconds; must be > 0. */
int units_parse_duration(const char *s, uint64_t *out_ns);

/* units_parse_frequency - "999Hz", "1kHz", or a bare number of Hz.
 * Result must be in 1..@max_hz. */
int units_parse_frequency(const char *s, uint64_t max_hz, uint64_t *out_hz);

/* units_parse_percent - "80%", "12.5%", or a bare number; result in
 * hundredths of a percent (80% -> 8000) so rules compare integers. */
int units_parse_percent(const char *s, uint64_t *out_centi);

/* units_parse_size - "4096", "64KiB", "512MiB", "2GiB", "1MB" (SI), "10k".
 * Result in bytes. */
int units_parse_size(const char *s, uint64_t *out_bytes);

/* units_parse_rate - events per second: "5/s", "0.5/s", or a bare number
 * ("5"). Result in thousandths per second (2.5/s -> 2500); a rate that
 * thousandths cannot state exactly ("0.0005/s") is -EINVAL. */
int units_parse_rate(const char *s, uint64_t *out_milli);

/* units_format_duration - "1.5s", "250ms": the shortest exact spelling
 * that units_parse_duration reads back. Returns @buf. */
const char *units_format_duration(uint64_t ns, char *buf, int len);

/* UNITS_DURATION_SHORT_LEN - room for any units_format_duration_short
 * text ("5124096h"). */
#define UNITS_DURATION_SHORT_LEN 16

/* units_format_duration_short - @ns with 3 significant digits and
 * trailing zeros dropped, in the largest of ns, us, ms, s, m, h that is
 * not above it: "980ns", "12.3us", "4.56ms", "1.2s", "1.5m" (a measured
 * value as people read it; spellings units_parse_duration reads, not
 * always exactly). Writes at most @len bytes, truncating like snprintf.
 * Returns @buf. */
const char *units_format_duration_short(uint64_t ns, char *buf, size_t len);

/* units_format_size - "512MiB" when @b is a whole number of TiB, GiB, MiB
 * or KiB (the largest), else the bytes ("1000"); units_parse_size reads
 * it back exactly. Writes at most @len bytes, truncating like snprintf.
 * Returns @buf. */
const char *units_format_size(uint64_t b, char *buf, size_t len);

#endif
