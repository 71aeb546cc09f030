/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knames.h - shared by knames.bpf.c and trapd/symbolize/knames.c: one batch of
 * kernel addresses to name. */
#ifndef TRAPD_BPF_KNAMES_H
#define TRAPD_BPF_KNAMES_H

#define KNAMES_BATCH 128
#define KNAMES_NAME_LEN 128 /* "function+0xoff/0xsize [module]" */

#endif
