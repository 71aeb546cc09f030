/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* unwinder.h - walk a user stack without frame pointers, from a copy of
 * its top taken at the sample, with the call frame information (.eh_frame)
 * of the files the process maps.
 *
 * Code built as distributions build it keeps no frame pointer, so the
 * kernel's walk stops after a frame or two. At each sample the sampler
 * copies the user registers (ip, sp, bp) and the top of the user stack;
 * this module replays what the return path would do: for the pc of each
 * frame it finds the rule of the function's FDE (where the canonical
 * frame address is, where the return address and the caller's rbp were
 * saved), reads those words from the copy, and steps to the caller. Code
 * without CFI (JIT code) is stepped by its frame pointer.
 *
 * Everything it reads comes from the target: the memory map, the files'
 * CFI and the stack bytes. Files are opened as the symbolizer opens them
 * (mapped_file.h: through the process's root, never a planted link), the
 * CFI is read into memory (never mapped), each step is checked (the
 * stack pointer must move up, every word must be inside the copy, every
 * return address inside an executable mapping), and the walk is bounded
 * in frames and in DWARF expression steps. A walk that cannot go on ends
 * with a reason; it never fails the sample.
 *
 * x86-64 only; elsewhere unwinder__supported() is false.
 *
 * One unwinder belongs to one thread.
 */
#ifndef TRAPD_UNWINDER_H
#define TRAPD_UNWINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/symbolize/prockey.h"

#define UNWINDER_MAX_FRAMES 127 /* as the kernel's walk (PERF_MAX_STACK_DEPTH) */
#define UNWINDER_END_PATH 256

/* Why a walk ended. UNWIND_END_ENTRY is the complete case: the outermost
 * frame's CFI says there is no caller (the return address is undefined,
 * as glibc marks _start, clone and clone3). */
enum unwind_end {
	UNWIND_END_ENTRY = 0,	/* reached a thread or process entry point */
	UNWIND_END_NO_CFI,	/* no CFI covers the pc, and no frame pointer led on */
	UNWIND_END_STACK_SHORT, /* a word above the end of the copy was needed */
	UNWIND_END_NOT_MAPPED,	/* a pc outside the executable mappings (not kept) */
	UNWIND_END_NO_FILE,	/* the pc's file could not be opened or read */
	UNWIND_END_BAD_CFI,	/* a rule it cannot evaluate or that makes no sense */
	UNWIND_END_LOOP,	/* the stack pointer did not move up */
	UNWIND_END_DEPTH,	/* UNWINDER_MAX_FRAMES reached */
	UNWIND_END_NR,
};

/* The sample: user registers and a copy of the user stack starting at sp. */
struct unwind_input {
	uint64_t ip, sp, bp;
	const uint8_t *stack; /* bytes at [sp, sp + stack_len) */
	uint32_t stack_len;
};

struct unwind_result {
	/* ips[0] is the sampled ip, the others are return addresses (leaf
	 * first, as the kernel gives them: the symbolizer subtracts one to
	 * name a caller). n >= 1 whenever the input ip is in an executable
	 * mapping. */
	uint64_t ips[UNWINDER_MAX_FRAMES];
	uint32_t n;
	enum unwind_end end;
	uint32_t fp_steps; /* steps taken by the frame pointer (no CFI there) */
	/* the walk found a pc outside the known mappings and the process's
	 * maps were read again (something was mapped since: a dlopen) */
	bool maps_reread;
	/* the path of the mapping of the last frame walked, the one the walk
	 * could not leave ("//anon" for anonymous code; cut to fit); "" when
	 * the first pc was not mapped */
	char end_path[UNWINDER_END_PATH];
};

struct unwinder_stats {
	uint64_t walks;
	uint64_t frames;
	uint64_t ended[UNWIND_END_NR]; /* walks, by how they ended */
	uint64_t pids;		       /* processes whose maps were read */
	uint64_t maps_reads;	       /* reads of /proc/PID/maps (first, exec, dlopen) */
	uint64_t files_loaded;	       /* files whose CFI was read */
	uint64_t files_cached;	       /* mappings whose file's CFI was held already */
	uint64_t cfi_bytes;	       /* bytes of .eh_frame and friends read */
	uint64_t rule_cache_hits;      /* steps served by the per-pc rule cache */
};

/* unwinder__supported - whether this build can unwind (x86-64). */
bool unwinder__supported(void);

/* unwinder__new - an unwinder reading the processes under @proc_root
 * (NULL: "/proc"), holding at most @max_cfi_bytes of CFI in memory (0:
 * a default of 256 MiB; files past it are not loaded and their frames end
 * walks with UNWIND_END_NO_FILE). NULL and errno on failure. */
struct unwinder *unwinder__new(const char *proc_root, uint64_t max_cfi_bytes);
void unwinder__free(struct unwinder *u);

/* unwinder__check_lives - as symbolizer__check_lives: maps and files read
 * while the life of a process key (@pid below, prockey.h) did not hold
 * are not used. */
void unwinder__check_lives(struct unwinder *u, prockey_current_fn fn, void *ctx);

/* unwinder__unwind - walk the stack of the sample @in of process @pid (a
 * process key, prockey.h: the host's pid in its first life) into @out. The process's executable mappings
 * are read on its first sample and again when a pc falls outside them (a
 * library loaded since; for a process with at most 512 executable
 * mappings at most every 2 ms, for a bigger one every 100 ms). Returns 0
 * with @out filled, however short the walk; -ESRCH when the process's
 * maps were never readable (then @out->n is 0); -ENOMEM. */
int unwinder__unwind(struct unwinder *u, int pid, const struct unwind_input *in,
		     struct unwind_result *out);

/* unwinder__reset - ready a kept unwinder for the next capture: forget
 * every process (a pid may be reused by then) and the statistics, and
 * keep the CFI already read while it holds at most @keep_cfi_bytes (else
 * drop it all): a daemon capturing the same services reads their CFI
 * once. */
void unwinder__reset(struct unwinder *u, uint64_t keep_cfi_bytes);

/* unwinder__cfi_files - files whose CFI is held now, and their bytes. */
size_t unwinder__cfi_files(const struct unwinder *u, uint64_t *bytes);

/* unwinder__end_name - "entry", "no_cfi", "stack_short", "not_mapped",
 * "no_file", "bad_cfi", "loop", "depth". */
const char *unwinder__end_name(enum unwind_end end);

void unwinder__get_stats(const struct unwinder *u, struct unwinder_stats *out);

#endif
