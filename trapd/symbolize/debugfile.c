// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* debugfile.c - find, check and load separate debug files. */
#include "trapd/symbolize/debugfile.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "trapd/symbolize/mapped_file.h"
#include "trapd/symbolize/symbudget.h"
#include "trapd/util/log.h"

#define DEBUG_DIR "/usr/lib/debug"

bool debugfile__wanted(const struct elfsym *bin)
{
	return elfsym__source(bin) != ELFSYM_SOURCE_SYMTAB &&
	       (elfsym__build_id(bin)[0] || elfsym__debuglink(bin, NULL));
}

/* file_crc32 - the CRC-32 of the whole file open at @fd, as
 * .gnu_debuglink records it (zlib's): exactly the size fstat gives, so a
 * file that never ends (a procfs file a target linked here) is not read
 * forever. 0 or a negative errno. */
static int file_crc32(int fd, struct symbudget *budget, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	struct stat st;
	off_t off = 0;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0 || (uint64_t)st.st_size > ELFSYM_MAX_FILE_SIZE)
		return -EINVAL;
	if (!symbudget__take(budget, SYMBUDGET_BYTES, (uint64_t)st.st_size))
		return -EDQUOT;
	while (off < st.st_size) {
		n = pread(fd, buf,
			  st.st_size - off < (off_t)sizeof(buf) ? (size_t)(st.st_size - off)
								: sizeof(buf),
			  off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	*crc = (uint32_t)c;
	return 0;
}

/* belongs - whether the file at @fd is a debug file of @bin: the same
 * build ID, or the debuglink's CRC when @bin has no build ID. */
static bool belongs(int fd, const struct elfsym *bin, struct symbudget *budget)
{
	char bid[ELFSYM_BUILD_ID_HEX];
	uint32_t want, crc;

	/* An ELF file at all (header, size and tables checked) first. */
	if (elfsym__read_build_id(fd, bid))
		return false;
	if (elfsym__build_id(bin)[0])
		return !strcmp(bid, elfsym__build_id(bin));
	if (!elfsym__debuglink(bin, &want))
		return false;
	return !file_crc32(fd, budget, &crc) && crc == want;
}

/* owned_well - whether the file at @fd is root's or @owner's (the
 * binary's): no other user may name the binary's functions. */
static bool owned_well(int fd, long owner, const char *cand)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	if (!st.st_uid || (owner >= 0 && (long)st.st_uid == owner))
		return true;
	log_debug("debug file %s: owned by uid %u, neither root nor the binary's owner: not used",
		  cand, (unsigned)st.st_uid);
	return false;
}

/* try_fd - the symbols of the candidate @cand open at @fd (closed here)
 * if it is owned well, belongs to @bin and has a full symbol table. */
static struct elfsym *try_fd(int fd, const struct debugfile_search *w, const char *cand,
			     const struct elfsym *bin)
{
	struct symbudget *budget = w->budget;
	struct elfsym_limits lim;
	struct elfsym *dbg = NULL;

	if (fd < 0)
		return NULL;
	if (owned_well(fd, w->bin_owner, cand) && belongs(fd, bin, budget)) {
		symbudget__elf_limits(budget, &lim);
		dbg = elfsym__open_fd_limited(fd, budget ? &lim : NULL);
		symbudget__charge_elf(budget, dbg);
	}
	close(fd);
	if (dbg && elfsym__source(dbg) != ELFSYM_SOURCE_SYMTAB) {
		elfsym__free(dbg); /* the stripped binary itself, say */
		dbg = NULL;
	}
	return dbg;
}

/* try_path - @cand inside the target's root, then in trapd's view. */
static struct elfsym *try_path(const struct debugfile_search *w, const char *cand,
			       const struct elfsym *bin, char *found, size_t foundlen)
{
	char host[PATH_MAX];
	struct elfsym *dbg;
	int n;

	dbg = try_fd(mapped_file_open_in_root(w->proc_root, w->pid, cand), w, cand, bin);
	if (dbg) {
		if (found)
			snprintf(found, foundlen, "root:%s", cand);
		return dbg;
	}
	n = snprintf(host, sizeof(host), "%s%s", w->host_root ? w->host_root : "", cand);
	if (n < 0 || (size_t)n >= sizeof(host))
		return NULL;
	dbg = try_fd(mapped_file_open_host(host), w, cand, bin);
	if (dbg && found)
		snprintf(found, foundlen, "host:%s", cand);
	return dbg;
}

/* build_id_path - /usr/lib/debug/.build-id/XX/YYYY.debug; false if @bid
 * is too short to split. */
static bool build_id_path(const char *bid, char *out, size_t len)
{
	int n;

	if (strlen(bid) < 4)
		return false;
	n = snprintf(out, len, DEBUG_DIR "/.build-id/%.2s/%s.debug", bid, bid + 2);
	return n > 0 && (size_t)n < len;
}

/* link_path - the @i-th place (0 to 2) of the debuglink @name of a binary
 * at @path; false when there is no such place. */
static bool link_path(const char *path, const char *name, int i, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen, n;

	if (path[0] != '/' || !slash)
		return false;
	dirlen = (int)(slash - path);
	switch (i) {
	case 0:
		n = snprintf(out, len, "%.*s/%s", dirlen, path, name);
		break;
	case 1:
		n = snprintf(out, len, "%.*s/.debug/%s", dirlen, path, name);
		break;
	default:
		n = snprintf(out, len, DEBUG_DIR "%.*s/%s", dirlen, path, name);
		break;
	}
	return n > 0 && (size_t)n < len;
}

struct elfsym *debugfile__load(const struct debugfile_search *where, const char *path,
			       const struct elfsym *bin, char *found, size_t foundlen)
{
	const char *link = elfsym__debuglink(bin, NULL);
	struct elfsym *dbg = NULL;
	char cand[PATH_MAX];
	int i;

	if (build_id_path(elfsym__build_id(bin), cand, sizeof(cand)))
		dbg = try_path(where, cand, bin, found, foundlen);
	for (i = 0; !dbg && link && i < 3; i++)
		if (link_path(path, link, i, cand, sizeof(cand)))
			dbg = try_path(where, cand, bin, found, foundlen);
	if (!dbg)
		errno = ENOENT;
	return dbg;
}
