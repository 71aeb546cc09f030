/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fleet_capture.h - one capture in a store, as a listing knows it: its
 * key (the uploader's layout, upload/object.h: HOST/YYYY/MM/DD/SHA256
 * with .pb.zst for the profile and .json for its sidecar), and what its
 * metadata or its sidecar say of it.
 *
 * Keys, metadata and sidecars come from a store anyone with write access
 * to it can fill: every field is bounded, a key that is not the layout's
 * is not a capture, and a sidecar that does not say what a capture's
 * sidecar says is a problem reported by the listing, never a crash.
 */
#ifndef TRAPD_FLEET_CAPTURE_H
#define TRAPD_FLEET_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upload/backend.h"
#include "upload/listing.h"
#include "upload/object.h"

#define FLEET_LABELS_MAX 8
#define FLEET_HOST_MAX 256

enum fleet_part {
	FLEET_PROFILE, /* SHA.pb.zst */
	FLEET_SIDECAR, /* SHA.json */
};

struct fleet_label {
	char key[64];
	char value[128];
};

struct fleet_capture {
	char key[UPLOAD_KEY_MAX]; /* "HOST/YYYY/MM/DD/SHA", no suffix */
	char host[FLEET_HOST_MAX];
	char sha256[65];
	int day; /* YYYYMMDD, from the key */
	/* from the listing */
	bool has_profile, has_sidecar;
	uint64_t profile_size, sidecar_size;
	char profile_etag[UPLOAD_ETAG_MAX], sidecar_etag[UPLOAD_ETAG_MAX];
	/* from the listing's metadata or the sidecar: valid when @described */
	bool described;
	int64_t start_ns; /* window start, ns since the epoch */
	uint64_t duration_ns;
	uint64_t samples;
	uint64_t lost;
	bool lost_known;
	int64_t period_ns; /* 0: unknown */
	char trigger[16];  /* "rule", "manual" */
	char rules[320];   /* "a,b": the rules that fired */
	char capture_id[40];
	struct fleet_label labels[FLEET_LABELS_MAX];
	size_t nlabels;
};

/* fleet_key__parse - @key ("HOST/YYYY/MM/DD/SHA.pb.zst" or ".json") into
 * @c's key, host, day and sha256 (the rest untouched) and *@part. Returns
 * 0, or -EINVAL when @key is not of the layout (a date that is not one, a
 * digest that is not 64 lower-case hex digits, another suffix). */
int fleet_key__parse(const char *key, struct fleet_capture *c, enum fleet_part *part);

/* fleet_capture__from_meta - describe @c from the @n metadata items a
 * listing gave (Azure's include=metadata): trapd_start and the rest, and
 * label_* as labels. Returns true when they describe it (trapd_start was
 * there and valid). */
bool fleet_capture__from_meta(struct fleet_capture *c, const struct upload_meta *meta, size_t n);

/* fleet_capture__from_sidecar - describe @c from its sidecar's @len
 * bytes at @text. Returns 0, or -EBADMSG with @err saying what is wrong
 * (not JSON, not a capture's sidecar: no trapd-capture/N format or no
 * window start). Its host and digest are the key's, not checked against
 * the sidecar: the key is what the uploader wrote. */
int fleet_capture__from_sidecar(struct fleet_capture *c, const char *text, size_t len, char *err,
				size_t errlen);

/* fleet_capture__label - the value of label @key of @c, or NULL. */
const char *fleet_capture__label(const struct fleet_capture *c, const char *key);

/* fleet_capture__has_rule - whether @rule is one of @c's rules. */
bool fleet_capture__has_rule(const struct fleet_capture *c, const char *rule);

#endif
