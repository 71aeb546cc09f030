/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pyframes.h - a capture's Python frames.
 *
 * The sampler walks the frames of the CPython interpreters user space
 * registered with it (bpf/sampler.h) and announces each code object at
 * its first sample in a window. This module registers the interpreters
 * the symbolizer finds (pyframes__register, on the symbolizer's thread),
 * keeps the announcements as they come (pyframes__add_code, on the event
 * loop: a copy, bounded in count and bytes) and, when the profile is
 * built, splices each sample's Python frames into its native user stack
 * (pyframes__splice): the frames of one C call of the interpreter go
 * right above (as callees of) the native _PyEval_EvalFrameDefault frame
 * that runs them, so a stack reads, root first,
 *
 *	main ... _PyEval_EvalFrameDefault  outer (app.py:12)  leaf (app.py:4)  json.dumps's C code
 *
 * When the native stack has fewer such frames than the Python stack has
 * C calls (a frame-pointer walk stops early), the outer calls' frames go
 * above the outermost one found, or, without any, below the native frames.
 */
#ifndef TRAPD_PYFRAMES_H
#define TRAPD_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/profile/profile.h"
#include "trapd/symbolize/pyruntime.h"

/* The most code objects and announcement bytes a capture keeps. */
#define PYFRAMES_MAX_CODES 65536u
#define PYFRAMES_MAX_BYTES (32u << 20)

struct pyframes;

/* What became of the Python frames of a capture's samples (each frame
 * counted once per sample it is in). */
struct pyframes_stats {
	uint64_t codes;		/* code objects announced and kept */
	uint64_t codes_dropped; /* ... not kept: past the bounds above */
	uint64_t samples;	/* samples with Python frames */
	uint64_t frames;	/* Python frames in them */
	uint64_t named;		/* ... named (function, file, and line when known) */
	uint64_t with_line;	/* ... with a line */
	uint64_t unannounced;	/* ... whose code object's announcement was lost */
	uint64_t refused;	/* ... whose code object failed the checks (pycode.h) */
	uint64_t unplaced;	/* samples whose native stack had no eval frame */
};

struct pyframes *pyframes__new(void);
void pyframes__free(struct pyframes *pf);

/* pyframes__add_code - keep the announcement @rec (@size bytes, a struct
 * sampler_py_code) if it belongs to window @window. 0, or -E2BIG past the
 * bounds (counted), or another negative errno. */
int pyframes__add_code(struct pyframes *pf, const void *rec, size_t size, uint32_t window);

/* pyframes__register - have the sampler walk the frames of @pid, whose
 * interpreter is @rt, in window @window: an update of the sampler's
 * py_procs map @map_fd. 0 or a negative errno. */
int pyframes__register(int map_fd, uint32_t window, int pid, const struct pyruntime *rt);

/* The interpreters of a capture, registered with its sampler for every
 * window (a process found before the window opens is registered when it
 * does). pyframes__found may be called from any thread. */
#define PYFRAMES_MAX_PROCS 4096 /* as the sampler's py_procs map */

/* pyframes__watch - register with the py_procs map @map_fd (duplicated:
 * the map lives as long as @pf). 0 or a negative errno. */
int pyframes__watch(struct pyframes *pf, int map_fd);

/* pyframes__found - @pid runs interpreter @rt: register it now (for the
 * window last given to pyframes__window) and at each window after. */
void pyframes__found(struct pyframes *pf, int pid, const struct pyruntime *rt);

/* pyframes__window - window @window starts: register every process found. */
void pyframes__window(struct pyframes *pf, uint32_t window);

/* pyframes__splice - one sample's user stack with its Python frames in
 * it. @native[0..nnative) are the location ids of its native user frames,
 * leaf first, at addresses @ips (ips[0] where it was, the others return
 * addresses); @py[0..npy) its Python stack (struct sampler_py_frame
 * words); @rt the interpreter of @pid (NULL: the Python frames are
 * dropped). Writes the location ids, leaf first, to @out (room for
 * nnative + npy / 2) and returns how many, or a negative errno. @count
 * weighs the statistics. */
int pyframes__splice(struct pyframes *pf, struct profile *p, const struct pyruntime *rt, int pid,
		     const uint64_t *ips, const uint32_t *native, uint32_t nnative,
		     const uint64_t *py, uint32_t npy, uint64_t count, uint32_t *out);

/* pyframes__new_profile - the next splices go into another profile (the
 * flight recorder builds one a second): code objects are named in it
 * anew. */
void pyframes__new_profile(struct pyframes *pf);

/* pyframes__drop_codes - forget the code objects announced (a new window
 * announces its own); the processes found stay registered. */
void pyframes__drop_codes(struct pyframes *pf);

/* pyframes__stats - the counters so far. */
void pyframes__stats(const struct pyframes *pf, struct pyframes_stats *out);

#endif
