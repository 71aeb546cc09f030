// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwind_tables.c - the kernel walk's tables in the sampler's maps
 * (unwind_tables.h). */
#include "trapd/capture/unwind_tables.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/mapped_file.h"
#include "trapd/symbolize/unwind_table.h"
#include "trapd/util/clock.h"
#include "trapd/util/kernel_btf.h"
#include "trapd/util/log.h"

#define MAX_FILES 8192 /* as the unwind_files map */
#define MAX_QUEUED 256 /* requests waiting for the builder */
#define PRESSURE_SAY_NS                                                                            \
	(60ll * 1000000000) /* the log says tables were pushed out at most this often */

/* A loaded table: its @count rows from @first, then its far offsets,
 * @size entries of the array in all. */
struct extent {
	struct sampler_unwind_file_key key;
	uint32_t first, count, size;
	uint32_t owner; /* the file's owner, whose share it takes */
	uint64_t seq;	/* load order, for eviction */
};

struct unwind_tables {
	int refs; /* atomic */
	struct unwind_tables_maps maps;
	struct unwind_tables_layout layout;
	struct sampler_unwind_row *rows; /* the array, mmap'ed */
	size_t map_len;
	uint32_t rows_max;
	char proc_root[64];
	struct extent *ext; /* sorted by first */
	uint32_t next;
	uint64_t seq;
	/* the requests, from the draining thread to the builder: under @lock */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t builder;
	bool running, stop;
	struct sampler_unwind_want queue[MAX_QUEUED];
	uint32_t head, queued;
	struct unwind_tables_stats stats; /* under @lock: what unwind_tables__get_stats gives */
	struct unwind_tables_stats built; /* the builder's own */
	int64_t said_ns;		  /* say_pressure last said */
	uint64_t said_evicted, said_too_big;
};

static void *run_builder(void *arg);

/* find_layout - where the fields the walk reads are in this kernel. */
static int find_layout(struct unwind_tables_layout *l, char *err, size_t errlen)
{
	struct kernel_btf_field f[] = {
		{ .type = "vm_area_struct", .member = "vm_start" },
		{ .type = "vm_area_struct", .member = "vm_end" },
		{ .type = "vm_area_struct", .member = "vm_pgoff" },
		{ .type = "vm_area_struct", .member = "vm_file" },
		{ .type = "file", .member = "f_inode" },
		{ .type = "inode", .member = "i_ino" },
		{ .type = "inode", .member = "i_sb" },
		{ .type = "super_block", .member = "s_dev" },
	};
	int e = kernel_btf__fields(f, sizeof(f) / sizeof(f[0]), err, errlen);

	if (e)
		return e;
	*l = (struct unwind_tables_layout){
		.vma_start = f[0].offset,
		.vma_end = f[1].offset,
		.vma_pgoff = f[2].offset,
		.vma_file = f[3].offset,
		.file_inode = f[4].offset,
		.inode_ino = f[5].offset,
		.inode_sb = f[6].offset,
		.sb_dev = f[7].offset,
	};
	return 0;
}

/* create_maps - the walk's maps, as bpf/sampler.bpf.c declares them. */
static int create_maps(struct unwind_tables *t, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, lazy, .map_flags = BPF_F_NO_PREALLOC);
	struct unwind_tables_maps *m = &t->maps;

	m->rows = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_rows", sizeof(__u32),
				 sizeof(struct sampler_unwind_row), t->rows_max, &mmapable);
	m->files = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_files",
				  sizeof(struct sampler_unwind_file_key),
				  sizeof(struct sampler_unwind_file), SAMPLER_UNWIND_FILES, &lazy);
	m->asked = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_asked",
				  sizeof(struct sampler_unwind_file_key), sizeof(__u64),
				  SAMPLER_UNWIND_ASKED, &lazy);
	m->vmas = bpf_map_create(BPF_MAP_TYPE_HASH, "walk_vmas", sizeof(__u32),
				 sizeof(struct sampler_walk_vmas), SAMPLER_WALK_PIDS, &lazy);
	if (m->rows < 0 || m->files < 0 || m->asked < 0 || m->vmas < 0) {
		snprintf(err, errlen, "creating the kernel walk's maps: %s", strerror(errno));
		return -errno;
	}
	t->map_len = (size_t)t->rows_max * sizeof(struct sampler_unwind_row);
	t->rows = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, m->rows, 0);
	if (t->rows == MAP_FAILED) {
		t->rows = NULL;
		snprintf(err, errlen, "mapping the kernel walk's rows: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

struct unwind_tables *unwind_tables__new(uint32_t rows_max, const char *proc_root, char *err,
					 size_t errlen)
{
	struct unwind_tables *t = calloc(1, sizeof(*t));
	int e;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	t->refs = 1;
	t->maps = (struct unwind_tables_maps){ -1, -1, -1, -1 };
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	t->rows_max = rows_max ? rows_max : 1;
	snprintf(t->proc_root, sizeof(t->proc_root), "%s", proc_root);
	t->built.rows_max = t->rows_max;
	t->stats.rows_max = t->rows_max;
	t->ext = calloc(MAX_FILES, sizeof(*t->ext));
	e = t->ext ? find_layout(&t->layout, err, errlen) : -ENOMEM;
	if (!e)
		e = create_maps(t, err, errlen);
	if (!e) {
		e = -pthread_create(&t->builder, NULL, run_builder, t);
		if (e)
			snprintf(err, errlen, "starting the tables' builder: %s", strerror(-e));
	}
	if (e) {
		if (e == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		unwind_tables__put(t);
		errno = -e;
		return NULL;
	}
	t->running = true;
	return t;
}

struct unwind_tables *unwind_tables__get(struct unwind_tables *t)
{
	if (t)
		__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

void unwind_tables__put(struct unwind_tables *t)
{
	if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (t->running) {
		pthread_mutex_lock(&t->lock);
		t->stop = true;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->builder, NULL);
	}
	if (t->rows)
		munmap(t->rows, t->map_len);
	if (t->maps.rows >= 0)
		close(t->maps.rows);
	if (t->maps.files >= 0)
		close(t->maps.files);
	if (t->maps.asked >= 0)
		close(t->maps.asked);
	if (t->maps.vmas >= 0)
		close(t->maps.vmas);
	free(t->ext);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

const struct unwind_tables_maps *unwind_tables__maps(const struct unwind_tables *t)
{
	return &t->maps;
}

const struct unwind_tables_layout *unwind_tables__layout(const struct unwind_tables *t)
{
	return &t->layout;
}

void unwind_tables__get_stats(struct unwind_tables *t, struct unwind_tables_stats *out)
{
	pthread_mutex_lock(&t->lock);
	*out = t->stats;
	pthread_mutex_unlock(&t->lock);
}

void unwind_tables__want(struct unwind_tables *t, const struct sampler_unwind_want *w)
{
	pthread_mutex_lock(&t->lock);
	if (t->queued < MAX_QUEUED) {
		t->queue[(t->head + t->queued++) % MAX_QUEUED] = *w;
		pthread_cond_signal(&t->wake);
	} else {
		/* asked again by a later walk once the builder caught up */
		bpf_map_delete_elem(t->maps.asked, &w->file);
		t->stats.requests_dropped++;
	}
	pthread_mutex_unlock(&t->lock);
}

/* publish - tell the program where @key's rows are (count 0: none). */
static void publish(struct unwind_tables *t, const struct sampler_unwind_file_key *key,
		    uint32_t first, uint32_t count)
{
	struct sampler_unwind_file v = { first, count };

	if (bpf_map_update_elem(t->maps.files, key, &v, BPF_ANY))
		log_debug("unwind tables: publishing a file: %s", strerror(errno));
}

static void evict_at(struct unwind_tables *t, uint32_t i)
{
	bpf_map_delete_elem(t->maps.files, &t->ext[i].key);
	t->built.rows_used -= t->ext[i].size;
	t->built.files_evicted++;
	t->built.files--;
	memmove(&t->ext[i], &t->ext[i + 1], (t->next - i - 1) * sizeof(*t->ext));
	t->next--;
}

/* used_by - the rows the tables of @owner's files take. */
static uint64_t used_by(const struct unwind_tables *t, uint32_t owner)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < t->next; i++)
		if (t->ext[i].owner == owner)
			n += t->ext[i].size;
	return n;
}

/* heaviest - the user (not root) whose files' tables take the most
 * rows; root when no user's are loaded. */
static uint32_t heaviest(const struct unwind_tables *t)
{
	uint64_t most = 0, n;
	uint32_t i, who = 0;

	for (i = 0; i < t->next; i++) {
		if (!t->ext[i].owner)
			continue;
		n = used_by(t, t->ext[i].owner);
		if (n > most) {
			most = n;
			who = t->ext[i].owner;
		}
	}
	return who;
}

/* evict_oldest_of - push out the table of @owner's loaded longest ago;
 * false when @owner has none. */
static bool evict_oldest_of(struct unwind_tables *t, uint32_t owner)
{
	uint32_t i;
	int old = -1;

	for (i = 0; i < t->next; i++)
		if (t->ext[i].owner == owner && (old < 0 || t->ext[i].seq < t->ext[old].seq))
			old = (int)i;
	if (old < 0)
		return false;
	evict_at(t, (uint32_t)old);
	return true;
}

/* place - where @count rows fit: the index in ext to insert at, with
 * *@first; -1 when nowhere. */
static int place(const struct unwind_tables *t, uint32_t count, uint32_t *first)
{
	uint32_t i, at = 0;

	for (i = 0; i <= t->next; i++) {
		uint32_t end = i < t->next ? t->ext[i].first : t->rows_max;

		if (end - at >= count) {
			*first = at;
			return (int)i;
		}
		if (i < t->next)
			at = t->ext[i].first + t->ext[i].size;
	}
	return -1;
}

/* store - copy @tab's rows (of a file @owner owns) into the array; the
 * extent's index, or -1. The files of one user take at most half the
 * rows: past it, that user's oldest tables go first; when the array is
 * full, the oldest of the user taking the most, and root's (the
 * system's files: libraries, compilers) only when no user has any. So a
 * user whose processes map thousands of files of their own pushes out
 * their own tables, not those of the system's files or of other users. */
static int store(struct unwind_tables *t, const struct sampler_unwind_file_key *key,
		 const struct unwind_table *tab, uint32_t owner)
{
	uint32_t first = 0, size = tab->n + tab->nfar, i;
	int at;

	while (owner && used_by(t, owner) + size > t->rows_max / 2 && evict_oldest_of(t, owner))
		;
	while ((at = place(t, size, &first)) < 0 || t->next >= MAX_FILES) {
		if (!t->next || !evict_oldest_of(t, heaviest(t)))
			return -1;
	}
	memcpy(&t->rows[first], tab->rows, (size_t)tab->n * sizeof(*tab->rows));
	for (i = 0; i < tab->nfar; i++)
		t->rows[first + tab->n + i] =
			(struct sampler_unwind_row){ .off = (uint32_t)tab->far[i] };
	memmove(&t->ext[at + 1], &t->ext[at], (t->next - (uint32_t)at) * sizeof(*t->ext));
	t->ext[at] = (struct extent){ *key, first, tab->n, size, owner, ++t->seq };
	t->next++;
	t->built.rows_used += size;
	t->built.files++;
	return at;
}

/* open_mapped - the file of @w's mapping, through map_files, if it is a
 * regular file (a device is never opened) and the device and inode the
 * kernel named, with its owner in *@owner; -1 otherwise. */
static int open_mapped(const struct unwind_tables *t, const struct sampler_unwind_want *w,
		       uint32_t *owner)
{
	struct stat st;
	int fd;

	fd = mapped_file_open_mapping(t->proc_root, (int)w->pid, w->start, w->end, w->file.ino);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != makedev((unsigned)(w->file.dev >> 20),
						   (unsigned)(w->file.dev & 0xfffff))) {
		close(fd);
		return -1;
	}
	*owner = st.st_uid;
	return fd;
}

/* say_pressure - log, at most once a minute, that tables were pushed out
 * or refused for their size since the last time it said so. */
static void say_pressure(struct unwind_tables *t)
{
	uint64_t evicted = t->built.files_evicted - t->said_evicted;
	uint64_t big = t->built.files_too_big - t->said_too_big;
	int64_t now = clock_mono_ns();

	if ((!evicted && !big) || (t->said_ns && now - t->said_ns < PRESSURE_SAY_NS))
		return;
	log_warn("kernel walk: %llu file tables pushed out and %llu too large for "
		 "unwind_tables_memory (%llu rows of 8 bytes) since the last report; their "
		 "frames are copied or walked by frame pointers until rebuilt",
		 (unsigned long long)evicted, (unsigned long long)big,
		 (unsigned long long)t->rows_max);
	t->said_ns = now;
	t->said_evicted = t->built.files_evicted;
	t->said_too_big = t->built.files_too_big;
}

/* build - answer one request: on the builder's thread. */
static void build(struct unwind_tables *t, const struct sampler_unwind_want *w)
{
	int64_t t0 = clock_mono_ns();
	struct unwind_table tab = { 0 };
	struct cfi *c = NULL;
	uint32_t owner = 0;
	int fd, at, e = -ENOENT;

	fd = open_mapped(t, w, &owner);
	if (fd < 0) {
		t->built.files_failed++;
		/* the process may be gone: asked again by the next one */
		bpf_map_delete_elem(t->maps.asked, &w->file);
		return;
	}
	c = cfi__open_fd(fd, 0);
	close(fd);
	if (c)
		e = unwind_table__build(c, t->rows_max / 2, &tab);
	cfi__free(c);
	if (e == -E2BIG)
		t->built.files_too_big++;
	at = !e && tab.n ? store(t, &w->file, &tab, owner) : -1;
	if (at >= 0) {
		publish(t, &w->file, t->ext[at].first, t->ext[at].count);
	} else {
		t->built.files_without++;
		publish(t, &w->file, 0, 0);
	}
	unwind_table__release(&tab);
	bpf_map_delete_elem(t->maps.asked, &w->file);
	t->built.build_ns += (uint64_t)(clock_mono_ns() - t0);
	say_pressure(t);
}

/* run_builder - the builder's thread: answer requests in turn, and make
 * what it built visible to unwind_tables__get_stats. */
static void *run_builder(void *arg)
{
	struct unwind_tables *t = arg;
	struct sampler_unwind_want w;
	uint64_t dropped;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		if (!t->queued) {
			pthread_cond_wait(&t->wake, &t->lock);
			continue;
		}
		w = t->queue[t->head];
		t->head = (t->head + 1) % MAX_QUEUED;
		t->queued--;
		pthread_mutex_unlock(&t->lock);
		build(t, &w);
		pthread_mutex_lock(&t->lock);
		dropped = t->stats.requests_dropped;
		t->stats = t->built;
		t->stats.requests_dropped = dropped;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}
