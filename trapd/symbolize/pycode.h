/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* pycode.h - a Python code object as the sampler read it: its names and
 * the line of an instruction.
 *
 * The sampler sends, at a code object's first sample in a window, the raw
 * bytes of its qualified name, file name and line table
 * (struct sampler_py_code). They come from a target's memory and may be
 * anything: the object's type and every string's type, kind and length
 * are checked against the interpreter (pyruntime.h) before a name is
 * believed, and the line table is decoded within its bytes. A code object
 * that fails a check has no name (and the reason is counted); a name is
 * never guessed.
 */
#ifndef TRAPD_PYCODE_H
#define TRAPD_PYCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpf/sampler.h"
#include "trapd/symbolize/pyruntime.h"

/* A name decoded: UTF-8, control characters replaced by '?', "..." at the
 * end when the sampler's copy cut it. */
#define PYCODE_NAME_MAX (4 * SAMPLER_PY_NAME_MAX + 4)

struct pycode {
	char qualname[PYCODE_NAME_MAX];
	char filename[PYCODE_NAME_MAX];
	int32_t firstlineno;
	const uint8_t *lines; /* the line table as copied (borrowed from the record) */
	uint32_t nlines;
	bool lines_cut;	  /* the table is longer than the copy: later lines unknown */
	uint16_t co_code; /* offset of the first instruction in the code object */
};

/* Why a code object has no name. */
enum pycode_error {
	PYCODE_OK = 0,
	PYCODE_NOT_CODE,     /* its type is not PyCode_Type: freed or not code */
	PYCODE_BAD_NAME,     /* its qualified name is no string trapd can read */
	PYCODE_BAD_FILENAME, /* ... its file name */
	PYCODE_TRUNCATED,    /* the record is shorter than its header says */
};

/* pycode__decode - check the @size bytes of @rec (the record as received,
 * possibly cut) against @rt and fill @out (whose @lines point into @rec).
 * Returns PYCODE_OK or the reason it cannot be named; a bad line table
 * only loses lines. */
enum pycode_error pycode__decode(const struct sampler_py_code *rec, size_t size,
				 const struct pyruntime *rt, struct pycode *out);

/* pycode__line - the source line of the instruction at byte @instr_off of
 * the code object (struct sampler_py_frame's offset); 0 when unknown. */
int32_t pycode__line(const struct pycode *c, uint32_t instr_off);

/* pycode__line_at - the same on a bare 3.11+ location table (co_linetable)
 * of @n bytes, for the instruction @index code units from the start. */
int32_t pycode__line_at(const uint8_t *table, size_t n, int32_t firstlineno, uint32_t index);

/* pycode__error_name - "not a code object" and the like. */
const char *pycode__error_name(enum pycode_error e);

#endif
