// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* knames.c - run knames.bpf.c on batches of kernel addresses. */
#include "trapd/symbolize/knames.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knames.skel.h"

struct knames {
	struct knames_bpf *skel;
};

struct knames *knames__open(void)
{
	struct knames *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return NULL;
	k->skel = knames_bpf__open_and_load();
	if (!k->skel) {
		err = errno;
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

static int resolve_batch(struct knames *k, const uint64_t *addrs, uint32_t n,
			 char (*names)[KNAMES_NAME_LEN])
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	uint32_t i;

	for (i = 0; i < n; i++)
		k->skel->bss->addrs[i] = addrs[i];
	k->skel->bss->count = n;
	if (bpf_prog_test_run_opts(bpf_program__fd(k->skel->progs.resolve), &opts))
		return -errno;
	for (i = 0; i < n; i++) {
		/* bpf_snprintf always terminates; keep it so if it did not run. */
		k->skel->bss->names[i][KNAMES_NAME_LEN - 1] = '\0';
		knames__parse(k->skel->bss->names[i], names[i], KNAMES_NAME_LEN);
	}
	return 0;
}

int knames__resolve(struct knames *k, const uint64_t *addrs, uint32_t n,
		    char (*names)[KNAMES_NAME_LEN])
{
	uint32_t done, batch;
	int err;

	for (done = 0; done < n; done += batch) {
		batch = n - done < KNAMES_BATCH ? n - done : KNAMES_BATCH;
		err = resolve_batch(k, addrs + done, batch, names + done);
		if (err)
			return err;
	}
	return 0;
}
