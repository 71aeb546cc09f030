/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* fleet_merge.h - captures of a store summed into one profile per group:
 * the per-host, per-role, per-rule, per-day view of a fleet.
 *
 * A group is named by its keys' values ("host=web-1", "label:role=db,
 * day=2026-11-25"); a capture belongs to one group per combination of its
 * values (a capture two rules fired into is in both rules' groups). A
 * capture without a value for a key (no such label, no rule) is in the
 * group of "(none)".
 *
 * Captures sampled at different frequencies are summed by time: the
 * group's profile has the shortest period of its members, and each
 * member's counts are converted to that period (count x its period /
 * the group's period, profile_merge__add_by_time), so a 99 Hz capture's
 * second weighs what a 999 Hz capture's second weighs.
 */
#ifndef TRAPD_FLEET_MERGE_H
#define TRAPD_FLEET_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/fleet/fleet_capture.h"

#define FLEET_GROUP_KEYS_MAX 4
#define FLEET_GROUP_NAME_MAX 512

/* What one group may cost: its members' profiles read (decompressed
 * bytes; each member at most FLEET_PROFILE_MAX), and the strings and
 * samples its profile holds. A member that would pass a bound is left
 * out, named, and so is every member after it: a store's captures, or
 * someone who can write to it, decide how many, not how much memory and
 * time a merge takes. */
#define FLEET_GROUP_MAX_BYTES (1ull << 30)
#define FLEET_GROUP_MAX_STRINGS (1u << 20)
#define FLEET_GROUP_MAX_SAMPLES (1u << 21)

enum fleet_group_kind {
	FLEET_GROUP_HOST,
	FLEET_GROUP_RULE,
	FLEET_GROUP_LABEL,
	FLEET_GROUP_DAY,
	FLEET_GROUP_TRIGGER,
};

struct fleet_group_key {
	enum fleet_group_kind kind;
	char label[64]; /* FLEET_GROUP_LABEL: the label's key */
};

/* fleet_group_key__parse - "host", "rule", "day", "trigger" or
 * "label:KEY" into @k. Returns 0 or -EINVAL with @err saying what was
 * expected. */
int fleet_group_key__parse(const char *s, struct fleet_group_key *k, char *err, size_t errlen);

/* fleet_merge__groups - the names of the groups @c belongs to under
 * @keys[0..nkeys) (none: one group, "all"), at most @max of them, each
 * FLEET_GROUP_NAME_MAX bytes, into @names. Returns how many. */
size_t fleet_merge__groups(const struct fleet_capture *c, const struct fleet_group_key *keys,
			   size_t nkeys, char (*names)[FLEET_GROUP_NAME_MAX], size_t max);

/* fleet_merge__file_name - @group as a file name ("host-web-1_day-
 * 2026-11-25"): letters, digits, '.', '-', '_' kept, '=' as '-', ',' as
 * '_', anything else '_'. */
void fleet_merge__file_name(const char *group, char *out, size_t len);

#endif
