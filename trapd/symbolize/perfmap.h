/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perfmap.h - JIT symbol maps: the /tmp/perf-PID.map files that Node
 * (--perf-basic-prof), .NET (DOTNET_PerfMapEnabled=1), Java agents and
 * others write so that profilers can name code compiled at run time.
 *
 * Format (linux tools/perf/Documentation/jit-interface.txt): one symbol
 * per line, "START SIZE NAME", START and SIZE in hex (an optional 0x),
 * NAME the rest of the line (it may hold blanks). Code can be compiled
 * again at an address, so of overlapping entries the later line wins
 * (among the 64 that start nearest below the address).
 *
 * The file is untrusted input written by the target, and any local user
 * can create /tmp/perf-PID.map before the process does. It is read only
 * as perf reads it: a regular file (not a symbolic link, which is never
 * followed; a FIFO or device is never opened), owned by the process's
 * user (real or effective uid) or root; found inside the target's own
 * root with the pid as the target sees it (its innermost namespaced pid).
 * A process that exits leaves its map behind, complete at last (runtimes
 * buffer what they write): perfmap__open_tmp keeps the process's /tmp
 * while it lives, so that perfmap__read_at can read the map afterwards
 * from the same directory, with the same checks, even when that /tmp was
 * a mount of a namespace that died with the process.
 * At most PERFMAP_MAX_FILE bytes and PERFMAP_MAX_ENTRIES symbols are
 * read, and a runtime may still be appending to it: a last line without
 * its newline is left for the next read, never half parsed.
 */
#ifndef TRAPD_PERFMAP_H
#define TRAPD_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERFMAP_MAX_FILE (64u << 20)   /* bytes read */
#define PERFMAP_MAX_ENTRIES (1u << 20) /* symbols kept */
#define PERFMAP_MAX_NAME 1024	       /* bytes of a name; longer ones are cut */

struct perfmap_sym {
	uint64_t start, end; /* [start, end) */
	uint32_t seq;	     /* line order: of overlapping symbols the later wins */
	uint32_t name;	     /* offset into names */
};

struct perfmap {
	struct perfmap_sym *syms; /* by start */
	size_t n;
	uint64_t *max_end; /* max_end[i]: the highest end of syms[0..i] */
	char *names;
	size_t nbad;	   /* lines that did not parse */
	bool truncated;	   /* a cap was hit */
	char error[160];   /* why perfmap__read refused a file ("" otherwise) */
	size_t text_bytes; /* bytes perfmap__read read */
};

/* What /proc/PID/status says about a process's perf map. */
struct perfmap_owner {
	int nspid;	 /* the pid it sees itself as */
	long ruid, euid; /* -1: not known (only root's files are then read) */
};

/* perfmap__parse - the complete lines of @text[0..len) into @out (which
 * is overwritten). Returns 0 or -ENOMEM (@out is then empty). Free with
 * perfmap__free. */
int perfmap__parse(const char *text, size_t len, struct perfmap *out);

/* perfmap__read - the perf map of process @pid (with /proc at
 * @proc_root): /tmp/perf-NSPID.map inside its root. Returns 0, -ENOENT
 * when it writes none, -ELOOP for a symbolic link, -EPERM for a file
 * that is not regular or belongs to another user, or another negative
 * errno; out->error then says what was refused, in words (an empty @out
 * otherwise). */
int perfmap__read(const char *proc_root, int pid, struct perfmap *out);

/* perfmap__read_max - perfmap__read reading at most @max_bytes (and never
 * more than PERFMAP_MAX_FILE): a capture's budget for perf maps across
 * its processes. A file cut here is truncated, as at the fixed cap. */
int perfmap__read_max(const char *proc_root, int pid, size_t max_bytes, struct perfmap *out);

/* perfmap__open_tmp - the /tmp directory of process @pid (with /proc at
 * @proc_root), resolved inside the process's root (links within it are
 * followed there), as an O_PATH directory fd the caller closes; what the
 * process's status says about its map (namespaced pid, uids) into
 * @owner. Returns the fd or a negative errno (-ENOENT: the process or
 * its /tmp is gone). */
int perfmap__open_tmp(const char *proc_root, int pid, struct perfmap_owner *owner);

/* perfmap__read_at - the perf map of the process described by @owner
 * (from perfmap__open_tmp) in its /tmp directory @tmp_fd, whether the
 * process still lives or not: perf-NSPID.map in that directory, never
 * followed if a link, read only if a regular file owned by one of
 * @owner's uids or root, at most @max_bytes (and PERFMAP_MAX_FILE).
 * Returns as perfmap__read. */
int perfmap__read_at(int tmp_fd, const struct perfmap_owner *owner, size_t max_bytes,
		     struct perfmap *out);

/* perfmap__parse_status - the NSpid and Uid lines of the NUL-terminated
 * status text @buf (which starts with a newline) of @pid into @out;
 * what is missing or malformed stays unknown (@pid, -1). Returns 0. */
int perfmap__parse_status(const char *buf, int pid, struct perfmap_owner *out);

/* perfmap__lookup - the name of the symbol holding @addr, or NULL. */
const char *perfmap__lookup(const struct perfmap *m, uint64_t addr);

void perfmap__free(struct perfmap *m);

#endif
