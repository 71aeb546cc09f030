// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* waiting.c - the target's threads already waiting when a window opens
 * (waiting.h). */
#include "trapd/capture/waiting.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/proc_stat.h"
#include "trapd/capture/target.h"
#include "trapd/util/log.h"
#include "trapd/util/signals.h"

#define TEXT_MAX PROC_STAT_FILE_MAX
#define KALLSYMS_LINE 1024

/* One blocked thread, as read. */
struct blocked {
	int pid, tid;
	char state;
	char comm[SAMPLER_COMM_LEN];
	uint64_t cgroup_id;
	uint64_t pc;
	struct waiting_frame frames[WAITING_MAX_DEPTH];
	uint32_t nframes;
};

struct waiting {
	struct sampler *s;
	struct capture_target target;
	char proc[256];
	uint64_t since;
	char v2_root[4096];
	bool have_v2;
	pthread_t thread;
	atomic_bool stop;
	struct waiting_stats st;
	int *pids; /* processes surveyed */
	size_t npids;
	int *found; /* ...with a blocked thread */
	size_t nfound;
	struct blocked *blocked; /* grown as found, up to WAITING_MAX_BLOCKED */
	size_t nblocked, blocked_cap;
	char text[TEXT_MAX];
};

/* --- the parsers ------------------------------------------------------ */

/* parse_frame - one "[<0>] name+0xoff/0xsize" line into @f. */
static bool parse_frame(const char *line, size_t len, struct waiting_frame *f)
{
	const char *p = line, *end = line + len, *plus, *slash;
	char num[24];
	size_t n;

	while (p < end && *p != ']')
		p++;
	if (p == end || ++p == end || *p++ != ' ')
		return false;
	for (plus = end; plus > p && plus[-1] != '+'; plus--)
		;
	if (plus == p)
		return false;
	n = (size_t)(plus - 1 - p);
	if (!n || n >= sizeof(f->name))
		return false;
	memcpy(f->name, p, n);
	f->name[n] = '\0';
	for (slash = plus; slash < end && *slash != '/'; slash++)
		;
	n = (size_t)(slash - plus);
	if (n < 3 || n >= sizeof(num) || plus[0] != '0' || plus[1] != 'x')
		return false;
	memcpy(num, plus + 2, n - 2);
	num[n - 2] = '\0';
	for (n = 0; num[n]; n++)
		if (!strchr("0123456789abcdef", num[n]))
			return false;
	f->offset = strtoull(num, NULL, 16);
	return true;
}

size_t waiting_parse_stack(const char *text, struct waiting_frame *out, size_t max)
{
	const char *line = text, *nl;
	size_t n = 0, len;

	while (*line && n < max) {
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		if (parse_frame(line, len, &out[n]))
			n++;
		line += len + (nl ? 1 : 0);
	}
	return n;
}

/* parse_hex - "0x..." at *@s, moving past it. */
static int parse_hex(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int digits = 0;

	if (p[0] != '0' || p[1] != 'x')
		return -EINVAL;
	for (p += 2; *p && strchr("0123456789abcdef", *p); p++) {
		if (++digits > 16)
			return -EINVAL;
		v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	}
	if (!digits)
		return -EINVAL;
	*s = p;
	*out = v;
	return 0;
}

int waiting_parse_syscall(const char *text, uint64_t *sp, uint64_t *pc)
{
	uint64_t words[8], nr;
	const char *p = text;
	int n = 0, want;

	if (*p == '-') { /* "-1 SP PC": blocked outside a system call */
		if (p[1] != '1' || p[2] != ' ')
			return -EINVAL;
		p += 3;
		want = 2;
	} else {
		if (proc_stat_parse_u64(&p, &nr) || *p++ != ' ')
			return -EINVAL;
		want = 8; /* six arguments, then SP and PC */
	}
	while (n < want) {
		if (parse_hex(&p, &words[n]))
			return -EINVAL;
		n++;
		if (n < want && *p++ != ' ')
			return -EINVAL;
	}
	if (*p && *p != '\n')
		return -EINVAL;
	*sp = words[want - 2];
	*pc = words[want - 1];
	return 0;
}

/* --- reading one thread ----------------------------------------------- */

/* read_task - /proc/@pid/task/@tid/@name into w->text; 0 or a negative
 * errno (the thread is gone, or the file unreadable). */
static int read_task(struct waiting *w, int pid, int tid, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%d/task/%d/%s", w->proc, pid, tid, name);
	return proc_stat_read_text(path, w->text, sizeof(w->text), NULL);
}

/* read_task_stat - @tid's stat file, parsed; 0 or a negative errno. */
static int read_task_stat(struct waiting *w, int pid, int tid, struct proc_stat_cpu *stat)
{
	int e = read_task(w, pid, tid, "stat");

	return e ? e : proc_stat_parse_stat(w->text, stat);
}

/* cgroup_id_of - the v2 cgroup id of @tid (the inode of its directory in
 * the v2 hierarchy, as bpf_get_current_cgroup_id), 0 if unknown. */
static uint64_t cgroup_id_of(struct waiting *w, int pid, int tid)
{
	char path[4400], *line, *nl;
	struct stat st;

	if (!w->have_v2 || read_task(w, pid, tid, "cgroup"))
		return 0;
	for (line = w->text; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "0::/", 4))
			continue;
		/* kernel text, but a cgroup's name is its creator's: no ".." */
		if (strstr(line, "/..") || (size_t)snprintf(path, sizeof(path), "%s%s", w->v2_root,
							    line + 3) >= sizeof(path))
			return 0;
		return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
	}
	return 0;
}

/* read_thread - @tid of @pid into @b if it is blocked; true then. */
static bool read_thread(struct waiting *w, int pid, int tid, struct blocked *b)
{
	struct proc_stat_cpu stat;
	uint64_t sp;

	w->st.threads++;
	if (read_task_stat(w, pid, tid, &stat)) {
		w->st.gone++;
		return false;
	}
	if (!strchr("SDTt", stat.state) || !stat.state)
		return false;
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->tid = tid;
	b->state = stat.state;
	memcpy(b->comm, stat.comm, sizeof(b->comm));
	if (read_task(w, pid, tid, "syscall") || waiting_parse_syscall(w->text, &sp, &b->pc))
		b->pc = 0; /* running again, or no user context (a kernel thread) */
	if (!read_task(w, pid, tid, "stack"))
		b->nframes = (uint32_t)waiting_parse_stack(w->text, b->frames, WAITING_MAX_DEPTH);
	b->cgroup_id = cgroup_id_of(w, pid, tid);
	w->st.waiting++;
	return true;
}

/* next_blocked - room for one more blocked thread; NULL past the bound. */
static struct blocked *next_blocked(struct waiting *w)
{
	size_t cap = w->blocked_cap ? 2 * w->blocked_cap : 16;
	struct blocked *b;

	if (w->nblocked < w->blocked_cap)
		return &w->blocked[w->nblocked];
	if (w->nblocked >= WAITING_MAX_BLOCKED)
		return NULL;
	b = realloc(w->blocked, cap * sizeof(*b));
	if (!b)
		return NULL;
	w->blocked = b;
	w->blocked_cap = cap;
	return &w->blocked[w->nblocked];
}

/* read_process - every thread of @pid, the blocked ones kept. */
static void read_process(struct waiting *w, int pid)
{
	char path[512];
	struct dirent *de;
	struct blocked *b;
	bool found = false;
	DIR *d;
	pid_t tid;

	snprintf(path, sizeof(path), "%s/%d/task", w->proc, pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && !atomic_load(&w->stop)) {
		if (target_parse_pid(de->d_name, &tid))
			continue;
		b = w->st.threads < WAITING_MAX_THREADS ? next_blocked(w) : NULL;
		if (!b) {
			w->st.skipped++;
			continue;
		}
		if (read_thread(w, pid, tid, b)) {
			w->nblocked++;
			found = true;
		}
	}
	closedir(d);
	if (found && w->nfound < WAITING_MAX_PROCS)
		w->found[w->nfound++] = pid;
}

/* --- the target's processes ------------------------------------------- */

static void add_pid(struct waiting *w, int pid)
{
	if (pid <= 0)
		return;
	if (w->npids >= WAITING_MAX_PROCS) {
		w->st.skipped++;
		return;
	}
	w->pids[w->npids++] = pid;
}

/* read_procs - the pids in @dirfd's cgroup.procs. */
static void read_procs(struct waiting *w, int dirfd)
{
	char *line, *nl;
	pid_t pid;
	ssize_t n;
	int fd;

	fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	n = read(fd, w->text, sizeof(w->text) - 1);
	close(fd);
	if (n <= 0)
		return;
	w->text[n] = '\0';
	/* a cgroup with more processes than one read holds: the rest skipped */
	for (line = w->text; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		else if (n == (ssize_t)sizeof(w->text) - 1)
			break;
		if (!target_parse_pid(line, &pid))
			add_pid(w, pid);
	}
}

/* walk_cgroup - the processes of @dirfd's cgroup and of every cgroup
 * below it, depth first; @dirs counts the directories opened. Never
 * follows a link (cgroupfs has none, but a path is checked all the same). */
static void walk_cgroup(struct waiting *w, int dirfd, unsigned *dirs)
{
	struct dirent *de;
	DIR *d;
	int sub, dup_fd;

	read_procs(w, dirfd);
	dup_fd = dup(dirfd);
	if (dup_fd < 0)
		return;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return;
	}
	while ((de = readdir(d)) && !atomic_load(&w->stop)) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (++*dirs > WAITING_MAX_CGROUPS) {
			w->st.skipped++;
			break;
		}
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		walk_cgroup(w, sub, dirs);
		close(sub);
	}
	closedir(d);
}

static void list_processes(struct waiting *w)
{
	unsigned dirs = 0;
	int fd;

	if (w->target.kind == CAPTURE_TARGET_PID) {
		add_pid(w, w->target.pid);
		return;
	}
	fd = open(w->target.cgroup.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	walk_cgroup(w, fd, &dirs);
	close(fd);
}

/* --- kernel frames: names to addresses -------------------------------- */

struct kname {
	const char *name; /* a frame's */
	uint64_t addr;	  /* 0 until kallsyms has it */
};

static int kname_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kname *)a)->name, ((const struct kname *)b)->name);
}

/* resolve_names - the address of every name in @names (sorted, unique),
 * in one pass over kallsyms: the first text symbol of each name. */
static void resolve_names(struct waiting *w, struct kname *names, size_t n)
{
	char path[300], line[KALLSYMS_LINE], name[KALLSYMS_LINE], type;
	struct kname key, *hit;
	unsigned long long addr;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", w->proc);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && !atomic_load(&w->stop)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 ||
		    !strchr("tTwW", type) || !addr)
			continue;
		key.name = name;
		hit = bsearch(&key, names, n, sizeof(*names), kname_cmp);
		if (hit && !hit->addr)
			hit->addr = addr;
	}
	fclose(f);
}

/* kernel_names - the unique frame names of every blocked thread, sorted;
 * NULL when there are none (or no memory). */
static struct kname *kernel_names(struct waiting *w, size_t *n)
{
	struct kname *names;
	size_t i, j, k = 0;

	for (i = 0; i < w->nblocked; i++)
		k += w->blocked[i].nframes;
	names = k ? calloc(k, sizeof(*names)) : NULL;
	if (!names)
		return NULL;
	for (i = 0, k = 0; i < w->nblocked; i++)
		for (j = 0; j < w->blocked[i].nframes; j++)
			names[k++].name = w->blocked[i].frames[j].name;
	qsort(names, k, sizeof(*names), kname_cmp);
	for (i = j = 0; i < k; i++)
		if (!j || strcmp(names[j - 1].name, names[i].name))
			names[j++] = names[i];
	*n = j;
	return names;
}

/* --- telling the sampler ---------------------------------------------- */

static void add_blocked(struct waiting *w, const struct blocked *b, const struct kname *names,
			size_t nnames)
{
	uint64_t kips[WAITING_MAX_DEPTH], uips[1] = { b->pc };
	struct sampler_key key = { 0 };
	struct proc_stat_cpu stat;
	struct kname k, *hit;
	uint32_t i, nk = 0;
	int e;

	for (i = 0; i < b->nframes; i++) {
		k.name = b->frames[i].name;
		hit = names ? bsearch(&k, names, nnames, sizeof(*names), kname_cmp) : NULL;
		if (!hit || !hit->addr) {
			w->st.unnamed++;
			continue;
		}
		kips[nk++] = hit->addr + b->frames[i].offset;
	}
	key.pid = (uint32_t)b->pid;
	key.tid = (uint32_t)b->tid;
	key.cgroup_id = b->cgroup_id;
	memcpy(key.comm, b->comm, sizeof(key.comm));
	key.offcpu = b->state == 'D'   ? SAMPLER_OFFCPU_UNINTERRUPTIBLE
		     : b->state == 'S' ? SAMPLER_OFFCPU_SLEEPING
				       : SAMPLER_OFFCPU_OTHER; /* stopped, traced */
	e = sampler__add_waiting(w->s, &key, kips, nk, uips, b->pc ? 1 : 0, w->since);
	if (e)
		return; /* -EEXIST: it ran and left again, the hook has it */
	w->st.added++;
	/* It may have run between the read and now: then the hook never
	 * saw it leave, and the entry would count its running as waiting. */
	if (read_task_stat(w, b->pid, b->tid, &stat) || stat.state == 'R') {
		sampler__forget_waiting(w->s, key.tid, w->since);
		w->st.added--;
	}
}

static void *survey(void *arg)
{
	struct waiting *w = arg;
	struct kname *names = NULL;
	size_t i, nnames = 0;

	list_processes(w);
	for (i = 0; i < w->npids && !atomic_load(&w->stop); i++)
		read_process(w, w->pids[i]);
	if (w->nblocked && !atomic_load(&w->stop)) {
		names = kernel_names(w, &nnames);
		if (names)
			resolve_names(w, names, nnames);
	}
	for (i = 0; i < w->nblocked && !atomic_load(&w->stop); i++)
		add_blocked(w, &w->blocked[i], names, nnames);
	free(names);
	log_debug("off-CPU: %" PRIu64 " of %" PRIu64 " threads were waiting when the window "
		  "opened (%" PRIu64 " counted from its start)",
		  w->st.waiting, w->st.threads, w->st.added);
	return NULL;
}

/* --- lifecycle -------------------------------------------------------- */

static void waiting_free(struct waiting *w)
{
	free(w->pids);
	free(w->found);
	free(w->blocked);
	free(w);
}

struct waiting *waiting__start(struct sampler *s, const struct capture_target *t,
			       const char *proc_root, uint64_t since_mono_ns)
{
	struct waiting *w;
	int e;

	errno = 0;
	if (t->kind != CAPTURE_TARGET_PID && t->kind != CAPTURE_TARGET_CGROUP)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->s = s;
	w->target = *t;
	w->since = since_mono_ns;
	snprintf(w->proc, sizeof(w->proc), "%s", proc_root);
	w->have_v2 = !cgroup_v2_mount(NULL, w->v2_root, sizeof(w->v2_root));
	w->pids = calloc(WAITING_MAX_PROCS, sizeof(*w->pids));
	w->found = calloc(WAITING_MAX_PROCS, sizeof(*w->found));
	if (!w->pids || !w->found) {
		waiting_free(w);
		errno = ENOMEM;
		return NULL;
	}
	/* Signals go to the event loop's thread, never to this one. */
	e = signals_thread_create(&w->thread, survey, w);
	if (e) {
		waiting_free(w);
		errno = e;
		return NULL;
	}
	return w;
}

void waiting__finish(struct waiting *w, struct waiting_stats *st, int *pids, size_t max,
		     size_t *npids)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	*npids = 0;
	if (!w)
		return;
	atomic_store(&w->stop, true);
	pthread_join(w->thread, NULL);
	*st = w->st;
	for (i = 0; i < w->nfound && i < max; i++)
		pids[i] = w->found[i];
	*npids = i;
	waiting_free(w);
}
