/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* procmaps.h - parse the text of /proc/PID/maps.
 *
 * The maps file of a target process is untrusted input: the process picks
 * the names of the files it maps, and a fixture or a fuzzer can feed
 * anything. Every line is bounded (PROCMAPS_MAX_LINE), every field is
 * checked, and a line that does not parse is skipped and counted instead
 * of failing the whole file. The number of kept entries and the bytes of
 * their paths are capped; past a cap the result is marked truncated.
 *
 * Line format (see proc(5)):
 *   start-end perms offset major:minor inode [spaces path]
 * The path is the rest of the line and may contain spaces; a " (deleted)"
 * suffix is removed and recorded; pseudo paths ("[vdso]", "[stack]", ...)
 * and anonymous mappings (no path) are recognised. The kernel escapes a
 * newline in a file name as "\012"; such names are kept as printed.
 */
#ifndef TRAPD_PROCMAPS_H
#define TRAPD_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROCMAPS_MAX_PATH 4096 /* bytes of a path, as PATH_MAX */
#define PROCMAPS_MAX_LINE (PROCMAPS_MAX_PATH + 128)
#define PROCMAPS_MAX_ENTRIES (1u << 16)	    /* kept entries per file */
#define PROCMAPS_MAX_PATH_BYTES (16u << 20) /* all kept paths together */
#define PROCMAPS_MAX_FILE (64u << 20)	    /* bytes read from a maps file */

/* perms bits of struct procmaps_entry */
#define PROCMAPS_READ 0x1u
#define PROCMAPS_WRITE 0x2u
#define PROCMAPS_EXEC 0x4u
#define PROCMAPS_SHARED 0x8u

/* flags of procmaps__parse / procmaps__read */
#define PROCMAPS_EXEC_ONLY 0x1u /* keep only executable mappings */

enum procmaps_kind {
	PROCMAPS_ANON,	 /* no path: anonymous memory (heap, JIT code, ...) */
	PROCMAPS_FILE,	 /* an absolute path: a file (maybe deleted) */
	PROCMAPS_PSEUDO, /* "[vdso]", "[stack]", "[heap]", "[anon:name]", ... */
	PROCMAPS_OTHER,	 /* any other name, e.g. "anon_inode:[perf_event]" */
};

struct procmaps_entry {
	uint64_t start;	 /* first byte */
	uint64_t end;	 /* one past the last byte; start < end */
	uint64_t offset; /* file offset of start */
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	unsigned int perms; /* PROCMAPS_READ | ... */
	enum procmaps_kind kind;
	bool deleted;	  /* the path had a " (deleted)" suffix */
	const char *path; /* without " (deleted)"; "" when anonymous */
};

struct procmaps {
	struct procmaps_entry *entries; /* in file order */
	size_t n;
	size_t nbad;	/* lines skipped as malformed or overlong */
	bool truncated; /* a cap was hit; later lines were not read */
	char *paths;	/* private: storage of the entries' paths */
};

/* procmaps__parse_line - parse the one line @line[0..len) (no newline) into
 * @out. @out->path points into @path_buf (at least PROCMAPS_MAX_PATH + 1
 * bytes), which receives the path NUL-terminated. Returns 0, or -EINVAL
 * when the line is malformed (then @out is unspecified). */
int procmaps__parse_line(const char *line, size_t len, struct procmaps_entry *out, char *path_buf);

/* procmaps__parse - parse the maps text @text[0..len) (need not be
 * NUL-terminated; a last line without a newline counts) into @out, which
 * is overwritten (free an earlier result first). With
 * PROCMAPS_EXEC_ONLY in @flags only executable mappings are kept.
 * Malformed lines are skipped and counted in @out->nbad. Returns 0 or
 * -ENOMEM; on error @out is left empty. Free with procmaps__free. */
int procmaps__parse(const char *text, size_t len, unsigned int flags, struct procmaps *out);

/* procmaps__read - read and parse <@proc_root>/<@pid>/maps (at most
 * PROCMAPS_MAX_FILE bytes; the rest is ignored and @out->truncated set).
 * Returns 0, -ESRCH when the process does not exist (any more), or another
 * negative errno (-EACCES, -ENOMEM, -EINVAL for a bad @pid or a @proc_root
 * too long). */
int procmaps__read(const char *proc_root, int pid, unsigned int flags, struct procmaps *out);

/* procmaps__free - release what @m holds and leave it empty; NULL is fine. */
void procmaps__free(struct procmaps *m);

#endif
