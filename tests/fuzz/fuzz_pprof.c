// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_pprof.c - libFuzzer harness for the pprof decoder.
 *
 * Any input must decode or fail with -EBADMSG (and a "byte N: ..."
 * message), -E2BIG or -ENOMEM; never crash, leak or read out of bounds.
 * What decodes must survive a round trip: encoding it and decoding the
 * result gives the same profile (tests/profile_diff.h). Each phase of it
 * (profile_phase.h: what `trapd report --phase` reads) is a consistent
 * profile too.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/profile_diff.h"
#include "trapd/profile/pprof.h"
#include "trapd/profile/profile.h"
#include "trapd/profile/profile_phase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int ret, const char *err)
{
	if (ret != -EBADMSG && ret != -E2BIG && ret != -ENOMEM) {
		fprintf(stderr, "unexpected error %d: %s\n", ret, err);
		abort();
	}
	if (ret == -EBADMSG && strncmp(err, "byte ", 5) != 0) {
		fprintf(stderr, "message without an offset: \"%s\"\n", err);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL, *q = NULL;
	char err[512], why[128];
	void *buf = NULL;
	size_t len;
	int ret;

	ret = pprof_decode(data, size, &p, err, sizeof(err));
	if (ret) {
		check_error(ret, err);
		if (p)
			abort();
		return 0;
	}
	if (profile_invalid(p, why, sizeof(why))) {
		fprintf(stderr, "decoded profile is inconsistent: %s\n", why);
		abort();
	}
	ret = pprof_encode(p, &buf, &len);
	if (ret) {
		fprintf(stderr, "re-encoding failed: %d\n", ret);
		abort();
	}
	ret = pprof_decode(buf, len, &q, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "decoding our own encoding failed: %s\n", err);
		abort();
	}
	if (profile_diff(p, q, why, sizeof(why))) {
		fprintf(stderr, "round trip changed the profile: %s\n", why);
		abort();
	}
	profile_phase__select(p, PROFILE_PHASE_ALL);
	profile_phase__select(q, PROFILE_PHASE_BEFORE);
	if (profile_invalid(p, why, sizeof(why)) || profile_invalid(q, why, sizeof(why))) {
		fprintf(stderr, "a phase of the profile is inconsistent: %s\n", why);
		abort();
	}
	free(buf);
	profile__free(p);
	profile__free(q);
	return 0;
}
