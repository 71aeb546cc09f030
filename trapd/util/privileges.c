// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* privileges.c - may this process sample (privileges.h). */
#include "trapd/util/privileges.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trapd/util/log.h"

/* capability numbers (linux/capability.h), not in every libc's headers */
#define CAP_NR_SYS_ADMIN 21
#define CAP_NR_PERFMON 38
#define CAP_NR_BPF 39

static bool has(unsigned long long mask, int cap)
{
	return (mask >> cap) & 1;
}

bool privileges__check_caps(unsigned long long cap_eff, unsigned euid, char *why, size_t len)
{
	bool admin = has(cap_eff, CAP_NR_SYS_ADMIN);

	if (!euid || admin || (has(cap_eff, CAP_NR_BPF) && has(cap_eff, CAP_NR_PERFMON)))
		return true;
	snprintf(why, len,
		 "sampling needs root, or CAP_BPF and CAP_PERFMON (this process, uid %u, has %s): "
		 "run it with sudo",
		 euid,
		 has(cap_eff, CAP_NR_BPF)	? "CAP_BPF only"
		 : has(cap_eff, CAP_NR_PERFMON) ? "CAP_PERFMON only"
						: "neither");
	return false;
}

bool privileges__can_sample(void)
{
	unsigned long long eff = 0;
	char line[256], why[200];
	FILE *f;

	if (!geteuid())
		return true;
	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7) && sscanf(line + 7, "%llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	if (privileges__check_caps(eff, (unsigned)geteuid(), why, sizeof(why)))
		return true;
	log_error("%s", why);
	return false;
}
