// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* symcache.c - a reference-counted, size-bounded cache of ELF symbol
 * tables keyed by file identity and build ID.
 *
 * A daemon sees hundreds of files, not millions, and looks each up once
 * per capture (the symbolizer keeps its own per-capture table), so the
 * entries are a plain array scanned linearly.
 */
#include "trapd/symbolize/symcache.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trapd/symbolize/symbudget.h"
#include "trapd/util/log.h"

/* A file identity; an entry has one per file it was matched to (the same
 * build ID under several inodes), at most MAX_IDS, newest last. */
struct symcache_id {
	uint64_t dev, ino, size;
	int64_t mtime_ns;
};

#define MAX_IDS 16

/* One remembered probe (symcache__python). */
struct python_verdict {
	struct symcache_id id;
	uint32_t version;
	uint8_t verdict; /* enum symcache_python; UNKNOWN: an empty slot */
};

struct symcache {
	pthread_mutex_t lock; /* every public function but lookup holds it */
	struct symcache_entry **entries;
	size_t n, cap;
	size_t max_bytes, bytes;
	uint64_t clock; /* ticks on every get: the LRU order */
	struct symcache_stats stats;
	struct python_verdict python[SYMCACHE_PYTHON_VERDICTS];
};

static int identity_of(int fd, struct symcache_id *id)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = (uint64_t)st.st_size;
	id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

static bool same_id(const struct symcache_id *a, const struct symcache_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

static struct symcache_entry *find_id(const struct symcache *c, const struct symcache_id *id)
{
	size_t i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; !c->entries[i]->partial && j < c->entries[i]->nids; j++)
			if (same_id(&c->entries[i]->ids[j], id))
				return c->entries[i];
	return NULL;
}

static struct symcache_entry *find_build_id(const struct symcache *c, const char *bid)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->entries[i]->elf && !c->entries[i]->partial &&
		    !strcmp(elfsym__build_id(c->entries[i]->elf), bid))
			return c->entries[i];
	return NULL;
}

static void entry_free(struct symcache_entry *e)
{
	elfsym__free(e->elf);
	elfsym__free(e->debug);
	fderange__free(e->fde);
	inlines__free(e->inl);
	free(e->debug_from);
	free(e->ids);
	free(e);
}

/* add_id - remember that @id is @e's file too; the oldest alias goes
 * when there are MAX_IDS. */
static int add_id(struct symcache_entry *e, const struct symcache_id *id)
{
	if (!e->ids) {
		e->ids = calloc(MAX_IDS, sizeof(*e->ids));
		if (!e->ids)
			return -ENOMEM;
	}
	if (e->nids == MAX_IDS) {
		memmove(e->ids, e->ids + 1, (MAX_IDS - 1) * sizeof(*e->ids));
		e->nids--;
	}
	e->ids[e->nids++] = *id;
	return 0;
}

static void remove_at(struct symcache *c, size_t i)
{
	struct symcache_entry *e = c->entries[i];

	c->bytes -= e->bytes;
	c->entries[i] = c->entries[--c->n];
	entry_free(e);
	c->stats.evictions++;
}

/* evict - drop unreferenced entries, least recently used first, until
 * the cache is within its bound. */
static void evict(struct symcache *c)
{
	bool freed = false;
	size_t i, victim;

	for (i = 0; i < c->n;) {
		if (c->entries[i]->partial && !c->entries[i]->refs) {
			remove_at(c, i); /* moves the last entry here */
			freed = true;
		} else {
			i++;
		}
	}
	while (c->bytes > c->max_bytes) {
		victim = c->n;
		for (i = 0; i < c->n; i++)
			if (!c->entries[i]->refs &&
			    (victim == c->n ||
			     c->entries[i]->last_use < c->entries[victim]->last_use))
				victim = i;
		if (victim == c->n)
			break; /* everything left is in use */
		remove_at(c, victim);
		freed = true;
	}
	/* Symbol tables are many small allocations: give the pages back so a
	 * daemon idles small. */
	if (freed)
		malloc_trim(0);
}

static uint64_t budget_refusals(const struct symbudget *b)
{
	uint64_t n = 0;
	int i;

	for (i = 0; b && i < SYMBUDGET_NR; i++)
		n += b->refused[i];
	return n;
}

/* find_debug - the debug file of @e's stripped ELF (open at @fd), if it
 * has none yet: one owned by root or by the ELF file's owner. */
static void find_debug(struct symcache_entry *e, const struct debugfile_search *where, int fd,
		       const char *path)
{
	uint64_t refused = budget_refusals(where->budget);
	struct debugfile_search w = *where;
	char found[PATH_MAX + 8];
	struct stat st;

	if (!e->elf || e->debug || !debugfile__wanted(e->elf))
		return;
	w.bin_owner = fstat(fd, &st) ? -1 : (long)st.st_uid;
	e->debug = debugfile__load(&w, path, e->elf, found, sizeof(found));
	if (budget_refusals(where->budget) != refused)
		e->partial = true; /* a candidate was not proven or not read */
	if (!e->debug)
		return;
	e->debug_from = strdup(found);
	e->bytes += elfsym__memory(e->debug);
	log_debug("symbols of %s from %s", path, found);
}

/* find_fde - the FDE ranges of @e's file, open at @fd, when its symbols
 * may leave code unnamed: .dynsym lacks static functions, and a file
 * with a debug file or a .symtab has them all. Charged to @b like
 * symbol tables: bytes read, ranges kept. */
static void find_fde(struct symcache_entry *e, int fd, struct symbudget *b)
{
	struct fderange_limits lim = {
		.bytes = symbudget__left(b, SYMBUDGET_BYTES),
		.ranges = symbudget__left(b, SYMBUDGET_SYMBOLS),
	};
	struct fderange_limits spent;
	unsigned over;

	if (!e->elf || e->debug || e->fde || elfsym__source(e->elf) == ELFSYM_SOURCE_SYMTAB)
		return;
	e->fde = fderange__open_fd(fd, &lim, &spent, &over);
	symbudget__charge(b, SYMBUDGET_BYTES, spent.bytes);
	symbudget__charge(b, SYMBUDGET_SYMBOLS, spent.ranges);
	if (over & FDERANGE_OVER_BYTES)
		symbudget__refuse(b, SYMBUDGET_BYTES);
	if (over & FDERANGE_OVER_RANGES)
		symbudget__refuse(b, SYMBUDGET_SYMBOLS);
	if (over && b)
		e->partial = true; /* another capture's budget may allow it */
	e->bytes += fderange__memory(e->fde);
}

/* find_inlines - the DWARF of @e's file, open at @fd, when it has
 * .debug_info (a binary built with -g and not stripped): inline chains.
 * Its DWARF sections are charged to @b as bytes read. */
static void find_inlines(struct symcache_entry *e, int fd, struct symbudget *b)
{
	uint64_t bytes = 0;

	if (!e->elf)
		return;
	e->inl = inlines__open_fd(fd, symbudget__left(b, SYMBUDGET_BYTES), &bytes);
	if (e->inl) {
		symbudget__charge(b, SYMBUDGET_BYTES, bytes);
	} else if (errno == E2BIG && bytes <= INLINES_MAX_BYTES && b) {
		symbudget__refuse(b, SYMBUDGET_BYTES);
		e->partial = true; /* another capture's budget may allow it */
	}
	e->inl_bytes = inlines__memory(e->inl);
	e->bytes += e->inl_bytes;
}

/* recount_inlines - charge @c for what @e's inline chains grew to since
 * last counted: a unit's function index is made at its first lookup. */
static void recount_inlines(struct symcache *c, struct symcache_entry *e)
{
	size_t now = inlines__memory(e->inl);

	if (now <= e->inl_bytes)
		return;
	e->bytes += now - e->inl_bytes;
	c->bytes += now - e->inl_bytes;
	e->inl_bytes = now;
}

/* load - a new entry for the file open at @fd. */
static struct symcache_entry *load(const int fd, const struct debugfile_search *where,
				   const char *path)
{
	struct symcache_entry *e = calloc(1, sizeof(*e));
	struct elfsym_limits lim;

	if (!e)
		return NULL;
	e->bytes = sizeof(*e) + MAX_IDS * sizeof(struct symcache_id);
	symbudget__elf_limits(where->budget, &lim);
	e->elf = elfsym__open_fd_limited(fd, where->budget ? &lim : NULL);
	symbudget__charge_elf(where->budget, e->elf);
	e->partial = e->elf && elfsym__over_limits(e->elf);
	if (!e->elf) {
		e->load_errno = errno;
		if (errno == ENOMEM) {
			free(e);
			return NULL;
		}
		return e;
	}
	e->bytes += elfsym__memory(e->elf);
	find_debug(e, where, fd, path);
	find_fde(e, fd, where->budget);
	find_inlines(e, fd, where->budget);
	return e;
}

static int append(struct symcache *c, struct symcache_entry *e)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct symcache_entry **t = realloc(c->entries, ncap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		c->entries = t;
		c->cap = ncap;
	}
	c->entries[c->n++] = e;
	c->bytes += e->bytes;
	return 0;
}

static struct symcache_entry *take(struct symcache *c, struct symcache_entry *e)
{
	e->refs++;
	e->last_use = ++c->clock;
	return e;
}

static struct symcache_entry *get_locked(struct symcache *c, int fd,
					 const struct debugfile_search *where, const char *path)
{
	char bid[ELFSYM_BUILD_ID_HEX];
	struct symcache_entry *e;
	struct symcache_id id;
	int err;

	err = identity_of(fd, &id);
	if (err) {
		errno = -err;
		return NULL;
	}
	e = find_id(c, &id);
	if (e) {
		c->stats.hits++;
		return take(c, e);
	}
	if (!elfsym__read_build_id(fd, bid) && bid[0]) {
		e = find_build_id(c, bid);
		if (e && !add_id(e, &id)) {
			size_t before = e->bytes;

			c->stats.build_id_hits++;
			find_debug(e, where, fd, path); /* this root may have it */
			c->bytes += e->bytes - before;
			return take(c, e);
		}
	}
	e = load(fd, where, path);
	if (!e || add_id(e, &id) || append(c, e)) {
		if (e)
			entry_free(e);
		errno = ENOMEM;
		return NULL;
	}
	c->stats.loads++;
	take(c, e);
	evict(c);
	return e;
}

struct symcache_entry *symcache__get(struct symcache *c, int fd,
				     const struct debugfile_search *where, const char *path)
{
	struct symcache_entry *e;
	int err;

	pthread_mutex_lock(&c->lock);
	e = get_locked(c, fd, where, path);
	err = errno;
	pthread_mutex_unlock(&c->lock);
	errno = err;
	return e;
}

void symcache__put(struct symcache *c, struct symcache_entry *e)
{
	if (!c || !e)
		return;
	pthread_mutex_lock(&c->lock);
	recount_inlines(c, e);
	if (e->refs)
		e->refs--;
	pthread_mutex_unlock(&c->lock);
}

void symcache__trim(struct symcache *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	evict(c);
	pthread_mutex_unlock(&c->lock);
}

const char *symcache__lookup(const struct symcache_entry *e, uint64_t vaddr, uint64_t *sym_addr)
{
	if (e->debug)
		return elfsym__lookup(e->debug, vaddr, sym_addr);
	return e->elf ? elfsym__lookup(e->elf, vaddr, sym_addr) : NULL;
}

int symcache__fde_start(const struct symcache_entry *e, uint64_t vaddr, uint64_t *start)
{
	return e->fde ? fderange__lookup(e->fde, vaddr, start, NULL) : -ENOENT;
}

/* --- what probes for an interpreter found ----------------------------------- */

static struct python_verdict *verdict_slot(struct symcache *c, const struct symcache_id *id)
{
	uint64_t h = id->dev * 0x9e3779b97f4a7c15ull ^ id->ino * 0xff51afd7ed558ccdull ^
		     (uint64_t)id->mtime_ns * 0xc4ceb9fe1a85ec53ull ^ id->size;

	return &c->python[(h ^ h >> 29) % SYMCACHE_PYTHON_VERDICTS];
}

enum symcache_python symcache__python(struct symcache *c, int fd, uint32_t *version)
{
	enum symcache_python v = SYMCACHE_PYTHON_UNKNOWN;
	struct python_verdict *slot;
	struct symcache_id id;

	*version = 0;
	if (identity_of(fd, &id))
		return v;
	pthread_mutex_lock(&c->lock);
	slot = verdict_slot(c, &id);
	if (slot->verdict != SYMCACHE_PYTHON_UNKNOWN && same_id(&slot->id, &id)) {
		v = (enum symcache_python)slot->verdict;
		*version = slot->version;
	}
	pthread_mutex_unlock(&c->lock);
	return v;
}

void symcache__set_python(struct symcache *c, int fd, enum symcache_python verdict,
			  uint32_t version)
{
	struct python_verdict *slot;
	struct symcache_id id;

	if (identity_of(fd, &id))
		return;
	pthread_mutex_lock(&c->lock);
	slot = verdict_slot(c, &id);
	slot->id = id;
	slot->verdict = (uint8_t)verdict;
	slot->version = version;
	pthread_mutex_unlock(&c->lock);
}

struct symcache *symcache__new(size_t max_bytes)
{
	struct symcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->max_bytes = max_bytes;
	return c;
}

void symcache__set_limit(struct symcache *c, size_t max_bytes)
{
	pthread_mutex_lock(&c->lock);
	c->max_bytes = max_bytes;
	evict(c);
	pthread_mutex_unlock(&c->lock);
}

void symcache__free(struct symcache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		entry_free(c->entries[i]);
	free(c->entries);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void symcache__get_stats(const struct symcache *c, struct symcache_stats *out)
{
	struct symcache *m = (struct symcache *)c; /* the lock, not the cache, changes */

	pthread_mutex_lock(&m->lock);
	*out = c->stats;
	out->entries = c->n;
	out->bytes = c->bytes;
	pthread_mutex_unlock(&m->lock);
}
