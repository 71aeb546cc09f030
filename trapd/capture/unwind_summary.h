/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* unwind_summary.h - how a capture's user stacks were walked, as plain
 * data for its metadata: the mode, and in DWARF mode what became of the
 * stack copies and how each walk ended (unwind_drain.h does the work).
 */
#ifndef TRAPD_UNWIND_SUMMARY_H
#define TRAPD_UNWIND_SUMMARY_H

#include <stdint.h>

#include "rules/rules_model.h"
#include "trapd/capture/unwind_tables.h"
#include "trapd/symbolize/unwinder.h"

enum unwind_mode {
	UNWIND_MODE_FP = 0, /* frame pointers, walked by the kernel */
	UNWIND_MODE_DWARF,  /* stack copies unwound with the targets' CFI */
	UNWIND_MODE_AUTO,   /* DWARF when the sampler can and the window allows */
	UNWIND_MODE_KERNEL, /* tables of the targets' CFI, walked in the BPF program */
};

/* Where walks ended: the mapping of their last frame, and how. */
#define UNWIND_SUMMARY_MAPPINGS 16
struct unwind_mapping {
	char path[UNWINDER_END_PATH];
	uint64_t ended[UNWIND_END_NR];
};

struct unwind_summary {
	enum unwind_mode mode;	 /* the mode used (never AUTO) */
	const char *why;	 /* why AUTO chose it; NULL if asked for */
	uint32_t copy_bytes;	 /* bytes of user stack each sample copied */
	uint64_t copies;	 /* copies received */
	uint64_t copy_bytes_sum; /* their stack bytes, together */
	uint64_t unwound;	 /* copies walked */
	uint64_t stale;		 /* copies of an earlier window, dropped */
	uint64_t malformed;	 /* records that did not parse, dropped */
	uint64_t late;		 /* counted without a user stack: the window had closed */
	uint64_t no_maps;	 /* the process's maps were never readable */
	uint64_t lost_memory;	 /* dropped: the unwound samples' memory bound was reached */
	uint64_t sites_recopied; /* blocking sites that did not unwind, asked for again */
	uint64_t frames;	 /* user frames the walks found */
	uint64_t fp_steps;	 /* ... of which by frame pointer (code without CFI) */
	uint64_t ended[UNWIND_END_NR];
	uint64_t unwind_ns;    /* time spent walking */
	uint64_t files_loaded; /* files whose CFI was read for this capture */
	uint64_t files_cached; /* mappings whose file's CFI was held already */
	/* by the mapping they ended in, the first UNWIND_SUMMARY_MAPPINGS
	 * met; walks that ended elsewhere are in @ended_elsewhere */
	struct unwind_mapping mappings[UNWIND_SUMMARY_MAPPINGS];
	uint32_t nmappings;
	uint64_t ended_elsewhere;
	/* UNWIND_MODE_KERNEL: walks by how they ended (enum
	 * sampler_walk_end), frames stepped by frame pointer, and what the
	 * tables held at the window's end */
	uint64_t walk_ends[SAMPLER_WALK_NR];
	uint64_t walk_fp_frames;
	uint64_t walk_copied; /* walks handed to a copy instead (not in @walk_ends; in @copies) */
	struct unwind_tables_stats tables;
};

/* unwind_mode_from_rule - a rules file's unwind = as a capture's mode. */
enum unwind_mode unwind_mode_from_rule(enum rule_unwind u);

/* unwind_mode_name - "fp", "dwarf", "auto", "kernel". */
const char *unwind_mode_name(enum unwind_mode m);

/* unwind_mode_parse - the mode named @s; 0 or -EINVAL. */
int unwind_mode_parse(const char *s, enum unwind_mode *out);

#endif
