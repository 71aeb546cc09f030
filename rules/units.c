/* units.c - parse durations, frequencies, percentages and sizes. */
#include "rules/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *suffix;
	double scale;
};

/* parse_scaled - a decimal number followed by one of @units (matched
 * case-insensitively when @fold) or by nothing (scale @bare). */
static int parse_scaled(const char *s, const struct unit *units, int fold,
			double bare, double *out)
{
	const struct unit *u;
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(v) || v < 0)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	/* strtod also reads hex floats; people do not write those here. */
	if (strpbrk(s, "xX"))
		return -EINVAL;
	if (*end == '\0') {
		*out = v * bare;
		return 0;
	}
	for (u = units; u->suffix; u++) {
		if (fold ? strcasecmp(end, u->suffix) == 0 : strcmp(end, u->suffix) == 0) {
			*out = v * u->scale;
			return 0;
		}
	}
	return -EINVAL;
}

static int to_u64(double v, uint64_t *out)
{
	if (v >= 18446744073709551615.0)
		return -ERANGE;
	*out = (uint64_t)llround(v);
	return 0;
}

int units_parse_duration(const char *s, uint64_t *out_ns)
{
	static const struct unit units[] = {
		{ "ns", 1 },	     { "us", 1e3 },	  { "ms", 1e6 },
		{ "s", 1e9 },	     { "sec", 1e9 },	  { "m", 60e9 },
		{ "min", 60e9 },     { "h", 3600e9 },	  { "d", 86400e9 },
		{ NULL, 0 },
	};
	uint64_t ns;
	double v;
	int err;

	err = parse_scaled(s, units, 0, 1e9, &v);
	if (err)
		return err;
	err = to_u64(v, &ns);
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
		{ "Hz", 1 }, { "kHz", 1e3 }, { NULL, 0 },
	};
	uint64_t hz;
	double v;
	int err;

	err = parse_scaled(s, units, 1, 1, &v);
	if (err)
		return err;
	if (v != floor(v))
		return -EINVAL;
	err = to_u64(v, &hz);
	if (err)
		return err;
	if (hz == 0)
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
	double v;
	int err;

	err = parse_scaled(s, units, 0, 100, &v);
	if (err)
		return err;
	err = to_u64(v, &c);
	if (err)
		return err;
	*out_centi = c;
	return 0;
}

int units_parse_size(const char *s, uint64_t *out_bytes)
{
	static const struct unit units[] = {
		{ "B", 1 },	       { "k", 1024.0 },
		{ "K", 1024.0 },       { "KiB", 1024.0 },
		{ "MiB", 1048576.0 },  { "M", 1048576.0 },
		{ "GiB", 1073741824.0 }, { "G", 1073741824.0 },
		{ "TiB", 1099511627776.0 }, { "kB", 1e3 },
		{ "KB", 1e3 },	       { "MB", 1e6 },
		{ "GB", 1e9 },	       { "TB", 1e12 },
		{ NULL, 0 },
	};
	uint64_t b;
	double v;
	int err;

	err = parse_scaled(s, units, 0, 1, &v);
	if (err)
		return err;
	if (v != floor(v))
		return -EINVAL;
	err = to_u64(v, &b);
	if (err)
		return err;
	*out_bytes = b;
	return 0;
}

const char *units_format_duration(uint64_t ns, char *buf, int len)
{
	static const struct unit units[] = {
		{ "h", 3600e9 }, { "m", 60e9 }, { "s", 1e9 },
		{ "ms", 1e6 },	 { "us", 1e3 }, { NULL, 0 },
	};
	const struct unit *u;

	for (u = units; u->suffix; u++) {
		uint64_t scale = (uint64_t)u->scale;

		if (ns >= scale && ns % (scale / 1000 ? scale / 1000 : 1) == 0) {
			if (ns % scale == 0)
				snprintf(buf, len, "%llu%s",
					 (unsigned long long)(ns / scale), u->suffix);
			else
				snprintf(buf, len, "%g%s", (double)ns / u->scale, u->suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}
