// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_capture.c - libFuzzer harness for reading capture files: bytes go
 * through profile_file__decode (zstd, gzip or plain detection,
 * decompression with a cap, pprof decoding), the path profile_file__read
 * takes once a file is in memory.
 *
 * The cap is 16 MiB rather than PROFILE_FILE_MAX_BYTES so bombs are
 * caught quickly and within libFuzzer's memory limit; the code is the
 * same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/profile_diff.h"
#include "trapd/profile/profile.h"
#include "trapd/profile/profile_file.h"

#define FUZZ_MAX_BYTES (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL;
	char err[512];
	int ret;

	ret = profile_file__decode(data, size, FUZZ_MAX_BYTES, "fuzz", &p, err, sizeof(err));
	if (ret == 0) {
		if (!p)
			abort();
		if (profile_invalid(p, err, sizeof(err))) {
			fprintf(stderr, "decoded profile is inconsistent: %s\n", err);
			abort();
		}
		profile__free(p);
		return 0;
	}
	if (p || (ret != -EBADMSG && ret != -E2BIG && ret != -ENOMEM)) {
		fprintf(stderr, "unexpected result %d: %s\n", ret, err);
		abort();
	}
	if (strncmp(err, "fuzz: ", 6) != 0) {
		fprintf(stderr, "message does not name the input: \"%s\"\n", err);
		abort();
	}
	return 0;
}
