// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* knames.c - run knames.bpf.c on batches of kernel addresses. */
#include "trapd/symbolize/knames.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knames.skel.h"

/* Names found, by address: a kernel's text does not move, and the stacks
 * of one host repeat (the same system calls, the same interrupts), so
 * each address costs one run of the program while it stays here. The
 * table is emptied when three quarters full, which bounds it. */
#define CACHE_SLOTS 4096 /* a power of two */

struct cached_name {
	uint64_t addr;
	char *name; /* NULL: a free slot; UNNAMED: no symbol holds addr */
};

static char UNNAMED[] = "";

struct knames {
	struct knames_bpf *skel;
	struct cached_name *cache; /* CACHE_SLOTS, or NULL: none */
	uint32_t cached;
	struct knames_stats stats;
};

static uint32_t slot_of(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & (CACHE_SLOTS - 1);
}

static void cache_clear(struct knames *k)
{
	uint32_t i;

	if (!k->cache)
		return;
	for (i = 0; i < CACHE_SLOTS; i++) {
		if (k->cache[i].name != UNNAMED)
			free(k->cache[i].name);
		k->cache[i].name = NULL;
	}
	k->cached = 0;
}

/* cache_get - @addr's name into @out if cached; whether it was. */
static bool cache_get(struct knames *k, uint64_t addr, char *out)
{
	uint32_t i;

	if (!k->cache)
		return false;
	for (i = slot_of(addr); k->cache[i].name; i = (i + 1) & (CACHE_SLOTS - 1)) {
		if (k->cache[i].addr == addr) {
			snprintf(out, KNAMES_NAME_LEN, "%s", k->cache[i].name);
			return true;
		}
	}
	return false;
}

/* cache_put - remember @name for @addr (a failed allocation forgets). */
static void cache_put(struct knames *k, uint64_t addr, const char *name)
{
	uint32_t i;

	if (!k->cache)
		return;
	if (k->cached >= CACHE_SLOTS / 4 * 3) {
		cache_clear(k);
		k->stats.cache_clears++;
	}
	for (i = slot_of(addr); k->cache[i].name; i = (i + 1) & (CACHE_SLOTS - 1))
		if (k->cache[i].addr == addr)
			return;
	k->cache[i].name = name[0] ? strdup(name) : UNNAMED;
	if (!k->cache[i].name)
		return;
	k->cache[i].addr = addr;
	k->cached++;
}

struct knames *knames__open(void)
{
	struct knames *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	k->cache = calloc(CACHE_SLOTS, sizeof(*k->cache));
	k->skel = knames_bpf__open_and_load();
	if (!k->skel) {
		err = errno;
		free(k->cache);
		free(k);
		errno = err;
		return NULL;
	}
	return k;
}

void knames__free(struct knames *k)
{
	if (!k)
		return;
	knames_bpf__destroy(k->skel);
	cache_clear(k);
	free(k->cache);
	free(k);
}

void knames__parse(const char *in, char *out, size_t len)
{
	const char *plus = strchr(in, '+'), *mod = strstr(in, " [");
	size_t n;

	out[0] = '\0';
	/* An unknown address prints as a bare hex number, without "+". */
	if (!plus || plus == in || (in[0] == '0' && in[1] == 'x'))
		return;
	n = (size_t)(plus - in);
	if (mod && mod > plus && strchr(mod, ']'))
		snprintf(out, len, "%.*s%.*s", (int)n, in, (int)(strchr(mod, ']') - mod + 1), mod);
	else
		snprintf(out, len, "%.*s", (int)n, in);
}

/* resolve_batch - run the program on @n (at most KNAMES_BATCH) addresses
 * @addrs; their names go to names[@at[i]] and the cache. */
static int resolve_batch(struct knames *k, const uint64_t *addrs, const uint32_t *at, uint32_t n,
			 char (*names)[KNAMES_NAME_LEN])
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	uint32_t i;

	for (i = 0; i < n; i++)
		k->skel->bss->addrs[i] = addrs[i];
	k->skel->bss->count = n;
	k->stats.runs++;
	if (bpf_prog_test_run_opts(bpf_program__fd(k->skel->progs.resolve), &opts))
		return -errno;
	for (i = 0; i < n; i++) {
		/* bpf_snprintf always terminates; keep it so if it did not run. */
		k->skel->bss->names[i][KNAMES_NAME_LEN - 1] = '\0';
		knames__parse(k->skel->bss->names[i], names[at[i]], KNAMES_NAME_LEN);
		cache_put(k, addrs[i], names[at[i]]);
	}
	return 0;
}

int knames__resolve(struct knames *k, const uint64_t *addrs, uint32_t n,
		    char (*names)[KNAMES_NAME_LEN])
{
	uint64_t want[KNAMES_BATCH];
	uint32_t at[KNAMES_BATCH], nwant = 0, i;
	int err;

	for (i = 0; i < n; i++) {
		if (cache_get(k, addrs[i], names[i])) {
			k->stats.cached++;
			continue;
		}
		k->stats.resolved++;
		want[nwant] = addrs[i];
		at[nwant++] = i;
		if (nwant == KNAMES_BATCH) {
			err = resolve_batch(k, want, at, nwant, names);
			if (err)
				return err;
			nwant = 0;
		}
	}
	return nwant ? resolve_batch(k, want, at, nwant, names) : 0;
}

void knames__stats(const struct knames *k, struct knames_stats *out)
{
	*out = k->stats;
}
