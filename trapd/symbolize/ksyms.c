// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* ksyms.c - load and search /proc/kallsyms. */
#include "trapd/symbolize/ksyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trapd/util/log.h"

#define NO_NAME UINT32_MAX /* a boundary: a data symbol ends a function */
#define MAX_NAME 512	   /* KSYM_NAME_LEN */
#define MAX_MODULE 64	   /* MODULE_NAME_LEN is 56 */
#define MAX_NAME_BYTES (256u << 20)

struct ksyms_sym {
	uint64_t addr;
	uint32_t name; /* offset in names, or NO_NAME */
	uint8_t rank;  /* alias preference, lower is better */
};

struct ksyms {
	struct ksyms_sym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	size_t nnamed;
	uint64_t first;
};

/* One parsed line; the name and module point into the line buffer. */
struct kline {
	uint64_t addr;
	char type;
	const char *name;
	size_t name_len;
	const char *module;
	size_t module_len;
};

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static bool name_char(char c)
{
	return (unsigned char)c > 0x20 && c != 0x7f && c != '[' && c != ']';
}

/* parse_line - "addr type name[\t[module]]", without the newline. */
static int parse_line(const char *p, size_t len, struct kline *out)
{
	const char *end = p + len;
	uint64_t v = 0;
	size_t n = 0;
	char c;

	while (p < end && n < 17) {
		c = *p;
		if (c >= '0' && c <= '9')
			v = (v << 4) | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (v << 4) | (uint64_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = (v << 4) | (uint64_t)(c - 'A' + 10);
		else
			break;
		p++, n++;
	}
	if (n == 0 || n > 16 || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return -EINVAL;
	out->addr = v;
	out->type = p[1];
	if (!((out->type >= 'a' && out->type <= 'z') || (out->type >= 'A' && out->type <= 'Z')))
		return -EINVAL;
	p += 3;
	out->name = p;
	while (p < end && name_char(*p))
		p++;
	out->name_len = (size_t)(p - out->name);
	if (out->name_len == 0 || out->name_len > MAX_NAME)
		return -EINVAL;
	out->module = NULL;
	out->module_len = 0;
	if (p == end)
		return 0;
	if (end - p < 4 || p[0] != '\t' || p[1] != '[' || end[-1] != ']')
		return -EINVAL;
	out->module = p + 2;
	out->module_len = (size_t)(end - 1 - out->module);
	if (out->module_len == 0 || out->module_len > MAX_MODULE)
		return -EINVAL;
	for (n = 0; n < out->module_len; n++)
		if (!name_char(out->module[n]))
			return -EINVAL;
	return 0;
}

/* name_rank - which alias at one address names it: global over local,
 * then fewer leading underscores. */
static uint8_t name_rank(const struct kline *l)
{
	size_t u = 0;

	while (u < l->name_len && u < 100 && l->name[u] == '_')
		u++;
	return (uint8_t)(u * 2 + (l->type >= 'a'));
}

static int add_name(struct ksyms *k, const struct kline *l, uint32_t *off)
{
	size_t need = l->name_len + 1 + (l->module ? l->module_len + 3 : 0);
	char *p;

	if (k->names_len + need > MAX_NAME_BYTES)
		return -E2BIG;
	if (k->names_len + need > k->names_cap) {
		size_t ncap = k->names_cap ? k->names_cap * 2 : 1 << 16;

		while (ncap < k->names_len + need)
			ncap *= 2;
		p = realloc(k->names, ncap);
		if (!p)
			return -ENOMEM;
		k->names = p;
		k->names_cap = ncap;
	}
	p = k->names + k->names_len;
	memcpy(p, l->name, l->name_len);
	p += l->name_len;
	if (l->module) {
		*p++ = ' ';
		*p++ = '[';
		memcpy(p, l->module, l->module_len);
		p += l->module_len;
		*p++ = ']';
	}
	*p = '\0';
	*off = (uint32_t)k->names_len;
	k->names_len += need;
	return 0;
}

static int add_sym(struct ksyms *k, const struct kline *l)
{
	struct ksyms_sym *s;
	uint32_t name = NO_NAME;
	int err;

	if (k->n >= KSYMS_MAX_SYMBOLS)
		return -E2BIG;
	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 4096;

		s = realloc(k->syms, ncap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		k->syms = s;
		k->cap = ncap;
	}
	if (is_text(l->type)) {
		err = add_name(k, l, &name);
		if (err)
			return err;
	}
	s = &k->syms[k->n++];
	s->addr = l->addr;
	s->name = name;
	s->rank = name == NO_NAME ? UINT8_MAX : name_rank(l);
	return 0;
}

static int sym_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ksyms_sym *a = pa, *b = pb;
	const char *names = arg;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->name == NO_NAME || b->name == NO_NAME)
		return 0;
	return strcmp(names + a->name, names + b->name);
}

/* finish - sort, keep the best entry per address, count the named. */
static void finish(struct ksyms *k)
{
	size_t i, n = 0;

	if (!k->n)
		return;
	qsort_r(k->syms, k->n, sizeof(*k->syms), sym_cmp, k->names);
	for (i = 0; i < k->n; i++) {
		if (n && k->syms[n - 1].addr == k->syms[i].addr)
			continue;
		k->syms[n++] = k->syms[i];
	}
	k->n = n;
	for (i = 0; i < n; i++) {
		if (k->syms[i].name == NO_NAME)
			continue;
		if (!k->nnamed)
			k->first = k->syms[i].addr;
		k->nnamed++;
	}
}

/* read_lines - parse every line of @f into @k. Returns 0 or a negative
 * errno; *text_nonzero tells whether any text symbol had an address. */
static int read_lines(struct ksyms *k, FILE *f, bool *text_nonzero, size_t *nbad)
{
	char line[KSYMS_MAX_LINE + 2];
	struct kline l;
	size_t len;
	int err, c;

	while (fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (len && line[len - 1] == '\n') {
			line[--len] = '\0';
		} else if (!feof(f)) {
			/* overlong: drop the rest of it */
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			(*nbad)++;
			continue;
		}
		if (parse_line(line, len, &l) < 0) {
			(*nbad)++;
			continue;
		}
		if (l.type == 'a' || l.type == 'A')
			continue; /* absolute and per-cpu: not code addresses */
		if (is_text(l.type) && l.addr)
			*text_nonzero = true;
		err = add_sym(k, &l);
		if (err == -E2BIG) {
			log_debug("ksyms: more than %u symbols, the rest ignored",
				  KSYMS_MAX_SYMBOLS);
			break;
		}
		if (err)
			return err;
	}
	return ferror(f) ? -EIO : 0;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *k = NULL;
	bool text_nonzero = false;
	size_t nbad = 0;
	FILE *f = NULL;
	int err;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = read_lines(k, f, &text_nonzero, &nbad);
	if (err)
		goto cleanup;
	if (nbad)
		log_debug("ksyms: %s: %zu malformed lines skipped", path, nbad);
	finish(k);
	if (!k->nnamed)
		err = -ENOENT;
	else if (!text_nonzero)
		err = -EPERM;
cleanup:
	fclose(f);
	if (err) {
		ksyms__free(k);
		errno = -err;
		return NULL;
	}
	return k;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

const char *ksyms__lookup(const struct ksyms *k, uint64_t addr, uint64_t *sym_addr)
{
	size_t lo = 0, hi = k->n, mid;
	const struct ksyms_sym *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &k->syms[lo - 1];
	if (s->name == NO_NAME || addr - s->addr >= KSYMS_MAX_FUNC_SIZE)
		return NULL;
	if (sym_addr)
		*sym_addr = s->addr;
	return k->names + s->name;
}

size_t ksyms__count(const struct ksyms *k)
{
	return k->nnamed;
}

uint64_t ksyms__first(const struct ksyms *k)
{
	return k->first;
}
