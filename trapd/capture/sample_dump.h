/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sample_dump.h - a window's samples copied out of the sampler's kernel
 * maps.
 *
 * Symbolizing a capture reads the targets' files and can take seconds; the
 * maps cannot wait that long, since the daemon arms the same sampler for
 * the next capture. The event loop copies the aggregated samples (each
 * stack once, however many samples share it) and the loss counters right
 * after the window closes, a cost bounded by the maps' sizes, which trapd
 * chose; the copy is then symbolized elsewhere.
 */
#ifndef TRAPD_SAMPLE_DUMP_H
#define TRAPD_SAMPLE_DUMP_H

#include "trapd/capture/sampler.h"
#include "trapd/capture/unwind_summary.h"

struct sample_dump;

/* sample_dump__new - an empty dump, to add samples to. NULL on failure. */
struct sample_dump *sample_dump__new(void);

/* sample_dump__add - count @rec (its stacks copied): added to the record
 * of the same key if there is one. 0 or a negative errno. */
int sample_dump__add(struct sample_dump *d, const struct sampler_record *rec);

/* sample_dump__collect - copy the samples and statistics of @s's closed
 * window, with the samples of @unwound (DWARF mode: user stacks unwound
 * from copies, their kernel stacks still in @s's map; NULL if none) and
 * the @summary of their unwinding (NULL: none). NULL and errno on
 * failure. */
struct sample_dump *sample_dump__collect(struct sampler *s, const struct sample_dump *unwound,
					 const struct unwind_summary *summary);

/* sample_dump__for_each - call @fn for every copied sample, as
 * sampler__for_each would have; stops at and returns @fn's first error. */
int sample_dump__for_each(const struct sample_dump *d, sampler_record_fn fn, void *ctx);

/* sample_dump__stats - the window's counters. */
const struct sampler_stats *sample_dump__stats(const struct sample_dump *d);

/* sample_dump__unwind - how the window's copied stacks were unwound
 * (all zero in frame-pointer mode). */
const struct unwind_summary *sample_dump__unwind(const struct sample_dump *d);

/* sample_dump__ncpus - the CPUs the sampler watched. */
int sample_dump__ncpus(const struct sample_dump *d);

void sample_dump__free(struct sample_dump *d);

#endif
