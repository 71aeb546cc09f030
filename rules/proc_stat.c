// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* proc_stat.c - per-process counters from /proc, and the bounded text
 * helpers the other signal readers share. */
#include "rules/proc_stat.h"
#include "rules/errmsg.h"
#include "rules/file_cache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* /proc/PID/stat fields we use, numbered as in proc(5) (pid is 1). */
#define STAT_UTIME 14
#define STAT_STIME 15
#define STAT_THREADS 20
#define STAT_STARTTIME 22

int proc_stat_read_text(const char *path, char *buf, size_t size, size_t *len)
{
	return file_cache__read(NULL, path, buf,
				size < PROC_STAT_FILE_MAX ? size : PROC_STAT_FILE_MAX, len);
}

int proc_stat_parse_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return -ERANGE;
	*out = v;
	*s = p;
	return 0;
}

int proc_stat_parse_stat(const char *text, struct proc_stat_cpu *out)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	size_t clen;
	uint64_t v;
	int field;

	memset(out, 0, sizeof(*out));
	if (!open || !close || close < open || !isdigit((unsigned char)text[0]))
		return -EINVAL;
	clen = (size_t)(close - open - 1);
	if (clen >= PROC_STAT_COMM_LEN)
		clen = PROC_STAT_COMM_LEN - 1;
	memcpy(out->comm, open + 1, clen);
	p = close + 1;
	if (p[0] != ' ' || !isgraph((unsigned char)p[1]))
		return -EINVAL;
	out->state = p[1];
	p += 2;
	for (field = 4; field <= STAT_STARTTIME; field++) {
		if (*p++ != ' ')
			return -EINVAL;
		if (field == STAT_UTIME || field == STAT_STIME || field == STAT_THREADS ||
		    field == STAT_STARTTIME) {
			if (proc_stat_parse_u64(&p, &v))
				return -EINVAL;
			if (field == STAT_UTIME)
				out->utime = v;
			else if (field == STAT_STIME)
				out->stime = v;
			else if (field == STAT_THREADS)
				out->num_threads = v;
			else
				out->starttime = v;
			continue;
		}
		/* a field we do not use: any token (some are negative) */
		if (!isgraph((unsigned char)*p))
			return -EINVAL;
		while (isgraph((unsigned char)*p))
			p++;
	}
	return 0;
}

/* status_value - the text after "@key:" and its blanks, on the first line
 * that starts with it; NULL when no line does. */
static const char *status_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			line += kl + 1;
			while (*line == ' ' || *line == '\t')
				line++;
			return line;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return NULL;
}

int proc_stat_parse_status(const char *text, struct proc_stat_status *out)
{
	const char *p;
	uint64_t kb;

	memset(out, 0, sizeof(*out));
	p = status_value(text, "Threads");
	if (!p || proc_stat_parse_u64(&p, &out->threads) || (*p && *p != '\n'))
		return -EINVAL;
	p = status_value(text, "VmRSS");
	if (!p)
		return 0;
	if (proc_stat_parse_u64(&p, &kb) || strncmp(p, " kB", 3) ||
	    __builtin_mul_overflow(kb, 1024, &out->rss_bytes))
		return -EINVAL;
	out->has_rss = true;
	return 0;
}

int proc_stat_parse_statm(const char *text, uint64_t *resident_pages)
{
	const char *p = text;
	uint64_t size;

	if (proc_stat_parse_u64(&p, &size) || *p++ != ' ' ||
	    proc_stat_parse_u64(&p, resident_pages))
		return -EINVAL;
	return 0;
}

/* read_pid_file - @proc_root/@pid/@name into @buf, through @files when
 * given; a process that is gone (the file is missing, or it exited under
 * the read) is -ENOENT. */
static int read_pid_file(const char *proc_root, pid_t pid, struct file_cache *files,
			 const char *name, char *buf, size_t size, char *path, size_t plen)
{
	int ret;

	if (snprintf(path, plen, "%s/%d/%s", proc_root, (int)pid, name) >= (int)plen)
		return -ENAMETOOLONG;
	ret = file_cache__read(files, path, buf, size, NULL);
	return ret == -ESRCH ? -ENOENT : ret;
}

int proc_stat_read_cpu(const char *proc_root, pid_t pid, struct file_cache *files,
		       struct proc_stat_cpu *out, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[4096];
	int ret;

	ret = read_pid_file(proc_root, pid, files, "stat", buf, sizeof(buf), path, sizeof(path));
	if (ret == -ENOENT)
		return errmsg_fail(err, errlen, ret, "pid %d: no such process", (int)pid);
	if (ret)
		return errmsg_fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
	if (proc_stat_parse_stat(buf, out))
		return errmsg_fail(err, errlen, -EINVAL, "%s: not in the stat format", path);
	return 0;
}

int proc_stat_read_status(const char *proc_root, pid_t pid, struct file_cache *files,
			  struct proc_stat_status *out, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[8192];
	int ret;

	ret = read_pid_file(proc_root, pid, files, "status", buf, sizeof(buf), path, sizeof(path));
	if (ret == -ENOENT)
		return errmsg_fail(err, errlen, ret, "pid %d: no such process", (int)pid);
	if (ret)
		return errmsg_fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
	if (proc_stat_parse_status(buf, out))
		return errmsg_fail(err, errlen, -EINVAL,
				   "%s: no valid 'Threads:' line or a bad 'VmRSS:'", path);
	return 0;
}

int proc_stat_rss(const char *proc_root, pid_t pid, struct file_cache *files, uint64_t *bytes,
		  char *err, size_t errlen)
{
	struct proc_stat_status st;
	char path[PATH_MAX], buf[256];
	uint64_t pages;
	long psz;
	int ret;

	ret = proc_stat_read_status(proc_root, pid, files, &st, err, errlen);
	if (ret || st.has_rss) {
		*bytes = st.rss_bytes;
		return ret;
	}
	ret = read_pid_file(proc_root, pid, files, "statm", buf, sizeof(buf), path, sizeof(path));
	if (ret == -ENOENT)
		return errmsg_fail(err, errlen, ret, "pid %d: no such process", (int)pid);
	if (ret)
		return errmsg_fail(err, errlen, ret, "%s: %s", path, strerror(-ret));
	psz = sysconf(_SC_PAGESIZE);
	if (proc_stat_parse_statm(buf, &pages) || psz <= 0 ||
	    __builtin_mul_overflow(pages, (uint64_t)psz, bytes))
		return errmsg_fail(err, errlen, -EINVAL, "%s: not in the statm format", path);
	return 0;
}

/* all_digits - @s is a non-empty decimal that fits a positive int. */
static bool all_digits(const char *s, long *v)
{
	const char *p = s;
	uint64_t u;

	if (proc_stat_parse_u64(&p, &u) || *p || u > INT_MAX)
		return false;
	*v = (long)u;
	return true;
}

/* open_fds_by_size - the open fds of /proc/PID/fd from its size: since
 * Linux 6.2 procfs gives the count there, with a stat instead of a read
 * of every entry. False where it does not (an older kernel says 0, as
 * would a process without fds: those are listed), or off procfs. */
static bool open_fds_by_size(const char *path, uint64_t *n)
{
	struct statfs fs;
	struct stat st;

	if (stat(path, &st) || st.st_size <= 0 || !S_ISDIR(st.st_mode) || statfs(path, &fs) ||
	    fs.f_type != PROC_SUPER_MAGIC)
		return false;
	*n = (uint64_t)st.st_size < PROC_STAT_FDS_MAX ? (uint64_t)st.st_size : PROC_STAT_FDS_MAX;
	return true;
}

int proc_stat_count_fds(const char *proc_root, pid_t pid, uint64_t *n, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	uint64_t count = 0;
	DIR *d = NULL;
	long fd;

	if (snprintf(path, sizeof(path), "%s/%d/fd", proc_root, (int)pid) >= (int)sizeof(path))
		return errmsg_fail(err, errlen, -ENAMETOOLONG, "%s/%d/fd: path too long", proc_root,
				   (int)pid);
	if (open_fds_by_size(path, n))
		return 0;
	d = opendir(path);
	if (!d && errno == ENOENT)
		return errmsg_fail(err, errlen, -ENOENT, "pid %d: no such process", (int)pid);
	if (!d)
		return errmsg_fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	while (count < PROC_STAT_FDS_MAX && (de = readdir(d)))
		if (all_digits(de->d_name, &fd))
			count++;
	closedir(d);
	*n = count;
	return 0;
}

int proc_stat_read_comm(const char *proc_root, pid_t pid, char comm[PROC_STAT_COMM_LEN])
{
	char path[PATH_MAX], buf[64];
	int ret;

	ret = read_pid_file(proc_root, pid, NULL, "comm", buf, sizeof(buf), path, sizeof(path));
	if (ret)
		return ret == -EFBIG ? -EINVAL : ret;
	proc_stat_comm_text(buf, comm);
	return 0;
}

void proc_stat_comm_text(char *text, char comm[PROC_STAT_COMM_LEN])
{
	char *nl = strrchr(text, '\n');

	if (nl)
		*nl = '\0';
	if (strlen(text) >= PROC_STAT_COMM_LEN)
		text[PROC_STAT_COMM_LEN - 1] = '\0';
	memcpy(comm, text, strlen(text) + 1);
}

static int read_comm(void *rctx, const char *proc_root, pid_t pid, char comm[PROC_STAT_COMM_LEN])
{
	(void)rctx;
	return proc_stat_read_comm(proc_root, pid, comm);
}

int proc_stat_scan(const char *proc_root, proc_stat_scan_fn fn, void *ctx, char *err, size_t errlen)
{
	return proc_stat_scan_with(proc_root, read_comm, NULL, fn, ctx, err, errlen);
}

int proc_stat_scan_with(const char *proc_root, proc_stat_comm_fn read_fn, void *rctx,
			proc_stat_scan_fn fn, void *ctx, char *err, size_t errlen)
{
	char have[PROC_STAT_COMM_LEN];
	size_t scanned = 0;
	struct dirent *de;
	DIR *d;
	long pid;

	d = opendir(proc_root);
	if (!d)
		return errmsg_fail(err, errlen, -errno, "%s: %s", proc_root, strerror(errno));
	while (scanned++ < PROC_STAT_SCAN_MAX && (de = readdir(d))) {
		if (!all_digits(de->d_name, &pid) || pid == 0)
			continue;
		if (read_fn(rctx, proc_root, (pid_t)pid, have) == 0 && fn((pid_t)pid, have, ctx))
			break;
	}
	closedir(d);
	return 0;
}

struct find_comm {
	char want[PROC_STAT_COMM_LEN];
	pid_t *pids;
	size_t max, *n;
};

static int find_comm_one(pid_t pid, const char *comm, void *ctx)
{
	struct find_comm *f = ctx;

	if (!strcmp(comm, f->want))
		f->pids[(*f->n)++] = pid;
	return *f->n >= f->max;
}

int proc_stat_find_comm(const char *proc_root, const char *comm, pid_t *pids, size_t max, size_t *n,
			char *err, size_t errlen)
{
	struct find_comm f = { .pids = pids, .max = max, .n = n };

	*n = 0;
	snprintf(f.want, sizeof(f.want), "%s", comm);
	if (!max)
		return 0;
	return proc_stat_scan(proc_root, find_comm_one, &f, err, errlen);
}
