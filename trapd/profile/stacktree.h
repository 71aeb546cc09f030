/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* stacktree.h - the call tree every report view is drawn from.
 *
 * A stacktree merges the samples of a profile into a tree of frames:
 * the root ("all"), one node per process name (comm), then the stack from
 * the outermost frame down to the leaf. A location whose address is in
 * code the compiler inlined gives one frame per function of its inline
 * chain, outermost first; each inlined function's name carries perf's
 * " (inlined)" suffix (STACKTREE_INLINED_SUFFIX). Frames are merged by
 * display name (the function's name, profile__location_name for an
 * unresolved one), so a node stands for "this function called along this
 * path". Kernel frames carry FlameGraph's "_[k]" suffix.
 *
 * Each node counts samples twice over: on the main side (self, total) and
 * on a base side (base_self, base_total), so one tree can hold two
 * profiles for a differential flame graph (trapd diff BASE NEW): add NEW
 * with STACKTREE_MAIN and BASE with STACKTREE_BASE. `trapd report` uses the
 * main side only.
 *
 * Names are made safe for every writer when the tree is built: valid
 * UTF-8, no control characters (each offending byte becomes '?'). Writers
 * only add their own format's escaping (';' for folded, entities for XML).
 *
 * The tree is bounded: at most max_nodes nodes (STACKTREE_MAX_NODES by
 * default) and PROFILE_MAX_DEPTH frames below a process (inlined frames
 * count). A sample whose
 * stack does not fit is cut where the cap was hit, its count stays on the
 * deepest node that exists, and it is counted in stacktree.truncated so a
 * report can say so.
 */
#ifndef TRAPD_STACKTREE_H
#define TRAPD_STACKTREE_H

#include <stddef.h>
#include <stdint.h>

#include "trapd/profile/profile.h"

#define STACKTREE_MAX_NODES (1u << 22)
#define STACKTREE_ROOT_NAME "all"
#define STACKTREE_KERNEL_SUFFIX "_[k]"
#define STACKTREE_INLINED_SUFFIX " (inlined)"
/* A display name: a profile string plus the longer suffix. */
#define STACKTREE_MAX_NAME (PROFILE_MAX_STRING_LEN + sizeof(STACKTREE_INLINED_SUFFIX))

enum stacktree_kind {
	STACKTREE_KIND_ROOT,
	STACKTREE_KIND_PROCESS,
	STACKTREE_KIND_USER,
	STACKTREE_KIND_KERNEL,
	STACKTREE_KIND_UNRESOLVED, /* a user frame known by address only */
	STACKTREE_KIND_INLINED,	   /* a function inlined into the frame below it */
};

enum stacktree_side {
	STACKTREE_MAIN,
	STACKTREE_BASE,
};

struct stacktree_node {
	const char *name; /* owned by the tree */
	struct stacktree_node *parent;
	struct stacktree_node **children; /* sorted by name (strcmp), then kind */
	uint32_t nchildren;
	uint32_t children_cap;
	uint16_t depth; /* root 0, process 1, outermost frame 2 */
	uint8_t kind;	/* enum stacktree_kind */
	int64_t self;	/* samples whose leaf is this node */
	int64_t total;	/* samples passing through it (self + children) */
	int64_t base_self;
	int64_t base_total;
};

struct stacktree {
	struct stacktree_node *root;
	size_t nnodes;
	size_t max_nodes;
	uint32_t max_depth; /* depth of the deepest node */
	int64_t truncated;  /* main-side samples cut by a cap */
	int64_t base_truncated;

	/* private: node and name storage */
	struct stacktree_chunk *node_chunks;
	struct stacktree_chunk *name_chunks;
};

/* stacktree__new - an empty tree (just the root) holding at most
 * @max_nodes nodes (0: STACKTREE_MAX_NODES). NULL and errno on failure.
 * Free with stacktree__free. */
struct stacktree *stacktree__new(size_t max_nodes);
void stacktree__free(struct stacktree *t);

/* stacktree__add_profile - merge every sample of @p with a positive count
 * into @side of @t (counts saturate at INT64_MAX). @p is not referenced
 * afterwards. Returns 0 or -ENOMEM; hitting the node or depth cap is not
 * an error (see stacktree.truncated). */
int stacktree__add_profile(struct stacktree *t, const struct profile *p, enum stacktree_side side);

/* stacktree__from_profile - a new tree holding @p on the main side, in
 * *out (free with stacktree__free). Returns 0 or a negative errno. */
int stacktree__from_profile(const struct profile *p, struct stacktree **out);

/* stacktree__find_child - the child of @n called @name with kind @kind,
 * or NULL. */
struct stacktree_node *stacktree__find_child(const struct stacktree_node *n, const char *name,
					     enum stacktree_kind kind);

/* stacktree__clean_name - copy @src into @dst (@len bytes, always
 * NUL-terminated, cut at a character boundary) replacing each byte of
 * invalid UTF-8, each control character (C0, DEL, C1) and U+FFFE/U+FFFF
 * with '?'. Returns @dst. Used for names and for text from the user. */
char *stacktree__clean_name(char *dst, size_t len, const char *src);

#endif
