/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* file_cache.h - the small text files the rules poll (a cgroup's
 * cpu.stat, a pressure file, /proc/PID/stat), kept open and read at most
 * once a tick.
 *
 * A poll of twenty rules used to open, read twice and close every file
 * each rule reads, and several rules read the same file (three rules over
 * one cgroup read its cpu.stat three times). Through a cache a file is
 * opened once, read again from offset 0 with one pread (procfs and kernfs
 * give a file's whole text to one read with room for it), and read once a
 * tick whatever the number of rules over it: the other rules of the tick
 * get the same text, a consistent view.
 *
 * Only files of procfs, sysfs and the cgroup file systems are kept open:
 * there a read of a removed file fails (kernfs: ENODEV, a process that
 * exited: ESRCH), and the cache then opens the path afresh, once, so a
 * cgroup made again under the same name, or a pid reused, is read as the
 * path now names it. Elsewhere (fixture trees in tests) an unlinked file
 * reads on, so those are opened at each tick.
 *
 * Bounded: at most FILE_CACHE_MAX files (more are read the plain way), of
 * at most FILE_CACHE_TEXT_MAX bytes each; a file no rule read in the last
 * FILE_CACHE_IDLE_TICKS ticks is closed (a tick may read one rule's file
 * only: a PSI trigger's). One thread uses a cache.
 */
#ifndef TRAPD_FILE_CACHE_H
#define TRAPD_FILE_CACHE_H

#include <stddef.h>

#define FILE_CACHE_MAX 1024		/* files kept; beyond, read the plain way */
#define FILE_CACHE_TEXT_MAX (64 * 1024) /* bytes read of any one file */
#define FILE_CACHE_IDLE_TICKS 4		/* ticks a file unread stays open */

struct file_cache;

struct file_cache *file_cache__new(void);
void file_cache__free(struct file_cache *c);

/* file_cache__tick - a new tick: what is read from now on is read afresh;
 * files no read asked for in the last FILE_CACHE_IDLE_TICKS are closed. */
void file_cache__tick(struct file_cache *c);

/* file_cache__read - the text of @path into @buf (@size bytes, at most
 * FILE_CACHE_TEXT_MAX used), NUL-terminated, its length in *@len (may be
 * NULL). @c NULL: open, read and close, nothing kept. Returns 0, -EFBIG
 * when the file does not fit, or the negative errno of open or read (the
 * same answer for every read of a path within a tick). */
int file_cache__read(struct file_cache *c, const char *path, char *buf, size_t size, size_t *len);

/* file_cache__open_files - the files the cache holds open (for tests and
 * status). */
size_t file_cache__open_files(const struct file_cache *c);

#endif
