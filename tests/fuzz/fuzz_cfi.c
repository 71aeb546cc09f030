// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_cfi.c - libFuzzer harness: the input is an ELF image with (or
 * without) .eh_frame, loaded from a file descriptor (a memfd, as a
 * target's file is read) and from memory (as the vDSO is). Loading must
 * never crash; a loaded image must answer rules, function ranges and
 * offset conversions within their promises, and every expression of a
 * rule must evaluate or fail, over a stack made of the input itself. The
 * kernel walk's table of the image (unwind_table.h) must build or fail
 * within its row bound, sorted, every row of a known kind, and be found
 * by its own search. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/unwind_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *data;
	size_t size;
};

/* The input is the stack, at address 0x10000. */
static int mem_read(void *ctx, uint64_t addr, uint64_t *val)
{
	const struct mem *m = ctx;

	if (addr < 0x10000 || addr - 0x10000 > m->size || m->size - (addr - 0x10000) < 8)
		return -ERANGE;
	memcpy(val, m->data + (addr - 0x10000), 8);
	return 0;
}

static void check_rule(struct cfi *c, const struct cfi_rule *r, const struct mem *m)
{
	struct cfi_regs regs = { 0x401000, 0x10000, 0x10040, true };
	uint64_t v;

	if (r->kind > CFI_RULE_VAL_EXPR)
		__builtin_trap();
	if (r->kind == CFI_RULE_EXPR || r->kind == CFI_RULE_VAL_EXPR) {
		if (!r->expr)
			__builtin_trap();
		cfi__eval(c, r->expr, &regs, 0x10010, mem_read, (void *)m, &v);
	}
}

static void probe_pc(struct cfi *c, uint64_t pc, const struct mem *m)
{
	uint64_t start, end;
	struct cfi_row row;
	int err;

	err = cfi__rule(c, pc, pc & 1, &row);
	if (err && err != -ENOENT && err != -EINVAL)
		__builtin_trap();
	if (!err) {
		check_rule(c, &row.cfa, m);
		check_rule(c, &row.ra, m);
		check_rule(c, &row.rbp, m);
		check_rule(c, &row.rsp, m);
	}
	if (!cfi__function_range(c, pc, &start, &end) && (pc < start || pc >= end))
		__builtin_trap();
}

static void probe(struct cfi *c, const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	uint64_t v, pc;
	size_t i;

	for (pc = 0; pc < 0x3000; pc += 0x7)
		probe_pc(c, pc, &m);
	for (i = 0; i + 8 <= size && i < 512; i += 8) {
		memcpy(&v, data + i, sizeof(v));
		probe_pc(c, v, &m);
		probe_pc(c, v & 0xffff, &m);
		if (!cfi__offset_to_vaddr(c, v & 0xffffff, &pc))
			probe_pc(c, pc, &m);
	}
}

static void check_table(struct cfi *c)
{
	struct unwind_table t;
	uint32_t i;
	int err;

	err = unwind_table__build(c, 4096, &t);
	if (err && err != -E2BIG && err != -ENOMEM)
		__builtin_trap();
	if (err)
		return;
	if (t.n > 4096)
		__builtin_trap();
	for (i = 0; i < t.n; i++) {
		if ((t.rows[i].kind & SAMPLER_UNWIND_KIND_MASK) >= SAMPLER_UNWIND_KINDS)
			__builtin_trap();
		if (i && t.rows[i].off <= t.rows[i - 1].off)
			__builtin_trap();
		if (unwind_table__find(&t, t.rows[i].off) != &t.rows[i])
			__builtin_trap();
	}
	unwind_table__release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct cfi *c;

	if (fd < 0)
		fd = memfd_create("fuzz_cfi", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	c = cfi__open_fd(fd, 1u << 20);
	if (c) {
		probe(c, data, size);
		check_table(c);
		cfi__free(c);
	}
	c = cfi__open_mem(data, size, 1u << 20);
	if (c) {
		probe(c, data, size);
		cfi__free(c);
	}
	return 0;
}
