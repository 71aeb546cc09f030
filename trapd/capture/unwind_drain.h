/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* unwind_drain.h - DWARF mode's consumer: read the sampler's stack
 * copies as they come and unwind each into a user stack.
 *
 * A copy is 72 bytes of header and up to 32 KiB of stack; keeping them
 * until the window closes would cost hundreds of megabytes, so a thread
 * of the session reads the copies ring during the window, walks each copy
 * (unwinder.h) and counts the sample under its unwound stack, as the
 * kernel counts frame-pointer samples. Only the aggregate is kept.
 *
 * The thread is the only one that touches the target's files and memory
 * image for unwinding; the event loop only starts and stops it. Stopping
 * is bounded: copies still in the ring after UNWIND_DRAIN_STOP_NS are
 * counted without their user stack ("late"), so a slow walk (a big file's
 * CFI loaded for the first time) cannot hold the loop.
 */
#ifndef TRAPD_UNWIND_DRAIN_H
#define TRAPD_UNWIND_DRAIN_H

#include "trapd/capture/sample_dump.h"
#include "trapd/capture/sampler.h"
#include "trapd/capture/unwind_summary.h"

#define UNWIND_DRAIN_STOP_NS (200ull * 1000000) /* walking after the window closes */

struct unwind_drain;

/* Called on the drain's thread when a walk found code mapped after the
 * process's maps were first read (a library loaded with dlopen, such as
 * a Python C extension): the symbolizer's snapshot lacks it too. */
typedef void (*unwind_drain_remap_fn)(int pid, void *ctx);

struct unwinder;

/* unwind_drain__start - consume the copies of @s's current window (start
 * it after sampler__start) on a new thread, with @uw (kept by the caller
 * across captures: unwinder__reset'd here, used by this drain only until
 * unwind_drain__free) or, when NULL, an unwinder of its own reading
 * processes under "/proc". @remapped (may be NULL) as said above. Each
 * copy is unwound in its process's life (prockey.h), what /proc says of
 * it checked by @lives (unwinder__check_lives; NULL: not checked) until
 * unwind_drain__free. NULL and errno on failure (EINVAL: the sampler
 * takes no copies). */
struct unwind_drain *unwind_drain__start(struct sampler *s, uint32_t copy_bytes,
					 struct unwinder *uw, uint64_t keep_cfi_bytes,
					 unwind_drain_remap_fn remapped, void *ctx,
					 prockey_current_fn lives, void *lives_ctx);

/* unwind_drain__stop - after sampler__stop: take in what is left in the
 * ring (within UNWIND_DRAIN_STOP_NS) and end the thread. */
void unwind_drain__stop(struct unwind_drain *d);

/* unwind_drain__samples - the unwound samples (after stop): user stacks
 * resolved, kernel stacks still ids in the sampler's map. */
const struct sample_dump *unwind_drain__samples(const struct unwind_drain *d);

/* unwind_drain__summary - what became of the copies (after stop). */
const struct unwind_summary *unwind_drain__summary(const struct unwind_drain *d);

void unwind_drain__free(struct unwind_drain *d);

#endif
