// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwind_table.c - a file's CFI rows reduced to the kernel walk's table
 * (unwind_table.h). */
#include "trapd/symbolize/unwind_table.h"

#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/cfi_expr.h"

#define FIRST_CAP 1024u

struct build {
	struct cfi *c;
	struct unwind_table *t;
	uint32_t max_rows;
	uint64_t end; /* file offset where the last row's pcs end */
};

#define MAX_FAR 65536 /* far CFA offsets a table can hold: @cfa indexes them */

/* near_words - @off bytes as a row's CFA offset in words, when it is a
 * multiple of 8 within the twelve bits that leave room for a fold
 * (16 KiB either way). */
static bool near_words(int64_t off, int16_t *words)
{
	if (off % 8 || off / 8 < -2048 || off / 8 > 2047)
		return false;
	*words = (int16_t)(off / 8);
	return true;
}

/* far_index - the index of CFA offset @off among @t's far offsets, added
 * if new; -1 when there is no room. */
static int far_index(struct unwind_table *t, int32_t off)
{
	uint32_t i, cap;
	int32_t *grown;

	for (i = 0; i < t->nfar; i++)
		if (t->far[i] == off)
			return (int)i;
	if (t->nfar >= MAX_FAR)
		return -1;
	if (t->nfar == t->far_cap) {
		cap = t->far_cap ? t->far_cap * 2 : 16;
		grown = realloc(t->far, cap * sizeof(*grown));
		if (!grown)
			return -1;
		t->far = grown;
		t->far_cap = cap;
	}
	t->far[t->nfar] = off;
	return (int)t->nfar++;
}

/* cfa_field - the row's @cfa for an offset of @off bytes: its words, or
 * when it is not near, SAMPLER_UNWIND_WIDE and its far index (false when
 * there is no room: the row cannot say it). */
static bool cfa_field(struct unwind_table *t, int64_t off, struct sampler_unwind_row *row)
{
	int16_t words;
	int i;

	if (near_words(off, &words)) {
		row->cfa = SAMPLER_UNWIND_CFA(words, 0);
		return true;
	}
	if (off < INT32_MIN || off > INT32_MAX || (i = far_index(t, (int32_t)off)) < 0)
		return false;
	row->kind |= SAMPLER_UNWIND_WIDE;
	row->cfa = (int16_t)(uint16_t)i;
	return true;
}

/* plt_bound - whether @ops is GCC's PLT expression, sp + 8 + (((pc & 15)
 * >= K) << 3): a stub's CFA moves by a push at byte K of each 16. */
static bool plt_bound(const struct cfi_op *op, size_t n, int16_t *bound)
{
	if (n != 9 || op[0].atom != DW_OP_breg7 || op[0].n1 != 8 || op[1].atom != DW_OP_breg16 ||
	    op[1].n1 != 0 || op[2].atom != DW_OP_lit15 || op[3].atom != DW_OP_and ||
	    op[4].atom < DW_OP_lit0 || op[4].atom > DW_OP_lit15 || op[5].atom != DW_OP_ge ||
	    op[6].atom != DW_OP_lit3 || op[7].atom != DW_OP_shl || op[8].atom != DW_OP_plus)
		return false;
	*bound = (int16_t)(op[4].atom - DW_OP_lit0);
	return true;
}

/* cfa_kind - the row's CFA as one of the table's kinds, with its offset
 * in *@off; SAMPLER_UNWIND_INVALID when it is none of them. */
static unsigned cfa_kind(const struct cfi *c, const struct cfi_rule *cfa, int64_t *off)
{
	const struct cfi_op *op;
	int16_t bound;
	size_t n;

	if (cfa->kind == CFI_RULE_VAL_OFFSET) {
		*off = cfa->off;
		if (cfa->reg == CFI_REG_RSP)
			return SAMPLER_UNWIND_CFA_SP;
		if (cfa->reg == CFI_REG_RBP)
			return SAMPLER_UNWIND_CFA_BP;
		return SAMPLER_UNWIND_INVALID;
	}
	if (cfa->kind != CFI_RULE_VAL_EXPR || cfi_expr__of(c, cfa->expr, &op, &n))
		return SAMPLER_UNWIND_INVALID;
	if (plt_bound(op, n, &bound)) {
		*off = bound;
		return SAMPLER_UNWIND_PLT;
	}
	/* *(rbp + off): a function that realigned its stack */
	if (n == 2 && op[0].atom == DW_OP_breg6 && op[1].atom == DW_OP_deref) {
		*off = (int64_t)op[0].n1;
		return SAMPLER_UNWIND_CFA_BP_DEREF;
	}
	return SAMPLER_UNWIND_INVALID;
}

/* row_of - @r (NULL: a rule cfi.h could not give) as a row of @t. */
static struct sampler_unwind_row row_of(struct unwind_table *t, const struct cfi *c,
					const struct cfi_row *r)
{
	struct sampler_unwind_row out = { .kind = SAMPLER_UNWIND_INVALID };
	int64_t off = 0;
	unsigned kind;

	if (!r)
		return out;
	if (r->signal) {
		out.kind = SAMPLER_UNWIND_SIGNAL;
		return out;
	}
	if (r->ra.kind == CFI_RULE_UNDEFINED) {
		out.kind = SAMPLER_UNWIND_ENTRY;
		return out;
	}
	if (r->ra.kind != CFI_RULE_OFFSET || r->ra.off != -8)
		return out;
	kind = cfa_kind(c, &r->cfa, &off);
	if (kind == SAMPLER_UNWIND_INVALID)
		return out;
	out.kind = (uint8_t)kind;
	if (kind == SAMPLER_UNWIND_PLT)
		out.cfa = (int16_t)off;
	else if (!cfa_field(t, off, &out))
		return (struct sampler_unwind_row){ .kind = SAMPLER_UNWIND_INVALID };
	if (r->rbp.kind == CFI_RULE_OFFSET && r->rbp.off % 8 == 0 && r->rbp.off / 8 >= INT8_MIN &&
	    r->rbp.off / 8 <= INT8_MAX) {
		out.kind |= SAMPLER_UNWIND_RBP_SAVED;
		out.rbp = (int8_t)(r->rbp.off / 8);
	} else if (r->rbp.kind != CFI_RULE_SAME) {
		out.kind |= SAMPLER_UNWIND_RBP_LOST;
	}
	return out;
}

static bool same_rule(const struct sampler_unwind_row *a, const struct sampler_unwind_row *b)
{
	return a->kind == b->kind && a->rbp == b->rbp && a->cfa == b->cfa;
}

static bool foldable_kind(uint8_t kind)
{
	if (kind & SAMPLER_UNWIND_WIDE)
		return false;
	kind &= SAMPLER_UNWIND_KIND_MASK;
	return kind == SAMPLER_UNWIND_CFA_SP || kind == SAMPLER_UNWIND_CFA_BP;
}

/* ends_as - whether @b is the rule @a ends with: @a's own, or past its
 * fold, @a's moved by a word. */
static bool ends_as(const struct sampler_unwind_row *a, const struct sampler_unwind_row *b)
{
	int words;

	if (!SAMPLER_UNWIND_CFA_FOLD(a->cfa) || !foldable_kind(a->kind))
		return same_rule(a, b);
	words = SAMPLER_UNWIND_CFA_WORDS(a->cfa) + (a->kind & SAMPLER_UNWIND_FOLD_POP ? -1 : 1);
	return (a->kind & ~SAMPLER_UNWIND_FOLD_POP) == b->kind && a->rbp == b->rbp &&
	       b->cfa == SAMPLER_UNWIND_CFA(words, 0);
}

/* fold - @b folded into @a (the row before it) when it is @a's rule with
 * the CFA a word further or nearer, a few bytes on (a push or a pop). */
static bool fold(struct sampler_unwind_row *a, const struct sampler_unwind_row *b)
{
	int step = SAMPLER_UNWIND_CFA_WORDS(b->cfa) - SAMPLER_UNWIND_CFA_WORDS(a->cfa);
	uint32_t at = b->off - a->off;

	if (SAMPLER_UNWIND_CFA_FOLD(a->cfa) || SAMPLER_UNWIND_CFA_FOLD(b->cfa) ||
	    !foldable_kind(a->kind) || a->kind != b->kind || a->rbp != b->rbp || at < 1 ||
	    at > 15 || (step != 1 && step != -1))
		return false;
	a->cfa = SAMPLER_UNWIND_CFA(SAMPLER_UNWIND_CFA_WORDS(a->cfa), at);
	if (step < 0)
		a->kind |= SAMPLER_UNWIND_FOLD_POP;
	return true;
}

static int push(struct build *b, struct sampler_unwind_row row)
{
	struct unwind_table *t = b->t;
	struct sampler_unwind_row *grown;
	uint32_t cap;

	if (t->n && t->rows[t->n - 1].off == row.off) {
		/* an empty gap or row: the later row holds from here */
		t->stats.rows[t->rows[t->n - 1].kind & SAMPLER_UNWIND_KIND_MASK]--;
		t->n--;
	}
	if (t->n && (ends_as(&t->rows[t->n - 1], &row) || fold(&t->rows[t->n - 1], &row))) {
		t->stats.folded++;
		return 0;
	}
	if (t->n >= b->max_rows)
		return -E2BIG;
	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : FIRST_CAP;
		if (cap > b->max_rows)
			cap = b->max_rows;
		grown = realloc(t->rows, (size_t)cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		t->rows = grown;
		t->cap = cap;
	}
	t->rows[t->n++] = row;
	t->stats.rows[row.kind & SAMPLER_UNWIND_KIND_MASK]++;
	t->stats.rbp_lost += !!(row.kind & SAMPLER_UNWIND_RBP_LOST);
	return 0;
}

static int on_row(void *ctx, uint64_t start, uint64_t end, const struct cfi_row *r, int err)
{
	struct build *b = ctx;
	struct sampler_unwind_row row;
	uint64_t off, last;
	int e;

	if (cfi__vaddr_to_exec_offset(b->c, start, &off) ||
	    cfi__vaddr_to_exec_offset(b->c, end - 1, &last) || last - off != end - 1 - start) {
		b->t->stats.dropped++;
		return 0;
	}
	if (last >= UINT32_MAX)
		return -E2BIG;
	if (b->t->n && off < b->end) {
		b->t->stats.dropped++; /* overlaps the FDE before */
		return 0;
	}
	if (b->t->n && off > b->end) {
		e = push(b, (struct sampler_unwind_row){ .off = (uint32_t)b->end,
							 .kind = SAMPLER_UNWIND_GAP });
		if (e)
			return e;
	}
	row = row_of(b->t, b->c, err ? NULL : r);
	row.off = (uint32_t)off;
	b->end = last + 1;
	return push(b, row);
}

int unwind_table__build(struct cfi *c, uint32_t max_rows, struct unwind_table *t)
{
	struct build b = { .c = c, .t = t, .max_rows = max_rows };
	int e;

	memset(t, 0, sizeof(*t));
	/* folding makes fewer rows of the CFI's: the bound on the work */
	e = cfi__for_each_row(c, (uint64_t)max_rows * UNWIND_TABLE_CFI_ROWS_PER_ROW, on_row, &b);
	if (!e && t->n)
		e = push(&b, (struct sampler_unwind_row){ .off = (uint32_t)b.end,
							  .kind = SAMPLER_UNWIND_GAP });
	if (e)
		unwind_table__release(t);
	return e;
}

void unwind_table__release(struct unwind_table *t)
{
	free(t->rows);
	free(t->far);
	memset(t, 0, sizeof(*t));
}

const struct sampler_unwind_row *unwind_table__find(const struct unwind_table *t, uint32_t off)
{
	uint32_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

int32_t unwind_table__cfa_offset(const struct unwind_table *t, const struct sampler_unwind_row *r,
				 uint32_t off)
{
	int32_t words = SAMPLER_UNWIND_CFA_WORDS(r->cfa);
	uint32_t fold = SAMPLER_UNWIND_CFA_FOLD(r->cfa);

	if (r->kind & SAMPLER_UNWIND_WIDE)
		return (uint16_t)r->cfa < t->nfar ? t->far[(uint16_t)r->cfa] : 0;
	if (fold && off - r->off >= fold)
		words += r->kind & SAMPLER_UNWIND_FOLD_POP ? -1 : 1;
	return words * 8;
}

const char *unwind_table__kind_name(unsigned kind)
{
	static const char *const names[SAMPLER_UNWIND_KINDS] = {
		[SAMPLER_UNWIND_GAP] = "gap",	    [SAMPLER_UNWIND_CFA_SP] = "cfa_sp",
		[SAMPLER_UNWIND_CFA_BP] = "cfa_bp", [SAMPLER_UNWIND_CFA_BP_DEREF] = "cfa_bp_deref",
		[SAMPLER_UNWIND_PLT] = "plt",	    [SAMPLER_UNWIND_SIGNAL] = "signal",
		[SAMPLER_UNWIND_ENTRY] = "entry",   [SAMPLER_UNWIND_INVALID] = "invalid",
	};

	kind &= SAMPLER_UNWIND_KIND_MASK;
	return kind < SAMPLER_UNWIND_KINDS ? names[kind] : "?";
}
