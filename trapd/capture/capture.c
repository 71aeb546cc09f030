// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* capture.c - from a closed sampler window to a profile and its files. */
#include "trapd/capture/capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trapd/capture/leafcaller.h"
#include "trapd/capture/metadata.h"
#include "trapd/profile/profile_file.h"
#include "trapd/symbolize/knames.h"
#include "trapd/symbolize/prockey.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/log.h"

int capture_new_id(struct capture_info *info)
{
	unsigned char raw[16];
	int i;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -errno;
	for (i = 0; i < 16; i++)
		snprintf(info->id + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* The cgroup label of a sample is its path (cgroup_names.h), interned
 * in the profile once per distinct id. */
struct cgroup_labels {
	struct cgroup_names *names; /* the caller's, or @own */
	struct cgroup_names own;
	uint64_t ids[CGROUP_NAMES_MAX];
	uint32_t labels[CGROUP_NAMES_MAX];
	int n;
};

static int cgroup_label(struct cgroup_labels *c, struct profile *p, uint64_t id, uint32_t *out)
{
	int64_t idx;
	int i;

	for (i = 0; i < c->n; i++) {
		if (c->ids[i] == id) {
			*out = c->labels[i];
			return 0;
		}
	}
	idx = profile__string(p, cgroup_names__path(c->names, id));
	if (idx < 0)
		return (int)idx;
	if (c->n < CGROUP_NAMES_MAX) {
		c->ids[c->n] = id;
		c->labels[c->n++] = (uint32_t)idx;
	}
	*out = (uint32_t)idx;
	return 0;
}

struct build_ctx {
	struct profile *p;
	struct symbolizer *sym;
	struct cgroup_labels cgroups;
	uint64_t stored;
	uint64_t leaf[LEAF_NR];	       /* samples by leaf verdict */
	uint64_t roots[STACK_ROOT_NR]; /* samples with user frames by root verdict */
	uint64_t user_cut;	       /* samples whose user stack was cut */
	int pid;		       /* of the record being added: its process key (prockey.h) */
	struct pyframes *py;	       /* the window's Python code objects; NULL: none */
	uint64_t offcpu_ns[SAMPLER_OFFCPU_NR];
	uint32_t states[SAMPLER_OFFCPU_NR];  /* their labels' string indexes; 0: not yet */
	struct call_split *calls;	     /* the calls samples fell in; NULL: not split */
	uint32_t call_labels[CALL_CLASS_NR]; /* their labels' string indexes; 0: not yet */
	struct capture_calls *call_sums;
	uint64_t user[SAMPLER_MAX_DEPTH + 1];
	uint32_t native[SAMPLER_MAX_DEPTH + 1]; /* user frames before Python's are spliced in */
	uint32_t locs[3 * SAMPLER_MAX_DEPTH + 1];
};

static int function_start(void *ctx, uint64_t addr, uint64_t *start)
{
	struct build_ctx *b = ctx;

	return symbolizer__function_start(b->sym, b->pid, addr, start);
}

/* weigh - @rec's count into @tmpl: samples, or nanoseconds off the CPU
 * in a state (labelled); returns 0 or a negative errno. */
static int weigh(struct build_ctx *b, const struct sampler_record *rec, struct profile_sample *tmpl)
{
	uint32_t st = rec->key->offcpu;
	int64_t idx;

	if (st == SAMPLER_ON_CPU) {
		tmpl->count = (int64_t)rec->count;
		b->stored += rec->count;
		return 0;
	}
	if (st >= SAMPLER_OFFCPU_NR)
		st = SAMPLER_OFFCPU_OTHER;
	if (!b->states[st]) {
		idx = profile__string(b->p, sampler__offcpu_state_name(st));
		if (idx < 0)
			return (int)idx;
		b->states[st] = (uint32_t)idx;
	}
	tmpl->state = b->states[st];
	tmpl->offcpu_ns = rec->count > INT64_MAX ? INT64_MAX : (int64_t)rec->count;
	b->offcpu_ns[st] += rec->count;
	return 0;
}

/* label_call - which call @rec was taken in, when the window split its
 * samples by call: the label, and @rec's weight added to its class. */
static int label_call(struct build_ctx *b, const struct sampler_record *rec,
		      struct profile_sample *tmpl)
{
	enum call_class k;
	int64_t idx;

	if (!b->calls)
		return 0;
	k = call_split__class(b->calls, rec->key->call);
	if (!b->call_labels[k]) {
		idx = profile__string(b->p, call_class__name(k));
		if (idx < 0)
			return (int)idx;
		b->call_labels[k] = (uint32_t)idx;
	}
	tmpl->call = b->call_labels[k];
	if (rec->key->offcpu)
		b->call_sums->offcpu_ns[k] += rec->count;
	else
		b->call_sums->samples[k] += rec->count;
	return 0;
}

/* samples - what @rec weighs in the statistics of samples: its count, or
 * nothing for off-CPU time (the symbolizer's statistics are of samples). */
static uint64_t samples(const struct sampler_record *rec)
{
	return rec->key->offcpu ? 0 : rec->count;
}

/* user_locations - the locations of the @nuser native user frames of
 * @rec (in b->user), with its Python frames spliced in, after its kernel
 * frames in b->locs; their count in *@n. */
static int user_locations(struct build_ctx *b, const struct sampler_record *rec, uint32_t nuser,
			  uint32_t *n)
{
	uint32_t *out = b->locs + rec->kernel_len;
	int err;

	if (!rec->py_len || !b->py) {
		*n = nuser;
		return symbolizer__user_stack(b->sym, b->p, b->pid, b->user, nuser, out);
	}
	err = symbolizer__user_stack(b->sym, b->p, b->pid, b->user, nuser, b->native);
	if (err)
		return err;
	err = pyframes__splice(b->py, b->p, symbolizer__python(b->sym, b->pid), prockey_pid(b->pid),
			       b->user, b->native, nuser, rec->py, rec->py_len, samples(rec), out);
	if (err < 0)
		return err;
	*n = (uint32_t)err;
	return 0;
}

static int add_record(const struct sampler_record *rec, void *arg)
{
	struct build_ctx *b = arg;
	struct profile_sample tmpl = { 0 };
	char comm[SAMPLER_COMM_LEN + 1];
	int64_t idx;
	int err;

	enum leaf_verdict v;
	uint32_t nuser, nkept;

	/* Leaf first: kernel frames, then user frames. User frames are
	 * symbolized first so the program's mapping is the profile's first,
	 * which pprof tools take as the main binary. */
	/* the process's life: its maps, not those of another that held its pid */
	b->pid = prockey_make(rec->key->pid, rec->key->life);
	nkept = rec->unwound
			? symbolizer__user_frames(rec->user_ips, rec->user_len)
			: symbolizer__walked_frames(b->sym, b->pid, rec->user_ips, rec->user_len);
	if (nkept < rec->user_len)
		b->user_cut += samples(rec);
	if (rec->unwound) {
		/* a DWARF walk has every frame: no leaf caller to recover */
		nuser = nkept < SAMPLER_MAX_DEPTH ? nkept : SAMPLER_MAX_DEPTH;
		if (nuser)
			memcpy(b->user, rec->user_ips, nuser * sizeof(*b->user));
	} else {
		v = leafcaller_fix(rec->user_ips, nkept, rec->user_leaf, function_start, b, b->user,
				   SAMPLER_MAX_DEPTH + 1, &nuser);
		b->leaf[v] += samples(rec);
	}
	if (nuser)
		b->roots[stack_root_of(symbolizer__name(
			b->sym, b->pid, nuser > 1 ? b->user[nuser - 1] - 1 : b->user[0]))] +=
			samples(rec);
	err = user_locations(b, rec, nuser, &nuser);
	if (!err)
		err = symbolizer__kernel_stack(b->sym, b->p, rec->kernel_ips, rec->kernel_len,
					       b->locs);
	if (err)
		return err;
	memcpy(comm, rec->key->comm, SAMPLER_COMM_LEN);
	comm[SAMPLER_COMM_LEN] = '\0';
	idx = profile__string(b->p, comm);
	if (idx < 0)
		return (int)idx;
	tmpl.comm = (uint32_t)idx;
	err = cgroup_label(&b->cgroups, b->p, rec->key->cgroup_id, &tmpl.cgroup);
	if (err)
		return err;
	err = weigh(b, rec, &tmpl);
	if (err)
		return err;
	err = label_call(b, rec, &tmpl);
	if (err)
		return err;
	tmpl.pid = rec->key->pid;
	tmpl.tid = rec->key->tid;
	return profile__add_sample(b->p, b->locs, rec->kernel_len + nuser, &tmpl);
}

static const char *target_kind_name(enum capture_target_kind k)
{
	static const char *const names[] = { "system", "pid", "cgroup", "command" };

	return names[k];
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* add_context - labels, the rules that fired and a widened scope as
 * comments too: pprof has no profile-wide labels, and a profile copied
 * without its sidecar should still say why it was taken. */
static int add_context(struct profile *p, const struct capture_info *info)
{
	const struct capture_trigger *t;
	char line[1024];
	size_t i, off = 0;
	int err = 0;

	for (i = 0; info->labels && i < info->nlabels && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s=%s",
					i ? " " : "labels: ", nz(info->labels[2 * i]),
					nz(info->labels[2 * i + 1]));
	if (off)
		err = profile__add_comment(p, line);
	for (i = 0; !err && info->triggers && i < info->ntriggers; i++) {
		t = &info->triggers[i];
		snprintf(line, sizeof(line),
			 "trigger: rule %s%s: %s of %s %s %.15g %s, was %.15g %s", nz(t->rule),
			 t->joined ? " (joined)" : "", nz(t->signal), nz(t->scope),
			 t->above ? "above" : "below", t->threshold, nz(t->unit), t->value,
			 nz(t->unit));
		err = profile__add_comment(p, line);
	}
	if (!err && info->scope_widened) {
		snprintf(line, sizeof(line), "scope widened to all tasks: %s", info->scope_widened);
		err = profile__add_comment(p, line);
	}
	return err;
}

/* add_python_summary - how the Python frames fared, when there were any
 * interpreters: a profile without its sidecar should say why a Python
 * function is missing. */
static int add_python_summary(struct profile *p, const struct capture_info *info)
{
	const struct pyframes_stats *py = &info->python;
	const uint64_t *v = info->stats.v;
	char line[512];

	if (!info->symbols.python_found && !info->symbols.python_refused)
		return 0;
	snprintf(line, sizeof(line),
		 "python: %" PRIu64 " interpreters (%" PRIu64 " not walkable); %" PRIu64
		 " samples walked (no thread state %" PRIu64 ", no Python frame %" PRIu64
		 ", truncated %" PRIu64 ", unreadable %" PRIu64 "); %" PRIu64 " frames, %" PRIu64
		 " named, %" PRIu64 " with a line; code objects %" PRIu64 " (lost %" PRIu64
		 ", dropped %" PRIu64 ", unannounced frames %" PRIu64 ", refused frames %" PRIu64
		 "); samples without an eval frame %" PRIu64,
		 info->symbols.python_found, info->symbols.python_refused,
		 v[SAMPLER_STAT_PY_WALKED], v[SAMPLER_STAT_PY_NO_THREAD],
		 v[SAMPLER_STAT_PY_NO_FRAME], v[SAMPLER_STAT_PY_TRUNCATED],
		 v[SAMPLER_STAT_PY_BAD_READ], py->frames, py->named, py->with_line, py->codes,
		 v[SAMPLER_STAT_PY_CODES_LOST], py->codes_dropped, py->unannounced, py->refused,
		 py->unplaced);
	return profile__add_comment(p, line);
}

/* add_offcpu_summary - the off-CPU time by state, when the window
 * recorded it. */
static int add_offcpu_summary(struct profile *p, const struct capture_info *info)
{
	const uint64_t *v = info->stats.v, *ns = info->offcpu_ns;
	char line[512];

	if (!(info->record & SAMPLER_RECORD_OFFCPU))
		return 0;
	snprintf(
		line, sizeof(line),
		"off-cpu: %.3fs sleeping, %.3fs uninterruptible, %.3fs runnable, %.3fs other; %" PRIu64
		" switches, %" PRIu64 " over the rate bound (lost: %" PRIu64
		" tasks over the table, %" PRIu64 " uncounted)",
		(double)ns[SAMPLER_OFFCPU_SLEEPING] / 1e9,
		(double)ns[SAMPLER_OFFCPU_UNINTERRUPTIBLE] / 1e9,
		(double)ns[SAMPLER_OFFCPU_RUNNABLE] / 1e9, (double)ns[SAMPLER_OFFCPU_OTHER] / 1e9,
		v[SAMPLER_STAT_OFFCPU_SWITCHES], v[SAMPLER_STAT_OFFCPU_THROTTLED],
		v[SAMPLER_STAT_OFFCPU_TASKS_FULL], v[SAMPLER_STAT_OFFCPU_LOST]);
	return profile__add_comment(p, line);
}

/* add_summary - the capture's essentials as pprof comments, so a profile
 * copied without its sidecar still says what it is and what it lost. */
static int add_summary(struct profile *p, const struct capture_info *info)
{
	char line[512];
	size_t off;
	int i, err;

	snprintf(line, sizeof(line), "trapd %s capture %s: %s target, %" PRIu64 " Hz, %s",
		 TRAPD_VERSION, info->id, target_kind_name(info->target.kind), info->freq_hz,
		 info->trigger ? info->trigger : "manual");
	err = profile__add_comment(p, line);
	off = (size_t)snprintf(line, sizeof(line), "losses:");
	for (i = SAMPLER_STAT_OVER_CAP; i < SAMPLER_STAT_PY_WALKED; i++)
		if (i != SAMPLER_STAT_COPIES && info->stats.v[i] && off < sizeof(line))
			off += (size_t)snprintf(line + off, sizeof(line) - off, " %s=%" PRIu64,
						sampler__stat_name(i), info->stats.v[i]);
	if (!err && off < sizeof(line))
		err = profile__add_comment(p, off > 7 ? line : "losses: none");
	if (!err)
		err = add_python_summary(p, info);
	if (!err)
		err = add_offcpu_summary(p, info);
	return err ? err : add_context(p, info);
}

_Static_assert(KNAMES_NAME_LEN == SYMBOLIZER_KNAME_LEN, "kernel name buffers agree");

static int kernel_names_from_bpf(void *ctx, const uint64_t *addrs, uint32_t n,
				 char (*names)[SYMBOLIZER_KNAME_LEN])
{
	return knames__resolve(ctx, addrs, n, names);
}

int capture_build_profile(const struct sample_dump *d, struct symbolizer *sym, struct pyframes *py,
			  struct capture_info *info, struct profile **out)
{
	struct timespec t0, t1;
	struct knames *kn;
	struct build_ctx *b;
	int err;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	b->p = profile__new();
	if (!b->p) {
		free(b);
		return -ENOMEM;
	}
	b->sym = sym;
	b->py = py;
	cgroup_names__init(&b->cgroups.own);
	b->cgroups.names = &b->cgroups.own;
	b->p->period_ns = (int64_t)info->period_ns;
	b->p->time_ns = info->start_ns;
	b->p->duration_ns = info->duration_ns;

	/* Kernel frames are named by the kernel itself when it can, rather
	 * than by reading all of /proc/kallsyms (see knames.h). */
	kn = knames__open();
	if (kn)
		symbolizer__use_kernel_names(sym, kernel_names_from_bpf, kn);
	else
		log_debug("kernel names from BPF unavailable (%s); using kallsyms",
			  strerror(errno));
	info->stats = *sample_dump__stats(d);
	info->unwind = *sample_dump__unwind(d);
	b->calls = info->calls.what ? sample_dump__calls(d) : NULL;
	if (b->calls) {
		call_split__decide(b->calls, &info->calls.threshold);
		info->calls.stats = *call_split__stats(b->calls);
		b->call_sums = &info->calls;
	}
	err = sample_dump__for_each(d, add_record, b);
	if (py)
		pyframes__stats(py, &info->python);
	symbolizer__use_kernel_names(sym, NULL, NULL);
	knames__free(kn);
	info->samples_stored = b->stored;
	memcpy(info->offcpu_ns, b->offcpu_ns, sizeof(info->offcpu_ns));
	if (!err)
		err = add_summary(b->p, info);
	info->stacks_distinct = sample_dump__nstacks(d);
	memcpy(info->leaf, b->leaf, sizeof(info->leaf));
	memcpy(info->roots, b->roots, sizeof(info->roots));
	info->user_stacks_cut = b->user_cut;
	symbolizer__get_stats(sym, &info->symbols);
	info->sym_files = symbolizer__file_stats(sym, &info->nsym_files);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	info->build_ns = (t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec);
	if (err)
		profile__free(b->p);
	else
		*out = b->p;
	cgroup_names__release(&b->cgroups.own);
	free(b);
	return err;
}

int64_t capture_add_samples(const struct sample_dump *d, struct symbolizer *sym,
			    struct pyframes *py, struct profile *p, struct cgroup_names *names)
{
	struct build_ctx *b = calloc(1, sizeof(*b));
	int64_t ret;

	if (!b)
		return -ENOMEM;
	b->p = p;
	b->sym = sym;
	b->py = py;
	b->cgroups.names = names;
	ret = sample_dump__for_each(d, add_record, b);
	if (!ret)
		ret = b->stored > INT64_MAX ? INT64_MAX : (int64_t)b->stored;
	free(b);
	return ret;
}

/* profile_bytes - the size of what was just renamed to @path (never
 * following a link: it is our own regular file now). */
static uint64_t profile_bytes(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

int capture_write(const char *path, const struct profile *p, struct capture_info *info, char *err,
		  size_t errlen)
{
	char sidecar[4200];
	int e;

	/* the profile alone to a stream: its sidecar has nowhere to go */
	if (atomic_file_is_stream(path))
		return profile_file__write(path, p, err, errlen);
	e = profile_file__sidecar_path(path, sidecar, sizeof(sidecar));
	if (e) {
		snprintf(err, errlen, "%s: name too long", path);
		return e;
	}
	/* both names checked before either is written: a sidecar name
	 * another user planted costs no profile */
	e = atomic_file_check(path, err, errlen);
	if (!e)
		e = atomic_file_check(sidecar, err, errlen);
	if (!e)
		e = profile_file__write(path, p, err, errlen);
	if (e)
		return e;
	info->profile_bytes = profile_bytes(path);
	e = metadata_write(sidecar, info, path, err, errlen);
	/* A profile without its sidecar is half a capture (a spool would
	 * never send it): none at all, and the error, say more. */
	if (e && info->profile_bytes)
		unlink(path);
	return e;
}
