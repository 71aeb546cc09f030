/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* symcache.h - the symbol tables of ELF files, kept from one capture to
 * the next within a memory bound.
 *
 * Loading the symbols of a big binary or of libc costs milliseconds to
 * hundreds of milliseconds; a daemon capturing the same services again
 * should not pay it again. Every table is found by the identity of the
 * file it was read from, (device, inode, mtime, size) as fstat sees the
 * open file, never by path: two containers with different files at one
 * path, or a binary replaced by an upgrade, never share a table. A file
 * with a GNU build ID that is new to the cache is first matched by its
 * build ID (read alone, which is cheap), so the same library in two
 * container images is loaded once.
 *
 * Entries are reference counted: a symbolizer holds the ones its capture
 * uses, and only unreferenced entries are evicted, least recently used
 * first, when the cache holds more than its bound. A cache with bound 0
 * keeps nothing unreferenced (a one-shot capture).
 *
 * A table loaded short of what the file holds, because the capture's
 * symbolization budget (symbudget.h) refused part of it, serves that
 * capture only: it is never found again and goes once unreferenced.
 *
 * Thread-safe: a daemon's captures are symbolized on worker threads while
 * its event loop reads the statistics.
 */
#ifndef TRAPD_SYMCACHE_H
#define TRAPD_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trapd/symbolize/debugfile.h"
#include "trapd/symbolize/elfsym.h"
#include "trapd/symbolize/fderange.h"
#include "trapd/symbolize/inlines.h"

/* One loaded file. Read-only outside symcache.c. */
struct symcache_entry {
	struct elfsym *elf;   /* the file's own: segments, build ID; NULL if unusable */
	struct elfsym *debug; /* the symbols of its debug file, NULL if none */
	char *debug_from;     /* where that was found ("root:PATH", "host:PATH") */
	/* The FDE ranges of @elf, read only when its symbols may leave code
	 * unnamed (no .symtab, no debug file); NULL otherwise or if none. */
	struct fderange *fde;
	/* The DWARF of @elf's own file, when it has .debug_info: inline
	 * chains; NULL otherwise (a debug file's DWARF is not read yet). */
	struct inlines *inl;
	int load_errno; /* why @elf is NULL */
	/* private */
	struct symcache_id *ids;
	size_t nids;
	uint32_t refs;
	uint64_t last_use;
	size_t bytes;
	size_t inl_bytes; /* of @bytes, @inl's: it grows with lookups */
	bool partial;	  /* cut by a budget: never shared */
};

struct symcache_stats {
	uint64_t hits;		/* found by file identity */
	uint64_t build_id_hits; /* a new identity of a file already loaded */
	uint64_t loads;		/* read and parsed */
	uint64_t evictions;
	size_t entries;
	size_t bytes; /* about what the entries hold */
};

struct symcache;

/* What probing a file for a CPython interpreter (pyruntime.h) found. The
 * probe reads every symbol of the file (100 ms for node's; a file made to
 * look like an interpreter can hold millions), so its answer is kept by
 * the file's identity, apart from the tables: a table cut by a budget or
 * evicted forgets nothing, and a target that starts the same file again
 * and again (a fork storm) is probed once. SYMCACHE_PYTHON_VERDICTS
 * answers at most, one slot each by a hash of the identity (a collision
 * forgets the older: it is probed again, within its budget). */
enum symcache_python {
	SYMCACHE_PYTHON_UNKNOWN,
	SYMCACHE_PYTHON_NONE,	 /* no interpreter in it (no _PyRuntime) */
	SYMCACHE_PYTHON_REFUSED, /* one trapd cannot walk */
};

#define SYMCACHE_PYTHON_VERDICTS 4096

/* symcache__python - what a probe of the file open at @fd found
 * (UNKNOWN: never probed, or forgotten), with the interpreter's version
 * for REFUSED (0 unknown) into *@version. */
enum symcache_python symcache__python(struct symcache *c, int fd, uint32_t *version);

/* symcache__set_python - remember @verdict (NONE or REFUSED, with
 * @version) for the file open at @fd. */
void symcache__set_python(struct symcache *c, int fd, enum symcache_python verdict,
			  uint32_t version);

/* symcache__new - a cache keeping at most @max_bytes of unreferenced
 * tables. NULL and errno on failure. */
struct symcache *symcache__new(size_t max_bytes);

/* symcache__free - free @c and every entry, referenced or not (the owner
 * of a private cache may skip the puts). */
void symcache__free(struct symcache *c);

/* symcache__set_limit - change the bound (evicting at once if needed). */
void symcache__set_limit(struct symcache *c, size_t max_bytes);

/* symcache__get - the entry of the file open at @fd, loaded (with its
 * debug file, looked for through @where and @path, the path the target
 * maps it from; within @where->budget, charged for what is read) when
 * the cache does not have it. A referenced entry; NULL
 * and errno only when out of memory or @fd cannot be stat'ed. Give it
 * back with symcache__put. */
struct symcache_entry *symcache__get(struct symcache *c, int fd,
				     const struct debugfile_search *where, const char *path);

/* symcache__put - drop a reference from symcache__get, counting again
 * what the entry holds (its DWARF indexes grow with lookups). Nothing is
 * evicted here: call symcache__trim after giving back a batch. */
void symcache__put(struct symcache *c, struct symcache_entry *e);

/* symcache__trim - evict unreferenced entries, least recently used first,
 * down to the bound (symcache__get and symcache__set_limit do it too). */
void symcache__trim(struct symcache *c);

/* symcache__lookup - the function of @e containing @vaddr, from the debug
 * file when there is one; NULL if none. */
const char *symcache__lookup(const struct symcache_entry *e, uint64_t vaddr, uint64_t *sym_addr);

/* symcache__fde_start - the start of the FDE of @e holding @vaddr (for
 * code no symbol covers): 0, or -ENOENT when @e has no FDE ranges or
 * none holds @vaddr. */
int symcache__fde_start(const struct symcache_entry *e, uint64_t vaddr, uint64_t *start);

void symcache__get_stats(const struct symcache *c, struct symcache_stats *out);

#endif
