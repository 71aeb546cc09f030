// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* pyframes.c - a capture's Python frames (pyframes.h). */
#include "trapd/capture/pyframes.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "bpf/sampler.h"
#include "trapd/symbolize/pycode.h"
#include "trapd/util/log.h"

#define PY_FINGERPRINT(info) ((info) & ~(SAMPLER_PY_ENTRY | (uint64_t)SAMPLER_PY_INSTR_UNKNOWN))
#define HEAD_BYTES offsetof(struct sampler_py_code, lines)

struct code_entry {
	uint64_t code;
	uint64_t fingerprint;
	int pid;
	uint32_t size;		     /* of @rec */
	struct sampler_py_code *rec; /* cut after its line table's copied bytes */
	int state;		     /* 0: not decoded yet; 1: named; -1: refused */
	uint32_t function;	     /* its profile function, once named */
	int32_t firstlineno;
	uint16_t co_code;
};

struct py_proc {
	int pid;
	struct pyruntime rt;
};

struct pyframes {
	/* registration, from any thread: under @lock */
	pthread_mutex_t lock;
	int map_fd; /* the sampler's py_procs, duplicated; -1 */
	uint32_t window;
	struct py_proc *procs;
	size_t nprocs;
	/* the rest: the event loop, then the thread building the profile */
	struct code_entry *codes; /* open addressing; code == 0: empty */
	size_t cap, n;
	uint64_t bytes;
	uint32_t unknown_function; /* "<unknown Python code>", once added */
	struct pyframes_stats st;
};

struct pyframes *pyframes__new(void)
{
	struct pyframes *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return NULL;
	pthread_mutex_init(&pf->lock, NULL);
	pf->map_fd = -1;
	return pf;
}

void pyframes__free(struct pyframes *pf)
{
	size_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->cap; i++)
		free(pf->codes[i].rec);
	free(pf->codes);
	free(pf->procs);
	if (pf->map_fd >= 0)
		close(pf->map_fd);
	pthread_mutex_destroy(&pf->lock);
	free(pf);
}

void pyframes__new_profile(struct pyframes *pf)
{
	size_t i;

	for (i = 0; i < pf->cap; i++)
		pf->codes[i].state = 0;
	pf->unknown_function = 0;
}

void pyframes__drop_codes(struct pyframes *pf)
{
	size_t i;

	for (i = 0; i < pf->cap; i++)
		free(pf->codes[i].rec);
	free(pf->codes);
	pf->codes = NULL;
	pf->cap = pf->n = 0;
	pf->bytes = 0;
	pf->unknown_function = 0;
}

static size_t code_slot(uint64_t code, uint64_t fingerprint, int pid, size_t cap)
{
	uint64_t h = (code ^ fingerprint ^ ((uint64_t)(uint32_t)pid << 17)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (cap - 1);
}

static struct code_entry *find_code(const struct pyframes *pf, uint64_t code, uint64_t fingerprint,
				    int pid)
{
	size_t j;

	if (!pf->cap)
		return NULL;
	for (j = code_slot(code, fingerprint, pid, pf->cap); pf->codes[j].code;
	     j = (j + 1) & (pf->cap - 1)) {
		struct code_entry *e = &pf->codes[j];

		if (e->code == code && e->fingerprint == fingerprint && e->pid == pid)
			return e;
	}
	return NULL;
}

static int grow(struct pyframes *pf)
{
	size_t ncap = pf->cap ? pf->cap * 2 : 256, i, j;
	struct code_entry *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < pf->cap; i++) {
		if (!pf->codes[i].code)
			continue;
		j = code_slot(pf->codes[i].code, pf->codes[i].fingerprint, pf->codes[i].pid, ncap);
		while (n[j].code)
			j = (j + 1) & (ncap - 1);
		n[j] = pf->codes[i];
	}
	free(pf->codes);
	pf->codes = n;
	pf->cap = ncap;
	return 0;
}

int pyframes__add_code(struct pyframes *pf, const void *data, size_t size, uint32_t window)
{
	const struct sampler_py_code *rec = data;
	uint64_t fingerprint;
	struct code_entry *e;
	size_t keep, j;

	if (size < HEAD_BYTES || rec->window != window || !rec->code)
		return 0;
	keep = HEAD_BYTES +
	       (rec->lines_copied <= SAMPLER_PY_LINES_MAX && rec->lines_copied <= size - HEAD_BYTES
			? rec->lines_copied
			: 0);
	fingerprint = PY_FINGERPRINT(rec->info);
	if (find_code(pf, rec->code, fingerprint, (int)rec->pid))
		return 0; /* announced again after an LRU eviction */
	if (pf->n >= PYFRAMES_MAX_CODES || pf->bytes + keep > PYFRAMES_MAX_BYTES) {
		pf->st.codes_dropped++;
		return -E2BIG;
	}
	if ((pf->n + 1) * 4 > pf->cap * 3 && grow(pf))
		return -ENOMEM;
	j = code_slot(rec->code, fingerprint, (int)rec->pid, pf->cap);
	while (pf->codes[j].code)
		j = (j + 1) & (pf->cap - 1);
	e = &pf->codes[j];
	e->rec = malloc(keep);
	if (!e->rec)
		return -ENOMEM;
	memcpy(e->rec, rec, keep);
	e->rec->lines_copied = (uint32_t)(keep - HEAD_BYTES);
	e->code = rec->code;
	e->fingerprint = fingerprint;
	e->pid = (int)rec->pid;
	e->size = (uint32_t)keep;
	pf->n++;
	pf->bytes += keep;
	pf->st.codes++;
	return 0;
}

int pyframes__register(int map_fd, uint32_t window, int pid, const struct pyruntime *rt)
{
	const struct pyruntime_layout *l = &rt->layout;
	struct sampler_py_proc v = {
		.runtime = rt->runtime,
		.window = window,
		.interp_head = l->interp_head,
		.threads_head = l->threads_head,
		.ts_next = l->ts_next,
		.ts_native_tid = l->ts_native_tid,
		.ts_frame = l->ts_frame,
		.cframe_frame = l->cframe_frame,
		.fr_code = l->fr_code,
		.fr_previous = l->fr_previous,
		.fr_instr = l->fr_instr,
		.fr_entry = l->fr_entry,
		.fr_owner = l->fr_owner,
		.co_firstlineno = l->co_firstlineno,
		.co_filename = l->co_filename,
		.co_qualname = l->co_qualname,
		.str_state = l->str_state,
		.str_ascii_data = l->str_ascii_data,
		.str_compact_data = l->str_compact_data,
		.bytes_data = l->bytes_data,
	};
	char path[64];
	struct stat st;
	__u32 key = (__u32)pid;

	/* The thread ids the interpreter records are its pid namespace's. */
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
	if (stat(path, &st))
		return -errno;
	v.pidns_dev = st.st_dev;
	v.pidns_ino = st.st_ino;
	if (bpf_map_update_elem(map_fd, &key, &v, BPF_ANY))
		return -errno;
	return 0;
}

int pyframes__watch(struct pyframes *pf, int map_fd)
{
	int fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	pthread_mutex_lock(&pf->lock);
	if (pf->map_fd >= 0)
		close(pf->map_fd);
	pf->map_fd = fd;
	pthread_mutex_unlock(&pf->lock);
	return 0;
}

static void register_one(struct pyframes *pf, const struct py_proc *pp)
{
	int err;

	if (pf->map_fd < 0 || !pf->window)
		return;
	err = pyframes__register(pf->map_fd, pf->window, pp->pid, &pp->rt);
	if (err && err != -ENOENT)
		log_debug("pid %d: cannot walk its Python frames: %s", pp->pid, strerror(-err));
}

void pyframes__found(struct pyframes *pf, int pid, const struct pyruntime *rt)
{
	struct py_proc *pp = NULL, *grown;
	size_t i;

	pthread_mutex_lock(&pf->lock);
	for (i = 0; i < pf->nprocs && !pp; i++)
		if (pf->procs[i].pid == pid)
			pp = &pf->procs[i];
	if (!pp && pf->nprocs < PYFRAMES_MAX_PROCS) {
		grown = realloc(pf->procs, (pf->nprocs + 1) * sizeof(*pf->procs));
		if (grown) {
			pf->procs = grown;
			pp = &pf->procs[pf->nprocs++];
		}
	}
	if (pp) {
		pp->pid = pid;
		pp->rt = *rt;
		register_one(pf, pp);
	}
	pthread_mutex_unlock(&pf->lock);
}

void pyframes__window(struct pyframes *pf, uint32_t window)
{
	size_t i;

	pthread_mutex_lock(&pf->lock);
	pf->window = window;
	for (i = 0; i < pf->nprocs; i++)
		register_one(pf, &pf->procs[i]);
	pthread_mutex_unlock(&pf->lock);
}

/* is_eval - whether native frame @i (at @ips[i]) runs Python frames. */
static bool is_eval(const struct pyruntime *rt, const uint64_t *ips, uint32_t i)
{
	uint64_t a = i ? ips[i] - 1 : ips[i];

	return rt->eval_end && a >= rt->eval_start && a < rt->eval_end;
}

/* code_function - the profile function of code entry @e, named on first
 * use; 0 when it cannot be named. */
static uint32_t code_function(struct profile *p, const struct pyruntime *rt, struct code_entry *e)
{
	struct pycode c;
	int64_t name, file, fn;

	if (e->state)
		return e->state > 0 ? e->function : 0;
	e->state = -1;
	if (pycode__decode(e->rec, e->size, rt, &c) != PYCODE_OK)
		return 0;
	name = profile__string(p, c.qualname);
	file = name >= 0 ? profile__string(p, c.filename) : name;
	fn = file >= 0 ? profile__add_function_at(p, (uint32_t)name, (uint32_t)name, (uint32_t)file,
						  c.firstlineno)
		       : file;
	if (fn <= 0)
		return 0;
	e->state = 1;
	e->function = (uint32_t)fn;
	e->firstlineno = c.firstlineno;
	e->co_code = c.co_code;
	return e->function;
}

static int64_t unknown_function(struct pyframes *pf, struct profile *p)
{
	int64_t name, fn;

	if (pf->unknown_function)
		return pf->unknown_function;
	name = profile__string(p, "<unknown Python code>");
	if (name < 0)
		return name;
	fn = profile__add_function(p, (uint32_t)name, (uint32_t)name, 0);
	if (fn > 0)
		pf->unknown_function = (uint32_t)fn;
	return fn;
}

/* frame_location - the location of Python frame @f of @pid. */
static int64_t frame_location(struct pyframes *pf, struct profile *p, const struct pyruntime *rt,
			      int pid, const struct sampler_py_frame *f, uint64_t count)
{
	struct profile_line line = { 0 };
	struct code_entry *e = find_code(pf, f->code, PY_FINGERPRINT(f->info), pid);
	uint32_t instr = (uint32_t)f->info;
	struct pycode c;
	int64_t fn;

	pf->st.frames += count;
	if (!e)
		pf->st.unannounced += count;
	fn = e ? code_function(p, rt, e) : 0;
	if (e && !fn)
		pf->st.refused += count;
	if (fn) {
		pf->st.named += count;
		/* the line: decode the table again (it is not kept decoded) */
		memset(&c, 0, sizeof(c));
		c.lines = e->rec->lines;
		c.nlines = e->rec->lines_copied;
		c.firstlineno = e->firstlineno;
		c.co_code = e->co_code;
		if (e->rec->lines_type == rt->bytes_type)
			line.line = pycode__line(&c, instr);
		if (line.line)
			pf->st.with_line += count;
	} else {
		fn = unknown_function(pf, p);
		if (fn < 0)
			return fn;
	}
	line.function = (uint32_t)fn;
	return profile__add_location_lines(p, 0, 0, &line, 1);
}

/* emit_frames - the Python frames @py[from..to) (frame indexes) to @out. */
static int emit_frames(struct pyframes *pf, struct profile *p, const struct pyruntime *rt, int pid,
		       const struct sampler_py_frame *py, uint32_t from, uint32_t to,
		       uint64_t count, uint32_t *out, uint32_t *n)
{
	int64_t loc;

	for (; from < to; from++) {
		loc = frame_location(pf, p, rt, pid, &py[from], count);
		if (loc < 0)
			return (int)loc;
		out[(*n)++] = (uint32_t)loc;
	}
	return 0;
}

/* group_end - one past the last frame of the C call starting at @from. */
static uint32_t group_end(const struct sampler_py_frame *py, uint32_t from, uint32_t nframes)
{
	while (from < nframes && !(py[from].info & SAMPLER_PY_ENTRY))
		from++;
	return from < nframes ? from + 1 : nframes;
}

int pyframes__splice(struct pyframes *pf, struct profile *p, const struct pyruntime *rt, int pid,
		     const uint64_t *ips, const uint32_t *native, uint32_t nnative,
		     const uint64_t *py, uint32_t npy, uint64_t count, uint32_t *out)
{
	const struct sampler_py_frame *frames = (const void *)py;
	uint32_t nframes = npy / 2, next = 0, end, i, n = 0, last_eval = nnative;
	int err;

	if (!rt || !nframes) {
		memcpy(out, native, nnative * sizeof(*out));
		return (int)nnative;
	}
	pf->st.samples += count;
	for (i = 0; i < nnative; i++)
		if (is_eval(rt, ips, i))
			last_eval = i;
	if (last_eval == nnative)
		pf->st.unplaced += count;
	for (i = 0; i < nnative; i++) {
		if (i == last_eval) {
			/* the outermost eval frame runs what is left */
			err = emit_frames(pf, p, rt, pid, frames, next, nframes, count, out, &n);
			if (err)
				return err;
			next = nframes;
		} else if (next < nframes && is_eval(rt, ips, i)) {
			end = group_end(frames, next, nframes);
			err = emit_frames(pf, p, rt, pid, frames, next, end, count, out, &n);
			if (err)
				return err;
			next = end;
		}
		out[n++] = native[i];
	}
	/* no eval frame: the Python frames go below the native ones */
	err = emit_frames(pf, p, rt, pid, frames, next, nframes, count, out, &n);
	return err ? err : (int)n;
}

void pyframes__stats(const struct pyframes *pf, struct pyframes_stats *out)
{
	*out = pf->st;
}
