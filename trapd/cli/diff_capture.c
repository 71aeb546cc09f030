// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* diff_capture.c - read two captures, compare them, write the views. */
#include "trapd/cli/diff_capture.h"

#include "trapd/profile/profile_phase.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trapd/capture/capture.h"
#include "trapd/cli/cli_where.h"
#include "trapd/cli/commands.h"
#include "trapd/profile/diff_report.h"
#include "trapd/profile/flamegraph.h"
#include "trapd/profile/profile_view.h"
#include "trapd/profile/profile_where.h"
#include "trapd/profile/profile_file.h"
#include "trapd/profile/stacktree.h"
#include "trapd/util/atomic_file.h"
#include "trapd/util/json_read.h"
#include "trapd/util/log.h"

#define SIDECAR_MAX_BYTES (16u << 20)

/* read_ci - the sidecar's "ci" record, if the capture has a sidecar and
 * it has one. Returns an exit status (reported). */
static int read_ci(struct diff_capture *c)
{
	struct json_value *root = NULL;
	const struct json_value *ci;
	char sidecar[PATH_MAX], err[256];
	int ret = TRAPD_EXIT_OK;
	size_t i;

	if (profile_file__sidecar_path(c->path, sidecar, sizeof(sidecar)) || access(sidecar, F_OK))
		return TRAPD_EXIT_OK;
	if (json_read_file(sidecar, SIDECAR_MAX_BYTES, &root, err, sizeof(err))) {
		log_error("%s", err);
		return TRAPD_EXIT_USAGE;
	}
	ci = json_get(root, "ci");
	if (!ci)
		goto out;
	c->ci = malloc(sizeof(*c->ci));
	if (!c->ci) {
		log_error("out of memory");
		ret = TRAPD_EXIT_FAILURE;
		goto out;
	}
	if (run_record__from_json(ci, c->ci, err, sizeof(err))) {
		log_error("%s: ci.%s", sidecar, err);
		ret = TRAPD_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < c->ci->nruns; i++)
		c->run_cpu_ns[i] = (double)c->ci->runs[i].cpu_ns;
out:
	json_free(root);
	return ret;
}

int diff_capture__read(struct diff_capture *c, const char *path)
{
	char err[512] = "";
	int ret;

	c->path = path;
	ret = profile_file__read(path, &c->profile, err, sizeof(err));
	if (ret == -ENOMEM) {
		log_error("%s: out of memory reading it", path);
		return TRAPD_EXIT_FAILURE;
	}
	if (ret) {
		log_error("%s", err[0] ? err : strerror(-ret));
		return TRAPD_EXIT_USAGE;
	}
	return read_ci(c);
}

void diff_capture__release(struct diff_capture *c)
{
	profile__free(c->profile);
	free(c->ci);
	c->profile = NULL;
	c->ci = NULL;
}

/* drop_ci - @c's samples are no longer what its "ci" record measured
 * (filtered, or weighed as time): its CPU time no longer applies. */
static void drop_ci(struct diff_capture *c)
{
	free(c->ci);
	c->ci = NULL;
}

int diff_capture__where(struct diff_capture *c, const struct profile_where *w)
{
	if (!w->n)
		return TRAPD_EXIT_OK;
	if (cli_apply_where(c->profile, w, c->path))
		return TRAPD_EXIT_USAGE;
	drop_ci(c);
	return TRAPD_EXIT_OK;
}

int diff_capture__phase(struct diff_capture *c, const char *phase)
{
	bool had = profile_phase__has(c->profile);

	if (!phase && !had)
		return TRAPD_EXIT_OK;
	profile_phase__select(c->profile, phase ? phase : PROFILE_PHASE_DURING);
	if (phase && strcmp(phase, PROFILE_PHASE_DURING))
		drop_ci(c);
	if (phase && !c->profile->nsamples) {
		log_error("%s has no sample of phase %s%s", c->path, phase,
			  had ? "" : ": it holds no history before its trigger");
		return TRAPD_EXIT_USAGE;
	}
	return TRAPD_EXIT_OK;
}

void diff_capture__view(struct diff_capture *c, int v)
{
	int64_t period = c->profile->period_ns;

	if (v == PROFILE_VIEW_CPU)
		return;
	profile_view__apply(c->profile, (enum profile_view)v);
	c->quantum = period > 0 ? (double)period : 1;
	drop_ci(c);
}

int diff_capture__parse_view(const char *s, void *out, struct profile_diff_options *o)
{
	enum profile_view *v = out;

	if (profile_view__parse(s, v)) {
		log_error("bad --view '%s': expected cpu, offcpu or wall", s);
		return -EINVAL;
	}
	o->time_name = *v == PROFILE_VIEW_OFFCPU ? "off-CPU time"
		       : *v == PROFILE_VIEW_WALL ? "wall-clock time"
						 : NULL;
	o->waits = *v != PROFILE_VIEW_CPU;
	return 0;
}

static void side_of(const struct diff_capture *c, struct profile_diff_side *s)
{
	memset(s, 0, sizeof(*s));
	s->period_ns = c->profile->period_ns;
	s->quantum = c->quantum;
	if (c->cpu_ns > 0) {
		s->cpu_ns = c->cpu_ns;
		return;
	}
	if (!c->ci)
		return;
	s->cpu_ns = (double)run_record__cpu_ns(c->ci);
	s->run_cpu_ns = c->run_cpu_ns;
	s->nruns = c->ci->nruns;
}

/* --- outputs ------------------------------------------------------------- */

struct view_job {
	const struct profile_diff *d;
	const struct stacktree *tree;
	const struct diff_outputs *outs;
	const char *base_label, *new_label;
};

static int fill_markdown(FILE *f, void *ctx)
{
	const struct view_job *j = ctx;
	int ret = diff_report__markdown(f, j->d, j->base_label, j->new_label, j->outs->top);

	return ret == -EIO && errno ? -errno : ret;
}

static int fill_svg(FILE *f, void *ctx)
{
	const struct view_job *j = ctx;
	struct flamegraph_options o = FLAMEGRAPH_OPTIONS_INIT;
	char title[512];
	int ret;

	snprintf(title, sizeof(title), "trapd diff: %s -> %s", j->base_label, j->new_label);
	o.title = title;
	o.diff = true;
	/* parts of one capture judged by self (phases: the history's stacks
	 * are walked by frame pointers, the window's maybe by DWARF) */
	o.by_self = j->d->opts.shares_only && !j->d->opts.by_total;
	ret = flamegraph_write(f, j->tree, &o);
	return ret == -EIO && errno ? -errno : ret;
}

/* write_view - @fill into @path ("-": stdout) atomically. */
static int write_view(const char *path, int (*fill)(FILE *, void *), struct view_job *j,
		      const char *what)
{
	char err[512] = "";

	if (atomic_file_write_or_stdout(path, fill, j, err, sizeof(err))) {
		log_error("cannot write the %s: %s", what, err);
		return TRAPD_EXIT_FAILURE;
	}
	return TRAPD_EXIT_OK;
}

static int write_outputs(struct view_job *j)
{
	const struct diff_outputs *o = j->outs;

	if (o->text && diff_report__text(stdout, j->d, o->top)) {
		log_error("cannot print the comparison: %s", strerror(errno));
		return TRAPD_EXIT_FAILURE;
	}
	if (o->markdown && write_view(o->markdown, fill_markdown, j, "Markdown summary"))
		return TRAPD_EXIT_FAILURE;
	if (o->svg && write_view(o->svg, fill_svg, j, "differential flame graph"))
		return TRAPD_EXIT_FAILURE;
	return TRAPD_EXIT_OK;
}

/* build_tree - NEW on the main side, BASE on the base side. */
static int build_tree(const struct diff_capture *base, const struct diff_capture *new_cap,
		      struct stacktree **out)
{
	struct stacktree *t = stacktree__new(0);

	if (!t || stacktree__add_profile(t, new_cap->profile, STACKTREE_MAIN) ||
	    stacktree__add_profile(t, base->profile, STACKTREE_BASE)) {
		stacktree__free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

int diff_capture__compare(const struct diff_capture *base, const struct diff_capture *new_cap,
			  const struct profile_diff_options *opts, const struct diff_outputs *outs)
{
	struct profile_diff_side bs, ns;
	struct profile_diff d = { 0 };
	struct stacktree *t = NULL;
	struct view_job j = { &d, NULL, outs, NULL, NULL };
	int ret;

	j.base_label = outs->base_label ? outs->base_label : basename(base->path);
	j.new_label = outs->new_label ? outs->new_label : basename(new_cap->path);
	if (build_tree(base, new_cap, &t)) {
		log_error("out of memory building the call trees");
		return TRAPD_EXIT_FAILURE;
	}
	j.tree = t;
	side_of(base, &bs);
	side_of(new_cap, &ns);
	ret = profile_diff__compare(t, &bs, &ns, opts, &d);
	if (ret == -EINVAL) {
		log_error("%s has no %s: nothing to compare%s",
			  t->root->base_total <= 0 ? base->path : new_cap->path,
			  opts && opts->time_name ? opts->time_name : "samples",
			  opts && opts->time_name ? " (was it recorded with off-CPU time?)" : "");
		ret = TRAPD_EXIT_USAGE;
		goto out;
	}
	if (ret) {
		log_error("out of memory comparing the profiles");
		ret = TRAPD_EXIT_FAILURE;
		goto out;
	}
	ret = write_outputs(&j);
	if (!ret && d.regressed)
		ret = TRAPD_EXIT_REGRESSION;
out:
	profile_diff__free(&d);
	stacktree__free(t);
	return ret;
}
