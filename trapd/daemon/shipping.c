// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* shipping.c - the uploader, configured and heard (shipping.h). */
#include "trapd/daemon/shipping.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "rules/units.h"
#include "trapd/util/json_read.h"
#include "trapd/util/log.h"
#include "trapd/util/store_config.h"
#include "upload/object.h"
#include "upload/spool.h"

#define SIDECAR_MAX_BYTES (4u << 20)

/* --- metadata from the sidecar --------------------------------------------- */

static void add(struct upload_meta *meta, size_t max, size_t *n, const char *name,
		const struct json_value *v)
{
	const char *text = json_type(v) == JSON_STRING	 ? json_str(v)
			   : json_type(v) == JSON_NUMBER ? json_number_text(v)
							 : NULL;

	if (text && *text)
		upload_meta__add(meta, n, max, name, text);
}

/* add_rules - "rule1,rule2": the rules that fired into the capture. */
static void add_rules(struct upload_meta *meta, size_t max, size_t *n,
		      const struct json_value *triggers)
{
	char list[320] = "";
	size_t i, used = 0;

	for (i = 0; i < json_len(triggers) && used < sizeof(list); i++) {
		const char *rule = json_str(json_get(json_index(triggers, i), "rule"));

		if (rule)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? "," : "", rule);
	}
	if (*list)
		upload_meta__add(meta, n, max, "trapd_rules", list);
}

static void add_labels(struct upload_meta *meta, size_t max, size_t *n,
		       const struct json_value *labels)
{
	char name[64], raw[80];
	size_t i;

	for (i = 0; i < json_len(labels); i++) {
		const char *key = json_member_key(labels, i);

		snprintf(raw, sizeof(raw), "label_%s", key ? key : "");
		if (key && !upload_meta__name(raw, name, sizeof(name)))
			add(meta, max, n, name, json_index(labels, i));
	}
}

/* add_lost - "trapd_lost": the samples the capture lost, all causes
 * summed, so a listing shows it without the sidecar. */
static void add_lost(struct upload_meta *meta, size_t max, size_t *n,
		     const struct json_value *losses)
{
	uint64_t sum = 0, v;
	char text[24];
	size_t i;

	if (json_type(losses) != JSON_OBJECT)
		return;
	for (i = 0; i < json_len(losses); i++)
		if (!json_number_u64(json_index(losses, i), &v) && v <= UINT64_MAX - sum)
			sum += v;
	snprintf(text, sizeof(text), "%llu", (unsigned long long)sum);
	upload_meta__add(meta, n, max, "trapd_lost", text);
}

int shipping__read_meta(const char *sidecar_path, struct upload_meta *meta, size_t max, size_t *n,
			char *err, size_t errlen)
{
	struct json_value *root = NULL;
	int e;

	*n = 0;
	e = json_read_file(sidecar_path, SIDECAR_MAX_BYTES, &root, err, errlen);
	if (e)
		return e;
	if (json_type(root) != JSON_OBJECT) {
		snprintf(err, errlen, "%s: not a capture sidecar (no JSON object)", sidecar_path);
		json_free(root);
		return -EINVAL;
	}
	add(meta, max, n, "trapd_capture_id", json_get(root, "capture_id"));
	add(meta, max, n, "trapd_host", json_get(root, "host"));
	add(meta, max, n, "trapd_trigger", json_get(root, "trigger"));
	add_rules(meta, max, n, json_get(root, "triggers"));
	add(meta, max, n, "trapd_start", json_path(root, "window.start"));
	add(meta, max, n, "trapd_duration_ns", json_path(root, "window.duration_ns"));
	add(meta, max, n, "trapd_samples", json_path(root, "samples.stored"));
	add_lost(meta, max, n, json_get(root, "losses"));
	add(meta, max, n, "trapd_period_ns", json_get(root, "period_ns"));
	add(meta, max, n, "trapd_target", json_path(root, "target.kind"));
	add(meta, max, n, "trapd_version", json_get(root, "trapd_version"));
	add(meta, max, n, "trapd_kernel", json_get(root, "kernel"));
	add_labels(meta, max, n, json_get(root, "labels"));
	json_free(root);
	return 0;
}

/* --- the uploader's reports -------------------------------------------------- */

static void on_event(const struct uploader_event *ev, void *ctx)
{
	char d[32];

	switch (ev->kind) {
	case UPLOADER_SENT:
		log_info("uploaded %s to %s (%llu bytes)", ev->name, ev->url,
			 (unsigned long long)ev->bytes);
		break;
	case UPLOADER_RETRY:
		log_warn("upload of %s failed (%u in a row), retrying in %s: %s", ev->name,
			 ev->failures, units_format_duration(ev->delay_ns, d, sizeof(d)),
			 ev->message);
		break;
	case UPLOADER_FAILED:
		log_error("upload of %s refused, not retrying until `trapd upload --failed`: %s",
			  ev->name, ev->message);
		break;
	default:
		log_warn("upload: %s", ev->message);
	}
}

bool shipping__spool_trusted(const struct rules *r, char *err, size_t errlen)
{
	int fd = spool_dir_open(r->global.spool_dir, false, err, errlen);

	if (fd >= 0)
		close(fd);
	return fd >= 0 || fd == -ENOENT;
}

/* recover - tidy the spool after an unclean stop. Returns 0, or -EPERM
 * (@err filled) for a spool trapd must not trust: nothing is sent from
 * it. Other failures are logged and let the uploader try. */
static int recover(const char *dir, char *err, size_t errlen)
{
	struct spool_recovery rec;
	int e;

	e = spool_recover(dir, &rec, err, errlen);
	if (e == -EPERM)
		return e;
	if (e) {
		log_warn("%s", err);
		return 0;
	}
	if (rec.temporaries || rec.leftovers || rec.sidecars)
		log_warn("spool %s after an unclean stop: removed %llu half-written files and "
			 "%llu leftovers of sent captures; %llu captures without a sidecar got a "
			 "minimal one",
			 dir, (unsigned long long)rec.temporaries,
			 (unsigned long long)rec.leftovers, (unsigned long long)rec.sidecars);
	return 0;
}

int shipping__start(const struct rules *r, bool recover_spool, struct uploader **out, char *err,
		    size_t errlen)
{
	struct uploader_options o = { 0 };
	static char host[256];

	*out = NULL;
	if (recover_spool && recover(r->global.spool_dir, err, errlen))
		return -EPERM;
	if (r->upload.scheme == RULES_UPLOAD_NONE)
		return 0;
	if (r->upload.allow_insecure_credentials && rules_upload__insecure(&r->upload))
		log_warn("[upload] allow_insecure_credentials = yes: credentials go over plain "
			 "http:// to %s; anyone on the path can read and reuse them",
			 r->upload.scheme == RULES_UPLOAD_HTTP ? r->upload.url
							       : r->upload.endpoint);
	if (!r->upload.tls_verify && r->upload.scheme != RULES_UPLOAD_FILE)
		log_warn("[upload] tls_verify = false: the server's certificate is not checked; "
			 "anyone on the path can read and change captures");
	if (!host[0] && gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "unknown");
	store_config__from_rules(r, &o.backend);
	o.spool_dir = r->global.spool_dir;
	o.host = host;
	o.retry_min_ns = r->upload.retry_min_ns;
	o.retry_max_ns = r->upload.retry_max_ns;
	o.read_meta = shipping__read_meta;
	o.on_event = on_event;
	return uploader__start(&o, out, err, errlen);
}
