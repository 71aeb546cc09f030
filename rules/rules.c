// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rules.c - the entry points of rules.h: reading a rules file, running
 * the lexer over it with the section parsers (rules_sections.c) on one
 * parser state (rules_parse.h), handing back the rules or every error,
 * and freeing both. The top of the loader: it includes the layers below
 * and none of them includes it. */
#include "rules/rules.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/ini.h"
#include "rules/rules_keys.h"
#include "rules/rules_parse.h"
#include "rules/rules_rule.h"
#include "rules/rules_sections.h"
#include "rules/rules_upload.h"

/* set_defaults - every [global] key from its default text. */
static int set_defaults(struct rules_global *g)
{
	char msg[MSG_MAX];
	int k, err;

	for (k = 0; k < GK_NR; k++) {
		err = rules_key__parse(&rules_global_keys[k], g, rules_global_keys[k].dflt, msg,
				       sizeof(msg));
		if (err)
			return err;
	}
	return 0;
}

static void parser_free(struct rules_parser *p)
{
	size_t i;
	int k;

	if (!p)
		return;
	for (i = 0; i < p->nerrs; i++)
		free(p->errs[i].msg);
	for (k = 0; k < RK_NR; k++)
		free(p->raw.val[k]);
	free(p->meta);
	free(p->label_lines);
	rules__free(p->r);
	free(p);
}

/* one_error - @errs holds just "NAME: msg" (when memory allows). */
static void one_error(struct rules_errors *errs, const char *name, const char *msg)
{
	errs->msgs = calloc(1, sizeof(*errs->msgs));
	if (errs->msgs && asprintf(&errs->msgs[0], "%s: %s", name, msg) >= 0)
		errs->n = 1;
}

int rules__parse_for(const char *name, const char *text, size_t len, enum rules_use use,
		     struct rules **out, struct rules_errors *errs)
{
	struct rules_parser *p = NULL;
	int err = -ENOMEM;

	memset(errs, 0, sizeof(*errs));
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto cleanup;
	p->name = name;
	p->r = calloc(1, sizeof(*p->r));
	if (!p->r || !(p->r->path = strdup(name)) || set_defaults(&p->r->global) ||
	    rules_upload__defaults(&p->r->upload))
		goto cleanup;
	p->r->use = use;
	err = ini__parse(text, len, &rules_sections__handler, p);
	if (err && err != -EINVAL)
		goto cleanup;
	rules_sections__end(p);
	err = p->nomem ? -ENOMEM : p->nerrs ? -EINVAL : 0;
	if (err == -EINVAL)
		err = rules_parser__take_errors(p, errs) ?: -EINVAL;
	if (!err) {
		*out = p->r;
		p->r = NULL;
	}
cleanup:
	if (err == -ENOMEM && !errs->n)
		one_error(errs, name, "out of memory");
	parser_free(p);
	return err;
}

int rules__parse(const char *name, const char *text, size_t len, struct rules **out,
		 struct rules_errors *errs)
{
	return rules__parse_for(name, text, len, RULES_FOR_DAEMON, out, errs);
}

int rules__load_for(const char *path, enum rules_use use, struct rules **out,
		    struct rules_errors *errs)
{
	size_t cap = INI_MAX_FILE + 1, len = 0;
	char *text = NULL, msg[128];
	ssize_t n = 1;
	int fd, err;

	memset(errs, 0, sizeof(*errs));
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	text = malloc(cap);
	if (!text) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* one byte more than a file may have, so ini__parse sees it is too big */
	while (len < cap && (n = read(fd, text + len, cap - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		err = -errno;
		goto cleanup;
	}
	err = rules__parse_for(path, text, len, use, out, errs);
	free(text);
	close(fd);
	return err;
cleanup:
	snprintf(msg, sizeof(msg), "cannot read: %s", strerror(-err));
	one_error(errs, path, msg);
	free(text);
	if (fd >= 0)
		close(fd);
	return err;
}

int rules__load(const char *path, struct rules **out, struct rules_errors *errs)
{
	return rules__load_for(path, RULES_FOR_DAEMON, out, errs);
}

static int resolve_run(struct rule_scope *s, const char *cgroup_dir)
{
	struct rule_scope cg = { .kind = RULE_SCOPE_CGROUP, .cgroup = (char *)cgroup_dir };

	return s->kind == RULE_SCOPE_RUN ? rule_scope__copy(s, &cg) : 0;
}

int rules__resolve_run(struct rules *r, const char *cgroup_dir)
{
	size_t i;

	for (i = 0; i < r->nrules; i++)
		if (resolve_run(&r->rules[i].scope, cgroup_dir) ||
		    resolve_run(&r->rules[i].sample, cgroup_dir))
			return -ENOMEM;
	return 0;
}

void rules__free(struct rules *r)
{
	size_t i;
	int k;

	if (!r)
		return;
	for (k = 0; k < GK_NR; k++)
		rules_key__free(&rules_global_keys[k], &r->global);
	rules_upload__free(&r->upload);
	for (i = 0; i < r->nlabels; i++) {
		free(r->labels[i].key);
		free(r->labels[i].value);
	}
	for (i = 0; i < r->nrules; i++)
		rules_rule__free(&r->rules[i]);
	free(r->labels);
	free(r->rules);
	free(r->path);
	free(r);
}

void rules_errors__free(struct rules_errors *errs)
{
	size_t i;

	if (!errs)
		return;
	for (i = 0; i < errs->n; i++)
		free(errs->msgs[i]);
	free(errs->msgs);
	errs->msgs = NULL;
	errs->n = 0;
}
