/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* elfsym.h - the function symbols, load segments and build ID of one ELF
 * file, read with libelf.
 *
 * An ELF file named by a target process is untrusted: the process can map
 * a crafted file. Everything read from it is bounds-checked (header, counts,
 * section sizes, string offsets), the file size and symbol count are
 * capped, and the file is read with pread (ELF_C_READ), never mapped, so a
 * file truncated under us cannot raise SIGBUS. Malformed parts are skipped;
 * a file that is not a usable executable or shared object fails to open.
 *
 * What is kept, all copied out of the file so nothing stays open:
 *   - function symbols (STT_FUNC, STT_GNU_IFUNC, defined) from .symtab, or
 *     from .dynsym when .symtab is absent or holds none; sorted by address,
 *     aliases at one address collapsed to the best name (sized over
 *     zero-sized, fewer leading underscores, global over weak over local,
 *     shorter, then alphabetical); a zero-sized symbol extends to the next
 *     symbol or the end of its section, whichever comes first;
 *   - the PT_LOAD segments, to turn a file offset into a virtual address;
 *   - the ELF type (ET_EXEC or ET_DYN), the GNU build ID as hex, and the
 *     .gnu_debuglink file name and CRC, if any.
 * Only native-endian (little-endian on x86) ELF32 and ELF64 files are
 * accepted.
 */
#ifndef TRAPD_ELFSYM_H
#define TRAPD_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFSYM_MAX_FILE_SIZE (2ull << 30)   /* bytes of an ELF file */
#define ELFSYM_MAX_SYMBOLS (4u << 20)	    /* function symbols kept */
#define ELFSYM_MAX_TABLE_ENTRIES (8u << 20) /* entries of a table read */
#define ELFSYM_MAX_STRTAB (256u << 20)	    /* bytes of its string table */
#define ELFSYM_MAX_SECTIONS (1u << 20)
#define ELFSYM_MAX_SEGMENTS 256				  /* PT_LOAD headers kept */
#define ELFSYM_MAX_NAME 4096				  /* longer names are cut */
#define ELFSYM_MAX_NAME_BYTES (256u << 20)		  /* all names kept together */
#define ELFSYM_MAX_BUILD_ID 64				  /* bytes of a build ID */
#define ELFSYM_BUILD_ID_HEX (2 * ELFSYM_MAX_BUILD_ID + 1) /* its hex, with the NUL */
#define ELFSYM_MAX_DEBUGLINK 255			  /* bytes of a .gnu_debuglink name */

enum elfsym_source {
	ELFSYM_SOURCE_NONE,   /* no function symbols */
	ELFSYM_SOURCE_SYMTAB, /* from .symtab */
	ELFSYM_SOURCE_DYNSYM, /* from .dynsym */
};

struct elfsym;

/* elfsym__open - load the ELF file at @path (must be a regular file of at
 * most ELFSYM_MAX_FILE_SIZE bytes). NULL and errno on failure: ENOEXEC for
 * a file that is not a usable ELF executable or shared object, E2BIG when
 * too big, or the errno of open. Free with elfsym__free. */
struct elfsym *elfsym__open(const char *path);

/* elfsym__open_fd - the same from an open file descriptor @fd (read with
 * pread from offset 0; the caller keeps ownership of @fd). */
struct elfsym *elfsym__open_fd(int fd);

/* What one load may read of symbol tables: the bytes of a table and its
 * string table together, and the entries of a table (symbols of every
 * kind, so a table is judged by its header before it is read). A table
 * over either is skipped whole, never cut: .dynsym is tried when .symtab
 * is over, and elfsym__over_limits says so. A table whose header names
 * an invalid string table is skipped too (it would give nothing). */
struct elfsym_limits {
	uint64_t table_bytes;
	uint64_t table_entries;
};

/* elfsym__elf_begin - libelf's handle (ELF_C_READ: pread, never mmap)
 * on the file open at @fd, after the checks every read of it starts with:
 * a regular file of at most ELFSYM_MAX_FILE_SIZE bytes whose ELF, section
 * and program headers fit in it (libelf sizes its allocations from them).
 * *@size gets the file's size. NULL and errno on failure; the caller
 * keeps @fd and ends the handle with elf_end. */
struct Elf *elfsym__elf_begin(int fd, uint64_t *size);

/* elfsym__open_fd_limited - elfsym__open_fd within @lim (NULL: only the
 * fixed caps above). */
struct elfsym *elfsym__open_fd_limited(int fd, const struct elfsym_limits *lim);

/* elfsym__over_limits - which limits made a table be skipped: 0, or
 * ELFSYM_OVER_BYTES and/or ELFSYM_OVER_ENTRIES. */
#define ELFSYM_OVER_BYTES 1u
#define ELFSYM_OVER_ENTRIES 2u
unsigned elfsym__over_limits(const struct elfsym *e);

/* elfsym__table_bytes - bytes of symbol and string tables read. */
uint64_t elfsym__table_bytes(const struct elfsym *e);

/* elfsym__open_mem - the same from the image @buf[0..len), which must be
 * writable and unchanged while the call runs (libelf may convert it in
 * place); nothing refers to it afterwards. */
struct elfsym *elfsym__open_mem(void *buf, size_t len);

void elfsym__free(struct elfsym *e);

/* elfsym__lookup - the name of the function containing the virtual
 * address @vaddr, or NULL when no symbol covers it (an address past the
 * end of one symbol and before the next is not resolved). *@sym_addr, if
 * not NULL, gets the symbol's start. The name lives as long as @e. */
const char *elfsym__lookup(const struct elfsym *e, uint64_t vaddr, uint64_t *sym_addr);

/* elfsym__offset_to_vaddr - the virtual address at file offset @off:
 * off - p_offset + p_vaddr of the PT_LOAD segment whose file bytes hold
 * @off. Returns 0 or -ENOENT when no segment does. */
int elfsym__offset_to_vaddr(const struct elfsym *e, uint64_t off, uint64_t *vaddr);

/* elfsym__vaddr_to_offset - the reverse: the file offset of the virtual
 * address @vaddr, within a segment's file bytes. 0 or -ENOENT. */
int elfsym__vaddr_to_offset(const struct elfsym *e, uint64_t vaddr, uint64_t *off);

/* elfsym__find - the start address of the function named @name (one of
 * the kept names: of aliases at one address only the best is kept).
 * Returns 0 or -ENOENT. A linear scan: for setting probes, not for
 * symbolizing. */
int elfsym__find(const struct elfsym *e, const char *name, uint64_t *vaddr);

/* elfsym__type - ET_EXEC or ET_DYN. */
int elfsym__type(const struct elfsym *e);

/* elfsym__build_id - the GNU build ID as lower-case hex, "" if none. */
const char *elfsym__build_id(const struct elfsym *e);

/* elfsym__read_build_id - only the GNU build ID of the file open at @fd,
 * as hex into @out (ELFSYM_BUILD_ID_HEX bytes; "" if it has none): much
 * cheaper than elfsym__open_fd, for finding a file already loaded under
 * another name. 0 or a negative errno (as elfsym__open_fd's). */
int elfsym__read_build_id(int fd, char *out);

/* elfsym__debuglink - the file name in .gnu_debuglink (a plain name, never
 * a path) and, if @crc is not NULL, the CRC-32 the debug file must have;
 * NULL when the file has no usable link. */
const char *elfsym__debuglink(const struct elfsym *e, uint32_t *crc);

/* elfsym__memory - about how many bytes of memory @e holds. */
size_t elfsym__memory(const struct elfsym *e);

/* elfsym__count - the number of function symbols kept. */
size_t elfsym__count(const struct elfsym *e);

/* elfsym__source - which table the symbols came from. */
enum elfsym_source elfsym__source(const struct elfsym *e);

#endif
