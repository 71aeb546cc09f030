// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* unwind_tables.c - the kernel walk's tables in the sampler's maps
 * (unwind_tables.h). */
#include "trapd/capture/unwind_tables.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trapd/symbolize/cfi.h"
#include "trapd/symbolize/unwind_table.h"
#include "trapd/util/clock.h"
#include "trapd/util/log.h"

#define MAX_FILES 8192 /* as the unwind_files map */

/* A loaded table: rows [first, first + count) of the array. */
struct extent {
	struct sampler_unwind_file_key key;
	uint32_t first, count;
	uint64_t seq; /* load order, for eviction */
};

struct unwind_tables {
	struct sampler_unwind_row *rows; /* the array, mmap'ed */
	size_t map_len;
	uint32_t rows_max;
	int files_fd, asked_fd;
	char proc_root[64];
	struct extent *ext; /* sorted by first */
	uint32_t next;
	uint64_t seq;
	struct unwind_tables_stats stats;
};

struct unwind_tables *unwind_tables__new(int rows_fd, uint32_t rows_max, int files_fd, int asked_fd,
					 const char *proc_root)
{
	struct unwind_tables *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->map_len = (size_t)rows_max * sizeof(struct sampler_unwind_row);
	t->rows = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, rows_fd, 0);
	t->ext = calloc(MAX_FILES, sizeof(*t->ext));
	if (t->rows == MAP_FAILED || !t->ext) {
		int e = errno;

		if (t->rows != MAP_FAILED)
			munmap(t->rows, t->map_len);
		free(t->ext);
		free(t);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	t->rows_max = rows_max;
	t->files_fd = files_fd;
	t->asked_fd = asked_fd;
	snprintf(t->proc_root, sizeof(t->proc_root), "%s", proc_root);
	t->stats.rows_max = rows_max;
	return t;
}

void unwind_tables__free(struct unwind_tables *t)
{
	if (!t)
		return;
	munmap(t->rows, t->map_len);
	free(t->ext);
	free(t);
}

void unwind_tables__get_stats(const struct unwind_tables *t, struct unwind_tables_stats *out)
{
	*out = t->stats;
}

/* publish - tell the program where @key's rows are (count 0: none). */
static void publish(struct unwind_tables *t, const struct sampler_unwind_file_key *key,
		    uint32_t first, uint32_t count)
{
	struct sampler_unwind_file v = { first, count };

	if (bpf_map_update_elem(t->files_fd, key, &v, BPF_ANY))
		log_debug("unwind tables: publishing a file: %s", strerror(errno));
}

static void evict_at(struct unwind_tables *t, uint32_t i)
{
	bpf_map_delete_elem(t->files_fd, &t->ext[i].key);
	t->stats.rows_used -= t->ext[i].count;
	t->stats.files_evicted++;
	t->stats.files--;
	memmove(&t->ext[i], &t->ext[i + 1], (t->next - i - 1) * sizeof(*t->ext));
	t->next--;
}

static void evict_oldest(struct unwind_tables *t)
{
	uint32_t i, old = 0;

	for (i = 1; i < t->next; i++)
		if (t->ext[i].seq < t->ext[old].seq)
			old = i;
	evict_at(t, old);
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
			at = t->ext[i].first + t->ext[i].count;
	}
	return -1;
}

/* store - copy @tab's rows into the array, pushing out old tables until
 * they fit; the extent's index, or -1. */
static int store(struct unwind_tables *t, const struct sampler_unwind_file_key *key,
		 const struct unwind_table *tab)
{
	uint32_t first = 0;
	int at;

	while ((at = place(t, tab->n, &first)) < 0 || t->next >= MAX_FILES) {
		if (!t->next)
			return -1;
		evict_oldest(t);
	}
	memcpy(&t->rows[first], tab->rows, (size_t)tab->n * sizeof(*tab->rows));
	memmove(&t->ext[at + 1], &t->ext[at], (t->next - (uint32_t)at) * sizeof(*t->ext));
	t->ext[at] = (struct extent){ *key, first, tab->n, ++t->seq };
	t->next++;
	t->stats.rows_used += tab->n;
	t->stats.files++;
	return at;
}

/* open_mapped - the file of @w's mapping, through map_files, if it is
 * the device and inode the kernel named; -1 otherwise. */
static int open_mapped(const struct unwind_tables *t, const struct sampler_unwind_want *w)
{
	char path[128];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", t->proc_root, w->pid,
		 (unsigned long long)w->start, (unsigned long long)w->end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != w->file.ino ||
	    st.st_dev !=
		    makedev((unsigned)(w->file.dev >> 20), (unsigned)(w->file.dev & 0xfffff))) {
		close(fd);
		return -1;
	}
	return fd;
}

void unwind_tables__want(struct unwind_tables *t, const struct sampler_unwind_want *w)
{
	int64_t t0 = clock_mono_ns();
	struct unwind_table tab = { 0 };
	struct cfi *c = NULL;
	int fd, at, e = -ENOENT;

	fd = open_mapped(t, w);
	if (fd < 0) {
		t->stats.files_failed++;
		/* the process may be gone: asked again by the next one */
		bpf_map_delete_elem(t->asked_fd, &w->file);
		return;
	}
	c = cfi__open_fd(fd, 0);
	close(fd);
	if (c)
		e = unwind_table__build(c, t->rows_max / 4, &tab);
	cfi__free(c);
	if (e == -E2BIG)
		t->stats.files_too_big++;
	at = !e && tab.n ? store(t, &w->file, &tab) : -1;
	if (at >= 0) {
		publish(t, &w->file, t->ext[at].first, t->ext[at].count);
	} else {
		t->stats.files_without++;
		publish(t, &w->file, 0, 0);
	}
	unwind_table__release(&tab);
	bpf_map_delete_elem(t->asked_fd, &w->file);
	t->stats.build_ns += (uint64_t)(clock_mono_ns() - t0);
}
