// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules_pin.c - process_user, process_exe and process_cgroup
 * (rules_pin.h): what a process found by its name must also be. A comm
 * is chosen by whoever runs the process (prctl(PR_SET_NAME) needs no
 * privilege), so on a host shared with other users a name alone lets any
 * of them fire, or hide behind, a rule. The pins are things a user
 * cannot choose: who the process runs as, the binary it runs, the cgroup
 * it is in. */
#include "rules/rules_pin.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules_keys.h"

#define UID_MAX_VALUE 4294967294ull /* (uid_t)-1 is "no uid" */

/* user_uid - @v as a uid: a number, or the name of an existing user
 * (getpwnam_r, its buffer grown up to 1 MiB). Returns 0 or -ENOENT. */
static int user_uid(const char *v, uid_t *uid)
{
	struct passwd pw, *found = NULL;
	size_t len = 4096;
	char *buf = NULL, *bigger;
	uint64_t n;
	int err;

	if (!rules_value__count(v, UID_MAX_VALUE, &n)) {
		*uid = (uid_t)n;
		return 0;
	}
	do {
		bigger = realloc(buf, len);
		if (!bigger)
			break;
		buf = bigger;
		err = getpwnam_r(v, &pw, buf, len, &found);
		len *= 2;
	} while (!found && err == ERANGE && len <= (1 << 20));
	if (found)
		*uid = pw.pw_uid;
	free(buf);
	return found ? 0 : -ENOENT;
}

/* pin_value - the checked value of pin key @k into *@to (a copy).
 * Returns false after reporting a bad one. */
static bool pin_value(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r,
		      enum rule_key k, char **to)
{
	const char *v = raw->val[k];

	if (k == RK_PROCESS_USER && (!*v || strlen(v) > 256 || user_uid(v, &r->pin.uid))) {
		rules_parser__bad(p, raw, k, "no such user; expected a user name or a uid");
		return false;
	}
	if (k == RK_PROCESS_EXE && (v[0] != '/' || strlen(v) > PATH_MAX_BYTES)) {
		rules_parser__bad(p, raw, k,
				  "expected the absolute path of the binary, as "
				  "/proc/PID/exe names it");
		return false;
	}
	if (k == RK_PROCESS_CGROUP) {
		v += strspn(v, "/"); /* /proc/PID/cgroup writes it with a leading '/' */
		if (!rules_value__cgroup(v)) {
			rules_parser__bad(p, raw, k,
					  "expected a cgroup below the root as /proc/PID/cgroup "
					  "names it, like system.slice/postgresql.service, "
					  "without '.' or '..'");
			return false;
		}
	}
	*to = strdup(v);
	if (!*to)
		rules_parser__nomem(p);
	return *to != NULL;
}

/* pin_refused - why @r takes no pins, or NULL when it does. */
static const char *pin_refused(const struct rule *r)
{
	if (r->signal == RULE_SIGNAL_LATENCY && r->scope.kind == RULE_SCOPE_PROCESS)
		return "the kernel filters a latency rule's process by its comm alone; pins "
		       "apply to process.* rules and to sample = process:NAME";
	if (r->scope.kind != RULE_SCOPE_PROCESS && r->sample.kind != RULE_SCOPE_PROCESS)
		return "it pins a process found by its name: the rule needs process = NAME "
		       "or sample = process:NAME";
	return NULL;
}

void rules_pin__check(struct rules_parser *p, const struct rules_raw_rule *raw, struct rule *r)
{
	static const enum rule_key keys[] = { RK_PROCESS_USER, RK_PROCESS_EXE, RK_PROCESS_CGROUP };
	char **fields[] = { &r->pin.user, &r->pin.exe, &r->pin.cgroup };
	const char *why = pin_refused(r);
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!raw->val[keys[i]])
			continue;
		if (why)
			rules_parser__error(p, raw->vline[keys[i]], raw->section,
					    rules_rule_keys[keys[i]].name, "not allowed here; %s",
					    why);
		else
			pin_value(p, raw, r, keys[i], fields[i]);
	}
}
