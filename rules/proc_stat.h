/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* proc_stat.h - what /proc says about one process: CPU ticks, RSS,
 * threads, open fds and comm; and finding every process of a name.
 *
 * The proc root is a parameter ("/proc" on a live host, a fixture tree in
 * tests). The parsers take the text of one file and are fuzzed: a /proc
 * file is input like any other. This module also holds the two text
 * helpers the other /proc and cgroup readers (psi, cgroup_stat) share:
 * a bounded file read and a strict decimal parser.
 */
#ifndef TRAPD_PROC_STAT_H
#define TRAPD_PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct file_cache;

#define PROC_STAT_FILE_MAX (64 * 1024) /* bytes read of any one file */
#define PROC_STAT_COMM_LEN 16	       /* the kernel's TASK_COMM_LEN, NUL included */
#define PROC_STAT_FDS_MAX (1 << 20)    /* fd entries counted (the default nr_open) */
#define PROC_STAT_SCAN_MAX (1 << 22)   /* /proc entries a name scan looks at */

/* From /proc/PID/stat. */
struct proc_stat_cpu {
	char comm[PROC_STAT_COMM_LEN]; /* as the kernel has it, cut to 15 bytes */
	char state;		       /* 'R', 'S', 'Z'... */
	uint64_t utime;		       /* clock ticks (sysconf(_SC_CLK_TCK)) */
	uint64_t stime;
	uint64_t num_threads;
	uint64_t starttime; /* ticks after boot: a reused pid has another */
};

/* From /proc/PID/status. */
struct proc_stat_status {
	bool has_rss; /* kernel threads have no VmRSS line */
	uint64_t rss_bytes;
	uint64_t threads;
};

/* proc_stat_read_text - read the file @path whole into @buf (@size bytes,
 * at most PROC_STAT_FILE_MAX are used) and NUL-terminate it; *len (may be
 * NULL) is its length. Returns 0, -EFBIG when the file does not fit, or
 * the errno of open/read (negative). Does not write messages: callers
 * name the file in theirs. */
int proc_stat_read_text(const char *path, char *buf, size_t size, size_t *len);

/* proc_stat_parse_u64 - the decimal at *@s (digits only: no sign, space
 * or base prefix), moving *@s past it. Returns 0, -EINVAL (no digit) or
 * -ERANGE (more than 64 bits). */
int proc_stat_parse_u64(const char **s, uint64_t *out);

/* proc_stat_parse_stat - parse the text of /proc/PID/stat. The comm field
 * is everything between the first '(' and the LAST ')' (a comm may hold
 * spaces and parentheses). Returns 0 or -EINVAL (malformed). */
int proc_stat_parse_stat(const char *text, struct proc_stat_cpu *out);

/* proc_stat_parse_status - parse the text of /proc/PID/status: Threads
 * (required) and VmRSS in kB (optional). Returns 0 or -EINVAL. */
int proc_stat_parse_status(const char *text, struct proc_stat_status *out);

/* proc_stat_parse_statm - the resident pages (second field) of
 * /proc/PID/statm. Returns 0 or -EINVAL. */
int proc_stat_parse_statm(const char *text, uint64_t *resident_pages);

/* proc_stat_read_cpu, proc_stat_read_status - read and parse
 * @proc_root/@pid/stat or /status, through @files (file_cache.h) when not
 * NULL. Returns 0; -ENOENT when the process is
 * gone (ESRCH from a read of a dying process counts as gone); -EINVAL for
 * a malformed file; another negative errno. @err names the file and the
 * problem on failure. */
int proc_stat_read_cpu(const char *proc_root, pid_t pid, struct file_cache *files,
		       struct proc_stat_cpu *out, char *err, size_t errlen);
int proc_stat_read_status(const char *proc_root, pid_t pid, struct file_cache *files,
			  struct proc_stat_status *out, char *err, size_t errlen);

/* proc_stat_rss - resident bytes of @pid: VmRSS of its status, or where
 * there is none statm's resident pages times the page size (0 for a
 * kernel thread). Returns 0 or a negative errno as proc_stat_read_cpu. */
int proc_stat_rss(const char *proc_root, pid_t pid, struct file_cache *files, uint64_t *bytes,
		  char *err, size_t errlen);

/* proc_stat_count_fds - the number of open fds of @pid: the numeric
 * entries of @proc_root/@pid/fd, counted up to PROC_STAT_FDS_MAX (a
 * process with more reads as that many). Returns 0, -ENOENT (gone),
 * -EACCES (not ours to look at), or another negative errno, with @err. */
int proc_stat_count_fds(const char *proc_root, pid_t pid, uint64_t *n, char *err, size_t errlen);

/* proc_stat_read_comm - @pid's comm from @proc_root/@pid/comm, without
 * the newline. Returns 0 or a negative errno (-ENOENT: gone). */
int proc_stat_read_comm(const char *proc_root, pid_t pid, char comm[PROC_STAT_COMM_LEN]);

/* proc_stat_find_comm - every pid under @proc_root whose comm is @comm
 * (compared as the kernel stores it: at most 15 bytes), in /proc order,
 * at most @max of them in @pids; *@n is how many were stored. Looks at no
 * more than PROC_STAT_SCAN_MAX entries. Processes that exit during the
 * scan are skipped. Returns 0 (also when none matched) or a negative
 * errno when @proc_root cannot be read, with @err. */
int proc_stat_find_comm(const char *proc_root, const char *comm, pid_t *pids, size_t max, size_t *n,
			char *err, size_t errlen);

/* proc_stat_scan_fn - one process of a scan: its pid and comm (as the
 * kernel keeps it, at most 15 bytes). Return nonzero to stop the scan. */
typedef int (*proc_stat_scan_fn)(pid_t pid, const char *comm, void *ctx);

/* proc_stat_comm_text - the comm in @text (the contents of a comm file,
 * NUL-terminated), without its newline, cut as the kernel cuts it. */
void proc_stat_comm_text(char *text, char comm[PROC_STAT_COMM_LEN]);

/* proc_stat_scan - one pass over @proc_root: @fn for every process, in
 * /proc order, looking at no more than PROC_STAT_SCAN_MAX entries;
 * processes that exit during the scan are skipped. The one directory
 * listing of /proc the daemon makes per poll, shared by every rule that
 * finds a process by its name. Returns 0 or a negative errno when
 * @proc_root cannot be read, with @err. */
int proc_stat_scan(const char *proc_root, proc_stat_scan_fn fn, void *ctx, char *err,
		   size_t errlen);

/* proc_stat_comm_fn - how a scan reads a process's comm: as
 * proc_stat_read_comm does (0, or a negative errno: the process is
 * skipped). */
typedef int (*proc_stat_comm_fn)(void *rctx, const char *proc_root, pid_t pid,
				 char comm[PROC_STAT_COMM_LEN]);

/* proc_stat_scan_with - proc_stat_scan, each comm read by @read(@rctx)
 * (proc_comms.h keeps the files open between scans). */
int proc_stat_scan_with(const char *proc_root, proc_stat_comm_fn read_fn, void *rctx,
			proc_stat_scan_fn fn, void *ctx, char *err, size_t errlen);

#endif
