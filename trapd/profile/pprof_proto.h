/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pprof_proto.h - private to pprof.c and pprof_decode.c: the field numbers
 * of pprof's profile.proto (github.com/google/pprof, proto/profile.proto)
 * and the strings both sides agree on.
 */
#ifndef TRAPD_PPROF_PROTO_H
#define TRAPD_PPROF_PROTO_H

/* The largest encoding written; the same as PROFILE_FILE_MAX_BYTES, the
 * largest a capture reader accepts. */
#define PPROF_MAX_BYTES (1ull << 30)

enum pprof_field {
	F_PROFILE_SAMPLE_TYPE = 1,
	F_PROFILE_SAMPLE = 2,
	F_PROFILE_MAPPING = 3,
	F_PROFILE_LOCATION = 4,
	F_PROFILE_FUNCTION = 5,
	F_PROFILE_STRING_TABLE = 6,
	F_PROFILE_DROP_FRAMES = 7,
	F_PROFILE_KEEP_FRAMES = 8,
	F_PROFILE_TIME_NANOS = 9,
	F_PROFILE_DURATION_NANOS = 10,
	F_PROFILE_PERIOD_TYPE = 11,
	F_PROFILE_PERIOD = 12,
	F_PROFILE_COMMENT = 13,
	F_PROFILE_DEFAULT_SAMPLE_TYPE = 14,

	F_VALUE_TYPE_TYPE = 1,
	F_VALUE_TYPE_UNIT = 2,

	F_SAMPLE_LOCATION_ID = 1,
	F_SAMPLE_VALUE = 2,
	F_SAMPLE_LABEL = 3,

	F_LABEL_KEY = 1,
	F_LABEL_STR = 2,
	F_LABEL_NUM = 3,
	F_LABEL_NUM_UNIT = 4,

	F_MAPPING_ID = 1,
	F_MAPPING_MEMORY_START = 2,
	F_MAPPING_MEMORY_LIMIT = 3,
	F_MAPPING_FILE_OFFSET = 4,
	F_MAPPING_FILENAME = 5,
	F_MAPPING_BUILD_ID = 6,
	F_MAPPING_HAS_FUNCTIONS = 7,

	F_LOCATION_ID = 1,
	F_LOCATION_MAPPING_ID = 2,
	F_LOCATION_ADDRESS = 3,
	F_LOCATION_LINE = 4,

	F_LINE_FUNCTION_ID = 1,
	F_LINE_LINE = 2,

	F_FUNCTION_ID = 1,
	F_FUNCTION_NAME = 2,
	F_FUNCTION_SYSTEM_NAME = 3,
	F_FUNCTION_FILENAME = 4,
	F_FUNCTION_START_LINE = 5,
};

/* Strings the encoder writes whether or not the profile has them (sample
 * and period types, label keys); the decoder recognises the label keys.
 * WK_RUN is the exception: it is written only when a sample has a run, so
 * a profile without runs encodes exactly as it did before runs existed;
 * so are WK_OFF_CPU and WK_STATE, only when a sample was off the CPU,
 * WK_CALL, only when a sample says which call it was taken in, and
 * WK_PHASE and WK_PERIOD, only when a sample has a phase or its own
 * period (profile_phase.h). */
enum pprof_well_known {
	WK_SAMPLES,
	WK_COUNT,
	WK_CPU,
	WK_NANOSECONDS,
	WK_PID,
	WK_TID,
	WK_COMM,
	WK_CGROUP,
	WK_RUN,
	WK_OFF_CPU,
	WK_STATE,
	WK_CALL,
	WK_PHASE,
	WK_PERIOD,
	WK_N
};

extern const char *const pprof_well_known[WK_N];

#endif
