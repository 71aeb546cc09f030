/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* symbolizer.h - turn raw stack addresses into profile locations.
 *
 * User frames are resolved through snapshots of /proc/PID/maps and the ELF
 * files they name (libelf: .symtab, then .dynsym; PT_LOAD offsets; PIE and
 * shared libraries; GNU build IDs); kernel frames through /proc/kallsyms.
 * Snapshots are taken while a process lives, so a process that exits
 * before the capture is symbolized still gets names. ELF symbol tables are
 * loaded once per file and shared by every process that maps it.
 * Unresolved frames become locations that keep their address, mapping and
 * build ID, so a backend can symbolize them later; where no symbol covers
 * an address but an FDE of .eh_frame does (static functions of a stripped
 * file), the location gets a function named "FILE+0xOFF" after the FDE's
 * start, so one function's frames add up.
 *
 * Everything read from a target (maps, ELF files) is untrusted input: a
 * malformed file yields unresolved frames and a debug message, never a
 * crash.
 */
#ifndef TRAPD_SYMBOLIZER_H
#define TRAPD_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "trapd/profile/profile.h"
#include "trapd/symbolize/prockey.h"

struct symbolizer;

struct symbolizer_stats {
	uint64_t user_frames;
	uint64_t user_named;
	uint64_t user_inlined; /* inlined frames the DWARF added to user frames */
	uint64_t kernel_frames;
	uint64_t kernel_named;
	uint64_t pids_without_maps; /* samples of pids never snapshotted */
	uint64_t files_loaded;	    /* ELF files read and parsed for this symbolizer */
	uint64_t files_cached;	    /* ... found loaded already (the cache's) */
	uint64_t snapshot_ns;	    /* time in symbolizer__snapshot (files load there) */
	uint64_t python_found;	    /* processes with a CPython interpreter trapd walks */
	uint64_t python_refused;    /* ... with one it cannot (version, build) */
};

/* symbolizer__new - @proc_root is where proc is mounted ("/proc" unless a
 * test points it at a fixture tree; NULL means "/proc"). Kernel symbols
 * are read from <proc_root>/kallsyms when first needed. NULL and errno on
 * failure. */
struct symbolizer *symbolizer__new(const char *proc_root);
void symbolizer__free(struct symbolizer *s);

/* Processes are named by their key (prockey.h: the pid in its first life
 * in a window, the pid and its life after), the @pid of the functions
 * below; /proc is read by the key's pid.
 *
 * symbolizer__snapshot - read /proc/PID/maps of @pid now and remember its
 * executable mappings (a new snapshot adds to the old one: dlopen'd
 * images are kept). Returns 0, -ESRCH if the process is gone (or, under
 * symbolizer__check_lives, its life is over, before or while it is read),
 * or another negative errno. */
int symbolizer__snapshot(struct symbolizer *s, int pid);

/* symbolizer__check_lives - ask @fn, before and after reading /proc/PID,
 * whether a process key's life is its pid's still: a snapshot of a life
 * that ended is dropped, so its samples keep their addresses (counted in
 * pids_without_maps) rather than be named from another process's maps.
 * From the thread that snapshots. NULL: never asked. */
void symbolizer__check_lives(struct symbolizer *s, prockey_current_fn fn, void *ctx);

/* symbolizer__user_stack - resolve @n user addresses of @pid (leaf first:
 * ips[0] is where the sample hit, the others are return addresses) into
 * location ids of @p, written to @locs[0..n). Returns 0 or a negative
 * errno (only for allocation failures: unresolved frames are not errors). */
int symbolizer__user_stack(struct symbolizer *s, struct profile *p, int pid, const uint64_t *ips,
			   uint32_t n, uint32_t *locs);

/* symbolizer__user_frames - how many of the @n frames of a user stack
 * (leaf first) are worth resolving: those before the first word that
 * cannot be a user-space address (0, ~0, or at or above the end of user
 * space). Such a word is where a frame-pointer walk through code built
 * without frame pointers read data as a frame; every frame past it came
 * from following that data, so the stack is cut there rather than have it
 * pass for kernel code or for a caller. */
uint32_t symbolizer__user_frames(const uint64_t *ips, uint32_t n);

/* symbolizer__walked_frames - symbolizer__user_frames for a stack walked
 * by frame pointers in the kernel, which follows any word code without
 * frame pointers left in the register (a self-referencing one repeats
 * one address up to the depth limit): also cut before the first return
 * address outside the executable mappings of @pid's snapshots, when it
 * has any (code mapped after its last snapshot is cut too: it could not
 * be named). */
uint32_t symbolizer__walked_frames(const struct symbolizer *s, int pid, const uint64_t *ips,
				   uint32_t n);

/* symbolizer__maps_hold - whether @pid was read before and every frame
 * of its user stack @ips[0..n) (leaf first, as symbolizer__user_frames
 * keeps them) lies in one of the mappings read: if so, reading its maps
 * again could name nothing more. */
bool symbolizer__maps_hold(const struct symbolizer *s, int pid, const uint64_t *ips, uint32_t n);

/* symbolizer__name - the name of the function holding @addr in @pid (for
 * a return address, pass it minus one), NULL if unknown; valid until the
 * next symbolizer call. */
const char *symbolizer__name(struct symbolizer *s, int pid, uint64_t addr);

/* symbolizer__function_start - the address where the function holding
 * @addr starts in @pid (as the process sees it), from the symbols of the
 * file mapped there. 0, or -ENOENT when no known function holds @addr. */
int symbolizer__function_start(struct symbolizer *s, int pid, uint64_t addr, uint64_t *start);

/* symbolizer__kernel_stack - the same for kernel addresses (ips[0] the
 * interrupted pc, the others return addresses). All kernel frames share
 * one mapping named PROFILE_KERNEL_MAPPING. */
int symbolizer__kernel_stack(struct symbolizer *s, struct profile *p, const uint64_t *ips,
			     uint32_t n, uint32_t *locs);

/* A source of kernel function names other than kallsyms: name @n
 * addresses (already adjusted for return addresses) into @names, each a
 * buffer of SYMBOLIZER_KNAME_LEN; "" for an address no symbol contains.
 * Returns 0 or a negative errno. */
#define SYMBOLIZER_KNAME_LEN 128
typedef int (*symbolizer_kernel_names_fn)(void *ctx, const uint64_t *addrs, uint32_t n,
					  char (*names)[SYMBOLIZER_KNAME_LEN]);

/* symbolizer__use_kernel_names - name kernel frames with @fn instead of
 * reading /proc/kallsyms (which costs the kernel ~40 ms to print). If @fn
 * fails, the symbolizer falls back to kallsyms for good. NULL restores
 * kallsyms. */
void symbolizer__use_kernel_names(struct symbolizer *s, symbolizer_kernel_names_fn fn, void *ctx);

/* symbolizer__refresh_jit - read again the perf maps (/tmp/perf-PID.map)
 * of the processes snapshotted, those that exited too, from the /tmp each
 * had (kept open since its snapshot, for up to 64 processes; the others
 * only while they live): a runtime appends to its map as it compiles,
 * and buffers what it writes until it exits, so the later the read, the
 * more it names. Code a map names where no snapshot saw a mapping gets
 * one. Call it before symbolizing. */
void symbolizer__refresh_jit(struct symbolizer *s);

/* symbolizer__get_stats - counters since symbolizer__new. */
void symbolizer__get_stats(const struct symbolizer *s, struct symbolizer_stats *out);

/* CPython: a snapshot that finds an interpreter trapd can walk in a
 * process (pyruntime.h) keeps it; @fn, if set, is told at once (on the
 * thread that took the snapshot), so the sampler can start walking its
 * frames. */
struct pyruntime;
typedef void (*symbolizer_python_fn)(int pid, const struct pyruntime *rt, void *ctx);
void symbolizer__on_python(struct symbolizer *s, symbolizer_python_fn fn, void *ctx);

/* symbolizer__python - the interpreter found in @pid, NULL if none. */
const struct pyruntime *symbolizer__python(const struct symbolizer *s, int pid);

struct symcache;
struct symbudget;

/* symbolizer__use_budget - charge what loading files and perf maps costs
 * to @budget (kept by the caller, who outlives the symbolizer's use of
 * it) and skip what it refuses: those frames keep their addresses and
 * their files say "over budget". NULL: only the fixed caps. */
void symbolizer__use_budget(struct symbolizer *s, struct symbudget *budget);

/* symbolizer__use_cache - take files' symbols from @cache (kept by the
 * caller, who frees it after the symbolizer) instead of a private cache
 * that lives as long as @s. Call it before the first snapshot: -EBUSY
 * after. */
int symbolizer__use_cache(struct symbolizer *s, struct symcache *cache);

/* How well the user frames of one mapped object were named. */
struct symbolizer_file_stats {
	const char *path;     /* as the target maps it; "//anon" for JIT code */
	const char *build_id; /* hex, "" if none */
	uint64_t frames;      /* user frames that fell in it */
	uint64_t named;	      /* ... and got a function name */
	/* ... and got none, but were grouped by the function range (FDE)
	 * of .eh_frame holding them: named "FILE+0xOFF" after its start. */
	uint64_t fde_grouped;
	/* Where names came from, or why there are none: "symtab", "debug
	 * file", "dynsym only" (stripped, no debug file found), "no
	 * symbols", either of those two with ", FDE ranges" when frames
	 * were grouped by FDE, "perf map", "no perf map", "not a file",
	 * "not opened: ERROR", "not read: ERROR" or "over budget" (the
	 * capture's symbolization budget refused its tables). */
	char source[80];
	const char *debug_file; /* "root:PATH" or "host:PATH", "" if none */
};

/* symbolizer__file_stats - every object with user frames so far, the
 * most frames first, in *@n entries that stay valid until the next call
 * or symbolizer__free. NULL (and *@n 0) when out of memory. */
const struct symbolizer_file_stats *symbolizer__file_stats(struct symbolizer *s, size_t *n);

#endif
