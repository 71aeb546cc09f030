// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* symbolizer.c - resolve user and kernel stack addresses into profile
 * locations, from per-process snapshots of executable mappings, a cache of
 * loaded ELF files and the kernel's symbol table.
 *
 * Objects:
 *   struct sym_file  one mapped object, keyed by (device, inode, path) as
 *                    /proc/PID/maps shows them, shared by every process
 *                    that maps it; holds the loaded ELF symbols, if any.
 *   struct sym_map   one executable mapping of one process.
 *   struct pid_maps  the mappings of one process, sorted by start; every
 *                    snapshot adds the mappings it did not have.
 *
 * ELF files are loaded during the snapshot, while the process lives, so
 * that a file seen through the process's root (a container) or through
 * map_files (a deleted file) can still be read; a process that exits
 * later is symbolized from what was loaded.
 */
#include "trapd/symbolize/symbolizer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trapd/symbolize/debugfile.h"
#include "trapd/symbolize/demangle.h"
#include "trapd/symbolize/elfsym.h"
#include "trapd/symbolize/ksyms.h"
#include "trapd/symbolize/mapped_file.h"
#include "trapd/symbolize/perfmap.h"
#include "trapd/symbolize/prockey.h"
#include "trapd/symbolize/procmaps.h"
#include "trapd/symbolize/pyruntime.h"
#include "trapd/symbolize/symbudget.h"
#include "trapd/symbolize/symcache.h"
#include "trapd/util/log.h"

#define MAX_MAPS_PER_PID PROCMAPS_MAX_ENTRIES
#define JIT_PATH "//anon" /* anonymous code's mapping, named as perf names it */
#define VDSO_PATH "[vdso]"
#define VDSO_MAX (1u << 20) /* bytes of a vDSO image; it is a few pages */
/* Processes whose /tmp a symbolizer keeps open to read their perf maps
 * after they exit: each fd pins that directory's mount until the free.
 * Those no snapshot saw JIT code in (yet) get at most half. */
#define MAX_JIT_DIRS 64
/* users whose processes get a share of the budget each (user_budget) */
#define MAX_USER_SHARES 64
/* Perf map entries this close together share one mapping of JIT code
 * that no snapshot saw, and a process gets at most this many. */
#define JIT_SPAN_GAP (64u << 10)
#define MAX_JIT_SPANS 1024

struct sym_file {
	uint64_t dev; /* major << 32 | minor, as in maps */
	uint64_t ino;
	char *path;
	uint64_t hash;
	struct symcache_entry *ent; /* a file's symbols; NULL: not opened */
	struct elfsym *vdso;	    /* the vDSO's, which is no file */
	int open_errno;		    /* why @ent is NULL */
	bool retry;		    /* opening failed for want of access: try again */
	bool over_budget;	    /* not loaded: the capture's time was spent */
	bool is_file;		    /* a real file, not "[vdso]" and the like */
	bool not_python;	    /* probed: no CPython interpreter in it */
	uint64_t frames, named;	    /* user frames in it, and those named */
	uint64_t fde_grouped;	    /* ... unnamed but grouped by FDE */
	struct sym_file *next;
};

struct sym_map {
	uint64_t start, end, pgoff;
	uint64_t max_end; /* highest end of this and all earlier maps */
	uint32_t gen;	  /* snapshot that added it; newer wins on overlap */
	struct sym_file *file;
};

struct pid_maps {
	int pid;
	uint32_t gen;
	struct sym_map *maps;
	size_t n, cap;
	struct perfmap jit;		/* its /tmp/perf-PID.map, when it has JIT code */
	bool has_jit;			/* it maps anonymous code */
	int jit_dir;			/* its /tmp, kept to read the map after it exits; -1 */
	struct perfmap_owner jit_owner; /* whose map is read from @jit_dir */
	struct pyruntime *py;		/* its CPython interpreter, NULL if none known */
	struct symbudget *budget;	/* its user's share (user_budget), from its snapshot */
	bool py_refused;		/* one was found that trapd cannot walk */
};

struct symbolizer {
	char *proc_root;
	struct symcache *cache; /* where files' symbols come from */
	bool own_cache;
	struct pid_maps **pids; /* open addressing on pid */
	size_t pids_cap, npids;
	struct sym_file **files; /* chained buckets */
	size_t files_cap, nfiles;
	struct ksyms *ksyms;
	bool ksyms_tried;
	symbolizer_kernel_names_fn knames_fn; /* preferred over kallsyms */
	void *knames_ctx;
	char (*knames_buf)[SYMBOLIZER_KNAME_LEN]; /* PROFILE_MAX_DEPTH names */
	struct symbolizer_stats stats;
	struct symbolizer_file_stats *file_stats; /* from symbolizer__file_stats */
	struct symbudget *budget;		  /* NULL: the fixed caps only */
	struct demangle_cache *demangler;	  /* NULL until a mangled name is met */
	unsigned njit_dirs;			  /* pid_maps.jit_dir kept open */
	symbolizer_python_fn python_fn;		  /* told of each interpreter found */
	void *python_ctx;
	prockey_current_fn current_fn; /* whether a process key's life is its pid's still */
	void *current_ctx;
	/* the budget's shares by the user a process runs as (user_budget) */
	struct user_share {
		uid_t uid;
		struct symbudget share;
	} shares[MAX_USER_SHARES];
	unsigned nshares;
};

/* user_budget - the share of the budget of the user process @pid runs
 * as (the owner of /proc/PID): what one user's processes map cannot take
 * another's symbols. The whole budget when the user is unknown, and
 * for the users past MAX_USER_SHARES. NULL without a budget. */
static struct symbudget *user_budget(struct symbolizer *s, int pid)
{
	char path[PATH_MAX];
	struct stat st;
	unsigned i;

	if (!s->budget)
		return NULL;
	snprintf(path, sizeof(path), "%s/%d", s->proc_root, pid);
	if (stat(path, &st))
		return s->budget;
	for (i = 0; i < s->nshares; i++)
		if (s->shares[i].uid == st.st_uid)
			return &s->shares[i].share;
	if (s->nshares == MAX_USER_SHARES)
		return s->budget;
	s->shares[i].uid = st.st_uid;
	symbudget__share(&s->shares[i].share, s->budget, SYMBUDGET_USER_SHARE);
	s->nshares++;
	return &s->shares[i].share;
}

/* life_holds - whether /proc/PID is still the life of process @key (see
 * symbolizer__check_lives); true when nothing says otherwise. */
static bool life_holds(const struct symbolizer *s, int key)
{
	return prockey_lasts(s->current_fn, s->current_ctx, key);
}

/* --- the process table ------------------------------------------------ */

static size_t pid_slot(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static struct pid_maps *pid_find(const struct symbolizer *s, int pid)
{
	size_t i;

	if (!s->pids_cap)
		return NULL;
	for (i = pid_slot(pid, s->pids_cap); s->pids[i]; i = (i + 1) & (s->pids_cap - 1))
		if (s->pids[i]->pid == pid)
			return s->pids[i];
	return NULL;
}

static int pid_table_grow(struct symbolizer *s)
{
	size_t ncap = s->pids_cap ? s->pids_cap * 2 : 64, i, j;
	struct pid_maps **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < s->pids_cap; i++) {
		if (!s->pids[i])
			continue;
		for (j = pid_slot(s->pids[i]->pid, ncap); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = s->pids[i];
	}
	free(s->pids);
	s->pids = nt;
	s->pids_cap = ncap;
	return 0;
}

static struct pid_maps *pid_get(struct symbolizer *s, int pid)
{
	struct pid_maps *pm = pid_find(s, pid);
	size_t i;

	if (pm)
		return pm;
	if ((s->npids + 1) * 10 > s->pids_cap * 7 && pid_table_grow(s))
		return NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	pm->pid = pid;
	pm->jit_dir = -1;
	for (i = pid_slot(pid, s->pids_cap); s->pids[i]; i = (i + 1) & (s->pids_cap - 1))
		;
	s->pids[i] = pm;
	s->npids++;
	return pm;
}

/* file_elf - the ELF image of @f (segments, build ID), NULL if none. */
static const struct elfsym *file_elf(const struct sym_file *f)
{
	return f->ent ? f->ent->elf : f->vdso;
}

/* cache_of - @s's symbol cache: the one it was given, or its own, made
 * the first time it is needed; NULL when out of memory. */
static struct symcache *cache_of(struct symbolizer *s)
{
	if (!s->cache) {
		s->cache = symcache__new(0);
		s->own_cache = s->cache != NULL;
	}
	return s->cache;
}

/* load_file - the symbols of @f, from the cache, for the mapping @e of
 * @pm's process, within its user's share of the budget. */
static void load_file(struct symbolizer *s, struct sym_file *f, const struct pid_maps *pm,
		      const struct procmaps_entry *e)
{
	int fd, pid = prockey_pid(pm->pid);
	struct debugfile_search where = {
		.proc_root = s->proc_root,
		.host_root = "",
		.pid = pid,
		.budget = pm->budget,
	};
	struct symcache_stats before, after;

	if (symbudget__expired(s->budget)) {
		f->retry = false;
		f->over_budget = true;
		return;
	}
	if (!cache_of(s))
		return;
	fd = mapped_file_open(s->proc_root, pid, e);
	if (fd < 0) {
		/* Another process may let us reach the same file. */
		f->retry = true;
		f->open_errno = -fd;
		log_debug("symbolizer: pid %d: cannot open %s: %s", pid, f->path, strerror(-fd));
		return;
	}
	f->retry = false;
	symcache__get_stats(s->cache, &before);
	f->ent = symcache__get(s->cache, fd, &where, e->path);
	symcache__get_stats(s->cache, &after);
	if (after.loads > before.loads)
		s->stats.files_loaded++;
	else if (f->ent)
		s->stats.files_cached++;
	if (!f->ent)
		f->open_errno = errno;
	else if (!f->ent->elf)
		log_debug("symbolizer: %s: no symbols: %s", f->path, strerror(f->ent->load_errno));
	/* cut by one user's share: another user's process that maps it may
	 * load the rest within its own */
	if (f->ent && f->ent->partial && pm->budget != s->budget &&
	    symbudget__left(s->budget, SYMBUDGET_BYTES))
		f->retry = true;
	close(fd);
}

/* load_vdso - the symbols of the vDSO, from our own: the kernel maps the
 * same image into every native process. Its section headers end it, so
 * the header says how long it is. NULL (and a debug line) if unusable. */
static struct elfsym *load_vdso(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct elfsym *e = NULL;
	uint64_t len;
	void *copy;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64) {
		log_debug("symbolizer: no 64-bit vDSO of our own to read");
		return NULL;
	}
	len = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (len < sizeof(*eh) || len > VDSO_MAX)
		return NULL;
	copy = malloc(len); /* libelf may convert the image in place */
	if (copy) {
		memcpy(copy, eh, len);
		e = elfsym__open_mem(copy, len);
		free(copy);
	}
	if (!e)
		log_debug("symbolizer: vDSO: no symbols: %s", strerror(errno));
	return e;
}

/* --- the file cache --------------------------------------------------- */

static uint64_t file_hash(uint64_t dev, uint64_t ino, const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull ^ dev ^ (ino * 0x9e3779b97f4a7c15ull);

	for (; *path; path++) {
		h ^= (unsigned char)*path;
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

static int file_table_grow(struct symbolizer *s)
{
	size_t ncap = s->files_cap ? s->files_cap * 2 : 256, i;
	struct sym_file **nt = calloc(ncap, sizeof(*nt)), *f, *next;

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < s->files_cap; i++) {
		for (f = s->files[i]; f; f = next) {
			next = f->next;
			f->next = nt[f->hash & (ncap - 1)];
			nt[f->hash & (ncap - 1)] = f;
		}
	}
	free(s->files);
	s->files = nt;
	s->files_cap = ncap;
	return 0;
}

/* file_get - the cache entry for the object behind mapping @e, loading
 * its ELF symbols when it is new (or failed before for want of access).
 * NULL only when out of memory. */
static struct sym_file *file_get(struct symbolizer *s, const struct pid_maps *pm,
				 const struct procmaps_entry *e)
{
	uint64_t dev = (uint64_t)e->dev_major << 32 | e->dev_minor;
	uint64_t h = file_hash(dev, e->inode, e->path);
	struct sym_file *f;

	if (s->files_cap) {
		for (f = s->files[h & (s->files_cap - 1)]; f; f = f->next) {
			if (f->hash != h || f->dev != dev || f->ino != e->inode ||
			    strcmp(f->path, e->path) != 0)
				continue;
			if (f->retry)
				load_file(s, f, pm, e);
			return f;
		}
	}
	if (s->nfiles >= s->files_cap && file_table_grow(s))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(e->path);
	if (!f->path) {
		free(f);
		return NULL;
	}
	f->dev = dev;
	f->ino = e->inode;
	f->hash = h;
	f->is_file = e->kind == PROCMAPS_FILE;
	f->next = s->files[h & (s->files_cap - 1)];
	s->files[h & (s->files_cap - 1)] = f;
	s->nfiles++;
	if (f->is_file)
		load_file(s, f, pm, e);
	else if (!strcmp(f->path, VDSO_PATH))
		f->vdso = load_vdso();
	return f;
}

/* --- snapshots -------------------------------------------------------- */

static int map_cmp(const void *pa, const void *pb)
{
	const struct sym_map *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

/* has_map - whether @pm (sorted) already holds exactly this mapping. */
static bool has_map(const struct pid_maps *pm, size_t nsorted, const struct procmaps_entry *e,
		    const struct sym_file *f)
{
	size_t lo = 0, hi = nsorted, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pm->maps[mid].start < e->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nsorted && pm->maps[lo].start == e->start; lo++)
		if (pm->maps[lo].end == e->end && pm->maps[lo].pgoff == e->offset &&
		    pm->maps[lo].file == f)
			return true;
	return false;
}

static int add_map(struct pid_maps *pm, const struct procmaps_entry *e, struct sym_file *f)
{
	struct sym_map *m;

	if (pm->n == pm->cap) {
		size_t ncap = pm->cap ? pm->cap * 2 : 32;

		m = realloc(pm->maps, ncap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		pm->maps = m;
		pm->cap = ncap;
	}
	m = &pm->maps[pm->n++];
	m->start = e->start;
	m->end = e->end;
	m->pgoff = e->offset;
	m->gen = pm->gen;
	m->file = f;
	return 0;
}

static void sort_maps(struct pid_maps *pm)
{
	uint64_t max_end = 0;
	size_t i;

	if (pm->n) /* a process without executable mappings has no array */
		qsort(pm->maps, pm->n, sizeof(*pm->maps), map_cmp);
	for (i = 0; i < pm->n; i++) {
		if (pm->maps[i].end > max_end)
			max_end = pm->maps[i].end;
		pm->maps[i].max_end = max_end;
	}
}

/* keep_jit_dir - open the /tmp of @pm's process, which it lives in now,
 * to read its perf map from there until the end, even after it exits:
 * the runtime flushes the last of its map only then, and its
 * /proc/PID/root is gone by then. Every process snapshotted gets one
 * while they last (MAX_JIT_DIRS), since a runtime may map its first code
 * after the last snapshot; a newer snapshot opens it again, since the
 * process may have exec'd into a mount namespace with a /tmp of its own.
 * The others (and one whose /tmp cannot be opened) are read through /proc
 * while they live. */
static void keep_jit_dir(struct symbolizer *s, struct pid_maps *pm, bool jit)
{
	struct perfmap_owner owner;
	int fd;

	if (pm->jit_dir < 0 && s->njit_dirs >= (jit ? MAX_JIT_DIRS : MAX_JIT_DIRS / 2))
		return;
	fd = perfmap__open_tmp(s->proc_root, prockey_pid(pm->pid), &owner);
	if (fd < 0)
		log_debug("symbolizer: pid %d: its /tmp: %s", prockey_pid(pm->pid), strerror(-fd));
	/* an older /tmp, when a newer one cannot be opened, may not be its */
	if (pm->jit_dir >= 0) {
		close(pm->jit_dir);
		s->njit_dirs--;
	}
	pm->jit_dir = -1;
	if (fd >= 0) {
		pm->jit_dir = fd;
		pm->jit_owner = owner;
		s->njit_dirs++;
	}
}

/* drop_jit_spans - forget the mappings add_jit_spans made (gen 0). */
static void drop_jit_spans(struct pid_maps *pm)
{
	size_t i, k = 0;

	for (i = 0; i < pm->n; i++)
		if (pm->maps[i].gen)
			pm->maps[k++] = pm->maps[i];
	pm->n = k;
}

/* Building the mappings of JIT code no snapshot saw (add_jit_spans). */
struct jit_cover {
	struct pid_maps *pm;
	struct sym_file *f; /* the file of anonymous code */
	size_t n0, j;	    /* the snapshots' mappings, and the next to pass */
	uint64_t covered;   /* the end of those passed */
	size_t nspans;
};

/* add_jit_span - a mapping of JIT code over [@start, @end), gen 0. */
static int add_jit_span(struct jit_cover *c, uint64_t start, uint64_t end)
{
	struct procmaps_entry e = { .start = start, .end = end, .kind = PROCMAPS_ANON };
	int err;

	if (++c->nspans > MAX_JIT_SPANS || c->pm->n >= MAX_MAPS_PER_PID)
		return -E2BIG;
	err = add_map(c->pm, &e, c->f);
	if (!err)
		c->pm->maps[c->pm->n - 1].gen = 0;
	return err;
}

/* cover_span - mappings over the parts of [@a, @b) that no snapshot's
 * mapping holds: they never overlap one, so lookups stay as short as
 * they were. Spans come in order and do not overlap. */
static int cover_span(struct jit_cover *c, uint64_t a, uint64_t b)
{
	uint64_t cur = a > c->covered ? a : c->covered, start, end;
	int err = 0;

	for (; !err && c->j < c->n0 && c->pm->maps[c->j].start < b; c->j++) {
		/* copied: adding a mapping may move the array */
		start = c->pm->maps[c->j].start;
		end = c->pm->maps[c->j].end;
		if (start > cur)
			err = add_jit_span(c, cur, start);
		if (end > c->covered)
			c->covered = end;
		if (c->covered > cur)
			cur = c->covered;
	}
	if (!err && cur < b)
		err = add_jit_span(c, cur, b);
	return err;
}

/* add_jit_spans - mappings of JIT code over what @pm's perf map names:
 * a runtime maps new code pages after the snapshot (and a process that
 * exited is snapshotted no more), so its hottest code may lie where no
 * snapshot saw executable memory. Entries close together share one
 * mapping; where a snapshot saw a mapping, that one stays. */
static void add_jit_spans(struct symbolizer *s, struct pid_maps *pm)
{
	struct procmaps_entry anon = { .kind = PROCMAPS_ANON, .path = JIT_PATH };
	const struct perfmap *m = &pm->jit;
	struct jit_cover c = { .pm = pm };
	uint64_t start = 0, end = 0;
	size_t i;
	int err = 0;

	drop_jit_spans(pm);
	c.n0 = pm->n;
	c.f = m->n ? file_get(s, pm, &anon) : NULL;
	for (i = 0; c.f && i < m->n && !err; i++) {
		const struct perfmap_sym *y = &m->syms[i];

		if (i && y->start > end && y->start - end > JIT_SPAN_GAP) {
			err = cover_span(&c, start, end);
			start = y->start;
		}
		if (!i)
			start = y->start;
		if (y->end > end)
			end = y->end;
	}
	if (c.f && !err)
		err = cover_span(&c, start, end);
	if (err)
		log_debug("symbolizer: pid %d: perf map: %s", prockey_pid(pm->pid),
			  err == -E2BIG ? "too many spans of JIT code" : strerror(-err));
	sort_maps(pm);
}

/* read_jit - (again) the perf map of a process with anonymous code: a
 * runtime appends to it as it compiles, so the newer read replaces the
 * older, unless the file is gone. A process whose /tmp is kept is read
 * from there (also after it exits), the others through /proc. */
static void read_jit(const struct symbolizer *s, struct pid_maps *pm)
{
	uint64_t left = symbudget__left(pm->budget, SYMBUDGET_PERFMAP_BYTES);
	size_t max = left > SIZE_MAX ? SIZE_MAX : (size_t)left;
	struct perfmap m;
	int err;

	if (!left) {
		symbudget__refuse(pm->budget, SYMBUDGET_PERFMAP_BYTES);
		return; /* the old read, if any, stays */
	}
	if (symbudget__expired(pm->budget))
		return;
	if (pm->jit_dir >= 0)
		err = perfmap__read_at(pm->jit_dir, &pm->jit_owner, max, &m);
	else if (life_holds(s, pm->pid))
		err = perfmap__read_max(s->proc_root, prockey_pid(pm->pid), max, &m);
	else
		return; /* its pid is another process's now: the old read stays */
	if (err) {
		if (err != -ENOENT)
			log_debug("symbolizer: pid %d: perf map: %s", prockey_pid(pm->pid),
				  m.error[0] ? m.error : strerror(-err));
		return;
	}
	if (m.nbad || m.truncated)
		log_warn("symbolizer: pid %d: perf map: %zu lines skipped%s", prockey_pid(pm->pid),
			 m.nbad, m.truncated ? ", cut at the size limit" : "");
	symbudget__charge(pm->budget, SYMBUDGET_PERFMAP_BYTES, m.text_bytes);
	if (m.truncated && m.text_bytes == left)
		symbudget__refuse(pm->budget, SYMBUDGET_PERFMAP_BYTES); /* cut by the budget */
	perfmap__free(&pm->jit);
	pm->jit = m;
}

/* update_jit - read @pm's perf map again and cover its code. */
static void update_jit(struct symbolizer *s, struct pid_maps *pm)
{
	read_jit(s, pm);
	add_jit_spans(s, pm);
}

static int snapshot(struct symbolizer *s, int pid);

/* read_exe - the path of @pid's executable as its maps name it ("" if
 * unknown). */
static void read_exe(const struct symbolizer *s, int pid, char *out, size_t len)
{
	char link[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%d/exe", s->proc_root, pid);
	n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	/* as maps says of a file gone */
	if (n > 10 && !strcmp(out + n - 10, " (deleted)"))
		out[n - 10] = '\0';
}

/* might_be_python - a file worth opening to look for an interpreter: the
 * process's executable (python3.11 is statically linked in Debian; an
 * application may embed the interpreter under its own name) or a library
 * named like CPython's (libpython3.12.so.1.0). Each file once. */
static bool might_be_python(const struct procmaps_entry *e, const struct sym_file *f,
			    const char *exe)
{
	const char *base;

	if (e->kind != PROCMAPS_FILE || f->not_python)
		return false;
	base = strrchr(e->path, '/');
	base = base ? base + 1 : e->path;
	return strstr(base, "python") != NULL || !strcmp(e->path, exe);
}

/* refused_python - @pm maps an interpreter trapd cannot walk (@version,
 * 0: unknown): counted, and told once a file (@why NULL: told before). */
static void refused_python(struct symbolizer *s, struct pid_maps *pm,
			   const struct procmaps_entry *e, uint32_t version, const char *why)
{
	char ver[32];

	pm->py_refused = true;
	s->stats.python_refused++;
	if (why)
		log_info("pid %d: %s (Python %s): %s; its Python frames are not walked",
			 prockey_pid(pm->pid), e->path,
			 version ? pyruntime__version(version, ver, sizeof(ver)) : "?", why);
}

/* probe_file - pyruntime__probe of the file open at @fd, charged to the
 * budget (it walks every symbol of the file) and remembered by the
 * file's identity, found or not (symcache.h). Returns as the probe;
 * -EDQUOT when the budget refused it (nothing remembered). */
static int probe_file(struct symbolizer *s, struct symbudget *budget, int fd,
		      const struct procmaps_entry *e, struct pyruntime *rt, char *why,
		      size_t whylen)
{
	int err;

	if (symbudget__expired(budget) || !symbudget__left(budget, SYMBUDGET_BYTES)) {
		symbudget__refuse(budget, SYMBUDGET_BYTES);
		return -EDQUOT;
	}
	memset(rt, 0, sizeof(*rt));
	err = pyruntime__probe(fd, e->start, e->offset, rt, why, whylen);
	symbudget__charge(budget, SYMBUDGET_BYTES, rt->probe_bytes);
	if (err == -ENOENT)
		symcache__set_python(s->cache, fd, SYMCACHE_PYTHON_NONE, 0);
	else if (err == -ENOTSUP)
		symcache__set_python(s->cache, fd, SYMCACHE_PYTHON_REFUSED, rt->version);
	return err;
}

/* probe_python - whether the file @f of mapping @e of @pm (whose
 * executable is @exe) is a CPython interpreter; one trapd can walk is
 * kept and announced. A file is probed once, whatever the processes
 * that map it: what it is, is kept by its identity. */
static void probe_python(struct symbolizer *s, struct pid_maps *pm, const struct procmaps_entry *e,
			 struct sym_file *f, const char *exe)
{
	struct pyruntime rt;
	char why[160], ver[32];
	uint32_t version;
	int fd, err;

	if (!might_be_python(e, f, exe))
		return;
	if (!cache_of(s))
		return;
	fd = mapped_file_open(s->proc_root, prockey_pid(pm->pid), e);
	if (fd < 0)
		return;
	switch (symcache__python(s->cache, fd, &version)) {
	case SYMCACHE_PYTHON_NONE:
		f->not_python = true;
		close(fd);
		return;
	case SYMCACHE_PYTHON_REFUSED:
		close(fd);
		refused_python(s, pm, e, version, NULL);
		return;
	default:
		break;
	}
	err = probe_file(s, pm->budget, fd, e, &rt, why, sizeof(why));
	close(fd);
	if (err == -ENOENT)
		f->not_python = true;
	if (err == -ENOENT || err == -EDQUOT)
		return;
	if (err) {
		refused_python(s, pm, e, rt.version, why);
		return;
	}
	pm->py = malloc(sizeof(*pm->py));
	if (!pm->py)
		return;
	*pm->py = rt;
	s->stats.python_found++;
	log_debug("pid %d: Python %s in %s, _PyRuntime at 0x%llx", prockey_pid(pm->pid),
		  pyruntime__version(rt.version, ver, sizeof(ver)), e->path,
		  (unsigned long long)rt.runtime);
	if (s->python_fn)
		s->python_fn(prockey_pid(pm->pid), pm->py, s->python_ctx);
}

/* eval_mapped - whether the eval loop of @rt is in one of the process's
 * current executable mappings @m: not after an exec. */
static bool eval_mapped(const struct pyruntime *rt, const struct procmaps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (rt->eval_start >= m->entries[i].start && rt->eval_start < m->entries[i].end)
			return true;
	return false;
}

/* find_python - after a snapshot of @pm (whose current executable
 * mappings are @m): the interpreter it runs. One found before is
 * forgotten once its code is no longer mapped (the process exec'd) and
 * looked for again; one still there is told again, as after an exec of
 * the same interpreter at the same place the sampler dropped it. */
static void find_python(struct symbolizer *s, struct pid_maps *pm, const struct procmaps *m,
			const char *exe)
{
	struct sym_file *f;
	size_t i;

	if (pm->py && !eval_mapped(pm->py, m)) {
		free(pm->py);
		pm->py = NULL;
		pm->py_refused = false;
	}
	if (pm->py) {
		if (s->python_fn)
			s->python_fn(prockey_pid(pm->pid), pm->py, s->python_ctx);
		return;
	}
	for (i = 0; i < m->n && !pm->py && !pm->py_refused; i++) {
		const struct procmaps_entry *e = &m->entries[i];

		if (e->kind != PROCMAPS_FILE)
			continue;
		f = file_get(s, pm, e);
		if (f)
			probe_python(s, pm, e, f, exe);
	}
}

const struct pyruntime *symbolizer__python(const struct symbolizer *s, int pid)
{
	const struct pid_maps *pm = pid_find(s, pid);

	return pm ? pm->py : NULL;
}

void symbolizer__check_lives(struct symbolizer *s, prockey_current_fn fn, void *ctx)
{
	s->current_fn = fn;
	s->current_ctx = ctx;
}

void symbolizer__on_python(struct symbolizer *s, symbolizer_python_fn fn, void *ctx)
{
	s->python_fn = fn;
	s->python_ctx = ctx;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int symbolizer__snapshot(struct symbolizer *s, int pid)
{
	uint64_t t0 = mono_ns();
	int err = snapshot(s, pid);

	s->stats.snapshot_ns += mono_ns() - t0;
	return err;
}

static int snapshot(struct symbolizer *s, int key)
{
	struct procmaps pmaps = { 0 };
	char exe[PROCMAPS_MAX_PATH + 1];
	int err, pid = prockey_pid(key);
	struct pid_maps *pm;
	struct sym_file *f;
	size_t i, nsorted;
	bool jit = false;

	if (key < 0 || !life_holds(s, key))
		return -ESRCH;
	err = procmaps__read(s->proc_root, pid, PROCMAPS_EXEC_ONLY, &pmaps);
	if (err)
		return err;
	read_exe(s, pid, exe, sizeof(exe));
	if (pmaps.nbad || pmaps.truncated)
		log_debug("symbolizer: pid %d: %zu bad maps lines%s", pid, pmaps.nbad,
			  pmaps.truncated ? ", truncated" : "");
	pm = pid_get(s, key);
	if (!pm) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (!pm->budget)
		pm->budget = user_budget(s, pid);
	pm->gen++;
	drop_jit_spans(pm); /* a mapping seen now must not match one of them */
	nsorted = pm->n;
	for (i = 0; i < pmaps.n; i++) {
		struct procmaps_entry e = pmaps.entries[i];

		/* Anonymous code is JIT code: its names are in a perf map. */
		if (e.kind == PROCMAPS_ANON) {
			e.path = JIT_PATH;
			jit = true;
		}
		f = file_get(s, pm, &e);
		if (!f) {
			err = -ENOMEM;
			break;
		}
		if (has_map(pm, nsorted, &e, f))
			continue;
		if (pm->n >= MAX_MAPS_PER_PID) {
			log_debug("symbolizer: pid %d: more than %u mappings", pid,
				  MAX_MAPS_PER_PID);
			break;
		}
		err = add_map(pm, &e, f);
		if (err)
			break;
	}
	if (!life_holds(s, key)) {
		/* the process died while it was read: its pid may be another's,
		 * and what was read, that one's */
		log_debug("symbolizer: pid %d: gone while its maps were read", pid);
		pm->n = nsorted;
		err = -ESRCH;
		goto cleanup;
	}
	sort_maps(pm);
	if (!err)
		find_python(s, pm, &pmaps, exe);
	if (jit)
		pm->has_jit = true;
	keep_jit_dir(s, pm, jit);
	if (pm->has_jit)
		update_jit(s, pm);
cleanup:
	procmaps__free(&pmaps);
	return err;
}

void symbolizer__refresh_jit(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->pids_cap; i++)
		if (s->pids[i] && (s->pids[i]->has_jit || s->pids[i]->jit_dir >= 0))
			update_jit(s, s->pids[i]);
}

/* find_map - the newest mapping of @pm holding @addr, NULL if none. */
static const struct sym_map *find_map(const struct pid_maps *pm, uint64_t addr)
{
	const struct sym_map *best = NULL, *m;
	size_t lo = 0, hi = pm->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pm->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Walk back only while some earlier mapping still reaches addr. */
	for (; lo > 0 && pm->maps[lo - 1].max_end > addr; lo--) {
		m = &pm->maps[lo - 1];
		if (addr < m->end && (!best || m->gen > best->gen))
			best = m;
	}
	return best;
}

/* --- building locations ----------------------------------------------- */

static int64_t user_mapping_id(struct profile *p, const struct sym_map *m)
{
	struct profile_mapping pm = {
		.start = m->start,
		.limit = m->end,
		.file_offset = m->pgoff,
	};
	const struct elfsym *elf = file_elf(m->file);
	int64_t fname, bid = 0;

	fname = profile__string(p, m->file->path);
	if (fname < 0)
		return fname;
	if (elf) {
		bid = profile__string(p, elfsym__build_id(elf));
		if (bid < 0)
			return bid;
		pm.has_functions = elfsym__count(elf) > 0 || (m->file->ent && m->file->ent->debug);
	}
	pm.filename = (uint32_t)fname;
	pm.build_id = (uint32_t)bid;
	return profile__add_mapping(p, &pm);
}

/* function_id - the profile function of the symbol @name from @file,
 * shown as @display (0 if @name is NULL), or a negative errno. */
static int64_t function_id(struct profile *p, const char *name, const char *display, uint32_t file)
{
	int64_t n, d;

	if (!name)
		return 0;
	n = profile__string(p, name);
	if (n < 0)
		return n;
	d = display == name ? n : profile__string(p, display);
	if (d < 0)
		return d;
	return profile__add_function(p, (uint32_t)d, (uint32_t)n, file);
}

/* display_name - how the symbol @name from @f is shown: C++ and Rust
 * symbols of ELF files demangled, others as they are. A perf map's names
 * are already what its runtime wants shown (kernel names are C and never
 * come here). */
static const char *display_name(struct symbolizer *s, const struct sym_file *f, const char *name)
{
	if (!strcmp(f->path, JIT_PATH))
		return name;
	if (!s->demangler) {
		if (name[0] != '_')
			return name;
		s->demangler = demangle_cache__new(0);
		if (!s->demangler)
			return name;
	}
	return demangle_cache__get(s->demangler, name);
}

/* elf_name - the function at @addr in the ELF file behind @m (from its
 * debug file when it has one), NULL if none; *@sym_vaddr, if not NULL,
 * gets the function's start as a virtual address of that file. */
static const char *elf_name(const struct sym_map *m, uint64_t addr, uint64_t *sym_vaddr)
{
	const struct elfsym *elf = file_elf(m->file);
	uint64_t vaddr;

	if (!elf || elfsym__offset_to_vaddr(elf, addr - m->start + m->pgoff, &vaddr))
		return NULL;
	if (m->file->ent)
		return symcache__lookup(m->file->ent, vaddr, sym_vaddr);
	return elfsym__lookup(elf, vaddr, sym_vaddr);
}

/* user_name - the function at @addr in @m (@addr is already the address
 * to look up: the pc, or a return address minus one). */
static const char *user_name(const struct pid_maps *pm, const struct sym_map *m, uint64_t addr)
{
	if (!strcmp(m->file->path, JIT_PATH))
		return pm->jit.n ? perfmap__lookup(&pm->jit, addr) : NULL;
	return elf_name(m, addr, NULL);
}

const char *symbolizer__name(struct symbolizer *s, int pid, uint64_t addr)
{
	const struct pid_maps *pm = pid_find(s, pid);
	const struct sym_map *m = pm ? find_map(pm, addr) : NULL;

	return m ? user_name(pm, m, addr) : NULL;
}

int symbolizer__function_start(struct symbolizer *s, int pid, uint64_t addr, uint64_t *start)
{
	const struct pid_maps *pm = pid_find(s, pid);
	const struct sym_map *m = pm ? find_map(pm, addr) : NULL;
	uint64_t sym_vaddr, off;

	if (!m || !elf_name(m, addr, &sym_vaddr) ||
	    elfsym__vaddr_to_offset(file_elf(m->file), sym_vaddr, &off) || off < m->pgoff)
		return -ENOENT;
	*start = m->start + (off - m->pgoff);
	return 0;
}

/* USER_ADDR_END - the end of user space: 47-bit on x86-64 (a process on
 * a 5-level-paging machine only maps above it on request), 48-bit (and up
 * to 52-bit on request) on arm64. */
#if defined(__aarch64__)
#define USER_ADDR_END (1ull << 52)
#else
#define USER_ADDR_END (1ull << 47)
#endif

uint32_t symbolizer__user_frames(const uint64_t *ips, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (ips[i] == 0 || ips[i] >= USER_ADDR_END)
			break;
	return i;
}

/* lookup_addr - a return address points after its call; the call belongs
 * to the byte before it. */
static uint64_t lookup_addr(const uint64_t *ips, uint32_t i)
{
	return i && ips[i] ? ips[i] - 1 : ips[i];
}

/* first_unmapped - the first of frames @ips[@from..@kept) outside every
 * mapping of @pm, @kept when all lie in one. */
static uint32_t first_unmapped(const struct pid_maps *pm, const uint64_t *ips, uint32_t from,
			       uint32_t kept)
{
	uint32_t i;

	for (i = from; i < kept; i++)
		if (!find_map(pm, lookup_addr(ips, i)))
			return i;
	return kept;
}

uint32_t symbolizer__walked_frames(const struct symbolizer *s, int pid, const uint64_t *ips,
				   uint32_t n)
{
	const struct pid_maps *pm = pid_find(s, pid);
	uint32_t kept = symbolizer__user_frames(ips, n);

	if (!pm || !pm->n)
		return kept;
	return first_unmapped(pm, ips, 1, kept);
}

bool symbolizer__maps_hold(const struct symbolizer *s, int pid, const uint64_t *ips, uint32_t n)
{
	const struct pid_maps *pm = pid_find(s, pid);
	uint32_t kept = symbolizer__user_frames(ips, n);

	return pm && first_unmapped(pm, ips, 0, kept) == kept;
}

/* fde_name - for code of @m that no symbol covers: "FILE+0xOFF" with the
 * file offset of the start of the FDE holding @addr, into @buf: the name
 * an unnamed frame shows, but of its function's start, so the frames of
 * one function share one name. NULL if no FDE holds @addr. */
static const char *fde_name(const struct sym_map *m, uint64_t addr, char *buf, size_t len)
{
	const struct elfsym *elf = file_elf(m->file);
	uint64_t vaddr, start, off;
	const char *base;

	if (!m->file->ent || !m->file->ent->fde || !elf ||
	    elfsym__offset_to_vaddr(elf, addr - m->start + m->pgoff, &vaddr) ||
	    symcache__fde_start(m->file->ent, vaddr, &start) ||
	    elfsym__vaddr_to_offset(elf, start, &off))
		return NULL;
	base = strrchr(m->file->path, '/');
	base = base ? base + 1 : m->file->path;
	snprintf(buf, len, "%s+0x%" PRIx64, base, off);
	return buf;
}

/* frame_function - the profile function of the user frame at @addr in
 * @m: its symbol's, else its FDE's (0 if neither), or a negative errno. */
static int64_t frame_function(struct symbolizer *s, struct profile *p, const struct pid_maps *pm,
			      const struct sym_map *m, uint64_t addr)
{
	char buf[PROFILE_MAX_STRING_LEN];
	const char *name = user_name(pm, m, addr), *display;
	int64_t fname;

	m->file->frames++;
	if (name) {
		m->file->named++;
		s->stats.user_named++;
		display = display_name(s, m->file, name);
	} else {
		name = fde_name(m, addr, buf, sizeof(buf));
		if (!name)
			return 0;
		m->file->fde_grouped++;
		display = name;
	}
	fname = profile__string(p, m->file->path);
	if (fname < 0)
		return fname;
	return function_id(p, name, display, (uint32_t)fname);
}

/* inline_function - the profile function of inlined frame @f: its name
 * shown demangled, its source file and start line. */
static int64_t inline_function(struct symbolizer *s, struct profile *p, const struct sym_file *file,
			       const struct inlines_frame *f)
{
	const char *display = f->has_linkage_name ? display_name(s, file, f->name) : f->name;
	int64_t n, d, src;

	n = profile__string(p, f->name);
	d = n < 0 || display == f->name ? n : profile__string(p, display);
	src = d < 0 ? d : profile__string(p, f->decl_file ? f->decl_file : file->path);
	if (src < 0)
		return src;
	return profile__add_function_at(p, (uint32_t)d, (uint32_t)n, (uint32_t)src, f->decl_line);
}

/* frame_location - the location of the user frame at @ip (looked up at
 * @addr) in @m, function @fn: one line, or, where the file's DWARF says
 * functions were inlined at @addr, one line per function of the chain
 * (innermost first, @fn last). Its id or a negative errno. */
static int64_t frame_location(struct symbolizer *s, struct profile *p, const struct sym_map *m,
			      uint32_t map_id, uint64_t ip, uint64_t addr, uint32_t fn)
{
	struct inlines_frame f[PROFILE_MAX_INLINE_DEPTH];
	struct profile_line lines[PROFILE_MAX_INLINE_DEPTH];
	const struct elfsym *elf = file_elf(m->file);
	unsigned n = 0, i;
	uint64_t vaddr;
	int64_t id;

	if (fn && m->file->ent && m->file->ent->inl && elf &&
	    !elfsym__offset_to_vaddr(elf, addr - m->start + m->pgoff, &vaddr))
		n = inlines__lookup(m->file->ent->inl, vaddr, f, PROFILE_MAX_INLINE_DEPTH);
	if (n == 0)
		return profile__add_location(p, map_id, ip, fn);
	for (i = 0; i + 1 < n; i++) {
		id = inline_function(s, p, m->file, &f[i]);
		if (id < 0)
			return id;
		lines[i] = (struct profile_line){ (uint32_t)id, f[i].line };
	}
	/* The function the address is in keeps its symbol's name. */
	lines[n - 1] = (struct profile_line){ fn, f[n - 1].line };
	s->stats.user_inlined += n - 1;
	return profile__add_location_lines(p, map_id, ip, lines, n);
}

int symbolizer__user_stack(struct symbolizer *s, struct profile *p, int pid, const uint64_t *ips,
			   uint32_t n, uint32_t *locs)
{
	const struct pid_maps *pm = pid_find(s, pid);
	const struct sym_map *m;
	int64_t map_id, fn, id;
	uint64_t a;
	uint32_t i;

	if (!pm && n)
		s->stats.pids_without_maps++;
	for (i = 0; i < n; i++) {
		s->stats.user_frames++;
		a = lookup_addr(ips, i);
		m = pm ? find_map(pm, a) : NULL;
		if (!m) {
			id = profile__add_location(p, 0, ips[i], 0);
			goto store;
		}
		map_id = user_mapping_id(p, m);
		if (map_id < 0)
			return (int)map_id;
		fn = frame_function(s, p, pm, m, a);
		if (fn < 0)
			return (int)fn;
		id = frame_location(s, p, m, (uint32_t)map_id, ips[i], a, (uint32_t)fn);
	store:
		if (id < 0)
			return (int)id;
		locs[i] = (uint32_t)id;
	}
	return 0;
}

/* load_ksyms - once per symbolizer; say why when kernel names are
 * unavailable. */
static void load_ksyms(struct symbolizer *s)
{
	char path[PATH_MAX];
	int n;

	if (s->ksyms_tried)
		return;
	s->ksyms_tried = true;
	n = snprintf(path, sizeof(path), "%s/kallsyms", s->proc_root);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	s->ksyms = ksyms__load(path);
	if (s->ksyms)
		return;
	if (errno == EPERM)
		log_warn("%s shows no addresses (kernel.kptr_restrict, or no CAP_SYSLOG): "
			 "kernel frames stay unnamed",
			 path);
	else
		log_warn("cannot read kernel symbols from %s: %s", path, strerror(errno));
}

static int64_t kernel_mapping_id(struct symbolizer *s, struct profile *p)
{
	struct profile_mapping m = { .limit = UINT64_MAX };
	int64_t fname = profile__string(p, PROFILE_KERNEL_MAPPING);

	if (fname < 0)
		return fname;
	m.filename = (uint32_t)fname;
	if (s->ksyms) {
		/* Offsets of unnamed frames then read from the kernel's text. */
		m.start = ksyms__first(s->ksyms);
		m.has_functions = true;
	} else if (s->knames_fn) {
		m.has_functions = true;
	}
	return profile__add_mapping(p, &m);
}

void symbolizer__use_kernel_names(struct symbolizer *s, symbolizer_kernel_names_fn fn, void *ctx)
{
	s->knames_fn = fn;
	s->knames_ctx = ctx;
}

/* kernel_names - name the frames of one kernel stack into @names through
 * the preferred source, else kallsyms; a NULL entry is unnamed. */
static void kernel_names(struct symbolizer *s, const uint64_t *ips, uint32_t n, const char **names)
{
	char(*buf)[SYMBOLIZER_KNAME_LEN];
	uint64_t addrs[PROFILE_MAX_DEPTH];
	uint32_t i;
	int err;

	if (s->knames_fn && !s->knames_buf)
		s->knames_buf = calloc(PROFILE_MAX_DEPTH, SYMBOLIZER_KNAME_LEN);
	buf = s->knames_buf;
	if (s->knames_fn && buf) {
		for (i = 0; i < n; i++)
			addrs[i] = lookup_addr(ips, i);
		err = s->knames_fn(s->knames_ctx, addrs, n, buf);
		if (!err) {
			for (i = 0; i < n; i++)
				names[i] = buf[i][0] ? buf[i] : NULL;
			return;
		}
		log_debug("kernel names from BPF failed (%s); reading kallsyms", strerror(-err));
		s->knames_fn = NULL;
	}
	load_ksyms(s);
	for (i = 0; i < n; i++)
		names[i] = s->ksyms ? ksyms__lookup(s->ksyms, lookup_addr(ips, i), NULL) : NULL;
}

int symbolizer__kernel_stack(struct symbolizer *s, struct profile *p, const uint64_t *ips,
			     uint32_t n, uint32_t *locs)
{
	const char *names[PROFILE_MAX_DEPTH];
	int64_t map_id, fname, fn, id;
	uint32_t i;

	if (!n)
		return 0;
	if (n > PROFILE_MAX_DEPTH)
		return -E2BIG;
	kernel_names(s, ips, n, names);
	map_id = kernel_mapping_id(s, p);
	if (map_id < 0)
		return (int)map_id;
	fname = p->mappings[map_id - 1].filename;
	for (i = 0; i < n; i++) {
		s->stats.kernel_frames++;
		fn = function_id(p, names[i], names[i], (uint32_t)fname);
		if (fn < 0)
			return (int)fn;
		if (fn)
			s->stats.kernel_named++;
		id = profile__add_location(p, (uint32_t)map_id, ips[i], (uint32_t)fn);
		if (id < 0)
			return (int)id;
		locs[i] = (uint32_t)id;
	}
	return 0;
}

/* --- lifetime --------------------------------------------------------- */

struct symbolizer *symbolizer__new(const char *proc_root)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->proc_root = strdup(proc_root ? proc_root : "/proc");
	if (!s->proc_root) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	struct sym_file *f, *next;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->pids_cap; i++) {
		if (!s->pids[i])
			continue;
		free(s->pids[i]->maps);
		perfmap__free(&s->pids[i]->jit);
		if (s->pids[i]->jit_dir >= 0)
			close(s->pids[i]->jit_dir);
		free(s->pids[i]->py);
		free(s->pids[i]);
	}
	free(s->pids);
	for (i = 0; i < s->files_cap; i++) {
		for (f = s->files[i]; f; f = next) {
			next = f->next;
			if (!s->own_cache) /* a private cache goes as a whole below */
				symcache__put(s->cache, f->ent);
			elfsym__free(f->vdso);
			free(f->path);
			free(f);
		}
	}
	free(s->files);
	if (s->own_cache)
		symcache__free(s->cache);
	else if (s->cache)
		symcache__trim(s->cache); /* once, after every entry is back */
	free(s->file_stats);
	demangle_cache__free(s->demangler);
	ksyms__free(s->ksyms);
	free(s->knames_buf);
	free(s->proc_root);
	free(s);
}

void symbolizer__get_stats(const struct symbolizer *s, struct symbolizer_stats *out)
{
	*out = s->stats;
}

void symbolizer__use_budget(struct symbolizer *s, struct symbudget *budget)
{
	s->budget = budget;
	s->nshares = 0;
}

int symbolizer__use_cache(struct symbolizer *s, struct symcache *cache)
{
	if (s->nfiles)
		return -EBUSY;
	if (s->own_cache)
		symcache__free(s->cache);
	s->cache = cache;
	s->own_cache = false;
	return 0;
}

/* source_name - file_source for a file that is not an error. */
static const char *source_name(const struct sym_file *f, bool any_jit)
{
	const struct elfsym *elf = file_elf(f);

	if (!strcmp(f->path, JIT_PATH))
		return any_jit ? "perf map" : "no perf map";
	if (!elf)
		return "not a file";
	if (f->ent && f->ent->debug)
		return "debug file";
	switch (elfsym__source(elf)) {
	case ELFSYM_SOURCE_SYMTAB:
		return "symtab";
	case ELFSYM_SOURCE_DYNSYM:
		return f->fde_grouped ? "dynsym only, FDE ranges" : "dynsym only";
	default:
		return f->fde_grouped ? "no symbols, FDE ranges" : "no symbols";
	}
}

/* file_source - where the names of @f came from, or why it has none,
 * into @out. */
static void file_source(const struct sym_file *f, bool any_jit, char *out, size_t len)
{
	int e = f->ent ? f->ent->load_errno : f->open_errno;

	if (f->over_budget || (f->ent && f->ent->partial && !f->named)) {
		snprintf(out, len, "over budget");
		return;
	}
	if (file_elf(f) || strcmp(f->path, JIT_PATH) == 0 || !f->is_file)
		snprintf(out, len, "%s", source_name(f, any_jit));
	else
		snprintf(out, len, "%s: %s", f->ent ? "not read" : "not opened",
			 strerror(e ? e : EIO));
}

static int file_stats_cmp(const void *pa, const void *pb)
{
	const struct symbolizer_file_stats *a = pa, *b = pb;

	if (a->frames != b->frames)
		return a->frames < b->frames ? 1 : -1;
	return strcmp(a->path, b->path);
}

/* any_jit_map - whether some process had a perf map to read. */
static bool any_jit_map(const struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->pids_cap; i++)
		if (s->pids[i] && s->pids[i]->jit.n)
			return true;
	return false;
}

const struct symbolizer_file_stats *symbolizer__file_stats(struct symbolizer *s, size_t *n)
{
	bool jit = any_jit_map(s);
	struct symbolizer_file_stats *out;
	const struct elfsym *elf;
	struct sym_file *f;
	size_t i, k = 0;

	*n = 0;
	free(s->file_stats);
	s->file_stats = out = calloc(s->nfiles ? s->nfiles : 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < s->files_cap; i++) {
		for (f = s->files[i]; f; f = f->next) {
			if (!f->frames)
				continue;
			elf = file_elf(f);
			out[k].path = f->path;
			out[k].build_id = elf ? elfsym__build_id(elf) : "";
			out[k].frames = f->frames;
			out[k].named = f->named;
			out[k].fde_grouped = f->fde_grouped;
			file_source(f, jit, out[k].source, sizeof(out[k].source));
			out[k].debug_file = f->ent && f->ent->debug_from ? f->ent->debug_from : "";
			k++;
		}
	}
	qsort(out, k, sizeof(*out), file_stats_cmp);
	*n = k;
	return out;
}
