/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* sample_dump.h - a window's samples copied out of the sampler's kernel
 * maps.
 *
 * Symbolizing a capture reads the targets' files and can take seconds; the
 * maps cannot wait that long, since the daemon arms the same sampler for
 * the next capture. The event loop moves the aggregated samples (each
 * stack once, however many samples share it) and the loss counters out
 * right after the window closes, a cost bounded by the maps' sizes, which
 * trapd chose; the copy is then symbolized elsewhere. A long or busy
 * window would fill the maps: the event loop moves entries out during it
 * too (sample_dump__spill).
 */
#ifndef TRAPD_SAMPLE_DUMP_H
#define TRAPD_SAMPLE_DUMP_H

#include "trapd/capture/call_split.h"
#include "trapd/capture/sampler.h"
#include "trapd/capture/unwind_summary.h"

struct sample_dump;

/* sample_dump__new - an empty dump for one window; NULL and errno on
 * failure. */
struct sample_dump *sample_dump__new(void);

/* sample_dump__spill - during @s's window: when its maps are past their
 * high-water mark, move their entries here, so a window sees more stacks
 * than the maps hold. What is moved during the window is held to a fixed
 * memory bound (sample_dump.c); beyond it entries stay in the kernel,
 * whose counters say what was lost. The work is bounded by the maps'
 * sizes. Returns 0 or a negative errno. */
int sample_dump__spill(struct sample_dump *d, struct sampler *s);

/* sample_dump__collect - after @s's window closed: move the rest of its
 * samples here, with its counters. Returns 0 or a negative errno. */
int sample_dump__collect(struct sample_dump *d, struct sampler *s);

/* sample_dump__add - count @rec, its user stack copied (its kernel stack
 * stays an id, to be found in the dump it is merged into): added to the
 * record of the same key if there is one. The unwinding thread's
 * aggregate (DWARF mode). 0, -ENOSPC past the dump's memory bound, or
 * another negative errno. */
int sample_dump__add(struct sample_dump *d, const struct sampler_record *rec);

/* sample_dump__add_site - the unwound stack @ips[0..n) of blocking site
 * @site (SAMPLER_SITE_BIT set: bpf/sampler.h), which off-CPU records name
 * as their user stack. The unwinding thread's aggregate. 0, -ENOSPC past
 * the dump's memory bound, or another negative errno. */
int sample_dump__add_site(struct sample_dump *d, uint64_t site, const uint64_t *ips, uint32_t n);

/* sample_dump__merge_unwound - after sample_dump__collect: add the samples
 * of @u, whose user stacks were unwound from copies and whose kernel
 * stacks are in @d now, the stacks of its blocking sites, and the
 * @summary of their unwinding. 0 or a negative errno. */
int sample_dump__merge_unwound(struct sample_dump *d, const struct sample_dump *u,
			       const struct unwind_summary *summary);

/* sample_dump__set_unwind - how the window's user stacks were walked. */
void sample_dump__set_unwind(struct sample_dump *d, const struct unwind_summary *summary);

/* sample_dump__unwind - ...as set (all zero: frame pointers). */
const struct unwind_summary *sample_dump__unwind(const struct sample_dump *d);

/* sample_dump__for_each - call @fn for every copied sample (a count moved
 * out more than once comes once per move, to be added up); stops at and
 * returns @fn's first error. */
int sample_dump__for_each(const struct sample_dump *d, sampler_record_fn fn, void *ctx);

/* sample_dump__calls - the calls the window's samples fell in, when it
 * split them (sampler__split_calls): classed once call_split__decide
 * drew the line. NULL otherwise. */
struct call_split *sample_dump__calls(const struct sample_dump *d);

/* sample_dump__stats - the window's counters. */
const struct sampler_stats *sample_dump__stats(const struct sample_dump *d);

/* sample_dump__nstacks - how many distinct stacks (user and kernel) it
 * holds. */
size_t sample_dump__nstacks(const struct sample_dump *d);

/* sample_dump__ncpus - the CPUs the sampler watched. */
int sample_dump__ncpus(const struct sample_dump *d);

void sample_dump__free(struct sample_dump *d);

#endif
