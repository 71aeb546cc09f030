/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* run_record.h - what `trapd ci` measured of its command's runs, kept in
 * the capture's sidecar as the "ci" object so that the capture can be the
 * next job's baseline:
 *
 *	"ci": {
 *	  "runs": [ { "wall_ns": 2031000000, "cpu_ns": 1987000000,
 *	              "exit_status": 0 }, ... ]
 *	}
 *
 * cpu_ns is the CPU time of the run's cgroup (children included), from
 * cgroup cpu.stat; wall_ns from the start of the command to its exit.
 * `trapd diff` reads it back to compare measured CPU times, and, with
 * several runs a side, their spread. The samples of run i carry the pprof
 * label run = i + 1.
 */
#ifndef TRAPD_RUN_RECORD_H
#define TRAPD_RUN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/util/json.h"
#include "trapd/util/json_read.h"

#define RUN_RECORD_MAX_RUNS 100

struct ci_run {
	int64_t wall_ns;
	int64_t cpu_ns;
	int exit_status; /* the command's, or 128 + signal */
};

struct run_record {
	struct ci_run runs[RUN_RECORD_MAX_RUNS];
	size_t nruns;
};

/* run_record__emit - write @r as the member "ci" of the object @w is in. */
void run_record__emit(struct json_writer *w, const struct run_record *r);

/* run_record__from_json - read the "ci" object @v into @r, strictly: every
 * run needs non-negative integer wall_ns and cpu_ns and an exit_status
 * from 0 to 255, and there are 1 to RUN_RECORD_MAX_RUNS runs. Returns 0, or
 * -EINVAL with @err naming what was wrong ("runs[2].cpu_ns: ..."). */
int run_record__from_json(const struct json_value *v, struct run_record *r, char *err,
			  size_t errlen);

/* run_record__cpu_ns - the CPU time of all runs. */
int64_t run_record__cpu_ns(const struct run_record *r);

#endif
