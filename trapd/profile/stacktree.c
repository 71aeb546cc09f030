// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* stacktree.c - building the call tree from profiles: name cleaning,
 * sorted children, node and name storage in chunks. */
#include "trapd/profile/stacktree.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/util/utf8.h"

/* Nodes and names are carved out of 64 KiB chunks: millions of small
 * allocations would cost more in malloc headers than the data itself. */
#define CHUNK_BYTES (64u * 1024)

struct stacktree_chunk {
	struct stacktree_chunk *next;
	size_t used;
	max_align_t data[];
};

#define CHUNK_PAYLOAD (CHUNK_BYTES - offsetof(struct stacktree_chunk, data))

_Static_assert(STACKTREE_MAX_NAME <= CHUNK_PAYLOAD, "a name must fit a chunk");

/* Frames live at depths 2 .. PROFILE_MAX_DEPTH + 1. */
#define MAX_NODE_DEPTH (PROFILE_MAX_DEPTH + 1)

static void *chunk_alloc(struct stacktree_chunk **head, size_t size)
{
	struct stacktree_chunk *c = *head;
	void *p;

	/* Sizes are multiples of 8 for nodes, so bumping keeps alignment. */
	if (!c || CHUNK_PAYLOAD - c->used < size) {
		c = malloc(CHUNK_BYTES);
		if (!c)
			return NULL;
		c->next = *head;
		c->used = 0;
		*head = c;
	}
	p = (unsigned char *)c->data + c->used;
	c->used += size;
	return p;
}

static void chunks_free(struct stacktree_chunk *c)
{
	struct stacktree_chunk *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
}

/* --- names --- */

static bool unwanted_char(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xfffe || cp == 0xffff;
}

char *stacktree__clean_name(char *dst, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0, n, left = strlen(src);
	uint32_t cp;

	if (!len)
		return dst;
	while (*s) {
		n = utf8_decode(s, left, &cp);
		if (!n || unwanted_char(cp)) {
			if (o + 1 >= len)
				break;
			dst[o++] = '?';
			s++;
			left--;
			continue;
		}
		if (o + n >= len)
			break;
		memcpy(dst + o, s, n);
		o += n;
		s += n;
		left -= n;
	}
	dst[o] = '\0';
	return dst;
}

_Static_assert(sizeof(STACKTREE_KERNEL_SUFFIX) <= sizeof(STACKTREE_INLINED_SUFFIX),
	       "STACKTREE_MAX_NAME holds the longer suffix");

/* with_suffix - @name followed by @suffix, in @raw (STACKTREE_MAX_NAME). */
static const char *with_suffix(const char *name, char *raw, const char *suffix)
{
	size_t len = strnlen(name, PROFILE_MAX_STRING_LEN);

	if (name != raw)
		memmove(raw, name, len);
	memcpy(raw + len, suffix, strlen(suffix) + 1);
	return raw;
}

/* frame_name - the clean display name of line @li of location @loc (of
 * @nlines: the last one is the function the address is in, the others
 * were inlined into it) in @clean, and its kind. @raw and @clean hold
 * STACKTREE_MAX_NAME bytes. */
static const char *frame_name(const struct profile *p, uint32_t loc,
			      const struct profile_line *line, bool inlined, char *raw, char *clean,
			      enum stacktree_kind *kind)
{
	const char *name;

	if (line && line->function <= p->nfunctions)
		name = profile__str(p, p->functions[line->function - 1].name);
	else
		name = profile__location_name(p, loc, raw, STACKTREE_MAX_NAME);
	if (profile__location_is_kernel(p, loc)) {
		*kind = STACKTREE_KIND_KERNEL;
		name = with_suffix(name, raw, STACKTREE_KERNEL_SUFFIX);
	} else if (!line) {
		*kind = STACKTREE_KIND_UNRESOLVED;
	} else if (inlined) {
		*kind = STACKTREE_KIND_INLINED;
		name = with_suffix(name, raw, STACKTREE_INLINED_SUFFIX);
	} else {
		*kind = STACKTREE_KIND_USER;
	}
	return stacktree__clean_name(clean, STACKTREE_MAX_NAME, name);
}

static const char *process_name(const struct profile *p, const struct profile_sample *s,
				char *clean)
{
	const char *comm = profile__str(p, s->comm);

	return stacktree__clean_name(clean, STACKTREE_MAX_NAME, *comm ? comm : "[unknown]");
}

/* --- nodes --- */

static struct stacktree_node *node_new(struct stacktree *t, const char *name,
				       enum stacktree_kind kind, struct stacktree_node *parent)
{
	size_t len = strlen(name) + 1;
	struct stacktree_node *n;
	char *copy;

	/* Name first: a node in a chunk must always be initialised, since
	 * stacktree__free reads every one of them. */
	copy = chunk_alloc(&t->name_chunks, len);
	n = copy ? chunk_alloc(&t->node_chunks, sizeof(*n)) : NULL;
	if (!n)
		return NULL;
	memcpy(copy, name, len);
	memset(n, 0, sizeof(*n));
	n->name = copy;
	n->kind = kind;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 0;
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	t->nnodes++;
	return n;
}

static int node_cmp(const struct stacktree_node *n, const char *name, enum stacktree_kind kind)
{
	int c = strcmp(n->name, name);

	return c ? c : (int)n->kind - (int)kind;
}

/* child_search - the index of @n's child (name, kind), *found set, or the
 * index where it would be inserted. */
static uint32_t child_search(const struct stacktree_node *n, const char *name,
			     enum stacktree_kind kind, bool *found)
{
	uint32_t lo = 0, hi = n->nchildren, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = node_cmp(n->children[mid], name, kind);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

struct stacktree_node *stacktree__find_child(const struct stacktree_node *n, const char *name,
					     enum stacktree_kind kind)
{
	bool found;
	uint32_t at = child_search(n, name, kind, &found);

	return found ? n->children[at] : NULL;
}

/* node_child - @parent's child (name, kind), created if missing. Returns
 * 0, -E2BIG when a cap forbids a new node, or -ENOMEM. */
static int node_child(struct stacktree *t, struct stacktree_node *parent, const char *name,
		      enum stacktree_kind kind, struct stacktree_node **out)
{
	struct stacktree_node *n, **nc;
	uint32_t at, ncap;
	bool found;

	at = child_search(parent, name, kind, &found);
	if (found) {
		*out = parent->children[at];
		return 0;
	}
	if (t->nnodes >= t->max_nodes || parent->depth >= MAX_NODE_DEPTH)
		return -E2BIG;
	if (parent->nchildren == parent->children_cap) {
		ncap = parent->children_cap ? parent->children_cap * 2 : 4;
		nc = realloc(parent->children, ncap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		parent->children = nc;
		parent->children_cap = ncap;
	}
	n = node_new(t, name, kind, parent);
	if (!n)
		return -ENOMEM;
	memmove(&parent->children[at + 1], &parent->children[at],
		(parent->nchildren - at) * sizeof(n));
	parent->children[at] = n;
	parent->nchildren++;
	*out = n;
	return 0;
}

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static void node_count_total(struct stacktree_node *n, enum stacktree_side side, int64_t count)
{
	if (side == STACKTREE_BASE)
		n->base_total = sat_add(n->base_total, count);
	else
		n->total = sat_add(n->total, count);
}

static void node_count_self(struct stacktree_node *n, enum stacktree_side side, int64_t count)
{
	if (side == STACKTREE_BASE)
		n->base_self = sat_add(n->base_self, count);
	else
		n->self = sat_add(n->self, count);
}

/* count_truncated - @s was cut by a cap. */
static void count_truncated(struct stacktree *t, enum stacktree_side side, int64_t count)
{
	if (side == STACKTREE_BASE)
		t->base_truncated = sat_add(t->base_truncated, count);
	else
		t->truncated = sat_add(t->truncated, count);
}

/* add_location - descend from *@n through the frames of location @loc,
 * outermost line first, counting @count on each. -E2BIG when a cap cut
 * the path (*@n is then the deepest node reached). */
static int add_location(struct stacktree *t, const struct profile *p, uint32_t loc,
			struct stacktree_node **n, enum stacktree_side side, int64_t count,
			char *raw, char *clean)
{
	const struct profile_line *lines;
	struct stacktree_node *child;
	enum stacktree_kind kind;
	const char *name;
	uint32_t nlines, i;
	int err;

	lines = profile__location_lines(p, loc, &nlines);
	i = nlines ? nlines : 1;
	while (i--) {
		name = frame_name(p, loc, lines ? &lines[i] : NULL, i + 1 < nlines, raw, clean,
				  &kind);
		err = node_child(t, *n, name, kind, &child);
		if (err)
			return err;
		*n = child;
		node_count_total(child, side, count);
	}
	return 0;
}

/* add_sample - walk (and grow) the path process, outermost .. leaf frame,
 * counting @s on every node of it. */
static int add_sample(struct stacktree *t, const struct profile *p, const struct profile_sample *s,
		      enum stacktree_side side, char *raw, char *clean)
{
	const uint32_t *locs = profile__sample_locs(p, s);
	struct stacktree_node *n = t->root, *child;
	uint32_t i;
	int err;

	node_count_total(n, side, s->count);
	err = node_child(t, n, process_name(p, s, clean), STACKTREE_KIND_PROCESS, &child);
	if (!err) {
		n = child;
		node_count_total(n, side, s->count);
	}
	for (i = 0; !err && i < s->nlocs; i++)
		err = add_location(t, p, locs[s->nlocs - 1 - i], &n, side, s->count, raw, clean);
	if (err == -E2BIG)
		count_truncated(t, side, s->count);
	else if (err)
		return err;
	node_count_self(n, side, s->count);
	return 0;
}

int stacktree__add_profile(struct stacktree *t, const struct profile *p, enum stacktree_side side)
{
	char raw[STACKTREE_MAX_NAME], clean[STACKTREE_MAX_NAME];
	size_t i;
	int err;

	for (i = 0; i < p->nsamples; i++) {
		if (p->samples[i].count <= 0)
			continue;
		err = add_sample(t, p, &p->samples[i], side, raw, clean);
		if (err)
			return err;
	}
	return 0;
}

/* --- lifetime --- */

struct stacktree *stacktree__new(size_t max_nodes)
{
	struct stacktree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	/* Child counts are 32-bit. */
	if (!max_nodes || max_nodes > UINT32_MAX / 2)
		max_nodes = max_nodes ? UINT32_MAX / 2 : STACKTREE_MAX_NODES;
	t->max_nodes = max_nodes;
	t->root = node_new(t, STACKTREE_ROOT_NAME, STACKTREE_KIND_ROOT, NULL);
	if (!t->root) {
		stacktree__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

int stacktree__from_profile(const struct profile *p, struct stacktree **out)
{
	struct stacktree *t = stacktree__new(0);
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	err = stacktree__add_profile(t, p, STACKTREE_MAIN);
	if (err) {
		stacktree__free(t);
		return err;
	}
	*out = t;
	return 0;
}

void stacktree__free(struct stacktree *t)
{
	struct stacktree_chunk *c;
	struct stacktree_node *nodes;
	size_t i, n;

	if (!t)
		return;
	/* Every node sits in a node chunk, so their child arrays can be freed
	 * without walking the tree. */
	for (c = t->node_chunks; c; c = c->next) {
		nodes = (struct stacktree_node *)c->data;
		n = c->used / sizeof(*nodes);
		for (i = 0; i < n; i++)
			free(nodes[i].children);
	}
	chunks_free(t->node_chunks);
	chunks_free(t->name_chunks);
	free(t);
}
