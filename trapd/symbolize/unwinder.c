// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwinder.c - the stack walker of unwinder.h: per process its executable
 * mappings, per file (by identity, shared by all processes) its CFI, and
 * the step loop that applies a frame's rule to the stack copy.
 *
 * A file is known by what fstat says of the fd mapped_file_open gave
 * (device, inode, size, mtime): a binary replaced in place is a new file,
 * and libc's CFI is read once for every process that maps it. The vDSO
 * has no file; every process of the host maps the same one, so trapd's
 * own is read. Memory is bounded: the CFI bytes by the caller's cap, the
 * files and processes known by counts (the least recently used process
 * is forgotten first).
 */
#include "trapd/symbolize/unwinder.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/mapped_file.h"
#include "trapd/symbolize/prockey.h"
#include "trapd/symbolize/procmaps.h"

#define DEFAULT_MAX_CFI_BYTES (256ull << 20)
#define MAX_FILES 16384u
#define FILE_BUCKETS 1024u
#define MAX_PIDS 1024u
#define PID_BUCKETS 256u
/* A pc outside the known mappings has a pid's maps read again, at most
 * this often: a started command maps its libraries within milliseconds
 * of its first samples, so a small map is read again soon; a big one
 * (costlier to read, and which a target can make as big as it likes)
 * only every 100 ms. */
#define REREAD_SMALL_NS 2000000ull
#define REREAD_NS 100000000ull
#define REREAD_SMALL_ENTRIES 512
#define VDSO_MAX (1u << 20)

struct file_ent {
	uint64_t dev, ino, size, mtime_ns;
	struct cfi *cfi; /* NULL: not loadable, err says why */
	int err;
	struct file_ent *next;
};

/* What a mapping of a process resolved to, on its first pc. */
enum map_state { MAP_UNRESOLVED = 0, MAP_CFI, MAP_NO_CFI, MAP_NO_FILE };

struct map_ext {
	enum map_state state;
	struct cfi *cfi;
	uint64_t bias; /* file address = pc - bias */
};

struct pid_ent {
	int pid;
	bool have_maps;
	struct procmaps maps;
	struct map_ext *ext; /* one per maps entry */
	uint64_t read_ns;
	uint64_t used;
	struct pid_ent *next;
};

struct unwinder {
	char *proc_root;
	uint64_t max_cfi_bytes, cfi_bytes;
	struct file_ent *files[FILE_BUCKETS];
	size_t nfiles;
	struct pid_ent *pids[PID_BUCKETS];
	size_t npids;
	struct cfi *vdso;
	bool vdso_tried;
	uint64_t tick;
	struct unwinder_stats stats;
	prockey_current_fn current_fn; /* unwinder__check_lives */
	void *current_ctx;
};

/* life_holds - whether /proc/PID is still the life of process @key. */
static bool life_holds(const struct unwinder *u, int key)
{
	return prockey_lasts(u->current_fn, u->current_ctx, key);
}

void unwinder__check_lives(struct unwinder *u, prockey_current_fn fn, void *ctx)
{
	u->current_fn = fn;
	u->current_ctx = ctx;
}

static const char *const end_names[UNWIND_END_NR] = {
	[UNWIND_END_ENTRY] = "entry",
	[UNWIND_END_NO_CFI] = "no_cfi",
	[UNWIND_END_STACK_SHORT] = "stack_short",
	[UNWIND_END_NOT_MAPPED] = "not_mapped",
	[UNWIND_END_NO_FILE] = "no_file",
	[UNWIND_END_BAD_CFI] = "bad_cfi",
	[UNWIND_END_LOOP] = "loop",
	[UNWIND_END_DEPTH] = "depth",
};

bool unwinder__supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

const char *unwinder__end_name(enum unwind_end end)
{
	return (unsigned)end < UNWIND_END_NR ? end_names[end] : "unknown";
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct unwinder *unwinder__new(const char *proc_root, uint64_t max_cfi_bytes)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->proc_root = strdup(proc_root ? proc_root : "/proc");
	if (!u->proc_root) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	u->max_cfi_bytes = max_cfi_bytes ? max_cfi_bytes : DEFAULT_MAX_CFI_BYTES;
	return u;
}

static void pid_free(struct pid_ent *p)
{
	procmaps__free(&p->maps);
	free(p->ext);
	free(p);
}

static void free_files(struct unwinder *u)
{
	struct file_ent *f, *fn;
	size_t i;

	for (i = 0; i < FILE_BUCKETS; i++) {
		for (f = u->files[i]; f; f = fn) {
			fn = f->next;
			cfi__free(f->cfi);
			free(f);
		}
		u->files[i] = NULL;
	}
	u->nfiles = 0;
	u->cfi_bytes = 0;
}

static void free_pids(struct unwinder *u)
{
	struct pid_ent *p, *pn;
	size_t i;

	for (i = 0; i < PID_BUCKETS; i++) {
		for (p = u->pids[i]; p; p = pn) {
			pn = p->next;
			pid_free(p);
		}
		u->pids[i] = NULL;
	}
	u->npids = 0;
}

void unwinder__reset(struct unwinder *u, uint64_t keep_cfi_bytes)
{
	/* processes first: their mappings point at the files' CFI */
	free_pids(u);
	if (u->cfi_bytes > keep_cfi_bytes)
		free_files(u);
	memset(&u->stats, 0, sizeof(u->stats));
}

size_t unwinder__cfi_files(const struct unwinder *u, uint64_t *bytes)
{
	*bytes = u->cfi_bytes;
	return u->nfiles;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	free_pids(u);
	free_files(u);
	cfi__free(u->vdso);
	free(u->proc_root);
	free(u);
}

void unwinder__get_stats(const struct unwinder *u, struct unwinder_stats *out)
{
	*out = u->stats;
}

/* --- files ------------------------------------------------------------ */

static struct file_ent **file_slot(struct unwinder *u, const struct stat *st)
{
	uint64_t h = ((uint64_t)st->st_dev * 0x9e3779b97f4a7c15ull) ^ (uint64_t)st->st_ino;

	return &u->files[(h ^ (h >> 31)) % FILE_BUCKETS];
}

/* file_load - the CFI of the file open at @fd, read once per identity.
 * NULL with *@err when it has none or cannot be read. */
static struct cfi *file_load(struct unwinder *u, int fd, int *err)
{
	struct file_ent *f, **slot;
	struct cfi_stats cs;
	struct stat st;

	if (fstat(fd, &st))
		return *err = -errno, NULL;
	slot = file_slot(u, &st);
	for (f = *slot; f; f = f->next) {
		if (f->dev == st.st_dev && f->ino == st.st_ino && f->size == (uint64_t)st.st_size &&
		    f->mtime_ns == (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
					   (uint64_t)st.st_mtim.tv_nsec) {
			u->stats.files_cached += f->cfi != NULL;
			return *err = f->err, f->cfi;
		}
	}
	if (u->nfiles >= MAX_FILES)
		return *err = -ENOSPC, NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return *err = -ENOMEM, NULL;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = (uint64_t)st.st_size;
	f->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	if (u->cfi_bytes < u->max_cfi_bytes)
		f->cfi = cfi__open_fd(fd, u->max_cfi_bytes - u->cfi_bytes);
	f->err = f->cfi ? 0 : u->cfi_bytes < u->max_cfi_bytes ? -errno : -E2BIG;
	if (f->cfi) {
		cfi__get_stats(f->cfi, &cs);
		u->cfi_bytes += cs.bytes;
		u->stats.cfi_bytes += cs.bytes;
		u->stats.files_loaded++;
	}
	f->next = *slot;
	*slot = f;
	u->nfiles++;
	return *err = f->err, f->cfi;
}

/* vdso_load - the CFI of trapd's own vDSO, which is every process's. */
static struct cfi *vdso_load(struct unwinder *u)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct cfi_stats cs;
	uint64_t len;

	if (u->vdso_tried)
		return u->vdso;
	u->vdso_tried = true;
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	len = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (len < sizeof(*eh) || len > VDSO_MAX)
		return NULL;
	u->vdso = cfi__open_mem(eh, len, 0);
	if (u->vdso) {
		cfi__get_stats(u->vdso, &cs);
		u->stats.cfi_bytes += cs.bytes;
		u->stats.files_loaded++;
	}
	return u->vdso;
}

/* page_size - the kernel's page, which mappings are aligned to. */
static uint64_t page_size(void)
{
	static uint64_t size;

	if (!size) {
		long n = sysconf(_SC_PAGESIZE);

		size = n > 0 ? (uint64_t)n : 4096;
	}
	return size;
}

/* resolve - what mapping @i of @p holds: CFI and bias, or why not. */
static void resolve(struct unwinder *u, struct pid_ent *p, size_t i)
{
	const struct procmaps_entry *e = &p->maps.entries[i];
	struct map_ext *x = &p->ext[i];
	uint64_t v;
	int fd, err = -ENOENT;

	x->state = MAP_NO_CFI;
	if (e->kind == PROCMAPS_PSEUDO && !strcmp(e->path, "[vdso]")) {
		x->cfi = vdso_load(u);
	} else if (e->kind == PROCMAPS_FILE) {
		fd = mapped_file_open(u->proc_root, prockey_pid(p->pid), e);
		if (fd >= 0 && !life_holds(u, p->pid)) {
			close(fd); /* the pid's file now, not the life's */
			fd = -ESRCH;
		}
		if (fd < 0) {
			x->state = MAP_NO_FILE;
			return;
		}
		x->cfi = file_load(u, fd, &err);
		close(fd);
		if (!x->cfi && err != -ENOENT)
			x->state = MAP_NO_FILE;
	}
	if (x->cfi && !cfi__exec_mapping_vaddr(x->cfi, e->offset, page_size(), &v)) {
		x->bias = e->start - v;
		x->state = MAP_CFI;
	} else if (x->cfi) {
		x->state = MAP_NO_FILE;
	}
}

/* --- processes -------------------------------------------------------- */

static int pid_read_maps(struct unwinder *u, struct pid_ent *p)
{
	struct procmaps m;
	struct map_ext *ext;
	int err;

	p->read_ns = now_ns();
	u->stats.maps_reads++;
	if (p->pid < 0 || !life_holds(u, p->pid))
		return -ESRCH;
	err = procmaps__read(u->proc_root, prockey_pid(p->pid), PROCMAPS_EXEC_ONLY, &m);
	if (!err && !life_holds(u, p->pid)) {
		procmaps__free(&m);
		err = -ESRCH; /* it died while it was read: what was read may be another's */
	}
	if (err)
		return err;
	ext = calloc(m.n ? m.n : 1, sizeof(*ext));
	if (!ext) {
		procmaps__free(&m);
		return -ENOMEM;
	}
	procmaps__free(&p->maps);
	free(p->ext);
	p->maps = m;
	p->ext = ext;
	p->have_maps = true;
	return 0;
}

static struct pid_ent **pid_slot(struct unwinder *u, int pid)
{
	struct pid_ent **pp = &u->pids[(unsigned)pid % PID_BUCKETS];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

/* pid_forget - drop what is known of process @pid's mappings. */
static void pid_forget(struct unwinder *u, int pid)
{
	struct pid_ent **pp = pid_slot(u, pid), *p = *pp;

	if (!p)
		return;
	*pp = p->next;
	pid_free(p);
	u->npids--;
}

/* pid_evict_lru - forget the least recently used process. */
static void pid_evict_lru(struct unwinder *u)
{
	struct pid_ent *p, *old = NULL;
	size_t i;

	for (i = 0; i < PID_BUCKETS; i++) {
		for (p = u->pids[i]; p; p = p->next) {
			if (!old || p->used < old->used)
				old = p;
		}
	}
	if (old)
		pid_forget(u, old->pid);
}

static int pid_get(struct unwinder *u, int pid, struct pid_ent **out)
{
	struct pid_ent **pp = pid_slot(u, pid), *p = *pp;
	int err;

	if (!p) {
		if (u->npids >= MAX_PIDS)
			pid_evict_lru(u);
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->next = u->pids[(unsigned)pid % PID_BUCKETS];
		u->pids[(unsigned)pid % PID_BUCKETS] = p;
		u->npids++;
		u->stats.pids++;
	}
	p->used = ++u->tick;
	if (!p->have_maps && now_ns() - p->read_ns >= REREAD_NS) {
		err = pid_read_maps(u, p);
		if (err == -ENOMEM)
			return err;
	}
	*out = p;
	return p->have_maps ? 0 : -ESRCH;
}

/* find_map - the index of the executable mapping of @p holding @pc, the
 * maps read again (rate-limited) when none does; -1 if none. */
static ssize_t find_map(struct unwinder *u, struct pid_ent *p, uint64_t pc, bool reread)
{
	size_t lo = 0, hi = p->maps.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->maps.entries[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->maps.n && p->maps.entries[lo].start <= pc)
		return (ssize_t)lo;
	if (!reread ||
	    now_ns() - p->read_ns <
		    (p->maps.n <= REREAD_SMALL_ENTRIES ? REREAD_SMALL_NS : REREAD_NS) ||
	    pid_read_maps(u, p))
		return -1;
	return find_map(u, p, pc, false);
}

/* --- the walk --------------------------------------------------------- */

struct frame {
	struct cfi_regs r;
	bool exact;    /* r.rip is an exact pc (frame 0, or after a signal frame) */
	bool by_chain; /* r.rbp was read from the frame-pointer chain */
};

static int read_word(void *ctx, uint64_t addr, uint64_t *val)
{
	const struct unwind_input *in = ctx;
	uint64_t off = addr - in->sp;

	if (addr < in->sp)
		return -EFAULT;
	if (off > in->stack_len || in->stack_len - off < sizeof(*val))
		return -ERANGE;
	memcpy(val, in->stack + off, sizeof(*val));
	return 0;
}

static enum unwind_end read_end(int err)
{
	return err == -ERANGE ? UNWIND_END_STACK_SHORT : UNWIND_END_BAD_CFI;
}

/* apply - the caller's value of a register by @rule; *@defined false when
 * the rule says it is lost. @self is this frame's value (same value). */
static int apply(const struct cfi *c, const struct cfi_rule *rule, const struct frame *f,
		 uint64_t cfa, const struct unwind_input *in, uint64_t self, uint64_t *out,
		 bool *defined)
{
	int err = 0;

	*defined = true;
	switch (rule->kind) {
	case CFI_RULE_UNDEFINED:
		*defined = false;
		return 0;
	case CFI_RULE_SAME:
		*out = self;
		return 0;
	case CFI_RULE_OFFSET:
		return read_word((void *)in, cfa + (uint64_t)(int64_t)rule->off, out);
	case CFI_RULE_VAL_OFFSET:
		*out = cfa + (uint64_t)(int64_t)rule->off;
		return 0;
	case CFI_RULE_REGISTER:
		*out = rule->reg == CFI_REG_RSP	  ? f->r.rsp
		       : rule->reg == CFI_REG_RIP ? f->r.rip
						  : f->r.rbp;
		return rule->reg == CFI_REG_RSP || rule->reg == CFI_REG_RIP ||
				       (rule->reg == CFI_REG_RBP && f->r.rbp_valid)
			       ? 0
			       : -EINVAL;
	case CFI_RULE_EXPR:
		err = cfi__eval(c, rule->expr, &f->r, cfa, read_word, (void *)in, out);
		return err ? err : read_word((void *)in, *out, out);
	case CFI_RULE_VAL_EXPR:
		return cfi__eval(c, rule->expr, &f->r, cfa, read_word, (void *)in, out);
	}
	return -EINVAL;
}

static int cfa_of(const struct cfi *c, const struct cfi_row *row, const struct frame *f,
		  const struct unwind_input *in, uint64_t *cfa)
{
	if (row->cfa.kind == CFI_RULE_VAL_EXPR)
		return cfi__eval(c, row->cfa.expr, &f->r, 0, read_word, (void *)in, cfa);
	if (row->cfa.reg == CFI_REG_RSP)
		*cfa = f->r.rsp;
	else if (row->cfa.reg == CFI_REG_RBP && f->r.rbp_valid)
		*cfa = f->r.rbp;
	else
		return -EINVAL;
	*cfa += (uint64_t)(int64_t)row->cfa.off;
	return 0;
}

/* step_cfi - the caller of frame @f by its CFI row; -1 to go on, or why
 * the walk ends. */
static int step_cfi(const struct cfi *c, const struct cfi_row *row, struct frame *f,
		    const struct unwind_input *in)
{
	struct frame next = { .exact = row->signal };
	uint64_t cfa;
	bool def;
	int err;

	err = cfa_of(c, row, f, in, &cfa);
	if (!err)
		err = apply(c, &row->ra, f, cfa, in, f->r.rip, &next.r.rip, &def);
	if (err)
		return read_end(err);
	if (!def)
		return UNWIND_END_ENTRY;
	err = apply(c, &row->rbp, f, cfa, in, f->r.rbp, &next.r.rbp, &next.r.rbp_valid);
	if (err == -EFAULT) {
		/* saved below the stack pointer: an epilogue has popped it
		 * already (gcc does not say so in the CFI), so the register
		 * holds the caller's value */
		next.r.rbp = f->r.rbp;
		next.r.rbp_valid = f->r.rbp_valid;
	} else if (err == -EINVAL) { /* a lost rbp is fine until a rule needs it */
		next.r.rbp_valid = false;
	} else if (err) {
		return read_end(err);
	}
	if (row->rbp.kind == CFI_RULE_SAME)
		next.r.rbp_valid = f->r.rbp_valid;
	err = apply(c, &row->rsp, f, cfa, in, f->r.rsp, &next.r.rsp, &def);
	if (err || !def)
		return err ? read_end(err) : UNWIND_END_BAD_CFI;
	if (next.r.rsp <= f->r.rsp)
		return UNWIND_END_LOOP;
	*f = next;
	return -1;
}

/* step_fp - the caller of frame @f by its frame pointer, for code
 * without CFI (JIT code, Go). A chain that ends in a zero frame pointer
 * read from the chain itself ends at an entry: the ABI's outermost frame
 * (_start, a thread's start, Go's goexit and mstart) has rbp 0. */
static int step_fp(struct frame *f, const struct unwind_input *in)
{
	uint64_t bp = f->r.rbp, ra, nbp;
	int err;

	if (f->r.rbp_valid && !bp && f->by_chain)
		return UNWIND_END_ENTRY;
	if (!f->r.rbp_valid || bp < f->r.rsp || bp - in->sp >= in->stack_len)
		return UNWIND_END_NO_CFI;
	err = read_word((void *)in, bp + 8, &ra);
	if (!err)
		err = read_word((void *)in, bp, &nbp);
	if (err)
		return read_end(err);
	*f = (struct frame){ .r = { ra, bp + 16, nbp, true }, .by_chain = true };
	return -1;
}

/* step - from frame @f to its caller; -1 to go on, or why the walk ends. */
static int step(struct unwinder *u, struct pid_ent *p, size_t mi, struct frame *f,
		const struct unwind_input *in, struct unwind_result *out)
{
	struct cfi_stats before, after;
	struct map_ext *x;
	struct cfi_row row;
	int err;

	if (p->ext[mi].state == MAP_UNRESOLVED)
		resolve(u, p, mi);
	x = &p->ext[mi];
	if (x->state == MAP_NO_FILE)
		return UNWIND_END_NO_FILE;
	if (x->state == MAP_CFI) {
		cfi__get_stats(x->cfi, &before);
		err = cfi__rule(x->cfi, f->r.rip - x->bias, !f->exact, &row);
		cfi__get_stats(x->cfi, &after);
		u->stats.rule_cache_hits += after.cache_hits - before.cache_hits;
		if (!err)
			return step_cfi(x->cfi, &row, f, in);
		if (err != -ENOENT)
			return UNWIND_END_BAD_CFI;
	}
	err = step_fp(f, in);
	if (err < 0)
		out->fp_steps++;
	return err;
}

/* map_name - what to call mapping @mi of @p in completeness figures. */
static const char *map_name(const struct pid_ent *p, size_t mi)
{
	const char *path = p->maps.entries[mi].path;

	return path && path[0] ? path : "//anon";
}

/* set_end_path - name the mapping of the last frame walked (looked up
 * again: a re-read of the maps may have replaced them meanwhile). */
static void set_end_path(struct unwinder *u, struct pid_ent *p, struct unwind_result *out)
{
	ssize_t mi = out->n ? find_map(u, p, out->ips[out->n - 1], false) : -1;

	if (mi >= 0)
		snprintf(out->end_path, sizeof(out->end_path), "%s", map_name(p, (size_t)mi));
}

static enum unwind_end walk(struct unwinder *u, struct pid_ent *p, const struct unwind_input *in,
			    struct unwind_result *out)
{
	struct frame f = { .r = { in->ip, in->sp, in->bp, true }, .exact = true };
	ssize_t mi = find_map(u, p, f.r.rip, true), next;
	int end;

	if (mi < 0)
		return UNWIND_END_NOT_MAPPED;
	for (;;) {
		out->ips[out->n++] = f.r.rip;
		end = step(u, p, (size_t)mi, &f, in, out);
		if (end >= 0)
			return (enum unwind_end)end;
		next = f.r.rip ? find_map(u, p, f.r.rip, true) : -1;
		if (next < 0)
			return UNWIND_END_NOT_MAPPED;
		mi = next;
		if (out->n >= UNWINDER_MAX_FRAMES)
			return UNWIND_END_DEPTH;
	}
}

int unwinder__unwind(struct unwinder *u, int pid, const struct unwind_input *in,
		     struct unwind_result *out)
{
	struct pid_ent *p = NULL;
	uint64_t reads;
	int err;

	memset(out, 0, sizeof(*out));
	out->end = UNWIND_END_NOT_MAPPED;
	if (!unwinder__supported())
		return -EOPNOTSUPP;
	err = pid_get(u, pid, &p);
	if (err)
		return err;
	u->stats.walks++;
	reads = u->stats.maps_reads; /* after the first read, if this was it */
	out->end = walk(u, p, in, out);
	out->maps_reread = u->stats.maps_reads > reads;
	set_end_path(u, p, out);
	u->stats.frames += out->n;
	u->stats.ended[out->end]++;
	return 0;
}
