// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fleet_capture.c - a capture in a store: its key, its metadata, its
 * sidecar (fleet_capture.h). */
#include "trapd/fleet/fleet_capture.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/fleet/fleet_time.h"
#include "trapd/util/json_read.h"

#define SHA_LEN 64

/* copy_text - @from cut to fit @len bytes with its NUL. */
static void copy_text(char *to, size_t len, const char *from)
{
	size_t n = strnlen(from, len - 1);

	memcpy(to, from, n);
	to[n] = '\0';
}

static bool lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return false;
	return true;
}

/* date_parts - "YYYY/MM/DD/" at @s as a YYYYMMDD day that exists, or 0. */
static int date_parts(const char *s)
{
	char iso[11];
	int64_t ns;
	int i, day = 0;

	for (i = 0; i < 11; i++) {
		if (i == 4 || i == 7 || i == 10) {
			if (s[i] != '/')
				return 0;
		} else if (!isdigit((unsigned char)s[i])) {
			return 0;
		} else {
			day = day * 10 + (s[i] - '0');
		}
	}
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2s", s, s + 5, s + 8);
	return fleet_time__parse_iso(iso, &ns) ? 0 : day;
}

int fleet_key__parse(const char *key, struct fleet_capture *c, enum fleet_part *part)
{
	size_t len = strlen(key), host_len = strcspn(key, "/"), base;
	const char *sha;

	if (!host_len || host_len >= FLEET_HOST_MAX || key[host_len] != '/')
		return -EINVAL;
	sha = key + host_len + 12;
	if (len < host_len + 12 + SHA_LEN || !(c->day = date_parts(key + host_len + 1)) ||
	    !lower_hex(sha, SHA_LEN))
		return -EINVAL;
	if (!strcmp(sha + SHA_LEN, ".pb.zst"))
		*part = FLEET_PROFILE;
	else if (!strcmp(sha + SHA_LEN, ".json"))
		*part = FLEET_SIDECAR;
	else
		return -EINVAL;
	base = (size_t)(sha + SHA_LEN - key);
	snprintf(c->key, sizeof(c->key), "%.*s", (int)base, key);
	snprintf(c->host, sizeof(c->host), "%.*s", (int)host_len, key);
	snprintf(c->sha256, sizeof(c->sha256), "%.*s", SHA_LEN, sha);
	return 0;
}

/* --- metadata ------------------------------------------------------------- */

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = (char)tolower((unsigned char)ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* unpercent - a metadata value (upload_meta__add wrote other bytes and
 * '%' as %XX) back to its text, into @out. */
static void unpercent(const char *in, char *out, size_t len)
{
	size_t n = 0;

	while (*in && n + 1 < len) {
		if (in[0] == '%' && hexval(in[1]) >= 0 && hexval(in[2]) >= 0) {
			out[n++] = (char)(hexval(in[1]) * 16 + hexval(in[2]));
			in += 3;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && end != s && !*end && isdigit((unsigned char)*s);
}

static void add_label(struct fleet_capture *c, const char *key, const char *value)
{
	struct fleet_label *l;

	if (c->nlabels == FLEET_LABELS_MAX || !*key)
		return;
	l = &c->labels[c->nlabels++];
	copy_text(l->key, sizeof(l->key), key);
	copy_text(l->value, sizeof(l->value), value);
}

/* meta_item - one metadata item into @c; returns whether it was the start. */
static bool meta_item(struct fleet_capture *c, const char *name, const char *value)
{
	uint64_t v;
	int64_t ns;

	if (!strcmp(name, "trapd_start") && !fleet_time__parse_iso(value, &ns)) {
		c->start_ns = ns;
		return true;
	}
	if (!strcmp(name, "trapd_duration_ns") && parse_u64(value, &v))
		c->duration_ns = v;
	else if (!strcmp(name, "trapd_samples") && parse_u64(value, &v))
		c->samples = v;
	else if (!strcmp(name, "trapd_lost") && parse_u64(value, &v))
		c->lost = v, c->lost_known = true;
	else if (!strcmp(name, "trapd_period_ns") && parse_u64(value, &v) && v <= INT64_MAX)
		c->period_ns = (int64_t)v;
	else if (!strcmp(name, "trapd_trigger"))
		copy_text(c->trigger, sizeof(c->trigger), value);
	else if (!strcmp(name, "trapd_rules"))
		copy_text(c->rules, sizeof(c->rules), value);
	else if (!strcmp(name, "trapd_capture_id"))
		copy_text(c->capture_id, sizeof(c->capture_id), value);
	else if (!strncmp(name, "label_", 6))
		add_label(c, name + 6, value);
	return false;
}

bool fleet_capture__from_meta(struct fleet_capture *c, const struct upload_meta *meta, size_t n)
{
	char value[sizeof(meta->value)];
	bool started = false;
	size_t i;

	for (i = 0; i < n; i++) {
		unpercent(meta[i].value, value, sizeof(value));
		started |= meta_item(c, meta[i].name, value);
	}
	c->described = started;
	return started;
}

/* --- sidecar -------------------------------------------------------------- */

static uint64_t get_u64(const struct json_value *v)
{
	uint64_t out = 0;

	json_number_u64(v, &out);
	return out;
}

static void sidecar_rules(struct fleet_capture *c, const struct json_value *triggers)
{
	size_t i, used = 0;
	const char *rule;

	c->rules[0] = '\0';
	for (i = 0; i < json_len(triggers) && used < sizeof(c->rules); i++) {
		rule = json_str(json_get(json_index(triggers, i), "rule"));
		if (rule && !fleet_capture__has_rule(c, rule))
			used += (size_t)snprintf(c->rules + used, sizeof(c->rules) - used, "%s%s",
						 used ? "," : "", rule);
	}
}

static void sidecar_losses(struct fleet_capture *c, const struct json_value *losses)
{
	uint64_t v;
	size_t i;

	c->lost = 0;
	c->lost_known = json_type(losses) == JSON_OBJECT;
	for (i = 0; i < json_len(losses); i++)
		if (!json_number_u64(json_index(losses, i), &v) && v <= UINT64_MAX - c->lost)
			c->lost += v;
}

static void sidecar_labels(struct fleet_capture *c, const struct json_value *labels)
{
	const char *key, *value;
	size_t i;

	c->nlabels = 0;
	for (i = 0; i < json_len(labels); i++) {
		key = json_member_key(labels, i);
		value = json_str(json_index(labels, i));
		if (key && value)
			add_label(c, key, value);
	}
}

int fleet_capture__from_sidecar(struct fleet_capture *c, const char *text, size_t len, char *err,
				size_t errlen)
{
	struct json_value *root = NULL;
	const char *format, *s;
	int64_t start = 0;
	char jerr[160];

	if (json_parse(text, len, &root, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "not JSON: %s", jerr);
		return -EBADMSG;
	}
	format = json_str(json_get(root, "format"));
	if (json_type(root) != JSON_OBJECT || !format || strncmp(format, "trapd-capture/", 14) ||
	    json_number_i64(json_path(root, "window.start_ns"), &start) || start <= 0) {
		snprintf(err, errlen,
			 "not a capture's sidecar (no format trapd-capture/N or no "
			 "window.start_ns)");
		json_free(root);
		return -EBADMSG;
	}
	c->start_ns = start;
	c->duration_ns = get_u64(json_path(root, "window.duration_ns"));
	c->samples = get_u64(json_path(root, "samples.stored"));
	c->period_ns = (int64_t)get_u64(json_get(root, "period_ns"));
	if (c->period_ns < 0)
		c->period_ns = 0; /* unknown: more than an int64_t of ns is no period */
	s = json_str(json_get(root, "trigger"));
	copy_text(c->trigger, sizeof(c->trigger), s ? s : "");
	s = json_str(json_get(root, "capture_id"));
	copy_text(c->capture_id, sizeof(c->capture_id), s ? s : "");
	sidecar_rules(c, json_get(root, "triggers"));
	sidecar_losses(c, json_get(root, "losses"));
	sidecar_labels(c, json_get(root, "labels"));
	c->described = true;
	json_free(root);
	return 0;
}

const char *fleet_capture__label(const struct fleet_capture *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nlabels; i++)
		if (!strcmp(c->labels[i].key, key))
			return c->labels[i].value;
	return NULL;
}

bool fleet_capture__has_rule(const struct fleet_capture *c, const char *rule)
{
	size_t n = strlen(rule);
	const char *p = c->rules;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, rule, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}
