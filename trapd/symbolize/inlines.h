/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* inlines.h - which functions the compiler inlined at an address, from the
 * DWARF of an ELF file (.debug_info and the sections it needs).
 *
 * An optimised build inlines small functions into their callers, so the
 * symbol table names only the function an address is really in; the
 * DWARF knows the chain (DW_TAG_inlined_subroutine scopes nested in the
 * DW_TAG_subprogram), the line in each caller where the inlined call was
 * (DW_AT_call_line), and the line of the address itself (the line table).
 * perf report --inline shows the same.
 *
 * The file is hostile input. It is read with pread (ELF_C_READ), never
 * mapped; the DWARF sections together may not pass a byte limit (the
 * capture's symbolization budget), counting a compressed section at its
 * uncompressed size, so nothing decompresses past it; every section is
 * read once when the file is opened and nothing keeps the file open. A
 * lookup walks the DIE tree without recursion, at most INLINES_MAX_NEST
 * scopes deep and INLINES_MAX_VISITS DIEs. libdw is never let to open
 * another file: a file naming a supplementary file (.gnu_debugaltlink,
 * dwz) or split DWARF units (.dwo) gives no inline frames for those
 * parts. A malformed file gives no frames, never more than it holds.
 *
 * Thread-safe: one object can serve several captures' workers (libdw's
 * own caches are filled under a lock).
 */
#ifndef TRAPD_INLINES_H
#define TRAPD_INLINES_H

#include <stddef.h>
#include <stdint.h>

#define INLINES_MAX_BYTES (1ull << 30) /* DWARF bytes of one file */
#define INLINES_MAX_NEST 64	       /* DIE nesting walked by a lookup */
#define INLINES_MAX_VISITS (1u << 18)  /* DIEs one lookup may visit */
#define INLINES_MAX_CUS (1u << 18)     /* compilation units scanned */

/* One function of an address's inline chain. Strings live as long as the
 * struct inlines they came from. */
struct inlines_frame {
	const char *name;      /* linkage (mangled) name when there is one, else the name */
	const char *decl_file; /* source file the function is declared in; NULL if unknown */
	int64_t decl_line;     /* its line there, 0 if unknown */
	int64_t line;	       /* the line executing in this function, 0 if unknown */
	int has_linkage_name;  /* @name is a linkage name (may need demangling) */
};

struct inlines;

/* inlines__open_fd - the DWARF of the ELF file open at @fd (the caller
 * keeps @fd; nothing refers to it afterwards), when its DWARF sections
 * hold at most @max_bytes (capped at INLINES_MAX_BYTES). *@bytes gets
 * what they hold (what was read, or would have been). NULL and errno:
 * ENOENT without .debug_info, E2BIG over the limit, ENOTSUP for a form
 * not handled (ET_REL, .zdebug sections), ENOEXEC for an unusable ELF or
 * DWARF, ENOMEM. Free with inlines__free. */
struct inlines *inlines__open_fd(int fd, uint64_t max_bytes, uint64_t *bytes);

/* inlines__open_mem - the same from the image @buf[0..len) (writable,
 * unchanged while the call runs; for the fuzzer and tests). */
struct inlines *inlines__open_mem(void *buf, size_t len, uint64_t max_bytes, uint64_t *bytes);

void inlines__free(struct inlines *in);

/* inlines__lookup - the inline chain at the virtual address @vaddr (of
 * the file, as its symbols are; for a return address pass the address of
 * the call, minus one): @out[0] the innermost inlined function, the last
 * the function the address is in; at most @max frames (chains deeper
 * keep their innermost @max - 1 and the outermost). Returns how many
 * frames (0: no DWARF covers @vaddr, or it is malformed there). */
unsigned inlines__lookup(struct inlines *in, uint64_t vaddr, struct inlines_frame *out,
			 unsigned max);

/* inlines__bytes - the bytes of DWARF sections @in read (0 for NULL). */
uint64_t inlines__bytes(const struct inlines *in);

/* inlines__memory - about how many bytes @in holds now. It grows after
 * the file is opened: a unit's first lookup makes an index of its
 * functions (at most 2^18 entries, 6 MiB, a file). Safe while other
 * threads look up. */
size_t inlines__memory(struct inlines *in);

#endif
