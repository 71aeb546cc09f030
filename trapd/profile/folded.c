// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* folded.c - the stacktree as folded stack lines. */
#include "trapd/profile/folded.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* Depth 0 is the root, which folded stacks leave out; the process is the
 * first frame of every line. */
#define MAX_PATH (PROFILE_MAX_DEPTH + 2)

struct folded_walk {
	FILE *out;
	const struct stacktree_node *path[MAX_PATH];
};

static void write_frame(FILE *out, const char *name)
{
	const char *semi;

	while ((semi = strchr(name, ';'))) {
		fwrite(name, 1, (size_t)(semi - name), out);
		fputc(':', out);
		name = semi + 1;
	}
	fputs(name, out);
}

static void write_line(struct folded_walk *w, uint32_t len, int64_t count)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (i)
			fputc(';', w->out);
		write_frame(w->out, w->path[i]->name);
	}
	fprintf(w->out, " %" PRId64 "\n", count);
}

/* walk - pre-order, so a stack comes before the longer stacks through it.
 * @len nodes of the path (process first) are already in w->path. */
static void walk(struct folded_walk *w, const struct stacktree_node *n, uint32_t len)
{
	uint32_t i;

	if (n->depth > 0) {
		if (len >= MAX_PATH)
			return;
		w->path[len++] = n;
		if (n->self > 0)
			write_line(w, len, n->self);
	}
	for (i = 0; i < n->nchildren; i++)
		if (n->children[i]->total > 0)
			walk(w, n->children[i], len);
}

int folded_write(FILE *out, const struct stacktree *t)
{
	struct folded_walk w = { .out = out };

	walk(&w, t->root, 0);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
