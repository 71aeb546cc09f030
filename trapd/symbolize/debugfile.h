/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* debugfile.h - the separate debug file of a stripped ELF file.
 *
 * Distributions strip their binaries and ship the symbols apart (Debian's
 * -dbgsym packages, Fedora's -debuginfo), where gdb and perf look for
 * them. Two ways name the debug file of a binary:
 *   - its GNU build ID: /usr/lib/debug/.build-id/XX/YYYY.debug, XX the
 *     first byte in hex, YYYY the rest;
 *   - its .gnu_debuglink section (a file name and the file's CRC-32):
 *     DIR/NAME, DIR/.debug/NAME and /usr/lib/debug/DIR/NAME, DIR being the
 *     directory of the binary.
 * Each place is tried inside the target process's root first (a container
 * ships its own debug files), then in trapd's own view of the file
 * system. A candidate is used only when it is proven to belong to the
 * binary: the same build ID, or, when the binary has none, the CRC-32
 * its debuglink names, and owned by root or by the binary's owner (a
 * build ID is easily copied into a forged file). Candidates are
 * untrusted ELF files like any other.
 */
#ifndef TRAPD_DEBUGFILE_H
#define TRAPD_DEBUGFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "trapd/symbolize/elfsym.h"

struct symbudget;

/* Where to look: the target @pid, with /proc at @proc_root, and the root
 * of trapd's own view (@host_root: "" for "/"; tests point it at a
 * fixture tree). */
struct debugfile_search {
	const char *proc_root;
	const char *host_root;
	int pid;
	/* what proving and loading candidates may cost (a debuglink's CRC
	 * reads the whole candidate); NULL: the fixed caps only */
	struct symbudget *budget;
	/* who owns the binary (-1: unknown). A candidate is believed only
	 * when root or that user owns it: the symbols of a file are shared
	 * by every process that maps it, and a user who can shape a
	 * process's root (a mount namespace of their own) could otherwise
	 * name another user's frames. Set by debugfile__load's callers. */
	long bin_owner;
};

/* debugfile__wanted - whether @bin lacks a full symbol table but names a
 * debug file that could have one. */
bool debugfile__wanted(const struct elfsym *bin);

/* debugfile__load - the symbols of the debug file of @bin, which @pid maps
 * from @path (the path as the target sees it). NULL when none is found or
 * none matches (errno ENOENT) or on another error. On success, @found (if
 * not NULL) gets where it was found, "root:PATH" (inside the target's
 * root) or "host:PATH". */
struct elfsym *debugfile__load(const struct debugfile_search *where, const char *path,
			       const struct elfsym *bin, char *found, size_t foundlen);

#endif
